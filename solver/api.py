"""The Python API: build a game, solve it with any rule, query the result.

>>> from solver import solve
>>> result = solve("kuhn", "cfr+", iterations=1000)
>>> round(result.ev[0], 3)
-0.056
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, Unpack, overload

import numpy as np
import numpy.typing as npt

from solver.algorithms import (
    AlgorithmRule,
    SolveOptions,
    Solver,
    SolverOptions,
    check_option_names,
    default_algorithm,
    make_solver,
)
from solver.cfr.bestresponse import measure as measure_exploitability
from solver.cfr.checks import Check
from solver.cfr.multi_solve import MultiSolveResult, is_multi_game, solve_multi
from solver.cfr.options import options_with
from solver.cfr.river3_view import River3Game
from solver.games import Game
from solver.games import make_game as make_heads_up_game
from solver.games.holdem3 import River3Spec
from solver.games.holdem3_turn import Turn3Spec
from solver.games.model import DECISION
from solver.games.multiway import MultiGame, multi_game
from solver.lockspec import check_locks_type, lock_engine
from solver.quoting import brief

Array = npt.NDArray[np.float64]


@dataclass(frozen=True)
class Checkpoint(Check):
    """One exploitability measurement of the average strategy during a solve: the one record
    of a check (:class:`solver.cfr.checks.Check`: ``iteration``, ``elapsed_s`` — wall time
    since the solve started, checks included —, ``exploitability`` in chips — NashConv/2 =
    (BR₀ + BR₁) / 2 zero-sum, raked spots Σ_p (BR_p − u_p) / 2 —, ``nodes_touched``,
    ``memory_bytes``) with both best responses (a keyword)."""

    best_response: tuple[float, float] = field(kw_only=True)  # (BR₀, BR₁) in chips

    def as_dict(self, game: Game | None = None) -> dict[str, object]:
        out: dict[str, object] = {
            "iteration": self.iteration,
            "elapsed_s": round(self.elapsed_s, 6),
            "exploitability": self.exploitability,
            "nodes_touched": self.nodes_touched,
            "memory_bytes": self.memory_bytes,
        }
        if game is not None and game.is_holdem:
            out["exploitability_pct_pot"] = exploitability_pct_pot(game, self.exploitability)
            bb = game.big_blind
            if bb:
                out["exploitability_mbb"] = 1000.0 * self.exploitability / bb
        if game is not None and game.has_rake:  # not zero-sum: the sum of both players' gains
            out["exploitability_kind"] = "nashconv/2"
        return out


def exploitability_pct_pot(game: Game, chips: float) -> float:
    """Exploitability as a percentage of the starting pot (hold'em subgames)."""
    return 100.0 * chips / game.starting_pot


Callback = Callable[[Checkpoint], bool | None]


@dataclass
class SolveResult:
    """What a solve leaves: the engine state, the checkpoints, and queries on them."""

    game: Game
    rule: AlgorithmRule
    engine: Solver
    history: list[Checkpoint] = field(default_factory=list)
    stopped_by: str = "iterations"  # "iterations", "target" or "callback"

    @property
    def iteration(self) -> int:
        return self.engine.iteration

    @property
    def exploitability(self) -> float:
        """Exploitability (chips) of the average strategy at the last checkpoint."""
        return self.history[-1].exploitability

    @property
    def elapsed_s(self) -> float:
        return self.history[-1].elapsed_s

    def average_strategy(self) -> Array:
        """Average strategy, flat (action_size,) array in ``[action, hand]`` node blocks."""
        return self.engine.average_strategy()

    @property
    def ev(self) -> tuple[float, float]:
        """Each player's expected value (chips) when both play the average strategy.

        Toy games: zero-sum. Hold'em subgames: pot share at the end minus chips put in after
        the start, so the two sum to the starting pot less the expected rake (see
        ``Game.ev_offset``)."""
        ev = self.engine.expected_values()
        off = self.game.ev_offset
        return ev[0] + off, ev[1] + off

    @property
    def game_value(self) -> float:
        """Player 0's zero-sum expected value under the average strategies (chips)."""
        return self.ev[0] - self.game.ev_offset

    def node_strategy(
        self, history: tuple[str, ...] | list[str] | int, average: bool = True
    ) -> Array:
        """Strategy at a decision node as an (actions, hands) array.

        ``history`` is a node index or the labels of the actions/cards leading to it.
        """
        node, cols = self._columns(history)
        off, na, nh = self.game.block(node)
        flat = self.average_strategy() if average else self.engine.current_strategy()
        table = flat[off : off + na * nh].reshape(na, nh)
        return table[:, cols] if cols is not None else table.copy()

    def _columns(
        self, history: tuple[str, ...] | list[str] | int
    ) -> tuple[int, npt.NDArray[np.int64] | None]:
        """The node standing for ``history`` and, when a suit-isomorphic card was dealt on
        the way, the column of the stored block holding each (real) hand: that hand seen
        through the card map. ``None`` when hands map to themselves."""
        if isinstance(history, int):
            return history, None
        node, cmap = self.game.locate(tuple(history))
        if all(i == c for i, c in enumerate(cmap)) or self.game.tree.kind[node] != DECISION:
            return node, None
        player = int(self.game.tree.player[node])
        cards = self.game.hands.cards[player]
        nh = int(self.game.hands.num_hands[player])
        index = {tuple(sorted(int(c) for c in cards[h] if c >= 0)): h for h in range(nh)}
        cols = np.empty(nh, dtype=np.int64)
        for h in range(nh):
            image = tuple(sorted(cmap[int(c)] for c in cards[h] if c >= 0))
            cols[h] = index[image]
        return node, cols

    def hand_strategy(
        self, history: tuple[str, ...] | list[str] | int, hand: str
    ) -> dict[str, float]:
        """One hand's average strategy at a node, by action label."""
        table = self.strategy(history)
        if hand not in table:
            raise KeyError(f"hand {hand!r} cannot be at this node")
        return table[hand]

    def strategy(self, history: tuple[str, ...] | list[str] | int) -> dict[str, dict[str, float]]:
        """Average strategy at a node: hand name → action label → probability."""
        node, cols = self._columns(history)
        table = self.node_strategy(history)
        player = int(self.game.tree.player[node])
        actions = self.game.action_labels(node)
        valid = self.game.valid_hands(node, player)
        if cols is not None:
            valid = valid[cols]
        out: dict[str, dict[str, float]] = {}
        for h, name in enumerate(self.game.hand_names[player]):
            if valid[h]:
                out[name] = {a: float(table[i, h]) for i, a in enumerate(actions)}
        return out


def continue_from(engine: Solver, warm: SolveResult | Solver) -> None:
    """Give ``engine`` what ``warm``'s solver (a result or a solver) learnt: its regrets (and
    a stored strategy, adaptive statistics), and go on with the rule's schedule where it
    stopped (``Engine.schedule_start``); not its strategy sums, so the average and the
    iteration count start again (ValueError when the two differ) — what
    ``solve(warm_start=...)`` starts from. Restarting the schedule as well let a discounting
    rule scale the carried regrets down within a few iterations and lose them
    (docs/locking.md, "Re-solving warm or fresh")."""
    from solver.cfr.engine import Engine

    old = warm.engine if isinstance(warm, SolveResult) else warm
    if not isinstance(engine, Engine) or not isinstance(old, Engine):
        raise ValueError("warm_start: only full-width solves continue from another")
    if old.rbp is not None or engine.rbp is not None:
        raise ValueError("warm_start: solves with regret-based pruning do not continue")
    if old.game is not engine.game and old.game.action_size != engine.game.action_size:
        raise ValueError("warm_start: the result is of another game")
    if old.rule != engine.rule or old.storage_choice != engine.storage_choice:
        raise ValueError("warm_start: the result used another algorithm or storage")
    if old.precision == "float64" and engine.precision == "float32":
        engine.promote()  # an "auto" solve past Engine.PROMOTE_AT continues in float64
    if old.precision != engine.precision:
        raise ValueError(
            f"warm_start: the result's storage is {old.precision}, this solve's "
            f"{engine.precision} ({engine.precision_note})"
        )
    learnt = ("regrets", "strategy", "last_regret", "step_num", "step_den", "rscale")
    copies = {k: np.array(getattr(old.storage, k), copy=True) for k in learnt}
    engine.storage = engine.storage._replace(**copies)  # type: ignore[arg-type]
    engine.schedule_start = old.schedule_start + old.iteration


def _resolve_game(game: Game | str) -> Game:
    """``game`` itself, or the built-in game it names (:class:`UnknownGameError`, a KeyError
    and a ValueError, for other names)."""
    if isinstance(game, Game):
        return game
    if not isinstance(game, str):
        raise TypeError(f"game must be a Game or a game name, got {type(game).__name__}")
    return make_heads_up_game(game)


MultiName = Literal["kuhn3", "leduc3"]


@overload
def make_game(name: MultiName) -> MultiGame: ...  # type: ignore[overload-overlap]


@overload
def make_game(name: str, **options: object) -> Game: ...


def make_game(name: str, **options: object) -> Game | MultiGame:
    """:func:`solver.games.make_game`, and the three-player toy games ``kuhn3`` and
    ``leduc3`` as :class:`~solver.games.multiway.MultiGame` (docs/multiway.md)."""
    if isinstance(name, str) and is_multi_game(name):
        if options:
            raise TypeError(f"game {name!r} takes no options, got {', '.join(sorted(options))}")
        return multi_game(name.strip().lower())
    return make_heads_up_game(name, **options)


def _whole(name: str, value: object, minimum: int) -> int:
    """``value`` as an int ≥ ``minimum`` (bools and floats refused: ``1.5`` iterations is
    not a count), else TypeError / ValueError naming ``name``."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number, got {brief(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be ≥ {minimum}, got {brief(value)}")
    return int(value)


def _check_arguments(
    iterations: object, target: object, check_every: object, callback: object, params: object
) -> None:
    """The arguments of :func:`solve` that are not solver options (those go through
    :func:`solver.cfr.options.check_options`)."""
    if iterations is not None:
        _whole("iterations", iterations, 0)
    if target is not None:
        if isinstance(target, (bool, np.bool_)) or not isinstance(
            target, (int, float, np.integer, np.floating)
        ):
            raise TypeError(f"target_exploitability must be a number, got {brief(target)}")
        if not target > 0:
            raise ValueError(f"target_exploitability must be > 0 (chips), got {brief(target)}")
    _whole("check_every", check_every, 1)
    if callback is not None and not callable(callback):
        raise TypeError(f"callback must be callable, got {type(callback).__name__}")
    if params is not None and not isinstance(params, Mapping):
        raise TypeError(f"params must be a mapping of name to number, got {brief(params)}")


def measure(engine: Solver, started: float) -> Checkpoint:
    """Exploitability checkpoint of the engine's current average strategy."""
    expl, br = measure_exploitability(engine)
    return Checkpoint(
        iteration=engine.iteration,
        elapsed_s=time.perf_counter() - started,
        exploitability=expl,
        best_response=br,
        nodes_touched=engine.nodes_touched,
        memory_bytes=engine.memory_bytes,
    )


@overload
def solve(  # type: ignore[overload-overlap]  # (a Literal name first, as typeshed's open())
    game: MultiGame | MultiName,
    algorithm: AlgorithmRule | str | None = None,
    iterations: int | None = None,
    target_exploitability: float | None = None,
    check_every: int = 10,
    callback: Callable[..., bool | None] | None = None,
    params: Mapping[str, float] | None = None,
    warm_start: SolveResult | None = None,
    options: SolveOptions | None = None,
    target_nash_distance: float | None = None,
    **settings: Unpack[SolverOptions],
) -> MultiSolveResult[MultiGame]: ...


@overload
def solve(
    game: River3Spec | Turn3Spec | Mapping[str, object],
    algorithm: AlgorithmRule | str | None = None,
    iterations: int | None = None,
    target_exploitability: float | None = None,
    check_every: int = 10,
    callback: Callable[..., bool | None] | None = None,
    params: Mapping[str, float] | None = None,
    warm_start: SolveResult | None = None,
    options: SolveOptions | None = None,
    target_nash_distance: float | None = None,
    **settings: Unpack[SolverOptions],
) -> MultiSolveResult[River3Game]: ...


@overload
def solve(
    game: Game | str,
    algorithm: AlgorithmRule | str | None = None,
    iterations: int | None = None,
    target_exploitability: float | None = None,
    check_every: int = 10,
    callback: Callback | None = None,
    params: Mapping[str, float] | None = None,
    warm_start: SolveResult | None = None,
    options: SolveOptions | None = None,
    target_nash_distance: float | None = None,
    **settings: Unpack[SolverOptions],
) -> SolveResult: ...


def solve(
    game: Game | MultiGame | River3Spec | Turn3Spec | Mapping[str, object] | str,
    algorithm: AlgorithmRule | str | None = None,
    iterations: int | None = None,
    target_exploitability: float | None = None,
    check_every: int = 10,
    callback: Callable[..., bool | None] | None = None,
    params: Mapping[str, float] | None = None,
    warm_start: SolveResult | None = None,
    options: SolveOptions | None = None,
    target_nash_distance: float | None = None,
    **settings: Unpack[SolverOptions],
) -> SolveResult | MultiSolveResult[Any]:
    """Solve ``game`` with ``algorithm`` (a registered name or a :class:`Rule`; None: the
    default, :func:`solver.algorithms.default_algorithm` — ``dcfr-tuned`` for hold'em
    subgames, ``dcfr`` for the toy games).

    Runs until ``iterations`` are done or the exploitability (chips) drops to
    ``target_exploitability``, whichever comes first; with neither, 1,000 iterations.
    Exploitability is measured every ``check_every`` iterations and at the end; ``callback``
    gets each :class:`Checkpoint` and may return True to stop early. ``iterations=0`` reports
    the uniform strategy. Arguments of the wrong type raise TypeError, out of range
    ValueError, each naming the argument (a keyword ``solve`` does not take: TypeError
    listing those it takes); an unknown game or algorithm name raises a KeyError that is
    also a ValueError. ``options`` (a :class:`~solver.cfr.options.SolveOptions`; None: the
    defaults), with any keyword option over it (``threads``, ``precision``, ``pruning``,
    ``seed``, ``rbp_check_every``, ``rbp_threshold``, ``rbp_free_opponent``, ``locks``), go
    whole to :func:`solver.algorithms.make_solver` (checked by its one validator).
    ``threads`` > 1 splits each pass below the first chance nodes (hold'em turn and flop
    spots), or a big river's at its decision nodes (same numbers as one thread); the
    default pruning, "partial", skips what the opponent cannot reach (same numbers, less
    work). ``locks`` fixes the strategy of some
    infosets: ``{line: mix}`` with ``line`` a node's actions as :meth:`SolveResult.strategy`
    takes them and ``mix`` ``{action: probability}`` for every hand there, ``{hand:
    {action: probability}}`` for some, or ``"solved"`` (see :mod:`solver.lockspec`);
    exploitability and EVs are then the locked game's.

    ``warm_start``: start from another result's regrets (same game, algorithm and storage;
    full-width algorithms without regret-based pruning) instead of from scratch — e.g. a
    re-solve after locking a node. What the solve learnt carries over and the rule's
    schedule goes on where it stopped; the average strategy and the iteration count start
    again (carrying the old average over made re-solves slower than fresh ones: the old
    game's average dominated for thousands of iterations; docs/locking.md). "solved" locks
    take the warm start's average strategy.

    Three-player games (``kuhn3``, ``leduc3`` or a :class:`MultiGame`; docs/multiway.md)
    return a :class:`~solver.cfr.multi_solve.MultiSolveResult`: each check reports every
    player's Nash distance and NashConv (no exploitability: its field is None), and
    ``target_nash_distance`` (chips) stops at the first check where the largest Nash
    distance is at most it; ``locks`` take the same text for any player's nodes
    (:mod:`solver.games.multi_locks`). Given ``target_exploitability``, ``warm_start``,
    ``threads`` > 1, storage other than float64, pruning, or a seed but for ``mccfr-es``,
    they raise ValueError naming the argument; so does ``target_nash_distance`` on a
    heads-up game. A three-way hold'em river spot — a
    :class:`~solver.games.holdem3.River3Spec` or a dict of its fields — is solved the same
    way (the full-width rules; a :class:`~solver.games.spec.SpecError` names a bad field
    before anything is built; % pot figures are of the spec's pot; strategies key hands by
    combo, ``AhKd``). A turn spot (:class:`~solver.games.holdem3_turn.Turn3Spec`, or the
    dict with a four-card board) likewise; its lines carry the river card (``d:Qh``).
    """
    check_option_names("solve()", settings, solve)
    if is_multi_game(game):
        _check_arguments(iterations, None, check_every, callback, params)
        if target_exploitability is not None:
            raise ValueError(
                "target_exploitability: three-player games have no exploitability; "
                "give target_nash_distance (chips, the largest player's)"
            )
        if warm_start is not None:
            raise ValueError("warm_start: heads-up only")
        assert not isinstance(game, Game)
        return solve_multi(
            game, algorithm, iterations, target_nash_distance, check_every, callback, params,
            options, **settings,
        )  # fmt: skip
    if target_nash_distance is not None:
        raise ValueError(
            "target_nash_distance: for three-player games (heads-up solves take "
            "target_exploitability)"
        )
    if isinstance(game, (MultiGame, River3Spec, Turn3Spec, Mapping)):  # (for mypy)
        raise TypeError("game: a three-player game is solved by the three-player branch")
    g = _resolve_game(game)
    _check_arguments(iterations, target_exploitability, check_every, callback, params)
    limit = iterations
    if limit is None:
        limit = 1000 if target_exploitability is None else math.inf  # type: ignore[assignment]
    if algorithm is None:
        algorithm = default_algorithm(g.is_holdem)
    opts = options_with(options, settings)
    check_locks_type(opts.locks)
    if warm_start is not None and not isinstance(warm_start, SolveResult):
        raise TypeError(f"warm_start must be a SolveResult, got {type(warm_start).__name__}")
    if warm_start is not None:  # locked after the regrets carry over ("solved": the warm average)
        engine: Solver = make_solver(g, algorithm, dict(params or {}), opts.unchecked(locks=None))
        continue_from(engine, warm_start)
        if opts.locks and hasattr(engine, "lock"):
            lock_engine(engine, opts.locks, warm_start.average_strategy())
    else:
        engine = make_solver(g, algorithm, dict(params or {}), opts)
    # the solver's own game: a sampled solve plays every card (Game.without_isomorphism)
    result = SolveResult(engine.game, engine.rule, engine)
    started = time.perf_counter()
    cp = measure(engine, started)
    result.history.append(cp)
    if callback is not None and callback(cp):
        result.stopped_by = "callback"
        return result
    assert limit is not None
    while engine.iteration < limit:
        if target_exploitability is not None and cp.exploitability <= target_exploitability:
            result.stopped_by = "target"
            break
        n = int(min(check_every, limit - engine.iteration))
        engine.iterate(n)
        cp = measure(engine, started)
        result.history.append(cp)
        if callback is not None and callback(cp):
            result.stopped_by = "callback"
            break
    else:
        if target_exploitability is not None and cp.exploitability <= target_exploitability:
            result.stopped_by = "target"
    return result
