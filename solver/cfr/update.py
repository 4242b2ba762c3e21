"""The rule's update of one decision node, and the one regret matching.

At the traverser's node, with action values ``AV[row]`` (actions, hands) and node values
``VA[row]`` (hands), a rule (:mod:`solver.cfr.rules`, one coefficient row ``co``) sets per
cell

    R ← post(pre(R) + w·r),  r = q(a) − v (rounding noise snapped to 0), floored for RM+,

and, unless the strategy is plain RM(R) (``co[DERIVE]``), the next strategy from the weights
``[R·scale + step·r]⁺`` — regret matching, or NormalHedge — where ``step`` is the rule's
prediction, scaled per infoset by 1/(1+α_I) for adaptive rules. At the opponent's nodes the
average-strategy sums get ``S ← S·decay + w_avg·π·σ``.

Every loop runs over contiguous hands with actions outer and unsigned offsets, so it
vectorizes (a signed index compiles to gathers: Numba wraps negative indices), on whole
arrays with rows by index (a row view costs an atomic reference-count increment and
decrement, more than a hand's arithmetic). Helpers marked ``node_kernel`` are inlined into
the walk; their arithmetic is the reference's to 1e-10 (``tests/test_reference_match.py``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.cfr.borrow import deref
from solver.cfr.floats import Floats, like, pick
from solver.cfr.layout import Scratch, Storage, WalkRef
from solver.cfr.locks import keep_cells, restore_locked
from solver.cfr.rules import (
    ADAPTIVE,
    ALPHA_MAX,
    AVG_WEIGHT,
    DECAY,
    DERIVE,
    FLOOR,
    NORMAL_HEDGE,
    POST_NEG,
    POST_POS,
    PRE_NEG,
    PRE_POS,
    PRED,
    REGRET_WEIGHT,
    SCALE,
)
from solver.games.model import DECISION, Hands, Tree
from solver.jit import called_kernel, kernel, node_kernel, node_kernel_py

Array = npt.NDArray[np.float64]
Int = int | np.int64

NOISE = 1e-13  # relative size of rounding noise in an instantaneous regret (float64)
NOISE32 = 2.0**-17  # the same in float32 (~128 units in the last place, as 1e-13 is ~450)
REGRET_LEVELS = 32767.0  # 16-bit storage: int16 regrets
SUM_LEVELS = 65535.0  # 16-bit storage: uint16 strategy sums


class UpdateWork(NamedTuple):
    """:func:`update_node`'s scratch (a NamedTuple, not a plain tuple: a tuple of mixed
    arrays is typed as Numba's heterogeneous ``Tuple``, which the prefetch plans' type
    loader does not take)."""

    blk: Array  # (≥ na·nt,) float64: the block's new values (16-bit storage), the weights
    tot2: Floats  # (2, ≥ 2·nt + 1) per-hand sums, in the walk's precision
    tmp: Array  # (≥ na,) float64


@kernel
def regret(q: float, v: float) -> float:
    """Instantaneous regret q − v, with rounding noise snapped to 0.

    When an action's value equals the node's value in exact arithmetic, q − v comes out as a
    few ulps of either sign, and regret matching would turn that noise into a pure strategy.
    Differences below NOISE × (|q| + |v|) are set to 0 (the reference does the same);
    float32 values (a float32 walk) take NOISE32."""
    r = q - v
    if abs(r) <= pick(r, NOISE, NOISE32) * (abs(q) + abs(v)):
        return like(r, 0.0)
    return r


@node_kernel
def regret_step(co: Array) -> tuple[float, float, float, float, float, bool]:
    """The scalars of :func:`next_regret` from a coefficient row: (pre_pos, pre_neg,
    regret weight, post_pos, post_neg, floor)."""
    return (
        co[PRE_POS], co[PRE_NEG], co[REGRET_WEIGHT], co[POST_POS], co[POST_NEG],
        co[FLOOR] != 0.0,
    )  # fmt: skip


@kernel
def next_regret(
    old: float,
    r: float,
    pre_pos: float,
    pre_neg: float,
    rw: float,
    post_pos: float,
    post_neg: float,
    floor: bool,
) -> float:
    """The rule's regret update of one cell: ``old`` discounted by sign (``pre_*``), plus the
    weighted instantaneous regret ``rw · r``, discounted by sign again (``post_*``), floored
    at 0 for RM+ rules (in ``old``'s precision when the scalars are given in it)."""
    z = like(old, 0.0)
    x = old * (pre_pos if old > z else pre_neg) + rw * r
    x = x * (post_pos if x > z else post_neg)
    if floor and x < z:
        x = z
    return x


@node_kernel
def regret_matching(
    R: Array,
    off: Int,
    na: Int,
    nh: Int,
    h0: Int,
    h1: Int,
    pruned: npt.NDArray[np.int8],
    masked: bool,
    out2: Array,
    orow: Int,
    ooff: Int,
    tot2: Array,
) -> None:
    """Regret matching of hands ``h0 ≤ h < h1`` of the block at ``off`` (``na`` actions ×
    ``nh`` hands): out2[orow, ooff + a·n + (h − h0)] = [R(a, h)]⁺ / Σ_b [R(b, h)]⁺ with
    n = h1 − h0, uniform where no regret is positive. On non-negative sums (strategy sums)
    this is their normalisation: the average strategy.

    With ``masked``, cells where ``pruned`` (A,) is non-zero play with probability 0 and the
    uniform fallback is over each hand's other actions (regret-based pruning). ``tot2`` is
    scratch: rows 0 (sums) and, masked, 1 (counts), ≥ h1 entries each."""
    n = h1 - h0
    ostride = n
    trow = 0
    for h in range(h0, h1):
        tot2[trow, h] = 0.0
    if masked:
        for h in range(h0, h1):
            tot2[trow + 1, h] = 0.0
        for a in range(na):
            base = off + a * nh
            for h in range(h0, h1):
                if pruned[base + h] == 0:
                    r = R[base + h] * 1.0
                    tot2[trow, h] += r if r > 0.0 else 0.0
                    tot2[trow + 1, h] += 1.0
        for a in range(na):
            base = off + a * nh
            obase = ooff + a * ostride - h0
            for h in range(h0, h1):
                if pruned[base + h] != 0:
                    out2[orow, obase + h] = 0.0
                    continue
                r = R[base + h] * 1.0
                t = tot2[trow, h]
                out2[orow, obase + h] = (
                    (r / t if r > 0.0 else 0.0) if t > 0.0 else 1.0 / tot2[trow + 1, h]
                )
        return
    for a in range(na):
        base = off + a * nh
        for h in range(h0, h1):
            r = R[np.uint64(base + h)] * 1.0
            tot2[trow, h] += r if r > 0.0 else 0.0
    u = 1.0 / na
    for a in range(na):
        base = off + a * nh
        obase = ooff + a * ostride
        for k in range(n):
            r = R[np.uint64(base + h0 + k)] * 1.0
            t = tot2[trow, h0 + k]
            out2[orow, np.uint64(obase + k)] = (r / t if r > 0.0 else 0.0) if t > 0.0 else u


@node_kernel_py
def strategy_rows(
    R: Floats, off: Int, na: Int, nh: Int, out2: Floats, orow: Int, tot2: Floats, trow: Int
) -> None:
    """Regret matching of the whole block at ``off`` (``na`` actions × ``nh`` hands, no
    pruned cells) into out2[orow, a·nh + h], for the walk: one division per hand (its
    reciprocal), not per cell — the strategy the opponent plays, to within an ulp of
    :func:`regret_matching`'s. ``tot2[trow]`` (≥ nh,) is scratch. In ``out2``'s precision."""
    z = like(out2, 0.0)
    for a in range(na):
        base = off + a * nh
        if a == 0:  # the first action's term stored: no zeroed row to add to
            for h in range(nh):
                r = like(out2, R[np.uint64(base + h)])
                tot2[trow, h] = r if r > z else z
        else:
            for h in range(nh):
                r = like(out2, R[np.uint64(base + h)])
                tot2[trow, h] += r if r > z else z
    u = like(out2, 1.0 / na)
    one = like(out2, 1.0)
    subnormal = False
    for h in range(nh):
        t = tot2[trow, h]
        v = one / t if t > z else z
        tot2[trow, h] = v
        subnormal |= v - v != z  # infinite (inf − inf is NaN): the sum is subnormal
    for a in range(na):
        base = off + a * nh
        obase = a * nh
        for h in range(nh):
            r = like(out2, R[np.uint64(base + h)])
            v = tot2[trow, h]
            out2[orow, np.uint64(obase + h)] = (r * v if r > z else z) if v > z else u
    if subnormal:  # a subnormal sum has no finite reciprocal: divide by the sum itself
        for h in range(nh):
            v = tot2[trow, h]
            if v - v == z:
                continue
            t = z
            for a in range(na):
                r = like(out2, R[np.uint64(off + a * nh + h)])
                t += r if r > z else z
            for a in range(na):
                r = like(out2, R[np.uint64(off + a * nh + h)])
                out2[orow, np.uint64(a * nh + h)] = r / t if r > z else z


@kernel
def normal_hedge(x: Array, na: Int, out: Array) -> None:
    """NormalHedge weights of the non-negative vector ``x[:na]`` into ``out[:na]``.

    Solves (1/na)·Σ exp(x²/(2c)) = e for c and sets out ∝ (x/c)·exp(x²/(2c)). The weights
    are invariant to scaling x, so the solve runs on y = x / max(x): c by bisection on log c
    in [1/(2(1 + ln na)), 1/2] — no overflow or underflow whatever the size of x.
    """
    m = 0.0
    for a in range(na):
        if x[a] > m:
            m = x[a]
    if m <= 0.0:
        for a in range(na):
            out[a] = 1.0 / na
        return
    lo = math.log(1.0 / (2.0 * (1.0 + math.log(na))))
    hi = math.log(0.5)
    for _ in range(80):
        mid = 0.5 * (lo + hi)
        c = math.exp(mid)
        f = 0.0
        for a in range(na):
            y = x[a] / m
            f += math.exp(y * y / (2.0 * c))
        if f / na > math.e:
            lo = mid
        else:
            hi = mid
    c = math.exp(0.5 * (lo + hi))
    s = 0.0
    for a in range(na):
        y = x[a] / m
        w = y * math.exp(y * y / (2.0 * c))
        out[a] = w
        s += w
    for a in range(na):
        out[a] /= s


@kernel
def quantize(
    blk: Array, n: Int, dest: Array, off: Int, scales: Array, node: Int, levels: float
) -> None:
    """dest[off : off + n] ← blk[:n] in integer units of (largest |blk|) / levels, the unit
    stored in ``scales[node]`` (16-bit storage)."""
    m = 0.0
    for k in range(n):
        m = max(m, abs(blk[k]))
    unit = m / levels if m > 0.0 else 1.0
    scales[node] = unit
    inv = 1.0 / unit
    for k in range(n):  # round half up; |blk·inv| ≤ levels, so the integer type holds it
        dest[off + k] = math.floor(blk[k] * inv + 0.5)


@node_kernel
def update_node(
    st: Storage,
    co: Array,
    node: Int,
    off: Int,
    ioff: Int,
    na: Int,
    nt: Int,
    AV: Floats,
    VA: Floats,
    row: Int,
    work: UpdateWork,
) -> None:
    """The rule's update at one of the traverser's decision nodes (module docstring): the
    regrets ``st.regrets`` of the block at ``off``, the adaptive statistics
    (``st.last_regret`` the last instantaneous regrets (A,), ``st.step_num``/``step_den``
    Σ‖r − m‖² and Σ‖ΔR‖² per infoset (I,)), then the next strategy into ``st.strategy``
    unless the rule derives it. ``AV[row]`` (na, nt) the action values, ``VA[row]`` (nt,)
    the node values.

    16-bit storage (``st.quantized``): new regrets go to ``blk`` (na·nt,) first and are
    quantized once the block's largest is known (``st.rscale[node]`` the unit); the strategy
    is computed from the unrounded values. ``work`` is scratch (:class:`UpdateWork`)."""
    R, sigma, LR = st.regrets, st.strategy, st.last_regret
    SN, SDN, rscale = st.step_num, st.step_den, st.rscale
    quant = st.quantized != 0
    blk, tot2, tmp = work
    pre_pos, pre_neg, rw, post_pos, post_neg, floor = regret_step(co)
    adaptive = co[ADAPTIVE] != 0.0
    unit = rscale[node] if quant else 1.0
    nt_ = np.uint64(nt)
    if not quant and not adaptive:
        # the common case in a loop of its own: with the 16-bit and adaptive branches in
        # it, the loop's stores compile to masked stores (one to ``blk``, one to ``R``,
        # each under the branch's mask), which AMD's cores run many times slower than
        # plain ones — this loop was a fifth of a T1 walk on a Zen 3 core. In the walk's
        # precision (the scratch's: float32 over float32 storage)
        pp = like(VA, pre_pos)
        pn = like(VA, pre_neg)
        w = like(VA, rw)
        qp = like(VA, post_pos)
        qn = like(VA, post_neg)
        for a in range(na):
            base = off + a * nt
            for h in range(nt):
                i = np.uint64(base + h)
                r = regret(AV[row, a, h], VA[row, h])
                R[i] = next_regret(like(VA, R[i]), r, pp, pn, w, qp, qn, floor)
    else:
        if adaptive:
            for h in range(nt):
                tot2[0, h] = 0.0  # Σ_a (r − m)²
                tot2[0, nt_ + h] = 0.0  # Σ_a (ΔR)²
        for a in range(na):
            base = off + a * nt
            for h in range(nt):
                i = np.uint64(base + h)
                r = regret(AV[row, a, h], VA[row, h])
                old = R[i] * unit
                x = next_regret(old, r, pre_pos, pre_neg, rw, post_pos, post_neg, floor)
                if quant:
                    blk[np.uint64(a * nt + h)] = x
                else:
                    R[i] = x
                if adaptive:
                    d = r - LR[i]
                    tot2[0, h] += d * d
                    e = x - old
                    tot2[0, nt_ + h] += e * e
                    LR[i] = r
        if quant:
            quantize(blk, na * nt, R, off, rscale, node, REGRET_LEVELS)
    if co[DERIVE] != 0.0:
        return
    # the step on the prediction, per hand
    pred = co[PRED]
    for h in range(nt):
        step = pred
        if adaptive:
            j = np.uint64(ioff + h)
            SN[j] += tot2[0, h]
            SDN[j] += tot2[0, nt_ + h]
            den = SDN[j]
            alpha = min(math.sqrt(SN[j] / den), co[ALPHA_MAX]) if den > 0.0 else co[ALPHA_MAX]
            step = pred / (1.0 + alpha)
        tot2[1, h] = step
        tot2[1, nt_ + h] = 0.0  # Σ_a of the next strategy's weights
    # the next strategy's weights [R·scale + step·r]⁺, then their normalisation
    scale = co[SCALE]
    for a in range(na):
        base = off + a * nt
        for h in range(nt):
            k = np.uint64(a * nt + h)
            y = (blk[k] if quant else R[np.uint64(base + h)]) * scale
            step = tot2[1, h]
            if step != 0.0:
                y += step * regret(AV[row, a, h], VA[row, h])
            y = y if y > 0.0 else 0.0
            blk[k] = y
            tot2[1, nt_ + h] += y
    if co[NORMAL_HEDGE] != 0.0:
        for h in range(nt):
            for a in range(na):
                tmp[a] = blk[a * nt + h]
            normal_hedge(tmp, na, tmp)
            for a in range(na):
                sigma[off + a * nt + h] = tmp[a]
        return
    for a in range(na):
        base = off + a * nt
        for h in range(nt):
            t = tot2[1, nt_ + h]
            y = blk[np.uint64(a * nt + h)]
            sigma[np.uint64(base + h)] = y / t if t > 0.0 else 1.0 / na


@node_kernel
def add_sums(
    st: Storage,
    sigma: Array,
    sc: Scratch,
    srow: Int,
    derive: bool,
    co: Array,
    node: Int,
    off: Int,
    na: Int,
    no: Int,
    r0: Int,
) -> None:
    """At an opponent's decision node of a CFR pass: the owner's average-strategy sums
    ``S ← S·decay + w_avg·π·σ`` (``st.cumulative``) with π its reach ``sc.reach[r0]`` (no,)
    and σ the strategy it played — ``sc.strat[srow]`` (na·no,) when derived from the regrets,
    else ``sigma`` at ``off``. 16-bit storage computes in chips in ``sc.blk`` and quantizes
    the block. An iteration the average does not take (decay 1, weight 0:
    :func:`~solver.cfr.rules.every_kth_average`) leaves the sums alone without reading them:
    they are most of a pass's memory traffic."""
    if co[DECAY] == 1.0 and co[AVG_WEIGHT] == 0.0:
        return
    S, sscale, quant = st.cumulative, st.sscale, st.quantized != 0
    SG, RE, blk = sc.strat, sc.reach, sc.blk
    decay = like(RE, co[DECAY])  # the walk's precision (the products; S's sums are S's)
    w = like(RE, co[AVG_WEIGHT])
    unit = sscale[node] if quant else 1.0
    for a in range(na):
        base = off + a * no
        sb = a * no
        if quant:  # into blk (float64), S in chips
            for j in range(no):
                ix = np.uint64(base + j)
                p_a = SG[srow, np.uint64(sb + j)] if derive else sigma[ix]
                blk[np.uint64(sb + j)] = S[ix] * unit * decay + w * RE[r0, j] * p_a
        elif derive:
            for j in range(no):
                ix = np.uint64(base + j)
                S[ix] = S[ix] * decay + w * RE[r0, j] * SG[srow, np.uint64(sb + j)]
        else:
            for j in range(no):
                ix = np.uint64(base + j)
                S[ix] = S[ix] * decay + w * RE[r0, j] * sigma[ix]
    if quant:
        quantize(blk, na * no, S, off, sscale, node, SUM_LEVELS)


@called_kernel
def decay_sums(S: Array, sscale: Array, quant: bool, off: Int, n: Int, decay: float,
               node: Int, blk: Array, ref: Array) -> None:  # fmt: skip
    """A decision node's strategy sums when its owner's reach is zero: S·decay (nothing to
    do for decay 1), the decay in the walk's precision (``ref``'s) as :func:`add_sums`
    takes it."""
    if decay == 1.0:
        return
    if quant:
        unit = sscale[node]
        for i in range(n):
            blk[i] = S[off + i] * unit * decay
        quantize(blk, n, S, off, sscale, node, SUM_LEVELS)
    else:
        dk = like(ref, decay)
        for i in range(n):
            ix = np.uint64(off + i)
            S[ix] = S[ix] * dk


@node_kernel
def discount_regrets(R: Array, co: Array, off: Int, n: Int, ref: Array) -> None:
    """:func:`update_node`'s regrets when every value is 0 (instantaneous regret 0), cells
    ``off ≤ i < off + n`` (float storage): R ← next_regret(R, 0), the rule's discount — in
    the walk's precision (``ref``'s, as the update computes it)."""
    pre_pos, pre_neg, rw, post_pos, post_neg, floor = regret_step(co)
    pp = like(ref, pre_pos)
    pn = like(ref, pre_neg)
    w = like(ref, rw)
    qp = like(ref, post_pos)
    qn = like(ref, post_neg)
    z = like(ref, 0.0)
    for i in range(n):
        ix = np.uint64(off + i)
        R[ix] = next_regret(like(ref, R[ix]), z, pp, pn, w, qp, qn, floor)


@kernel
def zero_update_is_noop(co: Array) -> bool:
    """Whether an update with all values 0 leaves every buffer as it is: no discount of
    regrets or sums, and no prediction or adaptive step in the next strategy."""
    return (
        co[PRE_POS] == 1.0
        and co[PRE_NEG] == 1.0
        and co[POST_POS] == 1.0
        and co[POST_NEG] == 1.0
        and co[DECAY] == 1.0
        and co[ADAPTIVE] == 0.0
        and (co[PRED] == 0.0 or co[DERIVE] != 0.0)
    )


@called_kernel
def zero_update(refs: WalkRef, root: Int, trav: Int, co: Array, row: Int) -> int:
    """The CFR update of ``trav``'s pass over the subtree of ``root`` when the opponent's
    reach there is zero: every counterfactual value is 0, so the traverser's infosets get
    the rule's update with zero regrets (discounts, the next strategy) and the opponent's
    strategy sums only their decay. One sweep over the subtree's decision nodes (contiguous
    in ``tree.pre_order``); bit for bit what the full walk would do. Scratch row ``row`` of
    ``sc.action_value`` and ``sc.value`` is overwritten; locked hands keep their cells
    (``sc.keep``). Returns the decision nodes updated. ``refs``: the walk's tables
    (:class:`~solver.cfr.layout.WalkTables`), by reference."""
    tree, hands, _, _, st, lk, sc = deref(refs)
    AV, VA, blk, keep = sc.action_value, sc.value, sc.blk, sc.keep
    nt = hands.num_hands[trav]
    no = hands.num_hands[1 - trav]
    quant = st.quantized != 0
    # what update_node does with every value 0, without reading zeroed rows: the regrets'
    # discount alone (no 16-bit storage, no adaptive step, a derived strategy)
    plain = not quant and co[ADAPTIVE] == 0.0 and co[DERIVE] != 0.0
    if not plain:
        AV[row, :, :nt] = 0.0
        VA[row, :nt] = 0.0
    lo = tree.pre_start[root]
    hi = tree.pre_end[root]
    locked = lk.node.shape[0] == tree.kind.shape[0]
    for q in range(lo, hi):
        node = tree.pre_order[q]
        off = tree.offset[node]
        ioff = tree.ioffset[node]
        na = tree.num_children[node]
        lock_here = locked and lk.node[node] != 0
        if tree.player[node] == trav:
            if lock_here:
                keep_update(st, off, ioff, na, nt, keep)
            if plain:
                discount_regrets(st.regrets, co, off, na * nt, VA)
            else:
                work = UpdateWork(blk, sc.sd, sc.tmp)
                update_node(st, co, node, off, ioff, na, nt, AV, VA, row, work)
            if lock_here:
                restore_update(st, lk.hand, off, ioff, na, nt, keep)
        else:
            if lock_here:
                keep_cells(st.cumulative, off, na * no, keep, 1)
            decay_sums(st.cumulative, st.sscale, quant, off, na * no, co[DECAY], node, blk, VA)
            if lock_here:
                restore_locked(st.cumulative, lk.hand, off, ioff, na, no, keep, 1)
    return hi - lo


@called_kernel  # (a call, not inlined: off the common path)
def keep_update(st: Storage, off: Int, ioff: Int, na: Int, nt: Int, keep: Array) -> None:
    """Before the update of a node with locked hands: its regrets (row 0), stored strategy
    (row 1), last regrets (row 2) and per-infoset step statistics (row 3) into ``keep``."""
    n = na * nt
    keep_cells(st.regrets, off, n, keep, 0)
    if st.strategy.shape[0] > 1:
        keep_cells(st.strategy, off, n, keep, 1)
    if st.last_regret.shape[0] > 1:
        keep_cells(st.last_regret, off, n, keep, 2)
        for h in range(nt):
            keep[3, h] = st.step_num[ioff + h]
            keep[3, nt + h] = st.step_den[ioff + h]


@called_kernel  # (a call, not inlined: off the common path)
def restore_update(
    st: Storage, LH: npt.NDArray[np.int8], off: Int, ioff: Int, na: Int, nt: Int, keep: Array
) -> None:
    """After the update of a node with locked hands: the locked hands' cells as they were."""
    restore_locked(st.regrets, LH, off, ioff, na, nt, keep, 0)
    if st.strategy.shape[0] > 1:
        restore_locked(st.strategy, LH, off, ioff, na, nt, keep, 1)
    if st.last_regret.shape[0] > 1:
        restore_locked(st.last_regret, LH, off, ioff, na, nt, keep, 2)
        for h in range(nt):
            if LH[ioff + h] != 0:
                st.step_num[ioff + h] = keep[3, h]
                st.step_den[ioff + h] = keep[3, nt + h]


# ----- whole-tree entry points --------------------------------------------------------------
@kernel
def regret_matching_all(
    tree: Tree, hands: Hands, regrets: Array, out: Array, pruned: npt.NDArray[np.int8]
) -> None:
    """out (A,) ← RM(regrets) at every decision node: the current strategy of rules that
    derive it. ``pruned`` (A,) marks cells regret-based pruning holds at probability 0 (a
    (1,) array: none)."""
    masked = pruned.shape[0] == regrets.shape[0]
    h = max(hands.num_hands[0], hands.num_hands[1])
    tot2 = np.zeros((2, max(h, 1)))
    out2 = out.reshape((1, out.shape[0]))
    for node in range(tree.kind.shape[0]):
        if tree.kind[node] != DECISION:
            continue
        off = tree.offset[node]
        na = tree.num_children[node]
        nh = hands.num_hands[tree.player[node]]
        regret_matching(regrets, off, na, nh, 0, nh, pruned, masked, out2, 0, off, tot2)


@kernel
def average_strategy(tree: Tree, hands: Hands, cumulative: Array, out: Array) -> None:
    """out (A,) ← the strategy sums normalised per (decision node, hand); uniform where a
    hand's sum is 0. Sums are non-negative, so this is :func:`regret_matching` of them."""
    regret_matching_all(tree, hands, cumulative, out, np.zeros(1, dtype=np.int8))


@kernel
def update_block(
    st: Storage, co: Array, node: int, off: int, ioff: int, na: int, nh: int, av: Floats,
    values: Floats,
) -> None:  # fmt: skip
    """:func:`update_node` of one block with action values ``av`` (na, nh) and node values
    ``values`` (nh,) (for tests and analysis; the walk inlines the helper)."""
    AV = av.reshape((1, na, nh))
    VA = values.reshape((1, nh))
    work = UpdateWork(np.zeros(na * nh), np.zeros((2, 2 * nh + 1)), np.zeros(na))
    update_node(st, co, node, off, ioff, na, nh, AV, VA, 0, work)
