"""Painting a lock paints exactly the cells under the brush (issue 44.5), in a real browser:
on the SRP river preset's first node (BB to act, whose range holds A5s and A4s), a click on
one cell paints that cell alone (a Plotly canvas with a box drag painted nothing on a click),
and a drag along the top row over A5s → A4s (nearly flat: Plotly widened it to whole columns)
paints only those two cells, not 85s, 75s, 65s and 54s below them; a drag down a column only
that column's cells. The painted cells are read from the canvas the page draws, the grid
after the paint and the lock the page records. Fixtures come from tests/browser/conftest.py."""

from __future__ import annotations

import re

from playwright.sync_api import Locator, Page, expect
from pw import WAIT, chart, idle, nav, rerun_done, solve_preset

CANVAS = "lockui_paint_grid"


def cell(page: Page, label: str) -> Locator:
    """A cell of the paint canvas (its element carries the label and whether it is painted)."""
    return page.locator(f".st-key-{CANVAS} [data-cell='{label}']")


def cells(page: Page, state: str) -> set[str]:
    """The labels of the canvas cells drawn in ``state`` (painted, free, none)."""
    found = page.locator(f".st-key-{CANVAS} [data-state='{state}']")
    return {str(found.nth(i).get_attribute("data-cell")) for i in range(found.count())}


def point(page: Page, label: str, dx: float = 0.0, dy: float = 0.0) -> tuple[float, float]:
    """Viewport pixels of a cell's middle moved by (dx, dy) cell widths."""
    box = cell(page, label).bounding_box()
    assert box is not None
    return (box["x"] + box["width"] * (0.5 + dx), box["y"] + box["height"] * (0.5 + dy))


def settle(page: Page) -> None:
    rerun_done(page)


def click(page: Page, label: str) -> None:
    """A mouse click on the middle of a cell of the canvas."""
    expect(cell(page, label)).to_be_visible(timeout=WAIT)
    cell(page, label).scroll_into_view_if_needed()
    x, y = point(page, label)
    page.mouse.click(x, y)
    settle(page)


def drag(page: Page, start: tuple[float, float], end: tuple[float, float]) -> None:
    """A drag with the mouse button held, in small steps, from ``start`` to ``end``."""
    page.mouse.move(*start)
    page.mouse.down()
    page.mouse.move(*end, steps=12)
    page.mouse.up()
    settle(page)


def title(page: Page) -> str:
    return chart(page, "lock_paint_result").locator("text.gtitle").inner_text()


def test_a_click_paints_one_cell_and_a_drag_only_the_cells_under_it(
    page: Page, server: str
) -> None:
    solve_preset(page, server)
    nav(page, "Explore")
    page.locator("summary", has_text="Lock this node").click()
    idle(page)
    page.locator("[data-testid='stRadio'] label", has_text="Paint the grid").click()
    idle(page)
    expect(chart(page, "lock_paint_result").locator("text.gtitle")).to_contain_text(
        "Nothing painted", timeout=WAIT
    )
    below = {"85s", "75s", "65s", "54s"}  # in BB's range, in the columns of A5s and A4s
    expect(cell(page, "A5s")).to_have_attribute("data-state", "free", timeout=WAIT)
    assert {"AKs", "QQ", "A5s", "A4s"} | below <= cells(page, "free")

    click(page, "AKs")
    expect(chart(page, "lock_paint_result").locator("text.gtitle")).to_contain_text(
        "After the paint: 1 cell locked", timeout=WAIT
    )
    expect(cell(page, "AKs")).to_have_attribute("data-state", "painted")
    assert cells(page, "painted") == {"AKs"}
    click(page, "QQ")  # a second click paints a second cell, the first one stays
    expect(chart(page, "lock_paint_result").locator("text.gtitle")).to_contain_text(
        "After the paint: 2 cells locked", timeout=WAIT
    )
    assert cells(page, "painted") == {"AKs", "QQ"}

    # along the top row, from inside A5s to inside A4s, drifting a little downwards
    drag(page, point(page, "A5s", -0.3, -0.1), point(page, "A4s", 0.3, 0.1))
    expect(chart(page, "lock_paint_result").locator("text.gtitle")).to_contain_text(
        "After the paint: 4 cells locked", timeout=WAIT
    )
    assert cells(page, "painted") == {"AKs", "QQ", "A5s", "A4s"}

    # down a column, from KJs into QJs: those two, not the cells beside the path
    drag(page, point(page, "KJs", 0.1, -0.2), point(page, "QJs", -0.1, 0.2))
    expect(chart(page, "lock_paint_result").locator("text.gtitle")).to_contain_text(
        "After the paint: 6 cells locked", timeout=WAIT
    )
    assert cells(page, "painted") == {"AKs", "QQ", "A5s", "A4s", "KJs", "QJs"}
    assert not cells(page, "painted") & below
    page.locator(".st-key-lockui_add button").click()
    idle(page)
    locked = page.get_by_text(re.compile(r"^Locked: "))
    expect(locked).to_be_visible(timeout=WAIT)
    text = locked.inner_text()
    assert "A5s" in text and "A4s" in text and not any(c + ":" in text for c in below)
