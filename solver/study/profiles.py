"""Opponent profiles: an opponent described in the stats players know (c-bet %, fold to
c-bet %, check-raise %, turn barrel %, river bet %, river bluff share, fold to river bet %),
compiled into frequency-shift locks (:mod:`solver.study.shift_lock`) at the nodes each stat
names, re-solved warm with those locks (:func:`solver.study.lock_effect.relock`), and read
back: each stat's target beside what the locked solve plays (docs/exploit.md, "Profiles").

Definitions (hold'em postflop subgames; the opponent sits ``"oop"`` or ``"ip"``; the spot
starts on its first street with OOP to act; a *bet* is any ``b:`` action, a *raise* any
``r:`` action):

* ``cbet`` — the opponent bets on the spot's first street when nobody has bet yet (OOP: its
  first action; IP: after OOP checks).
* ``fold_to_cbet`` / ``check_raise`` — facing the other player's first bet of the first
  street (OOP: after it checked and IP bet; IP: after OOP bet first), it folds / raises
  (``check_raise``: OOP only).
* ``turn_barrel`` — flop spots: after its flop c-bet was called, it bets the turn when
  nobody has bet yet.
* ``river_bet`` — it bets the river when nobody has bet on the river yet (any line before).
* ``river_bluff`` — the share of those river bets made with a bluff: a hand with under 50 %
  showdown equity against the range facing the bet (classified once, on the solve the
  profile is first compiled on, so target and readback count the same hands).
* ``fold_to_river_bet`` — facing the other player's first river bet, it folds.

A stat's frequency over its nodes weighs each of the opponent's hands at each node by the
probability of that deal reaching it: the hand's own reach × the other player's compatible
reach × the chance of the cards (× the cards one suit-isomorphic node stands for). A stat
given for a hand class (:data:`solver.poker.handclass.MADE` or ``DRAWS``, on the node's
board) counts only that class's hands. Percentages are 0–100 in the profile, fractions in
[0, 1] in the arrays.

The profile itself (stats, JSON form, checks without a game): :mod:`solver.study.profile_spec`;
its nodes in a game: :mod:`solver.study.profile_plan`; compiling it into locks:
:mod:`solver.study.profile_compile`; reading a solve back: :mod:`solver.study.profile_readback`.
Every name of those is importable from here; this module runs the warm re-solve.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from solver.api import SolveResult, measure
from solver.study.profile_args import check_apply
from solver.study.profile_compile import Compiled, compile_profile, locked_sigma, replace_bluffs
from solver.study.profile_compile import _flat as _flat
from solver.study.profile_plan import Plan, plan, stat_nodes
from solver.study.profile_readback import TOLERANCE_PP, Readback, achieved, readback
from solver.study.profile_spec import (
    CLASSES,
    MAX_STATS,
    STATS,
    VERSION,
    Profile,
    ProfileError,
    StatDef,
    StatTarget,
    check_values,
)

ROUNDS = 4  # compile-and-re-solve rounds at most (the hands reaching a node can move)


@dataclass
class ProfileRun:
    """A profiled re-solve: the locked result, the locks it ran with (the solve's own and the
    profile's), each stat's readback and the rounds it took."""

    result: SolveResult
    locks: dict[str, Any]
    rows: list[Readback]
    rounds: int


def apply_profile(
    result: SolveResult,
    profile: Profile,
    *,
    iterations: int | None = None,
    target_exploitability: float | None = None,
    rounds: int = ROUNDS,
    check_every: int = 10,
    on_round: Callable[[int, list[Readback]], None] | None = None,
) -> ProfileRun:
    """Compile ``profile`` against ``result``, re-solve warm with its locks beside the solve's
    own (:func:`solver.study.lock_effect.relock`; ``iterations`` — default the result's own
    count — or down to ``target_exploitability`` chips, whichever first), and read the stats
    back on the locked solve. While a stat is off by more than 1 pp (the hands reaching its
    nodes moved, when the opponent's earlier decisions are free) the profile is compiled
    again against the locked solve, aiming past the target by what the last solve fell
    short, and re-solved warm, up to ``rounds`` rounds. :class:`ProfileError` before
    anything is solved when the profile does not fit; a profile node the solve has locked
    already is refused too."""
    from solver.study.lock_effect import relock

    check_apply(result, iterations, target_exploitability, rounds, check_every, on_round)
    game = result.game
    own = dict(result.engine.lockset.spec) if result.engine.lockset is not None else {}
    compiled = compile_profile(result, profile)
    for line in compiled.locks:
        if line in own:
            raise ProfileError(
                "locks", f"{line} is locked already; the profile would lock it again"
            )
    limit = int(iterations) if iterations is not None else max(int(result.iteration), 1)
    current = result
    rows: list[Readback] = []
    locks: dict[str, Any] = {}
    done = 0
    aims = {i: t.value for i, t in enumerate(profile.stats)}
    for r in range(rounds):
        # a node nobody reached in the last solve keeps the lock an earlier round gave it
        locks = {**own, **{k: v for k, v in locks.items() if k not in own}, **compiled.locks}
        engine = relock(current.engine, locks, warm=True)
        new = SolveResult(engine.game, engine.rule, engine)
        started = time.perf_counter()
        cp = measure(engine, started)
        new.history.append(cp)
        while engine.iteration < limit:
            if target_exploitability is not None and cp.exploitability <= target_exploitability:
                new.stopped_by = "target"
                break
            engine.iterate(int(min(check_every, limit - engine.iteration)))
            cp = measure(engine, started)
            new.history.append(cp)
        done = r + 1
        sigma = locked_sigma(game, new.average_strategy(), engine.lockset)
        rows = readback(game, sigma, compiled.plan, rounds_left=done < rounds)
        if on_round is not None:
            on_round(done, rows)
        current = new
        if all(row.ok for row in rows) or done == rounds:
            break
        for i, row in enumerate(rows):  # aim past what the solve fell short of
            if row.achieved is not None and not row.ok:
                aims[i] = min(max(aims[i] + row.target - row.achieved, 0.0), 100.0)
        try:
            compiled = compile_profile(current, profile, bluffs=compiled.plan.bluffs, aims=aims)
        except ProfileError:  # (the corrected aims cannot all hold: keep the last solve)
            break
    return ProfileRun(current, locks, rows, done)


__all__ = [
    "CLASSES",
    "MAX_STATS",
    "ROUNDS",
    "STATS",
    "TOLERANCE_PP",
    "VERSION",
    "Compiled",
    "Plan",
    "Profile",
    "ProfileError",
    "ProfileRun",
    "Readback",
    "StatDef",
    "StatTarget",
    "achieved",
    "apply_profile",
    "check_values",
    "compile_profile",
    "locked_sigma",
    "plan",
    "readback",
    "replace_bluffs",
    "stat_nodes",
]
