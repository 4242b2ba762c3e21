"""The walk's one entry point: every kernel call that runs passes goes through :func:`drive`.

Numba compiles a callee once per signature and then again inside every kernel that calls
it (it links the callee's IR into the caller and optimises the whole again), so the walk —
the biggest kernel by far — cost a compilation per signature *and per caller*. Here a single
kernel calls it, with the work named by ``op`` (a value, not a type). (The walk's big callees
are ``called_kernel``: compiled once on their own and called by address, never again inside
this module, :mod:`solver.jit`.)

* :data:`OP_PASS`: one pass for ``fl.trav`` from node ``start`` (:func:`run_pass`);
* :data:`OP_ITERATIONS`: a chunk of alternating CFR iterations (:func:`run_iterations`);
* :data:`OP_SPLIT`: thread ``tid``'s part of a chunk split over ``threads`` threads
  (:func:`run_split_iterations`, :mod:`solver.cfr.parallel`);
* :data:`OP_BEST_RESPONSE`: both players' best-response passes (:func:`best_response_passes`).

The Python wrappers give the kernel uniform types — contiguous, writable arrays, int64
scalars, leaves in the scratch's precision, an empty ``sigma`` for the average strategy in the
storage's own precision — so the walk compiles once per kind of storage and scratch
(``benchmarks/compile.py`` counts them).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.cfr.atomic import fetch_add, store_release
from solver.cfr.clock import now_ns
from solver.cfr.layout import (
    LEAF_COLLECT,
    LEAF_TASKS,
    LEAF_USE,
    MODE_BR,
    MODE_EVAL,
    MODE_REACH,
    MODE_UPDATE,
    PRUNE_INTERVAL,
    GameArrays,
    Leaves,
    PassFlags,
    Scratch,
    Storage,
    pass_flags,
)
from solver.cfr.sync import (
    DONE,
    GO,
    T_COLLECT,
    T_COLS,
    T_FINISH,
    T_PASSES,
    T_TASKS,
    T_WAIT,
    T_WALL,
    taking_part,
    thread_joins,
    wait_for,
)
from solver.cfr.tasks import Q_HEAD, QUEUE
from solver.cfr.walk import SolveState, root_reach, walk
from solver.jit import entry_kernel

Array = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

OP_PASS, OP_ITERATIONS, OP_SPLIT, OP_BEST_RESPONSE = 0, 1, 2, 3

_NO_SYNC = np.zeros(1, dtype=np.int64)
_NO_TIMES = np.zeros((1, T_COLS), dtype=np.int64)
_NO_OUT = np.zeros((1, 1))


class Buffers(NamedTuple):
    """Where :func:`drive`'s passes work and leave their results."""

    sc: Scratch  # the walk's scratch
    tsc: Scratch  # a split thread's own, for its tasks (else ``sc`` again)
    lv: Leaves  # the cut points of a split pass (in the scratch's precision)
    out: Array  # (2, ≥ H) OP_BEST_RESPONSE: each player's root values
    done: I64  # (1,) OP_ITERATIONS: the iterations run


class Split(NamedTuple):
    """Thread ``tid`` of ``threads`` of a split chunk, the counters they share
    (:mod:`solver.cfr.sync`), and where each thread adds up its time (one thread and unused
    arrays for the other ops)."""

    sync: I64
    tid: int
    threads: int
    # (threads, T_COLS) int64: thread t's nanoseconds in row t — collecting, tasks, waiting,
    # finishing, the whole call — and its passes (:mod:`solver.cfr.sync`'s ``T_*``); added
    # to, never reset here
    times: I64


_ONE = Split(_NO_SYNC, 0, 1, _NO_TIMES)  # the one thread of an unsplit op


@entry_kernel
def drive(
    op: int,
    game: GameArrays,
    state: SolveState,
    start: int,
    sigma: Array,
    coefs: Array,
    draws: Array,
    fl: PassFlags,
    buf: Buffers,
    split: Split,
) -> int:
    """Run ``op`` (module docstring) on ``game`` and ``state``; returns the nodes visited.
    ``start`` the node a pass starts from; ``sigma`` the profile both play (the walk's);
    ``coefs`` (K, C) the rule's rows and ``draws`` (K, 4) the chance draws, one per
    iteration (``OP_PASS`` and ``OP_BEST_RESPONSE`` read row 0); ``fl`` the flags (player
    0's for iterations); ``buf`` the scratch, leaves and outputs; ``split`` the thread.

    Every op is a list of steps, each one pass, and the walk is called at one place only
    (it is inlined here: a second call site would be a second copy to compile)."""
    sc, tsc, lv, out, done = buf
    sync, tid, threads, times = split
    touched = 0
    per = 1  # steps per pass (a split chunk's thread 0: collect, tasks, finish)
    first = 1
    mark = 0  # OP_SPLIT: the clock at the end of the last span counted
    if op == OP_PASS:
        steps = 1
    elif op == OP_BEST_RESPONSE:
        steps = 2
    elif op == OP_ITERATIONS:
        done[0] = 0
        steps = 2 * coefs.shape[0]
    else:  # OP_SPLIT: thread tid's part of the chunk (see run_split_iterations)
        # a clock read at each step's edges (a few per pass: never per node); each span goes
        # to the column of what the thread did in it, so the columns add up to the call
        mark = now_ns()
        times[tid, T_WALL] -= mark
        passes = 2 * coefs.shape[0]
        first = 1 if tid == 0 else thread_joins(sync, tid, passes)
        per = 3 if tid == 0 else 1
        steps = max(passes - first + 1, 0) * per
    joined = 1  # thread 0's count of the threads taking part, itself included
    waited = 0  # the task steps thread 0 waits for, every pass so far
    for s in range(steps):
        k = 0
        trav = fl.trav
        leaf = fl.leaf
        node = start
        scr = sc
        sub = 0  # a split pass's step: 0 collect, 1 tasks, 2 finish
        p = 0
        if op == OP_BEST_RESPONSE:
            trav = s
        elif op == OP_ITERATIONS:
            k = s // 2
            trav = s % 2
        elif op == OP_SPLIT:
            p = first + s // per
            k = (p - 1) // 2
            trav = (p - 1) % 2
            sub = s % per if tid == 0 else 1
            if sub == 0:
                leaf = LEAF_COLLECT
            elif sub == 1:
                leaf = LEAF_TASKS
                node = tid
                scr = tsc
                if tid != 0:
                    ok = wait_for(sync, GO, p)
                    now = now_ns()
                    times[tid, T_WAIT] += now - mark
                    mark = now
                    if not ok:
                        times[tid, T_WALL] += now
                        return touched
            else:
                if joined < threads:  # who takes part in this pass: the threads that joined
                    joined = 1
                    for t in range(1, threads):
                        if taking_part(sync, t, p):
                            joined += 1
                waited += joined
                ok = wait_for(sync, DONE, waited)
                now = now_ns()
                times[tid, T_WAIT] += now - mark
                mark = now
                if not ok:
                    times[tid, T_WALL] += now
                    return touched
                leaf = LEAF_USE
        mode = fl.mode
        if leaf == LEAF_COLLECT:
            lv.reach[:, :] = 0.0
            for b in range(0, lv.claimed.shape[0], QUEUE):
                lv.claimed[b + Q_HEAD] = 0  # the tasks' step claims each queue from its first
            lv.slot_done[:] = 0
            if mode == MODE_UPDATE:
                mode = MODE_REACH  # (the collecting walk updates nothing)
        if leaf != LEAF_TASKS and node == 0:
            root_reach(game.hands, 1 - trav, scr.reach[0])
        f = PassFlags(trav, mode, leaf, fl.prune, fl.sampled, fl.record, fl.nostart,
                      fl.margin, fl.average)  # fmt: skip
        n = walk(game, state, node, sigma, coefs[k], draws[k], f, scr, lv)
        if op == OP_SPLIT:
            now = now_ns()
            col = T_COLLECT if sub == 0 else (T_TASKS if sub == 1 else T_FINISH)
            times[tid, col] += now - mark
            mark = now
            if sub == 1:
                times[tid, T_PASSES] += 1
            if sub == 0:
                # not counted: the finishing step visits these nodes again, as the serial
                # walk visits them once
                store_release(sync, GO, p)
                continue
            if sub == 1:
                fetch_add(sync, DONE)
        touched += n
        if op == OP_BEST_RESPONSE:
            for h in range(game.hands.num_hands[trav]):
                out[trav, h] = scr.value[0, h]
        elif op == OP_ITERATIONS and trav == 1:
            done[0] = k + 1
            if fl.prune >= PRUNE_INTERVAL and state.rb.ctl[0] > 0:
                break  # a pruned action must be caught up before the next iteration
    if op == OP_SPLIT:
        times[tid, T_WALL] += now_ns()
    return touched


# ----- the wrappers: uniform types ------------------------------------------------------------
def _arr(a: npt.NDArray, dtype: type | np.dtype | None = None) -> npt.NDArray:
    """``a`` C-contiguous and writable (a read-only or strided array is another kernel type:
    another compilation), in ``dtype`` if given; the same object when it already is."""
    return np.require(a, dtype=dtype, requirements=("C", "W"))


def _rows(a: Array) -> Array:
    """A rule's row or chance draws as a (K, C) writable C array."""
    a = _arr(a, np.float64)
    return a.reshape(1, -1) if a.ndim == 1 else a


def _sigma(sigma: Array, st: Storage) -> Array:
    """The profile a pass plays: an empty ``sigma`` (the average strategy of ``st``'s sums)
    in the storage's float type, else ``sigma`` as it is given (made C and writable)."""
    if sigma.shape[0] == 0:
        return np.empty(0, dtype=st.strategy.dtype)
    return _arr(sigma)


def _leaves(lv: Leaves, sc: Scratch) -> Leaves:
    """Leaves whose value arrays are in the scratch's precision (an unsplit pass's leaves
    are never read: placeholders of the right type)."""
    if lv.value.dtype == sc.value.dtype:
        return lv
    f2 = np.zeros((1, 1), dtype=sc.value.dtype)
    return Leaves(lv.slot, f2, f2.copy(), lv.task_slot, lv.task_node, f2.copy(), lv.order,
                  lv.claimed, lv.slot_start, lv.slot_done)  # fmt: skip


def _fl(fl: PassFlags, sigma: Array | None = None) -> PassFlags:
    """``fl`` with Python scalars of the kernel's types; ``average`` set where a
    best-response or evaluation pass is given an empty ``sigma`` (the average of the sums)."""
    average = sigma is not None and sigma.shape[0] == 0 and fl.mode in (MODE_BR, MODE_EVAL)
    return pass_flags(*fl._replace(average=average))


def run_pass(
    game: GameArrays, state: SolveState, start: int, sigma: Array, co: Array, u: Array,
    fl: PassFlags, sc: Scratch, lv: Leaves,
) -> int:  # fmt: skip
    """A pass for ``fl.trav`` from node ``start`` of ``game`` over ``state``.

    ``start`` 0 (the root) begins from the deal (:func:`~solver.cfr.walk.root_reach`);
    another node from the opponent reach the caller put in ``sc.reach[0]`` (chance and card
    removal included). ``fl.leaf``: ``LEAF_COLLECT`` stores the reach arriving at each
    slotted node (and updates nothing: a CFR pass walks the reach only); ``LEAF_TASKS`` runs
    the tasks thread ``start`` claims, the thread finishing a slot's last task summing the
    slot's values (the threads' step of a parallel pass, :mod:`solver.cfr.parallel`);
    ``LEAF_USE`` walks the upper tree with the slots' values. ``sigma`` (A,) the profile
    both play, or empty: the average of the storage's sums. ``co`` the rule's row, ``u``
    (4,) the chance draws. Values at ``start`` end up in ``sc.value[0]``; returns the nodes
    visited."""
    buf = Buffers(sc, sc, _leaves(lv, sc), _NO_OUT, _NO_SYNC)
    sig = _sigma(sigma, state.st)
    n = drive(OP_PASS, game, state, int(start), sig, _rows(co), _rows(u), _fl(fl, sigma), buf, _ONE)
    return int(n)


def run_iterations(
    game: GameArrays, state: SolveState, coefs: Array, draws: Array, fl: PassFlags,
    sc: Scratch, lv: Leaves, done: I64,
) -> int:  # fmt: skip
    """Run up to ``coefs.shape[0]`` CFR iterations serially (alternating: player 0 then
    player 1), ``coefs[k]`` the rule's row and ``draws[k]`` (4,) the chance draws of the
    chunk's k-th iteration; ``fl`` the flags of player 0's passes. Updates ``state`` in
    place; returns the nodes visited; ``done[0]`` says how many iterations ran (fewer when
    regret-based pruning asks for a catch-up, see ``RBPState.ctl``)."""
    buf = Buffers(sc, sc, _leaves(lv, sc), _NO_OUT, done)
    sigma = state.st.strategy
    n = drive(OP_ITERATIONS, game, state, 0, sigma, _rows(coefs), _rows(draws), _fl(fl), buf, _ONE)
    return int(n)


def run_split_iterations(
    tid: int, threads: int, game: GameArrays, state: SolveState, coefs: Array, draws: Array,
    fl: PassFlags, sc: Scratch, tsc: Scratch, lv: Leaves, sync: I64, times: I64 | None = None,
) -> int:  # fmt: skip
    """Thread ``tid``'s part of ``coefs.shape[0]`` iterations split over ``threads``
    threads (as :func:`run_iterations`: alternating, ``coefs[k]`` and ``draws[k]`` the
    k-th iteration's; ``fl`` player 0's flags). Every pass is
    :func:`~solver.cfr.parallel.parallel_pass`'s three steps. Thread 0 collects (scratch
    ``sc``), publishes the pass (``sync[GO]``), runs tasks (scratch ``tsc``), waits until
    every thread taking part has counted its task step done (``sync[DONE]``), and finishes
    the upper tree. A thread ``tid`` ≥ 1 takes part from the pass it starts in on — the
    first one thread 0 has not finished its tasks of (``sync[SYNC + tid]``: whoever comes
    first decides), so a thread still queued behind another solve's never holds this one
    up, and one that starts late still helps with the rest. Returns the nodes this thread
    visited; every thread returns early when ``sync[ABORT]`` is set (the caller sets it when
    a thread raised). ``times`` (threads, T_COLS) int64: the thread adds its nanoseconds
    and passes to row ``tid`` (:data:`~solver.cfr.sync.T_COLLECT` …; none: not kept)."""
    buf = Buffers(sc, tsc, _leaves(lv, sc), _NO_OUT, _NO_SYNC)
    if times is None:
        times = np.zeros((int(threads), T_COLS), dtype=np.int64)
    split = Split(sync, int(tid), int(threads), times)
    sigma = state.st.strategy
    n = drive(OP_SPLIT, game, state, 0, sigma, _rows(coefs), _rows(draws), _fl(fl), buf, split)
    return int(n)


def best_response_passes(
    game: GameArrays, state: SolveState, sigma: Array, co: Array, u: Array, fl: PassFlags,
    sc: Scratch, lv: Leaves, out: Array,
) -> int:  # fmt: skip
    """Both players' passes with flags ``fl`` (its ``trav`` ignored) from the root in one
    call: ``out[p, :H[p]]`` ← player p's root values, as
    :func:`~solver.cfr.bestresponse.root_player_values` gives them one call each (a check on
    a small game is a few dozen microseconds of walk; each call from Python adds more).
    Returns the nodes visited."""
    buf = Buffers(sc, sc, _leaves(lv, sc), out, _NO_SYNC)
    sig = _sigma(sigma, state.st)
    n = drive(OP_BEST_RESPONSE, game, state, 0, sig, _rows(co), _rows(u), _fl(fl, sigma), buf, _ONE)
    return int(n)
