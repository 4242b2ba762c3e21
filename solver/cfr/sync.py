"""The counters the threads of a split chunk wait on (:func:`~solver.cfr.drive.drive`'s
``OP_SPLIT``, :mod:`solver.cfr.parallel`): publish, join, wait."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.atomic import cpu_pause, load_acquire, sched_yield, swap_if
from solver.jit import kernel

# split_iterations' counters: the passes thread 0 has published, the task steps finished
# (every thread counts each of its own), a flag that stops every thread (one raised), then
# per thread t ≥ 1 where it stands: p > 0 once it takes part from pass p on, -p while thread
# 0 has finished passes 1 … p without it (0: none yet)
GO, DONE, ABORT, SYNC = 0, 1, 2, 3
# where each thread of a split chunk adds up its time (``Split.times``: row t thread t's,
# nanoseconds of the monotonic clock, :mod:`solver.cfr.clock`): thread 0 collecting the
# reach at the cut (the serial upper tree), running tasks, waiting — thread 0 for the other
# threads' last tasks, a thread ≥ 1 to join and for thread 0's next pass —, finishing the
# upper tree (its updates and the slots' values); the whole call; the passes whose tasks it
# took part in. Eight columns: a thread's row is one 64-byte cache line
T_COLLECT, T_TASKS, T_WAIT, T_FINISH, T_WALL, T_PASSES, T_COLS = 0, 1, 2, 3, 4, 5, 8
# checks a waiting thread spins through (pause hints: ~10–50 µs in all) before it yields
SPINS = 1000


@kernel
def wait_for(sync: npt.NDArray[np.int64], i: int, target: int) -> bool:
    """Wait until ``sync[i]`` ≥ ``target``; False if the abort flag went up meanwhile.
    The waits are short (thread 0's upper-tree steps, a few dozen nodes; the other threads'
    last task), shorter than sleeping and waking: the thread spins, with the CPU's pause
    hint, and after :data:`SPINS` checks gives its core away (``sched_yield``) between
    checks, so a longer wait does not hold a core that the app's server, the browser or a
    noisy neighbour's vCPU needs."""
    spins = 0
    while load_acquire(sync, i) < target:
        if load_acquire(sync, ABORT) != 0:
            return False
        if spins < SPINS:
            spins += 1
            cpu_pause()
        else:
            sched_yield()
    return True


@kernel
def thread_joins(sync: npt.NDArray[np.int64], tid: int, passes: int) -> int:
    """Thread ``tid`` ≥ 1 joins the chunk: the first pass thread 0 has not finished its
    tasks of without it, recorded in ``sync[SYNC + tid]`` (a compare-and-swap against
    thread 0's :func:`taking_part`); ``passes`` + 1 if the chunk is over."""
    while True:
        s = load_acquire(sync, SYNC + tid)
        first = 1 - s  # s = -p: passes 1 … p went on without this thread
        if first > passes or swap_if(sync, SYNC + tid, s, first):
            return first


@kernel
def taking_part(sync: npt.NDArray[np.int64], tid: int, p: int) -> bool:
    """Thread 0, its tasks of pass ``p`` done: whether thread ``tid`` takes part in the
    pass (it joined), or else the pass goes on without it (recorded: a compare-and-swap
    against the thread's :func:`thread_joins`, so exactly one of the two decides)."""
    s = load_acquire(sync, SYNC + tid)
    if s > 0:
        return True
    return not swap_if(sync, SYNC + tid, s, -p)
