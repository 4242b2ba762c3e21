"""What every solver offers the code that runs, watches, races, saves and reports solves: the
vector :class:`~solver.cfr.engine.Engine` and the sampled
:class:`~solver.cfr.sampling.engine.SampledEngine` both have it."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from solver.cfr.locks import LockSet
from solver.cfr.options import SolveOptions
from solver.games.model import Game

Array = npt.NDArray[np.float64]


class SolverRule(Protocol):
    """The algorithm of a solve as reports show it (a full-width rule or a sampler)."""

    @property
    def name(self) -> str: ...

    def params(self) -> dict[str, float]: ...

    def label(self) -> str: ...


class Solver(Protocol):
    """A solve in progress: the game it solves (a sampled solve plays every card), its rule,
    the options it was made with, iterations and work so far, and its strategies and
    best-response values. What callers read here they read directly (no ``getattr`` with a
    default): a solver without a feature answers for it (a sampled solve: pruning "none",
    no locks, its schedule from 0)."""

    game: Game
    iteration: int
    nodes_touched: int

    @property
    def rule(self) -> Any: ...

    @property
    def options(self) -> SolveOptions:
        """Its options whole (:class:`~solver.cfr.options.SolveOptions`): pruning resolved,
        ``locks`` the locks it plays now — what a save file and a re-solve take."""
        ...

    @property
    def threads(self) -> int: ...

    @property
    def precision(self) -> str:
        """The storage now: "float64", "float32" or "compressed" (an "auto" solve's choice)."""
        ...

    @property
    def storage_choice(self) -> str:
        """The storage asked for (``options.precision``; "auto" may be promoted)."""
        ...

    @property
    def pruning(self) -> str: ...

    @property
    def seed(self) -> int: ...

    @property
    def schedule_start(self) -> int:
        """Iterations of the rule's schedule run before this solve's first (a warm start)."""
        ...

    @property
    def lockset(self) -> LockSet | None:
        """The locks it plays (None: none)."""
        ...

    storage: Any  # the solver's arrays: a NamedTuple with regrets and cumulative at least

    @property
    def memory_bytes(self) -> int:
        """Bytes the solver holds."""
        ...

    def iterate(self, n: int = 1) -> int:
        """Run ``n`` more iterations; returns the nodes they visited."""
        ...

    def average_strategy(self) -> Array:
        """The average strategy (action_size,)."""
        ...

    def current_strategy(self) -> Array:
        """The strategy the next iteration plays (action_size,)."""
        ...

    def best_response_values(self, sigma: Array | None = None) -> tuple[float, float]:
        """(BR₀, BR₁) in chips against ``sigma``, by default the current average strategy."""
        ...

    def expected_values(self) -> tuple[float, float]:
        """Each player's expected payoff (chips) when both play the average strategy."""
        ...
