"""Options as one table (issue 46 §1): one ``parse_param`` for the rule parameters typed as
text (CLI ``--param``, race entries, the app's fields), …"""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any

import pytest
from app_helpers import app, poll
from cli_helpers import run

from app import state
from solver import solve
from solver.algorithms import make_algorithm
from solver.cfr import options as options_module
from solver.cfr.engine import Engine
from solver.cfr.options import CheckedOptions, OptionError, SolveOptions, parse_param
from solver.cfr.rules import Rule
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


def test_a_cli_solve_checks_its_options_twice(checks: list[object]) -> None:
    """Once for the flags before the game is built, once at the gate with the game's size
    (before: five times)."""
    out = run("solve", "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "3", "--json")
    assert out.returncode == 0, out.stderr
    assert len(checks) == 2 and checks[0] == "cfr+"


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
