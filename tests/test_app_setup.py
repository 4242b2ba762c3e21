"""AppTest: the Set up page fills the form from a preset, reports each bad field next to it
(text and number fields alike) without losing what was typed, has a memory cap field and
estimates the time per iteration, edits ranges on the grid and the board with the card
picker."""

from __future__ import annotations

import json

import numpy as np
import pytest
from app_helpers import app, page, stroke
from streamlit.testing.v1 import AppTest

from app import spec as S
from app import state
from app.screens.setup import paint_cells
from solver.poker.ranges import GRID_LABELS, grid_from_weights, parse_range


def _run(**st: object) -> AppTest:
    at = page("setup", **st)
    at.run()
    assert not at.exception
    return at


def test_preset_fills_the_form_and_estimates_the_tree() -> None:
    at = _run()
    assert at.text_input(key=state.BOARD).value == "Td9d6hQc2s"
    assert at.text_input(key=state.POT).value == "200"
    assert at.text_input(key=state.MAX_MEMORY).value == "4096"
    assert at.text_input(key=state.BETS).value == "50%, 100%, a"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Nodes"] == "57"
    assert metrics["Time per iteration"].startswith("≈ ")
    assert not at.error


@pytest.mark.parametrize(
    ("key", "typed", "message"),
    [
        (state.POT, "1e12", "Pot (chips): must be from 1 to 1,000,000,000, got 1e12."),
        (state.POT, "abc", "Pot (chips): 'abc' is not a number."),
        (state.STACK, "2.5", "Effective stack (chips): must be a whole number, got 2.5."),
        (state.RAISE_CAP, "99", "Raise cap: must be from 0 to 50, got 99."),
        (state.BIG_BLIND, "", "Big blind (chips): enter a number from 0.01 to 1,000,000,000."),
        (state.MERGING, "-1", "Merge sizes within × pot: must be from 0 to 10, got -1 (0 = off)."),
    ],
)
def test_bad_numbers_are_named_kept_and_block_solve(key: str, typed: str, message: str) -> None:
    at = _run()
    at.text_input(key=key).set_value(typed).run()
    assert [e.value for e in at.error] == [message]
    assert at.text_input(key=key).value == typed  # what was typed stays
    assert not at.metric  # no estimate while invalid
    assert _solve_disabled(key, typed, message)


def _solve_disabled(key: str, typed: str, message: str) -> bool:
    """Whether the Solve page, with ``typed`` in the Set up field ``key``, disables Solve and
    names the field."""
    at = app()
    at.run()
    at.session_state[key] = typed
    at.run()
    assert not at.exception
    assert any(message in e.value for e in at.error)
    return bool(at.button(key="btn_solve").disabled)


def test_max_memory_field_refuses_a_big_tree_by_name() -> None:
    at = _run(**{state.SOURCE: "preset:srp-turn"})  # a tree of about 20 MB
    at.text_input(key=state.MAX_MEMORY).set_value("5").run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith("Max memory (MB): this tree needs")
    assert errors[0].endswith("over the 5 MB allowed")
    at.text_input(key=state.MAX_MEMORY).set_value("64").run()
    assert not at.error and at.metric


def test_bad_fields_are_reported_next_to_them_and_kept() -> None:
    at = _run()
    at.text_input(key=state.BOARD).set_value("Td 9d 6h Qc Xx").run()
    at.text_input(key=state.BETS).set_value("50%, huge").run()
    errors = [e.value for e in at.error]
    assert any(e.startswith("Board: ") for e in errors)
    assert any(e.startswith("Bets: ") and "huge" in e for e in errors)
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


def _brush(at: AppTest) -> dict[str, dict]:
    """The brush grid's cells as the page sends them: label → its fill, tooltip and state."""
    (canvas,) = [e for e in at.get("bidi_component")
                 if e.proto.component_name == "regret_lab.paint_canvas"]  # fmt: skip
    cells = json.loads(canvas.proto.json)["cells"]
    return {c["label"]: c for c in cells}


def test_a_brush_stroke_paints_exactly_its_cells_on_the_range() -> None:
    """Set up's brush (issue 44.5; a Plotly box drag there picked nothing on a click and
    whole columns on a flat drag): a stroke sets exactly the cells the pointer passed over
    to the chosen weight, a click on a cell already at it clears it (as the Click cells tab
    does), and Clear takes the stroke's cells out of the range; the grid shows the range."""
    at = _run(**{state.GRID_PLAYER: "IP", state.GRID_EDITOR_OPEN: True})
    start = parse_range(_ip(at))
    grid = grid_from_weights(start)
    cells = _brush(at)
    assert list(cells)[13 * 12 + 1] == "K2o"  # cell k is row k // 13, column k % 13
    assert {k for k, c in cells.items() if c["state"] == "in"} == {
        GRID_LABELS[i][j] for i in range(13) for j in range(13) if grid[i, j] > 0
    }
    assert grid[0, 9] == grid[0, 10] == 1.0 and cells["A5s"]["state"] == "in"

    def only(changed: dict[tuple[int, int], float]) -> None:
        """The range is the start one with exactly the cells ``changed`` at their weight."""
        want = grid.copy()
        for (i, j), v in changed.items():
            want[i, j] = v
        np.testing.assert_array_equal(grid_from_weights(parse_range(_ip(at))), want)

    at.slider(key=state.GRID_WEIGHT).set_value(0.5).run()
    stroke(at, state.GRID_PAINT, ["A5s", "A4s"])  # a drag along the top row
    assert not at.exception
    only({(0, 9): 0.5, (0, 10): 0.5})
    assert _brush(at)["A5s"]["title"] == "A5s: weight 0.50"
    stroke(at, state.GRID_PAINT, ["A5s"])  # a click on a cell at the weight clears it
    only({(0, 9): 0.0, (0, 10): 0.5})
    assert _brush(at)["A5s"]["state"] == "out"
    stroke(at, state.GRID_PAINT, ["A5s"])  # and a click again sets it
    only({(0, 9): 0.5, (0, 10): 0.5})
    at.radio(key=state.GRID_DRAG).set_value("Clear").run()
    stroke(at, state.GRID_PAINT, ["A5s", "A4s", "K2o"])  # K2o was not in the range
    only({(0, 9): 0.0, (0, 10): 0.0})
    assert np.array_equal(parse_range(_ip(at))[start == 0], start[start == 0])
    assert {k for k, c in _brush(at).items() if c["state"] == "in"} == {
        GRID_LABELS[i][j] for i in range(13) for j in range(13) if grid[i, j] > 0
    } - {"A5s", "A4s"}


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
    assert any(e.value.startswith("OOP range: ") for e in at.error)
    assert "oop_range" in _request(at).errors


def _request(at: AppTest) -> S.Checked:
    """The form's validation, run on the test session's values."""
    values, errors = S.read_numbers({k: at.session_state[f"hs_{k}"] for k in S.FIELDS})
    assert not errors
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
    assert any(e.startswith("River OOP raises: ") and "nope" in e for e in errors)
    assert at.text_input(key=size_key("river", "ip", "bets")).value == "33%"
