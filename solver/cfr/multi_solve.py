"""The Python API on three-player games (the toy games ``kuhn3``, ``leduc3``, and three-way
hold'em river and turn spots, :class:`~solver.games.holdem3.River3Spec` and
:class:`~solver.games.holdem3_turn.Turn3Spec`; issue 49,
docs/multiway.md): :func:`solve_multi`, which :func:`solver.api.solve` calls for them, and
its :class:`MultiSolveResult`; on the engine's floor (beside :mod:`solver.cfr.checks`) so that
the background jobs and races above read the same check record, :class:`MultiCheckpoint`.

A three-player game has no two-player exploitability: each check reports every player's
**Nash distance** (what that player gains by its best unilateral deviation, the others fixed)
and **NashConv** (their sum), in chips per game and in % of the pot (the antes, 3 chips, in
the toy games; a river spot's starting pot). CFR
carries no guarantee with three players, so a target applies to the largest Nash distance
and may never be reached.

>>> from solver import solve
>>> r = solve("kuhn3", "cfr+", iterations=200, check_every=100)
>>> len(r.nash_distance), r.exploitability is None
(3, True)
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from typing import Any, Generic, TypeVar

import numpy as np
import numpy.typing as npt

from solver.cfr.holdem3_engine import River3Engine, lock_river3
from solver.cfr.multi_engine import MultiEngine
from solver.cfr.options import SolveOptions
from solver.cfr.river3_view import River3Game, river3_game
from solver.cfr.rules import RULES, Rule, make_rule
from solver.cfr.sampling.multi_es import MultiESEngine
from solver.games.holdem3 import River3Setup, River3Spec
from solver.games.holdem3_locks import build_holdem3_locks
from solver.games.holdem3_turn import Turn3Setup, Turn3Spec
from solver.games.multi_locks import MultiLockError, MultiLocks, build_multi_locks
from solver.games.multiway import ANTE, MULTI_GAMES, MultiGame, multi_game
from solver.games.nashconv import NashReport
from solver.quoting import brief

Array = npt.NDArray[np.float64]

__all__ = [
    "ES",
    "MULTI_DEFAULT_ALGORITHM",
    "MultiCheckpoint",
    "MultiLockError",
    "MultiSolveResult",
    "action_word",
    "find_node",
    "game_pot",
    "is_multi_game",
    "line_text",
    "lock_multi_engine",
    "make_multi_engine",
    "node_strategy",
    "possible_hands",
    "profile_strategies",
    "resolve_locks",
    "resolve_multi_game",
    "solve_multi",
]

MULTI_DEFAULT_ALGORITHM = "dcfr"  # as for the heads-up toy games (and the CLI)
ES = "mccfr-es"  # external sampling, the one sampler on three players
# a target solve without an iteration limit stops here: CFR may level off above any target
TARGET_CAP = 10_000
_WORDS = {"k": "check", "b": "bet", "c": "call", "f": "fold", "r": "raise"}

MultiSolver = MultiEngine | MultiESEngine
ThreeGame = MultiGame | River3Game
"""A three-player game as results and files read it: a toy game, or a river or turn spot."""
SPOT_TYPES = (River3Spec, River3Setup, Turn3Spec, Turn3Setup, Mapping)
G = TypeVar("G", bound=ThreeGame)


def is_multi_game(game: object) -> bool:
    """Whether ``game`` is a three-player game or names one (``kuhn3``, ``leduc3``), or is a
    three-way river or turn spot (a :class:`River3Spec` or :class:`Turn3Spec`, a dict of its
    fields, a built :class:`River3Game`)."""
    if isinstance(game, (MultiGame, River3Game, *SPOT_TYPES)):
        return True
    return isinstance(game, str) and game.strip().lower() in MULTI_GAMES


def resolve_multi_game(game: object) -> ThreeGame:
    """The three-player game ``game`` stands for: a MultiGame as is, a toy game's name built,
    a river or turn spot (spec, its fields as a dict — a four-card board is a turn —, setup)
    checked and built (:func:`~solver.cfr.river3_view.river3_game`: a SpecError naming a bad
    field)."""
    if isinstance(game, (MultiGame, River3Game)):
        return game
    if isinstance(game, str):
        return multi_game(game.strip().lower())
    if isinstance(game, SPOT_TYPES):
        return river3_game(game)
    raise TypeError(f"game must be a three-player game, got {type(game).__name__}")


def game_pot(game: ThreeGame) -> float:
    """The pot before anyone acts (chips): a toy game's antes, a river spot's pot."""
    if isinstance(game, River3Game):
        return game.pot
    return float(ANTE * game.num_players)


def action_word(label: str) -> str:
    """A label of the MultiGame in words: ``k`` check, ``b`` bet, ``c`` call (Leduc: check
    or call), ``f`` fold, ``r`` raise, ``d:Qs`` the board card Qs; a river spot's ``b:30``
    bet 30, ``r:120`` raise to 120 (chips bet this street after the action)."""
    if label.startswith("d:"):
        return f"board {label[2:]}"
    if label[:2] in ("b:", "r:"):  # a river spot's bet or raise to so many chips
        return f"bet {label[2:]}" if label[0] == "b" else f"raise to {label[2:]}"
    return _WORDS.get(label, label)


def line_text(history: tuple[str, ...]) -> str:
    """A node's line as the results key it: its labels joined by spaces ("" at the root)."""
    return " ".join(history)


@dataclass(frozen=True)
class MultiCheckpoint:
    """One check of the average profile. Per player (tuples, player 0 first, chips per
    game): ``nash_distance`` (best-response value minus value, ≥ 0), ``best_response``,
    ``ev``; ``nash_conv`` their distances' sum. No two-player exploitability."""

    iteration: int
    elapsed_s: float  # since the solve started, checks included, seconds
    nash_distance: tuple[float, ...]
    nash_conv: float
    ev: tuple[float, ...]
    best_response: tuple[float, ...]
    nodes_touched: int = 0
    memory_bytes: int = 0

    @property
    def max_distance(self) -> float:
        """The largest Nash distance (chips): what a target applies to."""
        return max(self.nash_distance)

    def as_dict(self, pot: float) -> dict[str, object]:
        """The check as the CLI's ``--json`` line writes it (``pot`` in chips)."""
        return {
            "iteration": self.iteration,
            "elapsed_s": round(self.elapsed_s, 6),
            "nash_distance": list(self.nash_distance),
            "nash_distance_pct_pot": [100.0 * d / pot for d in self.nash_distance],
            "nash_conv": self.nash_conv,
            "nash_conv_pct_pot": 100.0 * self.nash_conv / pot,
            "ev": list(self.ev),
            "nodes_touched": self.nodes_touched,
            "memory_bytes": self.memory_bytes,
        }


MultiCallback = Callable[[MultiCheckpoint], bool | None]


def engine_memory(engine: MultiSolver) -> int:
    """Bytes of the solver's regrets and sums (what grows with the game)."""
    if isinstance(engine, MultiESEngine):
        return int(engine.regrets.nbytes + engine.cumulative.nbytes)
    st = engine.storage
    return int(sum(getattr(a, "nbytes", 0) for a in st))


def checkpoint(engine: MultiSolver, elapsed_s: float) -> MultiCheckpoint:
    """The check of ``engine``'s average profile now (the engine's own best-response and
    evaluation passes, or the evaluator for external sampling; both equal
    :func:`solver.games.nashconv.nash_report`)."""
    rep: NashReport = engine.measure()
    return MultiCheckpoint(
        iteration=engine.iteration,
        elapsed_s=elapsed_s,
        nash_distance=tuple(float(x) for x in rep.nash_distance),
        nash_conv=float(rep.nash_conv),
        ev=tuple(float(x) for x in rep.value),
        best_response=tuple(float(x) for x in rep.best_response),
        nodes_touched=engine.nodes_touched,
        memory_bytes=engine_memory(engine),
    )


@dataclass
class MultiSolveResult(Generic[G]):
    """What a three-player solve leaves: the engine, its checks and queries on the average
    profile. ``exploitability`` is None: a three-player game has none (see the Nash
    distances)."""

    game: G
    algorithm: str  # the rule's name, or "mccfr-es"
    params: dict[str, float]
    engine: MultiSolver
    history: list[MultiCheckpoint] = field(default_factory=list)
    stopped_by: str = "iterations"  # "iterations", "target" or "callback"
    exploitability: None = None  # (heads-up results' field: none with three players)

    @property
    def players(self) -> int:
        return self.game.num_players

    @property
    def pot(self) -> float:
        """The pot before anyone acts (chips): the antes, or a river spot's pot."""
        return game_pot(self.game)

    @property
    def iteration(self) -> int:
        return self.engine.iteration

    @property
    def elapsed_s(self) -> float:
        return self.history[-1].elapsed_s

    @property
    def nash_distance(self) -> tuple[float, ...]:
        """Each player's Nash distance (chips) at the last check."""
        return self.history[-1].nash_distance

    @property
    def nash_distance_pct_pot(self) -> tuple[float, ...]:
        return tuple(100.0 * d / self.pot for d in self.nash_distance)

    @property
    def nash_conv(self) -> float:
        """NashConv (chips): the sum of the Nash distances at the last check."""
        return self.history[-1].nash_conv

    @property
    def nash_conv_pct_pot(self) -> float:
        return 100.0 * self.nash_conv / self.pot

    @property
    def ev(self) -> tuple[float, ...]:
        """Each player's expected chips under the average profile (they sum to 0)."""
        return self.history[-1].ev

    @property
    def locks(self) -> MultiLocks | None:
        """The locks the solve played (None: none): :attr:`MultiLocks.sets`, each locked
        information set and its mix; :attr:`MultiLocks.spec`, the lock text applied."""
        return getattr(self.engine, "locks", None)

    @property
    def locked(self) -> list[list[str]]:
        """Per player (player 0 first) the lines where it has locked hands (``"root"`` for
        the root); empty lists when nothing is locked."""
        locks = self.locks
        return locks.lines(self.players) if locks is not None else [[] for _ in range(self.players)]

    def resolve_locks(self, spec: Mapping[Any, Any]) -> MultiLocks:
        """The lock text ``spec`` (``{line: mix}``) resolved against this result's game, its
        "solved" locks on this solve's average profile: pass it as the next solve's
        ``locks`` (``solve(game, locks=r.resolve_locks({"k b": "solved"}))``). A bad lock:
        :class:`MultiLockError` naming its line."""
        return resolve_locks(self.game, spec, self.average_profile())

    def average_profile(self) -> Array:
        """The average profile, flat ``(profile_size,)`` in the MultiGame's ``[action, hand]``
        blocks (:mod:`solver.games.multiway`; a river spot: the engine's blocks, each player's
        own hands, :mod:`solver.cfr.river3_view`)."""
        return self.engine.average_profile()

    def node(self, history: tuple[str, ...] | list[str] | str | int) -> int:
        """The decision node of ``history``: a node index, its labels, or their
        :func:`line_text` (KeyError when no decision node has that line)."""
        return find_node(self.game, history)

    def strategy(
        self, history: tuple[str, ...] | list[str] | str | int, profile: Array | None = None
    ) -> dict[str, dict[str, float]]:
        """The acting player's average strategy at a node: hand (a river spot: combo text,
        ``AhKd``) → action label → probability, over the hands that can be there
        (``profile``: another profile)."""
        sigma = self.average_profile() if profile is None else profile
        return node_strategy(self.game, sigma, self.node(history))

    def strategies(self) -> list[dict[str, dict[str, dict[str, float]]]]:
        """Every player's average strategy: per player (player 0 first) line text →
        hand → action label → probability, over its information sets."""
        return profile_strategies(self.game, self.average_profile())


def find_node(game: ThreeGame, history: tuple[str, ...] | list[str] | str | int) -> int:
    """The decision node of ``history`` in ``game``: a node index, its labels, or their
    :func:`line_text` (KeyError when no decision node has that line)."""
    if isinstance(history, bool):
        raise TypeError("history: a node index, its labels or their line, not a bool")
    decisions = game.decision_nodes()
    if isinstance(history, (int, np.integer)):
        n = int(history)
        if n not in set(decisions.tolist()):
            raise KeyError(f"node {n} is not a decision node of {game.name}")
        return n
    want = tuple(history.split()) if isinstance(history, str) else tuple(history)
    for n in decisions:
        if game.history(int(n)) == want:
            return int(n)
    raise KeyError(f"no decision node at line {line_text(want)!r} in {game.name}")


def possible_hands(game: MultiGame, node: int) -> list[int]:
    """The hands the actor of ``node`` can hold there (every deal the board allows)."""
    p = int(game.player[node])
    return sorted(set(np.unique(game.deals[game.deal_valid[game.board[node]], p]).tolist()))


def node_strategy(game: ThreeGame, sigma: Array, node: int) -> dict[str, dict[str, float]]:
    """The actor's strategy in ``sigma`` (a profile) at decision ``node``: hand → action
    label → probability, over :func:`possible_hands` (a river or turn spot: every combo of the
    actor's range, as ``AhKd``)."""
    if isinstance(game, River3Game):  # (a turn spot: not a combo holding the river card)
        blk = game.block(sigma, node)
        acts = [game.labels[c] for c in game.children(node)]
        p = int(game.player[node])
        valid = game.valid(node, p)
        return {
            name: {a: float(blk[i, k]) for i, a in enumerate(acts)}
            for k, name in enumerate(game.hand_names(p))
            if valid[k]
        }
    h, off, na = game.num_hands, int(game.offset[node]), int(game.num_children[node])
    block = sigma[off : off + na * h].reshape(na, h)
    actions = [game.labels[c] for c in game.children(node)]
    names = game.hand_names
    return {
        names[k]: {a: float(block[i, k]) for i, a in enumerate(actions)}
        for k in possible_hands(game, node)
    }


def profile_strategies(
    game: ThreeGame, sigma: Array
) -> list[dict[str, dict[str, dict[str, float]]]]:
    """Every player's part of ``sigma``: per player (player 0 first) line text → hand →
    action label → probability."""
    out: list[dict[str, dict[str, dict[str, float]]]] = [{} for _ in range(game.num_players)]
    for n in game.decision_nodes():
        p = int(game.player[n])
        out[p][line_text(game.history(int(n)))] = node_strategy(game, sigma, int(n))
    return out


def _refuse(
    settings: Mapping[str, object], options: SolveOptions | None, algorithm: str
) -> tuple[int, object]:
    """The seed and the locks of the solve, after refusing by name what a three-player game
    does not take (ValueError): threads above 1, storage other than float64, pruning, the
    RBP settings, a seed but for ``mccfr-es``."""
    if options is not None and not isinstance(options, SolveOptions):
        raise TypeError(f"options must be a SolveOptions, got {type(options).__name__}")
    base = SolveOptions()
    opts = options if options is not None else base
    merged = {**{f.name: getattr(opts, f.name) for f in fields(SolveOptions)}, **settings}
    for name, value in merged.items():
        if name == "seed" or value is None or value == getattr(base, name):
            continue
        if name == "threads" and value == 1:
            continue
        if name == "precision" and value in ("auto", "float64"):
            continue
        if name == "pruning" and value == "none":
            continue
        if name == "locks":  # (taken: solve_multi resolves them)
            continue
        why = {
            "threads": "three-player games run on one thread",
            "precision": "three-player games store float64",
            "pruning": "three-player games walk every subtree",
        }.get(name, "heads-up only")
        raise ValueError(f"{name}: {why}, got {brief(value)}")
    seed = merged.get("seed", 0)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed: a whole number ≥ 0, got {brief(seed)}")
    if seed and algorithm != ES:
        raise ValueError(f"seed: only with algorithm {ES!r} on three-player games")
    return int(seed), merged.get("locks")


def lock_multi_engine(
    engine: MultiSolver, locks: object, profile: Array | None = None
) -> MultiLocks | None:
    """Lock ``engine`` with ``locks`` — lock text ``{line: mix}`` for any player
    (:mod:`solver.games.multi_locks`; on a three-way river or turn spot's engine
    :mod:`solver.games.holdem3_locks`, via :func:`lock_river3`; None or ``{}``: none) or
    resolved :class:`MultiLocks`; "solved" locks take ``profile`` (the game's
    ``(profile_size,)`` layout). Returns the locks applied.
    :class:`MultiLockError` (a ValueError) names the line and hand of a bad lock; TypeError
    when ``locks`` is no mapping; ValueError for external sampling, which plays no locks."""
    if locks is None or (isinstance(locks, Mapping) and not locks):
        return None
    if not isinstance(locks, (Mapping, MultiLocks)):
        raise TypeError(f"locks must be {{line: mix}} (a mapping), got {type(locks).__name__}")
    if isinstance(engine, MultiESEngine):
        raise ValueError(f"locks: not with {ES} (external sampling plays no locks)")
    if isinstance(engine, River3Engine):  # (its lines and combos: the built game's)
        return lock_river3(engine, locks, profile)
    if isinstance(locks, Mapping):
        locks = build_multi_locks(engine.mgame, locks, profile)
    if locks.cells.shape != (engine.mgame.profile_size,):
        raise ValueError("locks: resolved against another game")
    engine.lock(locks)
    return locks


def resolve_locks(game: ThreeGame, spec: Mapping[Any, Any], profile: Array | None = None
                  ) -> MultiLocks:  # fmt: skip
    """``spec`` (lock text ``{line: mix}``) resolved against ``game``: a toy game's by
    :func:`~solver.games.multi_locks.build_multi_locks`, a river or turn spot's against its
    built game (:func:`~solver.games.holdem3_locks.build_holdem3_locks`: combos ``AhKd``,
    ranges, hand classes); "solved" locks take ``profile`` (``(profile_size,)``). A bad
    lock: :class:`MultiLockError` naming its line."""
    if isinstance(game, River3Game):
        return build_holdem3_locks(game.built.game, spec, profile)
    return build_multi_locks(game, spec, profile)


def make_multi_engine(
    game: ThreeGame,
    algorithm: object,
    params: Mapping[str, float] | None = None,
    seed: int = 0,
) -> tuple[MultiSolver, str, dict[str, float]]:
    """The engine for ``algorithm`` (a full-width rule's name or :class:`Rule`, or
    ``mccfr-es``; None: dcfr) with ``params``; and its name and parameters. An algorithm
    that is not for three-player games: ValueError naming ``algorithm``. A river spot runs
    the full-width rules (:class:`~solver.cfr.holdem3_engine.River3Engine`), not ``mccfr-es``."""

    def engine(rule: Rule) -> MultiEngine:
        if isinstance(game, River3Game):
            return River3Engine(game.built, rule)
        return MultiEngine(game, rule)

    if isinstance(algorithm, Rule):
        if params:
            raise ValueError("params: give them in the Rule, not beside it")
        return engine(algorithm), algorithm.name, algorithm.params()
    if algorithm is None:
        algorithm = MULTI_DEFAULT_ALGORITHM
    if not isinstance(algorithm, str):
        raise TypeError(f"algorithm must be a name or a Rule, got {brief(algorithm)}")
    name = algorithm.strip().lower()
    if name == ES:
        if isinstance(game, River3Game):
            raise ValueError(f"algorithm: {ES} runs on kuhn3 and leduc3, not on hold'em spots "
                             "yet (the full-width rules do)")  # fmt: skip
        if params:
            raise ValueError(f"params: {ES} takes no parameters")
        return MultiESEngine(game, seed), ES, {}
    if name not in RULES:
        raise ValueError(
            f"algorithm: {name!r} is not for three-player games (the full-width rules: "
            f"{', '.join(RULES)}; or {ES})"
        )
    rule = make_rule(name, **{k: float(v) for k, v in (params or {}).items()})
    return engine(rule), rule.name, rule.params()


def solve_multi(
    game: ThreeGame | River3Spec | Turn3Spec | Mapping[str, object] | str,
    algorithm: object = None,
    iterations: int | None = None,
    target_nash_distance: float | None = None,
    check_every: int = 10,
    callback: MultiCallback | None = None,
    params: Mapping[str, float] | None = None,
    options: SolveOptions | None = None,
    **settings: object,
) -> MultiSolveResult[Any]:
    """Solve a three-player game (``game`` a :class:`MultiGame` or ``kuhn3``/``leduc3``, or
    a three-way river or turn spot: a :class:`River3Spec` or :class:`Turn3Spec` or a dict of
    its fields (a four-card board: a turn), checked first —
    a :class:`~solver.games.spec.SpecError` names a bad field; its pot is the spec's):
    up to ``iterations`` (None: 1,000, or with a target :data:`TARGET_CAP`), stopping at the
    first check where the largest Nash distance is at most ``target_nash_distance`` (chips).
    Checks every ``check_every`` iterations and at the end; ``callback`` gets each
    :class:`MultiCheckpoint` and may return True to stop. ``locks`` (a keyword setting, or
    ``options.locks``): ``{line: mix}`` for any player's nodes, as heads-up locks are written
    (:mod:`solver.games.multi_locks`; :func:`~solver.games.multi_locks.uniform_locks` fixes
    whole players to uniform; on a river or turn spot :mod:`solver.games.holdem3_locks` —
    combos ``AhKd``, ranges, hand classes, a turn's lines through ``d:Qc`` —, whole players
    by :func:`~solver.games.holdem3_locks.holdem3_lock_lines`), or resolved
    :class:`MultiLocks` (:meth:`MultiSolveResult.resolve_locks`: "solved" locks on an
    earlier solve's average); :class:`MultiLockError` names a bad one's line, before
    anything is solved. Arguments are checked by :func:`solver.api.solve` first; here what a
    three-player game refuses."""
    name = algorithm.strip().lower() if isinstance(algorithm, str) else ""
    seed, locks = _refuse(settings, options, name)
    mg = resolve_multi_game(game)
    if target_nash_distance is not None:
        t = target_nash_distance
        if isinstance(t, bool) or not isinstance(t, (int, float, np.integer, np.floating)):
            raise TypeError(f"target_nash_distance must be a number, got {brief(t)}")
        if not t > 0 or not math.isfinite(t):
            raise ValueError(f"target_nash_distance must be > 0 (chips), got {brief(t)}")
    engine, label, rule_params = make_multi_engine(mg, algorithm, params, seed)
    lock_multi_engine(engine, locks)
    limit = iterations
    if limit is None:
        limit = 1000 if target_nash_distance is None else TARGET_CAP
    result: MultiSolveResult[Any] = MultiSolveResult(mg, label, rule_params, engine)
    started = time.perf_counter()

    def reached(cp: MultiCheckpoint) -> bool:
        return target_nash_distance is not None and cp.max_distance <= target_nash_distance

    cp = checkpoint(engine, 0.0)
    result.history.append(cp)
    if callback is not None and callback(cp):
        result.stopped_by = "callback"
        return result
    while engine.iteration < limit and not reached(cp):
        engine.iterate(int(min(check_every, limit - engine.iteration)))
        cp = checkpoint(engine, time.perf_counter() - started)
        result.history.append(cp)
        if callback is not None and callback(cp):
            result.stopped_by = "callback"
            return result
    if reached(cp):
        result.stopped_by = "target"
    return result
