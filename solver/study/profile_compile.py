"""Compiling a profile into locks against one solve: at each stat node the hands the stat
counts move into (or out of) the stat's action family in the order of the solution's EV
gain, to the target frequency (:func:`compile_profile`, a :class:`Compiled`: the locks as
:mod:`solver.lockspec` reads them and the plan). :mod:`solver.study.profiles` re-exports these
names.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.api import SolveResult
from solver.cfr.locks import LockSet, locked_cells
from solver.cfr.reach import path_reach
from solver.games.model import Game
from solver.lockspec import line_text
from solver.study.analysis import compatible, equities
from solver.study.node_table import walk_values, writable
from solver.study.profile_args import check_aims, check_bluffs, checked_solved
from solver.study.profile_plan import Plan, plan
from solver.study.profile_plan import family_actions as _family
from solver.study.profile_spec import EPS as _EPS
from solver.study.profile_spec import STATS, Profile, ProfileError, StatTarget
from solver.study.shift_lock import shift
from solver.study.views import action_evs

Array = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


def locked_sigma(game: Game, sigma: Array, locks: LockSet | None) -> Array:
    """(A,) ``sigma`` with the locks' mixes at their locked cells (what the solve plays)."""
    out = np.array(sigma, dtype=np.float64)
    if locks is not None and locks.locks.node.any():
        cells = locked_cells(game, locks.locks)
        out[cells] = locks.locks.strategy[cells]
    return out


def reach_weights(game: Game, sigma: Array, node: int, player: int, compat: Mask) -> Array:
    """(H,) each of ``player``'s hands at ``node``: own reach × the other's compatible reach
    (card removal); 0 for a hand the board blocks."""
    reach = path_reach(game, sigma, node)
    mass = compat @ reach[1] if player == 0 else compat.T @ reach[0]
    return np.where(game.valid_hands(node, player), reach[player] * mass, 0.0)


def _family_shift(s: Array, w: Array, gain: Array, fam: list[int], target: float) -> Array:
    """:func:`shift` of an action family (several bet sizes count as one "bet"): the family's
    total moves to ``target`` over ``w``; a hand's new family share is split over the sizes
    as it split it before (else as the range does)."""
    na = s.shape[0]
    others = [a for a in range(na) if a not in fam]
    if not others:
        return s.copy()
    merged = np.vstack([s[fam].sum(axis=0, keepdims=True), s[others]])
    moved = shift(merged, w, gain, 0, min(max(target, 0.0), 1.0))
    out = s.copy()
    out[others] = moved[1:]
    old = merged[0]
    sizes = s[fam] / np.where(old > _EPS, old, 1.0)
    mix = w @ s[fam].T
    fallback = mix / mix.sum() if mix.sum() > 0 else np.full(len(fam), 1.0 / len(fam))
    sizes = np.where(old[None, :] > _EPS, sizes, fallback[:, None])
    out[fam] = sizes * moved[0][None, :]
    return out


def _flat(s: Array, fam: list[int], target: float) -> Array:
    """(num_actions, n) every hand of ``s`` with the family at ``target``: the family's share
    split as the hand split it (evenly when it played none), the rest likewise."""
    out = np.empty_like(s)
    others = [a for a in range(s.shape[0]) if a not in fam]
    for group, share in ((fam, target), (others, 1.0 - target)):
        if not group:
            continue
        part = s[group]
        total = part.sum(axis=0)
        even = np.full_like(part, 1.0 / len(group))
        out[group] = share * np.where(total > _EPS, part / np.where(total > _EPS, total, 1.0), even)
    return out


def _best(evs: Array) -> Array:
    """(H,) the best of the family's EVs per hand (NaN where the hand is not there)."""
    filled = np.where(np.isnan(evs), -np.inf, evs).max(axis=0)
    return np.where(np.isfinite(filled), filled, np.nan)


def _freq(s: Array, w: Array, fam: list[int]) -> float:
    total = float(w.sum())
    return float(w @ s[fam].sum(axis=0)) / total if total > 0 else math.nan


@dataclass(frozen=True)
class Compiled:
    """A profile compiled against one solve: ``locks`` {line: {hand: {action: p}}} as
    :mod:`solver.lockspec` reads them, and the plan (with its bluff masks)."""

    locks: dict[str, dict[str, dict[str, float]]]
    plan: Plan


def compile_profile(
    solved: SolveResult | tuple[Game, Array],
    profile: Profile,
    *,
    locks: LockSet | None = None,
    bluffs: Mapping[int, Mask] | None = None,
    aims: Mapping[int, float] | None = None,
) -> Compiled:
    """The frequency-shift locks that make the opponent play ``profile`` in ``solved`` (a
    result, or a game with its flat average strategy; ``locks``: the solve's own, when a
    game and strategy are given). At each stat node the hands the stat counts move into
    (or out of) the stat's action family in the order of the solution's EV gain, to the
    target frequency; a whole-range stat given beside class stats moves the hands the
    classes leave. ``aims`` {entry: percent} replaces some entries' targets (a later round
    aiming past a target the last solve fell short of). :class:`ProfileError` names the
    field of a profile that does not fit the game or contradicts itself at some node;
    nothing is locked then."""
    game, raw = checked_solved(solved, locks)
    if raw is None:
        assert isinstance(solved, SolveResult)
        sigma = locked_sigma(game, solved.average_strategy(), solved.engine.lockset)
    else:
        sigma = locked_sigma(game, raw, locks)
    p = plan(game, profile)
    check_aims(aims, len(profile.stats))
    check_bluffs(bluffs, int(game.num_hands[p.player]))
    if aims:
        profile = Profile(
            profile.player,
            tuple(StatTarget(t.stat, float(aims.get(i, t.value)), t.hand_class)
                  for i, t in enumerate(profile.stats)),
            profile.name,
        )  # fmt: skip
    player = p.player
    compat = compatible(game)
    by_node: dict[int, list[int]] = {}
    for i, found in enumerate(p.nodes):
        for n in found:
            by_node.setdefault(n, []).append(i)
    stats = profile.stats
    made_bluffs: dict[int, Mask] = dict(bluffs or {})
    walkable = writable(sigma)

    def values(child: int, who: int) -> Array:  # (a pooled walk scratch, not one per walk)
        return walk_values(game, walkable, child, who)

    out: dict[str, dict[str, dict[str, float]]] = {}
    names = game.hand_names[player]
    for node, entries in sorted(by_node.items()):
        off, na, nh = game.block(node)
        valid = game.valid_hands(node, player)
        w = reach_weights(game, sigma, node, player, compat)
        if not (w > 0).any():  # nobody gets here now: rank the range as if all of it did
            w = np.where(valid, game.hands.weights[player, :nh], 0.0)
        s = sigma[off : off + na * nh].reshape(na, nh).copy()
        evs = action_evs(game, sigma, node, compat, values=values)
        ev_here = np.nansum(np.nan_to_num(evs) * s, axis=0)
        tasks = _tasks(game, node, entries, stats, p, s, w, valid, sigma, compat, made_bluffs)
        for _ in range(200):  # one pass unless two families share the node (fold and raise)
            for fam, hands, target in tasks:
                gain = _best(evs[fam]) - ev_here
                s = _family_shift(s, np.where(hands & (w > 0), w, 0.0), gain, fam, target)
            if all(
                abs(_freq(s, np.where(m & (w > 0), w, 0.0), f) - t) < 1e-10
                for f, m, t in tasks
                if (w[m] > 0).any()
            ):
                break
        touched = np.zeros(nh, dtype=bool)
        for fam, hands, target in tasks:
            # a hand that does not get here now plays its group's mix (none of the group
            # gets here: the target, flat), so that whichever hands get here after the
            # re-solve, the group's frequency stays the target
            reached, unreached = hands & (w > 0), hands & ~(w > 0)
            if unreached.any() and reached.any():
                mix = s[:, reached] @ w[reached] / float(w[reached].sum())
                s[:, unreached] = mix[:, None]
            elif unreached.any():
                s[:, unreached] = _flat(s[:, unreached], fam, target)
            touched |= hands
        labels = game.action_labels(node)
        out[line_text(game.history(node))] = {
            names[h]: {lab: float(s[a, h]) for a, lab in enumerate(labels) if s[a, h] > 0}
            for h in np.flatnonzero(touched)
        }
    return Compiled(_normalised(out), replace_bluffs(p, made_bluffs))


def _tasks(
    game: Game,
    node: int,
    entries: list[int],
    stats: tuple[StatTarget, ...],
    p: Plan,
    s: Array,
    w: Array,
    valid: Mask,
    sigma: Array,
    compat: Mask,
    bluffs: dict[int, Mask],
) -> list[tuple[list[int], Mask, float]]:
    """The shifts at ``node``: (action family, the hands (valid, reached or not) it moves,
    the family's target frequency over them). Class entries first; a whole-range entry then
    takes the hands the classes left, at the frequency that makes the range's total its
    target; ``river_bluff`` splits the bets between bluffs and the rest. ``bluffs`` gets the
    node's bluff hands the first time. :class:`ProfileError` when the targets cannot all
    hold here."""
    where = line_text(game.history(node))
    tasks: list[tuple[list[int], Mask, float]] = []
    for family in ("bet", "fold", "raise"):
        fam = _family(game, node, family)
        mine = [i for i in entries if STATS[stats[i].stat].family == family]
        if not mine or not fam:
            continue
        taken = np.zeros(valid.shape, dtype=bool)
        fixed = 0.0  # the class entries' share of the range's family mass
        for i in [i for i in mine if stats[i].hand_class is not None]:
            m = p.masks[(i, node)] & valid & ~taken
            if m.any():
                tasks.append((fam, m, stats[i].value / 100.0))
                fixed += float(w[m].sum()) * stats[i].value / 100.0
                taken |= m
        whole = [i for i in mine if stats[i].hand_class is None and stats[i].stat != "river_bluff"]
        bluff = [i for i in mine if stats[i].stat == "river_bluff"]
        rest = valid & ~taken
        total = float(w.sum())
        if bluff:
            j = bluff[0]
            share = stats[j].value / 100.0
            bet = stats[whole[0]].value / 100.0 if whole else _freq(s, w, fam)
            if node not in bluffs:
                eq = equities(game, node, path_reach(game, sigma, node), compat)[p.player]
                bluffs[node] = np.nan_to_num(eq, nan=1.0) < 0.5
            for mask, mass, what in ((bluffs[node] & rest, share * bet * total, "bluffs"),
                                     (~bluffs[node] & rest, (1 - share) * bet * total,
                                      "value hands")):  # fmt: skip
                have = float(w[mask].sum())
                if mass > have * (1 + 1e-9) + _EPS * total:
                    raise ProfileError(
                        f"stats[{j}]",
                        f"river_bluff {stats[j].value:g} % of {100 * bet:.1f} % bets "
                        f"contradicts the range at {where}: {what} are only "
                        f"{100 * have / total:.1f} % of it",
                    )
                if mask.any():
                    tasks.append((fam, mask, mass / have if have > 0 else 0.0))
        elif whole and rest.any():
            i = whole[0]
            left = float(w[rest].sum())
            need = (stats[i].value / 100.0 * total - fixed) / left if left > 0 else 0.0
            if not -1e-9 <= need <= 1 + 1e-9:
                raise ProfileError(
                    f"stats[{i}]",
                    f"{stats[i].name} {stats[i].value:g} % contradicts the class stats of "
                    f"{stats[i].stat} at {where}: the other hands would need {100 * need:.1f} %",
                )
            tasks.append((fam, rest, min(max(need, 0.0), 1.0)))
    return tasks


def _normalised(locks: dict[str, dict[str, dict[str, float]]]) -> dict[str, Any]:
    """Each hand's mix summing to 1 within the lock reader's tolerance (shifting adds and
    scales in floating point)."""
    for mixes in locks.values():
        for hand, mix in mixes.items():
            total = sum(mix.values())
            mixes[hand] = {a: p / total for a, p in mix.items()}
    return locks


def replace_bluffs(p: Plan, bluffs: Mapping[int, Mask]) -> Plan:
    """``p`` with ``bluffs`` as its bluff hands."""
    return Plan(p.profile, p.player, p.nodes, p.masks, dict(bluffs))
