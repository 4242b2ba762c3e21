"""The Reports page in a real browser (Playwright driving Debian's chromium): upload a tiny
spot on Set up, start a four-flop batch on the page (a real LocalCluster behind it), watch the
progress bar and the per-flop table fill, see the charts."""

from __future__ import annotations

from pathlib import Path

from playwright.sync_api import Page, expect
from pw import WAIT, chart, chart_js, idle, nav, rerun_done

TINY = b"""name = "tiny flop"
game = "holdem"
[holdem]
board = "2s3h4d"
pot = 100
stack = 100
oop_range = "AA, KK, T9s"
ip_range = "QQ, AKs, KQs"
bets = "a"
raises = "a"
"""


def _fill(page: Page, key: str, value: str) -> None:
    box = page.locator(f".st-key-{key} input").first
    box.fill(value)
    box.press("Enter")
    rerun_done(page)


def test_batch_fills_the_report(page: Page, server: str, batches: Path) -> None:
    page.goto(server)
    idle(page)
    nav(page, "Set up")
    page.locator(".st-key-setup_upload input[type='file']").set_input_files(
        files={"name": "tiny.toml", "mimeType": "application/octet-stream", "buffer": TINY}
    )
    expect(page.locator(".st-key-hs_board input")).to_have_value("2s3h4d", timeout=WAIT)
    idle(page)
    nav(page, "Reports")
    page.get_by_role("combobox", name="Flops").click()
    page.get_by_role("option", name="list", exact=True).click()
    idle(page)
    _fill(page, "rep_flop_list", "KhTd9c, Ks9s5s, 8s8h5d, Td9d6h")  # each solved in < 1 s
    _fill(page, "rep_db_path", "browser.db")  # a name in the server's batch folder
    page.locator(".st-key-reports_start button").click()
    bar = page.locator("[data-testid='stProgress']").first
    expect(bar).to_be_visible(timeout=WAIT)
    # the table appears while the batch runs and ends with the four flops
    table = page.locator("[data-testid='stDataFrame']").first
    expect(table).to_be_visible(timeout=WAIT)
    expect(bar).to_contain_text("4 / 4 flops", timeout=300_000)
    idle(page)
    # one heading: a live pass's copy is gone once the whole page has drawn the report
    heading = page.locator("h3", has_text="4 of 4 flops")
    expect(heading).to_have_count(1, timeout=WAIT)
    # (.first: a rerun after it can show a live copy again for a moment, under load)
    expect(heading.first).to_be_visible(timeout=WAIT)
    # the grid draws on a canvas; its accessible table carries the cells
    rows = page.locator("[data-testid='stDataFrame']").first.locator("tr[role='row']")
    expect(rows).to_have_count(5, timeout=WAIT)  # header + four flops
    cells = page.locator("[data-testid='stDataFrame']").first.text_content() or ""
    assert all(f in cells for f in ("KsTh9d", "Ks9s5s", "8s8h5d", "Ts9s6h"))
    expect(chart(page, "reports_fig_oop")).to_be_visible(timeout=WAIT)
    bars = page.evaluate("() => " + chart_js("reports_fig_oop") + ".data[0].x.length")
    assert bars == 4
    assert (batches / "browser.db").exists()


def test_line_picker_walks_to_a_turn_node(page: Page, server: str, batches: Path) -> None:
    """Open a database with tree summaries, walk the line picker check → check → any turn
    card, and see the turn node's mix chart (a bar for all flops, then one per flop)."""
    from batch_helpers import solved_db, tiny_spec

    solved_db(batches / "lines.db", tiny_spec(flops="Ks9s5s, 8s8h5d"))
    page.goto(server)
    idle(page)
    nav(page, "Reports")
    page.get_by_text("Open a batch database", exact=True).click()
    _fill(page, "rep_open_path", "lines.db")
    page.locator(".st-key-reports_open button").click()
    idle(page)
    first = page.locator(".st-key-reports_next_0 button")
    expect(first).to_have_text("Check", timeout=WAIT)
    first.click()  # OOP checks
    idle(page)
    expect(page.get_by_text("Line: OOP check", exact=True)).to_be_visible(timeout=WAIT)
    page.locator(".st-key-reports_next_0 button").click()  # IP checks
    idle(page)
    page.get_by_role("combobox", name="Turn card").click()
    page.get_by_role("option", name="any turn card", exact=True).click()
    idle(page)
    expect(page.get_by_text("Line: OOP check → IP check · turn any", exact=True)).to_be_visible(
        timeout=WAIT
    )
    expect(chart(page, "reports_fig_line")).to_be_visible(timeout=WAIT)
    x = page.evaluate("() => " + chart_js("reports_fig_line") + ".data[0].x")
    assert x[0] == "all flops" and sorted(x[1:]) == ["8s8h5d", "Ks9s5s"]
    title = page.evaluate("() => " + chart_js("reports_fig_line") + ".layout.title.text")
    assert "OOP's mix: OOP check → IP check · turn any" in title
