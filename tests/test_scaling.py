"""benchmarks/scaling.py's projection: list scheduling's makespan and the bounds on known
values, and the tasks' sizes in the order the threads claim them (no timings)."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from bench_helpers import benchmark
from conftest import task_turn


def scaling() -> ModuleType:
    return benchmark("scaling")


def test_makespan_is_the_next_free_thread_claiming_in_order() -> None:
    ms = scaling().makespan
    costs = np.array([5.0, 4.0, 3.0, 3.0, 3.0])
    # by hand: 5 | 4; 3 → the thread at 4 (7); 3 → the one at 5 (8); 3 → the one at 7 (10)
    assert ms(costs, 2) == 10.0
    assert ms(costs, 1) == 18.0
    assert ms(costs, 8) == 5.0  # one task each: the largest
    assert ms(np.zeros(0), 4) == 0.0


def test_projection_on_known_values() -> None:
    sc = scaling()
    costs = np.array([2.0, 1.0, 1.0])  # 4 cost units = 8 ms of tasks: 2 ms a unit
    out = sc.project(10.0, 1.0, 8.0, 0.5, costs, [1, 2, 4])
    assert out[1]["pass_ms"] == pytest.approx(1.0 + 8.0 + 0.5)
    assert out[2]["pass_ms"] == pytest.approx(1.0 + 4.0 + 0.5)  # 2 | 1 + 1
    assert out[4]["pass_ms"] == pytest.approx(1.0 + 4.0 + 0.5)  # the largest task bounds it
    assert out[2]["speedup"] == pytest.approx(10.0 / 5.5)
    assert out[4]["amdahl"] == pytest.approx(1.0 / (0.1 + 0.9 / 4))
    assert out[4]["task_bound"] == pytest.approx(10.0 / (1.0 + 4.0))


def test_task_costs_are_the_split_tasks_biggest_first() -> None:
    from solver.cfr.parallel import make_parallel

    game = task_turn()
    costs = scaling().task_costs(game, 2)
    par = make_parallel(game, 2)
    assert costs.shape == par.task_node.shape and (costs > 0).all()
    assert (np.diff(costs) <= 0).all()


def test_schedule_replays_claims_and_slot_sums_by_hand() -> None:
    sched = scaling().schedule
    times = np.array([4.0, 3.0, 2.0, 1.0])
    order = np.array([0, 1, 2, 3], dtype=np.int32)
    slot = np.array([0, 1, 1, 0], dtype=np.int32)
    sums = np.array([10.0, 0.5])
    # by hand, two threads: A 0 [0, 4), B 1 [0, 3); B free at 3 claims 2 [3, 5); A free at 4
    # claims 3 [4, 5); at 5 B finishes task 2, slot 1's last: sums to 5.5; A finishes task 3,
    # slot 0's last: sums to 15. The first runs out at 5.5, the last at 15.
    assert sched(times, order, slot, sums, 2) == (15.0, 5.5)
    # one thread: everything one after the other
    assert sched(times, order, slot, sums, 1) == (20.5, 20.5)
    # no sums: list scheduling's makespan
    ms = scaling().makespan
    for p in (1, 2, 3):
        assert sched(times, order, slot, np.zeros(2), p)[0] == ms(times, p)


def test_task_times_cover_every_task_and_slot_in_claim_order() -> None:
    from solver.cfr.parallel import make_parallel

    game = task_turn()
    tt = scaling().task_times(game, warmup=2, reps=1)
    par = make_parallel(game, 2)
    k, n_slots = par.task_node.size, par.leaves.slot_start.size - 1
    assert tt["task_ms"].shape == (2, k) and tt["sum_ms"].shape == (2, n_slots)
    assert (tt["task_ms"] >= 0).all() and tt["task_ms"].sum() > 0
    assert (tt["order"] == par.leaves.order).all()
    assert (tt["task_slot"] == par.leaves.task_slot).all()


def test_task_cpu_counts_each_thread_and_restores_the_affinity() -> None:
    import os

    sc = scaling()
    game = task_turn()
    before = os.sched_getaffinity(0)
    one = sc.task_cpu(game, 1, warmup=2, passes=2)
    two = sc.task_cpu(game, 2, warmup=2, passes=2)
    assert len(one) == 1 and one[0] > 0
    assert len(two) == 2 and sum(two) > 0
    assert os.sched_getaffinity(0) == before
    with pytest.raises(ValueError, match="1 or 2"):
        sc.task_cpu(game, 3, warmup=2, passes=2)
