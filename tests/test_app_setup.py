"""AppTest: the Set up page fills the form from a preset, reports each bad field next to it
without losing what was typed, edits ranges on the grid and the board with the card picker."""

from __future__ import annotations

import json

import numpy as np
from app_helpers import page
from streamlit.testing.v1 import AppTest

from app import spec as S
from app import state
from app.screens.setup import paint_cells
from solver.ranges import grid_from_weights, parse_range


def _run(**st: object) -> AppTest:
    at = page("setup", **st)
    at.run()
    assert not at.exception
    return at


def test_preset_fills_the_form_and_estimates_the_tree() -> None:
    at = _run()
    assert at.text_input(key=state.BOARD).value == "Td9d6hQc2s"
    assert at.number_input(key=state.POT).value == 200
    assert at.text_input(key=state.BETS).value == "50%, 100%, a"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Nodes"] == "57"
    assert not at.error


def test_bad_fields_are_reported_next_to_them_and_kept() -> None:
    at = _run()
    at.text_input(key=state.BOARD).set_value("Td 9d 6h Qc Xx").run()
    at.text_input(key=state.BETS).set_value("50%, huge").run()
    errors = [e.value for e in at.error]
    assert any(e.startswith("board") for e in errors)
    assert any(e.startswith("bets") and "huge" in e for e in errors)
    assert at.text_input(key=state.BOARD).value == "Td 9d 6h Qc Xx"  # nothing lost
    assert at.text_input(key=state.BETS).value == "50%, huge"
    assert not at.metric  # no estimate while invalid
    at.text_input(key=state.BOARD).set_value("Td 9d 6h Qc 3s").run()
    at.text_input(key=state.BETS).set_value("33%, 75%").run()
    assert not at.error and at.metric


def _ip(at: AppTest) -> str:
    return str(at.text_area(key=state.IP_RANGE).value)


def test_grid_click_edits_the_range_text() -> None:
    at = _run(**{state.GRID_PLAYER: "IP", state.GRID_EDITOR_OPEN: True})
    before = parse_range(_ip(at))
    at.button(key="cell_72o").click().run()  # not in the IP range: added at weight 1
    after = parse_range(_ip(at))
    changed = np.flatnonzero(after != before)
    assert len(changed) == 12 and np.all(after[changed] == 1.0)
    at.slider(key=state.GRID_WEIGHT).set_value(0.5).run()
    at.button(key="cell_K2o").click().run()
    assert "K2o:0.5" in _ip(at)
    at.slider(key=state.GRID_WEIGHT).set_value(1.0).run()
    at.button(key="cell_72o").click().run()  # clicking a cell at the same weight clears it
    np.testing.assert_array_equal(parse_range(_ip(at))[changed], 0.0)


def test_drag_paint_sets_and_clears_the_cells_under_the_drag() -> None:
    text = paint_cells("AA, KQs", ["A2o", "K2o", "AA"], 0.5)
    g = grid_from_weights(parse_range(text))
    assert g[12, 0] == g[12, 1] == g[0, 0] == 0.5 and g[1, 2] == 1.0  # KQs untouched
    # A2o and K2o stay: 12 combos each at 0.5
    assert parse_range(paint_cells(text, ["AA", "KQs"], 0.0)).sum() == 24 * 0.5
    # the paint grid renders in the editor: 169 cells labelled in grid order
    at = _run(**{state.GRID_EDITOR_OPEN: True})
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    paint = [c for c in charts if c["data"][0].get("customdata")]
    assert len(paint) == 1 and paint[0]["data"][0]["customdata"][13 * 12 + 1] == "K2o"


def test_card_picker_toggles_board_cards() -> None:
    at = _run(**{state.BOARD_PICKER_OPEN: True})
    at.button(key="card_2s").click().run()
    assert at.text_input(key=state.BOARD).value == "Td 9d 6h Qc"
    at.button(key="card_Ah").click().run()
    assert at.text_input(key=state.BOARD).value == "Td 9d 6h Qc Ah"


def test_toy_game_needs_no_form() -> None:
    at = _run(**{state.SOURCE: "preset:kuhn"})
    assert "toy game" in at.info[0].value
    assert not at.text_input


def test_request_is_valid_only_for_good_input() -> None:
    at = _run()
    at.text_area(key=state.OOP_RANGE).set_value("AA, KQx").run()
    assert any(e.value.startswith("oop range") for e in at.error)
    assert "oop_range" in _request(at).errors


def _request(at: AppTest) -> S.Checked:
    """The form's validation, run on the test session's values."""
    values = {k: at.session_state[f"hs_{k}"] for k in S.FIELDS}
    return S.check(S.spec_from_form(values, None))


def test_per_street_sizes_reach_the_spec_and_errors_show_there() -> None:
    from app.spec import size_key

    at = _run()
    at.text_input(key=size_key("river", "ip", "bets")).set_value("33%").run()
    assert not at.error
    nodes = {m.label: m.value for m in at.metric}["Nodes"]
    assert nodes != "57"  # IP now has one river bet size instead of three
    at.text_input(key=size_key("river", "oop", "raises")).set_value("2.5x, nope").run()
    errors = [e.value for e in at.error]
    assert any(e.startswith("sizes.river.oop.raises") and "nope" in e for e in errors)
    assert at.text_input(key=size_key("river", "ip", "bets")).value == "33%"
