"""The Reports page's line report compared with a second database, in a real browser: the two
databases share one of their two flops, so the page says which flop it compares on and which
it leaves out, shows this database's EV there with the difference as the delta, and states
the report's definitions (the mix as dealt, the 1 % reach cut)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest
from playwright.sync_api import Page, expect
from pw import WAIT, idle, nav, rerun_done


def _fill(page: Page, key: str, value: str) -> None:
    box = page.locator(f".st-key-{key} input").first
    box.fill(value)
    box.press("Enter")
    rerun_done(page)


@pytest.fixture(scope="module")
def compared(batches: Path) -> Path:
    """The two databases (``a.db``, ``b.db``) in the shared server's batch folder."""
    from batch_helpers import TEMPLATE, solved_db, tiny_spec

    solved_db(batches / "a.db", tiny_spec(flops="Ks9s5s, 8s8h5d"))
    solved_db(batches / "b.db", tiny_spec(template=replace(TEMPLATE, bets="50%, a"),
                                          flops="Ks9s5s, KsJh8d"))  # fmt: skip
    return batches


def test_compare_on_the_common_flop(page: Page, server: str, compared: Path) -> None:
    from solver.batch.linereport import line_final, line_records, report_at

    main = report_at(str(compared / "a.db"), ["k"], None, ["suits", "pairing"])
    other = report_at(str(compared / "b.db"), ["k"], None, ["suits", "pairing"])
    records = {r["flop"]: r for r in line_records(main, other, None)}
    final = line_final(main, other, "k", "a.db", "b.db")
    shared = records["Ks9s5s"]["difference"]["ev"][0]
    assert final["difference"]["ev"][0] == pytest.approx(shared)  # the one common flop's
    page.goto(server)
    idle(page)
    nav(page, "Reports")
    page.get_by_text("Open a batch database", exact=True).click()
    _fill(page, "rep_open_path", "a.db")
    page.locator(".st-key-reports_open button").click()
    idle(page)
    _fill(page, "rep_compare_path", "b.db")
    page.locator(".st-key-reports_compare_open button").click()
    idle(page)
    page.locator(".st-key-reports_next_0 button").click()  # OOP checks
    idle(page)
    expect(page.get_by_text("Line: OOP check", exact=True)).to_be_visible(timeout=WAIT)
    scope = page.locator("[data-testid='stAlert']", has_text="Compared on the 1 flop")
    expect(scope).to_contain_text("(Ks9s5s)", timeout=WAIT)
    expect(scope).to_contain_text(
        "Left out: 8s8h5d (only in this database); KsJh8d (only in b.db)."
    )
    expect(page.get_by_text("Definitions: mix as dealt", exact=False)).to_be_visible()
    expect(page.get_by_text("under 1% of the deals", exact=False)).to_be_visible()
    ev = page.locator("[data-testid='stMetric']", has_text="OOP EV (line, chips)").first
    expect(ev.locator("[data-testid='stMetricValue']")).to_have_text(
        f"{final['common_aggregate']['ev'][0]:.2f}"
    )
    expect(ev.locator("[data-testid='stMetricDelta']")).to_contain_text(f"{shared:+.2f}")
