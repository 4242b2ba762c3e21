"""A split pass's task queues (:func:`solver.cfr.parallel._task_queues`): one run of the
tasks per thread, about equal in work, biggest first; a thread claims its own queue first,
then the others'; and the numbers stay the serial walk's bit for bit."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import task_turn
from numba import njit

from solver import Engine, make_rule
from solver.cfr.borrow import by_ref
from solver.cfr.drive import run_pass
from solver.cfr.layout import (
    LEAF_COLLECT,
    LEAF_TASKS,
    LEAF_USE,
    PassFlags,
    WalkTables,
    game_arrays,
)
from solver.cfr.options import SolveOptions
from solver.cfr.parallel import make_parallel, split_iterations, task_costs
from solver.cfr.tasks import Q_END, Q_HEAD, Q_START, QUEUE, next_task
from solver.cfr.walk import SolveState


@njit
def _claim(tables: WalkTables, fl: PassFlags, co: np.ndarray, tid: np.int64) -> tuple[int, int]:
    """next_task as the walk calls it: the tables by reference."""
    return next_task(by_ref(tables), fl, co, tid)


def _queues(claimed: np.ndarray) -> list[tuple[int, int]]:
    return [
        (int(claimed[b + Q_START]), int(claimed[b + Q_END])) for b in range(0, claimed.size, QUEUE)
    ]


@pytest.mark.parametrize("threads", [2, 3, 5])
def test_each_thread_gets_a_run_of_about_equal_work_biggest_first(threads: int) -> None:
    game = task_turn()
    par = make_parallel(game, threads)
    lv = par.leaves
    cost = task_costs(game, par.task_node)
    qs = _queues(lv.claimed)
    assert len(qs) == threads and lv.claimed.size == threads * QUEUE
    # the runs cover the tasks once, in task order (cut node by cut node), one after another
    assert qs[0][0] == 0 and qs[-1][1] == lv.order.size
    assert all(a[1] == b[0] for a, b in itertools.pairwise(qs))
    for a, b in qs:
        run = lv.order[a:b]
        assert sorted(run.tolist()) == list(range(a, b))  # the tasks a … b − 1
        assert np.all(np.diff(cost[run]) <= 0)  # biggest first (ties: task order)
        # the cut falls at the task where the running work passes q / threads of it
        assert abs(cost[run].sum() - cost.sum() / threads) <= cost.max()


def test_a_thread_claims_its_own_queue_first_then_the_next() -> None:
    game = task_turn()
    eng = Engine(game, make_rule("dcfr"), options=SolveOptions(threads=2))
    par = eng.parallel
    lv = par.leaves
    (a0, b0), (a1, b1) = _queues(lv.claimed)
    assert b0 > a0 and b1 > a1
    g, st = game_arrays(game), eng.storage
    state = SolveState(st, eng._no_rbp, eng._locks)
    co = eng.rule.coefficients(np.array([1.0]))[0]
    u = np.zeros(4)
    fl = eng.flags(0)
    collect, f, use = (fl._replace(leaf=x) for x in (LEAF_COLLECT, LEAF_TASKS, LEAF_USE))
    run_pass(g, state, 0, st.strategy, co, u, collect, eng.scratch, lv)
    # thread 1 alone runs every task: its own queue, then thread 0's, each to its end and no
    # further (an empty queue is looked at, not counted on)
    heads = lv.claimed[Q_HEAD::QUEUE]
    assert run_pass(g, state, 1, st.strategy, co, u, f, par.scratches[1], lv) > 0
    np.testing.assert_array_equal(heads, [b0 - a0, b1 - a1])
    np.testing.assert_array_equal(lv.slot_done, np.diff(lv.slot_start))
    run_pass(g, state, 0, st.strategy, co, u, use, eng.scratch, lv)
    # a fresh pass: each thread's first claim is its own queue's biggest task (all reached)
    run_pass(g, state, 0, st.strategy, co, u, collect, eng.scratch, lv)
    tables = (game.tree, game.hands, game.boards, lv, st, eng._locks)
    k1, _ = _claim(WalkTables(*tables, par.scratches[1]), f, co, np.int64(1))
    assert k1 == lv.order[a1] and heads.tolist() == [0, 1]
    k0, _ = _claim(WalkTables(*tables, eng.scratch), f, co, np.int64(0))
    assert k0 == lv.order[a0] and heads.tolist() == [1, 1]


@pytest.mark.cores(2)
def test_split_chunks_with_queues_give_the_serial_numbers() -> None:
    game = task_turn()
    serial = Engine(game, make_rule("dcfr"), options=SolveOptions(threads=1))
    split = Engine(game, make_rule("dcfr"), options=SolveOptions(threads=2))
    assert split.parallel.leaves.claimed.size == 2 * QUEUE
    serial.iterate(6)
    st = split.storage
    state_args = (st, split._no_rbp, split._locks)
    coefs = split.coefficients(0, 6)
    split_iterations(game, *state_args, coefs, np.zeros((6, 4)), split.flags(0), split.scratch,
                     split.parallel)  # fmt: skip
    np.testing.assert_array_equal(serial.storage.regrets, st.regrets)
    np.testing.assert_array_equal(serial.storage.cumulative, st.cumulative)
