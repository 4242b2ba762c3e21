"""Explore's runout grid deals a card on a click (issue 44: "runout cards clickable on the
chance-node view"): on Leduc after check, check, a click on a card of the grid walks to the
node below that card, as picking it in "Deal a card" does."""

from __future__ import annotations

import re

import pytest

pytest.importorskip("playwright")

from playwright.sync_api import Page, expect
from pw import WAIT, chart, chart_js, idle, nav, pick_game, rerun_done

GRID = "study_runout_grid"


def test_a_click_on_a_runout_card_deals_it(page: Page, server: str) -> None:
    page.goto(server)
    idle(page)
    pick_game(page, "Leduc hold'em")
    page.locator(".st-key-btn_solve button").click()
    expect(page.get_by_text(re.compile(r"^Done"))).to_be_visible(timeout=3 * WAIT)
    nav(page, "Explore")
    # check, check: the board card is dealt next. Each click waits for its node: a click
    # landing while the rerun of the one before still draws the old buttons is lost
    page.locator(".st-key-act_0 button").click()
    rerun_done(page)
    expect(page.get_by_text("player 0 check — player 1 to act").first).to_be_visible()
    page.locator(".st-key-act_0 button").click()
    rerun_done(page)
    expect(page.get_by_text("Deal a card")).to_be_visible(timeout=WAIT)
    page.locator("[data-testid='stRadio'] label", has_text="Runouts").click()
    idle(page)
    grid = chart(page, GRID)
    expect(grid).to_be_visible(timeout=WAIT)
    grid.scroll_into_view_if_needed()  # mouse coordinates are the viewport's
    page.wait_for_timeout(500)
    card, x, y = page.evaluate(
        "() => { const gd = " + chart_js(GRID) + "; const t = gd.data[0];"
        " const fl = gd._fullLayout; const r = gd.getBoundingClientRect(); const i = 1;"
        " return [t.customdata[i], r.left + fl._size.l + fl.xaxis.d2p(t.x[i]),"
        " r.top + fl._size.t + fl.yaxis.d2p(t.y[i])]; }"
    )
    assert isinstance(card, str) and len(card) == 2
    page.mouse.click(x, y)
    rerun_done(page)
    # the node below the card: its breadcrumb step names the card, the card picker is gone
    crumbs = page.locator(".st-key-breadcrumb")
    expect(crumbs).to_contain_text(card, timeout=WAIT)
    expect(page.get_by_text("Deal a card")).to_have_count(0, timeout=WAIT)
