"""What a lock changes: the re-solve of a solve with locks (warm from what it learnt, or from
scratch), and what players read after it — EVs before and after (a range's, per hand, per
hand class) and the lines whose action frequencies moved most.

Nothing here solves anything or defines a new value: EVs are :class:`~solver.study.analysis.
PlayerView` numbers (chips, the units of :mod:`solver.study.analysis`), averaged over hands with the
weights :func:`solver.study.views.range_summary` uses (own reach × compatible opponent reach), and
frequencies are :func:`solver.study.analysis.action_frequencies` of each decision node.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.algorithms import Solver, make_solver
from solver.api import continue_from
from solver.cfr.locks import LockSet
from solver.cfr.reach import chance_factor, path_reach
from solver.games.model import DECISION, Game
from solver.lockspec import resolve
from solver.study.analysis import PlayerView, action_frequencies, compatible
from solver.study.groups import Group, group_ev

Array = npt.NDArray[np.float64]

MAX_SHIFT_NODES = 20_000
"""Most decision nodes :func:`frequency_shifts` compares (one reach walk per node each)."""


def relock(
    old: Solver,
    locks: Mapping[Any, Any] | LockSet,
    *,
    warm: bool = True,
    average: Array | None = None,
) -> Solver:
    """A new solver of ``old``'s game with its algorithm and options (threads, storage,
    pruning, seed) and ``locks``. ``warm``: it starts from what ``old`` learnt (its regrets:
    :func:`solver.api.continue_from`, the rule's schedule going on; the average strategy
    starts again), else from scratch. "solved" locks take ``average`` (A,), by default
    ``old``'s average strategy. Raises :class:`~solver.lockspec.LockError` (naming the line
    and hand) for a bad lock, ValueError/OptionError when the algorithm or its options take
    no locks or no warm start."""
    avg = old.average_strategy() if average is None else average
    if old.pruning in ("interval", "total"):
        raise ValueError(
            f"locks do not combine with pruning {old.pruning!r}: solve with partial pruning first"
        )
    opts = replace(old.options, locks=None)  # its threads, storage asked, pruning and seed
    spec = resolve(old.game, locks, avg)
    if not warm:
        return make_solver(old.game, old.rule, None, replace(opts, locks=spec))
    engine = make_solver(old.game, old.rule, None, opts)
    continue_from(engine, old)
    if not hasattr(engine, "lock"):
        raise ValueError(f"{old.rule.name} solves take no locks")
    engine.lock(spec)
    return engine


# ----- EVs before and after -----------------------------------------------------------------
@dataclass(frozen=True)
class EvChange:
    """One group's combos and EV (chips) before and after."""

    key: str
    label: str
    combos_before: float
    combos_after: float
    ev_before: float
    ev_after: float

    @property
    def change(self) -> float:
        return self.ev_after - self.ev_before


def ev_changes(groups: list[Group], before: PlayerView, after: PlayerView) -> list[EvChange]:
    """:func:`group_ev` of each group under two analyses of the same node and player."""
    out = []
    for g in groups:
        cb, eb = group_ev(before, g.mask)
        ca, ea = group_ev(after, g.mask)
        out.append(EvChange(g.key, g.label, cb, ca, eb, ea))
    return out


# ----- frequencies that moved ----------------------------------------------------------------
@dataclass(frozen=True)
class Shift:
    """A decision node's aggregate action frequencies (the actor's reach-weighted mix)
    before and after, ``change`` the largest move of one action's frequency (in [0, 1]), and
    the combos of the actor reaching it before and after."""

    node: int
    line: tuple[str, ...]
    player: int
    actions: list[str]
    before: Array  # (num_actions,)
    after: Array  # (num_actions,)
    combos_before: float
    combos_after: float
    change: float
    locked: bool
    reach_before: float = 1.0  # the chance a deal reaches the line, before (in [0, 1])
    reach_after: float = 1.0

    @property
    def weighted(self) -> float:
        """The move weighted by how often the line is reached (the more of the two)."""
        return self.change * max(self.reach_before, self.reach_after)


def frequency_shifts(
    game: Game,
    before: Array,
    after: Array,
    locked: set[int] | frozenset[int] = frozenset(),
    limit: int | None = 10,
    min_combos: float = 1e-6,
) -> list[Shift]:
    """The decision nodes whose aggregate action frequencies moved most between two strategy
    profiles ``before`` and ``after`` (A,) of ``game``, weighted by how often a deal reaches
    them (:attr:`Shift.weighted`: a big move on a line no one plays matters little), largest
    first (``limit`` of them; None: all). Nodes the actor reaches with fewer than
    ``min_combos`` combos under both are left out; ``locked`` marks nodes (ids) that carry a
    lock. ValueError past :data:`MAX_SHIFT_NODES` decision nodes."""
    nodes = [int(n) for n in game.decision_nodes()]
    if len(nodes) > MAX_SHIFT_NODES:
        raise ValueError(
            f"{len(nodes):,} decision nodes: comparing every line is limited to {MAX_SHIFT_NODES:,}"
        )
    out = []
    pairs = compatible(game)
    mult = game.multiplicity
    for node in nodes:
        player = int(game.tree.player[node])
        off, na, nh = game.block(node)
        valid = game.valid_hands(node, player)
        both_b = path_reach(game, before, node)
        both_a = path_reach(game, after, node)
        rb = np.where(valid, both_b[player], 0.0)
        ra = np.where(valid, both_a[player], 0.0)
        cb, ca = float(rb.sum()), float(ra.sum())
        if cb < min_combos and ca < min_combos:
            continue
        fb = action_frequencies(np.asarray(before[off : off + na * nh]).reshape(na, nh), rb)
        fa = action_frequencies(np.asarray(after[off : off + na * nh]).reshape(na, nh), ra)
        change = float(np.max(np.abs(fa - fb)))
        out.append(
            Shift(
                node,
                game.history(node),
                player,
                game.action_labels(node),
                fb,
                fa,
                cb,
                ca,
                change,
                node in locked,
                _deal_reach(game, pairs, node, both_b, int(mult[node])),
                _deal_reach(game, pairs, node, both_a, int(mult[node])),
            )
        )
    out.sort(key=lambda s: -s.weighted)
    return out if limit is None else out[:limit]


def _deal_reach(
    game: Game,
    pairs: npt.NDArray[np.bool_],
    node: int,
    reach: tuple[Array, Array],
    multiplicity: int = 1,
) -> float:
    """The chance that a deal reaches ``node`` given both players' own reach there
    (:func:`~solver.cfr.reach.path_reach`): compatible hand pairs, both valid on the node's
    board, times the chance part of the path (its cards, the deal normaliser), times the
    lines of the full game it stands for (``multiplicity``: suit isomorphism's cards)."""
    r0 = np.where(game.valid_hands(node, 0), reach[0], 0.0)
    r1 = np.where(game.valid_hands(node, 1), reach[1], 0.0)
    return float(r0 @ pairs @ r1) * chance_factor(game, node) * multiplicity


def locked_nodes(game: Game, spec: Mapping[str, Any]) -> dict[int, str]:
    """Node id → line text of each line of a lock spec that names a decision node of
    ``game`` (lines that do not are left out; :func:`solver.lockspec.build_locks` names
    them)."""
    from solver.lockspec import line_text, parse_line

    out: dict[int, str] = {}
    for raw in spec:
        try:
            labels = parse_line(raw)
            node, _cmap = game.locate(labels)
        except (KeyError, ValueError):
            continue
        if game.tree.kind[node] == DECISION:
            out[int(node)] = line_text(labels)
    return out
