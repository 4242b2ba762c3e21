"""Each thread's time in a split chunk (``Parallel.times``, :func:`solver.cfr.parallel.
thread_times`): the kernels' clock is Python's, the columns add up to the call, the passes
counted are the ones the thread took part in, and keeping the times changes no number."""

from __future__ import annotations

import time

import numpy as np
import pytest
from conftest import task_turn
from numba import njit

from solver import Engine, make_rule
from solver.cfr.clock import now_ns
from solver.cfr.options import SolveOptions
from solver.cfr.parallel import SYNC, T_COLLECT, T_FINISH, T_PASSES, T_TASKS, T_WAIT, T_WALL
from solver.games.model import Game


@pytest.fixture(scope="module")
def game() -> Game:
    return task_turn()


@njit(nogil=True)
def _read_clock() -> int:
    return now_ns()


@njit(nogil=True)
def _spin_for(ns: int) -> int:
    start = now_ns()
    n = 0
    while now_ns() - start < ns:
        n += 1
    return n


def test_the_kernel_clock_is_pythons_monotonic_clock_in_nanoseconds() -> None:
    _read_clock()
    _spin_for(1)  # compiled before the readings
    a = time.perf_counter_ns()
    b = _read_clock()
    c = time.perf_counter_ns()
    assert a <= b <= c  # the same clock (CLOCK_MONOTONIC), read in between
    t0 = time.perf_counter_ns()
    _spin_for(20_000_000)  # 20 ms by the kernel's clock
    spent = time.perf_counter_ns() - t0
    assert 20_000_000 <= spent < 20_000_000 * 50  # nanoseconds, not ticks or microseconds


@pytest.mark.cores(2)
def test_each_threads_columns_add_up_to_its_call(game: Game) -> None:
    opts = SolveOptions(threads=2)
    Engine(game, make_rule("dcfr-tuned"), options=opts).iterate(1)  # kernels loaded first
    e = Engine(game, make_rule("dcfr-tuned"), options=opts)
    par = e.parallel
    assert par.times.shape == (2, 8) and not par.times.any()
    passes_1 = 0
    for k in (2, 6):
        before = par.times.copy()
        t0 = time.perf_counter_ns()
        e.iterate(k)
        python_wall = time.perf_counter_ns() - t0
        d = par.times - before
        at = int(par.sync[SYNC + 1])  # where the worker joined (> 0), or not at all
        assert d[0, T_PASSES] == 2 * k
        assert d[1, T_PASSES] == (2 * k - at + 1 if at > 0 else 0)
        passes_1 += int(d[1, T_PASSES])
        for t in range(2):
            spans = d[t, T_COLLECT] + d[t, T_TASKS] + d[t, T_WAIT] + d[t, T_FINISH]
            assert (d[t, :T_PASSES] >= 0).all()
            # the spans cover the call but a few clock reads at its two ends
            assert 0.95 * d[t, T_WALL] <= spans <= d[t, T_WALL]
        # only thread 0 walks the upper tree; it runs inside the Python call that timed it
        assert d[1, T_COLLECT] == 0 and d[1, T_FINISH] == 0
        assert d[0, T_COLLECT] > 0 and d[0, T_FINISH] > 0 and d[0, T_TASKS] > 0
        assert 0.25 * python_wall <= d[0, T_WALL] <= python_wall
    rows = e.thread_times
    assert [r["passes"] for r in rows] == [2 * (2 + 6), passes_1]
    for t, r in enumerate(rows):
        assert r["wall"] == pytest.approx(par.times[t, T_WALL] * 1e-9)
        assert r["idle"] == pytest.approx(r["wait"] / r["wall"])
        assert 0.0 <= r["idle"] <= 1.0


@pytest.mark.cores(2)
@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_keeping_the_times_changes_no_number(game: Game, precision: str) -> None:
    serial = Engine(game, make_rule("dcfr-tuned"),
                    options=SolveOptions(threads=1, precision=precision))  # fmt: skip
    split = Engine(game, make_rule("dcfr-tuned"),
                   options=SolveOptions(threads=2, precision=precision))  # fmt: skip
    for k in (3, 5):
        serial.iterate(k)
        split.iterate(k)
    assert split.parallel.times[0, T_WALL] > 0  # the times were kept
    np.testing.assert_array_equal(serial.storage.regrets, split.storage.regrets)
    np.testing.assert_array_equal(serial.storage.cumulative, split.storage.cumulative)
    assert split.nodes_touched == serial.nodes_touched
    assert split.best_response_values() == serial.best_response_values()
    # one thread keeps no chunk times (its passes are not split)
    assert not serial.parallel.times.any()
    assert all(r["wall"] == 0.0 and r["idle"] == 0.0 for r in serial.thread_times)
