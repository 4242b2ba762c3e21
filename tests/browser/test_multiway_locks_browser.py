"""Three-player Kuhn's Locks and reload in a real browser (Playwright driving Debian's
chromium; docs/multiway.md, docs/locking.md): locks pasted on the Solve page are listed in
words and played by the solve, and a page reload takes the running solve back — the URL's
``?solve3=`` token, which AppTest cannot carry through a real reload. Fixtures come from
tests/browser/conftest.py."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from pw import WAIT, fill, idle, pick_game, rerun_done

STATUS = re.compile(r"Running · iteration ([\d,]+)")


def shown_iteration(page: Page) -> int:
    text = page.get_by_text(STATUS).first.inner_text()
    found = STATUS.search(text)
    assert found is not None, text
    return int(found[1].replace(",", ""))


def test_kuhn3_locks_and_a_reload_keep_the_solve(page: Page, server: str) -> None:
    page.goto(server)
    idle(page)
    pick_game(page, "Kuhn poker, 3 players")
    page.get_by_text("Locks", exact=True).click()  # the expander
    fill(page, "multi_locks_text", '{"k b": {"K": {"c": 1}, "*": {"f": 1}}}', "textarea")
    page.locator(".st-key-multi_locks_apply button").click()
    rerun_done(page)
    expect(page.get_by_text(re.compile(r"player 3 at 'k b': J: fold 100 %"))).to_be_visible()
    expect(page.get_by_text(re.compile(r"K: call 100 %"))).to_be_visible()
    box = page.get_by_label("Max iterations")
    box.fill("1000000")  # runs through this test
    box.press("Enter")
    rerun_done(page)
    page.locator(".st-key-multi_start button").click()
    expect(page.locator(".st-key-multi_stop button")).to_be_enabled(timeout=2 * WAIT)
    expect(page.get_by_text(STATUS).first).to_be_visible(timeout=2 * WAIT)
    assert "solve3=" in page.url  # the token a reload comes back with
    expect(page.get_by_text(re.compile(r"Solving with locks: 4 information sets"))).to_be_visible()
    n = shown_iteration(page)
    page.reload()
    idle(page)
    expect(page.get_by_text("Game: Kuhn poker, 3 players — solving")).to_be_visible()
    expect(page.locator(".st-key-multi_stop button")).to_be_enabled()
    page.wait_for_function(
        "(n) => { const m = document.body.innerText.match(/Running · iteration ([\\d,]+)/);"
        " return m && parseInt(m[1].replace(/,/g, '')) > n; }",
        arg=n,
        timeout=WAIT,
    )
    expect(page.get_by_text(re.compile(r"Solving with locks: 4 information sets"))).to_be_visible()
    page.locator(".st-key-multi_stop button").click()
    rerun_done(page)
    expect(page.get_by_text(re.compile(r"^Stopped \(stop\)"))).to_be_visible(timeout=WAIT)
