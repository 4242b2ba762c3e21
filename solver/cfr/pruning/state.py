"""The state regret-based pruning keeps beside a solve's storage, and its per-node step in
the walk (interval and Total RBP; the notes are in :mod:`solver.cfr.pruning`).

A pruned action is a child node; ``pruned`` marks its parent's ``[action, hand]`` cells. A
pruned cell plays with probability 0 and its regret cell holds the pruning bound instead of
a regret; the hand is frozen in the subtree below. Shapes: ``A`` action size, ``I`` info
size, ``N`` nodes, ``S`` interval windows, ``H`` hands, ``Q`` catch-up requests.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.cfr.layout import PRUNE_TOTAL, PassFlags, Scratch
from solver.cfr.rules import AVG_WEIGHT, REGRET_WEIGHT
from solver.cfr.terminal import fold_values
from solver.games.model import Boards, Hands, Tree
from solver.jit import called_kernel, kernel

Array = npt.NDArray[np.float64]
Int = int | np.int64


class RBPState(NamedTuple):
    """What interval or Total RBP keeps between iterations (:func:`no_rbp` for solves
    without it: length-1 placeholders the walk never reads)."""

    pruned: npt.NDArray[np.int8]  # (A,) 1 where a cell is pruned (it holds a bound)
    vsum: Array  # (I,) Σ_t w_t·v^t(I): the node values played (Total RBP)
    umax: Array  # (N,) per child: the most its parent's player can win below it (≥ 0)
    lmin: Array  # (N,) per decision node: the least its player can get below it (≤ 0)
    pimax: Array  # (I,) per infoset: the largest opponent reach it can have (interval)
    win_slot: npt.NDArray[np.int32]  # (N,) interval RBP: the child's window, or -1
    win: Array  # (S, H) summed opponent reach over each window (interval)
    free: npt.NDArray[np.int32]  # (S + 1,) free window slots: count, then slots
    ctl: npt.NDArray[np.int64]  # (2Q + 1,) catch-ups requested: count, then (child, hand)
    cbv: Array  # (A,) best-response action values recorded by a RECORD pass, or (1,)
    cbv_node: Array  # (I,) best-response node values recorded by a RECORD pass, or (1,)
    reach_mass: Array  # (I,) the opponent reach each infoset had in a RECORD pass, or (1,)


def no_rbp() -> RBPState:
    """Placeholders for solves without regret-based pruning (writeable: Numba types
    read-only arrays apart)."""
    f1 = np.zeros(1)
    return RBPState(
        np.zeros(1, dtype=np.int8), f1, f1.copy(), f1.copy(), f1.copy(),
        np.zeros(1, dtype=np.int32), np.zeros((1, 1)), np.zeros(1, dtype=np.int32),
        np.zeros(1, dtype=np.int64), f1.copy(), f1.copy(), f1.copy(),
    )  # fmt: skip


@kernel
def has_pruned(pruned: npt.NDArray[np.int8], off: Int, n: Int) -> bool:
    """Whether any cell of a node's ``[action, hand]`` block (``n`` cells at ``off``) is
    pruned."""
    for i in range(off, off + n):  # noqa: SIM110 (Numba has no any() of a generator)
        if pruned[i] != 0:
            return True
    return False


@kernel
def request_catchup(ctl: npt.NDArray[np.int64], child: Int, hand: Int) -> None:
    """Ask the engine to end the pruning of ``child`` for ``hand`` (-1: every hand) before
    the next iteration: ``ctl`` = [count, child, hand, child, hand, ...]."""
    n = ctl[0]
    if 2 * n + 2 < ctl.shape[0]:
        ctl[2 * n + 1] = child
        ctl[2 * n + 2] = hand
        ctl[0] = n + 1


@called_kernel
def rbp_node(
    hands: Hands,
    boards: Boards,
    tree: Tree,
    R: Array,
    rb: RBPState,
    co: Array,
    fl: PassFlags,
    node: Int,
    sc: Scratch,
    d: Int,
) -> None:
    """Regret-based pruning at one of the traverser's decision nodes, at depth ``d`` of the
    walk, after its update (``R`` the regrets, ``sc.value[d]`` (H,) the node values,
    ``sc.reach[sc.reach_row[d]]`` the opponent reach). Hands with ``sc.live[d, h]`` = 0 sit
    inside a subtree pruned for them higher up: frozen. ``sc.pi`` (1, H) and ``sc.card_sum``
    (2C,) are scratch.

    Total RBP (per cell): adds w_t × the node values to Σ_t w_t·v^t(I) and w_t·π^t(I)·U(I,a)
    to each pruned cell's bound W_{t₀}·CBV(I,a) + Σ_t w_t·π^t(I)·U(I,a), with w_t the
    average strategy's weight (``co[AVG_WEIGHT]``: 1 for CFR, t for CFR+). Interval RBP
    (per action, every hand): adds w_t·(π^t(I)·U(I,a) − v^t(I)) to the bound R^{t₀}(I,a) + …
    and the opponent reach to the action's window, and starts a window for an action whose
    regret is negative enough for every hand (``fl.margin`` iterations at the largest reach)
    while another action keeps a positive regret. A cell whose bound no longer holds — Total
    RBP's condition (9), bound > Σ_t w_t·v^t(I); interval RBP's bound > 0 — may have positive
    regret now, so its catch-up is requested before the next iteration (this iteration's skip
    was sound: the cell played with probability 0, decided by the bound one iteration ago)."""
    RE, r0, value, live = sc.reach, sc.reach_row[d], sc.value[d], sc.live[d]
    pi2, cs = sc.pi, sc.card_sum
    trav = fl.trav
    off = tree.offset[node]
    ioff = tree.ioffset[node]
    fc = tree.first_child[node]
    na = tree.num_children[node]
    nt = hands.num_hands[trav]
    no = hands.num_hands[1 - trav]
    b = tree.board[node]
    valid = boards.valid[b, trav]
    P = rb.pruned
    total = fl.prune == PRUNE_TOTAL
    starts = not total and not fl.nostart
    wv = co[AVG_WEIGHT]  # Total RBP sums values with the average's weights (1 for CFR)
    if total:
        for h in range(nt):
            if live[h] != 0.0:
                rb.vsum[ioff + h] += wv * value[h]
    if not starts and not has_pruned(P, off, na * nt):
        return
    fold_values(hands, boards, b, trav, 1.0, RE, r0, pi2, np.int64(0), cs)
    pi = pi2[0]
    low = rb.lmin[node]
    w = co[REGRET_WEIGHT]
    margin = max(fl.margin, 1.0)
    for k in range(na):
        c = fc + k
        up = rb.umax[c]
        base = off + k * nt
        if total:
            for h in range(nt):
                if P[base + h] == 0 or live[h] == 0.0 or valid[h] == 0.0:
                    continue
                x = R[base + h] + wv * pi[h] * up
                R[base + h] = x
                if x > rb.vsum[ioff + h]:
                    request_catchup(rb.ctl, c, h)
        elif rb.win_slot[c] >= 0:
            slot = rb.win_slot[c]
            for j in range(no):
                rb.win[slot, j] += RE[r0, j]
            ok = True
            for h in range(nt):
                if valid[h] == 0.0:
                    continue
                x = R[base + h] + w * (pi[h] * up - value[h])
                R[base + h] = x
                if x > 0.0:
                    ok = False
            if not ok:
                request_catchup(rb.ctl, c, -1)
        elif starts and rb.free[0] > 0:
            ok = True
            for h in range(nt):
                if valid[h] == 0.0:
                    continue
                x = R[base + h]
                if not (x < 0.0 and x + margin * w * rb.pimax[ioff + h] * (up - low) <= 0.0):
                    ok = False
                    break
                other = False
                for a in range(na):
                    if a != k and P[off + a * nt + h] == 0 and R[off + a * nt + h] > 0.0:
                        other = True
                        break
                if not other:
                    ok = False
                    break
            if ok:
                n = rb.free[0]
                slot = rb.free[n]
                rb.free[0] = n - 1
                rb.win_slot[c] = slot
                for j in range(no):
                    rb.win[slot, j] = 0.0
                for h in range(nt):
                    P[base + h] = 1


@called_kernel
def record_node(
    hands: Hands,
    boards: Boards,
    tree: Tree,
    rb: RBPState,
    node: Int,
    trav: Int,
    sc: Scratch,
    d: Int,
) -> None:
    """A RECORD best-response pass at the traverser's node at depth ``d``: its action values
    ``sc.action_value[d]`` as CBV(I, a), node values ``sc.value[d]`` as CBV(I), and the
    opponent reach each hand meets (``sc.reach[sc.reach_row[d]]`` folded over card removal)
    as π(I), for Total RBP's checks and catch-ups."""
    AV, VA, pi2 = sc.action_value, sc.value, sc.pi
    off = tree.offset[node]
    ioff = tree.ioffset[node]
    na = tree.num_children[node]
    nt = hands.num_hands[trav]
    for a in range(na):
        for h in range(nt):
            rb.cbv[off + a * nt + h] = AV[d, a, h]
    b, r0 = tree.board[node], sc.reach_row[d]
    fold_values(hands, boards, b, trav, 1.0, sc.reach, r0, pi2, np.int64(0), sc.card_sum)
    for h in range(nt):
        rb.cbv_node[ioff + h] = VA[d, h]
        rb.reach_mass[ioff + h] = pi2[0, h]
