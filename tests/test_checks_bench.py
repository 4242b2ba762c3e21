"""benchmarks/checks.py: a check's cost on one and two threads and the split form's extra
work. What it times must be what it says: the split pass walked by one thread gives the
serial pass's values, and the side-by-side check the serial check's."""

from __future__ import annotations

from types import ModuleType

import numpy as np
import pytest
from bench_helpers import benchmark
from conftest import task_turn

from solver import Engine, make_rule
from solver.cfr.options import SolveOptions


def checks() -> ModuleType:
    return benchmark("checks")


def test_the_split_pass_on_one_thread_is_the_serial_pass() -> None:
    e = Engine(task_turn(), make_rule("dcfr-tuned"), options=SolveOptions(threads=1))
    e.iterate(5)
    for p in (0, 1):
        want, s = checks().serial_pass(e, p)
        got, tasks, upper = checks().split_on_one_thread(e, p)
        np.testing.assert_array_equal(got, want)
        assert s > 0 and tasks > 0 and upper > 0


@pytest.mark.cores(2)
def test_measure_prints_every_figure() -> None:
    m = checks().measure(task_turn(), 1)
    assert set(m) == {"it1", "check1", "it2", "check2", "serial", "tasks", "upper"}
    assert all(v > 0 for v in m.values())
