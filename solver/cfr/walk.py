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

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.cfr.borrow import borrow, by_ref
from solver.cfr.chance import add_chance_rows, chance_child, draw_child, free_chance_child
from solver.cfr.decision import (
    action_values_up,
    mixed_values,
    node_values,
    opponent_child,
    restricted_child,
    start_free_reach,
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
    GameArrays,
    Leaves,
    PassFlags,
    Scratch,
    SlotTables,
    Storage,
    WalkTables,
)
from solver.cfr.locks import Locks, keep_cells, locked_values, play_locked, restore_locked
from solver.cfr.multi import chance_rows, opponent_rows, start_rows, terminal_rows
from solver.cfr.pruning.state import RBPState, has_pruned, rbp_node, record_node
from solver.cfr.rules import DERIVE
from solver.cfr.tasks import next_task, task_done
from solver.cfr.terminal import (
    FoldTables,
    ShowdownTables,
    fixed_payoff,
    fold_prefix,
    fold_rows,
    runout_rows,
    showdown_generic,
    showdown_prefix,
    showdown_rows,
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
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN, Hands, Tree
from solver.jit import ir_inline, kernel, node_kernel

Array = npt.NDArray[np.float64]
Int = int | np.int64
I8 = npt.NDArray[np.int8]
I64 = npt.NDArray[np.int64]
I32 = npt.NDArray[np.int32]


# ``sigma`` for a best-response or evaluation pass against the average strategy of
# ``st.cumulative``, normalised per node as the walk reaches it (:func:`walk`)
AVERAGE = np.zeros(0)


# ----- the walk ------------------------------------------------------------------------------
class SolveState(NamedTuple):
    """What a pass reads and updates of a solve: its storage, its regret-based pruning state
    (placeholders without pruning) and its locks (placeholders without any)."""

    st: Storage
    rb: RBPState
    lk: Locks


class Switches(NamedTuple):
    """What a pass does at its nodes, read once per walk off its flags, the rule's row and
    what the arrays hold (:func:`switches`)."""

    update: bool  # a CFR pass that updates regrets and sums
    derive_rm: bool  # the rule plays RM(R): the traverser's strategy derived from its regrets
    # a best response or evaluation against the average strategy normalised from the sums as
    # the walk goes (``sigma`` empty), instead of an (A,) array built first
    average: bool
    derive: bool  # σ in ``sc.strat``, per depth, rather than read from ``sigma``
    skip_zero: bool  # a child the opponent never reaches is not walked
    zero_noop: bool  # the zero update of a skipped child changes nothing
    rbp: bool  # regret-based pruning (interval or Total RBP) in a CFR pass
    sampled: bool  # chance sampling: one child drawn per chance node
    record: bool  # a best response that records its action values (Total RBP)
    best: bool  # a best response
    # the upper walk of a parallel pass that only collects the reach at the cut chance nodes:
    # its values are thrown away, so terminals are not evaluated and the traverser's own
    # strategy is not computed (recording best-response passes keep everything)
    reach_only: bool
    two_card: bool  # hands of two cards (hold'em): the prefix-sum showdown
    locked: bool  # some infosets are locked (``lk`` is the tree's size)
    # the exploiter's pass of a restricted Nash response (``lk.rnr_*``): the learner's reach is
    # a mixture of its fixed and free strategies, the free part carried beside it
    rnr: bool


@node_kernel
def switches(fl: PassFlags, co: Array, tree: Tree, hands: Hands, lk: Locks) -> Switches:
    """The :class:`Switches` of a pass with flags ``fl`` and the rule's row ``co``."""
    mode = fl.mode
    cfr_pass = mode in (MODE_UPDATE, MODE_REACH)
    derive_rm = cfr_pass and co[DERIVE] != 0.0
    average = mode in (MODE_BR, MODE_EVAL) and fl.average
    return Switches(
        mode == MODE_UPDATE,
        derive_rm,
        average,
        derive_rm or average,
        mode in (MODE_BR, MODE_EVAL) or fl.prune != PRUNE_NONE,
        zero_update_is_noop(co),
        cfr_pass and fl.prune >= PRUNE_INTERVAL,
        cfr_pass and fl.sampled,
        mode == MODE_BR and fl.record,
        mode == MODE_BR,
        fl.leaf == LEAF_COLLECT and not (mode == MODE_BR and fl.record),
        hands.cards[0, 0, 1] >= 0 and hands.cards[1, 0, 1] >= 0,
        lk.node.shape[0] == tree.kind.shape[0],
        lk.rnr_p > 0.0
        and fl.trav == lk.rnr_exploiter
        and fl.leaf == LEAF_OFF
        and mode != MODE_REACH
        and not (mode == MODE_UPDATE and fl.sampled),
    )


# (inlined into its one caller, solver.cfr.drive: compiled once per signature, not twice)
@node_kernel
def prefix_fold(tree: Tree, node: Int, trav: Int) -> bool:
    """Whether the fold ``node`` is the traverser's beside its showdown (a sibling next to
    it on the same board): the two read the parent's reach row, so the fold takes its values
    from the showdown's prefix sums (:func:`~solver.cfr.terminal.fold_prefix`). A property
    of the tree, whichever walk or task reaches the fold."""
    p = tree.parent[node]
    if p < 0 or tree.kind[p] != DECISION or tree.player[p] != trav:
        return False
    lo = tree.first_child[p]
    hi = lo + tree.num_children[p]
    b = tree.board[node]
    if node + 1 < hi and tree.kind[node + 1] == SHOWDOWN and tree.board[node + 1] == b:
        return True
    return node > lo and tree.kind[node - 1] == SHOWDOWN and tree.board[node - 1] == b


@node_kernel
def next_sibling(tree: Tree, node: Int, trav: Int) -> int:
    """The node after ``node`` when both are children of the traverser's node (they read the
    same reach row), else -1."""
    p = tree.parent[node]
    if p < 0 or tree.kind[p] != DECISION or tree.player[p] != trav:
        return -1
    return int(node) + 1 if node + 1 < tree.first_child[p] + tree.num_children[p] else -1


@ir_inline
def walk(
    game: GameArrays,
    state: SolveState,
    start: Int,
    sigma: Array,
    co: Array,
    u: Array,
    fl: PassFlags,
    sc: Scratch,
    lv: Leaves,
) -> int:
    """One depth-first pass for ``fl.trav`` over the subtree of node ``start`` of ``game``,
    reading and updating ``state`` (the storage ``st``, the pruning state ``rb``, the locks
    ``lk``: :mod:`solver.cfr.locks`).

    Input: the opponent's reach at ``start`` in ``sc.reach[0, :H[opp]]``. Output: the
    traverser's counterfactual values at ``start`` in ``sc.value[0, :H[trav]]``. ``sigma``
    (A,) is the strategy both play (a CFR pass: the current one, ``st.strategy``; a
    best-response or evaluation pass given :data:`AVERAGE`: the average strategy of
    ``st.cumulative``, each node's normalised as the walk reaches it); ``co`` the rule's
    coefficient row; ``u`` (4,) the chance draws of a sampled pass. Returns the number of
    nodes visited. With ``fl.leaf`` = ``LEAF_COLLECT`` it stops at the cut points
    (:class:`~solver.cfr.layout.Leaves`) and puts the reach there in ``lv.reach``; with
    ``LEAF_USE`` it takes their values from ``lv.value``; with ``LEAF_TASKS`` ``start`` is a
    thread instead, and the walk runs the tasks it claims (:mod:`solver.cfr.tasks`) one after
    another."""
    # every array below is borrowed: no reference counting at the helpers' boundaries
    tree, hands, boards, mw = borrow(game)
    st, rb, lk = borrow(state)
    sigma, co, u, sc, lv = borrow((sigma, co, u, sc, lv))
    sw = switches(fl, co, tree, hands, lk)
    trav, opp = fl.trav, 1 - fl.trav
    nt, no = hands.num_hands[trav], hands.num_hands[opp]
    stack, nxt, rrow, CL = sc.stack, sc.next_child, sc.reach_row, sc.clevel
    RE, VA, AV, SG, CQ = sc.reach, sc.value, sc.action_value, sc.strat, sc.cq
    ft = FoldTables(hands.cards, hands.same, hands.pack, boards.valid)
    sdt = by_ref(ShowdownTables(boards.valid, boards.order, boards.sd_row, boards.sd_src,
                                boards.sd_cstart, boards.sd_pack, hands.pack))  # fmt: skip
    leaf, touched, ti = fl.leaf, 0, 0
    multi = start_rows(mw, RE, nt)  # more than two players: a reach row each (cfr/multi.py)
    tasks = leaf == LEAF_TASKS  # start is a thread: walk the tasks it claims one by one
    tw = by_ref(WalkTables(tree, hands, boards, lv, st, lk, sc))
    if tasks:  # (a loop here, not a walk per task: the set-up above would run per task)
        ti, touched = next_task(tw, fl, co, start)
        if ti < 0:
            return touched
        leaf = LEAF_OFF  # nothing below a task is slotted
    if sw.rbp:
        for h in range(nt):
            sc.live[0, h] = 1.0
    if sw.rnr:  # a restricted Nash response: the learner's free reach beside the mixture
        start_free_reach(sc, no)
    raked, pq_next, d = False, -1, 0  # a raked terminal's rake term to add; see have_pq below
    stack[0] = lv.task_node[ti] if tasks else start
    nxt[0] = -1
    rrow[0] = 0
    CL[0] = 0
    while True:
        node = stack[d]
        kind = tree.kind[node]
        at_leaf = False
        if multi and kind == DECISION:  # the actor's hands (players may hold different numbers)
            no = hands.num_hands[tree.player[node]]
        if nxt[d] < 0:  # entering the node
            # the showdown prefix sums in sc.sd64 are of this node's reach row (a terminal of
            # the traverser's node after another: both read the parent's row)
            have_pq = pq_next == node
            pq_next = -1
            if not (tasks and d == 0 and lv.slot[node] >= 0):
                touched += 1  # (a runout's task: the upper walk counts the node)
            b = tree.board[node]
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
            elif sw.reach_only and kind != CHANCE and kind != DECISION:  # a terminal
                for h in range(nt):
                    VA[d, h] = 0.0
                at_leaf = True
            elif multi and kind != CHANCE and kind != DECISION:
                terminal_rows(mw, node, trav, nt, RE, rrow[d], VA, d, b)
                at_leaf = True
            elif kind == FIXED:
                u0 = fixed_payoff(tree.payoff[node], tree.rake[node], trav)
                if sw.two_card and prefix_fold(tree, node, trav):  # beside a showdown
                    if not have_pq:
                        showdown_prefix(sdt, b, trav, no, RE, rrow[d], sc.sd64)
                    fold_prefix(sdt, b, trav, nt, no, u0, RE, rrow[d], VA, d, sc.card_sum,
                                sc.sd64)  # fmt: skip
                    pq_next = next_sibling(tree, node, trav)
                else:
                    fold_rows(ft, b, trav, no, nt, hands.num_cards, u0, RE, rrow[d], VA, d,
                              sc.card_sum)  # fmt: skip
                at_leaf = True
            elif kind == RUNOUT:  # raked: worth A − r/2, the −r/2 term added below
                eq = boards.runout_eq[tree.runout[node], opp]
                amount = tree.payoff[node] - 0.5 * tree.rake[node]
                runout_rows(eq, amount, nt, no, RE, rrow[d], VA, d, sc.sd64)
                at_leaf = True
                raked = tree.rake[node] != 0.0
            elif kind == CHANCE:  # values zeroed; a sampled pass draws the one child walked
                nxt[d] = 0
                for h in range(nt):
                    VA[d, h] = 0.0
                CQ[d] = 1.0
                if sw.sampled:
                    kc, q = draw_child(tree.first_child, tree.num_children, tree.iso_count,
                                       tree.chance_weight, node,
                                       u[2 * trav + min(CL[d], 1)])  # fmt: skip
                    nxt[d] = kc
                    CQ[d] = 1.0 / q
            elif kind == DECISION:  # the opponent's node sums values; RM rules derive σ
                nxt[d] = 0
                mine = tree.player[node] == trav
                if not mine:
                    CQ[d] = 0.0  # no child's values yet: the first is stored, not added
                lock_here = sw.locked and lk.node[node] != 0
                mixed = sw.derive_rm and mine and not sw.rbp and not lock_here
                # (a best response's own nodes take the max, or a locked hand's mix)
                own = mine and (sw.reach_only or mixed or (sw.average and sw.best))
                if sw.derive and not own:
                    off = tree.offset[node]
                    na = tree.num_children[node]
                    nh = nt if mine else no
                    masked = sw.rbp and has_pruned(rb.pruned, off, na * nh)
                    if sw.average:
                        strategy_rows(st.cumulative, off, na, nh, SG, d, sc.sd, 0)
                    elif masked:
                        regret_matching(st.regrets, off, na, nh, 0, nh, rb.pruned, masked, SG, d,
                                        0, sc.sd)  # fmt: skip
                    else:
                        strategy_rows(st.regrets, off, na, nh, SG, d, sc.sd, 0)
                    if lock_here:
                        play_locked(lk.hand, lk.strategy, off, tree.ioffset[node], na, nh, SG, d)
            else:  # showdown (raked: worth A − r/2, the −r/2 term added below)
                amount = tree.payoff[node] - 0.5 * tree.rake[node]
                raked = tree.rake[node] != 0.0
                if sw.two_card:
                    if not have_pq:
                        showdown_prefix(sdt, b, trav, no, RE, rrow[d], sc.sd64)
                    showdown_rows(sdt, b, trav, nt, no, amount, VA, d, sc.card_sum, sc.sd64)
                    pq_next = next_sibling(tree, node, trav)
                else:
                    showdown_generic(hands, boards, b, trav, amount, RE, rrow[d], VA, d,
                                     sc.card_sum, sc.card_sum2)  # fmt: skip
                at_leaf = True
            if raked:  # −r/2 per compatible opponent hand, in the free row below (one copy)
                raked = False
                rk = -0.5 * tree.rake[node]
                if kind != RUNOUT and sw.two_card:  # from the showdown's prefix sums
                    fold_prefix(sdt, b, trav, nt, no, rk, RE, rrow[d], VA, d + 1, sc.card_sum,
                                sc.sd64)  # fmt: skip
                else:
                    fold_rows(ft, b, trav, no, nt, hands.num_cards, rk, RE, rrow[d], VA, d + 1,
                              sc.card_sum)  # fmt: skip
                for h in range(nt):
                    VA[d, h] += VA[d + 1, h]
        if not at_leaf:
            k = nxt[d]
            na = tree.num_children[node]
            if k < na:  # descend into child k
                child = tree.first_child[node] + k
                CL[d + 1] = CL[d] + (1 if kind == CHANCE else 0)
                mine = kind == DECISION and tree.player[node] == trav
                if kind == CHANCE and multi:
                    reached = chance_rows(mw, tree.chance_weight[child], d, nt, trav, RE, rrow,
                                          boards.valid, tree.board[child])  # fmt: skip
                elif kind == CHANCE:
                    reached = chance_child(tree, boards, child, d, no, opp, sc)
                    if sw.rnr:
                        free_chance_child(tree, boards, child, d, no, opp, sc)
                elif mine:
                    reached = True
                    if not traverser_child(k, d, nt, sw.rbp, tree.offset[node], tree.board[node],
                                           trav, boards.valid, rb.pruned, sc.live,
                                           rrow):  # fmt: skip
                        for h in range(nt):  # pruned for every hand: not walked
                            AV[d, k, h] = 0.0
                        nxt[d] = k + 1
                        continue
                elif multi:
                    reached = opponent_rows(mw, k, d, no, tree.player[node], sw.derive,
                                            tree.offset[node], sigma, SG, RE, rrow)  # fmt: skip
                elif sw.rnr:
                    reached = restricted_child(k, d, no, sw.derive, tree.offset[node], sigma, sc,
                                               lk)  # fmt: skip
                else:
                    reached = opponent_child(k, d, no, sw.derive, tree.offset[node], sigma, SG,
                                             RE, rrow)  # fmt: skip
                if not reached and sw.skip_zero:
                    # the opponent never reaches the child: every value below is 0
                    if sw.update and not sw.zero_noop:
                        touched += zero_update(tw, child, trav, co, d + 1)
                    nxt[d] = na if (kind == CHANCE and sw.sampled) else k + 1
                    continue
                if sw.rbp and not mine:
                    for h in range(nt):
                        sc.live[d + 1, h] = sc.live[d, h]
                d += 1
                stack[d] = child
                nxt[d] = -1
                continue
            # all children done: finish the node
            lock_here = sw.locked and kind == DECISION and lk.node[node] != 0
            off = tree.offset[node]
            ioff = tree.ioffset[node]
            if kind == DECISION and tree.player[node] == trav:
                if sw.derive_rm and not sw.rbp and not lock_here:
                    mixed_values(d, na, nt, off, st.regrets, AV, VA, sc.sd)
                else:
                    node_values(d, na, nt, sw.best, sw.derive, off, sigma, SG, AV, VA)
                if sw.best and lock_here:  # a best response leaves the locked hands alone
                    locked_values(lk.hand, lk.strategy, off, ioff, na, nt, AV, VA, d)
                if sw.update:
                    if lock_here:
                        keep_update(st, off, ioff, na, nt, sc.keep)
                    update_traverser(st, co, node, off, ioff, na, nt, d, sc, sw.rbp, rb.pruned)
                    if lock_here:
                        restore_update(st, lk.hand, off, ioff, na, nt, sc.keep)
                    if sw.rbp:
                        rbp_node(hands, boards, tree, st.regrets, rb, co, fl, node, sc, d)
                elif sw.record:
                    record_node(hands, boards, tree, rb, node, trav, sc, d)
            elif kind == DECISION and CQ[d] == 0.0:  # the opponent reaches none of its children
                for h in range(nt):
                    VA[d, h] = 0.0
            # (more than two players: only player trav − 1's sums, from its own reach row)
            sums_here = not multi or tree.player[node] == (trav + mw.players - 1) % mw.players
            if kind == DECISION and tree.player[node] != trav and sw.update and sums_here:
                if lock_here:
                    keep_cells(st.cumulative, off, na * no, sc.keep, 1)
                # (the learner of a restricted Nash response sums with its own, free reach;
                # with more than two players the owner's row of the node's reach rows)
                r0 = rrow[d] + stack.shape[0] if sw.rnr else rrow[d]
                if multi:
                    r0 = rrow[d] * mw.players + tree.player[node]
                add_sums(st, sigma, sc, d, sw.derive, co, node, off, na, no, r0)
                if lock_here:
                    restore_locked(st.cumulative, lk.hand, off, ioff, na, no, sc.keep, 1)
        # the node at depth d is finished: hand its values to the parent
        if d == 0:
            if not tasks:
                return touched
            for h in range(nt):
                lv.task_value[ti, h] = VA[0, h]
            task_done(by_ref(SlotTables(tree, hands, boards, lv)), ti, trav, nt)
            ti, z = next_task(tw, fl, co, start)
            touched += z
            if ti < 0:
                return touched
            stack[0] = lv.task_node[ti]
            nxt[0] = -1
            continue
        parent = stack[d - 1]
        k = nxt[d - 1]
        if tree.kind[parent] == CHANCE:  # each card's values, suit-isomorphic images mapped
            add_chance_rows(tree, hands, boards, node, trav, nt, VA, d, VA, d - 1)
            if sw.sampled:  # the one child drawn stands for them all
                k = tree.num_children[parent] - 1
        elif tree.player[parent] == trav:
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
