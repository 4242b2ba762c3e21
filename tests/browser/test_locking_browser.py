"""Node locking in a real browser (Playwright driving Debian's chromium): solve the SRP river
preset, lock OOP's first decision to shove, see the lock in the breadcrumb, re-solve with the
lock and read the changed EV."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator

import pytest

from app.serve import CHROMIUM_ARGS, running_app

IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"

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


def _nav(page: Page, name: str) -> None:
    page.locator("[data-testid='stSidebarNav'] a", has_text=name).first.click()
    _idle(page)
    expect(page.locator("h1", has_text=name.split(" ")[0])).to_be_visible(timeout=30_000)


def _fill(page: Page, key: str, value: str) -> None:
    box = page.locator(f".st-key-{key} input").first
    box.fill(value)
    box.press("Enter")
    page.wait_for_timeout(300)  # let the rerun start before waiting for it to end
    _idle(page)
    expect(box).to_have_value(value)


def test_lock_a_node_and_see_the_changed_ev(page: Page, server: str) -> None:
    page.goto(server)
    _idle(page)
    _nav(page, "Set up")
    page.get_by_role("combobox", name="Game or preset").click()
    page.get_by_role("option", name="SRP river: Td9d6h Qc 2s").click()
    _idle(page)
    _nav(page, "Solve")
    page.locator(".st-key-btn_solve button").click()
    # generous: a cold Numba cache compiles the kernels on the first solve
    expect(page.get_by_text(re.compile(r"^Done"))).to_be_visible(timeout=180_000)
    _nav(page, "Explore")
    page.locator("summary", has_text="Lock this node").click()
    _idle(page)
    inputs = page.locator("[class*='st-key-lockui_mix_0_'] input")
    expect(inputs.first).to_be_visible(timeout=10_000)
    n = inputs.count()
    assert n >= 3  # check, bets, all-in
    for i in range(n):  # OOP shoves every hand
        _fill(page, f"lockui_mix_0_{i}", "100.00" if i == n - 1 else "0.00")
    page.locator(".st-key-lockui_add button").click()
    _idle(page)
    expect(page.locator(".st-key-crumb_0 [data-testid='stIconMaterial']")).to_have_text(
        "lock", timeout=20_000
    )
    expect(page.get_by_text("re-solve to apply")).to_be_visible()
    _idle(page)
    page.locator(".st-key-lockui_resolve button").first.click()
    _idle(page)
    expect(page.get_by_text("Effect of the locks")).to_be_visible(timeout=180_000)
    metric = page.locator("[data-testid='stMetric']", has_text="OOP EV at the root").first
    delta = metric.locator("[data-testid='stMetricDelta']").inner_text()
    found = re.search(r"([+−-]\d+\.\d+) \(was", delta)
    assert found is not None, delta
    assert abs(float(found[1].replace("−", "-"))) > 0.01  # shoving everything costs OOP chips
    expect(page.get_by_text("in the current solve")).to_be_visible()
    expect(page.locator(".st-key-crumb_0 [data-testid='stIconMaterial']")).to_have_text("lock")
