"""Node locking in a real browser (Playwright driving Debian's chromium): solve the SRP river
preset, lock OOP's first decision to shove, see the lock in the breadcrumb, re-solve with the
lock and read the changed EV. Fixtures (chromium, the server, patient pages) come from
tests/browser/conftest.py."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from pw import WAIT, fill, idle, nav


def test_lock_a_node_and_see_the_changed_ev(page: Page, server: str) -> None:
    page.goto(server)
    idle(page)
    nav(page, "Set up")
    page.get_by_role("combobox", name="Game or preset").click()
    page.get_by_role("option", name="SRP river: Td9d6h Qc 2s").click()
    idle(page)
    nav(page, "Solve")
    page.locator(".st-key-btn_solve button").click()
    # generous: a cold Numba cache compiles the kernels on the first solve
    expect(page.get_by_text(re.compile(r"^Done"))).to_be_visible(timeout=3 * WAIT)
    nav(page, "Explore")
    page.locator("summary", has_text="Lock this node").click()
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
    metric = page.locator("[data-testid='stMetric']", has_text="OOP EV at the root").first
    delta = metric.locator("[data-testid='stMetricDelta']").inner_text()
    found = re.search(r"([+−-]\d+\.\d+) \(was", delta)
    assert found is not None, delta
    assert abs(float(found[1].replace("−", "-"))) > 0.01  # shoving everything costs OOP chips
    expect(page.get_by_text("in the current solve")).to_be_visible()
    expect(page.locator(".st-key-crumb_0 [data-testid='stIconMaterial']")).to_have_text("lock")
