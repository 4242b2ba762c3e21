"""Practice in a real browser (Playwright driving Debian's chromium): solve the SRP river
preset, open Practice, deal with suits randomised, play three decisions and read each grade,
its EV lost and the session's score. Fixtures (chromium, the server, patient pages) come from
tests/browser/conftest.py."""

from __future__ import annotations

import re

from playwright.sync_api import Page, expect
from pw import idle, metric, nav, solve_preset

GRADES = "Best|Correct|Inaccuracy|Wrong|Blunder"


def test_play_three_decisions_and_read_the_score(page: Page, server: str) -> None:
    solve_preset(page, server)
    nav(page, "Practice")
    page.get_by_text("Randomise suits").click()
    idle(page)
    page.locator(".st-key-practice_start button").click()
    idle(page)
    for n in range(1, 4):
        if page.locator(".st-key-practice_next button").count():
            page.locator(".st-key-practice_next button").click()
            idle(page)
        table = page.locator(".st-key-practice_table")
        expect(table.locator(".spot-card")).to_have_count(5)  # the board, four-colour
        expect(table.locator(".practice-card")).to_have_count(2)  # the hero's cards
        page.locator(".st-key-practice_act_0 button").click()  # check, or fold
        decisions = page.locator("[data-testid='stMetric']", has_text="Decisions")
        expect(decisions.locator("[data-testid='stMetricValue']")).to_have_text(str(n))
        idle(page)
        grade = page.locator(".st-key-practice_last .practice-grade")
        expect(grade).to_contain_text(re.compile(rf"^({GRADES}) .*EV lost \d"))
    expect(page.locator(".st-key-practice_last [data-testid='stDataFrame']")).to_be_visible()
    lost = metric(page, "EV lost")
    assert re.fullmatch(r"[\d,]+\.\d\d \([\d,.]+ bb\)", lost), lost
    counts = [int(metric(page, g)) for g in GRADES.split("|")]
    assert sum(counts) == 3
