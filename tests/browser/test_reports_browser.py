"""The Reports page in a real browser (Playwright driving Debian's chromium): upload a tiny
spot on Set up, start a four-flop batch on the page (a real LocalCluster behind it), watch the
progress bar and the per-flop table fill, see the charts."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from app.serve import CHROMIUM_ARGS, running_app

IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
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

pytestmark = pytest.mark.skipif(shutil.which("chromium") is None, reason="needs chromium")
pytest.importorskip("playwright")

from playwright.sync_api import Page, expect  # noqa: E402


# the same fixtures as test_app_browser.py's (a conftest.py here would clash with tests/'s
# under mypy): Debian's chromium, and the app on a free port for this module
@pytest.fixture(scope="session")
def browser_type_launch_args() -> dict:
    return {"executable_path": shutil.which("chromium"), "headless": True, "args": CHROMIUM_ARGS}


@pytest.fixture(scope="session")
def browser_context_args() -> dict:
    return {"viewport": {"width": 1400, "height": 1000}, "accept_downloads": True}


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with running_app() as url:
        yield url


def _idle(page: Page) -> None:
    page.wait_for_selector(IDLE, timeout=60_000)


def _fill(page: Page, key: str, value: str) -> None:
    box = page.locator(f".st-key-{key} input").first
    box.fill(value)
    box.press("Enter")
    page.wait_for_timeout(300)
    _idle(page)


def test_batch_fills_the_report(page: Page, server: str, tmp_path: Path) -> None:
    page.goto(server)
    _idle(page)
    page.locator("[data-testid='stSidebarNav'] a", has_text="Set up").first.click()
    _idle(page)
    page.locator(".st-key-setup_upload input[type='file']").set_input_files(
        files={"name": "tiny.toml", "mimeType": "application/octet-stream", "buffer": TINY}
    )
    expect(page.locator(".st-key-hs_board input")).to_have_value("2s3h4d", timeout=15_000)
    _idle(page)
    page.locator("[data-testid='stSidebarNav'] a", has_text="Reports").first.click()
    _idle(page)
    expect(page.locator("h1", has_text="Reports")).to_be_visible(timeout=30_000)
    page.get_by_role("combobox", name="Flops").click()
    page.get_by_role("option", name="list", exact=True).click()
    _idle(page)
    _fill(page, "rep_flop_list", "AhKd7c, Ks9s5s, 8s8h5d, Td9d6h")
    _fill(page, "rep_db_path", str(tmp_path / "browser.db"))
    page.locator(".st-key-reports_start button").click()
    bar = page.locator("[data-testid='stProgress']").first
    expect(bar).to_be_visible(timeout=30_000)
    # the table appears while the batch runs and ends with the four flops
    table = page.locator("[data-testid='stDataFrame']").first
    expect(table).to_be_visible(timeout=120_000)
    expect(bar).to_contain_text("4 / 4 flops", timeout=180_000)
    _idle(page)
    expect(page.locator("h3", has_text="4 of 4 flops")).to_be_visible(timeout=30_000)
    # the grid draws on a canvas; its accessible table carries the cells
    rows = page.locator("[data-testid='stDataFrame']").first.locator("tr[role='row']")
    expect(rows).to_have_count(5, timeout=30_000)  # header + four flops
    cells = page.locator("[data-testid='stDataFrame']").first.text_content() or ""
    assert all(f in cells for f in ("AsKh7d", "Ks9s5s", "8s8h5d", "Ts9s6h"))
    charts = page.locator(".st-key-reports_fig_oop .js-plotly-plot")
    expect(charts).to_be_visible(timeout=30_000)
    bars = page.evaluate(
        "() => document.querySelector('.st-key-reports_fig_oop .js-plotly-plot').data[0].x.length"
    )
    assert bars == 4
    assert (tmp_path / "browser.db").exists()
