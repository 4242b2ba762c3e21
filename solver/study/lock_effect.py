"""What a lock changes: the re-solve of a solve with locks (warm from what it learnt, or from
scratch), and what players read after it — EVs before and after (a range's, per hand, per
hand class) and the lines whose action frequencies moved most.

Nothing here solves anything or defines a new value: EVs are :class:`~solver.study.analysis.
PlayerView` numbers (chips, the units of :mod:`solver.study.analysis`), averaged over hands with the
weights :func:`solver.study.views.range_summary` uses (own reach × compatible opponent reach), and
frequencies are :func:`solver.study.analysis.action_frequencies` of each decision node.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.algorithms import Solver, make_solver
from solver.api import continue_from
from solver.cfr.locks import LockSet
from solver.cfr.reach import chance_factor, path_reach
from solver.games.model import CHANCE, DECISION, Game
from solver.lockspec import resolve
from solver.study.analysis import PlayerView, action_frequencies, compatible
from solver.study.groups import Group, group_ev

Array = npt.NDArray[np.float64]

MAX_SHIFT_NODES = 20_000
"""Most decision nodes :func:`frequency_shifts` compares (one reach walk per node each), and
:func:`top_shifts` looks at before it settles for the most-reached lines."""


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


@dataclass(frozen=True)
class ShiftSearch:
    """What :func:`top_shifts` found: ``shifts`` (largest weighted move first), the decision
    nodes it compared and the tree's, whether the list is exact (``complete``: no line left
    out could have entered it), and ``below``: every line left out is reached by at most this
    share of deals (0 when every line was compared)."""

    shifts: list[Shift]
    compared: int
    total: int
    complete: bool
    below: float


def top_shifts(
    game: Game,
    before: Array,
    after: Array,
    locked: set[int] | frozenset[int] = frozenset(),
    limit: int = 12,
    min_reach: float = 0.0,
    min_combos: float = 1e-6,
    budget: int = MAX_SHIFT_NODES,
) -> ShiftSearch:
    """The ``limit`` lines of :func:`frequency_shifts` (the same :class:`Shift` numbers and
    order) found without walking every node, so flop trees get them too: nodes are visited
    most-reached first (a deal reaches a node no more often than its parent, and a line's
    weighted move is at most its reach), and the search stops once no node left can beat the
    list — or past ``min_reach`` (lines reached by a smaller share of deals are left out), or
    after ``budget`` decision nodes (then the list is of the most-reached lines only). Each
    node's reach is its parent's times one action's probabilities (or a card's board mask):
    one pass, no walk from the root per node."""
    t = game.tree
    compat = compatible(game).astype(np.float64)
    nh = game.num_hands
    sig = (np.asarray(before, dtype=np.float64), np.asarray(after, dtype=np.float64))
    total = int(np.count_nonzero(t.kind == DECISION))

    def deal(r: tuple[Array, Array], cf: float) -> float:
        return float(r[0] @ compat @ r[1]) * cf

    root = (path_reach(game, sig[0], 0), path_reach(game, sig[1], 0))
    norm = float(game.hands.norm)
    bound0 = max(deal(root[0], norm), deal(root[1], norm))
    heap: list[tuple[float, int, float, tuple[tuple[Array, Array], ...]]] = [
        (-bound0, 0, norm, root)
    ]
    best: list[Shift] = []
    compared = 0
    complete = True
    below = 0.0

    def push(bound: float, child: int, cf: float, reach: tuple[tuple[Array, Array], ...]) -> None:
        # a node that cannot enter the list is never kept (it would hold its reach vectors)
        nonlocal below
        if bound < min_reach or (len(best) >= limit and bound <= best[-1].weighted):
            below = max(below, bound)
            return
        heapq.heappush(heap, (-bound, child, cf, reach))

    while heap:
        neg, node, cf, reach = heapq.heappop(heap)
        bound = -neg
        if bound < min_reach:
            below = max(below, bound)
            break
        if len(best) >= limit and bound <= best[-1].weighted:
            below = max(below, bound)
            break
        if compared >= budget:
            complete, below = False, max(below, bound)
            break
        kind = int(t.kind[node])
        kids = list(game.children(node))
        if kind == DECISION:
            compared += 1
            player = int(t.player[node])
            off, na, h = game.block(node)
            blocks = [s[off : off + na * h].reshape(na, h) for s in sig]
            rb, ra = reach[0][player], reach[1][player]
            cb, ca = float(rb.sum()), float(ra.sum())
            if cb >= min_combos or ca >= min_combos:
                fb = action_frequencies(blocks[0], rb)
                fa = action_frequencies(blocks[1], ra)
                shift = Shift(node, game.history(node), player, game.action_labels(node), fb,
                              fa, cb, ca, float(np.max(np.abs(fa - fb))), node in locked,
                              deal(reach[0], cf), deal(reach[1], cf))  # fmt: skip
                best.append(shift)
                best.sort(key=lambda x: -x.weighted)
                del best[limit:]
            # a child changes the actor's reach only: one product with the other's side each
            other = [
                compat @ r[1] if player == 0 else r[0] @ compat for r in reach
            ]  # (H[player],) per profile
            for a, child in enumerate(kids):
                if int(t.kind[child]) not in (DECISION, CHANCE):
                    continue
                new = []
                for k in range(2):
                    own = reach[k][player] * blocks[k][a]
                    pair = (own, reach[k][1]) if player == 0 else (reach[k][0], own)
                    new.append((pair, float(own @ other[k]) * cf))
                push(max(new[0][1], new[1][1]), child, cf, (new[0][0], new[1][0]))
        elif kind == CHANCE:
            for child in kids:
                if int(t.kind[child]) not in (DECISION, CHANCE):
                    continue
                valid = game.boards.valid[t.board[child]]
                ccf = cf * float(t.chance_weight[child]) * (1 + int(t.iso_count[child]))
                new_r = tuple((r[0] * valid[0, : nh[0]], r[1] * valid[1, : nh[1]]) for r in reach)
                push(max(deal(new_r[0], ccf), deal(new_r[1], ccf)), child, ccf, new_r)
    return ShiftSearch(best, compared, total, complete, below)


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
