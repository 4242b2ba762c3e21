"""Options as one table (issue 46 §1): one ``parse_param`` for the rule parameters typed as
text (CLI ``--param``, race entries, the app's fields), …"""

from __future__ import annotations

import argparse
import math
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from app_helpers import app, poll
from cli_helpers import run

from app import runtime, state
from solver import solve
from solver.algorithms import make_algorithm
from solver.cfr import options as options_module
from solver.cfr.engine import Engine
from solver.cfr.options import (
    OPTION_FIELDS,
    OPTION_NAMES,
    CheckedOptions,
    OptionError,
    SolveOptions,
    parse_param,
)
from solver.cfr.rules import Rule
from solver.cli import commands as cli
from solver.cli.args import UsageError
from solver.cli.commands import _parse_params
from solver.games import make_game
from solver.run.race.entries import EntryError, parse_entry

FLOAT_RANGE = (
    "'1e400' is past the float range (±1.8e308); write inf or -inf where the parameter "
    "takes an infinite value"
)


@pytest.mark.parametrize(
    ("text", "value"),
    [("1.5", 1.5), (" 2 ", 2.0), ("-inf", -math.inf), ("inf", math.inf), ("−2", -2.0)],
)
def test_parse_param_reads_numbers_and_infinities(text: str, value: float) -> None:
    assert parse_param(text) == value


@pytest.mark.parametrize(
    ("text", "message"),
    [("x", "'x' is not a number"), ("nan", "'nan' is not a number"), ("1e400", FLOAT_RANGE)],
)
def test_parse_param_names_what_is_wrong(text: str, message: str) -> None:
    with pytest.raises(ValueError) as err:
        parse_param(text)
    assert str(err.value) == message


def test_the_cli_and_race_entries_word_parameters_alike() -> None:
    with pytest.raises(UsageError) as cli:
        _parse_params(["alpha=1e400"])
    assert str(cli.value) == f"--param alpha: {FLOAT_RANGE}"
    with pytest.raises(EntryError) as entry:
        parse_entry("dcfr:alpha=1e400")
    assert str(entry.value) == f"'dcfr:alpha=1e400': alpha: {FLOAT_RANGE}"


def test_the_app_refuses_a_parameter_past_the_float_range() -> None:
    """1e400 is not infinity: dcfr's alpha field said nothing and solved with alpha=inf."""
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    at.selectbox(key=state.ALGORITHM).set_value("dcfr").run()
    at.text_input(key=f"{state.PARAM_PREFIX}dcfr_alpha").set_value("1e400").run()
    assert [e.value for e in at.error] == [f"alpha: {FLOAT_RANGE}."]
    assert at.button(key="btn_solve").disabled


# ----- one gate: how many times one solve checks its options ------------------------------


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Every call of the one validator (:func:`solver.cfr.options.validate`), by algorithm."""
    calls: list[object] = []
    real = options_module.validate

    def spy(options: SolveOptions, algorithm: object, *args: Any, **kwargs: Any) -> Any:
        calls.append(algorithm)
        return real(options, algorithm, *args, **kwargs)

    monkeypatch.setattr(options_module, "validate", spy)
    return calls


def test_api_solve_checks_its_options_once(checks: list[object]) -> None:
    """make_solver is the gate; the engine trusts what it checked (before: twice)."""
    solve(make_game("kuhn"), "dcfr", iterations=3, threads=1, pruning="none")
    assert checks == ["dcfr"]


def test_a_sampled_solve_checks_its_options_once(checks: list[object]) -> None:
    solve(make_game("kuhn"), "mccfr-es", iterations=3, seed=4)
    assert checks == ["mccfr-es"]


def test_a_cli_solve_checks_its_options_once(checks: list[object]) -> None:
    """At the gate, with the game's size; its message named by the flag (before: five
    times, then twice: the flags before the game was built, and the gate)."""
    out = run("solve", "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "3", "--json")
    assert out.returncode == 0, out.stderr
    assert checks == ["cfr+"]


def test_a_solve_click_checks_its_options_at_the_gate_once(checks: list[object]) -> None:
    """The form checks its fields once a run (before: twice, the parameters alone first);
    the click adds make_solver's check with the game, and the engine none (before: one
    more)."""
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    before = len(checks)
    at.text_input(key=state.MAX_ITERATIONS).set_value("20").run()
    assert checks[before:] == ["dcfr"]  # the form's one check of this run
    before = len(checks)
    at.button(key="btn_solve").click().run()
    job = at.session_state[state.JOB]
    poll(at, lambda: job.progress.finished)
    assert not at.exception
    gate = [a for a in checks[before:] if not isinstance(a, str)]  # the rule object
    assert [type(a).__name__ for a in gate] == ["DCFR"]


def test_checked_options_come_from_the_validator_only() -> None:
    checked = SolveOptions(seed=3).checked("cfr+")
    assert isinstance(checked, CheckedOptions)
    assert checked.pruning == "partial" and checked.seed == 3  # the default pruning, resolved
    assert checked == SolveOptions(seed=3, pruning="partial")  # equal as options
    with pytest.raises(TypeError, match=r"made by SolveOptions\.checked"):
        CheckedOptions(threads=99)
    with pytest.raises(TypeError, match=r"made by SolveOptions\.checked"):
        replace(checked, threads=99)  # a changed option is no longer checked
    changed = checked.unchecked(threads=99)
    assert type(changed) is SolveOptions and changed.threads == 99
    with pytest.raises(OptionError) as err:
        SolveOptions(threads=0).checked("cfr+")
    assert err.value.field == "threads"


def test_engines_trust_checked_options_and_check_the_rest(checks: list[object]) -> None:
    game = make_game("kuhn")
    rule = make_algorithm("cfr+")
    assert isinstance(rule, Rule)
    Engine(game, rule, SolveOptions().checked(rule))
    assert len(checks) == 1  # checked() only
    Engine(game, rule, SolveOptions())
    assert len(checks) == 2  # plain options: the engine checks them itself
    with pytest.raises(OptionError, match="threads"):
        Engine(game, rule, SolveOptions(threads=0))


# ----- the one table of the options: OPTION_FIELDS -----------------------------------------


def _solve_parser() -> argparse.ArgumentParser:
    parser = cli._build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return sub.choices["solve"]  # type: ignore[index]


def test_every_option_has_one_row_in_order() -> None:
    assert tuple(f.field for f in OPTION_FIELDS) == OPTION_NAMES
    assert len({f.flag for f in OPTION_FIELDS}) == len(OPTION_FIELDS)
    assert {f.widget for f in OPTION_FIELDS} <= {"number", "select", "checkbox", "file"}


def test_the_cli_flags_come_from_the_table() -> None:
    actions = {a.option_strings[0]: a for a in _solve_parser()._actions if a.option_strings}
    defaults = SolveOptions()
    for row in OPTION_FIELDS:
        action = actions[row.flag]
        assert action.help == row.help
        default = getattr(defaults, row.field)
        if row.widget == "checkbox":
            assert action.const is True and action.default is False is default
        elif row.widget == "file":
            assert action.default is None is default
        elif default is None:
            assert action.default is None
        else:  # the flag's text default reads back as the field's default
            assert type(default)(action.default) == default
    assert {"algorithm": "--algorithm"} | {
        f.field: f.flag for f in OPTION_FIELDS
    } == cli.OPTION_FLAGS


VALUES = {  # a value typed for each row's flag, and what its field gets
    "threads": (["--threads", " 2 "], 2),
    "precision": (["--precision", "Float32"], "float32"),
    "pruning": (["--pruning", " Total "], "total"),
    "seed": (["--seed", "18446744073709551615"], 2**64 - 1),
    "rbp_check_every": (["--rbp-every", "5"], 5),
    "rbp_threshold": (["--rbp-threshold", "0.25"], 0.25),
    "rbp_free_opponent": (["--rbp-free-opponent"], True),
    "locks": (["--locks", "LOCKS"], {"k": {"k": 1.0}}),
}


def test_each_flag_converts_by_its_row_in_one_place(tmp_path: Any) -> None:
    """The CLI's options come from the table: each row's flag converted by its widget kind
    and its field's type (solver.cli.args.flag_value), not restated flag by flag."""
    from solver.cli import args as cli_args

    assert set(VALUES) == set(OPTION_NAMES)
    locks = tmp_path / "locks.json"
    locks.write_text('{"k": {"k": 1.0}}')
    parser = _solve_parser()
    for name, (argv, value) in VALUES.items():
        typed = [str(locks) if a == "LOCKS" else a for a in argv]
        got = cli_args.solve_options(parser.parse_args(["--game", "kuhn", *typed]))
        assert getattr(got, name) == value and type(getattr(got, name)) is type(value), name
        others = {f: getattr(got, f) for f in OPTION_NAMES if f != name}
        assert others == {f: getattr(SolveOptions(), f) for f in others}, name
    for row in OPTION_FIELDS:
        if row.widget == "number":
            with pytest.raises(UsageError) as err:
                cli_args.flag_value(row, "two")
            assert str(err.value).startswith(f"{row.flag}: 'two' is not a")
    source = Path(cli.__file__).read_text(encoding="utf-8")
    for row in OPTION_FIELDS:  # commands.py reads no option flag itself
        attr = row.flag.removeprefix("--").replace("-", "_")
        assert f"args.{attr}" not in source and f'"{row.flag}"' not in source, row.flag


def test_a_bad_option_is_named_by_its_flag_from_the_table() -> None:
    out = run("solve", "--game", "kuhn", "--algorithm", "cfr", "--pruning", "total",
              "--rbp-free-opponent", "--precision", "float32", "--threads", "2")  # fmt: skip
    assert out.returncode == 2
    assert out.stderr == (
        "error: --threads: Total RBP (pruning 'total') runs on one thread (threads=1)\n"
    )


def test_the_app_restores_and_draws_every_option_of_the_table() -> None:
    constants = {v for k, v in vars(state).items() if k.isupper() and isinstance(v, str)}
    shown = [f for f in OPTION_FIELDS if f.app is not None]
    assert {f.app for f in shown} <= constants
    assert {f.app for f in shown} <= set(runtime.RESTORED)
    assert [f.field for f in OPTION_FIELDS if f.app is None] == ["locks"]  # Explore locks
    drawn: set[str] = set()
    for algorithm, pruning in (("cfr+", "partial"), ("cfr+", "total"), ("mccfr-es", None)):
        at = app(**{state.SOURCE: "preset:kuhn"})
        at.run()
        at.selectbox(key=state.ALGORITHM).set_value(algorithm).run()
        if pruning is not None:
            at.selectbox(key=state.PRUNING).set_value(pruning).run()
        kinds = {
            "number": {w.key for w in at.text_input},
            "select": {w.key for w in at.selectbox},
            "checkbox": {w.key for w in at.checkbox},
        }
        drawn |= {f.app for f in shown if f.app in kinds[f.widget]}  # type: ignore[misc]
    assert drawn == {f.app for f in shown}
