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
arithmetic comes in one coefficient row (:mod:`solver.cfr.rules`). The steps are in
:mod:`solver.cfr.chance`, :mod:`solver.cfr.decision` and :mod:`solver.cfr.terminal`, the update
in :mod:`solver.cfr.update`; a split pass's tasks in :mod:`solver.cfr.tasks`. A child the opponent
reaches with probability zero is skipped when pruning is on (partial pruning) or nothing is
updated: its values are 0, and an update pass gives its subtree the update a zero walk would
(:func:`~solver.cfr.update.zero_update`), so the numbers are the same bit for bit.

The walk keeps an explicit stack (one row of the scratch buffers per depth) instead of
recursing: a Numba call per node costs more than Leduc's whole node. Its arguments are
borrowed (:mod:`solver.cfr.borrow`: no reference counting, which the threads of a parallel
pass would fight over); the fields the loop reads most are named once at the top.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.borrow import borrow
from solver.cfr.chance import add_chance_rows, chance_child, draw_child
from solver.cfr.decision import (
    action_values_up,
    mixed_values,
    node_values,
    opponent_child,
    traverser_child,
    update_traverser,
    values_sum_up,
)
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
from solver.cfr.tasks import next_task, task_done
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


@node_kernel
def _zero_row(VA: Array, d: Int, nt: Int) -> None:
    for h in range(nt):
        VA[d, h] = 0.0


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
    ``fl.leaf`` = ``LEAF_COLLECT`` it stops at the cut points (:class:`~solver.cfr.layout.Leaves`)
    and puts the reach there in ``lv.reach``; with ``LEAF_USE`` it takes their values from
    ``lv.value``; with ``LEAF_TASKS`` ``start`` is a thread instead, and the walk runs the
    tasks it claims (:mod:`solver.cfr.tasks`) one after another."""
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
    # the walk goes (``sigma`` empty), instead of an (A,) array built first
    average = mode in (MODE_BR, MODE_EVAL) and fl.average
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
    CS = sc.card_sum
    CQ = sc.cq
    CL = sc.clevel
    LIVE = sc.live
    BLK = sc.blk
    R = st.regrets
    S = st.cumulative
    quant = st.quantized != 0
    PR = rb.pruned
    locked = lk.node.shape[0] == tree.kind.shape[0]
    LN = lk.node
    LH = lk.hand
    KEEP = sc.keep
    valid = boards.valid
    hcards = hands.cards
    nc = hands.num_cards
    t_board = tree.board
    t_player = tree.player
    t_payoff = tree.payoff
    t_rake = tree.rake
    t_offset = tree.offset
    t_ioffset = tree.ioffset
    t_nchild = tree.num_children
    leaf = fl.leaf
    # the upper walk of a parallel pass that only collects the reach at the cut chance nodes:
    # its values are thrown away, so terminals are not evaluated and the traverser's own
    # strategy is not computed (recording best-response passes keep everything)
    reach_only = leaf == LEAF_COLLECT and not record
    touched = 0
    tasks = leaf == LEAF_TASKS  # start is a thread: walk the tasks it claims one by one
    ti = 0
    if tasks:  # (a loop here, not a walk per task: the set-up above would run per task)
        ti, touched = next_task(tree, hands, boards, lv, fl, co, st, lk, sc)
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
        kind = tree.kind[node]
        at_leaf = False
        if nxt[d] < 0:  # entering the node
            if not (tasks and d == 0 and lv.slot[node] >= 0):
                touched += 1  # (a runout's task: the upper walk counts the node)
            b = t_board[node]
            if leaf != LEAF_OFF and lv.slot[node] >= 0:  # a cut point of a parallel pass
                slot = lv.slot[node]
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
                fold_rows(hcards, hands.same, hands.pack, valid, b, trav, no, nt, nc, u0, RE,
                          rrow[d], VA, d, CS)  # fmt: skip
                at_leaf = True
            elif kind == RUNOUT:  # raked: worth A − r/2, the −r/2 term added below
                runout_rows(boards.runout_eq[tree.runout[node], opp],
                            t_payoff[node] - 0.5 * t_rake[node], nt, no, RE, rrow[d], VA, d,
                            sc.sd64)  # fmt: skip
                at_leaf = True
                raked = t_rake[node] != 0.0
            elif kind == CHANCE:  # values zeroed; a sampled pass draws the one child walked
                nxt[d] = 0
                _zero_row(VA, d, nt)
                CQ[d] = 1.0
                if sampled:
                    kc, q = draw_child(tree.first_child, t_nchild, tree.iso_count,
                                       tree.chance_weight, node,
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
                        play_locked(LH, lk.strategy, off, t_ioffset[node], na, nh, SG, d)
            else:  # showdown (raked: worth A − r/2, the −r/2 term added below)
                amount = t_payoff[node] - 0.5 * t_rake[node]
                raked = t_rake[node] != 0.0
                if two_card:
                    showdown_2card(valid, boards.order, boards.sd_row, boards.sd_src,
                                   boards.sd_cstart, boards.sd_pack, b, trav, nt, no, nc, amount,
                                   RE, rrow[d], VA, d, CS, sc.sd64)  # fmt: skip
                else:
                    showdown_generic(hcards, boards.order, boards.rank, b, trav, nt, no, valid,
                                     amount, RE, rrow[d], VA, d, CS, sc.card_sum2)  # fmt: skip
                at_leaf = True
            if raked:  # −r/2 per compatible opponent hand, in the free row below (one copy)
                raked = False
                fold_rows(hcards, hands.same, hands.pack, valid, b, trav, no, nt, nc,
                          -0.5 * t_rake[node], RE, rrow[d], VA, d + 1, CS)  # fmt: skip
                for h in range(nt):
                    VA[d, h] += VA[d + 1, h]
        if not at_leaf:
            k = nxt[d]
            na = t_nchild[node]
            if k < na:  # descend into child k
                child = tree.first_child[node] + k
                CL[d + 1] = CL[d] + (1 if kind == CHANCE else 0)
                mine = kind == DECISION and t_player[node] == trav
                if kind == CHANCE:
                    reached = chance_child(child, d, no, opp, t_board, tree.chance_weight, valid,
                                           RE, rrow, CQ)  # fmt: skip
                elif mine:
                    reached = True
                    if not traverser_child(k, d, nt, rbp, t_offset[node], t_board[node], trav,
                                            valid, PR, LIVE, rrow):  # fmt: skip
                        for h in range(nt):  # pruned for every hand: not walked
                            AV[d, k, h] = 0.0
                        nxt[d] = k + 1
                        continue
                else:
                    reached = opponent_child(k, d, no, derive, t_offset[node], sigma, SG, RE,
                                              rrow)  # fmt: skip
                if not reached and skip_zero:
                    # the opponent never reaches the child: every value below is 0
                    if update and not zero_noop:
                        touched += zero_update(tree, hands, child, trav, co, st, lk, AV, VA,
                                               d + 1, BLK, SD, sc.tmp, KEEP)  # fmt: skip
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
                    mixed_values(d, na, nt, t_offset[node], R, AV, VA, SD)
                else:
                    node_values(d, na, nt, best, derive, t_offset[node], sigma, SG, AV, VA)
                if best and lock_here:  # a best response leaves the locked hands alone
                    locked_values(LH, lk.strategy, t_offset[node], t_ioffset[node], na, nt, AV,
                                  VA, d)  # fmt: skip
                if update:
                    if lock_here:
                        keep_update(st, t_offset[node], t_ioffset[node], na, nt, KEEP)
                    update_traverser(node, t_offset[node], t_ioffset[node], na, nt, d, co, R,
                                     st.strategy, st.last_regret, st.step_num, st.step_den,
                                     st.rscale, quant, AV, VA, BLK, SD, sc.tmp, rbp, PR, LIVE,
                                     SG)  # fmt: skip
                    if lock_here:
                        restore_update(st, LH, t_offset[node], t_ioffset[node], na, nt, KEEP)
                    if rbp:
                        rbp_node(hands, boards, tree, R, rb, co, fl, node, RE, rrow[d], VA[d],
                                 LIVE[d], sc.pi, CS)  # fmt: skip
                elif record:
                    record_node(hands, boards, tree, rb, node, trav, AV, VA, d, RE, rrow[d], sc.pi,
                                CS)  # fmt: skip
            elif kind == DECISION and CQ[d] == 0.0:
                _zero_row(VA, d, nt)  # the opponent reaches none of its children
            if kind == DECISION and t_player[node] != trav and update:
                if lock_here:
                    keep_cells(S, t_offset[node], na * no, KEEP, 1)
                add_sums(S, sigma, SG, d, derive, st.sscale, quant, co, node, t_offset[node], na,
                         no, RE, rrow[d], BLK)  # fmt: skip
                if lock_here:
                    restore_locked(S, LH, t_offset[node], t_ioffset[node], na, no, KEEP, 1)
        # the node at depth d is finished: hand its values to the parent
        if d == 0:
            if not tasks:
                return touched
            for h in range(nt):
                lv.task_value[ti, h] = VA[0, h]
            task_done(tree, hands, boards, lv, ti, trav, nt)
            ti, z = next_task(tree, hands, boards, lv, fl, co, st, lk, sc)
            touched += z
            if ti < 0:
                return touched
            stack[0] = lv.task_node[ti]
            nxt[0] = -1
            continue
        parent = stack[d - 1]
        k = nxt[d - 1]
        if tree.kind[parent] == CHANCE:  # each card's values, suit-isomorphic images mapped
            add_chance_rows(t_board, tree.iso_start, tree.iso_count, tree.iso_board, tree.iso_perm,
                            hands.perm, valid, node, trav, nt, VA, d, VA, d - 1)  # fmt: skip
            if sampled:  # the one child drawn stands for them all
                k = t_nchild[parent] - 1
        elif t_player[parent] == trav:
            action_values_up(AV, VA, d, k, nt)
        else:
            values_sum_up(VA, d, nt, CQ)
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
