"""The API's own arguments (issue 34): a bad value of a public function's argument raises the
module's own error (or a TypeError/ValueError) whose message names the argument — never an
internal TypeError, AttributeError, OverflowError or KeyError, never a solve that cannot stop.

Covers :class:`solver.run.jobs.SolveJob` (``target``, ``max_iterations``, ``chunk_s``, unknown
keywords), :mod:`solver.poker.flops` (``parse_flop_list``, ``select``, ``apply_filters``,
``parse_filter``) and :func:`solver.batch.spec.parse_filters`, rule parameters and
``rbp_threshold`` past the float range (:func:`solver.solve`,
:func:`solver.cfr.options.check_options`), ``solve(..., bogus=1)``,
:func:`solver.run.race.parse_entries` / ``parse_entry`` / ``parse_targets``, and the CLI's
``--param`` and strict JSON output. Each case has a valid call beside it that still works.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from solver import make_rule, solve
from solver.algorithms import make_algorithm
from solver.batch.spec import BatchError, parse_filters
from solver.cfr.options import OptionError, check_options
from solver.cli import main
from solver.games import make_game
from solver.poker.flops import (
    FlopError,
    all_flops,
    apply_filters,
    parse_filter,
    parse_flop_list,
    select,
)
from solver.run.jobs import SolveJob
from solver.run.race import EntryError, TargetError, parse_entries, parse_entry, parse_targets


def bad(value: object) -> Any:
    """``value`` untyped: an argument of a type the signature does not allow, on purpose."""
    return value


# ----- SolveJob -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "kind", "words"),
    [
        ({"target": "x"}, TypeError, "target must be a number"),
        ({"target": None, "max_iterations": None}, TypeError, "max_iterations must be a whole"),
        ({"max_iterations": "10"}, TypeError, "max_iterations must be a whole"),
        ({"max_iterations": 1.5}, TypeError, "max_iterations must be a whole"),
        ({"max_iterations": math.nan}, TypeError, "max_iterations must be a whole"),
        ({"max_iterations": math.inf}, TypeError, "max_iterations must be a whole"),
        ({"max_iterations": -1}, ValueError, "max_iterations must be ≥ 0, got -1"),
        ({"target": math.nan}, ValueError, "target must be a finite number"),
        ({"target": math.inf}, ValueError, "target must be a finite number"),
        ({"target": 10**400}, ValueError, "target must be a finite number"),
        ({"target": 0}, ValueError, "target must be a finite number"),
        ({"chunk_s": "fast"}, TypeError, "chunk_s must be a number"),
        ({"chunk_s": math.nan}, ValueError, "chunk_s must be a finite number"),
        ({"bogus": 1}, TypeError, "unexpected keyword argument 'bogus'"),
        ({"threads": 2}, TypeError, "unexpected keyword argument 'threads'"),  # options=
    ],
)
def test_solve_job_refuses_bad_arguments_naming_them(
    kwargs: dict, kind: type[Exception], words: str
) -> None:
    with pytest.raises(kind) as info:
        SolveJob(make_game("kuhn"), make_rule("cfr"), **kwargs)
    assert words in str(info.value)


def test_solve_job_still_takes_valid_arguments() -> None:
    job = SolveJob(
        make_game("kuhn"),
        make_rule("cfr"),
        target=1,
        max_iterations=bad(np.int64(4)),
        check_every=2,
    )
    assert SolveJob(make_game("kuhn"), make_rule("cfr"), max_iterations=0, chunk_s=0).target is None
    p = job.start().wait_for(lambda q: q.finished, timeout=60)
    assert p.iteration <= 4 and p.stopped_by in ("target", "iterations")


# ----- flop sets ----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "field", "words"),
    [
        (lambda: parse_flop_list(bad(["Td", "9d", "6h"])), "flops", "flop list must be text"),
        (lambda: parse_flop_list(bad(None)), "flops", "flop list must be text"),
        (lambda: select(bad([])), "flops", "must be a subset size"),
        (lambda: select(True), "flops", "must be a subset size"),
        (lambda: select(bad(49.5)), "flops", "must be a subset size"),
        (lambda: select(25, bad([5])), "filter", "filters must be a mapping"),
        (lambda: apply_filters(all_flops(), bad([5])), "filter", "filters must be a mapping"),
        (lambda: apply_filters(bad([5]), None), "flops", "expected Flop objects"),
        (lambda: apply_filters(all_flops(), {"colour": ["red"]}), "filter", "'colour'"),
        (lambda: apply_filters(all_flops(), bad({5: ["red"]})), "filter", "filter key 5"),
        (lambda: apply_filters(all_flops(), {"suits": "monotone"}), "filter", "suits: expected"),
        (lambda: apply_filters(all_flops(), bad({"suits": 5})), "filter", "suits: expected"),
        (
            lambda: apply_filters(all_flops(), bad({"suits": [5]})),
            "filter",
            "suits: unknown value 5",
        ),
        (lambda: parse_filter(bad(5)), "filter", "a filter must be text"),
    ],
)
def test_flop_sets_refuse_odd_types_naming_the_field(
    call: Callable[[], object], field: str, words: str
) -> None:
    with pytest.raises(FlopError) as info:
        call()
    assert info.value.field == field and words in str(info.value)
    assert str(info.value).startswith(f"{field}: ")


@pytest.mark.parametrize(
    ("items", "words"),
    [
        ([5], "a filter must be text"),
        (["suits=monotone", None], "a filter must be text"),
        (5, "expected a list of KEY=VALUE texts"),
        ("suits=monotone", "expected a list of KEY=VALUE texts"),  # not its characters
    ],
)
def test_parse_filters_refuses_items_that_are_not_text(items: object, words: str) -> None:
    with pytest.raises(BatchError) as info:
        parse_filters(items)  # type: ignore[arg-type]
    assert info.value.field == "filter" and words in str(info.value)


def test_flop_sets_still_take_valid_arguments() -> None:
    assert [f.text for f in parse_flop_list("Td9d6h")] == ["Ts9s6h"]
    mono = select(bad(np.int64(25)), {"suits": ["monotone"], "texture": ("monotone",)})
    assert mono and all(f.suits == "monotone" for f in mono)
    assert apply_filters(all_flops(), None) == all_flops()
    assert parse_filters(["suits=monotone", "high=A,K"]) == {
        "suits": ["monotone"],
        "high": ["A", "K"],
    }


# ----- rule parameters and rbp_threshold past the float range -------------------------------


@pytest.mark.parametrize(
    ("algorithm", "params"),
    [
        ("dcfr", {"alpha": 10**400}),
        ("dcfr", {"gamma": -(10**400)}),
        ("cfr+", {"delay": 10**400}),
        ("mccfr-os", {"epsilon": 10**400}),
    ],
)
def test_a_parameter_past_the_float_range_is_named(algorithm: str, params: dict) -> None:
    (name,) = params
    errors = check_options(algorithm, params)
    assert list(errors) == [name] and "float range" in errors[name]
    with pytest.raises(OptionError) as info:
        solve("kuhn", algorithm, iterations=1, params=params)
    assert info.value.field == name and str(info.value).startswith(f"{name} must be")


@pytest.mark.parametrize(
    "threshold", [pytest.param(10**400, id="10**400"), math.inf, math.nan, -1.0]
)
def test_rbp_threshold_must_be_finite(threshold: float) -> None:
    with pytest.raises(OptionError) as info:
        solve("kuhn", "cfr", iterations=1, pruning="total", rbp_threshold=threshold)
    assert info.value.field == "rbp_threshold" and "threshold C must be a finite" in str(info.value)


def test_parameters_in_range_still_solve() -> None:
    # dcfr's documented infinities stay valid (alpha=inf: no discount; beta=-inf zeroes)
    result = solve("kuhn", "dcfr", iterations=2, params={"alpha": math.inf, "beta": -math.inf})
    assert result.iteration == 2 and result.rule.params()["beta"] == -math.inf
    result = solve("kuhn", "cfr", iterations=2, pruning="total", rbp_threshold=1)
    assert result.iteration == 2


# ----- solve(..., bogus=1) ------------------------------------------------------------------


def test_solve_names_itself_and_an_unknown_argument() -> None:
    with pytest.raises(TypeError) as info:
        solve("kuhn", "cfr", iterations=1, bogus=1)  # type: ignore[call-overload]
    message = str(info.value)
    assert message.startswith("solve() got an unexpected argument 'bogus' (it takes: game, ")
    assert "make_solver" not in message
    for name in ("iterations", "target_exploitability", "warm_start", "threads", "locks"):
        assert name in message
    assert solve("kuhn", "cfr", iterations=1, threads=1).iteration == 1


# ----- race entries and targets -------------------------------------------------------------


@pytest.mark.parametrize(
    ("call", "words"),
    [
        (lambda: parse_entries(bad(["cfr", 5])), "entry 2 must be text"),
        (lambda: parse_entries(bad(("cfr", None))), "entry 2 must be text"),
        (lambda: parse_entries(bad(5)), "algorithm entries must be text"),
        (lambda: parse_entry(bad(5)), "an algorithm entry must be text"),
        (lambda: parse_entry("dcfr:alpha=1e400"), "alpha: '1e400' is past the float range"),
    ],
)
def test_race_entries_that_are_not_text_are_named(call: Callable[[], object], words: str) -> None:
    with pytest.raises(EntryError) as info:
        call()
    assert words in str(info.value)


@pytest.mark.parametrize(
    ("text", "pot", "words"),
    [
        pytest.param("1%", 10**400, "pot must be a finite number", id="pot=10**400"),
        ("1%", math.inf, "pot must be a finite number"),
        ("1%", math.nan, "pot must be a finite number"),
        ("1%", "100", "pot must be a finite number"),
        ("1%", 0.0, "pot must be a finite number"),
        ("1e308%", 1e10, "chips is not a usable target"),
        (5, None, "targets must be text"),
        (["0.01"], None, "targets must be text"),
    ],
)
def test_race_targets_name_a_bad_argument(text: object, pot: object, words: str) -> None:
    with pytest.raises(TargetError) as info:
        parse_targets(text, pot)  # type: ignore[arg-type]
    assert words in str(info.value)


def test_race_entries_and_targets_still_parse() -> None:
    entries = parse_entries(("cfr", "dcfr:beta=-inf"))
    assert [e.text for e in entries] == ["cfr", "dcfr:beta=-inf"]
    assert [t.chips for t in parse_targets("1%, 0.5%", np.float64(200.0))] == [2.0, 1.0]
    assert [t.chips for t in parse_targets("0.01", None)] == [0.01]


# ----- the CLI: --param and strict JSON -----------------------------------------------------


def _strict(line: str) -> dict:
    """``line`` parsed as strict JSON (NaN, Infinity and -Infinity refused)."""

    def refuse(word: str) -> None:
        raise ValueError(f"not JSON: {word}")

    out = json.loads(line, parse_constant=refuse)
    assert isinstance(out, dict)
    return out


@pytest.mark.parametrize(
    ("argv", "start"),
    [
        (
            ["solve", "--game", "leduc", "--param", "alpha=1e400", "--json"],
            "error: --param alpha: ",
        ),
        (["solve", "--game", "kuhn", "--param", "beta=-1e999"], "error: --param beta: "),
        (["race", "--game", "kuhn", "--algorithms", "cfr,dcfr:alpha=1e400"], "error: --algorithms"),
    ],
)
def test_cli_refuses_a_parameter_past_the_float_range(
    argv: list[str], start: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(start), lines
    assert "past the float range" in lines[0] and captured.out == ""


def test_cli_json_is_strict_with_an_infinite_parameter(capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["solve", "--game", "kuhn", "--param", "beta=-inf", "--iterations", "2", "--json"]
    assert main(argv) == 0
    lines = [_strict(line) for line in capsys.readouterr().out.splitlines()]
    final = lines[-1]
    assert final["final"] is True and final["params"]["beta"] == "-inf"
    assert final["params"]["alpha"] == 1.5
    argv = ["race", "--game", "kuhn", "--algorithms", "dcfr:alpha=inf", "--iterations", "3"]
    assert main([*argv, "--json"]) == 0
    lines = [_strict(line) for line in capsys.readouterr().out.splitlines()]
    finals = [line for line in lines if line.get("final")]
    assert finals and finals[0]["params"]["alpha"] == "inf"


@pytest.mark.parametrize(
    ("make", "name"),
    [
        (lambda: make_rule("dcfr", alpha=10**400), "alpha"),
        (lambda: make_rule("cfr+", delay=-(10**400)), "delay"),
        (lambda: make_algorithm("mccfr-os", epsilon=10**400), "epsilon"),
    ],
)
def test_rule_constructors_refuse_integers_past_the_float_range(
    make: Callable[[], object], name: str
) -> None:
    """make_rule / make_algorithm themselves (not only check_options): an OverflowError or a
    numpy TypeError before."""
    with pytest.raises(ValueError, match=f"parameter '{name}' must be within the float range"):
        make()


def test_a_save_with_odd_settings_resumes_without_them() -> None:
    """A hand-made save's target of inf, or True as its iteration limit, is not passed on to
    SolveJob (which refuses both now): the resumed job has no target and its own limit."""
    from app.screens.export import resume_job
    from solver.algorithms import make_solver
    from solver.files.export import load_solve, save_solve

    e = make_solver(make_game("kuhn"), "cfr")
    e.iterate(3)
    data = save_solve(e, {"kind": "toy", "name": "kuhn"},
                      extra={"settings": {"target_chips": math.inf, "max_iterations": True,
                                          "check_every": True}})  # fmt: skip
    job, _ = resume_job(load_solve(data), more=10)
    assert job.target is None and job.max_iterations == 13
