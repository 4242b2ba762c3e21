"""Options as one table (issue 46 §1): one ``parse_param`` for the rule parameters typed as
text (CLI ``--param``, race entries, the app's fields), …"""

from __future__ import annotations

import math

import pytest
from app_helpers import app

from app import state
from solver.cfr.options import parse_param
from solver.cli.args import UsageError
from solver.cli.commands import _parse_params
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
