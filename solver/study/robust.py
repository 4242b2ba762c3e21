"""How much an exploit risks: the restricted Nash response (Johanson, Zinkevich, Bowling,
"Computing Robust Counter-Strategies", NIPS 2007), docs/exploit.md.

The exploiter's opponent (the *learner*) plays a fixed strategy σ_fix — a read, e.g. the
opponent's average strategy in a profile-locked solve — with probability ``p`` and a free
strategy otherwise; the exploiter cannot tell which. CFR on that game (``Engine.restrict``:
the walk carries the learner's free reach beside the mixture) gives the exploiter a strategy
σ_p that trades **exploitation** (what it wins against σ_fix) against **exploitability** (what
a best-responding opponent takes back): ``p`` = 0 is the equilibrium, ``p`` = 1 a best
response to σ_fix, and both numbers grow with ``p``.

Units: chips (the EV convention of :mod:`solver.study.analysis`: :attr:`Game.ev_offset`
added to absolute values). Both measures are relative to the game's value for the exploiter,
estimated from the solve the curve starts from as the middle of its bounds
``v̂ = (BR_e − BR_l)/2`` (exact to within that solve's exploitability ε, ``error_value``):

* ``exploitation_chips`` = u_e(σ_p, σ_fix) − v̂: won against the read beyond the value;
* ``exploitability_chips`` = v̂ + BR_l(σ_p): what the learner's best response takes back.

Each point's own error is its solve's exploitability in the restricted game (``error_chips``,
NashConv/2 of that game). The solves run on one thread, full width, warm: each point goes on
from the regrets of the previous one (the first from the solve's).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.algorithms import make_solver
from solver.api import SolveResult, continue_from
from solver.cfr.bestresponse import root_player_values
from solver.cfr.engine import Engine
from solver.cfr.layout import check_strategy
from solver.cfr.locks import Locks, no_locks, restricted
from solver.games.model import DECISION, Game
from solver.study.analysis import investments

Array = npt.NDArray[np.float64]

CURVE_PS = (0.0, 0.25, 0.5, 0.75, 1.0)  # the default curve
MAX_POINTS = 11  # values of p one curve takes at most
MAX_ITERATIONS = 1_000_000


class RobustError(ValueError):
    """A restricted Nash response that cannot be run; ``field`` names the argument at fault
    (``"p"``, ``"fixed"``, ``"exploiter"``, ``"iterations"``, ``"target"``, ``"algorithm"``,
    ``"pruning"``, ``"game"``)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class RobustStopped(Exception):
    """A curve left early: its ``stop`` callback said so (between chunks of iterations)."""


@dataclass(frozen=True)
class RobustPoint:
    """One restricted Nash response (module doc for units): the exploiter's average strategy
    after ``iterations`` iterations at ``p``."""

    p: float
    exploiter: int
    iterations: int
    ev_vs_profile: float  # chips: u_e(σ_p, σ_fix) + ev_offset
    exploitation_chips: float  # u_e(σ_p, σ_fix) − v̂
    exploitation_pct_pot: float | None  # 100 × that / pot; None: toy and preflop games
    exploitability_chips: float  # v̂ + BR_l(σ_p)
    exploitability_pct_pot: float | None
    value: float  # chips: the exploiter's EV in the restricted game (+ ev_offset)
    error_chips: float  # the solve's NashConv/2 in the restricted game
    seconds: float  # the solve and its measures, wall clock
    strategy: Array = field(repr=False, compare=False)  # (A,) σ_p (the exploiter's cells)

    def to_dict(self) -> dict[str, Any]:
        """The JSON line ``exploit --rnr`` prints per p."""
        return {
            "p": self.p,
            "exploiter": self.exploiter,
            "iterations": self.iterations,
            "exploitation_chips": self.exploitation_chips,
            "exploitation_pct_pot": self.exploitation_pct_pot,
            "exploitability_chips": self.exploitability_chips,
            "exploitability_pct_pot": self.exploitability_pct_pot,
            "ev_vs_profile": self.ev_vs_profile,
            "value": self.value,
            "error_chips": self.error_chips,
            "seconds": self.seconds,
        }


@dataclass(frozen=True)
class RobustCurve:
    """Restricted Nash responses for several ``p`` against one σ_fix."""

    points: list[RobustPoint]
    exploiter: int
    value_estimate: float  # v̂ (chips, + ev_offset)
    error_value: float  # the starting solve's exploitability: v̂'s error
    best_response: float  # chips (+ ev_offset): BR_e(σ_fix), what p = 1 tends to
    pot: float | None  # the pot at the root (hold'em subgames)


# ----- argument checks ------------------------------------------------------------------------
def check_p(p: object, name: str = "p") -> float:
    """``p`` as a float in [0, 1], else :class:`RobustError` naming ``name``."""
    if isinstance(p, bool) or not isinstance(p, (int, float, np.integer, np.floating)):
        raise RobustError(name, f"must be a number from 0 to 1, got {p!r}")
    x = float(p)
    if not math.isfinite(x) or not 0.0 <= x <= 1.0:
        raise RobustError(name, f"must be from 0 to 1, got {p!r}")
    return x


def check_ps(ps: Sequence[object], name: str = "p") -> list[float]:
    """A curve's values of p: 1 to :data:`MAX_POINTS` numbers in [0, 1], no repeats."""
    if isinstance(ps, (str, bytes)) or not isinstance(ps, Sequence):
        raise RobustError(name, f"must be a list of numbers from 0 to 1, got {ps!r}")
    if not 1 <= len(ps) <= MAX_POINTS:
        raise RobustError(name, f"takes 1 to {MAX_POINTS} values, got {len(ps)}")
    out = [check_p(p, name) for p in ps]
    if len(set(out)) != len(out):
        raise RobustError(name, f"a value is given twice: {out}")
    return out


def _check_run(result: SolveResult, iterations: int | None, target: float | None) -> Engine:
    engine = result.engine
    if not isinstance(engine, Engine) or engine.sampling:
        raise RobustError(
            "algorithm",
            f"{result.rule.name}: the restricted Nash response needs a full-width solve",
        )
    if engine.rbp is not None:
        raise RobustError("pruning", f"{engine.pruning!r} does not continue: use partial or none")
    if result.game.has_rake:
        raise RobustError("game", "a raked game is not zero-sum: exploitability is undefined")
    if iterations is not None and (
        isinstance(iterations, bool)
        or not isinstance(iterations, (int, np.integer))
        or not 1 <= iterations <= MAX_ITERATIONS
    ):
        raise RobustError(
            "iterations", f"must be a whole number 1–{MAX_ITERATIONS:,}, got {iterations!r}"
        )
    if target is not None and (
        isinstance(target, bool)
        or not isinstance(target, (int, float))
        or not math.isfinite(target)
        or target <= 0
    ):
        raise RobustError("target", f"must be a positive number of chips, got {target!r}")
    return engine


def fixed_strategy(game: Game, fixed: object) -> Array:
    """σ_fix as an (A,) array: an array itself, or a solve's average strategy (a
    :class:`SolveResult`, or anything with a ``result`` that is one: a profile run)."""
    src = getattr(fixed, "result", fixed)
    if isinstance(src, SolveResult):
        if src.game.action_size != game.action_size:
            raise RobustError("fixed", "the strategy is of another game")
        return src.average_strategy()
    try:
        return check_strategy(game, np.asarray(fixed, dtype=np.float64))
    except (TypeError, ValueError) as e:
        raise RobustError("fixed", str(e)) from None


# ----- measures ------------------------------------------------------------------------------
def _player_cells(game: Game, player: int) -> npt.NDArray[np.bool_]:
    out = np.zeros(game.action_size, dtype=bool)
    t = game.tree
    for n in np.flatnonzero((t.kind == DECISION) & (t.player == player)):
        off, na, nh = game.block(int(n))
        out[off : off + na * nh] = True
    return out


def _value(game: Game, sigma: Array, player: int, best: bool, locks: Locks) -> float:
    v = root_player_values(game, sigma, player, best, locks=locks)
    return float(np.dot(game.hands.weights[player, : v.shape[0]], v))


@dataclass(frozen=True)
class _Measures:
    ev_fix: float  # u_e(σ_e, σ_fix), raw chips
    br_l: float  # BR_l(σ_e)
    value: float  # u_e in the restricted game
    error: float  # NashConv/2 of the restricted game


def _measure(game: Game, sigma: Array, fixed: Array, p: float, e: int, locks: Locks) -> _Measures:
    """The numbers of σ (A,): the exploiter's cells played against σ_fix, against a best
    response, and in the restricted game (its value, both best responses)."""
    learner = 1 - e
    both = sigma.copy()
    cells = _player_cells(game, learner)
    both[cells] = fixed[cells]
    ev_fix = _value(game, both, e, False, locks)
    br_l = _value(game, sigma, learner, True, locks)
    if p == 0.0:
        value = _value(game, sigma, e, False, locks)
        br_e = _value(game, sigma, e, True, locks)
    else:
        rl = restricted(locks, p, e, fixed)
        value = _value(game, sigma, e, False, rl)
        br_e = _value(game, sigma, e, True, rl)
    error = 0.5 * (br_e + (1.0 - p) * br_l - p * ev_fix)
    return _Measures(ev_fix, br_l, value, error)


# ----- solving ------------------------------------------------------------------------------
def _engine(result: SolveResult, warm: Engine) -> Engine:
    """A one-thread engine of ``result``'s game, rule and options (its locks), going on
    from what ``warm`` learnt."""
    old = result.engine
    assert isinstance(old, Engine)
    opts = replace(old.options, locks=None, threads=1)
    engine = make_solver(result.game, result.rule, None, opts)
    assert isinstance(engine, Engine)
    continue_from(engine, warm)
    if old.lockset is not None:
        engine.lock(old.lockset)
    return engine


def _solve_point(
    result: SolveResult, warm: Engine, fixed: Array, p: float, e: int, iterations: int,
    target: float | None, check_every: int, offset: float, v_hat: float, pot: float | None,
    stop: Callable[[], bool] | None,
) -> tuple[RobustPoint, Engine]:  # fmt: skip
    started = time.perf_counter()
    engine = _engine(result, warm)
    engine.restrict(p, e, fixed)
    locks = engine.lockset.locks if engine.lockset is not None else no_locks()
    m: _Measures | None = None
    while engine.iteration < iterations:
        engine.iterate(int(min(check_every, iterations - engine.iteration)))
        if stop is not None and stop():
            raise RobustStopped
        if target is not None:
            m = _measure(result.game, engine.average_strategy(), fixed, p, e, locks)
            if m.error <= target:
                break
    sigma = engine.average_strategy()
    if m is None:
        m = _measure(result.game, sigma, fixed, p, e, locks)
    exploitation = m.ev_fix - v_hat
    exploitability = v_hat + m.br_l
    cells = _player_cells(result.game, e)
    point = RobustPoint(
        p=p,
        exploiter=e,
        iterations=int(engine.iteration),
        ev_vs_profile=m.ev_fix + offset,
        exploitation_chips=exploitation,
        exploitation_pct_pot=100.0 * exploitation / pot if pot else None,
        exploitability_chips=exploitability,
        exploitability_pct_pot=100.0 * exploitability / pot if pot else None,
        value=m.value + offset,
        error_chips=m.error,
        seconds=time.perf_counter() - started,
        strategy=np.where(cells, sigma, 0.0),
    )
    return point, engine


def _root_pot(game: Game) -> float | None:
    postflop = game.is_holdem and not game.meta.get("preflop")
    return float(investments(game, 0)[0]) if postflop else None


def robust_curve(
    result: SolveResult,
    fixed: object,
    ps: Sequence[object] = CURVE_PS,
    *,
    exploiter: int,
    iterations: int | None = None,
    target: float | None = None,
    check_every: int = 10,
    on_point: Callable[[RobustPoint], None] | None = None,
    stop: Callable[[], bool] | None = None,
) -> RobustCurve:
    """Restricted Nash responses of ``exploiter`` for each p of ``ps`` against ``fixed``
    (σ_fix: an (A,) strategy, a :class:`SolveResult` or a profile run — the opponent's
    average strategy in it), starting from ``result``: each solve ``iterations``
    iterations (default the result's own count) or down to ``target`` chips of
    exploitability in the restricted game, checked every ``check_every``. ``on_point`` is
    called with each point as it is done; ``stop`` between chunks of ``check_every``
    iterations, :class:`RobustStopped` raised when it returns True. Every argument is
    checked before anything is solved (:class:`RobustError` naming it)."""
    values = check_ps(ps)
    if exploiter not in (0, 1) or isinstance(exploiter, bool):
        raise RobustError("exploiter", f"must be 0 or 1, got {exploiter!r}")
    engine = _check_run(result, iterations, target)
    if isinstance(check_every, bool) or not isinstance(check_every, int) or check_every < 1:
        raise RobustError("check_every", f"must be a whole number ≥ 1, got {check_every!r}")
    game = result.game
    fx = fixed_strategy(game, fixed)
    limit = int(iterations) if iterations is not None else max(int(result.iteration), 1)
    br = result.history[-1].best_response if result.history else engine.best_response_values()
    v_hat = 0.5 * (br[exploiter] - br[1 - exploiter])
    error_value = 0.5 * (br[0] + br[1])
    offset = float(game.ev_offset)
    pot = _root_pot(game)
    locks = engine.lockset.locks if engine.lockset is not None else no_locks()
    cells = _player_cells(game, 1 - exploiter)
    sigma = engine.average_strategy()
    both = np.where(cells, fx, sigma)
    best = _value(game, both, exploiter, True, locks) + offset
    points: list[RobustPoint] = []
    warm: Engine = engine
    for p in values:
        point, warm = _solve_point(result, warm, fx, p, exploiter, limit, target, check_every,
                                   offset, v_hat, pot, stop)  # fmt: skip
        points.append(point)
        if on_point is not None:
            on_point(point)
    return RobustCurve(points, exploiter, v_hat + offset, error_value, best, pot)


def robust_response(
    result: SolveResult,
    fixed: object,
    p: object,
    *,
    exploiter: int,
    iterations: int | None = None,
    target: float | None = None,
    check_every: int = 10,
) -> RobustPoint:
    """One restricted Nash response at ``p`` (:func:`robust_curve` with one point)."""
    x = check_p(p)
    curve = robust_curve(result, fixed, [x], exploiter=exploiter, iterations=iterations,
                         target=target, check_every=check_every)  # fmt: skip
    return curve.points[0]


def estimate_seconds(seconds_per_iteration: float, threads: int, iterations: int,
                     points: int) -> float:  # fmt: skip
    """A curve's time, scaled from a solve's own: its measured seconds per iteration on
    ``threads`` threads (the restricted solves run on one: times ``threads``, an upper
    bound) × ``iterations`` per point × ``points``, plus a quarter for the exploiter's wider
    passes and the measures. Good to a factor of two."""
    per = max(float(seconds_per_iteration), 0.0) * max(int(threads), 1)
    return 1.25 * per * max(int(iterations), 0) * max(int(points), 0)


def exploiter_of(profile_player: str | int) -> int:
    """The exploiter facing a profile of ``profile_player`` ("oop" = 0, "ip" = 1, or 0/1)."""
    seat = {"oop": 0, "ip": 1}.get(str(profile_player), profile_player)
    if seat not in (0, 1):
        raise RobustError("player", f"'oop', 'ip', 0 or 1, got {profile_player!r}")
    return 1 - int(seat)
