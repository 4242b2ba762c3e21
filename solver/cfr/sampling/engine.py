"""The sampled-CFR solver (``mccfr-es``, ``mccfr-os``, ``dmccfr``): storage, the seeded
generator and the thin wrapper around the walk of :mod:`solver.cfr.sampling.walk`."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.bestresponse import best_response_values, expected_values
from solver.cfr.layout import game_arrays, make_scratch
from solver.cfr.locks import LockSet
from solver.cfr.options import CheckedOptions, SolveOptions, raise_first
from solver.cfr.sampling.draws import DealTable, Draws, deal_table, random_draws
from solver.cfr.sampling.rules import SAMPLERS, make_sampler
from solver.cfr.sampling.walk import Discount, SampledStorage, Work, make_work, run_sampled
from solver.cfr.update import average_strategy, regret_matching_all
from solver.games.model import Game

Array = npt.NDArray[np.float64]

DISCOUNT_TABLE = 64  # discounted MCCFR: periods' factors handed to the kernel per call
_NO_DISCOUNT = np.ones((1, 2))
_NO_DISCOUNTING = Discount(0.0, _NO_DISCOUNT, 0)  # a period of 0 nodes: none
_NO_PRUNED = np.zeros(1, dtype=np.int8)


class SampledEngine:
    """A sampled-CFR solve (``mccfr-es``, ``mccfr-os``, ``dmccfr``) with the interface of
    :class:`~solver.cfr.engine.Engine` that races, jobs and the API use
    (:class:`~solver.cfr.protocol.Solver`).

    ``params`` override the algorithm's defaults (:data:`~solver.cfr.sampling.rules.SAMPLERS`);
    ``options`` (:class:`~solver.cfr.options.SolveOptions`; None: the defaults) as for the
    engine, of which these take: ``seed`` (a whole number from 0 to 2**64 − 1)
    fixes every draw, so equal seeds repeat a run exactly; ``precision``: "float64",
    "float32" (storage only, the walk computes in float64) or "auto" (float32 for hold'em
    subgames, float64 for the toy games). The walk is serial: ``threads`` is 1, pruning
    "none", and locks are refused. ``full_game``: solve ``game`` with every card dealt
    (:meth:`Game.without_isomorphism`; ``self.game`` is that game). False keeps its suit
    isomorphism — only for testing the walk's mirrored children: the strategies are then an
    imperfect-recall abstraction that the vector engine evaluates as another game."""

    # what the Solver protocol reads of a full-width solve, constant here
    schedule_start = 0
    lockset: LockSet | None = None

    def __init__(
        self,
        game: Game,
        name: str,
        params: dict[str, float] | None = None,
        options: SolveOptions | None = None,
        *,
        full_game: bool = True,
    ) -> None:
        if not isinstance(name, str) or name.lower() not in SAMPLERS:
            raise ValueError(f"unknown sampled algorithm {name!r}; known: {', '.join(SAMPLERS)}")
        if options is not None and not isinstance(options, SolveOptions):
            raise TypeError(f"options must be a SolveOptions, got {type(options).__name__}")
        opts = options if options is not None else SolveOptions()
        if not isinstance(opts, CheckedOptions):  # (make_solver's are checked already)
            raise_first(opts.check(name, params))
        self.options = opts.unchecked(pruning="none")  # (the only mode the samplers take)
        self.rule = make_sampler(name, **(params or {}))
        precision = opts.precision
        if precision == "auto":
            precision = "float32" if game.is_holdem else "float64"
        # every card dealt: a sampled strategy is not suit-symmetric, and the iso tree's
        # mirrored children would evaluate (and train) it as the wrong game (package notes)
        if full_game:
            game = game.without_isomorphism()
        self.game = game
        self.precision = precision
        dtype = np.float64 if precision == "float64" else np.float32
        size = game.action_size
        self.storage = SampledStorage(
            regrets=np.zeros(size, dtype=dtype),
            cumulative=np.zeros(size, dtype=dtype),
            rng=np.array([self.seed], dtype=np.uint64),
            period=np.array([0.0, 1.0]),
        )
        self.table = deal_table(game)
        self.work = make_work(game)
        self._eval_scratch = make_scratch(game)
        self._done = np.zeros(1, dtype=np.int64)
        self.iteration = 0
        self.nodes_touched = 0

    @property
    def threads(self) -> int:
        return int(self.options.threads)

    @property
    def seed(self) -> int:
        return int(self.options.seed)

    @property
    def pruning(self) -> str:
        return "none"

    @property
    def storage_choice(self) -> str:
        """The storage asked for ("auto" resolved once, at the start: :attr:`precision`)."""
        return str(self.options.precision)

    @property
    def mode(self) -> int:
        return self.rule.info.mode

    @property
    def period_nodes(self) -> float:
        """Nodes touched per discounting period (0: no discounting)."""
        if self.rule.name != "dmccfr":
            return 0.0
        return float(self.rule.period) if self.rule.period > 0 else float(self.game.num_nodes)

    def iterate(self, n: int = 1) -> int:
        """Run ``n`` iterations; returns the nodes they touched."""
        if n < 0:
            raise ValueError("iterations must be ≥ 0")
        g = self.game
        period = self.period_nodes
        touched = 0
        remaining = int(n)
        while remaining > 0:
            t0 = int(self.storage.period[1])
            disc = (
                self.rule.discount(np.arange(t0, t0 + DISCOUNT_TABLE, dtype=np.float64))
                if period > 0
                else _NO_DISCOUNT
            )
            touched += int(
                run_sampled(
                    game_arrays(g), self.storage, self.table, random_draws(self.storage.rng),
                    self.work, self.mode, float(self.rule.epsilon), Discount(period, disc, t0),
                    remaining, -1, self._done,
                )
            )  # fmt: skip
            remaining -= int(self._done[0])
        self.iteration += n
        self.nodes_touched += touched
        return touched

    @property
    def memory_bytes(self) -> int:
        return int(sum(a.nbytes for a in self.storage))

    def average_strategy(self) -> Array:
        """Average strategy σ̄ (action_size,): sums normalised per infoset, uniform if zero."""
        out = np.empty(self.game.action_size)
        average_strategy(
            self.game.tree, self.game.hands, self.storage.cumulative.astype(np.float64), out
        )
        return out

    def current_strategy(self) -> Array:
        """Current strategy σ (action_size,): regret matching of the sampled regrets."""
        out = np.empty(self.game.action_size)
        regret_matching_all(
            self.game.tree, self.game.hands, self.storage.regrets.astype(np.float64), out,
            _NO_PRUNED,
        )  # fmt: skip
        return out

    def best_response_values(self, sigma: Array | None = None) -> tuple[float, float]:
        """(BR₀, BR₁) in chips against ``sigma`` (A,), by default the average strategy
        (exact, full-width walks)."""
        if sigma is None:
            sigma = self.average_strategy()
        return best_response_values(self.game, sigma, self._eval_scratch)

    def expected_values(self) -> tuple[float, float]:
        """Each player's expected payoff (chips) when both play the average strategy."""
        return expected_values(self.game, self.average_strategy())


def sampled_pass(
    game: Game,
    storage: SampledStorage,
    trav: int,
    name: str,
    draws: Draws,
    epsilon: float = 0.6,
    work: Work | None = None,
    table: DealTable | None = None,
) -> int:
    """One pass of the sampled algorithm ``name`` for traverser ``trav`` with ``draws``
    (random or scripted), updating ``storage`` in place; returns the nodes touched. For tests
    and analysis: :meth:`SampledEngine.iterate` runs whole iterations. ``work.value[trav]``
    (pass ``work`` to read it) holds the pass's sampled root value."""
    if trav not in (0, 1):
        raise ValueError(f"trav must be 0 or 1, got {trav!r}")
    rule = make_sampler(name, **({"epsilon": epsilon} if name == "mccfr-os" else {}))
    wk = work if work is not None else make_work(game)
    tab = table if table is not None else deal_table(game)
    g = game
    done = np.zeros(1, dtype=np.int64)
    touched = int(
        run_sampled(
            game_arrays(g), storage, tab, draws, wk, rule.info.mode, float(rule.epsilon),
            _NO_DISCOUNTING, 1, int(trav), done,
        )
    )  # fmt: skip
    if draws.ctl[0] == 2:
        raise ValueError("scripted draws: more choices or options than the Draws can record")
    return touched
