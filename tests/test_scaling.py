"""benchmarks/scaling.py's projection: list scheduling's makespan and the bounds on known
values, and the tasks' sizes in the order the threads claim them (no timings)."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import task_turn

SCALING_PY = Path(__file__).resolve().parent.parent / "benchmarks" / "scaling.py"


@functools.cache
def scaling() -> ModuleType:
    spec = importlib.util.spec_from_file_location("_bench_scaling", SCALING_PY)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


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
