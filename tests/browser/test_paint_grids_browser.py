"""The other two paint grids paint exactly the cells under the brush (issue 44.5), in a real
browser, as Explore's "Paint the grid" does (tests/browser/test_paint_lock_browser.py): on
the "Picked hands" lock mode's grid and on Set up's range brush (Drag over cells), a click
on one cell takes that cell alone (the Plotly box drag both grids had took nothing on a
click) and a drag along the top row over A5s → A4s, nearly flat, only those two cells (the
Plotly drag widened it to a band over whole columns: 85s, 75s, 65s and 54s below them too).
What the page did is read from the grid it draws, the picked hands' tags and the range text.
Fixtures come from tests/browser/conftest.py."""

from __future__ import annotations

import re

import numpy as np
from playwright.sync_api import Locator, Page, expect
from pw import WAIT, idle, nav, rerun_done, solve_preset

from solver.poker.ranges import GRID_LABELS, grid_from_weights, parse_range

BELOW = {"85s", "75s", "65s", "54s"}  # in both SRP river ranges, in A5s's and A4s's columns
PICK = "lockui_paint"  # the Picked hands grid
RANGE = "grid_paint"  # Set up's range brush


def cell(page: Page, key: str, label: str) -> Locator:
    """A cell of the paint canvas ``key`` (its element carries the label and its state)."""
    return page.locator(f".st-key-{key} [data-cell='{label}']")


def cells(page: Page, key: str, state: str) -> set[str]:
    """The labels of the canvas ``key``'s cells drawn in ``state``."""
    found = page.locator(f".st-key-{key} [data-state='{state}']")
    return {str(found.nth(i).get_attribute("data-cell")) for i in range(found.count())}


def point(
    page: Page, key: str, label: str, dx: float = 0.0, dy: float = 0.0
) -> tuple[float, float]:
    """Viewport pixels of a cell's middle moved by (dx, dy) cell widths."""
    box = cell(page, key, label).bounding_box()
    assert box is not None
    return (box["x"] + box["width"] * (0.5 + dx), box["y"] + box["height"] * (0.5 + dy))


def settle(page: Page) -> None:
    rerun_done(page)


def shown(page: Page, key: str) -> None:
    """Wait for the canvas ``key`` and bring it into the viewport (mouse coordinates are the
    viewport's)."""
    expect(cell(page, key, "AA")).to_be_visible(timeout=WAIT)
    cell(page, key, "AA").scroll_into_view_if_needed()
    page.wait_for_timeout(300)


def click(page: Page, key: str, label: str) -> None:
    """A mouse click on the middle of a cell of the canvas ``key``."""
    shown(page, key)
    page.mouse.click(*point(page, key, label))
    settle(page)


def flat_drag(page: Page, key: str, first: str, last: str) -> None:
    """A drag with the mouse button held, in small steps, from inside ``first`` to inside
    ``last`` along their row, drifting a little downwards (a hand's drag is never quite
    flat)."""
    shown(page, key)
    page.mouse.move(*point(page, key, first, -0.3, -0.1))
    page.mouse.down()
    page.mouse.move(*point(page, key, last, 0.3, 0.1), steps=12)
    page.mouse.up()
    settle(page)


def tags(page: Page) -> Locator:
    """The picked hands' tags in the Picked hands list."""
    return page.locator(".st-key-lockui_pick .react-aria-ComboBox [data-tag]")


def picked(page: Page) -> set[str]:
    found = tags(page)
    return {str(found.nth(i).get_attribute("aria-label")) for i in range(found.count())}


def test_picked_hands_grid_takes_the_clicked_cell_and_the_dragged_cells(
    page: Page, server: str
) -> None:
    solve_preset(page, server)
    nav(page, "Explore")
    page.locator("summary", has_text="Lock this node").click()
    idle(page)
    page.locator("[data-testid='stRadio'] label", has_text="Picked hands").click()
    idle(page)
    shown(page, PICK)
    assert {"AKs", "A5s", "A4s"} | BELOW <= cells(page, PICK, "free")
    assert cells(page, PICK, "picked") == set()

    click(page, PICK, "AKs")
    expect(tags(page)).to_have_count(1, timeout=WAIT)
    expect(cell(page, PICK, "AKs")).to_have_attribute("data-state", "picked", timeout=WAIT)
    assert picked(page) == {"AKs"} and cells(page, PICK, "picked") == {"AKs"}

    flat_drag(page, PICK, "A5s", "A4s")
    expect(tags(page)).to_have_count(3, timeout=WAIT)
    expect(cell(page, PICK, "A4s")).to_have_attribute("data-state", "picked", timeout=WAIT)
    assert picked(page) == {"AKs", "A5s", "A4s"}
    assert cells(page, PICK, "picked") == {"AKs", "A5s", "A4s"}
    assert cells(page, PICK, "free") >= BELOW


def _range(page: Page) -> np.ndarray:
    """The OOP range text's (13, 13) grid of weights."""
    text = page.locator(".st-key-hs_oop_range textarea").input_value()
    return grid_from_weights(parse_range(text))


def _at(label: str) -> tuple[int, int]:
    return next((i, row.index(label)) for i, row in enumerate(GRID_LABELS) if label in row)


def test_set_up_range_brush_takes_the_clicked_cell_and_the_dragged_cells(
    page: Page, server: str
) -> None:
    page.goto(server)
    idle(page)
    nav(page, "Set up")  # the SRP river preset: OOP holds A5s-A4s, not A7s
    expect(page.locator(".st-key-hs_oop_range textarea")).to_have_value(
        re.compile(r"A5s-A4s"), timeout=WAIT
    )
    page.locator("summary", has_text="Edit a range on the 13×13 grid").click()
    idle(page)
    page.get_by_role("tab", name="Drag over cells").click()
    shown(page, RANGE)
    start = _range(page)
    a7s, a5s, a4s = _at("A7s"), _at("A5s"), _at("A4s")
    assert start[a7s] == 0 and start[a5s] == start[a4s] == 1.0
    assert all(start[_at(c)] == 1.0 for c in BELOW)
    assert cells(page, RANGE, "in") == {
        GRID_LABELS[i][j] for i in range(13) for j in range(13) if start[i, j] > 0
    }

    # Set weight (at 1): a click on A7s adds that cell alone
    click(page, RANGE, "A7s")
    expect(cell(page, RANGE, "A7s")).to_have_attribute("data-state", "in", timeout=WAIT)
    want = start.copy()
    want[a7s] = 1.0
    np.testing.assert_array_equal(_range(page), want)

    # Clear: a flat drag along the top row over A5s -> A4s takes out those two cells alone
    page.locator(".st-key-grid_drag label", has_text="Clear").click()
    idle(page)
    flat_drag(page, RANGE, "A5s", "A4s")
    expect(cell(page, RANGE, "A4s")).to_have_attribute("data-state", "out", timeout=WAIT)
    want[a5s] = want[a4s] = 0.0
    np.testing.assert_array_equal(_range(page), want)
    assert cells(page, RANGE, "in") >= BELOW
