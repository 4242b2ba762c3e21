"""What every solver offers the code that runs, watches, races, saves and reports solves: the
vector :class:`~solver.cfr.engine.Engine` and the sampled
:class:`~solver.cfr.sampling.engine.SampledEngine` both have it."""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

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
    iterations and work so far, and its strategies and best-response values."""

    game: Game
    iteration: int
    nodes_touched: int
    threads: int
    precision: str
    seed: int

    @property
    def rule(self) -> Any: ...

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
