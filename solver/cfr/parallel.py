"""Passes split over threads: the first chance nodes below the root are cut out, each of
their children is a task, and threads run the tasks with their own scratch while the kernels
release the GIL.

A parallel pass is three steps of :func:`~solver.cfr.walk.run_pass`: collect the opponent
reach arriving at each cut chance node and each all-in runout above them (the upper tree,
nothing updated); run the tasks — the cut nodes' children, and the runouts — every thread
claiming the next one, biggest first, until none is left, and the thread that finishes a
cut node's last task summing its tasks' values in task order; finish the upper tree with
those values, doing its updates (the only serial work left: a few dozen decision nodes).
The result equals the serial pass bit for bit (same sums in the same order), whatever the
number of threads and whichever thread ran a task. Every solve shares one thread pool sized
to the machine's cores (:func:`max_threads`): solves ask for at most that many threads.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.cfr.layout import (
    LEAF_COLLECT,
    LEAF_TASKS,
    LEAF_USE,
    Leaves,
    PassFlags,
    Scratch,
    Storage,
    make_scratch,
)
from solver.cfr.locks import Locks
from solver.cfr.pruning.state import RBPState
from solver.cfr.walk import run_pass
from solver.games.model import CHANCE, DECISION, RUNOUT, Game, Hands, Tree
from solver.jit import kernel

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

    @property
    def task_node(self) -> npt.NDArray[np.int32]:
        return self.leaves.task_node


def make_parallel(game: Game, threads: int = 1) -> Parallel:
    """Split ``game``'s passes over ``threads`` threads: the first chance nodes below the
    root become cut points and each of their children a task."""
    if threads < 1:
        raise ValueError("threads must be ≥ 1")
    t = game.tree
    h = int(max(game.hands.cards.shape[1], 1))
    slot = np.full(game.num_nodes, -1, dtype=np.int32)
    chance: list[int] = []
    runouts: list[int] = []  # all-in runouts above the cut: each a task of its own
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
            runouts = []  # nothing to split: the serial walk
        chance.sort()
        runouts.sort()
    cut = chance + runouts
    for i, n in enumerate(cut):
        slot[n] = i
    per_slot = [list(game.children(n)) if t.kind[n] == CHANCE else [n] for n in cut]
    task_slot = np.array([i for i, ts in enumerate(per_slot) for _ in ts], dtype=np.int32)
    task_node = np.array([c for ts in per_slot for c in ts], dtype=np.int32)
    slot_start = np.zeros(len(cut) + 1, dtype=np.int32)
    slot_start[1:] = np.cumsum([len(ts) for ts in per_slot])
    if task_node.size == 0:
        threads = 1
    leaves = Leaves(
        slot,
        np.zeros((max(len(cut), 1), h)),
        np.zeros((max(len(cut), 1), h)),
        task_slot,
        task_node,
        np.zeros((max(task_node.size, 1), h)),
        _task_order(game, task_node),
        np.zeros(1, dtype=np.int64),
        slot_start,
        np.zeros(max(len(cut), 1), dtype=np.int64),
    )
    scratches = tuple(make_scratch(game) for _ in range(threads)) if threads > 1 else ()
    return Parallel(threads, leaves, scratches)


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


def _task_order(game: Game, task_node: npt.NDArray[np.int32]) -> npt.NDArray[np.int32]:
    """(K,): the order the threads claim the tasks in, the biggest subtree first, so the
    last tasks claimed are small ones and the threads finish close together (the subtrees
    below a turn's chance nodes differ several times over in size; a fixed split, the
    biggest first to the least loaded thread, left one thread 0.1–0.5 ms per T1 pass behind
    the other, depending on what else the machine ran)."""
    if task_node.size == 0:
        return np.zeros(0, dtype=np.int32)
    cost = subtree_costs(game.tree, game.hands, game.parents)[task_node]
    runout = game.tree.kind[task_node] == RUNOUT  # one hands × hands product each
    cost[runout] = float(game.hands.num_hands[0]) * float(game.hands.num_hands[1])
    return np.argsort(-cost, kind="stable").astype(np.int32)


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
    g = game
    lv = par.leaves

    def flags(leaf: int) -> PassFlags:
        return fl._replace(leaf=leaf)

    run_pass(g.tree, g.hands, g.boards, 0, sigma, st, rb, lk, co, u, flags(LEAF_COLLECT), sc, lv)
    tasks = flags(LEAF_TASKS)

    def args(t: int) -> tuple:
        return (g.tree, g.hands, g.boards, t, sigma, st, rb, lk, co, u, tasks, par.scratches[t], lv)

    # every thread claims tasks from one list until none is left (:mod:`solver.cfr.atomic`);
    # the calling thread is one of them: one pool thread fewer to wake per pass
    pool = _pool()
    futures = [pool.submit(run_pass, *args(t)) for t in range(1, par.threads)]
    touched = int(run_pass(*args(0)))
    touched += sum(int(f.result()) for f in futures)
    touched += int(
        run_pass(g.tree, g.hands, g.boards, 0, sigma, st, rb, lk, co, u, flags(LEAF_USE), sc, lv)
    )
    return touched
