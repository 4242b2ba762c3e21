"""The one traversal: a vector-form pass over the public tree for one traverser.

A pass for traverser ``i`` walks the public tree depth first carrying the opponent's reach
vector down (one entry per opponent hand) and bringing ``i``'s counterfactual values back up
(one entry per ``i`` hand). Like postflop-solver's solver, it has three kinds of inner node,
each a few inlined steps:

* **chance node**: enter (values zeroed; chance sampling draws the one child walked), then
  per child scale the opponent reach by the card's probability and zero the hands it blocks,
  and add the child's values — for each card the child stands for by suit isomorphism, with
  hands mapped — so every value below carries the chance of the deal;
* **the traverser's node**: enter (its strategy derived from the regrets when the rule plays
  RM(R)), descend with the reach unchanged (regret-based pruning: only the hands still
  playing the action), and finish with the node's values — the mix of the action values
  (CFR, evaluation) or their max (best response) — then the rule's update (CFR passes), the
  pruning step, or Total RBP's record of the action values;
* **the opponent's node**: descend with the reach times the opponent's strategy, sum the
  children's values, and finish with the opponent's strategy sums (CFR passes).

What a pass does is the engine's choice (:class:`~solver.cfr.layout.PassFlags`: update,
best response, evaluation, the reach only; pruning; chance sampling; record), the rule's
arithmetic comes in one coefficient row (:mod:`solver.cfr.rules`). Terminal values are in
:mod:`solver.cfr.terminal`, the update in :mod:`solver.cfr.update`. A child the opponent
reaches with probability zero is skipped when pruning is on (partial pruning) or nothing is
updated: its values are 0, and an update pass gives its subtree the update a zero walk would
(:func:`~solver.cfr.update.zero_update`), so the numbers are the same bit for bit.

The walk keeps an explicit stack (one row of the scratch buffers per depth) instead of
recursing: a Numba call per node costs more than Leduc's whole node. Every NamedTuple field
and row view is read once at the top (each read is an atomic reference-count update: ~10 %
of T1's time, and a cache line the threads of a parallel pass fight over).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.atomic import fetch_add
from solver.cfr.borrow import borrow
from solver.cfr.chance import add_chance_child, add_chance_rows, chance_child, draw_child
from solver.cfr.floats import like
from solver.cfr.layout import (
    LEAF_COLLECT,
    LEAF_OFF,
    LEAF_TASKS,
    MODE_BR,
    MODE_EVAL,
    MODE_REACH,
    MODE_UPDATE,
    PRUNE_INTERVAL,
    PRUNE_NONE,
    Leaves,
    PassFlags,
    Scratch,
    Storage,
)
from solver.cfr.locks import Locks, keep_cells, locked_values, play_locked, restore_locked
from solver.cfr.pruning.state import RBPState, has_pruned, rbp_node, record_node
from solver.cfr.rules import DERIVE
from solver.cfr.terminal import (
    fixed_payoff,
    fold_rows,
    runout_rows,
    showdown_2card,
    showdown_generic,
)
from solver.cfr.update import (
    add_sums,
    keep_update,
    regret_matching,
    restore_update,
    strategy_rows,
    update_node,
    zero_update,
    zero_update_is_noop,
)
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, Boards, Hands, Tree
from solver.jit import ir_inline, kernel, node_kernel

Array = npt.NDArray[np.float64]
Int = int | np.int64
I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]


# ``sigma`` for a best-response or evaluation pass against the average strategy of
# ``st.cumulative``, normalised per node as the walk reaches it (:func:`walk`)
AVERAGE = np.zeros(0)


# ----- decision nodes ------------------------------------------------------------------------
@node_kernel
def _traverser_child(
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
def _opponent_child(
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
def _node_values(
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
def _mixed_values(
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
def _update_traverser(
    node: Int, off: Int, ioff: Int, na: Int, nt: Int, d: Int, co: Array, R: Array,
    STRAT: Array, LR: Array, SN: Array, SDN: Array, RSCALE: Array, quant: bool, AV: Array,
    VA: Array, BLK: Array, SD: Array, TMP: Array, rbp: bool, PR: I8, LIVE: Array, SG: Array,
) -> None:  # fmt: skip
    """The rule's update at the traverser's node (:func:`~solver.cfr.update.update_node`);
    with regret-based pruning the pruned cells (they hold bounds) and the frozen hands keep
    their values (the pruning step follows: :func:`~solver.cfr.pruning.state.rbp_node`)."""
    if rbp:
        for i in range(na * nt):
            SG[d + 1, i] = R[off + i]
    update_node(R, STRAT, LR, SN, SDN, RSCALE, quant, co, node, off, ioff, na, nt, AV, VA, d,
                BLK, SD, TMP)  # fmt: skip
    if rbp:
        for a in range(na):
            base = off + a * nt
            for h in range(nt):
                if PR[base + h] != 0 or LIVE[d, h] == 0.0:
                    R[base + h] = SG[d + 1, a * nt + h]


# ----- values up -----------------------------------------------------------------------------
@node_kernel
def _action_values_up(AV: Array, VA: Array, d: Int, k: Int, nt: Int) -> None:
    """The traverser's node keeps its child's values as action ``k``'s: AV[d − 1, k] = VA[d]."""
    for h in range(nt):
        AV[d - 1, k, h] = VA[d, h]


@node_kernel
def _values_sum_up(VA: Array, d: Int, nt: Int, CQ: Array) -> None:
    """The opponent's node sums its children's values: VA[d − 1] += VA[d], the first child
    it walked stored instead (``CQ[d − 1]`` = 0 until then: its row is not zeroed first)."""
    if CQ[d - 1] == 0.0:
        CQ[d - 1] = 1.0
        for h in range(nt):
            VA[d - 1, h] = VA[d, h]
        return
    for h in range(nt):
        VA[d - 1, h] += VA[d, h]


@node_kernel
def _zero_row(VA: Array, d: Int, nt: Int) -> None:
    for h in range(nt):
        VA[d, h] = 0.0


# ----- parallel tasks ------------------------------------------------------------------------
@kernel  # (a call, not inlined: off the common path)
def _task_done(tree: Tree, hands: Hands, boards: Boards, lv: Leaves, k: Int, trav: Int,
               nt: Int) -> None:  # fmt: skip
    """Task ``k``'s values are in ``lv.task_value[k]``: count it done for its slot (an
    atomic add, after the values are written); the thread that counts a slot's last task
    puts the slot's values in ``lv.value[slot]`` — a runout's own, or a chance node's
    children's summed in task order (:func:`~solver.cfr.chance.add_chance_child`), as the
    serial walk sums them."""
    s = lv.task_slot[k]
    k0 = lv.slot_start[s]
    k1 = lv.slot_start[s + 1]
    if fetch_add(lv.slot_done, s) + 1 != k1 - k0:
        return
    if lv.slot[lv.task_node[k0]] >= 0:  # a task of its own (a runout, a river's cut node)
        for h in range(nt):
            lv.value[s, h] = lv.task_value[k0, h]
        return
    for h in range(nt):
        lv.value[s, h] = 0.0
    for j in range(k0, k1):
        add_chance_child(tree, hands, boards, lv.task_node[j], trav, nt, lv.task_value[j],
                         lv.value[s])  # fmt: skip


@kernel  # (a call, not inlined: off the common path)
def _next_task(
    tree: Tree, hands: Hands, boards: Boards, lv: Leaves, fl: PassFlags, co: Array,
    st: Storage, lk: Locks, sc: Scratch,
) -> tuple[int, int]:  # fmt: skip
    """The next task this thread claims (an atomic add on ``lv.claimed``: every thread of
    the pass claims from the one list ``lv.order``) that the opponent reaches, its reach
    put in ``sc.reach[0]`` (a chance child's: chance weight and card removal applied; a
    runout's or a river's cut node's as it arrived); returns (the task or -1 when none is
    left, the nodes touched on the way). A task the opponent does not reach is skipped as
    the serial walk skips it — values 0, and the zero update when its chance node was
    reached (else, and for a river's cut node, the upper walk's covers it)."""
    trav = fl.trav
    mode = fl.mode
    opp = 1 - trav
    no = hands.num_hands[opp]
    nt = hands.num_hands[trav]
    skip_zero = mode in (MODE_BR, MODE_EVAL) or fl.prune != PRUNE_NONE
    touched = 0
    RE = sc.reach
    while True:
        i = fetch_add(lv.claimed, 0)
        if i >= lv.order.shape[0]:
            return -1, touched
        k = lv.order[i]
        node = lv.task_node[k]
        slot = lv.task_slot[k]
        if tree.kind[node] == RUNOUT:  # a runout is walked whatever its reach
            for j in range(no):
                RE[0, j] = lv.reach[slot, j]
            return int(k), touched
        if lv.slot[node] >= 0:  # a river's cut node: walked as the serial walk would
            mass = 0.0
            for j in range(no):
                x = lv.reach[slot, j]
                RE[0, j] = x
                mass += x
            if not (mass == 0.0 and skip_zero):
                return int(k), touched
            # not reached: values 0, and its zero update is the upper walk's (as the
            # serial walk's parent does it)
            for h in range(nt):
                lv.task_value[k, h] = 0.0
            _task_done(tree, hands, boards, lv, k, trav, nt)
            continue
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
            return int(k), touched
        if mode == MODE_UPDATE and arrived > 0.0 and not zero_update_is_noop(co):
            # (int64 node and row: the walk's own call's types, one compilation for both)
            touched += zero_update(tree, hands, np.int64(node), trav, co, st, lk,
                                   sc.action_value, sc.value, np.int64(1), sc.blk, sc.sd,
                                   sc.tmp, sc.keep)  # fmt: skip
        for h in range(nt):
            lv.task_value[k, h] = 0.0
        _task_done(tree, hands, boards, lv, k, trav, nt)


# ----- the walk ------------------------------------------------------------------------------
# (inlined into its one caller, solver.cfr.drive: compiled once per signature, not twice)
@ir_inline
def walk(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    start: Int,
    sigma: Array,
    st: Storage,
    rb: RBPState,
    lk: Locks,
    co: Array,
    u: Array,
    fl: PassFlags,
    sc: Scratch,
    lv: Leaves,
) -> int:
    """One depth-first pass for ``fl.trav`` over the subtree of node ``start``.

    Input: the opponent's reach at ``start`` in ``sc.reach[0, :H[opp]]``. Output: the
    traverser's counterfactual values at ``start`` in ``sc.value[0, :H[trav]]``. ``sigma``
    (A,) is the strategy both play (a CFR pass: the current one, ``st.strategy``; a
    best-response or evaluation pass given :data:`AVERAGE`: the average strategy of
    ``st.cumulative``, each node's normalised as the walk reaches it); ``lk``
    the locked infosets (:mod:`solver.cfr.locks`); ``co`` the rule's coefficient row; ``u``
    (4,) the chance draws of a sampled pass. Returns the number of nodes visited. With
    ``fl.leaf`` = ``LEAF_TASKS``, ``start`` is a thread
    instead and the walk runs the tasks it claims one after another (see
    :class:`~solver.cfr.layout.Leaves`)."""
    # every array below is borrowed: no reference counting at the helpers' boundaries
    tree = borrow(tree)
    hands = borrow(hands)
    boards = borrow(boards)
    sigma = borrow(sigma)
    st = borrow(st)
    rb = borrow(rb)
    lk = borrow(lk)
    co = borrow(co)
    u = borrow(u)
    sc = borrow(sc)
    lv = borrow(lv)
    trav = fl.trav
    mode = fl.mode
    opp = 1 - trav
    nt = hands.num_hands[trav]
    no = hands.num_hands[opp]
    cfr_pass = mode in (MODE_UPDATE, MODE_REACH)
    update = mode == MODE_UPDATE
    derive_rm = cfr_pass and co[DERIVE] != 0.0  # the rule plays RM(R)
    # a best response or evaluation against the average strategy normalised from the sums as
    # the walk goes (``sigma`` empty: :data:`AVERAGE`), instead of an (A,) array built first
    average = mode in (MODE_BR, MODE_EVAL) and sigma.shape[0] == 0
    derive = derive_rm or average  # σ in SG, per depth, rather than read from ``sigma``
    skip_zero = mode in (MODE_BR, MODE_EVAL) or fl.prune != PRUNE_NONE
    zero_noop = zero_update_is_noop(co)
    rbp = cfr_pass and fl.prune >= PRUNE_INTERVAL
    sampled = cfr_pass and fl.sampled
    record = mode == MODE_BR and fl.record
    best = mode == MODE_BR
    two_card = hands.cards[0, 0, 1] >= 0 and hands.cards[1, 0, 1] >= 0
    stack = sc.stack
    nxt = sc.next_child
    rrow = sc.reach_row
    RE = sc.reach
    VA = sc.value
    AV = sc.action_value
    SG = sc.strat
    SD = sc.sd
    SD64 = sc.sd64  # float64 whatever the walk's precision: terminal sums
    CS = sc.card_sum
    CS2 = sc.card_sum2
    CQ = sc.cq
    CL = sc.clevel
    LIVE = sc.live
    BLK = sc.blk
    TMP = sc.tmp
    PI = sc.pi
    R = st.regrets
    S = st.cumulative
    STRAT = st.strategy
    LR = st.last_regret
    SN = st.step_num
    SDN = st.step_den
    RSCALE = st.rscale
    SSCALE = st.sscale
    quant = st.quantized != 0
    PR = rb.pruned
    locked = lk.node.shape[0] == tree.kind.shape[0]
    LN = lk.node
    LH = lk.hand
    LS = lk.strategy
    KEEP = sc.keep
    valid = boards.valid
    b_order = boards.order
    b_rank = boards.rank
    b_runout = boards.runout_eq
    sd_row = boards.sd_row
    sd_src = boards.sd_src
    sd_cstart = boards.sd_cstart
    sd_pack = boards.sd_pack
    hcards = hands.cards
    hsame = hands.same
    hpack = hands.pack
    hperm = hands.perm
    nc = hands.num_cards
    t_board = tree.board
    t_kind = tree.kind
    t_player = tree.player
    t_payoff = tree.payoff
    t_rake = tree.rake
    t_offset = tree.offset
    t_ioffset = tree.ioffset
    t_nchild = tree.num_children
    t_first = tree.first_child
    t_weight = tree.chance_weight
    t_runout = tree.runout
    t_iso_start = tree.iso_start
    t_iso_count = tree.iso_count
    t_iso_board = tree.iso_board
    t_iso_perm = tree.iso_perm
    lv_slot = lv.slot
    leaf = fl.leaf
    # the upper walk of a parallel pass that only collects the reach at the cut chance nodes:
    # its values are thrown away, so terminals are not evaluated and the traverser's own
    # strategy is not computed (recording best-response passes keep everything)
    reach_only = leaf == LEAF_COLLECT and not record
    touched = 0
    tasks = leaf == LEAF_TASKS  # start is a thread: walk the tasks it claims one by one
    ti = 0
    if tasks:
        ti, touched = _next_task(tree, hands, boards, lv, fl, co, st, lk, sc)
        if ti < 0:
            return touched
        leaf = LEAF_OFF  # nothing below a task is slotted
    if rbp:
        for h in range(nt):
            LIVE[0, h] = 1.0
    raked = False  # a raked showdown or runout was just valued: add its rake term
    d = 0
    stack[0] = lv.task_node[ti] if tasks else start
    nxt[0] = -1
    rrow[0] = 0
    CL[0] = 0
    while True:
        node = stack[d]
        kind = t_kind[node]
        at_leaf = False
        if nxt[d] < 0:  # entering the node
            if not (tasks and d == 0 and lv_slot[node] >= 0):
                touched += 1  # (a runout's task: the upper walk counts the node)
            b = t_board[node]
            if leaf != LEAF_OFF and lv_slot[node] >= 0:  # a cut point of a parallel pass
                slot = lv_slot[node]
                if leaf == LEAF_COLLECT:
                    r0 = rrow[d]
                    for j in range(no):
                        lv.reach[slot, j] = RE[r0, j]
                    for h in range(nt):
                        VA[d, h] = 0.0
                else:
                    for h in range(nt):
                        VA[d, h] = lv.value[slot, h]
                at_leaf = True
            elif reach_only and kind != CHANCE and kind != DECISION:  # a terminal
                _zero_row(VA, d, nt)
                at_leaf = True
            elif kind == FIXED:
                u0 = fixed_payoff(t_payoff[node], t_rake[node], trav)
                fold_rows(hcards, hsame, hpack, valid, b, trav, no, nt, nc, u0, RE, rrow[d], VA, d,
                          CS)  # fmt: skip
                at_leaf = True
            elif kind == RUNOUT:  # raked: worth A − r/2, the −r/2 term added below
                runout_rows(b_runout[t_runout[node], opp], t_payoff[node] - 0.5 * t_rake[node],
                            nt, no, RE, rrow[d], VA, d, SD64)  # fmt: skip
                at_leaf = True
                raked = t_rake[node] != 0.0
            elif kind == CHANCE:  # values zeroed; a sampled pass draws the one child walked
                nxt[d] = 0
                _zero_row(VA, d, nt)
                CQ[d] = 1.0
                if sampled:
                    kc, q = draw_child(t_first, t_nchild, t_iso_count, t_weight, node,
                                       u[2 * trav + min(CL[d], 1)])  # fmt: skip
                    nxt[d] = kc
                    CQ[d] = 1.0 / q
            elif kind == DECISION:  # the opponent's node sums values; RM rules derive σ
                nxt[d] = 0
                if t_player[node] != trav:
                    CQ[d] = 0.0  # no child's values yet: the first is stored, not added
                mine = t_player[node] == trav
                mixed = derive_rm and mine and not rbp and not (locked and LN[node] != 0)
                # (a best response's own nodes take the max, or a locked hand's mix)
                if derive and not (mine and (reach_only or mixed or (average and best))):
                    off = t_offset[node]
                    na = t_nchild[node]
                    nh = nt if mine else no
                    masked = rbp and has_pruned(PR, off, na * nh)
                    if average:
                        strategy_rows(S, off, na, nh, SG, d, SD, 0)
                    elif masked:
                        regret_matching(R, off, na, nh, 0, nh, PR, masked, SG, d, 0, nh, SD, 0)
                    else:
                        strategy_rows(R, off, na, nh, SG, d, SD, 0)
                    if locked and LN[node] != 0:
                        play_locked(LH, LS, off, t_ioffset[node], na, nh, SG, d)
            else:  # showdown (raked: worth A − r/2, the −r/2 term added below)
                amount = t_payoff[node] - 0.5 * t_rake[node]
                raked = t_rake[node] != 0.0
                if two_card:
                    showdown_2card(valid, b_order, sd_row, sd_src, sd_cstart, sd_pack, b,
                                   trav, nt, no, nc, amount, RE, rrow[d], VA, d, CS,
                                   SD64)  # fmt: skip
                else:
                    showdown_generic(hcards, b_order, b_rank, b, trav, nt, no, valid, amount, RE,
                                     rrow[d], VA, d, CS, CS2)  # fmt: skip
                at_leaf = True
            if raked:  # −r/2 per compatible opponent hand, in the free row below (one copy)
                raked = False
                fold_rows(hcards, hsame, hpack, valid, b, trav, no, nt, nc, -0.5 * t_rake[node],
                          RE, rrow[d], VA, d + 1, CS)  # fmt: skip
                for h in range(nt):
                    VA[d, h] += VA[d + 1, h]
        if not at_leaf:
            k = nxt[d]
            na = t_nchild[node]
            if k < na:  # descend into child k
                child = t_first[node] + k
                CL[d + 1] = CL[d] + (1 if kind == CHANCE else 0)
                mine = kind == DECISION and t_player[node] == trav
                if kind == CHANCE:
                    reached = chance_child(child, d, no, opp, t_board, t_weight, valid, RE,
                                            rrow, CQ)  # fmt: skip
                elif mine:
                    reached = True
                    if not _traverser_child(k, d, nt, rbp, t_offset[node], t_board[node], trav,
                                            valid, PR, LIVE, rrow):  # fmt: skip
                        for h in range(nt):  # pruned for every hand: not walked
                            AV[d, k, h] = 0.0
                        nxt[d] = k + 1
                        continue
                else:
                    reached = _opponent_child(k, d, no, derive, t_offset[node], sigma, SG, RE,
                                              rrow)  # fmt: skip
                if not reached and skip_zero:
                    # the opponent never reaches the child: every value below is 0
                    if update and not zero_noop:
                        touched += zero_update(tree, hands, child, trav, co, st, lk, AV, VA,
                                               d + 1, BLK, SD, TMP, KEEP)  # fmt: skip
                    nxt[d] = na if (kind == CHANCE and sampled) else k + 1
                    continue
                if rbp and not mine:
                    for h in range(nt):
                        LIVE[d + 1, h] = LIVE[d, h]
                d += 1
                stack[d] = child
                nxt[d] = -1
                continue
            # all children done: finish the node
            lock_here = locked and kind == DECISION and LN[node] != 0
            if kind == DECISION and t_player[node] == trav:
                if derive_rm and not rbp and not lock_here:
                    _mixed_values(d, na, nt, t_offset[node], R, AV, VA, SD)
                else:
                    _node_values(d, na, nt, best, derive, t_offset[node], sigma, SG, AV, VA)
                if best and lock_here:  # a best response leaves the locked hands alone
                    locked_values(LH, LS, t_offset[node], t_ioffset[node], na, nt, AV, VA, d)
                if update:
                    if lock_here:
                        keep_update(st, t_offset[node], t_ioffset[node], na, nt, KEEP)
                    _update_traverser(node, t_offset[node], t_ioffset[node], na, nt, d, co, R,
                                      STRAT, LR, SN, SDN, RSCALE, quant, AV, VA, BLK, SD, TMP,
                                      rbp, PR, LIVE, SG)  # fmt: skip
                    if lock_here:
                        restore_update(st, LH, t_offset[node], t_ioffset[node], na, nt, KEEP)
                    if rbp:
                        rbp_node(hands, boards, tree, R, rb, co, fl, node, RE, rrow[d], VA[d],
                                 LIVE[d], PI, CS)  # fmt: skip
                elif record:
                    record_node(hands, boards, tree, rb, node, trav, AV, VA, d, RE, rrow[d], PI,
                                CS)  # fmt: skip
            elif kind == DECISION and CQ[d] == 0.0:
                _zero_row(VA, d, nt)  # the opponent reaches none of its children
            if kind == DECISION and t_player[node] != trav and update:
                if lock_here:
                    keep_cells(S, t_offset[node], na * no, KEEP, 1)
                add_sums(S, sigma, SG, d, derive, SSCALE, quant, co, node, t_offset[node], na,
                         no, RE, rrow[d], BLK)  # fmt: skip
                if lock_here:
                    restore_locked(S, LH, t_offset[node], t_ioffset[node], na, no, KEEP, 1)
        # the node at depth d is finished: hand its values to the parent
        if d == 0:
            if not tasks:
                return touched
            for h in range(nt):
                lv.task_value[ti, h] = VA[0, h]
            _task_done(tree, hands, boards, lv, ti, trav, nt)
            ti, z = _next_task(tree, hands, boards, lv, fl, co, st, lk, sc)
            touched += z
            if ti < 0:
                return touched
            stack[0] = lv.task_node[ti]
            nxt[0] = -1
            continue
        parent = stack[d - 1]
        k = nxt[d - 1]
        if t_kind[parent] == CHANCE:  # each card's values, suit-isomorphic images mapped
            add_chance_rows(t_board, t_iso_start, t_iso_count, t_iso_board, t_iso_perm, hperm,
                            valid, node, trav, nt, VA, d, VA, d - 1)  # fmt: skip
            if sampled:  # the one child drawn stands for them all
                k = t_nchild[parent] - 1
        elif t_player[parent] == trav:
            _action_values_up(AV, VA, d, k, nt)
        else:
            _values_sum_up(VA, d, nt, CQ)
        nxt[d - 1] = k + 1
        d -= 1


# ----- entry points --------------------------------------------------------------------------
@kernel
def root_reach(hands: Hands, player: int, out: Array) -> None:
    """out[:H[player]] ← the chance of each of ``player``'s hands being dealt: the range
    weights times the deal normaliser (the opponent reach a pass starts with)."""
    n = hands.num_hands[player]
    for j in range(n):
        out[j] = hands.norm * hands.weights[player, j]
