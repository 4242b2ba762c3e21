"""The one traversal: vector-form CFR, best response and evaluation over a public tree.

A pass for traverser ``i`` walks the public tree depth first carrying the opponent's reach
vector down (one entry per opponent hand) and bringing ``i``'s counterfactual values back up
(one entry per ``i`` hand). The same walk serves three modes:

* ``MODE_UPDATE``: CFR. At ``i``'s nodes it mixes the action values with the current strategy
  and applies the rule's regret and strategy update; at the opponent's nodes it adds to the
  opponent's average-strategy sums (weighted by the opponent's reach).
* ``MODE_BR``: best response. At ``i``'s nodes it takes the best action per hand; the
  opponent plays the strategy array passed in (normally the average strategy).
* ``MODE_EVAL``: expected values of the strategy array passed in, for both players.

Terminal values use card removal with inclusion–exclusion: O(n) for folds, one sweep over
hands sorted by strength for showdowns. Chance nodes scale the opponent reach by the card's
probability and zero the hands the dealt card blocks, so every counterfactual value below
them carries the chance of the deal (the textbook definition).
All kernels are ``nogil`` and cached (see :mod:`solver.jit`); nothing here allocates per node.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.cfr.rules import (
    ADAPTIVE,
    ALPHA_MAX,
    AVG_WEIGHT,
    CHANCE_U,
    DECAY,
    DERIVE,
    FLOOR,
    MARGIN,
    NORMAL_HEDGE,
    NOSTART,
    POST_NEG,
    POST_POS,
    PRE_NEG,
    PRE_POS,
    PRED,
    PRUNE,
    PRUNE_INTERVAL,
    PRUNE_TOTAL,
    RECORD,
    REGRET_WEIGHT,
    SAMPLE,
    SCALE,
)
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, Boards, Hands, Tree
from solver.jit import inline_kernel, kernel, node_kernel

NOISE = 1e-13  # relative size of rounding noise in an instantaneous regret

MODE_UPDATE = 0
MODE_BR = 1
MODE_EVAL = 2
MODE_REACH = 3  # the current strategy's reach only (parallel step 1): nothing is updated

Array = npt.NDArray[np.float64]
# Integer arguments that recursive kernel calls pass as ``np.int64(...)``: a plain literal
# there is typed ``Literal[int]`` and gives the recursive call a second signature.
Int = int | np.int64

# Placeholders for the Storage fields a solve does not use (the kernels write them only when
# the matching feature is on, and then the engine passes real arrays; writeable, since Numba
# types read-only arrays apart).
_I8 = np.zeros(1, dtype=np.int8)
_I32 = np.zeros(1, dtype=np.int32)
_I64 = np.zeros(1, dtype=np.int64)
_F1 = np.zeros(1)
_F2 = np.zeros((1, 1))


class Storage(NamedTuple):
    """Per-infoset buffers of one solve. ``A`` = total action size, ``I`` = total info size.

    Adaptive rules use ``last_regret`` (A,) and ``step_num``/``step_den`` (I,); other rules
    get length-1 placeholders there.
    """

    regrets: Array  # (A,) accumulated regrets R, [action, hand] blocks
    strategy: Array  # (A,) current strategy σ (what the next pass plays)
    cumulative: Array  # (A,) average-strategy sums S
    last_regret: Array  # (A,) or (1,): last instantaneous regret (adaptive rules)
    step_num: Array  # (I,) or (1,): Σ‖r − m‖² per infoset (adaptive rules)
    step_den: Array  # (I,) or (1,): Σ‖ΔR‖² per infoset (adaptive rules)
    # 16-bit compressed storage (quantized = 1): regrets int16 and sums uint16, each decision
    # node's block scaled by rscale[node] / sscale[node] (chips per unit), re-scaled to its
    # largest entry on every write. Otherwise the scales are 1 and unused.
    rscale: Array  # (N,)
    sscale: Array  # (N,)
    quantized: int
    # Regret-based pruning (interval or Total RBP; see solver.cfr.pruning), else placeholders.
    # A pruned action is a child node: pruned[child] = 1 while its subtree is skipped; its
    # parent's regret cells for that action then hold the pruning bound instead of a regret.
    pruned: npt.NDArray[np.int8] = _I8  # (N,)
    vsum: Array = _F1  # (I,) Σ_t v^t(I): the node values played (Total RBP)
    umax: Array = _F1  # (N,) per child: the most its parent's player can win below it (≥ 0)
    lmin: Array = _F1  # (N,) per decision node: the least its player can get below it (≤ 0)
    pimax: Array = _F1  # (I,) per infoset: the largest opponent reach it can have
    win_slot: npt.NDArray[np.int32] = _I32  # (N,) interval RBP: the child's window, or -1
    win: Array = _F2  # (S, H) summed opponent reach (× regret weight) over each window
    free: npt.NDArray[np.int32] = _I32  # (S + 1,) free window slots: count, then slots
    ctl: npt.NDArray[np.int64] = _I64  # (Q + 1,) catch-ups requested: count, then children
    cbv: Array = _F1  # (A,) best-response action values recorded by a RECORD pass
    cbv_node: Array = _F1  # (I,) best-response node values recorded by a RECORD pass
    reach_mass: Array = _F1  # (I,) the opponent reach each infoset had in a RECORD pass


class Scratch(NamedTuple):
    """Work buffers, one row per tree depth so recursion never allocates."""

    reach: Array  # (D + 2, H)
    value: Array  # (D + 2, H)
    action_value: Array  # (D + 2, max_actions, H)
    card_sum: Array  # (2C,): per-card sums (two banks for two-card folds)
    card_sum2: Array  # (C,)
    tmp: Array  # (max_actions,)
    stack: npt.NDArray[np.int64]  # (D + 2,) node at each depth of the walk
    next_child: npt.NDArray[np.int64]  # (D + 2,) next child to visit, -1 on entry
    reach_row: npt.NDArray[np.int64]  # (D + 2,) which reach row holds the node's reach
    sd: Array  # (2, 2H + 1) showdown prefix sums (two-card hands)
    strat: Array  # (D + 2, max_actions * H): a node's strategy when derived from regrets
    blk: Array  # (max_actions * H,): a node's new values before 16-bit quantization
    cq: Array  # (D + 2,) chance sampling: 1 / probability of the child drawn at that depth
    clevel: npt.NDArray[np.int64]  # (D + 2,) chance nodes above the node at that depth
    pi: Array  # (1, H) an infoset's opponent reach (regret-based pruning)
    live: Array  # (D + 2, H) regret-based pruning: 1 for the traverser's hands not pruned above


_I32_2 = np.full((1, 1), -1, dtype=np.int32)


class Leaves(NamedTuple):
    """Chance nodes cut out of a pass so their children can run in parallel (``L`` slots),
    and those children as tasks (``K`` of them) for the threads (see :class:`Parallel`).

    ``slot[n]`` is the slot of node ``n`` or -1. With ``leaf_mode`` 1 a pass stores the
    opponent reach arriving at a slotted node in ``reach[slot]`` and goes no deeper; with
    ``leaf_mode`` 2 it takes the node's values from ``value[slot]``; with ``leaf_mode`` 3 it
    walks the tasks ``assign[t]`` of thread ``t`` one after another (each from the reach
    stored at its chance node) and leaves each task's values in ``task_value``; 0 ignores
    slots. The task fields default to placeholders for walks that never run tasks."""

    slot: npt.NDArray[np.int32]  # (N,)
    reach: Array  # (L, H)
    value: Array  # (L, H)
    task_slot: npt.NDArray[np.int32] = _I32  # (K,): the chance node's slot
    task_node: npt.NDArray[np.int32] = _I32  # (K,): the child
    task_value: Array = _F2  # (K, H)
    # (threads, M): the tasks each thread runs, -1 padded (balanced by subtree size; the
    # results do not depend on it: the finish sums children in task order)
    assign: npt.NDArray[np.int32] = _I32_2


LEAF_OFF = 0
LEAF_COLLECT = 1
LEAF_USE = 2
LEAF_TASKS = 3


@inline_kernel
def no_leaves() -> Leaves:
    """Leaves with nothing cut out, for walks inside a kernel (Numba does not fill a
    NamedTuple's defaults)."""
    i1 = np.zeros(1, dtype=np.int32)
    f2 = np.zeros((1, 1))
    return Leaves(i1, f2, f2, i1, i1, f2, np.full((1, 1), -1, dtype=np.int32))


@inline_kernel
def _fold_values(
    hands: Hands,
    boards: Boards,
    b: Int,
    trav: Int,
    u: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
) -> None:
    """out2[orow, h] = u · (opponent reach reach2[rrow] of hands compatible with h); O(n)
    inclusion–exclusion. The walk calls :func:`_fold_rows` with the arrays it read once;
    this entry point reads them from ``hands`` and ``boards``."""
    opp = 1 - trav
    no = hands.num_hands[opp]
    nt = hands.num_hands[trav]
    _fold_rows(hands.cards, hands.same, boards.valid, b, trav, no, nt, hands.num_cards, u,
               reach2, rrow, out2, orow, cs)  # fmt: skip


@node_kernel
def _fold_rows(
    cards: npt.NDArray[np.int32],
    same: npt.NDArray[np.int32],
    valid: Array,
    b: Int,
    trav: Int,
    no: Int,
    nt: Int,
    nc: Int,
    u: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
) -> None:
    """Fold values on whole arrays (``cards`` (2, H, 2), ``same`` (2, H), ``valid``
    (B, 2, H)) with rows by index: a row view, a field read from a NamedTuple or an array
    argument at a call boundary each cost an atomic reference-count increment and decrement,
    more than a hand's arithmetic here. ``cs`` is (2·nc,). Two-card hands (hold'em) sum the
    opponent reach per card in two banks (even and odd hands) merged after — hands sharing a
    card sit next to each other, and with one bank each add waits for the previous store;
    hands of one card (-1 in the second slot) take the checked loops."""
    opp = 1 - trav
    for c in range(2 * nc):
        cs[c] = 0.0
    total = 0.0
    if cards[0, 0, 1] >= 0 and cards[1, 0, 1] >= 0:
        for j in range(no):
            r = reach2[rrow, j]
            total += r
            bank = np.uint32((j & 1) * nc)
            cs[bank + np.uint32(cards[opp, j, 0])] += r
            cs[bank + np.uint32(cards[opp, j, 1])] += r
        for c in range(nc):
            cs[c] += cs[nc + c]
        for h in range(nt):
            x = total - cs[np.uint32(cards[trav, h, 0])] - cs[np.uint32(cards[trav, h, 1])]
            sm = same[trav, h]
            if sm >= 0:
                x += reach2[rrow, sm]
            out2[orow, h] = u * x * valid[b, trav, h]
        return
    for j in range(no):
        r = reach2[rrow, j]
        if r != 0.0:
            total += r
            for k in range(2):
                c = cards[opp, j, k]
                if c >= 0:
                    cs[c] += r
    for h in range(nt):
        x = total
        n = 0
        for k in range(2):
            c = cards[trav, h, k]
            if c >= 0:
                x -= cs[c]
                n += 1
        if n == 2:
            sm = same[trav, h]
            if sm >= 0:
                x += reach2[rrow, sm]
        out2[orow, h] = u * x * valid[b, trav, h]


@inline_kernel
def _showdown_values(
    hands: Hands,
    boards: Boards,
    b: Int,
    trav: Int,
    amount: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
    cs2: Array,
) -> None:
    """out2[orow, h] = amount · (reach of compatible weaker hands − reach of compatible
    stronger), on the fields of ``hands`` and ``boards``: :func:`_showdown_2card` (prefix
    sums) for two-card hands on a board with a showdown layout, as the walk does, else
    :func:`_showdown_generic`. ``cs`` holds ≥ C entries."""
    if hands.cards[0, 0, 1] >= 0 and hands.cards[1, 0, 1] >= 0 and boards.sd_row[b] >= 0:
        sbuf = np.empty((2, 2 * reach2.shape[1] + 1))
        _showdown_2card(hands.cards, boards.valid, boards.order, boards.sd_row, boards.sd_src,
                        boards.sd_cstart, boards.sd_idx, b, trav, hands.num_hands[trav],
                        hands.num_hands[1 - trav], hands.num_cards, amount, reach2, rrow, out2,
                        orow, cs, sbuf)  # fmt: skip
        return
    _showdown_generic(hands.cards, boards.order, boards.rank, b, trav, hands.num_hands[trav],
                      hands.num_hands[1 - trav], boards.valid, amount, reach2, rrow, out2, orow,
                      cs, cs2)  # fmt: skip


@node_kernel
def _showdown_generic(
    cards: npt.NDArray[np.int32],
    order: npt.NDArray[np.int32],
    rank: npt.NDArray[np.int64],
    b: Int,
    trav: Int,
    nt: Int,
    no: Int,
    valid: Array,
    amount: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
    cs2: Array,
) -> None:
    """Showdown values for hands of one or two cards, on whole arrays with rows by index
    (see :func:`_fold_rows`). One ascending sweep for wins and one descending sweep for
    losses over hands sorted by strength; per-card running sums remove the hands that share
    a card with ``h``."""
    opp = 1 - trav
    # wins: opponent hands strictly weaker
    cs[:] = 0.0
    cum = 0.0
    j = 0
    for i in range(nt):
        h = order[b, trav, i]
        rh = rank[b, trav, h]
        while j < no and rank[b, opp, order[b, opp, j]] < rh:
            o = order[b, opp, j]
            r = reach2[rrow, o]
            cum += r
            for k in range(2):
                c = cards[opp, o, k]
                if c >= 0:
                    cs[c] += r
            j += 1
        x = cum
        for k in range(2):
            c = cards[trav, h, k]
            if c >= 0:
                x -= cs[c]
        out2[orow, h] = x
    # losses: opponent hands strictly stronger
    cs2[:] = 0.0
    cum = 0.0
    jj = no - 1
    for i in range(nt - 1, -1, -1):
        h = order[b, trav, i]
        rh = rank[b, trav, h]
        while jj >= 0 and rank[b, opp, order[b, opp, jj]] > rh:
            o = order[b, opp, jj]
            r = reach2[rrow, o]
            cum += r
            for k in range(2):
                c = cards[opp, o, k]
                if c >= 0:
                    cs2[c] += r
            jj -= 1
        x = cum
        for k in range(2):
            c = cards[trav, h, k]
            if c >= 0:
                x -= cs2[c]
        out2[orow, h] = amount * (out2[orow, h] - x) * valid[b, trav, h]


@inline_kernel
def _prefix_sums(
    reach2: Array,
    rrow: Int,
    src: npt.NDArray[np.integer],
    s0: Int,
    s1: Int,
    n: Int,
    out2: Array,
    orow: Int,
) -> None:
    """out2[orow, k] = Σ_{j<k} reach2[rrow, src[s0, s1, j]] for k = 0..n.

    Four blocks summed side by side (four independent chains of dependent adds instead of
    one, which would set the pace at one add's latency per entry), then offset. Indices are
    read as unsigned (a signed index pays Numba's negative-index wrap)."""
    q = n // 4
    out2[orow, 0] = 0.0
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    for k in range(q):
        a0 += reach2[rrow, np.uint32(src[s0, s1, k])]
        out2[orow, k + 1] = a0
        a1 += reach2[rrow, np.uint32(src[s0, s1, q + k])]
        out2[orow, q + k + 1] = a1
        a2 += reach2[rrow, np.uint32(src[s0, s1, 2 * q + k])]
        out2[orow, 2 * q + k + 1] = a2
        a3 += reach2[rrow, np.uint32(src[s0, s1, 3 * q + k])]
        out2[orow, 3 * q + k + 1] = a3
    for k in range(4 * q, n):
        a3 += reach2[rrow, np.uint32(src[s0, s1, k])]
        out2[orow, k + 1] = a3
    for k in range(q + 1, 2 * q + 1):
        out2[orow, k] += a0
    x = a0 + a1
    for k in range(2 * q + 1, 3 * q + 1):
        out2[orow, k] += x
    x += a2
    for k in range(3 * q + 1, n + 1):
        out2[orow, k] += x


@inline_kernel
def _showdown_2card(
    cards: npt.NDArray[np.int32],
    valid: Array,
    order: npt.NDArray[np.int32],
    sd_row: npt.NDArray[np.int32],
    sd_src: npt.NDArray[np.uint16],
    sd_cstart: npt.NDArray[np.int32],
    sd_idx: npt.NDArray[np.uint16],
    b: Int,
    trav: Int,
    nt: Int,
    no: Int,
    nc: Int,
    amount: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
    sbuf: Array,
) -> None:
    """Showdown values for two-card hands by prefix sums (whole arrays, rows by index: see
    :func:`_fold_rows`).

    With the opponent's hands in strength order, P[k] is the reach of the k weakest; with
    them grouped by card (strength order within a card), Q's differences give each card's
    reach below any strength. The board's layout (``Boards.sd_*``, built once) holds, per
    traverser hand, how many opponent hands are weaker and not stronger overall and within
    the groups of its two cards, so

        wins − losses = P[lo] + P[hi] − P[n] − Σ_{c ∈ hand} (Q[lo_c] + Q[hi_c] − Q[s_c] − Q[e_c])

    (``s_c``, ``e_c``: the card's group). The hand with the same two cards is never strictly
    weaker or stronger, so nothing is added back. Two prefix sums and one pass over the
    traverser's hands, against two merge sweeps whose every step waited on the last.
    ``sbuf`` is (2, 2H + 1) scratch: P in row 0, Q in row 1; ``cs`` (≥ nc,)."""
    opp = 1 - trav
    row = sd_row[b]
    _prefix_sums(reach2, rrow, order, b, opp, no, sbuf, np.int64(0))
    _prefix_sums(reach2, rrow, sd_src, row, trav, 2 * no, sbuf, np.int64(1))
    for c in range(nc):
        cs[c] = sbuf[1, sd_cstart[row, trav, c]] + sbuf[1, sd_cstart[row, trav, c + 1]]
    top = sbuf[0, no]
    for h in range(nt):
        v = sbuf[0, sd_idx[row, trav, h, 0]] + sbuf[0, sd_idx[row, trav, h, 1]] - top
        v -= (
            sbuf[1, sd_idx[row, trav, h, 2]]
            + sbuf[1, sd_idx[row, trav, h, 3]]
            - cs[np.uint32(cards[trav, h, 0])]
        )
        v -= (
            sbuf[1, sd_idx[row, trav, h, 4]]
            + sbuf[1, sd_idx[row, trav, h, 5]]
            - cs[np.uint32(cards[trav, h, 1])]
        )
        out2[orow, h] = amount * v * valid[b, trav, h]


@node_kernel
def _regret_matching_block(
    R: Array, off: Int, na: Int, nh: Int, out2: Array, orow: Int, ooff: Int, tot2: Array,
    trow: Int,
) -> None:  # fmt: skip
    """out2[orow, ooff + a·nh + h] = RM(R[off + a·nh + h]) over actions a, per hand h.

    Loops run over contiguous hands (actions outer) with unsigned offsets, so they
    vectorize (a signed index compiles to gathers: Numba wraps negative indices), on whole
    arrays with rows by index (a view costs a reference-count increment and decrement).
    ``tot2[trow]`` is (nh,) scratch for the per-hand sums of positive regrets."""
    for h in range(nh):
        tot2[trow, h] = 0.0
    for a in range(na):
        base = off + a * nh
        for h in range(nh):
            r = R[np.uint64(base + h)] * 1.0
            tot2[trow, h] += r if r > 0.0 else 0.0
    u = 1.0 / na
    for a in range(na):
        base = off + a * nh
        obase = ooff + a * nh
        for h in range(nh):
            r = R[np.uint64(base + h)] * 1.0
            t = tot2[trow, h]
            out2[orow, np.uint64(obase + h)] = (r / t if r > 0.0 else 0.0) if t > 0.0 else u


@kernel
def regret_matching_all(tree: Tree, hands: Hands, regrets: Array, out: Array) -> None:
    """out ← RM(regrets) at every decision node (the current strategy of derived rules)."""
    regret_matching_pruned(tree, hands, regrets, out, np.zeros(1, dtype=np.int8))


@kernel
def regret_matching_pruned(
    tree: Tree, hands: Hands, regrets: Array, out: Array, pruned: npt.NDArray[np.int8]
) -> None:
    """:func:`regret_matching_all` where ``pruned`` (A,) marks cells that regret-based
    pruning holds at probability 0 (a (1,) array: none)."""
    tot = np.zeros(max(hands.num_hands[0], hands.num_hands[1]))
    cnt = np.zeros(tot.shape[0])
    masked = pruned.shape[0] == regrets.shape[0]
    out2 = out.reshape((1, out.shape[0]))
    tot2 = tot.reshape((1, tot.shape[0]))
    for node in range(tree.kind.shape[0]):
        if tree.kind[node] != DECISION:
            continue
        off = tree.offset[node]
        na = tree.num_children[node]
        nh = hands.num_hands[tree.player[node]]
        blk = out[off : off + na * nh]
        if masked:
            _regret_matching_masked(regrets, off, na, nh, blk, tot, cnt, pruned)
        else:
            _regret_matching_block(regrets, off, na, nh, out2, 0, off, tot2, 0)


@inline_kernel
def _add_chance_child(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    child: Int,
    trav: Int,
    nt: Int,
    value: Array,
    out: Array,
) -> None:
    """out += the chance child's values (H[trav],), hands its card blocks zeroed, plus, for
    every card it stands for by suit isomorphism, the same values with hands mapped."""
    _add_chance_rows(tree.board, tree.iso_start, tree.iso_count, tree.iso_board, tree.iso_perm,
                     hands.perm, boards.valid, child, trav, nt, value.reshape((1, value.shape[0])),
                     0, out.reshape((1, out.shape[0])), 0)  # fmt: skip


@node_kernel
def _add_chance_rows(
    board: npt.NDArray[np.int32],
    iso_start: npt.NDArray[np.int32],
    iso_count: npt.NDArray[np.int32],
    iso_board: npt.NDArray[np.int32],
    iso_perm: npt.NDArray[np.int32],
    perm: npt.NDArray[np.int32],
    valid: Array,
    child: Int,
    trav: Int,
    nt: Int,
    value2: Array,
    vrow: Int,
    out2: Array,
    orow: Int,
) -> None:
    """:func:`_add_chance_child` on the whole arrays, rows by index (see
    :func:`_fold_rows`): out2[orow] += the child's values value2[vrow]."""
    cb = board[child]
    for h in range(nt):
        out2[orow, h] += valid[cb, trav, h] * value2[vrow, h]
    for e in range(iso_start[child], iso_start[child] + iso_count[child]):
        ib = iso_board[e]
        pe = iso_perm[e]
        for h in range(nt):
            out2[orow, h] += valid[ib, trav, h] * value2[vrow, perm[pe, trav, h]]


@kernel
def _normal_hedge(x: Array, na: Int, out: Array) -> None:
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


@inline_kernel
def _regret(q: float, v: float) -> float:
    """Instantaneous regret q − v, with rounding noise snapped to 0.

    When an action's value equals the node's value in exact arithmetic, q − v comes out as a
    few ulps of either sign, and regret matching would turn that noise into a pure strategy.
    Differences below NOISE × (|q| + |v|) are set to 0 (the reference does the same)."""
    r = q - v
    if abs(r) <= NOISE * (abs(q) + abs(v)):
        return 0.0
    return r


@node_kernel
def _regret_step(co: Array) -> tuple[float, float, float, float, float, bool]:
    """The scalars of :func:`_next_regret` from a coefficient row: (pre_pos, pre_neg,
    regret weight, post_pos, post_neg, floor)."""
    return (
        co[PRE_POS], co[PRE_NEG], co[REGRET_WEIGHT], co[POST_POS], co[POST_NEG],
        co[FLOOR] != 0.0,
    )  # fmt: skip


@node_kernel
def _normalize_rows(
    sigma: Array, off: Int, blk: Array, tot2: Array, trow: Int, tcol: Int, na: Int, nt: Int
) -> None:
    """sigma[off + a·nt + h] ← blk[a·nt + h] / tot2[trow, tcol + h] (1/na where that total
    is 0): the next strategy from its non-negative weights, contiguous hands, actions outer."""
    for a in range(na):
        base = off + a * nt
        for h in range(nt):
            t = tot2[trow, np.uint64(tcol + h)]
            y = blk[np.uint64(a * nt + h)]
            sigma[np.uint64(base + h)] = y / t if t > 0.0 else 1.0 / na


@inline_kernel
def _next_regret(
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
    at 0 for RM+ rules."""
    x = old * (pre_pos if old > 0.0 else pre_neg) + rw * r
    x = x * (post_pos if x > 0.0 else post_neg)
    if floor and x < 0.0:
        x = 0.0
    return x


@node_kernel
def _update_plain(
    R: Array,
    sigma: Array,
    co: Array,
    off: Int,
    na: Int,
    nt: Int,
    AV: Array,
    VA: Array,
    row: Int,
    blk: Array,
    tot2: Array,
) -> None:
    """:func:`_update_infosets` for float storage without per-infoset statistics: action
    values ``AV[row]`` (actions, hands), node values ``VA[row]``, ``tot2[0]`` (H,) scratch.
    Loops over contiguous hands (actions outer) with unsigned offsets so they vectorize, on
    whole arrays with rows by index (see :func:`_fold_rows`). Same arithmetic."""
    pre_pos, pre_neg, rw, post_pos, post_neg, floor = _regret_step(co)
    scale = co[SCALE]
    step = co[PRED]
    for a in range(na):
        base = off + a * nt
        for h in range(nt):
            i = np.uint64(base + h)
            r = _regret(AV[row, a, h], VA[row, h])
            R[i] = _next_regret(R[i] * 1.0, r, pre_pos, pre_neg, rw, post_pos, post_neg, floor)
    if co[DERIVE] != 0.0:
        return
    for h in range(nt):
        tot2[0, h] = 0.0
    for a in range(na):
        base = off + a * nt
        for h in range(nt):
            y = R[np.uint64(base + h)] * scale
            if step != 0.0:
                y += step * _regret(AV[row, a, h], VA[row, h])
            y = y if y > 0.0 else 0.0
            blk[np.uint64(a * nt + h)] = y
            tot2[0, h] += y
    _normalize_rows(sigma, off, blk, tot2, 0, 0, na, nt)


@node_kernel
def _update_adaptive(
    R: Array,
    sigma: Array,
    LR: Array,
    SN: Array,
    SDN: Array,
    co: Array,
    off: Int,
    ioff: Int,
    na: Int,
    nt: Int,
    AV: Array,
    VA: Array,
    row: Int,
    blk: Array,
    tot2: Array,
) -> None:
    """:func:`_update_infosets` for float storage with APCFR+'s per-infoset step (``LR`` the
    last instantaneous regrets (A,), ``SN``/``SDN`` Σ‖r − m‖² and Σ‖ΔR‖² per infoset), in
    the layout of :func:`_update_plain`: loops over contiguous hands, actions outer, the
    per-hand sums in rows of ``tot2`` ((2, ≥ 2H) scratch). Same arithmetic; keeps APCFR+
    near PCFR+'s cost per iteration (the paper: 1.0–1.5×)."""
    pre_pos, pre_neg, rw, post_pos, post_neg, floor = _regret_step(co)
    scale = co[SCALE]
    pred = co[PRED]
    amax = co[ALPHA_MAX]
    nt_ = np.uint64(nt)
    for h in range(nt):
        tot2[0, h] = 0.0  # Σ_a (r − m)²
        tot2[0, nt_ + h] = 0.0  # Σ_a (ΔR)²
    for a in range(na):
        base = off + a * nt
        for h in range(nt):
            i = np.uint64(base + h)
            r = _regret(AV[row, a, h], VA[row, h])
            old = R[i] * 1.0
            x = _next_regret(old, r, pre_pos, pre_neg, rw, post_pos, post_neg, floor)
            R[i] = x
            d = r - LR[i]
            tot2[0, h] += d * d
            e = x - old
            tot2[0, nt_ + h] += e * e
            LR[i] = r
    for h in range(nt):
        j = np.uint64(ioff + h)
        SN[j] += tot2[0, h]
        SDN[j] += tot2[0, nt_ + h]
        den = SDN[j]
        alpha = min(math.sqrt(SN[j] / den), amax) if den > 0.0 else amax
        tot2[1, h] = pred / (1.0 + alpha)  # the step on the prediction
        tot2[1, nt_ + h] = 0.0  # Σ_a of the next strategy's weights
    for a in range(na):
        base = off + a * nt
        for h in range(nt):
            y = R[np.uint64(base + h)] * scale
            y += tot2[1, h] * _regret(AV[row, a, h], VA[row, h])
            y = y if y > 0.0 else 0.0
            blk[np.uint64(a * nt + h)] = y
            tot2[1, nt_ + h] += y
    _normalize_rows(sigma, off, blk, tot2, 1, nt, na, nt)


@inline_kernel
def _update_node(
    st: Storage,
    R: Array,
    sigma: Array,
    quant: bool,
    co: Array,
    off: Int,
    ioff: Int,
    na: Int,
    nt: Int,
    AV: Array,
    VA: Array,
    row: Int,
    tmp: Array,
    node: Int,
    blk: Array,
    tot2: Array,
) -> None:
    """The rule's update at one of the traverser's decision nodes (values in ``AV[row]``,
    ``VA[row]``): :func:`_update_plain` for float storage without per-infoset statistics,
    else :func:`_update_infosets`."""
    if not quant and co[ADAPTIVE] == 0.0 and co[NORMAL_HEDGE] == 0.0:
        _update_plain(R, sigma, co, off, na, nt, AV, VA, row, blk, tot2)
    elif not quant and co[NORMAL_HEDGE] == 0.0:
        _update_adaptive(R, sigma, st.last_regret, st.step_num, st.step_den, co, off, ioff, na,
                         nt, AV, VA, row, blk, tot2)  # fmt: skip
    else:
        _update_infosets(st, co, off, ioff, na, nt, AV[row], VA[row], tmp, node, blk, tot2[0])


@inline_kernel
def _update_infosets(
    st: Storage,
    co: Array,
    off: Int,
    ioff: Int,
    na: Int,
    nt: Int,
    av: Array,
    out: Array,
    tmp: Array,
    node: Int,
    blk: Array,
    tot: Array,
) -> None:
    """Apply the rule to every hand's infoset at one decision node (16-bit storage or
    per-infoset statistics; the plain case is :func:`_update_plain`, see :func:`_update_node`).

    ``av`` is (actions, hands) action values, ``out`` the node values under the strategy
    just played. Updates regrets, then the next strategy, in place. With compressed storage
    the new regrets go to ``blk`` first and are quantized once the block's largest is known.
    """
    pre_pos, pre_neg, rw, post_pos, post_neg, floor = _regret_step(co)
    scale = co[SCALE]
    pred = co[PRED]
    adaptive = co[ADAPTIVE] != 0.0
    nh = co[NORMAL_HEDGE] != 0.0
    derive = co[DERIVE] != 0.0
    R = st.regrets
    sigma = st.strategy
    quant = st.quantized != 0
    if quant and derive:  # 16-bit regrets of a plain regret-matching rule
        unit = st.rscale[node]
        for a in range(na):
            base = off + a * nt
            for h in range(nt):
                r = _regret(av[a, h], out[h])
                blk[a * nt + h] = _next_regret(
                    R[base + h] * unit, r, pre_pos, pre_neg, rw, post_pos, post_neg, floor
                )
        _quantize(blk, na * nt, R, off, st.rscale, node, 32767.0)
        return
    unit = st.rscale[node] if quant else 1.0
    for h in range(nt):
        v = out[h]
        mnorm = 0.0
        dnorm = 0.0
        for a in range(na):
            i = off + a * nt + h
            r = _regret(av[a, h], v)
            old = R[i] * unit
            x = _next_regret(old, r, pre_pos, pre_neg, rw, post_pos, post_neg, floor)
            if quant:
                blk[a * nt + h] = x
            else:
                R[i] = x
            if adaptive:
                d = r - st.last_regret[i]
                mnorm += d * d
                e = x - old
                dnorm += e * e
                st.last_regret[i] = r
        step = pred
        if adaptive:
            st.step_num[ioff + h] += mnorm
            st.step_den[ioff + h] += dnorm
            den = st.step_den[ioff + h]
            amax = co[ALPHA_MAX]
            alpha = amax
            if den > 0.0:
                alpha = min(math.sqrt(st.step_num[ioff + h] / den), amax)
            step = pred / (1.0 + alpha)
        total = 0.0
        for a in range(na):
            i = off + a * nt + h
            y = (blk[a * nt + h] if quant else R[i]) * scale
            if step != 0.0:
                y += step * _regret(av[a, h], v)
            y = y if y > 0.0 else 0.0
            tmp[a] = y
            total += y
        if derive:
            continue
        if nh:
            _normal_hedge(tmp, na, tmp)
            for a in range(na):
                sigma[off + a * nt + h] = tmp[a]
        elif total > 0.0:
            for a in range(na):
                sigma[off + a * nt + h] = tmp[a] / total
        else:
            for a in range(na):
                sigma[off + a * nt + h] = 1.0 / na
    if quant:
        _quantize(blk, na * nt, R, off, st.rscale, node, 32767.0)


@inline_kernel
def _quantize(
    blk: Array, n: Int, dest: Array, off: Int, scales: Array, node: Int, levels: float
) -> None:
    """dest[off : off + n] ← blk[:n] in integer units of (largest |blk|) / levels."""
    m = 0.0
    for k in range(n):
        m = max(m, abs(blk[k]))
    unit = m / levels if m > 0.0 else 1.0
    scales[node] = unit
    inv = 1.0 / unit
    for k in range(n):  # round half up; |blk·inv| ≤ levels, so the integer type holds it
        dest[off + k] = math.floor(blk[k] * inv + 0.5)


@inline_kernel
def _skips_zero_reach(mode: Int, co: Array) -> bool:
    """Whether a pass skips subtrees the opponent reaches with zero probability: always when
    evaluating (their values are 0), in CFR passes when partial pruning is on."""
    return mode in (MODE_BR, MODE_EVAL) or co[PRUNE] != 0.0


@inline_kernel
def _zero_update_is_noop(co: Array) -> bool:
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


@kernel
def _zero_update(
    tree: Tree,
    hands: Hands,
    root: int,
    trav: int,
    co: Array,
    st: Storage,
    sc: Scratch,
    row: int,
) -> int:
    """The CFR update of ``trav``'s pass over the subtree of ``root`` when the opponent's
    reach there is zero: every counterfactual value is 0, so the traverser's infosets get
    the rule's update with zero regrets (discounts, the next strategy) and the opponent's
    strategy sums only their decay. Bit for bit what the full walk would do, at the cost of
    one sweep over the subtree's storage. Scratch rows from ``row`` down are free; returns
    the decision nodes updated."""
    nt = hands.num_hands[trav]
    no = hands.num_hands[1 - trav]
    AV = sc.action_value
    VA = sc.value
    AV[row, :, :nt] = 0.0
    VA[row, :nt] = 0.0
    R = st.regrets
    STRAT = st.strategy
    quant = st.quantized != 0
    TMP = sc.tmp
    BLK = sc.blk
    SD = sc.sd
    stack = sc.stack
    nxt = sc.next_child
    d = row
    stack[d] = root
    nxt[d] = 0
    count = 0
    while d >= row:
        node = stack[d]
        k = nxt[d]
        if k == 0 and tree.kind[node] == DECISION:
            count += 1
            off = tree.offset[node]
            na = tree.num_children[node]
            if tree.player[node] == trav:
                _update_node(st, R, STRAT, quant, co, off, tree.ioffset[node], na, nt, AV, VA,
                             row, TMP, node, BLK, SD)  # fmt: skip
            else:
                _decay_sums(st, off, na * no, co[DECAY], node, BLK)
        fc = tree.first_child[node]
        if fc >= 0 and k < tree.num_children[node]:
            child = fc + k
            nxt[d] = k + 1
            if tree.kind[child] == DECISION or tree.kind[child] == CHANCE:
                d += 1
                stack[d] = child
                nxt[d] = 0
            continue
        d -= 1
    return count


@inline_kernel
def _decay_sums(st: Storage, off: int, n: int, decay: float, node: int, blk: Array) -> None:
    """Strategy sums of one decision node's block when the owner's reach is zero: S·decay."""
    S = st.cumulative
    if st.quantized != 0:
        unit = st.sscale[node]
        for i in range(n):
            blk[i] = S[off + i] * unit * decay
        _quantize(blk, n, S, off, st.sscale, node, 65535.0)
    else:
        for i in range(n):
            S[off + i] = S[off + i] * decay


@inline_kernel
def _has_pruned(pruned: npt.NDArray[np.int8], off: int, n: int) -> bool:
    """Whether any cell of a node's ``[action, hand]`` block (``n`` cells at ``off``) is
    pruned (regret-based pruning)."""
    for i in range(off, off + n):  # noqa: SIM110 (Numba has no any() of a generator)
        if pruned[i] != 0:
            return True
    return False


@inline_kernel
def _regret_matching_masked(
    R: Array, off: int, na: int, nh: int, out: Array, tot: Array, cnt: Array,
    pruned: npt.NDArray[np.int8],
) -> None:  # fmt: skip
    """:func:`_regret_matching_block` where a pruned cell (action a for hand h) plays with
    probability 0: regret matching over each hand's other actions, uniform over them when
    none has positive regret. ``tot`` and ``cnt`` are (nh,) scratch."""
    for h in range(nh):
        tot[h] = 0.0
        cnt[h] = 0.0
    for a in range(na):
        base = off + a * nh
        for h in range(nh):
            if pruned[base + h] == 0:
                r = R[base + h] * 1.0
                tot[h] += r if r > 0.0 else 0.0
                cnt[h] += 1.0
    for a in range(na):
        base = off + a * nh
        for h in range(nh):
            if pruned[base + h] != 0:
                out[a * nh + h] = 0.0
                continue
            r = R[base + h] * 1.0
            t = tot[h]
            out[a * nh + h] = (r / t if r > 0.0 else 0.0) if t > 0.0 else 1.0 / cnt[h]


@inline_kernel
def _request_catchup(st: Storage, child: int, hand: int) -> None:
    """Ask the engine to end the pruning of ``child`` for ``hand`` (-1: every hand) before
    the next iteration: ``ctl`` = [count, child, hand, child, hand, ...]."""
    n = st.ctl[0]
    if 2 * n + 2 < st.ctl.shape[0]:
        st.ctl[2 * n + 1] = child
        st.ctl[2 * n + 2] = hand
        st.ctl[0] = n + 1


@inline_kernel
def _rbp_node(
    hands: Hands,
    boards: Boards,
    tree: Tree,
    st: Storage,
    co: Array,
    node: int,
    trav: int,
    RE: Array,
    r0: int,
    value: Array,
    live: Array,
    sc: Scratch,
) -> None:
    """Regret-based pruning at one of the traverser's decision nodes after its update (a
    pruned cell's regret holds its bound; see :mod:`solver.cfr.pruning`). Hands with
    ``live[h]`` = 0 sit inside a subtree pruned for them higher up: frozen.

    Total RBP (per cell): adds w_t × the node values to Σ_t w_t·v^t(I) and w_t·π^t(I)·U(I,a)
    to each pruned cell's bound W_{t₀}·CBV(I,a) + Σ_t w_t·π^t(I)·U(I,a), with w_t the
    average strategy's weight (``co[AVG_WEIGHT]``: 1 for CFR, t for CFR+). Interval RBP
    (per action, every hand): adds w_t·(π^t(I)·U(I,a) − v^t(I)) to the bound R^{t₀}(I,a) + …
    and w_t × the opponent reach to the action's window, and starts a window for an action
    whose regret is negative enough for every hand (a ``margin`` of iterations at the
    largest reach) while another action keeps a positive regret. A cell whose bound no
    longer holds — Total RBP's condition (9), bound > Σ_t w_t·v^t(I); interval RBP's
    bound > 0 — may have positive regret now, so its catch-up is requested before the next
    iteration (this iteration's skip was sound: the cell played with probability 0, decided
    by the bound one iteration ago)."""
    off = tree.offset[node]
    ioff = tree.ioffset[node]
    fc = tree.first_child[node]
    na = tree.num_children[node]
    nt = hands.num_hands[trav]
    no = hands.num_hands[1 - trav]
    b = tree.board[node]
    valid = boards.valid[b, trav]
    R = st.regrets
    P = st.pruned
    total = co[PRUNE] == PRUNE_TOTAL
    starts = not total and co[NOSTART] == 0.0
    wv = co[AVG_WEIGHT]  # Total RBP sums values with the average's weights (1 for CFR)
    if total:
        for h in range(nt):
            if live[h] != 0.0:
                st.vsum[ioff + h] += wv * value[h]
    if not starts and not _has_pruned(P, off, na * nt):
        return
    _fold_values(hands, boards, b, trav, 1.0, RE, r0, sc.pi, np.int64(0), sc.card_sum)
    pi = sc.pi[0]
    low = st.lmin[node]
    w = co[REGRET_WEIGHT]
    margin = max(co[MARGIN], 1.0)
    for k in range(na):
        c = fc + k
        up = st.umax[c]
        base = off + k * nt
        if total:
            for h in range(nt):
                if P[base + h] == 0 or live[h] == 0.0 or valid[h] == 0.0:
                    continue
                x = R[base + h] + wv * pi[h] * up
                R[base + h] = x
                if x > st.vsum[ioff + h]:
                    _request_catchup(st, c, h)
        elif st.win_slot[c] >= 0:
            slot = st.win_slot[c]
            for j in range(no):
                st.win[slot, j] += w * RE[r0, j]
            ok = True
            for h in range(nt):
                if valid[h] == 0.0:
                    continue
                x = R[base + h] + w * (pi[h] * up - value[h])
                R[base + h] = x
                if x > 0.0:
                    ok = False
            if not ok:
                _request_catchup(st, c, -1)
        elif starts and st.free[0] > 0:
            ok = True
            for h in range(nt):
                if valid[h] == 0.0:
                    continue
                x = R[base + h]
                if not (x < 0.0 and x + margin * w * st.pimax[ioff + h] * (up - low) <= 0.0):
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
                n = st.free[0]
                slot = st.free[n]
                st.free[0] = n - 1
                st.win_slot[c] = slot
                for j in range(no):
                    st.win[slot, j] = 0.0
                for h in range(nt):
                    P[base + h] = 1


@inline_kernel
def _draw_child(tree: Tree, node: int, u: float) -> tuple[int, float]:
    """Chance sampling: the child of chance node ``node`` that the uniform draw ``u`` picks,
    with probability ∝ its chance weight × the cards it stands for (itself and its suit
    isomorphic images); returns (child index, probability)."""
    fc = tree.first_child[node]
    na = tree.num_children[node]
    total = 0.0
    for k in range(na):
        c = fc + k
        total += (1.0 + tree.iso_count[c]) * tree.chance_weight[c]
    target = u * total
    acc = 0.0
    pick = na - 1
    for k in range(na):
        c = fc + k
        acc += (1.0 + tree.iso_count[c]) * tree.chance_weight[c]
        if target < acc:
            pick = k
            break
    c = fc + pick
    return pick, (1.0 + tree.iso_count[c]) * tree.chance_weight[c] / total


@kernel
def _traverse(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    start: Int,
    trav: int,
    mode: Int,
    sigma: Array,
    st: Storage,
    co: Array,
    sc: Scratch,
    lv: Leaves,
    leaf_mode: Int,
) -> int:
    """One depth-first pass for ``trav`` over the subtree of node ``start``.

    Input: the opponent's reach at ``start`` in ``sc.reach[0, :H[opp]]``. Output: ``trav``'s
    counterfactual values at ``start`` in ``sc.value[0, :H[trav]]``. Returns the number of
    nodes visited. With ``leaf_mode`` = ``LEAF_TASKS``, ``start`` is a thread instead and
    the walk runs that thread's tasks one after another (see :class:`Leaves`). The walk
    keeps an explicit stack (one row of the scratch buffers per depth) instead of
    recursing: a Numba call per node costs more than Leduc's whole node.
    """
    opp = 1 - trav
    nt = hands.num_hands[trav]
    no = hands.num_hands[opp]
    stack = sc.stack
    nxt = sc.next_child
    rrow = sc.reach_row
    RE = sc.reach
    VA = sc.value
    AV = sc.action_value
    valid = boards.valid
    two_card = hands.cards[0, 0, 1] >= 0 and hands.cards[1, 0, 1] >= 0
    cfr_pass = mode in (MODE_UPDATE, MODE_REACH)
    derive = cfr_pass and co[DERIVE] != 0.0
    skip_zero = _skips_zero_reach(mode, co)
    zero_noop = _zero_update_is_noop(co)
    rbp = cfr_pass and co[PRUNE] >= PRUNE_INTERVAL
    sampled = cfr_pass and co[SAMPLE] != 0.0
    record = mode == MODE_BR and co[RECORD] != 0.0
    SG = sc.strat
    # Fields read once: every read of a NamedTuple field (and every row view) inside the
    # walk is an atomic reference-count increment and decrement — ~10 % of T1's time, and
    # a cache line the threads of a parallel pass fight over.
    R = st.regrets
    S = st.cumulative
    STRAT = st.strategy
    quant = st.quantized != 0
    CQ = sc.cq
    CL = sc.clevel
    SD = sc.sd
    CS = sc.card_sum
    BLK = sc.blk
    TMP = sc.tmp
    hcards = hands.cards
    hsame = hands.same
    border = boards.order
    sd_row = boards.sd_row
    sd_src = boards.sd_src
    sd_cstart = boards.sd_cstart
    sd_idx = boards.sd_idx
    nc = hands.num_cards
    brank = boards.rank
    CS2 = sc.card_sum2
    hperm = hands.perm
    t_board = tree.board
    t_iso_start = tree.iso_start
    t_iso_count = tree.iso_count
    t_iso_board = tree.iso_board
    t_iso_perm = tree.iso_perm
    t_kind = tree.kind
    t_player = tree.player
    t_payoff = tree.payoff
    t_offset = tree.offset
    t_ioffset = tree.ioffset
    t_nchild = tree.num_children
    t_first = tree.first_child
    t_weight = tree.chance_weight
    t_runout = tree.runout
    lv_slot = lv.slot
    PR = st.pruned
    LIVE = sc.live
    touched = 0
    tasks = leaf_mode == LEAF_TASKS  # start is a thread: walk its tasks one by one
    ti = 0
    if tasks:
        ti, touched = _next_task(tree, hands, boards, lv, start, 0, trav, mode, co, st, sc)
        if ti < 0:
            return touched
        leaf_mode = LEAF_OFF  # nothing below a task is slotted
    d = 0
    stack[0] = lv.task_node[lv.assign[start, ti]] if tasks else start
    nxt[0] = -1
    rrow[0] = 0
    CL[0] = 0
    while True:
        node = stack[d]
        kind = t_kind[node]
        done = False
        if nxt[d] < 0:  # entering the node
            touched += 1
            b = t_board[node]
            if leaf_mode != LEAF_OFF and lv_slot[node] >= 0:
                slot = lv_slot[node]
                if leaf_mode == LEAF_COLLECT:
                    r0 = rrow[d]
                    for j in range(no):
                        lv.reach[slot, j] = RE[r0, j]
                    for h in range(nt):
                        VA[d, h] = 0.0
                else:
                    for h in range(nt):
                        VA[d, h] = lv.value[slot, h]
                done = True
            elif kind == FIXED:
                u = t_payoff[node] if trav == 0 else -t_payoff[node]
                _fold_rows(hcards, hsame, valid, b, trav, no, nt, nc, u, RE, rrow[d], VA, d, CS)
                done = True
            elif kind == RUNOUT:
                eq = boards.runout_eq[t_runout[node], trav]
                amount = t_payoff[node]
                r0 = rrow[d]
                for h in range(nt):
                    acc = 0.0
                    for j in range(no):
                        acc += eq[h, j] * RE[r0, j]
                    VA[d, h] = amount * acc
                done = True
            elif kind != DECISION and kind != CHANCE:
                amount = t_payoff[node]
                if two_card:
                    _showdown_2card(hcards, valid, border, sd_row, sd_src, sd_cstart, sd_idx,
                                    b, trav, nt, no, nc, amount, RE, rrow[d], VA, d, CS,
                                    SD)  # fmt: skip
                else:
                    _showdown_generic(hcards, border, brank, b, trav, nt, no, valid, amount, RE,
                                      rrow[d], VA, d, CS, CS2)  # fmt: skip
                done = True
            else:
                nxt[d] = 0
                if kind == CHANCE or t_player[node] != trav:
                    for h in range(nt):
                        VA[d, h] = 0.0
                if kind == CHANCE:
                    CQ[d] = 1.0
                    if sampled:  # draw one card (one canonical child) for this pass
                        u = co[CHANCE_U + 2 * trav + min(CL[d], 1)]
                        kc, q = _draw_child(tree, node, u)
                        nxt[d] = kc
                        CQ[d] = 1.0 / q
                elif derive:
                    off = t_offset[node]
                    na = t_nchild[node]
                    nh = hands.num_hands[t_player[node]]
                    if rbp and _has_pruned(PR, off, na * nh):
                        _regret_matching_masked(R, off, na, nh, SG[d], sc.sd[0],
                                                sc.sd[1], PR)  # fmt: skip
                    else:
                        _regret_matching_block(R, off, na, nh, SG, d, 0, SD, 0)
        if not done:
            k = nxt[d]
            na = t_nchild[node]
            if k < na:
                child = t_first[node] + k
                r0 = rrow[d]
                mass = 1.0  # total opponent reach entering the child (> 0 when unchanged)
                CL[d + 1] = CL[d] + (1 if kind == CHANCE else 0)
                if kind == CHANCE:
                    cb = t_board[child]
                    w = t_weight[child] * CQ[d]
                    nz = False  # as at the opponent's nodes: an or-reduction, not a float sum
                    for j in range(no):
                        x = RE[r0, j] * w * valid[cb, opp, j]
                        RE[d + 1, j] = x
                        nz |= x != 0.0
                    mass = 1.0 if nz else 0.0
                    rrow[d + 1] = d + 1
                elif t_player[node] == trav:
                    if rbp:  # the hands still playing the action (not pruned here or above)
                        base = t_offset[node] + k * nt
                        alive = 0.0
                        for h in range(nt):
                            x = LIVE[d, h] * (1.0 - PR[base + h])
                            LIVE[d + 1, h] = x
                            alive += x * valid[t_board[node], trav, h]
                        if alive == 0.0:  # pruned for every hand: not walked
                            for h in range(nt):
                                AV[d, k, h] = 0.0
                            nxt[d] = k + 1
                            continue
                    rrow[d + 1] = r0
                else:
                    # mass: 1.0 if any product is non-zero (the entries are ≥ 0, so whether
                    # their sum is; an or-reduction vectorizes where a float sum would not)
                    nz = False
                    if derive:
                        base = k * no
                        for j in range(no):
                            x = RE[r0, j] * SG[d, np.uint64(base + j)]
                            RE[d + 1, j] = x
                            nz |= x != 0.0
                    else:
                        base = t_offset[node] + k * no
                        for j in range(no):
                            x = RE[r0, j] * sigma[np.uint64(base + j)]
                            RE[d + 1, j] = x
                            nz |= x != 0.0
                    mass = 1.0 if nz else 0.0
                    rrow[d + 1] = d + 1
                if mass == 0.0 and skip_zero:
                    # the opponent never reaches the child: every value below is 0
                    if mode == MODE_UPDATE and not zero_noop:
                        touched += _zero_update(tree, hands, child, trav, co, st, sc, d + 1)
                    nxt[d] = na if (kind == CHANCE and sampled) else k + 1
                    continue
                if rbp and (kind == CHANCE or t_player[node] != trav):
                    for h in range(nt):
                        LIVE[d + 1, h] = LIVE[d, h]
                d += 1
                stack[d] = child
                nxt[d] = -1
                continue
            # all children done: finish the node
            if kind == DECISION:
                off = t_offset[node]
                if t_player[node] == trav:
                    if mode == MODE_BR:
                        for h in range(nt):
                            best = AV[d, 0, h]
                            for a in range(1, na):
                                if AV[d, a, h] > best:
                                    best = AV[d, a, h]
                            VA[d, h] = best
                    else:
                        for h in range(nt):
                            VA[d, h] = 0.0
                        for a in range(na):
                            if derive:
                                base = a * nt
                                for h in range(nt):
                                    VA[d, h] += SG[d, np.uint64(base + h)] * AV[d, a, h]
                            else:
                                base = off + a * nt
                                for h in range(nt):
                                    VA[d, h] += sigma[np.uint64(base + h)] * AV[d, a, h]
                    if mode == MODE_UPDATE:
                        if rbp:  # pruned cells hold bounds, frozen hands keep theirs
                            saved = SG[d + 1]
                            for i in range(na * nt):
                                saved[i] = R[off + i]
                        _update_node(st, R, STRAT, quant, co, off, t_ioffset[node], na, nt, AV,
                                     VA, d, TMP, node, BLK, SD)  # fmt: skip
                        if rbp:
                            for a in range(na):
                                base = off + a * nt
                                for h in range(nt):
                                    if PR[base + h] != 0 or LIVE[d, h] == 0.0:
                                        R[base + h] = saved[a * nt + h]
                            _rbp_node(hands, boards, tree, st, co, node, trav, RE, rrow[d],
                                      VA[d], LIVE[d], sc)  # fmt: skip
                    elif record:
                        ioff = t_ioffset[node]
                        for a in range(na):
                            for h in range(nt):
                                st.cbv[off + a * nt + h] = AV[d, a, h]
                        _fold_values(hands, boards, t_board[node], trav, 1.0, RE, rrow[d],
                                     sc.pi, 0, sc.card_sum)  # fmt: skip
                        for h in range(nt):
                            st.cbv_node[ioff + h] = VA[d, h]
                            st.reach_mass[ioff + h] = sc.pi[0, h]
                elif mode == MODE_UPDATE:
                    decay = co[DECAY]
                    w = co[AVG_WEIGHT]
                    r0 = rrow[d]
                    unit = st.sscale[node] if quant else 1.0
                    blk = BLK
                    for a in range(na):
                        base = off + a * no
                        sb = a * no
                        if quant:  # into blk (float64), S in chips
                            for j in range(no):
                                ix = np.uint64(base + j)
                                p_a = SG[d, np.uint64(sb + j)] if derive else sigma[ix]
                                blk[np.uint64(sb + j)] = S[ix] * unit * decay + w * RE[r0, j] * p_a
                        elif derive:
                            for j in range(no):
                                ix = np.uint64(base + j)
                                S[ix] = S[ix] * decay + w * RE[r0, j] * SG[d, np.uint64(sb + j)]
                        else:
                            for j in range(no):
                                ix = np.uint64(base + j)
                                S[ix] = S[ix] * decay + w * RE[r0, j] * sigma[ix]
                    if quant:
                        _quantize(sc.blk, na * no, S, off, st.sscale, node, 65535.0)
        # the node at depth d is finished: hand its values to the parent
        if d == 0:
            if not tasks:
                return touched
            k = lv.assign[start, ti]
            for h in range(nt):
                lv.task_value[k, h] = VA[0, h]
            ti, z = _next_task(tree, hands, boards, lv, start, ti + 1, trav, mode, co, st, sc)
            touched += z
            if ti < 0:
                return touched
            stack[0] = lv.task_node[lv.assign[start, ti]]
            nxt[0] = -1
            continue
        parent = stack[d - 1]
        k = nxt[d - 1]
        if t_kind[parent] == CHANCE:
            _add_chance_rows(t_board, t_iso_start, t_iso_count, t_iso_board, t_iso_perm,
                             hperm, valid, stack[d], trav, nt, VA, d, VA, d - 1)  # fmt: skip
            if sampled:  # the one child drawn stands for them all
                k = t_nchild[parent] - 1
        elif t_player[parent] == trav:
            for h in range(nt):
                AV[d - 1, k, h] = VA[d, h]
        else:
            for h in range(nt):
                VA[d - 1, h] += VA[d, h]
        nxt[d - 1] = k + 1
        d -= 1


class Parallel(NamedTuple):
    """Work split for running a pass on several threads (see :func:`_pass`).

    The first chance nodes below the root are cut out (``leaves``); each of their children
    is a task (``leaves.task_slot``: the chance node's slot, ``leaves.task_node``: the
    child) run on one of ``threads`` threads with its own scratch (``scratch``: every field
    with a leading thread axis). ``threads`` = 1 or no task: the plain serial walk."""

    threads: int
    leaves: Leaves
    scratch: Scratch  # fields with a leading (threads,) axis

    @property
    def task_node(self) -> npt.NDArray[np.int32]:
        return self.leaves.task_node


@kernel
def _pass(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    trav: int,
    mode: Int,
    sigma: Array,
    st: Storage,
    co: Array,
    sc: Scratch,
    par: Parallel,
) -> int:
    """A whole serial pass for ``trav`` from the root (reach in ``sc.reach[0]``, values out
    in ``sc.value[0]``)."""
    if co[PRUNE] >= PRUNE_INTERVAL:
        sc.live[0, :] = 1.0
    return _traverse(
        tree,
        hands,
        boards,
        np.int64(0),
        trav,
        mode,
        sigma,
        st,
        co,
        sc,
        par.leaves,
        np.int64(LEAF_OFF),
    )


@kernel
def pass_collect(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    trav: int,
    mode: int,
    sigma: Array,
    st: Storage,
    co: Array,
    sc: Scratch,
    par: Parallel,
) -> None:
    """Parallel pass, step 1: the upper tree only, storing the opponent reach arriving at
    each cut chance node (zero where the walk does not get there); nothing is updated."""
    par.leaves.reach[:, :] = 0.0
    _root_reach(hands, 1 - trav, sc.reach[0])
    step = MODE_REACH if mode == MODE_UPDATE else mode
    _traverse(
        tree, hands, boards, np.int64(0), trav, step, sigma, st, co, sc, par.leaves,
        np.int64(LEAF_COLLECT),
    )  # fmt: skip


@kernel
def pass_finish(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    trav: int,
    mode: int,
    sigma: Array,
    st: Storage,
    co: Array,
    sc: Scratch,
    par: Parallel,
) -> int:
    """Parallel pass, step 3 (after :func:`thread_tasks` on every thread): sum each cut
    chance node's children in a fixed order, then walk the upper tree again with those
    values, doing its updates. The result equals the serial pass bit for bit."""
    lv = par.leaves
    nt = hands.num_hands[trav]
    lv.value[:, :] = 0.0
    for k in range(lv.task_node.shape[0]):
        slot = lv.task_slot[k]
        _add_chance_child(
            tree, hands, boards, lv.task_node[k], trav, nt, lv.task_value[k], lv.value[slot]
        )
    _root_reach(hands, 1 - trav, sc.reach[0])
    return _traverse(
        tree, hands, boards, np.int64(0), trav, mode, sigma, st, co, sc, lv, np.int64(LEAF_USE)
    )


@kernel
def subtree_costs(tree: Tree, hands: Hands, parents: npt.NDArray[np.int64]) -> Array:
    """(N,): a pass's work in each node's subtree, in hand-cells: actions × the actor's
    hands at decision nodes, both players' hands at the others (parents come first)."""
    n = tree.kind.shape[0]
    cost = np.zeros(n)
    both = float(hands.num_hands[0] + hands.num_hands[1])
    for v in range(n):
        if tree.kind[v] == DECISION:
            cost[v] = tree.num_children[v] * hands.num_hands[tree.player[v]]
        else:
            cost[v] = both
    for v in range(n - 1, 0, -1):
        cost[parents[v]] += cost[v]
    return cost


@kernel
def thread_tasks(
    t: int,
    tree: Tree,
    hands: Hands,
    boards: Boards,
    trav: int,
    mode: int,
    sigma: Array,
    st: Storage,
    co: Array,
    par: Parallel,
) -> int:
    """Parallel pass, step 2, run by thread ``t`` (the kernel releases the GIL): the
    thread's tasks (``par.leaves.assign[t]``) with its own scratch, in one walk (a kernel
    call per task cost ~1.2 µs of reference counting for its ~70 array arguments: ~0.8 ms
    of a T1 iteration's 10)."""
    ps = par.scratch
    sct = Scratch(
        ps.reach[t],
        ps.value[t],
        ps.action_value[t],
        ps.card_sum[t],
        ps.card_sum2[t],
        ps.tmp[t],
        ps.stack[t],
        ps.next_child[t],
        ps.reach_row[t],
        ps.sd[t],
        ps.strat[t],
        ps.blk[t],
        ps.cq[t],
        ps.clevel[t],
        ps.pi[t],
        ps.live[t],
    )
    return _traverse(
        tree, hands, boards, np.int64(t), trav, mode, sigma, st, co, sct, par.leaves,
        np.int64(LEAF_TASKS),
    )  # fmt: skip


@node_kernel
def _next_task(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    lv: Leaves,
    t: Int,
    i: Int,
    trav: int,
    mode: Int,
    co: Array,
    st: Storage,
    sc: Scratch,
) -> tuple[int, int]:
    """From position ``i`` of thread ``t``'s task list: the first task the opponent
    reaches, its reach (chance weight and card removal applied) put in ``sc.reach[0]``;
    returns (its position or -1, the nodes touched on the way). A task the opponent does
    not reach is skipped as the serial walk skips it — values 0, and the zero update when
    its chance node was reached (else the upper walk's covers it)."""
    opp = 1 - trav
    no = hands.num_hands[opp]
    nt = hands.num_hands[trav]
    skip_zero = _skips_zero_reach(mode, co)
    touched = 0
    RE = sc.reach
    while i < lv.assign.shape[1] and lv.assign[t, i] >= 0:
        k = lv.assign[t, i]
        node = lv.task_node[k]
        slot = lv.task_slot[k]
        w = tree.chance_weight[node]
        cb = tree.board[node]
        arrived = 0.0
        mass = 0.0
        for j in range(no):
            r = lv.reach[slot, j]
            arrived += r
            x = r * w * boards.valid[cb, opp, j]
            RE[0, j] = x
            mass += x
        if not (mass == 0.0 and skip_zero):
            return int(i), touched
        if mode == MODE_UPDATE and arrived > 0.0 and not _zero_update_is_noop(co):
            touched += _zero_update(tree, hands, node, trav, co, st, sc, 1)
        for h in range(nt):
            lv.task_value[k, h] = 0.0
        i += 1
    return -1, touched


@kernel
def _root_reach(hands: Hands, player: int, out: Array) -> None:
    n = hands.num_hands[player]
    for j in range(n):
        out[j] = hands.norm * hands.weights[player, j]


@kernel
def run_iterations(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    st: Storage,
    coefs: Array,
    sc: Scratch,
    par: Parallel,
    done: npt.NDArray[np.int64],
) -> int:
    """Run up to ``coefs.shape[0]`` CFR iterations (alternating: player 0 then player 1).

    ``coefs[k]`` holds the rule's scalars for the k-th iteration of the chunk. Updates
    ``st`` in place. Returns the number of nodes visited; ``done[0]`` says how many
    iterations ran (fewer when regret-based pruning asks for a catch-up, see ``Storage.ctl``).
    """
    touched = 0
    done[0] = 0
    for k in range(coefs.shape[0]):
        co = coefs[k]
        for trav in range(2):
            _root_reach(hands, 1 - trav, sc.reach[0])
            touched += _pass(
                tree, hands, boards, trav, np.int64(MODE_UPDATE), st.strategy, st, co, sc, par
            )
        done[0] = k + 1
        if co[PRUNE] >= PRUNE_INTERVAL and st.ctl[0] > 0:
            break  # a pruned action must be caught up before the next iteration
    return touched


@kernel
def root_values(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    sigma: Array,
    trav: int,
    mode: int,
    st: Storage,
    co: Array,
    sc: Scratch,
    par: Parallel,
) -> Array:
    """Counterfactual values (H[trav],) of ``trav`` at the root when both play ``sigma``
    (``MODE_EVAL``) or ``trav`` best-responds to the opponent's part of it (``MODE_BR``).

    Values are already weighted by the chance of each deal; the player's expected value is
    ``Σ_h weights[trav, h] · values[h]``."""
    _root_reach(hands, 1 - trav, sc.reach[0])
    _pass(tree, hands, boards, trav, mode, sigma, st, co, sc, par)
    return sc.value[0, : hands.num_hands[trav]].copy()


@kernel
def subtree_values(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    node: int,
    opp_reach: Array,
    sigma: Array,
    trav: int,
    mode: int,
    st: Storage,
    co: Array,
    sc: Scratch,
) -> Array:
    """Counterfactual values (H[trav],) of ``trav`` at ``node`` given the opponent's reach
    there (``opp_reach``, (H[opp],), chance and card removal included), both playing
    ``sigma`` below it (``MODE_EVAL``) or ``trav`` best-responding (``MODE_BR``)."""
    no = hands.num_hands[1 - trav]
    for j in range(no):
        sc.reach[0, j] = opp_reach[j]
    _traverse(
        tree, hands, boards, node, trav, mode, sigma, st, co, sc, no_leaves(), np.int64(LEAF_OFF)
    )
    return sc.value[0, : hands.num_hands[trav]].copy()


@kernel
def normalize_strategy(tree: Tree, hands: Hands, cumulative: Array, out: Array) -> None:
    """out ← cumulative normalised per (decision node, hand); uniform where the sum is 0.

    Loops over contiguous hands on row views (actions outer), as in regret matching."""
    tot = np.zeros(max(hands.num_hands[0], hands.num_hands[1]))
    for node in range(tree.kind.shape[0]):
        if tree.kind[node] != DECISION:
            continue
        off = tree.offset[node]
        na = tree.num_children[node]
        nh = hands.num_hands[tree.player[node]]
        for h in range(nh):
            tot[h] = 0.0
        for a in range(na):
            row = cumulative[off + a * nh : off + (a + 1) * nh]
            for h in range(nh):
                tot[h] += row[h]
        u = 1.0 / na
        for a in range(na):
            row = cumulative[off + a * nh : off + (a + 1) * nh]
            dst = out[off + a * nh : off + (a + 1) * nh]
            for h in range(nh):
                t = tot[h]
                dst[h] = row[h] / t if t > 0.0 else u
