"""A three-way hold'em TURN spot in a real browser (Playwright driving Debian's chromium):
Set up's three-player form with a four-card board shows the river's sizes, a short solve
draws one curve per player, and Explore picks a river card and shows a river node's grid
with the combos holding the card named as blocked (docs/multiway.md). Fixtures (chromium,
the server, patient pages) come from tests/browser/conftest.py."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from pw import WAIT, chart, fill, idle, nav, rerun_done

from app import state
from app.features.river3_form import R3_RIVER_BETS


def test_a_three_way_turn_solves_and_explores_a_river_node(page: Page, server: str) -> None:
    page.goto(server)
    idle(page)
    nav(page, "Set up")
    page.get_by_text("3 (three-way)").click()
    rerun_done(page)
    fill(page, state.R3_BOARD, "Ks 7d 2c 9h")
    expect(page.get_by_text("River bets")).to_be_visible()
    fill(page, state.R3_STACK, "100")
    fill(page, state.R3_BETS, "50%")
    fill(page, state.R3_RAISES, "a")
    fill(page, state.R3_RAISE_CAP, "1")
    fill(page, R3_RIVER_BETS, "a")
    for key, text in ((state.R3_RANGE0, "AA, KQs"), (state.R3_RANGE1, "QQ, AQs"),
                      (state.R3_RANGE2, "TT, 99")):  # fmt: skip
        fill(page, key, text, tag="textarea")
    expect(page.get_by_text(re.compile(r"river cards \(no suit isomorphism\)"))).to_be_visible()
    expect(
        page.locator("[data-testid='stMetric']", has_text="Hands (P1 / P2 / P3)")
    ).to_contain_text("9 / 10 / 9")
    nav(page, "Solve")
    expect(page.get_by_text("Game: Three-way hold'em turn")).to_be_visible()
    iterations = page.get_by_label("Max iterations")
    iterations.fill("20")
    iterations.press("Enter")
    rerun_done(page)
    page.locator(".st-key-multi_start button").click()
    # generous: a busy 2-core machine, and a cold Numba cache compiles the walk first
    expect(page.get_by_text(re.compile(r"^Done \(iterations\)"))).to_be_visible(timeout=3 * WAIT)
    idle(page)
    curve = chart(page, "multi_curve")
    expect(curve).to_be_visible()
    for k in (1, 2, 3):
        expect(curve.locator(".legendtext", has_text=f"Nash distance (player {k})")).to_have_count(
            1
        )
    nav(page, "Explore")
    expect(chart(page, "river3_grid")).to_be_visible()
    page.get_by_text("Player 3 (last to act)").click()
    rerun_done(page)
    page.get_by_role("combobox", name="Street (the river card dealt)").click()
    page.keyboard.type("river Ts")  # (the list is long and drawn in part: filter it)
    page.get_by_role("option", name="river Ts", exact=True).click()
    rerun_done(page)
    expect(
        page.get_by_text(re.compile(r"Player 3\s+to act after: .* / river Ts / "))
    ).to_be_visible()
    line = "P1 checks, P2 checks, P3 checks / river Ts / P1 checks, P2 checks"
    page.get_by_role("combobox", name="Node (the line to it)").click()
    page.keyboard.type(line)
    page.get_by_role("option", name=line, exact=True).click()
    rerun_done(page)
    expect(
        page.get_by_text(re.compile(rf"Player 3\s+to act after: {re.escape(line)} —"))
    ).to_be_visible()
    expect(page.get_by_text("Blocked by the river Ts: TsTh, TsTd, TsTc")).to_be_visible()
    expect(chart(page, "river3_grid")).to_be_visible()
