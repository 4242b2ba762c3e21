"""Reading a solve back against a profile: each entry's frequency under a strategy
(:func:`achieved`) and each stat's target beside it (:func:`readback`, a :class:`Readback`).
:mod:`solver.study.profiles` re-exports these names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.cfr.reach import chance_factors
from solver.games.model import DECISION, Game
from solver.quoting import brief
from solver.study.analysis import compatible
from solver.study.profile_args import check_game, checked_sigma
from solver.study.profile_compile import reach_weights as _weights
from solver.study.profile_plan import Plan
from solver.study.profile_plan import family_actions as _family
from solver.study.profile_spec import STATS

Array = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]

TOLERANCE_PP = 1.0  # a stat is reached when the readback is within this many points


@dataclass(frozen=True)
class Readback:
    """One entry's target beside what a solve plays (percentages; ``achieved`` None when no
    hand the stat counts reaches its spots), ``ok`` within :data:`TOLERANCE_PP`, and why
    not when it is not."""

    stat: str
    hand_class: str | None
    target: float
    achieved: float | None
    ok: bool
    reason: str = ""

    def as_dict(self) -> dict[str, Any]:
        return {
            "stat": self.stat,
            "class": self.hand_class,
            "target": self.target,
            "achieved": self.achieved,
            "ok": self.ok,
            "reason": self.reason,
        }


def _check_plan(game: Game, p: object) -> None:
    """``p`` a :class:`Plan` of ``game``: its nodes decision nodes of its player, its masks
    over that player's hands."""
    if not isinstance(p, Plan):
        raise TypeError(f"p must be a Plan (profiles.plan makes one), got {brief(p)}")
    t = game.tree
    nh = int(game.num_hands[p.player]) if p.player in (0, 1) else -1
    nodes = [n for found in p.nodes for n in found]
    if (
        len(p.nodes) != len(p.profile.stats)
        or not all(
            isinstance(n, int)
            and 0 <= n < game.num_nodes
            and t.kind[n] == DECISION
            and int(t.player[n]) == p.player
            for n in nodes
        )
        or any(m.shape != (nh,) for m in [*p.masks.values(), *p.bluffs.values()])
    ):
        raise ValueError("p: a plan of another game (plan it against this one)")  # fmt: skip


def achieved(game: Game, sigma: Array, p: Plan) -> list[float | None]:
    """Each entry's frequency (percent) under ``sigma`` (A,) (locks already in it): over the
    stat's nodes, the family's share of the hands it counts, each weighted as the module
    doc says; ``river_bluff``: the bluffs' share of the bet mass. None when nothing counts.
    TypeError / ValueError naming the argument that is not what this says (a plan of another
    game included)."""
    sigma = checked_sigma(check_game(game), sigma)
    _check_plan(game, p)
    compat = compatible(game)
    cf = chance_factors(game) * game.multiplicity
    cache: dict[int, Array] = {}
    out: list[float | None] = []
    for i, s_t in enumerate(p.profile.stats):
        num = den = 0.0
        for n in p.nodes[i]:
            if n not in cache:
                cache[n] = _weights(game, sigma, n, p.player, compat) * cf[n]
            w = cache[n]
            fam = _family(game, n, STATS[s_t.stat].family)
            if not fam:
                continue
            off, na, nh = game.block(n)
            play = sigma[off : off + na * nh].reshape(na, nh)[fam].sum(axis=0)
            if s_t.stat == "river_bluff":
                bluff = p.bluffs.get(n)
                if bluff is None:
                    continue
                num += float(w @ (play * bluff))
                den += float(w @ play)
            else:
                m = p.masks.get((i, n))
                ww = w if m is None else np.where(m, w, 0.0)
                num += float(ww @ play)
                den += float(ww.sum())
        out.append(100.0 * num / den if den > 0 else None)
    return out


def readback(game: Game, sigma: Array, p: Plan, rounds_left: bool = False) -> list[Readback]:
    """:func:`achieved` beside the targets, each flagged when off by more than
    :data:`TOLERANCE_PP` with the reason (the arguments checked as :func:`achieved` says)."""
    _check_plan(check_game(game), p)
    rows = []
    for s_t, got in zip(p.profile.stats, achieved(game, sigma, p), strict=True):
        if got is None:
            why = "no hand it counts reaches its spots in the locked solve"
            rows.append(Readback(s_t.stat, s_t.hand_class, s_t.value, None, False, why))
            continue
        ok = abs(got - s_t.value) <= TOLERANCE_PP
        reason = "" if ok else (
            "the hands reaching its spots (the opponent's free decisions before them) or the "
            "hands they meet (card removal) moved in the re-solve"
            + ("; another round may close it" if rounds_left else "")
        )  # fmt: skip
        rows.append(Readback(s_t.stat, s_t.hand_class, s_t.value, got, ok, reason))
    return rows
