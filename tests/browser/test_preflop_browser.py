"""Heads-up preflop in a real browser (Playwright driving Debian's chromium): pick the
push/fold preset on Set up, solve it, and see the exploitability in bb/hand and mbb/hand, the
curve in mbb/hand, the SB's shove grid and the preflop spot header. Fixtures (chromium, the
server, patient pages) come from tests/browser/conftest.py."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from pw import WAIT, chart, fill, idle, metric, nav


def test_push_fold_preset_solves_with_the_bb_curve_and_the_grid(page: Page, server: str) -> None:
    page.goto(server)
    idle(page)
    nav(page, "Set up")
    page.get_by_role("combobox", name="Game or preset").click()
    page.get_by_role("option", name="Preflop push/fold, 10 bb").click()
    idle(page)
    expect(page.locator(".st-key-pf_stack_bb input")).to_have_value("10")
    expect(page.get_by_text("Ready: go to Solve")).to_be_visible()
    nav(page, "Solve")
    header = page.locator(".spot-header")
    expect(header).to_contain_text("SB vs BB")
    expect(header).to_contain_text("Blinds 0.5/1 bb")
    expect(header).to_contain_text("Stack 10 bb")
    fill(page, "target_value", "0.002")  # bb: 2 mbb/hand, about a second
    page.locator(".st-key-btn_solve button").click()
    # generous: a cold Numba cache compiles the kernels on the first solve
    expect(page.get_by_text(re.compile(r"^Done \(target reached"))).to_be_visible(timeout=3 * WAIT)
    idle(page)
    assert float(metric(page, "Exploitability (mbb/hand)")) <= 2.0
    expect(page.get_by_text(re.compile(r"bb/hand · [\d.]+ mbb/hand"))).to_be_visible()
    curve = chart(page, "live_curve")
    expect(curve).to_be_visible()
    expect(curve.locator(".ytitle")).to_have_text("exploitability (mbb/hand)")
    grid = chart(page, "live_grid")
    expect(grid).to_be_visible()
    expect(grid.locator(".legendtext", has_text="All-in 10")).to_have_count(1)
    expect(grid.locator(".legendtext", has_text="Fold")).to_have_count(1)
    expect(page.get_by_text(re.compile(r"Live strategy — SB first to act"))).to_be_visible()
