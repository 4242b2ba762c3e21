"""A split pass's tasks (:mod:`solver.cfr.parallel`): each thread claims the next task of
its own queue — then, that one empty, of the others' — walks it (the walk runs the tasks it
claims one after another), and counts it done; the thread that counts a slot's last task
puts the slot's values together for the finishing walk. Kernels called, not inlined: once
per task, off the common path.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.atomic import fetch_add, load_acquire
from solver.cfr.borrow import by_ref, deref
from solver.cfr.chance import add_chance_child
from solver.cfr.layout import (
    MODE_BR,
    MODE_EVAL,
    MODE_UPDATE,
    PRUNE_NONE,
    PassFlags,
    SlotRef,
    SlotTables,
    WalkRef,
)
from solver.cfr.update import zero_update, zero_update_is_noop
from solver.games.model import RUNOUT
from solver.jit import called_kernel

Array = npt.NDArray[np.float64]
Int = int | np.int64

# a split pass's task queues, one per thread (:func:`~solver.cfr.parallel.make_parallel`),
# each on a cache line of its own in ``Leaves.claimed``: queue q's claims so far at
# ``claimed[QUEUE * q + Q_HEAD]``, its tasks ``order[claimed[QUEUE * q + Q_START] :
# claimed[QUEUE * q + Q_END]]``, biggest first
QUEUE, Q_HEAD, Q_START, Q_END = 8, 0, 1, 2


@called_kernel
def task_done(refs: SlotRef, k: Int, trav: Int, nt: Int) -> None:
    """Task ``k``'s values are in ``lv.task_value[k]``: count it done for its slot (an
    atomic add, after the values are written); the thread that counts a slot's last task
    puts the slot's values in ``lv.value[slot]`` — a runout's own, or a chance node's
    children's summed in task order (:func:`~solver.cfr.chance.add_chance_child`), as the
    serial walk sums them. ``refs``: :class:`~solver.cfr.layout.SlotTables`."""
    lv = deref(refs).lv
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
        add_chance_child(refs, lv.task_node[j], trav, nt, lv.task_value[j],
                         lv.value[s])  # fmt: skip


@called_kernel
def next_task(refs: WalkRef, fl: PassFlags, co: Array, tid: Int) -> tuple[int, int]:
    """The next task thread ``tid`` claims (an atomic add on its queue's count in
    ``lv.claimed``, :data:`QUEUE`: its own queue first, then the next threads' in turn, so
    the threads work apart until one runs out) that the opponent reaches, its reach
    put in ``sc.reach[0]`` (a chance child's: chance weight and card removal applied; a
    runout's or a river's cut node's as it arrived); returns (the task or -1 when none is
    left, the nodes touched on the way). A task the opponent does not reach is skipped as
    the serial walk skips it — values 0, and the zero update when its chance node was
    reached (else, and for a river's cut node, the upper walk's covers it). ``refs``: the
    walk's tables (:class:`~solver.cfr.layout.WalkTables`)."""
    tree, hands, boards, lv, _, _, sc = deref(refs)
    trav = fl.trav
    mode = fl.mode
    opp = 1 - trav
    no = hands.num_hands[opp]
    nt = hands.num_hands[trav]
    skip_zero = mode in (MODE_BR, MODE_EVAL) or fl.prune != PRUNE_NONE
    touched = 0
    RE = sc.reach
    nq = lv.claimed.shape[0] // QUEUE
    while True:
        k = np.int64(-1)  # (task_done's one signature: drive's task is an int64)
        for j in range(nq):
            b = ((tid + j) % nq) * QUEUE
            first = lv.claimed[b + Q_START]
            n = lv.claimed[b + Q_END] - first
            if load_acquire(lv.claimed, b + Q_HEAD) >= n:
                continue  # empty: no atomic add on its line
            i = fetch_add(lv.claimed, b + Q_HEAD)
            if i < n:
                k = np.int64(lv.order[first + i])
                break
        if k < 0:
            return -1, touched
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
            task_done(by_ref(SlotTables(tree, hands, boards, lv)), k, trav, nt)
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
            touched += zero_update(refs, np.int64(node), trav, co, np.int64(1))
        for h in range(nt):
            lv.task_value[k, h] = 0.0
        task_done(by_ref(SlotTables(tree, hands, boards, lv)), k, trav, nt)
