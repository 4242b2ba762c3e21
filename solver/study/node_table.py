"""A solved tree's per-node values, computed once so every node of it opens at once.

Explore (and Export) show at a node each hand's EV, equity, EQR and reach
(:mod:`solver.study.analysis`). Computed per node from scratch, the EV of a node near the root
is a walk over nearly the whole tree, and the equity of a flop node an enumeration of every
runout against every pair of hands: seconds to tens of seconds on a flop. Here:

* **Values** (:func:`build`): one evaluation pass per player computes the counterfactual
  values of every *upper* node — a decision or chance node with a chance node below it (the
  flop and turn of a flop spot, with the chance nodes that deal the turn and the river) —
  bottom up, deepest first. A walk from such a node stops at the chance nodes just below it
  and takes their values, computed before (the walk's cut points, ``LEAF_USE``; chance nodes
  of odd and of even depth in chance levels are two sets of cut points, so a walk from a
  chance node never cuts at itself). Every river node is walked once (from its chance node)
  and every upper node's own street once: about one evaluation pass per player in all.
  The values are kept as float32 (rows × hands per player, :attr:`NodeTable.nbytes`); the
  last street's nodes, whose subtrees are a few nodes, are walked when asked.
* **Equity** (:func:`fast_equities`): the same number as :func:`analysis.equities` — the
  pot share a hand wins at showdown against the other's reach at the node, averaged over
  every runout — counted per runout by sorting the opponent's hands by strength and prefix
  sums with card removal (inclusion–exclusion over the hand's two cards), not as a
  hands × hands matrix: every node gets one, flop nodes included (the enumeration gave up
  over :data:`analysis.EQUITY_BUDGET`, and under suit-isomorphic cards). It is computed when
  a node is served, not stored.

:func:`analyze_node` serves a node as :func:`analysis.analyze` does, from the table;
:func:`action_evs` and :func:`runout_report` are :mod:`solver.study.views`' from it.
"""

from __future__ import annotations

import itertools
import threading
import time
import weakref
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.cfr.drive import run_pass
from solver.cfr.layout import (
    LEAF_USE,
    MODE_EVAL,
    NO_DRAWS,
    Leaves,
    Scratch,
    empty_leaves,
    game_arrays,
    make_scratch,
    pass_flags,
    placeholder_storage,
)
from solver.cfr.locks import no_locks
from solver.cfr.pruning.state import no_rbp
from solver.cfr.reach import chance_factor, path_reach
from solver.cfr.rules import NUM_COEFFICIENTS
from solver.cfr.walk import SolveState
from solver.games.model import CHANCE, Game
from solver.poker.handeval import rank_boards
from solver.study import views
from solver.study.analysis import NodeAnalysis, analyze, compatible, equities, node_path
from solver.study.views import RunoutRow, board_cards

Array = npt.NDArray[np.float64]
Compat = npt.NDArray[np.bool_]

_NO_STORAGE = placeholder_storage()
_NO_RBP = no_rbp()
_NO_LOCKS = no_locks()
_NO_RULE = np.zeros(NUM_COEFFICIENTS)
_NO_LEAVES = empty_leaves()
_EVAL_STATE = SolveState(_NO_STORAGE, _NO_RBP, _NO_LOCKS)  # a pass against a given profile
# Walk buffers per game, reused: making them measures the tree's depth, a Python loop over
# every node (a tenth of a second on a flop, more than a river node's whole walk)
_SCRATCH: dict[int, list[Scratch]] = {}
_SCRATCH_LOCK = threading.Lock()


@contextmanager
def scratch_for(game: Game) -> Iterator[Scratch]:
    """A float64 walk scratch for ``game``, taken from the game's pool (made when none is
    free) and given back after; the pool goes with the game."""
    key = id(game)
    with _SCRATCH_LOCK:
        free = _SCRATCH.get(key)
        if free is None:
            free = _SCRATCH[key] = []
            weakref.finalize(game, _SCRATCH.pop, key, None)
        sc = free.pop() if free else None
    if sc is None:
        sc = make_scratch(game)
    try:
        yield sc
    finally:
        with _SCRATCH_LOCK:
            if _SCRATCH.get(key) is free:
                free.append(sc)


class Cancelled(RuntimeError):
    """:func:`build` was asked to stop (its solve was released)."""


@dataclass(frozen=True)
class NodeTable:
    """The counterfactual values of a solved tree's upper nodes under ``sigma``.

    ``row[n]`` is node n's row (-1: not kept, walked when asked); ``values[p]`` (rows, H[p])
    float32 holds player p's counterfactual values there (chips weighted by the opponent's
    reach and the chance of the deal, as :func:`solver.cfr.bestresponse.node_values` gives
    them). ``sigma`` is the (A,) average strategy they are of, float64 and writable (the
    kernels take it as it is: a read-only array would be copied by each call);
    ``iteration`` the solve's iteration; ``seconds`` the pass's wall time."""

    game: Game
    sigma: Array
    iteration: int
    row: npt.NDArray[np.int32]
    values: tuple[npt.NDArray[np.float32], npt.NDArray[np.float32]]
    seconds: float = 0.0

    @property
    def nbytes(self) -> int:
        """Bytes of the stored values (and the row index)."""
        return int(self.row.nbytes + self.values[0].nbytes + self.values[1].nbytes)

    @property
    def rows(self) -> int:
        return int(self.values[0].shape[0])


def writable(sigma: Array) -> Array:
    """``sigma`` as a C-contiguous writable float64 array (a copy only when it is not)."""
    return np.require(sigma, dtype=np.float64, requirements=("C", "W"))


def empty(game: Game, sigma: Array, iteration: int = 0) -> NodeTable:
    """A table with no rows: every node is walked when asked (a solve still running)."""
    none = np.zeros((0, 1), dtype=np.float32)
    row = np.full(game.num_nodes, -1, dtype=np.int32)
    return NodeTable(game, writable(sigma), iteration, row, (none, none.copy()))


def upper_nodes(game: Game) -> npt.NDArray[np.int64]:
    """The nodes a table keeps: chance nodes and every node with a chance node below it (the
    ancestors of the chance nodes), in index order. None in a game that deals no card."""
    t = game.tree
    keep = np.zeros(game.num_nodes, dtype=bool)
    parents = game.parents
    for c in np.flatnonzero(t.kind == CHANCE):
        n = int(c)
        keep[n] = True
        while n > 0:
            n = int(parents[n])
            if keep[n]:
                break
            keep[n] = True
    return np.flatnonzero(keep)


def _chance_levels(game: Game, nodes: npt.NDArray[np.int64]) -> dict[int, int]:
    """Each node's number of chance nodes strictly above it."""
    t = game.tree
    out: dict[int, int] = {}
    for n in nodes.tolist():
        out[n] = sum(1 for m in [0, *node_path(game, n)[:-1]] if t.kind[m] == CHANCE)
    return out


def build(
    game: Game,
    sigma: Array,
    iteration: int = 0,
    threads: int = 1,
    cancel: threading.Event | None = None,
) -> NodeTable:
    """The :class:`NodeTable` of ``game`` under ``sigma`` (A,): each upper node's values for
    both players, deepest nodes first, each walked from the reach both play to it (as
    :func:`~solver.cfr.bestresponse.node_values` does) down to the chance nodes below it,
    whose values it reads (module doc). ``threads`` walks the nodes of one depth side by
    side (the kernels release the GIL). Raises :class:`Cancelled` when ``cancel`` is set."""
    started = time.perf_counter()
    sigma = writable(sigma)
    t = game.tree
    nodes = upper_nodes(game)
    h = int(max(game.hands.cards.shape[1], 1))
    row = np.full(game.num_nodes, -1, dtype=np.int32)
    row[nodes] = np.arange(nodes.shape[0], dtype=np.int32)
    out = (
        np.zeros((nodes.shape[0], game.num_hands[0]), dtype=np.float32),
        np.zeros((nodes.shape[0], game.num_hands[1]), dtype=np.float32),
    )
    if nodes.shape[0] == 0:
        return NodeTable(game, sigma, iteration, row, out, time.perf_counter() - started)
    level = _chance_levels(game, nodes)
    chance = [n for n in nodes.tolist() if t.kind[n] == CHANCE]
    # two sets of cut points: the chance nodes at an even and at an odd chance level
    leaves: list[Leaves] = []
    for parity in (0, 1):
        mine = [c for c in chance if level[c] % 2 == parity]
        slot = np.full(game.num_nodes, -1, dtype=np.int32)
        slot[mine] = np.arange(len(mine), dtype=np.int32)
        f2 = np.zeros((1, 1))
        leaves.append(Leaves(slot, f2, np.zeros((max(len(mine), 1), h)), task_value=f2.copy()))
    depth = {n: len(node_path(game, n)) for n in nodes.tolist()}
    by_depth: dict[int, list[int]] = {}
    for n in nodes.tolist():
        by_depth.setdefault(depth[n], []).append(n)
    cf = {n: chance_factor(game, n) for n in nodes.tolist()}
    workers = max(1, int(threads))

    def walk(n: int, p: int, sc: Scratch) -> None:
        if cancel is not None and cancel.is_set():
            raise Cancelled("the table's solve was released")
        opp = 1 - p
        r = path_reach(game, sigma, n)[opp]
        sc.reach[0, :] = 0.0
        sc.reach[0, : r.shape[0]] = r * cf[n]
        # a chance node's walk cuts at the next chance level; any other node's at its own
        lv = leaves[(level[n] + (1 if t.kind[n] == CHANCE else 0)) % 2]
        fl = pass_flags(p, MODE_EVAL, leaf=LEAF_USE)
        run_pass(game_arrays(game), _EVAL_STATE, n, sigma, _NO_RULE, NO_DRAWS, fl, sc, lv)
        nh = game.num_hands[p]
        v = sc.value[0, :nh]
        out[p][row[n]] = v
        if t.kind[n] == CHANCE:  # the walks above read it in full precision
            own = leaves[level[n] % 2]
            own.value[own.slot[n], :nh] = v

    def part(args: tuple[list[int], int, Scratch]) -> None:
        todo, p, sc = args
        for n in todo:
            walk(n, p, sc)

    pool = ThreadPoolExecutor(workers, thread_name_prefix="node-table") if workers > 1 else None
    held = ExitStack()
    scratch = [held.enter_context(scratch_for(game)) for _ in range(workers)]
    try:
        for p in (0, 1):
            for d in sorted(by_depth, reverse=True):
                todo = by_depth[d]
                if pool is None or len(todo) < 2 * workers:
                    part((todo, p, scratch[0]))
                    continue
                parts = [(todo[k::workers], p, scratch[k]) for k in range(workers)]
                for f in [pool.submit(part, a) for a in parts]:
                    f.result()
    finally:
        if pool is not None:
            pool.shutdown(wait=True, cancel_futures=True)
        held.close()
    return NodeTable(game, sigma, iteration, row, out, time.perf_counter() - started)


# ----- equity ---------------------------------------------------------------------------------
_RANK_BITS = 31  # a hand strength (plus one) is below 2**31 (handeval: category << 26 | ...)
_CARD_BITS = 6
_DECK = 52


def runouts(board: list[int], deck: int = 52) -> npt.NDArray[np.int64]:
    """(B, 5) every completion of the 3- to 5-card ``board`` to five cards (unordered: each
    turn-and-river pair once, as likely as any other)."""
    rest = [c for c in range(deck) if c not in board]
    more = 5 - len(board)
    rows = [board + list(extra) for extra in itertools.combinations(rest, more)]
    return np.array(rows, dtype=np.int64).reshape(len(rows), 5)


def _shares(
    kh: npt.NDArray[np.int64],
    ko: npt.NDArray[np.int64],
    cards_h: npt.NDArray[np.int64],
    cards_o: npt.NDArray[np.int64],
    same: npt.NDArray[np.int64],
    ro: Array,
) -> tuple[Array, Array]:
    """Σ over boards of (the pot share hand h wins against the opponent's reach ``ro``, the
    compatible opponent reach): ``kh`` (B, Hh) and ``ko`` (B, Ho) strengths on each board
    (-1: the board blocks the hand); ``same[h]`` the opponent hand with h's cards or -1.

    Per board, the opponent's reach sorted by strength gives by prefix sums the reach below
    (and at most) a strength; the hands that share a card with h are taken out per card
    (sorted by (card, strength)), the hand with both of h's cards added back once."""
    nb = ko.shape[0]
    w = np.where(ko >= 0, ro[None, :], 0.0)  # (B, Ho)
    k1 = ko + 1  # ≥ 0: -1 (blocked, no weight) sorts first
    b_off = (np.arange(nb, dtype=np.int64) << (_RANK_BITS + _CARD_BITS))[:, None]
    # all opponent hands by (board, strength)
    key = (b_off + k1).ravel()
    order = np.argsort(key, kind="stable")
    skey = key[order]
    csum = np.concatenate(([0.0], np.cumsum(w.ravel()[order])))
    # each opponent hand once per card, by (board, card, strength)
    ckey = np.concatenate(
        [(b_off + (cards_o[:, i][None, :] << _RANK_BITS) + k1).ravel() for i in range(2)]
    )
    corder = np.argsort(ckey, kind="stable")
    sckey = ckey[corder]
    ccsum = np.concatenate(([0.0], np.cumsum(np.concatenate([w.ravel(), w.ravel()])[corder])))
    q = kh + 1  # (B, Hh)
    top = (1 << _RANK_BITS) - 1
    rows = np.arange(nb)[:, None]
    # where each board's and each (board, card) group's entries start and end: prefix sums
    start_all = csum[np.searchsorted(skey, b_off.ravel(), side="left")][:, None]
    end_all = csum[np.searchsorted(skey, (b_off + top).ravel(), side="right")][:, None]
    group = b_off + (np.arange(_DECK, dtype=np.int64)[None, :] << _RANK_BITS)  # (B, 52)
    start_c = ccsum[np.searchsorted(sckey, group.ravel(), side="left")].reshape(nb, _DECK)
    end_c = ccsum[np.searchsorted(sckey, (group + top).ravel(), side="right")].reshape(nb, _DECK)

    def below(side: str) -> Array:  # the opponent's reach below (or at most) q, per board
        hi = csum[np.searchsorted(skey, (b_off + q).ravel(), side=side)]  # type: ignore[call-overload]
        return hi.reshape(q.shape) - start_all

    def card_below(c: npt.NDArray[np.int64], side: str) -> Array:  # … of hands holding c
        k = (b_off + (c[None, :] << _RANK_BITS) + q).ravel()
        hi = ccsum[np.searchsorted(sckey, k, side=side)].reshape(q.shape)  # type: ignore[call-overload]
        return hi - start_c[rows, c[None, :]]

    c0, c1 = cards_h[:, 0], cards_h[:, 1]
    back = np.where(same >= 0, w[:, np.maximum(same, 0)], 0.0)  # (B, Hh)
    lt = below("left") - card_below(c0, "left") - card_below(c1, "left")
    le = below("right") - card_below(c0, "right") - card_below(c1, "right") + back
    held = (end_c - start_c)[rows, c0[None, :]] + (end_c - start_c)[rows, c1[None, :]]
    total = (end_all - start_all) - held + back
    ok = kh >= 0
    num = np.where(ok, lt + 0.5 * (le - lt), 0.0).sum(axis=0)
    den = np.where(ok, total, 0.0).sum(axis=0)
    return num, den


def fast_equities(
    game: Game, node: int, reach: tuple[Array, Array], compat: Compat | None = None
) -> tuple[Array, Array]:
    """Each player's equity per hand at ``node`` against the other's ``reach`` — the
    definition of :func:`solver.study.analysis.equities` (every runout of the node's board
    counts once, hands sharing a card never meet, ties split) — by sorted prefix sums per
    runout, for every hold'em node (flop nodes too). Toy and preflop games: the
    enumeration of :func:`~solver.study.analysis.equities`."""
    board = board_cards(game, node) if game.is_holdem else []
    if len(board) < 3:
        return equities(game, node, reach, compatible(game) if compat is None else compat)
    h0, h1 = game.num_hands
    c0 = game.hands.cards[0, :h0].astype(np.int64)
    c1 = game.hands.cards[1, :h1].astype(np.int64)
    boards = runouts(board)
    k0 = rank_boards(boards, c0)
    k1 = rank_boards(boards, c1)
    same0 = game.hands.same[0, :h0].astype(np.int64)
    same1 = game.hands.same[1, :h1].astype(np.int64)
    n0, d0 = _shares(k0, k1, c0, c1, same0, np.asarray(reach[1], dtype=np.float64))
    n1, d1 = _shares(k1, k0, c1, c0, same1, np.asarray(reach[0], dtype=np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        e0 = np.where(d0 > 0, n0 / np.where(d0 > 0, d0, 1.0), np.nan)
        e1 = np.where(d1 > 0, n1 / np.where(d1 > 0, d1, 1.0), np.nan)
    return e0, e1


# ----- serving a node -------------------------------------------------------------------------
def node_cfv(table: NodeTable, node: int, player: int) -> Array:
    """Player ``player``'s counterfactual values (H[p],) at ``node``: the table's row, or a
    walk from the node (a last-street node: its subtree is small)."""
    r = int(table.row[node])
    if r >= 0:
        return table.values[player][r].astype(np.float64)
    return walk_values(table.game, table.sigma, int(node), player)


def walk_values(game: Game, sigma: Array, node: int, player: int) -> Array:
    """:func:`solver.cfr.bestresponse.node_values` — the same reach, the same walk — on a
    pooled scratch (``sigma`` float64, C-contiguous and writable)."""
    r = path_reach(game, sigma, node)[1 - player]
    with scratch_for(game) as sc:
        sc.reach[0, :] = 0.0
        sc.reach[0, : r.shape[0]] = r * chance_factor(game, node)
        fl = pass_flags(player, MODE_EVAL)
        run_pass(game_arrays(game), _EVAL_STATE, int(node), sigma, _NO_RULE, NO_DRAWS, fl, sc,
                 _NO_LEAVES)  # fmt: skip
        return sc.value[0, : game.num_hands[player]].copy()


def analyze_node(
    table: NodeTable, node: int, compat: Compat | None = None, with_equity: bool = True
) -> NodeAnalysis:
    """:func:`solver.study.analysis.analyze` of ``node`` under the table's strategy, its
    values read from the table and its equity from :func:`fast_equities`."""
    return analyze(
        table.game,
        table.sigma,
        int(node),
        compat=compat,
        with_equity=with_equity,
        values=lambda p: node_cfv(table, node, p),
        equity_of=fast_equities,
    )


def action_evs(table: NodeTable, node: int, compat: Compat | None = None) -> Array:
    """:func:`solver.study.views.action_evs` from the table: (num_actions, H[actor]) chips,
    each action's EV for every hand of the player acting at decision ``node``."""
    return views.action_evs(
        table.game, table.sigma, node, compat, values=lambda child, p: node_cfv(table, child, p)
    )


def runout_report(
    table: NodeTable, node: int, compat: Compat | None = None, with_equity: bool = True
) -> list[RunoutRow]:
    """:func:`solver.study.views.runout_report` from the table: for each card the chance
    ``node`` deals, the acting player's mix and both ranges' EV and equity below it."""
    return views.runout_report(
        table.game, table.sigma, node, with_equity, compat,
        analyze_child=lambda child, **kw: analyze_node(table, child, **kw),
    )  # fmt: skip
