"""Node locking in a real browser (Playwright driving Debian's chromium): solve the SRP river
preset, read Explore's spot header in words, paint cells of the grid to lock them to an
action (by a real drag), lock OOP's (BB's) first decision to shove, see
the lock in the breadcrumb, re-solve with the lock and read the changed EV. Fixtures
(chromium, the server, patient pages) come from tests/browser/conftest.py."""

from __future__ import annotations

import re
from pathlib import Path

from playwright.sync_api import Page, expect
from pw import WAIT, brush, chart, fill, idle, nav, solve_preset


def test_lock_a_node_and_see_the_changed_ev(page: Page, server: str, tmp_path: Path) -> None:
    solve_preset(page, server)
    nav(page, "Explore")
    _spot_header_in_words(page, tmp_path)
    page.locator("summary", has_text="Lock this node").click()
    idle(page)
    # shift the range: the grid after the shift shows before Lock
    page.locator("[data-testid='stRadio'] label", has_text="Shift the range").click()
    idle(page)
    fill(page, "lockui_shift_target", "60")
    shifted = chart(page, "lock_shift_grid")
    expect(shifted.locator("text.gtitle")).to_contain_text(
        re.compile(r"After the shift: All-in 900 60 % instead of \d"), timeout=WAIT
    )
    expect(shifted.locator("g.textpoint")).to_have_count(169)
    _paint_the_grid(page, tmp_path)
    page.locator("[data-testid='stRadio'] label", has_text="Whole range").click()
    idle(page)
    inputs = page.locator("[class*='st-key-lockui_mix_0_'] input")
    expect(inputs.first).to_be_visible(timeout=WAIT)
    n = inputs.count()
    assert n >= 3  # check, bets, all-in
    # typing a cell and Enter picks that cell, not every option whose letters it contains
    page.locator("[data-testid='stRadio'] label", has_text="Picked hands").click()
    idle(page)
    pick = page.locator(".st-key-lockui_pick input").first
    pick.click()
    pick.fill("AA")
    pick.press("Enter")
    pick.press("Escape")
    idle(page)
    tags = page.locator(".st-key-lockui_pick .react-aria-ComboBox [data-tag]")
    expect(tags).to_have_count(1)
    expect(tags.first).to_have_attribute("aria-label", "AA")
    page.locator("[data-testid='stRadio'] label", has_text="Whole range").click()
    expect(page.locator(".st-key-lockui_pick")).to_have_count(0)  # the rerun is drawn
    idle(page)
    # a value that is no percentage: named under its field, and Lock waits for a good one
    fill(page, "lockui_mix_0_0", "-50")
    expect(
        page.get_by_text(re.compile(r"^Check %: must be from 0 to 100, got -50\."))
    ).to_be_visible()
    expect(page.locator(".st-key-lockui_add button").first).to_be_disabled()
    for i in range(n):  # OOP shoves every hand
        fill(page, f"lockui_mix_0_{i}", "100.00" if i == n - 1 else "0.00")
    page.locator(".st-key-lockui_add button").click()
    idle(page)
    expect(page.locator(".st-key-crumb_0 [data-testid='stIconMaterial']")).to_have_text(
        "lock", timeout=WAIT
    )
    expect(page.get_by_text("re-solve to apply")).to_be_visible()
    idle(page)
    page.locator(".st-key-lockui_resolve button").first.click()
    idle(page)
    expect(page.get_by_text("Effect of the locks")).to_be_visible(timeout=3 * WAIT)
    metric = page.locator("[data-testid='stMetric']", has_text="BB EV at the root").first
    delta = metric.locator("[data-testid='stMetricDelta']").inner_text()
    found = re.search(r"([+−-]\d+\.\d+) \(was", delta)
    assert found is not None, delta
    assert abs(float(found[1].replace("−", "-"))) > 0.01  # shoving everything costs OOP chips
    expect(page.get_by_text("in the current solve")).to_be_visible()
    expect(page.locator(".st-key-crumb_0 [data-testid='stIconMaterial']")).to_have_text("lock")


def _paint_the_grid(page: Page, tmp_path: Path) -> None:
    """Paint the grid: drag over AA, AKs, AQs (one cell each), then click KQs with both
    halves (KQo too); the grid after the paint says 5 cells; Lock records them. The form's
    picture is kept in the test's temporary folder."""
    page.locator("[data-testid='stRadio'] label", has_text="Paint the grid").click()
    idle(page)
    result = chart(page, "lock_paint_result")
    expect(result.locator("text.gtitle")).to_contain_text("Nothing painted", timeout=WAIT)
    brush(page, "lockui_paint_grid", "AA", "AQs")  # the top row's first 3
    expect(chart(page, "lock_paint_result").locator("text.gtitle")).to_contain_text(
        "After the paint: 3 cells locked", timeout=WAIT
    )
    page.locator("[data-testid='stRadio'] label", has_text="Suited and offsuit together").click()
    idle(page)
    brush(page, "lockui_paint_grid", "KQs", "KQs")  # a click: KQs, and KQo with it
    expect(chart(page, "lock_paint_result").locator("text.gtitle")).to_contain_text(
        "After the paint: 5 cells locked", timeout=WAIT
    )
    page.locator("[data-testid='stExpander']", has_text="Lock this node").first.screenshot(
        path=str(tmp_path / "paint-lock.png")
    )
    page.locator(".st-key-lockui_add button").click()
    idle(page)
    expect(
        page.get_by_text(re.compile(r"^Locked: AA: All-in 900 100%.*KQo: All-in 900 100%"))
    ).to_be_visible(timeout=WAIT)
    expect(page.get_by_text("re-solve to apply")).to_be_visible()
    page.locator(".st-key-lockui_unlock button").click()  # the whole-range lock comes below
    idle(page)
    expect(page.get_by_text("re-solve to apply")).to_have_count(0)
    summary = page.locator("summary", has_text="Lock this node")
    if not page.locator(".st-key-lockui_add button").first.is_visible():  # (new title: closed)
        summary.click()
        idle(page)


CODE = re.compile(r"\b[brd]:[0-9TJQKA]")  # an action or card code (b:100, d:8h)


def _spot_header_in_words(page: Page, tmp_path: Path) -> None:
    """Explore's header as a person sees it: the preset's names, four-colour cards, pot,
    stack and SPR, the line in words after a click; no action code on the page; the grid's
    labels drawn as text. The header's picture is kept in the test's temporary folder."""
    header = page.locator(".st-key-spot_header")
    expect(header).to_contain_text("BB vs BTN", timeout=WAIT)
    expect(header).to_contain_text("Pot 200 (20 bb) · Effective stack 900 (90 bb) · SPR 4.5")
    expect(header).to_contain_text("Line: start of the river — BB to act")
    cards = header.locator(".spot-card")
    expect(cards).to_have_count(5)
    expect(cards.first).to_have_text("T♦")
    expect(cards.first).to_have_css("background-color", "rgb(31, 119, 180)")  # diamonds blue
    expect(cards.nth(2)).to_have_css("background-color", "rgb(214, 39, 40)")  # hearts red
    # the grid's labels are text (sharp at this pixel ratio of 1), not letters in a picture
    grid = chart(page, "explore_grid")
    expect(grid.locator("g.textpoint", has_text=re.compile(r"^AJo$"))).to_have_count(1)
    expect(grid.locator("g.textpoint")).to_have_count(169)
    page.locator(".st-key-act_0 button").click()  # BB checks
    idle(page)
    expect(header).to_contain_text("Line: BB check — BTN to act")
    expect(page.locator(".st-key-act_1 button")).to_have_text("Bet 50 % (100)")
    assert not CODE.search(page.locator("[data-testid='stMain']").inner_text())
    header.screenshot(path=str(tmp_path / "spot-header.png"))
    page.locator(".st-key-crumb_0 button").click()  # back to the start for the lock below
    idle(page)
    expect(header).to_contain_text("Line: start of the river")
