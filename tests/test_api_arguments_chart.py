"""The push/fold chart's arguments (issue 45): :func:`push_fold_chart`, ``StackChart.largest``
and ``threshold``, :func:`stack_grid` (the chart page's stack list) and the chart module's
command line end in the package's own error naming the argument — never float()'s
ValueError, an OverflowError or a traceback, never an endless loop — and are checked before
the first solve. Also ``load_solve``'s ``max_memory_mb``. A valid call beside each still
works."""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pytest

from solver.files.export import ExportError, load_solve, save_solve
from solver.games.spec import SpecError
from solver.study import preflop_chart
from solver.study.preflop_chart import (
    MAX_STACKS,
    StackChart,
    check_stacks,
    push_fold_chart,
    stack_grid,
)


@pytest.fixture(scope="module")
def chart() -> StackChart:
    return push_fold_chart([10], target=0.05, max_iterations=40)


@pytest.mark.parametrize(
    ("kwargs", "field", "words"),
    [
        ({"stacks": ["x"]}, "stacks", "is not a number"),
        ({"stacks": [None]}, "stacks", "must be a number"),
        ({"stacks": [10**400]}, "stacks", "too large"),
        ({"stacks": [math.nan]}, "stacks", "not a finite number"),
        ({"stacks": [51]}, "stacks", "too large (at most 50 bb)"),
        ({"stacks": [0.5]}, "stacks", "must be ≥ 1"),
        ({"stacks": [True]}, "stacks", "must be a number"),
        ({"stacks": []}, "stacks", "at least one stack"),
        ({"stacks": "10"}, "stacks", "must be a list"),
        ({"stacks": None}, "stacks", "must be a list"),
        ({"stacks": 10}, "stacks", "must be a list"),
        ({"stacks": range(1, 10**12)}, "stacks", f"more than {MAX_STACKS}"),
        ({"stacks": [1.2], "ante": 0.5}, "stacks", "does not cover the big blind"),
        ({"stacks": [10], "ante": math.nan}, "ante", "not a finite number"),
        ({"stacks": [10], "ante": "x"}, "ante", "is not a number"),
        ({"stacks": [10], "sb": 2.0}, "sb", "must not exceed the big blind"),
        ({"stacks": [10], "sb": None}, "sb", "must be a number"),
        ({"stacks": [10], "target": 0}, "target", "must be positive"),
        ({"stacks": [10], "target": "x"}, "target", "is not a number"),
        ({"stacks": [10], "max_iterations": 2.5}, "max_iterations", "whole number"),
        ({"stacks": [10], "max_iterations": 0}, "max_iterations", "must be 1 to"),
        ({"stacks": [10], "max_iterations": 10**400}, "max_iterations", "must be 1 to"),
        ({"stacks": [10], "algorithm": 5}, "algorithm", "algorithm's name"),
        ({"stacks": [10], "progress": 5}, "progress", "a function or None"),
    ],
)
def test_push_fold_chart_names_its_bad_argument(
    kwargs: dict[str, Any], field: str, words: str
) -> None:
    def never(*_: object) -> None:
        raise AssertionError("a solve started before the arguments were checked")

    if kwargs.get("progress") is None:
        kwargs = {**kwargs, "progress": never}
    with pytest.raises(SpecError) as info:
        push_fold_chart(**kwargs)
    assert info.value.field == field and words in info.value.message, str(info.value)


def test_a_bad_stack_anywhere_is_refused_before_any_solve(monkeypatch: pytest.MonkeyPatch) -> None:
    import solver.api

    def no_solve(*_: object, **__: object) -> None:
        raise AssertionError("solved before the last stack was checked")

    monkeypatch.setattr(solver.api, "solve", no_solve)
    with pytest.raises(SpecError, match="stacks: 51"):
        push_fold_chart([2, 3, 51])


@pytest.mark.parametrize(
    ("call", "field"),
    [
        (lambda c: c.largest("SB", ""), "tolerance"),
        (lambda c: c.largest("SB", None), "tolerance"),
        (lambda c: c.largest("SB", math.nan), "tolerance"),
        (lambda c: c.largest(""), "who"),
        (lambda c: c.largest("sb"), "who"),
        (lambda c: c.largest(["SB"]), "who"),
        (lambda c: c.largest(None), "who"),
        (lambda c: c.threshold("Z9s", "SB"), "label"),
        (lambda c: c.threshold(5, "SB"), "label"),
        (lambda c: c.threshold("AA", "CO"), "who"),
    ],
)
def test_reading_the_chart_names_its_bad_argument(chart: StackChart, call: Any, field: str) -> None:
    with pytest.raises(SpecError) as info:
        call(chart)
    assert info.value.field == field


def test_reading_the_chart_still_works(chart: StackChart) -> None:
    assert chart.stacks == (10.0,)
    assert chart.threshold("AA", "SB") == 10.0 and chart.threshold("72o", "BB") is None
    assert chart.largest("BB", 0).shape == (169,)
    assert np.array_equal(
        chart.largest("SB", 0.0), chart.largest("SB", np.float64(0)), equal_nan=True
    )


@pytest.mark.parametrize(
    ("args", "field", "words"),
    [
        ((1, 49, 1e-75), "step", "stacks from 1 to 49; at most 200"),
        ((1, 50, 1e-3), "step", "49,001 stacks"),
        ((1, 1e308, 1), "step", "at most 200"),
        ((1e-300, 1e308, 1e-300), "step", "too many stacks"),
        ((1, 20, 0), "step", "must be positive"),
        ((1, 20, -1), "step", "must be positive"),
        ((1, 20, math.nan), "step", "not a finite number"),
        ((1, 20, "x"), "step", "is not a number"),
        ((None, 20, 1), "first", "must be a number"),
        ((1, math.inf, 1), "last", "not a finite number"),
        ((10**400, 20, 1), "first", "too large"),
    ],
)
def test_the_stack_grid_is_bounded_before_it_is_made(
    args: tuple[Any, Any, Any], field: str, words: str
) -> None:
    with pytest.raises(SpecError) as info:
        stack_grid(*args)
    assert info.value.field == field and words in info.value.message, str(info.value)


def test_the_stack_grid_still_works() -> None:
    assert stack_grid(1, 3, 0.5) == [1.0, 1.5, 2.0, 2.5, 3.0]
    assert stack_grid(1, 2.9, 1) == [1.0, 2.0]  # the last when on the grid only
    assert stack_grid(5, 4, 1) == []
    most = stack_grid(1, 20.9, 0.1)  # the most a chart takes
    assert len(most) == MAX_STACKS and most[-1] == 20.9 and most[1] == 1.1
    from app.features.stack_chart import stack_list

    assert stack_list(1, 20, 0.5) == stack_grid(1, 20, 0.5)
    with pytest.raises(SpecError, match="step"):
        stack_list(1, 49, 1e-75)


def test_check_stacks_sorts_and_merges() -> None:
    assert check_stacks([7.8, "5.6", np.int64(5), 7.8]) == [5.0, 5.6, 7.8]
    assert check_stacks(iter([3, 2])) == [2.0, 3.0]


@pytest.mark.parametrize(
    ("argv", "line"),
    [
        (["--stacks", ".j"], "error: --stacks: '.j' is not a number"),
        (["--stacks", "1:2:3:4"], "error: --stacks: first:last:step has three parts"),
        (["--stacks", "51"], "error: --stacks: 51 bb is too large (at most 50 bb)"),
        (["--stacks", "1:20:0"], "error: --stacks: step: must be positive"),
        (["--stacks", "1:49:1e-75"], "error: --stacks: step: "),
        (["--stacks", "1e999"], "error: --stacks: '1e999' is not a finite number"),
        (["--stacks", ""], "error: --stacks: give at least one stack"),
        (["--stacks", "1.2", "--ante", "0.5"], "error: --stacks: 1.2 bb does not cover"),
        (["--ante", "nan"], "error: --ante: 'nan' is not a finite number"),
        (["--ante", "-1"], "error: --ante: must be ≥ 0"),
        (["--ante", "x"], "error: --ante: 'x' is not a number"),
        (["--nope", "1"], "error: unrecognized arguments: --nope 1"),
        (["--stacks"], "error: argument --stacks: expected one argument"),
    ],
)
def test_the_chart_cli_says_error_and_exits_2(
    capsys: pytest.CaptureFixture[str], argv: list[str], line: str
) -> None:
    assert preflop_chart.main(argv) == 2
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith(line) and err.count("\n") == 1, err  # one line, no traceback


def test_the_chart_cli_still_charts(capsys: pytest.CaptureFixture[str]) -> None:
    assert preflop_chart.main(["--stacks", "2, 3"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("SB shoves up to (bb):\n  AA 3+")


def _kuhn_save() -> bytes:
    from solver.algorithms import make_solver
    from solver.games import make_game

    engine = make_solver(make_game("kuhn"), "cfr")
    engine.iterate(2)
    return save_solve(engine, {"kind": "toy", "name": "kuhn"})


@pytest.mark.parametrize("cap", ["x", None, -1, 0, math.nan, math.inf, True, 10**400, [5]])
def test_load_solve_names_max_memory_mb(cap: Any) -> None:
    with pytest.raises(ExportError, match="max_memory_mb: must be a positive number"):
        load_solve(_kuhn_save(), max_memory_mb=cap)


def test_load_solve_takes_a_number_cap() -> None:
    data = _kuhn_save()
    for cap in (64, 2048.5):
        assert load_solve(data, max_memory_mb=cap).engine.iteration == 2
