"""Three-player Kuhn in a real browser (Playwright driving Debian's chromium): pick it on Set
up, solve it, and see one Nash-distance curve per player and NashConv, labelled per player
(docs/multiway.md). Fixtures (chromium, the server, patient pages) come from
tests/browser/conftest.py."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from pw import WAIT, chart, idle, nav, rerun_done


def test_kuhn3_solves_with_a_nash_distance_curve_per_player(page: Page, server: str) -> None:
    page.goto(server)
    idle(page)
    nav(page, "Set up")
    page.get_by_role("combobox", name="Game or preset").click()
    page.get_by_role("option", name="Kuhn poker, 3 players").click()
    idle(page)
    expect(page.get_by_text(re.compile("a toy game of three players"))).to_be_visible()
    nav(page, "Solve")
    expect(page.get_by_text("Game: Kuhn poker, 3 players")).to_be_visible()
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
    expect(curve.locator(".legendtext", has_text="NashConv")).to_have_count(1)
    expect(curve.locator(".ytitle")).to_have_text("chips per game")
    expect(page.get_by_text(re.compile(r"CFR carries no guarantee"))).to_be_visible()
    expect(page.locator("[data-testid='stMetric']", has_text="Nash distance")).to_have_count(3)


def test_a_three_way_river_solves_with_three_curves_and_a_grid(page: Page, server: str) -> None:
    """Set up's hold'em form with 3 players (its default small spot), a short solve, one
    curve per player in % of the starting pot, and Explore's 13×13 grid for two players."""
    page.goto(server)
    idle(page)
    nav(page, "Set up")
    page.get_by_text("3 (three-way)").click()
    rerun_done(page)
    expect(page.get_by_text("Player 3 range (last to act)")).to_be_visible()
    expect(
        page.locator("[data-testid='stMetric']", has_text="Hands (P1 / P2 / P3)")
    ).to_be_visible()
    nav(page, "Solve")
    expect(page.get_by_text("Game: Three-way hold'em river")).to_be_visible()
    iterations = page.get_by_label("Max iterations")
    iterations.fill("100")
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
    expect(curve.locator(".ytitle")).to_have_text("% of the starting pot")
    nav(page, "Explore")
    grid = chart(page, "river3_grid")
    expect(grid).to_be_visible()
    expect(grid.locator(".legendtext", has_text="check")).to_have_count(1)
    page.get_by_text("Player 3 (last to act)").click()
    rerun_done(page)
    expect(
        page.get_by_text(re.compile(r"Player 3\s+to act after: P1 checks, P2 checks"))
    ).to_be_visible()
    expect(chart(page, "river3_grid")).to_be_visible()
