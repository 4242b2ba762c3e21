"""Passes split over threads: the first chance nodes below the root are cut out, each of
their children is a task, and threads run the tasks with their own scratch while the kernels
release the GIL. A river (no chance node) past :data:`MIN_SPLIT_COST` is cut at decision
nodes instead, each its own task (:func:`_river_cut`).

A parallel pass is three steps of :func:`~solver.cfr.drive.run_pass`: collect the opponent
reach arriving at each cut chance node and each all-in runout above them (the upper tree,
nothing updated); run the tasks — the cut nodes' children, and the runouts — every thread
claiming the next one, biggest first, from a queue of its own and then from the others'
(:func:`_task_queues`), until none is left, and the thread that finishes a cut node's last
task summing its tasks' values in task order; finish the upper tree with
those values, doing its updates (the only serial work left: a few dozen decision nodes).
The result equals the serial pass bit for bit (same sums in the same order), whatever the
number of threads and whichever thread ran a task. Every solve shares one thread pool sized
to the machine's cores (:func:`max_threads`): solves ask for at most that many threads.

A solve's iterations run in one kernel call per thread per chunk
(:func:`split_iterations`), not one Python call per step: thread 0 does the upper tree's
steps and publishes each pass on a counter the other threads wait on, and waits on a second
counter for every thread to finish the pass's tasks; a thread that starts late joins at the
next pass thread 0 has not finished without it. Handing each step over from Python (a
pool hand-off and three kernel calls per pass, ~0.1 ms) was a third of what two threads
lost per T1 pass, and the solve thread needed the GIL eight times per iteration, waiting
behind whatever a UI was drawing. Best-response passes (two per check) run one per thread,
unsplit, side by side on two threads (:func:`beside`), and keep :func:`parallel_pass` on
more (a river's stay serial: :attr:`Parallel.split_checks`).
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from solver.cfr import drive as _drive
from solver.cfr.drive import run_pass
from solver.cfr.layout import (
    LEAF_COLLECT,
    LEAF_TASKS,
    LEAF_USE,
    Leaves,
    PassFlags,
    Scratch,
    Storage,
    game_arrays,
    make_scratch,
)
from solver.cfr.locks import Locks
from solver.cfr.pruning.state import RBPState
from solver.cfr.sync import (  # noqa: F401  (re-exported)
    ABORT,
    DONE,
    GO,
    SYNC,
    T_COLLECT,
    T_COLS,
    T_FINISH,
    T_PASSES,
    T_TASKS,
    T_WAIT,
    T_WALL,
)
from solver.cfr.tasks import Q_END, Q_START, QUEUE
from solver.cfr.walk import SolveState
from solver.games.model import CHANCE, DECISION, RUNOUT, Game, Hands, Tree
from solver.jit import kernel

T = TypeVar("T")

Array = npt.NDArray[np.float64]


def max_threads() -> int:
    """The most solver threads a solve may use: this machine's cores (more only add memory
    and contention)."""
    return max(1, os.cpu_count() or 1)


@dataclass(frozen=True)
class Parallel:
    """How a game's passes split over ``threads`` threads: the cut chance nodes and tasks
    (``leaves``) and one scratch per thread. ``threads`` = 1 (or a game with no chance node
    to cut): the serial walk."""

    threads: int
    leaves: Leaves
    scratches: tuple[Scratch, ...]
    # (SYNC + threads,) int64: the counters of :func:`split_iterations`
    sync: npt.NDArray[np.int64]
    # whether the cut is at chance nodes (a turn or flop): best-response passes split too;
    # a river's cut (decision nodes) splits CFR passes only, a check's two passes stay serial
    # (~30 µs each on R1: a Python-stepped split would cost more than it saves)
    split_checks: bool = False
    # (threads, T_COLS) int64: each thread's time in the split chunks so far, nanoseconds
    # by what it did (:func:`split_iterations`, :func:`thread_times`)
    times: npt.NDArray[np.int64] = field(
        default_factory=lambda: np.zeros((1, T_COLS), dtype=np.int64)
    )

    @property
    def task_node(self) -> npt.NDArray[np.int32]:
        return self.leaves.task_node


def make_parallel(
    game: Game,
    threads: int = 1,
    min_cost: float | None = None,
    dtype: type[np.floating] = np.float64,
) -> Parallel:
    """Split ``game``'s passes over ``threads`` threads: the first chance nodes below the
    root become cut points and each of their children a task. A game with no chance node
    (a river) is cut at its decision nodes instead (:func:`_river_cut`) when a pass is worth
    splitting: at least ``min_cost`` hand-cells (:func:`subtree_costs`; default
    :data:`MIN_SPLIT_COST`). The threads' scratch and the slots' reach and values are in
    the walk's precision ``dtype`` (as the serial walk's, so the numbers are the same)."""
    if threads < 1:
        raise ValueError("threads must be ≥ 1")
    t = game.tree
    h = int(max(game.hands.cards.shape[1], 1))
    slot = np.full(game.num_nodes, -1, dtype=np.int32)
    chance: list[int] = []
    runouts: list[int] = []  # all-in runouts above the cut: each a task of its own
    own: list[int] = []  # a river's cut: decision and terminal nodes, each its own task
    if threads > 1:
        stack = [0]
        while stack:
            n = stack.pop()
            if t.kind[n] == CHANCE:
                chance.append(n)
                continue
            if t.kind[n] == RUNOUT:
                runouts.append(n)
            stack.extend(game.children(n))
        if not chance:
            runouts = []
            own = _river_cut(game, threads, MIN_SPLIT_COST if min_cost is None else min_cost)
        chance.sort()
        runouts.sort()
    cut = chance + runouts + own
    for i, n in enumerate(cut):
        slot[n] = i
    per_slot = [list(game.children(n)) if t.kind[n] == CHANCE else [n] for n in cut]
    task_slot = np.array([i for i, ts in enumerate(per_slot) for _ in ts], dtype=np.int32)
    task_node = np.array([c for ts in per_slot for c in ts], dtype=np.int32)
    slot_start = np.zeros(len(cut) + 1, dtype=np.int32)
    slot_start[1:] = np.cumsum([len(ts) for ts in per_slot])
    if task_node.size == 0:
        threads = 1
    order, claimed = _task_queues(game, task_node, threads)
    leaves = Leaves(
        slot,
        np.zeros((max(len(cut), 1), h), dtype=dtype),
        np.zeros((max(len(cut), 1), h), dtype=dtype),
        task_slot,
        task_node,
        np.zeros((max(task_node.size, 1), h), dtype=dtype),
        order,
        claimed,
        slot_start,
        np.zeros(max(len(cut), 1), dtype=np.int64),
    )
    scratches = tuple(make_scratch(game, dtype) for _ in range(threads)) if threads > 1 else ()
    return Parallel(
        threads, leaves, scratches, np.zeros(SYNC + threads, dtype=np.int64), bool(chance),
        np.zeros((threads, T_COLS), dtype=np.int64),
    )  # fmt: skip


# a river's pass is split over threads from this many hand-cells (:func:`subtree_costs`) on.
# Measured (docs/engine.md, "A river has no chance node"): with 10-iteration chunks, two
# threads took 0.74–1.12 of one thread's time on a 73,000-cell river and 0.77–0.91 on
# 38,000–44,000 cells, but 0.92–1.31 on R1 (~27,000, ~0.75 ms a chunk): the other thread
# joins a chunk a pass or two late, and the upper tree's steps cost ~4 µs a pass
MIN_SPLIT_COST = 40000.0
# a river's cut: no task bigger than the pass's work / (this × threads)
RIVER_GRAIN = 2


def _river_cut(game: Game, threads: int, min_cost: float) -> list[int]:
    """The nodes a game with no chance node (a river) is cut at, each its own task: from
    the root down, the decision node with the biggest subtree is replaced by its children
    until no decision node left in the cut holds more than 1 / (:data:`RIVER_GRAIN` ×
    ``threads``) of the pass's work (R1's tree on two threads: 2 decision nodes above, ~6 %
    of the work, and 7 tasks). Sorted; empty when the pass is under ``min_cost``
    hand-cells."""
    cost = subtree_costs(game.tree, game.hands, game.parents)
    if cost[0] < min_cost or game.tree.kind[0] != DECISION:
        return []
    limit = cost[0] / (RIVER_GRAIN * threads)
    cut = [0]
    while True:
        big = [n for n in cut if game.tree.kind[n] == DECISION and cost[n] > limit]
        if not big:
            return sorted(cut) if cut != [0] else []
        n = max(big, key=lambda v: (cost[v], -v))
        cut.remove(n)
        cut.extend(game.children(n))


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


def task_costs(game: Game, task_node: npt.NDArray[np.int32]) -> Array:
    """(K,): each task's work in hand-cells (:func:`subtree_costs`; a runout one hands ×
    hands product)."""
    cost = subtree_costs(game.tree, game.hands, game.parents)[task_node].astype(np.float64)
    runout = game.tree.kind[task_node] == RUNOUT
    cost[runout] = float(game.hands.num_hands[0]) * float(game.hands.num_hands[1])
    return np.asarray(cost, dtype=np.float64)


def _task_queues(
    game: Game, task_node: npt.NDArray[np.int32], threads: int
) -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int64]]:
    """The order the threads claim the tasks in, (K,), and the queues' counters,
    (threads × :data:`~solver.cfr.tasks.QUEUE`,): the tasks, in task order (cut node by cut
    node), cut into one run of about equal work (:func:`task_costs`) per thread, each run
    its thread's queue, biggest subtree first. A thread claims from its own queue, then from
    the next threads' (:func:`~solver.cfr.tasks.next_task`), so the threads end close
    together (the last tasks claimed are small ones) and until then work on different cut
    nodes' children. On T1 the two threads' tasks took 1.16× one thread's CPU time when
    they shared one biggest-first list (running the same cut nodes' children side by side)
    and 1.11× on queues of their own (thread CPU time, four interleaved runs). One queue per
    thread whatever its length; the results do not depend on it (module docstring)."""
    k = task_node.size
    claimed = np.zeros(max(threads, 1) * QUEUE, dtype=np.int64)
    if k == 0:
        return np.zeros(0, dtype=np.int32), claimed
    cost = task_costs(game, task_node)
    ends = np.cumsum(cost)
    cuts = [0]
    for q in range(1, threads):  # run q: the tasks whose work ends past q / threads of it
        cuts.append(max(cuts[-1], int(np.searchsorted(ends, ends[-1] * q / threads))))
    cuts.append(k)
    order = []
    for q in range(threads):
        run = np.arange(cuts[q], cuts[q + 1])
        order.append(run[np.argsort(-cost[run], kind="stable")])
        claimed[q * QUEUE + Q_START] = cuts[q]
        claimed[q * QUEUE + Q_END] = cuts[q + 1]
    return np.concatenate(order).astype(np.int32), claimed


_POOL: ThreadPoolExecutor | None = None
_POOL_LOCK = threading.Lock()


def _pool() -> ThreadPoolExecutor:
    """The one pool every parallel pass submits to (worker threads start on demand, at most
    :func:`max_threads`; they are reused by every solve of the process)."""
    global _POOL
    with _POOL_LOCK:
        if _POOL is None:
            _POOL = ThreadPoolExecutor(max_threads(), thread_name_prefix="regret-lab-solver")
        return _POOL


def beside(fn: Callable[..., T], *args: object) -> Future[T]:
    """``fn(*args)`` on a pool thread (a kernel call that releases the GIL), while the
    caller does something else: the caller takes ``.result()``."""
    return _pool().submit(fn, *args)


def parallel_pass(
    game: Game,
    sigma: Array,
    st: Storage,
    rb: RBPState,
    lk: Locks,
    co: Array,
    u: Array,
    fl: PassFlags,
    sc: Scratch,
    par: Parallel,
) -> int:
    """One pass for ``fl.trav`` from the root split over ``par.threads`` threads (module
    docstring). Values at the root end up in ``sc.value[0]``; returns the nodes visited."""
    g = game_arrays(game)
    state = SolveState(st, rb, lk)
    lv = par.leaves

    def flags(leaf: int) -> PassFlags:
        return fl._replace(leaf=leaf)

    run_pass(g, state, 0, sigma, co, u, flags(LEAF_COLLECT), sc, lv)
    tasks = flags(LEAF_TASKS)

    def args(t: int) -> tuple:
        tsc = sc if t == 0 else par.scratches[t]  # (as in :func:`split_iterations`)
        return (g, state, t, sigma, co, u, tasks, tsc, lv)

    # every thread claims tasks from one list until none is left (:mod:`solver.cfr.atomic`);
    # the calling thread is one of them: one pool thread fewer to wake per pass
    pool = _pool()
    futures = [pool.submit(run_pass, *args(t)) for t in range(1, par.threads)]
    touched = int(run_pass(*args(0)))
    touched += sum(int(f.result()) for f in futures)
    touched += int(run_pass(g, state, 0, sigma, co, u, flags(LEAF_USE), sc, lv))
    return touched


# a split chunk's counters (:mod:`solver.cfr.sync`); the kernel is drive's OP_SPLIT
run_split_iterations = _drive.run_split_iterations


def split_iterations(
    game: Game,
    st: Storage,
    rb: RBPState,
    lk: Locks,
    coefs: Array,
    draws: Array,
    fl: PassFlags,
    sc: Scratch,
    par: Parallel,
) -> int:
    """Run ``coefs.shape[0]`` CFR iterations with every pass split over ``par.threads``
    threads, one kernel call per thread (:func:`run_split_iterations`); the numbers equal
    the serial walk's bit for bit. ``coefs`` (K, C) the rule's rows, ``draws`` (K, 4),
    ``fl`` player 0's flags, ``sc`` the upper tree's scratch. Returns the nodes visited;
    each thread adds its time to ``par.times`` (:func:`thread_times`)."""
    if coefs.ndim != 2 or draws.shape != (coefs.shape[0], 4):
        raise ValueError(f"coefs (K, C) and draws (K, 4) expected, got {coefs.shape}, "
                         f"{draws.shape}")  # fmt: skip
    if par.threads < 2:
        raise ValueError("split_iterations needs a game split over two threads or more")
    g = game_arrays(game)
    state = SolveState(st, rb, lk)
    sync = par.sync
    sync[:] = 0

    def run(t: int) -> int:
        try:
            # thread 0 runs its tasks in the upper tree's scratch: between that tree's
            # steps nothing is kept in it, and one scratch fewer stays in its core's cache
            tsc = sc if t == 0 else par.scratches[t]
            n = run_split_iterations(t, par.threads, g, state, coefs, draws, fl, sc, tsc,
                                     par.leaves, sync, par.times)  # fmt: skip
            return int(n)
        except BaseException:
            sync[ABORT] = 1  # the other threads stop waiting for this one
            raise

    pool = _pool()
    futures = [pool.submit(run, t) for t in range(1, par.threads)]
    try:
        touched = run(0)
    finally:
        wait(futures)  # no thread of this chunk outlives the call
    return touched + sum(f.result() for f in futures)


def thread_times(times: npt.NDArray[np.int64]) -> list[dict[str, float]]:
    """Per thread of :attr:`Parallel.times` (the split chunks' time, :func:`split_iterations`):
    seconds collecting the reach (the upper tree's first walk), in tasks, waiting (thread 0
    for the other threads' last tasks; a thread ≥ 1 for thread 0's upper-tree steps and the
    next pass), finishing the upper tree, and in all (``wall``), the passes it took part in,
    and ``idle`` = waiting / wall (0 before any chunk)."""
    out = []
    for row in np.asarray(times, dtype=np.int64):
        wall = float(row[T_WALL]) * 1e-9
        wait = float(row[T_WAIT]) * 1e-9
        out.append({
            "collect": float(row[T_COLLECT]) * 1e-9, "tasks": float(row[T_TASKS]) * 1e-9,
            "wait": wait, "finish": float(row[T_FINISH]) * 1e-9, "wall": wall,
            "passes": float(row[T_PASSES]), "idle": wait / wall if wall > 0.0 else 0.0,
        })  # fmt: skip
    return out
