"""The kernels of regret-based pruning between iterations: Total RBP's prune check (eq. 5),
its catch-ups (eqs. 7–8), the sums release, and the accounting of what a solve still needs
(see :mod:`solver.cfr.pruning` for the notes). ``st`` is the solve's storage (regrets and
strategy sums), ``rb`` the pruning state beside it."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from solver.cfr.layout import Scratch, Storage
from solver.cfr.pruning.state import RBPState
from solver.cfr.reach import own_reach
from solver.games.model import DECISION, Boards, Hands, Tree
from solver.jit import kernel

Array = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]


@kernel
def dead_hands(tree: Tree, hands: Hands, marks: I8, player: int) -> I8:
    """(N, H): 1 where ``player``'s hand h is inside a subtree marked for it higher up: an
    ancestor ``player`` cell (action, h) has ``marks`` (A,) non-zero (the pruned cells, or
    the cells whose sums were released)."""
    n = tree.kind.shape[0]
    nh = hands.num_hands[player]
    dead = np.zeros((n, max(nh, 1)), dtype=np.int8)
    for node in range(n):  # parents come first
        fc = tree.first_child[node]
        if fc < 0:
            continue
        own = tree.kind[node] == DECISION and tree.player[node] == player
        off = tree.offset[node]
        for k in range(tree.num_children[node]):
            c = fc + k
            for h in range(nh):
                x = dead[node, h]
                if own and marks[off + k * nh + h] != 0:
                    x = 1
                dead[c, h] = x
    return dead


@kernel
def blocked_nodes(tree: Tree, hands: Hands, boards: Boards, dead: I8, player: int) -> I8:
    """(N,): 1 at the nodes ``player`` never reaches while pruned — every hand the board
    leaves possible there is dead (:func:`dead_hands` of the pruned cells; at least one
    such hand; the root never). The other player's regrets there are frozen (its
    counterfactual values are 0) and, under Total RBP, rebuilt when the node is reached
    again."""
    n = tree.kind.shape[0]
    nh = hands.num_hands[player]
    out = np.zeros(n, dtype=np.int8)
    for node in range(1, n):
        valid = boards.valid[tree.board[node], player]
        seen = False
        alive = False
        for h in range(nh):
            if valid[h] != 0.0:
                seen = True
                if dead[node, h] == 0:
                    alive = True
                    break
        if seen and not alive:
            out[node] = 1
    return out


@kernel
def total_starts(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    st: Storage,
    rb: RBPState,
    dead: I8,
    T: float,
    player: int,
    margin: float,
    floor: bool,
) -> int:
    """Total RBP, eq. (5), per infoset: prune cell (I, a) of ``player`` when
    T·CBV(I,a) ≤ Σ_t v^t(I), a is not the hand's best action, the bound holds one iteration
    ahead and the hand is not ``dead`` (inside a subtree already pruned for it); the cell
    then holds the bound T·CBV(I,a). With ``margin`` > 0 the bound must keep a slack of that
    many iterations at the opponent's average reach (T·CBV + margin·π̄(I)·(U − L) <
    Σ_t v^t(I)). ``floor`` (RM+): an action with positive regret is played now and is not
    pruned. Reads ``rb.cbv`` (a RECORD best-response pass); returns the cells pruned."""
    n = tree.kind.shape[0]
    count = 0
    nh = hands.num_hands[player]
    for node in range(n):
        if tree.kind[node] != DECISION or tree.player[node] != player:
            continue
        fc = tree.first_child[node]
        na = tree.num_children[node]
        off = tree.offset[node]
        ioff = tree.ioffset[node]
        valid = boards.valid[tree.board[node], player]
        low = rb.lmin[node]
        for h in range(nh):
            if valid[h] == 0.0 or dead[node, h] != 0:
                continue
            vs = rb.vsum[ioff + h]
            pm = rb.reach_mass[ioff + h]
            best = rb.cbv[off + h]
            for a in range(1, na):
                best = max(best, rb.cbv[off + a * nh + h])
            for k in range(na):
                i = off + k * nh + h
                if rb.pruned[i] != 0 or rb.cbv[i] >= best:
                    continue
                if floor and st.regrets[i] > 0.0:
                    continue  # RM+ plays it now: pruning would change what it plays
                x = T * rb.cbv[i]
                if x + margin * pm * (rb.umax[fc + k] - low) < vs:
                    rb.pruned[i] = 1
                    st.regrets[i] = x
                    count += 1
    return count


@kernel
def total_reset(
    tree: Tree,
    hands: Hands,
    st: Storage,
    rb: RBPState,
    child: int,
    player: int,
    T: float,
    floor: bool,
    mask: Array,
    avg: Array,
    scale: float,
) -> None:
    """Total RBP, eqs. (7)–(8), inside the subtree of ``child`` for the hands with
    ``mask[h]`` = 1: each ``player`` infoset's regrets become T·(CBV(I',a') − CBV(I')) and
    Σ_t v^t(I') = T·CBV(I') (from ``rb.cbv``, ``rb.cbv_node``); their pruned cells inside
    are released. With ``scale`` > 0 the regrets instead resume the average strategy
    ``avg`` at scale·π̄(I')·(U − L) — π̄ the opponent reach of the RECORD pass
    (``rb.reach_mass``), U − L the infoset's payoff range: the restart of RM+ rules where
    the free-opponent option reopens a region, the size RM+ regrets have after about scale²
    iterations (the value sums still come from the CBR)."""
    nh = hands.num_hands[player]
    for q in range(tree.pre_start[child], tree.pre_end[child]):
        node = tree.pre_order[q]
        if tree.player[node] != player:
            continue
        na = tree.num_children[node]
        off = tree.offset[node]
        ioff = tree.ioffset[node]
        fc = tree.first_child[node]
        top = 0.0
        for k in range(na):
            top = max(top, rb.umax[fc + k])
        width = top - rb.lmin[node]
        for h in range(nh):
            if mask[h] == 0.0:
                continue
            rb.vsum[ioff + h] = T * rb.cbv_node[ioff + h]
            if scale > 0.0:
                size = scale * rb.reach_mass[ioff + h] * width
                for a in range(na):
                    i = off + a * nh + h
                    rb.pruned[i] = 0
                    st.regrets[i] = avg[i] * size
                continue
            best = 0
            for a in range(na):
                i = off + a * nh + h
                rb.pruned[i] = 0
                x = T * (rb.cbv[i] - rb.cbv_node[ioff + h])
                st.regrets[i] = max(x, 0.0) if floor else x
                if rb.cbv[i] > rb.cbv[off + best * nh + h]:
                    best = a
            # the CBR itself, not uniform play: its action gets a regret just above 0
            # (the paper allows a near-CBR; a regret of exactly 0 everywhere would make
            # regret matching play uniformly until the next update)
            i = off + best * nh + h
            st.regrets[i] = max(st.regrets[i], 1e-9 * abs(T * rb.cbv_node[ioff + h]))


@kernel
def _clear_below(
    tree: Tree, cells: npt.NDArray[Any], node: int, player: int, nh: int, h: int
) -> None:
    """cells ← 0 for hand h in every ``player`` block of ``node``'s subtree (``cells`` (A,):
    strategy sums or marks)."""
    for q in range(tree.pre_start[node], tree.pre_end[node]):
        nd = tree.pre_order[q]
        if tree.player[nd] != player:
            continue
        o = tree.offset[nd]
        for a in range(tree.num_children[nd]):
            cells[o + a * nh + h] = 0


@kernel
def release_sums(
    tree: Tree, hands: Hands, st: Storage, rb: RBPState, dead: I8, avg: Array, player: int,
    limit: float, freed: I8,
) -> int:  # fmt: skip
    """Total RBP's space for the average: for every pruned ``player`` cell (I, a) (hand not
    ``dead``, pruned higher up) whose average reach π_i^{σ̄}(I)·σ̄(I,a) ≤ ``limit``, set
    σ̄(I,a) ← 0 and drop the hand's sums inside the action's subtree (``freed`` (A,) marks
    the cell). Returns the cells released."""
    n = tree.kind.shape[0]
    nh = hands.num_hands[player]
    reach = np.ones((n, max(nh, 1)))  # own reach of each hand under the average
    count = 0
    for node in range(n):
        fc = tree.first_child[node]
        if fc < 0:
            continue
        na = tree.num_children[node]
        own = tree.kind[node] == DECISION and tree.player[node] == player
        off = tree.offset[node]
        for k in range(na):
            c = fc + k
            for h in range(nh):
                x = reach[node, h]
                if own:
                    x *= avg[off + k * nh + h]
                reach[c, h] = x
            if not own:
                continue
            for h in range(nh):
                i = off + k * nh + h
                if rb.pruned[i] == 0 or freed[i] != 0 or dead[node, h] != 0:
                    continue
                if reach[c, h] > limit:
                    continue
                freed[i] = 1
                count += 1
                st.cumulative[i] = 0
                _clear_below(tree, st.cumulative, c, player, nh, h)
    return count


@kernel
def held_entries(
    tree: Tree, hands: Hands, pruned: I8, regrets_freed: bool, sums_freed: I8, blocked: I8
) -> tuple[int, int]:
    """(regret entries, sum entries) still needed: every ``[action, hand]`` cell, less the
    cells of a hand inside a subtree pruned for it (``regrets_freed``: Total RBP rebuilds
    them), every cell of a player at the nodes ``blocked`` (2, N) marks for the other one
    (also only with ``regrets_freed``) and the cells below a cell whose sums were released
    (``sums_freed`` (A,))."""
    r_held = 0
    s_held = 0
    for p in range(2):
        nh = hands.num_hands[p]
        dead_s = dead_hands(tree, hands, sums_freed, p)
        dead_r = dead_hands(tree, hands, pruned, p)
        for q in range(tree.pre_order.shape[0]):
            node = tree.pre_order[q]
            if tree.player[node] != p:
                continue
            na = tree.num_children[node]
            gone = regrets_freed and blocked[1 - p, node] != 0
            for h in range(nh):
                if not gone and not (regrets_freed and dead_r[node, h] != 0):
                    r_held += na
                if dead_s[node, h] == 0:
                    s_held += na
    return r_held, s_held


@kernel
def rebuild_start(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    parents: npt.NDArray[np.int64],
    rb: RBPState,
    sc: Scratch,
    avg: Array,
    cf: Array,
    child: int,
    row: Array,
    mask: Array,
) -> bool:
    """Total RBP's catch-up of ``child`` (:meth:`~solver.cfr.pruning.manager.RBPManager`),
    before its RECORD pass: ``mask[h]`` ← 1 for the hands of ``row`` still pruned there;
    if any, the opponent's reach at the parent under ``avg`` (chance ``cf`` included) in
    ``sc.reach[0]`` and the subtree's recorded values zeroed (the walk writes what it
    visits; the rest stays 0). Whether any hand is caught up."""
    node = parents[child]
    p = tree.player[node]
    nh = hands.num_hands[p]
    k = child - tree.first_child[node]
    base = tree.offset[node] + k * nh
    any_on = False
    for h in range(nh):
        on = row[h] != 0.0 and rb.pruned[base + h] != 0
        mask[h] = 1.0 if on else 0.0
        any_on |= on
    if not any_on:
        return False
    opp = 1 - p
    own_reach(tree, hands, boards, parents, avg, node, opp, sc.reach[0])
    for j in range(hands.num_hands[opp]):
        sc.reach[0, j] *= cf[node]
    for r in range(tree.pre_start[child], tree.pre_end[child]):
        nd = tree.pre_order[r]
        o = tree.offset[nd]
        ns = hands.num_hands[tree.player[nd]]
        rb.cbv[o : o + tree.num_children[nd] * ns] = 0.0
        io = tree.ioffset[nd]
        rb.cbv_node[io : io + ns] = 0.0
    return True


@kernel
def rebuild_finish(
    tree: Tree,
    hands: Hands,
    parents: npt.NDArray[np.int64],
    st: Storage,
    rb: RBPState,
    sc: Scratch,
    avg: Array,
    child: int,
    mask: Array,
    T: float,
    floor: bool,
    sums_freed: I8,
) -> None:
    """After ``child``'s RECORD pass (values in ``sc.value[0]``): eqs. (7)–(8) below it
    (:func:`total_reset`), and the action's own regret becomes T·CBV(I, a) − Σ_t v^t(I)
    (RM+: 0, where its floor held it while pruned); the cells are released and their
    released-sums marks forgotten."""
    node = parents[child]
    p = tree.player[node]
    nh = hands.num_hands[p]
    k = child - tree.first_child[node]
    base = tree.offset[node] + k * nh
    total_reset(tree, hands, st, rb, child, p, T, floor, mask, avg, 0.0)
    ioff = tree.ioffset[node]
    for h in range(nh):
        if mask[h] == 0.0:
            continue
        st.regrets[base + h] = 0.0 if floor else T * sc.value[0, h] - rb.vsum[ioff + h]
        rb.pruned[base + h] = 0
        sums_freed[base + h] = 0
        _clear_below(tree, sums_freed, child, p, nh, h)  # the released-sums marks below
