"""The Solve form's solver options come from the one table (OPTION_FIELDS, issue 46 §1):
every row has a CLI flag, a form widget and a restore key; the form draws no option widget
outside the table, and a row the app gives no look of its own is drawn all the same."""

from __future__ import annotations

import pytest
from app_helpers import app, no_threads_left
from streamlit.testing.v1 import AppTest

from app import runtime, state
from app import settings as cfgmod
from solver.cfr.options import OPTION_FIELDS
from solver.cli import commands as cli

PREFIX = "solver_"  # the session keys of the solver options' widgets
# (algorithm, pruning) pairs that between them draw every option
CASES = (("cfr+", "partial"), ("cfr", "interval"), ("cfr+", "total"), ("mccfr-es", None))


def _page(algorithm: str, pruning: str | None) -> AppTest:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    at.selectbox(key=state.ALGORITHM).set_value(algorithm).run()
    if pruning is not None:
        at.selectbox(key=state.PRUNING).set_value(pruning).run()
    assert not at.exception
    return at


def _option_keys(at: AppTest) -> dict[str, str]:
    """Every widget key of the page that is a solver option's, with its kind."""
    kinds = {"number": at.text_input, "select": at.selectbox, "checkbox": at.checkbox}
    return {
        str(w.key): kind
        for kind, widgets in kinds.items()
        for w in widgets
        if str(w.key).startswith(PREFIX)
    }


def test_every_row_has_a_flag_a_widget_and_a_restore_key() -> None:
    parser_flags = set(cli.OPTION_FLAGS.values())
    drawn: dict[str, str] = {}
    for algorithm, pruning in CASES:
        drawn |= _option_keys(_page(algorithm, pruning))
    for row in OPTION_FIELDS:
        assert row.flag in parser_flags, row.field
        if row.app is None:  # locks: set on Explore, not in this form
            assert row.widget == "file"
            continue
        assert row.app.startswith(PREFIX) and row.app in runtime.RESTORED, row.field
        assert drawn.get(row.app) == row.widget, row.field  # drawn, as the row's kind


def test_the_form_draws_no_option_widget_outside_the_table() -> None:
    """Every option widget the form draws is a row's (or the disabled stand-in of one its
    settings force: Threads showing 1 for a sampler or RBP)."""
    keys = {str(r.app) for r in OPTION_FIELDS if r.app is not None}
    for algorithm, pruning in CASES:
        drawn = set(_option_keys(_page(algorithm, pruning)))
        stray = {k for k in drawn if k not in keys and k.removesuffix("_one") not in keys}
        assert not stray, (algorithm, pruning, stray)


def test_a_row_without_a_look_of_its_own_is_drawn_from_the_table(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The form reads the table, not a list of its own: without its OPTION_WIDGETS entry,
    an option is still drawn (under Advanced, labelled by its field, whatever the pruning)
    and read into the solve's options."""
    monkeypatch.delitem(cfgmod.OPTION_WIDGETS, "rbp_check_every")
    at = _page("cfr+", "partial")  # (its own entry drew it only with RBP)
    advanced = at.expander[0]
    field = next(w for w in advanced.text_input if w.key == state.RBP_CHECK_EVERY)
    assert field.label == "Rbp check every" and field.value == "10"
    field.set_value("x").run()
    assert [e.value for e in at.error] == ["Rbp check every: 'x' is not a number."]
    assert at.button(key="btn_solve").disabled
    at.text_input(key=state.RBP_CHECK_EVERY).set_value("7")
    at.text_input(key=state.MAX_ITERATIONS).set_value("5").run()
    assert not at.error
    at.button(key="btn_solve").click().run()
    try:
        assert not at.exception and not at.session_state[state.START_ERROR]
        assert at.session_state[state.JOB].engine.options.rbp_check_every == 7
    finally:
        no_threads_left()
