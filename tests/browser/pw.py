"""Helpers of the browser tests (Playwright sync API): waiting for the app to settle,
filling fields, reading metrics and the live view's pictures. Waits are generous: on a busy
2-core CI machine a page run can take tens of seconds (a cold Numba cache even minutes)."""

from __future__ import annotations

import contextlib
import time
from pathlib import Path

from playwright.sync_api import Locator, Page, expect
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

WAIT = 120_000  # ms
GRACE_S = 3.0  # s: the short_grace servers' (conftest.py) closed tabs end this long after they go
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
BUSY = "[data-testid='stApp']:not([data-test-script-state='notRunning'])"  # a rerun asked or on
LIVE_CURVE = "[class*='st-key-live_curve_'] img"  # the curve's picture while solving
LIVE_GRID = ".st-key-live_grid_picture img"

expect.set_options(timeout=WAIT)


def chart(page: Page, key: str) -> Locator:
    """The shown Plotly chart of the element keyed ``key``. While Streamlit replaces a chart
    it may keep the previous one, hidden, beside the new one: only a shown one counts."""
    return page.locator(f".st-key-{key} .js-plotly-plot:visible").last


def chart_js(key: str) -> str:
    """A JavaScript expression for the same chart's element (``undefined`` while none)."""
    return (
        f"[...document.querySelectorAll('.st-key-{key} .js-plotly-plot')]"
        ".filter((e) => e.getClientRects().length > 0"
        " && getComputedStyle(e).visibility !== 'hidden').pop()"
    )


def idle(page: Page) -> None:
    page.wait_for_selector(IDLE, timeout=WAIT)


def rerun_done(page: Page) -> None:
    """After an input (Enter, a click, a drag): wait for the rerun it asks for to start — as
    soon as the app says so, at most 300 ms (a rerun too quick to be seen has ended by then)
    — and then to end."""
    with contextlib.suppress(PlaywrightTimeoutError):
        page.wait_for_selector(BUSY, timeout=300)
    idle(page)


def nav(page: Page, name: str) -> None:
    page.locator("[data-testid='stSidebarNav'] a", has_text=name).first.click()
    idle(page)
    expect(page.locator("h1", has_text=name.split(" ")[0])).to_be_visible(timeout=WAIT)


def metric(page: Page, label: str) -> str:
    m = page.locator("[data-testid='stMetric']", has_text=label).first
    return m.locator("[data-testid='stMetricValue']").inner_text()


def iteration(page: Page) -> int:
    return int(metric(page, "Iteration").replace(",", ""))


def src(page: Page, selector: str) -> str:
    """The ``src`` of a live picture ("" while there is none)."""
    return str(
        page.evaluate(
            "(s) => { const e = document.querySelector(s); return e ? e.src : ''; }", selector
        )
    )


def picture_changes(
    page: Page, selector: str, timeout: float = WAIT, since: str | None = None
) -> None:
    """Wait until the live picture ``selector`` is drawn anew (the solve moved on): another
    than ``since`` (a ``src`` read earlier) or, by default, than the one shown now."""
    page.wait_for_selector(selector, timeout=timeout)
    old = src(page, selector) if since is None else since
    page.wait_for_function(
        "([s, old]) => { const e = document.querySelector(s); return e && e.src !== old; }",
        arg=[selector, old],
        timeout=timeout,
    )


def iteration_above(page: Page, n: int, timeout: float = WAIT) -> None:
    page.wait_for_function(
        "(n) => { const m = [...document.querySelectorAll('[data-testid=stMetric]')]"
        ".find(e => e.innerText.startsWith('Iteration\\n'));"
        " return m && parseInt(m.querySelector('[data-testid=stMetricValue]').innerText"
        ".replace(/,/g, '')) > n; }",
        arg=n,
        timeout=timeout,
    )


def fill(page: Page, key: str, value: str, tag: str = "input") -> None:
    box = page.locator(f".st-key-{key} {tag}").first
    box.fill(value)
    box.press("Enter" if tag == "input" else "Control+Enter")
    rerun_done(page)
    expect(box).to_have_value(value)


def pick_game(page: Page, label: str) -> None:
    """Pick the game or preset ``label`` on Set up and go to Solve, which must name it.

    Once in a while on a busy machine the server never sees the pick (Solve then still
    names the old game); such a pick is made once more, and a second miss fails. A miss
    is seen as soon as Solve has drawn its game line naming another game (waiting for the
    right name to show instead cost a busy CI run 30 s per miss)."""
    import re

    for attempt in (1, 2):
        nav(page, "Set up")
        page.get_by_role("combobox", name="Game or preset").click()
        page.get_by_role("option", name=label, exact=True).click()
        rerun_done(page)
        nav(page, "Solve")
        named = page.get_by_text(f"Game: {label}")
        if attempt == 2:
            expect(named).to_be_visible(timeout=WAIT)
            return
        line = page.get_by_text(re.compile(r"^Game: ")).first
        expect(line).to_be_visible(timeout=WAIT)
        if named.count() > 0:
            expect(named).to_be_visible(timeout=WAIT)
            return


def solve_preset(page: Page, server: str, label: str = "SRP river: Td9d6h Qc 2s") -> None:
    """A fresh page: pick the preset ``label`` on Set up and solve it on Solve to "Done"."""
    import re

    page.goto(server)
    idle(page)
    pick_game(page, label)
    page.locator(".st-key-btn_solve button").click()
    # generous: a cold Numba cache compiles the kernels on the first solve
    expect(page.get_by_text(re.compile(r"^Done"))).to_be_visible(timeout=3 * WAIT)


def brush(page: Page, key: str, first: str, last: str) -> None:
    """On the paint canvas ``key`` (:mod:`app.components.paint_canvas`), press on cell
    ``first``, drag to cell ``last`` and let go (``first == last``: a click)."""
    cells = [page.locator(f".st-key-{key} [data-cell='{label}']") for label in (first, last)]
    expect(cells[0]).to_be_visible(timeout=WAIT)
    cells[0].scroll_into_view_if_needed()  # mouse coordinates are the viewport's
    points = []
    for c in cells:
        box = c.bounding_box()
        assert box is not None
        points.append((box["x"] + box["width"] / 2, box["y"] + box["height"] / 2))
    page.mouse.move(*points[0])
    page.mouse.down()
    page.mouse.move(*points[1], steps=8)
    page.mouse.up()
    rerun_done(page)


def closed_sessions(log: Path) -> int:
    """How many sessions the server's sweeper has closed, from its sweep log (the file a
    server started with ``REGRET_LAB_SWEEP_LOG`` writes a line to per close)."""
    return len(log.read_text().splitlines()) if log.exists() else 0


def swept(log: Path, count: int, timeout: float = 60.0) -> None:
    """Wait until the sweep log names ``count`` closed sessions: a closed tab's session is
    closed once gone for the grace period (a beat of the sweeper after it)."""
    deadline = time.monotonic() + timeout
    while closed_sessions(log) < count:
        assert time.monotonic() < deadline, f"the sweeper closed {closed_sessions(log)} sessions"
        time.sleep(0.2)
