"""The walk's steps at a decision node (:mod:`solver.cfr.walk`): the reach into a child
(the traverser's unchanged, or only for the hands regret-based pruning leaves playing; the
opponent's times its strategy), the node's values from its action values (the mix played, the
mix of RM(R) without the strategy stored, or the best), the rule's update with pruned cells
kept, and a child's values handed up. Helpers marked ``node_kernel`` are inlined into the walk.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.floats import like
from solver.cfr.layout import Scratch, Storage
from solver.cfr.locks import Locks
from solver.cfr.update import UpdateWork, update_node
from solver.jit import node_kernel

Array = npt.NDArray[np.float64]
Int = int | np.int64
I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]


@node_kernel
def traverser_child(
    k: Int, d: Int, nt: Int, rbp: bool, off: Int, b: Int, trav: Int, valid: Array, PR: I8,
    LIVE: Array, rrow: I64,
) -> bool:  # fmt: skip
    """The traverser's child ``k`` is walked with the reach unchanged; with regret-based
    pruning only for the hands still playing the action (``LIVE[d + 1]``), and not at all
    when it is pruned for every hand the board leaves possible."""
    rrow[d + 1] = rrow[d]
    if not rbp:
        return True
    base = off + k * nt
    alive = 0.0
    for h in range(nt):
        x = LIVE[d, h] * (1.0 - PR[base + h])
        LIVE[d + 1, h] = x
        alive += x * valid[b, trav, h]
    return alive != 0.0


@node_kernel
def opponent_child(
    k: Int, d: Int, no: Int, derive: bool, off: Int, sigma: Array, SG: Array, RE: Array,
    rrow: I64,
) -> bool:  # fmt: skip
    """The opponent's reach into its child ``k`` (``RE[d + 1]``): times the probability it
    plays the action. Whether any is left."""
    r0 = rrow[d]
    nz = False
    if derive:
        base = k * no
        for j in range(no):
            x = RE[r0, j] * SG[d, np.uint64(base + j)]
            RE[d + 1, j] = x
            nz |= x != 0.0
    else:
        base = off + k * no
        for j in range(no):
            x = RE[r0, j] * sigma[np.uint64(base + j)]
            RE[d + 1, j] = x
            nz |= x != 0.0
    rrow[d + 1] = d + 1
    return nz


@node_kernel
def restricted_child(
    k: Int, d: Int, no: Int, derive: bool, off: Int, sigma: Array, sc: Scratch, lk: Locks,
) -> bool:  # fmt: skip
    """A restricted Nash response's reach into the learner's child ``k`` (the exploiter's
    pass, ``lk.rnr_*``): the row ``sc.reach[rrow[d]]`` holds the mixture
    m = p·π_fix + q·π_free (q = 1 − p) and the row ``ofs`` (the depth rows) below it the
    free reach π_free, chance and card removal in both; child m = (m − q·π_free)·fix(k) +
    q·π_free·σ(k) and child π_free = π_free·σ(k), ``σ`` the learner's free strategy
    (``sc.strat[d]`` when derived, else ``sigma`` at ``off``), ``fix`` its fixed one
    (``lk.rnr_fixed`` at ``off``). Whether any mixture reach is left."""
    RE, SG, FX, rrow = sc.reach, sc.strat, lk.rnr_fixed, sc.reach_row
    ofs = sc.stack.shape[0]
    q = 1.0 - lk.rnr_p
    r0 = rrow[d]
    nz = False
    fb = off + k * no
    base = k * no if derive else fb
    for j in range(no):
        s = SG[d, np.uint64(base + j)] if derive else sigma[np.uint64(base + j)]
        f = RE[ofs + r0, j]
        x = q * f
        m = (RE[r0, j] - x) * FX[np.uint64(fb + j)] + x * s
        RE[d + 1, j] = m
        RE[ofs + d + 1, j] = f * s
        nz |= m != 0.0
    rrow[d + 1] = d + 1
    return nz


@node_kernel
def start_free_reach(sc: Scratch, no: Int) -> None:
    """A restricted Nash response's pass starts (at the root) with the free reach equal to
    the mixture: both the prior (row 0 → row ``ofs``, :func:`restricted_child`)."""
    ofs = sc.stack.shape[0]
    for j in range(no):
        sc.reach[ofs, j] = sc.reach[0, j]


@node_kernel
def node_values(
    d: Int, na: Int, nt: Int, best: bool, derive: bool, off: Int, sigma: Array, SG: Array,
    AV: Array, VA: Array,
) -> None:  # fmt: skip
    """The traverser's node values from its action values: the best per hand (best
    response), else the mix of the strategy it played."""
    if best:
        for h in range(nt):
            top = AV[d, 0, h]
            for a in range(1, na):
                if AV[d, a, h] > top:
                    top = AV[d, a, h]
            VA[d, h] = top
        return
    # the first action's term is stored, the others added (no zeroed row to add to)
    for a in range(na):
        if derive:
            base = a * nt
            if a == 0:
                for h in range(nt):
                    VA[d, h] = SG[d, np.uint64(h)] * AV[d, 0, h]
            else:
                for h in range(nt):
                    VA[d, h] += SG[d, np.uint64(base + h)] * AV[d, a, h]
        else:
            base = off + a * nt
            if a == 0:
                for h in range(nt):
                    VA[d, h] = sigma[np.uint64(base + h)] * AV[d, 0, h]
            else:
                for h in range(nt):
                    VA[d, h] += sigma[np.uint64(base + h)] * AV[d, a, h]


@node_kernel
def mixed_values(
    d: Int, na: Int, nt: Int, off: Int, R: Array, AV: Array, VA: Array, T: Array,
) -> None:  # fmt: skip
    """The traverser's node values under RM(R) without the strategy stored: per hand
    Σ_a [R(a)]⁺·AV(a) / Σ_a [R(a)]⁺, the mean of the action values where no regret is
    positive. One pass over the regrets and the action values (``T`` (2, ≥ H) scratch:
    row 0 the positive sums, row 1 the sums of the action values). In ``VA``'s precision."""
    z = like(VA, 0.0)
    for a in range(na):
        base = off + a * nt
        if a == 0:
            for h in range(nt):
                r = like(VA, R[np.uint64(base + h)])
                p = r if r > z else z
                q = AV[d, 0, h]
                T[0, h] = p
                T[1, h] = q
                VA[d, h] = p * q
        else:
            for h in range(nt):
                r = like(VA, R[np.uint64(base + h)])
                p = r if r > z else z
                q = AV[d, a, h]
                T[0, h] += p
                T[1, h] += q
                VA[d, h] += p * q
    u = like(VA, 1.0 / na)
    for h in range(nt):
        t = T[0, h]
        VA[d, h] = VA[d, h] / t if t > z else T[1, h] * u


@node_kernel
def update_traverser(
    st: Storage, co: Array, node: Int, off: Int, ioff: Int, na: Int, nt: Int, d: Int,
    sc: Scratch, rbp: bool, PR: I8,
) -> None:  # fmt: skip
    """The rule's update at the traverser's node at depth ``d`` (action and node values in
    row ``d`` of ``sc``: :func:`~solver.cfr.update.update_node`); with regret-based pruning
    (``PR`` its pruned cells) the pruned cells (they hold bounds) and the frozen hands keep
    their values (the pruning step follows: :func:`~solver.cfr.pruning.state.rbp_node`)."""
    R, SG, LIVE = st.regrets, sc.strat, sc.live
    if rbp:
        for i in range(na * nt):
            SG[d + 1, i] = R[off + i]
    work = UpdateWork(sc.blk, sc.sd, sc.tmp)
    update_node(st, co, node, off, ioff, na, nt, sc.action_value, sc.value, d, work)
    if rbp:
        for a in range(na):
            base = off + a * nt
            for h in range(nt):
                if PR[base + h] != 0 or LIVE[d, h] == 0.0:
                    R[base + h] = SG[d + 1, a * nt + h]


# ----- values up -----------------------------------------------------------------------------
@node_kernel
def action_values_up(AV: Array, VA: Array, d: Int, k: Int, nt: Int) -> None:
    """The traverser's node keeps its child's values as action ``k``'s: AV[d − 1, k] = VA[d]."""
    for h in range(nt):
        AV[d - 1, k, h] = VA[d, h]


@node_kernel
def values_sum_up(VA: Array, d: Int, nt: Int, CQ: Array) -> None:
    """The opponent's node sums its children's values: VA[d − 1] += VA[d], the first child
    it walked stored instead (``CQ[d − 1]`` = 0 until then: its row is not zeroed first)."""
    if CQ[d - 1] == 0.0:
        CQ[d - 1] = 1.0
        for h in range(nt):
            VA[d - 1, h] = VA[d, h]
        return
    for h in range(nt):
        VA[d - 1, h] += VA[d, h]
