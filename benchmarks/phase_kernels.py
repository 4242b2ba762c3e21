"""The kernels of :mod:`benchmarks.phases`: each phase of the walk replayed over a node list.

A module of their own, imported by name (``phase_kernels``) by the script and its test
alike: Numba's on-disk cache records the module a kernel came from and imports it by that
name when it loads the kernel.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

from solver.cfr.borrow import by_ref
from solver.cfr.chance import add_chance_rows, chance_child
from solver.cfr.decision import action_values_up, mixed_values, opponent_child, values_sum_up
from solver.cfr.layout import GameArrays, Scratch, Storage
from solver.cfr.terminal import (
    FoldTables,
    ShowdownRef,
    ShowdownTables,
    fixed_payoff,
    fold_prefix,
    fold_rows,
    runout_rows,
    showdown_prefix,
    showdown_rows,
)
from solver.cfr.update import UpdateWork, add_sums, strategy_rows, update_node
from solver.cfr.walk import next_sibling, prefix_fold
from solver.games.model import FIXED, RUNOUT, SHOWDOWN

I64 = npt.NDArray[np.int64]
Array = npt.NDArray[np.float64]

_JIT: dict[str, Any] = {"nogil": True, "cache": True}
STAMP = "phase_kernels.solver-hash"


def drop_stale_cache(cache: Path, solver_hash: str) -> bool:
    """Remove this module's cached kernels from ``cache`` (its ``__pycache__``) unless they
    were compiled from the solver sources hashing to ``solver_hash``: Numba keys them on
    this file alone, and they inline the solver's helpers, so a solver edit would otherwise
    replay the old code. True if anything was removed."""
    stamp = cache / STAMP
    if stamp.is_file() and stamp.read_text() == solver_hash:
        return False
    stale = [f for f in cache.glob("phase_kernels.*") if f.suffix in (".nbi", ".nbc")]
    for f in stale:
        f.unlink(missing_ok=True)
    cache.mkdir(parents=True, exist_ok=True)
    stamp.write_text(solver_hash)
    return bool(stale)


if not os.environ.get("NUMBA_CACHE_DIR"):  # a user's cache directory is theirs to keep fresh
    from solver.jit import source_hash

    drop_stale_cache(Path(__file__).resolve().with_name("__pycache__"), source_hash())


# ----- the replays ---------------------------------------------------------------------------
# Each runs its helpers over ``nodes`` (a node kind's, in tree order) at each node's depth
# ``depth[n]``, on the walk's scratch rows. ``exact``: each node's inputs are first copied
# from the per-node arrays ``REn`` (N, H) (the opponent's reach arriving) and ``VAn`` (N, H)
# (the traverser's values), and its outputs back — for the test that composes a pass from
# the replays; the timed runs pass False and (1, 1) placeholders (no copy is made).
@numba.njit(**_JIT)
def _load(src: Array, n: int, dst: Array, row: int, m: int, exact: bool) -> None:
    if exact:
        for j in range(m):
            dst[row, j] = src[n, j]


@numba.njit(**_JIT)
def _keep(src: Array, row: int, dst: Array, n: int, m: int, exact: bool) -> None:
    if exact:
        for j in range(m):
            dst[n, j] = src[row, j]


@numba.njit(**_JIT)
def trav_values(game: GameArrays, st: Storage, trav: int, nodes: I64, depth: I64, sc: Scratch,
                REn: Array, VAn: Array, exact: bool) -> int:  # fmt: skip
    """The traverser's nodes: each child's values kept as its action's, then the mix."""
    tree = game.tree
    nt = game.hands.num_hands[trav]
    VA, AV = sc.value, sc.action_value
    for i in range(nodes.shape[0]):
        node = nodes[i]
        d = depth[node]
        na = tree.num_children[node]
        for k in range(na):
            _load(VAn, tree.first_child[node] + k, VA, d + 1, nt, exact)
            action_values_up(AV, VA, d + 1, np.int64(k), nt)
        mixed_values(d, na, nt, tree.offset[node], st.regrets, AV, VA, sc.sd)
        _keep(VA, d, VAn, node, nt, exact)
    return nodes.shape[0]


@numba.njit(**_JIT)
def trav_update(game: GameArrays, st: Storage, co: Array, trav: int, nodes: I64, depth: I64,
                sc: Scratch, VAn: Array, exact: bool) -> int:  # fmt: skip
    """The traverser's nodes: the rule's update (action values and node values in row d)."""
    tree = game.tree
    nt = game.hands.num_hands[trav]
    VA, AV = sc.value, sc.action_value
    work = UpdateWork(sc.blk, sc.sd, sc.tmp)
    for i in range(nodes.shape[0]):
        node = nodes[i]
        d = depth[node]
        na = tree.num_children[node]
        if exact:
            for k in range(na):
                c = tree.first_child[node] + k
                for h in range(nt):
                    AV[d, k, h] = VAn[c, h]
            _load(VAn, node, VA, d, nt, exact)
        update_node(st, co, node, tree.offset[node], tree.ioffset[node], na, nt, AV, VA, d, work)
    return nodes.shape[0]


@numba.njit(**_JIT)
def opp_reach(game: GameArrays, st: Storage, trav: int, nodes: I64, depth: I64, sc: Scratch,
              REn: Array, exact: bool) -> int:  # fmt: skip
    """The opponent's nodes: its strategy from the regrets, its reach into each child."""
    tree = game.tree
    no = game.hands.num_hands[1 - trav]
    RE, SG, rrow = sc.reach, sc.strat, sc.reach_row
    for i in range(nodes.shape[0]):
        node = nodes[i]
        d = depth[node]
        na = tree.num_children[node]
        off = tree.offset[node]
        _load(REn, node, RE, d, no, exact)
        rrow[d] = d
        strategy_rows(st.regrets, off, na, no, SG, d, sc.sd, 0)
        for k in range(na):
            opponent_child(np.int64(k), d, no, True, off, st.strategy, SG, RE, rrow)
            _keep(RE, d + 1, REn, tree.first_child[node] + k, no, exact)
    return nodes.shape[0]


@numba.njit(**_JIT)
def opp_values(game: GameArrays, trav: int, nodes: I64, depth: I64, sc: Scratch, VAn: Array,
               exact: bool) -> int:  # fmt: skip
    """The opponent's nodes: the children's values summed."""
    tree = game.tree
    nt = game.hands.num_hands[trav]
    VA, CQ = sc.value, sc.cq
    for i in range(nodes.shape[0]):
        node = nodes[i]
        d = depth[node]
        CQ[d] = 0.0
        for k in range(tree.num_children[node]):
            _load(VAn, tree.first_child[node] + k, VA, d + 1, nt, exact)
            values_sum_up(VA, d + 1, nt, CQ)
        _keep(VA, d, VAn, node, nt, exact)
    return nodes.shape[0]


@numba.njit(**_JIT)
def average_sums(game: GameArrays, st: Storage, co: Array, trav: int, nodes: I64, depth: I64,
                 sc: Scratch, REn: Array, exact: bool) -> int:  # fmt: skip
    """The opponent's nodes: its strategy sums (the strategy is the one the reach phase
    derived into row d: re-derived here only when ``exact``)."""
    tree = game.tree
    no = game.hands.num_hands[1 - trav]
    for i in range(nodes.shape[0]):
        node = nodes[i]
        d = depth[node]
        na = tree.num_children[node]
        off = tree.offset[node]
        if exact:
            _load(REn, node, sc.reach, d, no, exact)
            strategy_rows(st.regrets, off, na, no, sc.strat, d, sc.sd, 0)
        add_sums(st, st.strategy, sc, d, True, co, node, off, na, no, d)
    return nodes.shape[0]


@numba.njit(**_JIT)
def chance_reach(game: GameArrays, trav: int, nodes: I64, depth: I64, sc: Scratch, REn: Array,
                 exact: bool) -> int:  # fmt: skip
    """Chance nodes: the reach into each card dealt."""
    tree, boards = game.tree, game.boards
    opp = 1 - trav
    no = game.hands.num_hands[opp]
    for i in range(nodes.shape[0]):
        node = nodes[i]
        d = depth[node]
        _load(REn, node, sc.reach, d, no, exact)
        sc.reach_row[d] = d
        sc.cq[d] = 1.0
        for k in range(tree.num_children[node]):
            child = tree.first_child[node] + k
            chance_child(tree, boards, child, d, no, opp, sc)
            _keep(sc.reach, d + 1, REn, child, no, exact)
    return nodes.shape[0]


@numba.njit(**_JIT)
def chance_values(game: GameArrays, trav: int, nodes: I64, depth: I64, sc: Scratch, VAn: Array,
                  exact: bool) -> int:  # fmt: skip
    """Chance nodes: values zeroed, each card's values added with its isomorphic images."""
    tree, hands, boards = game.tree, game.hands, game.boards
    nt = hands.num_hands[trav]
    VA = sc.value
    for i in range(nodes.shape[0]):
        node = nodes[i]
        d = depth[node]
        for h in range(nt):
            VA[d, h] = 0.0
        for k in range(tree.num_children[node]):
            child = tree.first_child[node] + k
            _load(VAn, child, VA, d + 1, nt, exact)
            add_chance_rows(tree, hands, boards, child, trav, nt, VA, d + 1, VA, d)
        _keep(VA, d, VAn, node, nt, exact)
    return nodes.shape[0]


@numba.njit(**_JIT)
def _rake(game: GameArrays, ft: FoldTables, sdt: ShowdownRef, trav: int, node: int, d: int,
          sc: Scratch) -> None:  # fmt: skip
    """A raked showdown or runout's −r/2 term, added as the walk adds it (a showdown's from
    its prefix sums, still in ``sc.sd64``)."""
    tree, hands = game.tree, game.hands
    no = hands.num_hands[1 - trav]
    nt = hands.num_hands[trav]
    rk = -0.5 * tree.rake[node]
    b = tree.board[node]
    if tree.kind[node] == SHOWDOWN:
        fold_prefix(sdt, b, trav, nt, no, rk, sc.reach, d, sc.value, d + 1, sc.card_sum, sc.sd64)
    else:
        fold_rows(ft, b, trav, no, nt, hands.num_cards, rk, sc.reach, d, sc.value, d + 1,
                  sc.card_sum)  # fmt: skip
    for h in range(nt):
        sc.value[d, h] += sc.value[d + 1, h]


@numba.njit(**_JIT)
def terminals(game: GameArrays, trav: int, nodes: I64, depth: I64, sc: Scratch, REn: Array,
              VAn: Array, exact: bool) -> int:  # fmt: skip
    """Terminal nodes of one kind (folds, showdowns or runouts): their values. A fold beside
    the traverser's showdown takes its values from the showdown's prefix sums (computed here:
    in the walk, by whichever of the two comes first); timed (not ``exact``), a showdown
    after such a fold skips them, as in the walk."""
    tree, hands, boards = game.tree, game.hands, game.boards
    opp = 1 - trav
    no = hands.num_hands[opp]
    nt = hands.num_hands[trav]
    ft = FoldTables(hands.cards, hands.same, hands.pack, boards.valid)  # (as the walk's)
    sdt = by_ref(ShowdownTables(boards.valid, boards.order, boards.sd_row, boards.sd_src,
                                boards.sd_cstart, boards.sd_pack, hands.pack))  # fmt: skip
    for i in range(nodes.shape[0]):
        node = nodes[i]
        d = depth[node]
        b = tree.board[node]
        kind = tree.kind[node]
        _load(REn, node, sc.reach, d, no, exact)
        if kind == FIXED:
            u0 = fixed_payoff(tree.payoff[node], tree.rake[node], trav)
            if prefix_fold(tree, node, trav):
                showdown_prefix(sdt, b, trav, no, sc.reach, d, sc.sd64)
                fold_prefix(sdt, b, trav, nt, no, u0, sc.reach, d, sc.value, d, sc.card_sum,
                            sc.sd64)  # fmt: skip
            else:
                fold_rows(ft, b, trav, no, nt, hands.num_cards, u0, sc.reach, d, sc.value, d,
                          sc.card_sum)  # fmt: skip
        elif kind == RUNOUT:
            eq = boards.runout_eq[tree.runout[node], opp]
            amount = tree.payoff[node] - 0.5 * tree.rake[node]
            runout_rows(eq, amount, nt, no, sc.reach, d, sc.value, d, sc.sd64)
            if tree.rake[node] != 0.0:
                _rake(game, ft, sdt, trav, node, d, sc)
        else:
            amount = tree.payoff[node] - 0.5 * tree.rake[node]
            after_fold = (
                node > 0
                and tree.kind[node - 1] == FIXED
                and next_sibling(tree, node - 1, trav) == node
                and prefix_fold(tree, node - 1, trav)
            )
            if exact or not after_fold:
                showdown_prefix(sdt, b, trav, no, sc.reach, d, sc.sd64)
            showdown_rows(sdt, b, trav, nt, no, amount, sc.value, d, sc.card_sum, sc.sd64)
            if tree.rake[node] != 0.0:
                _rake(game, ft, sdt, trav, node, d, sc)
        _keep(sc.value, d, VAn, node, nt, exact)
    return nodes.shape[0]


@numba.njit(**_JIT)
def depths(parents: I64) -> I64:
    """(N,): each node's depth (parents come first)."""
    out = np.zeros(parents.shape[0], dtype=np.int64)
    for v in range(1, parents.shape[0]):
        out[v] = out[parents[v]] + 1
    return out
