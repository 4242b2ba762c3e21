"""Sessions and the live view in a real browser against the real server: a reload takes its
solve back, a hidden page polls nothing, the curve and the grid are above the fold at
1440×900; closed tabs' solves end after the grace period and the server gives their memory
back, but a solve another open tab shows goes on; a demo race's results come into view."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

pytest.importorskip("playwright")

from playwright.sync_api import Browser, Page, ViewportSize, expect
from pw import (
    GRACE_S,
    LIVE_CURVE,
    LIVE_GRID,
    WAIT,
    chart,
    chart_js,
    closed_sessions,
    fill,
    idle,
    iteration,
    iteration_above,
    nav,
    pick_game,
    picture_changes,
    swept,
)

from app.serve import Server

WARMED: set[str] = set()  # servers on which a solve has run and ended (warm-up done)
VIEW: ViewportSize = {"width": 1440, "height": 900}


def test_reload_takes_its_solve_back_and_a_hidden_page_polls_nothing(
    page: Page, server: str
) -> None:
    page.set_viewport_size(VIEW)
    sent: list[float] = []
    page.on("websocket", lambda ws: ws.on("framesent", lambda _f: sent.append(time.monotonic())))
    page.goto(server)
    idle(page)
    fill(page, "target_value", "0")
    fill(page, "max_iterations", "100000000")  # runs until stopped
    page.locator(".st-key-btn_solve button").click()
    expect(page.locator(".st-key-btn_stop button")).to_be_enabled()
    picture_changes(page, LIVE_CURVE)
    # curve and grid in full view without scrolling, at 1440×900
    for selector in (LIVE_CURVE, LIVE_GRID):
        box = page.locator(selector).bounding_box()
        assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= VIEW["height"]
    assert "solve=" in page.url  # the token a reload comes back with
    # a hidden page stops its live redraws (and starts them again when seen)
    page.evaluate(
        "() => { Object.defineProperty(document, 'hidden', {value: true, configurable: true});"
        " document.dispatchEvent(new Event('visibilitychange')); }"
    )
    page.wait_for_timeout(2500)  # the page reruns once, without the redraw timer
    t0 = time.monotonic()
    page.wait_for_timeout(4000)
    assert [t for t in sent if t >= t0] == []
    # the reload: a new session takes the running solve back, on the same game
    n = iteration(page)
    page.reload()
    idle(page)
    expect(page.locator(".st-key-btn_stop button")).to_be_enabled()
    expect(page.get_by_text(re.compile(r"SRP river.*solving"))).to_be_visible()
    iteration_above(page, n)
    picture_changes(page, LIVE_CURVE)  # the live view runs again (the grid may have settled)
    expect(page.locator(LIVE_GRID)).to_be_visible()
    page.locator(".st-key-btn_stop button").click()
    idle(page)
    expect(page.get_by_text(re.compile(r"^Stopped at iteration"))).to_be_visible()


def _solving(browser: Browser, url: str, label: str) -> Page:
    """A new tab solving ``label`` with no target (until its session ends)."""
    page = browser.new_context(viewport=VIEW).new_page()
    page.set_default_timeout(WAIT)
    page.goto(url)
    idle(page)
    pick_game(page, label)
    fill(page, "target_value", "0")
    page.locator(".st-key-btn_solve button").click()
    expect(page.locator(".st-key-btn_stop button")).to_be_enabled()
    return page


def _running_caption(page: Page) -> str:
    text = page.locator("[data-testid='stSidebar']").inner_text()
    found = re.search(r"(\d+) solves? running on this server", text)
    return found[0] if found else ""


def test_a_solve_two_tabs_watch_ends_only_when_the_last_is_gone(
    browser: Browser, short_grace: Server, sweep_log: Path
) -> None:
    """Issue 33: the same URL open in two tabs shows one solve; closing one tab leaves it
    running for the other (past the grace period), closing the last ends it."""
    url = short_grace.url
    first = _solving(browser, url, "Libratus endgame 2 (turn, pot 4780)")
    iteration_above(first, 1, timeout=300_000)
    assert "solve=" in first.url  # the token the second tab comes with
    second = browser.new_context(viewport=VIEW).new_page()
    second.set_default_timeout(WAIT)
    second.goto(first.url)
    idle(second)
    expect(second.locator(".st-key-btn_stop button")).to_be_enabled()  # it took the solve
    expect(second.get_by_text(re.compile(r"Libratus endgame 2.*solving"))).to_be_visible()
    iteration_above(second, iteration(second))
    watcher = browser.new_context(viewport=VIEW).new_page()  # a fresh page reads the server
    watcher.set_default_timeout(WAIT)
    watcher.goto(url)
    idle(watcher)
    assert _running_caption(watcher) == "1 solve running on this server"  # one, seen twice
    closed = closed_sessions(sweep_log)
    second.context.close()
    # past the grace period: the sweeper closed the second tab's session, and the solve
    # reaper (the same grace, its own 1 s beat) has had a beat more
    swept(sweep_log, closed + 1)
    time.sleep(2.0)
    iteration_above(first, iteration(first))  # the first tab's solve still runs
    expect(first.get_by_text("Stopped (page closed)")).to_have_count(0)
    expect(first.locator(".st-key-btn_stop button")).to_be_enabled()
    watcher.goto(url)
    idle(watcher)
    assert _running_caption(watcher) == "1 solve running on this server"
    first.context.close()
    # the last tab gone: the solve ends within the grace period plus a busy machine's margin
    deadline = time.monotonic() + GRACE_S + 30.0
    while time.monotonic() < deadline:
        watcher.goto(url)
        idle(watcher)
        if _running_caption(watcher) == "":
            break
        time.sleep(1.0)
    assert _running_caption(watcher) == ""
    watcher.context.close()
    WARMED.add(url)  # its kernels and modules loaded, its solve ended


def test_closed_tabs_solves_end_after_the_grace_period_and_memory_comes_back(
    browser: Browser, short_grace: Server
) -> None:
    url = short_grace.url
    # the server loads its kernels and modules once (not part of what the solves hold): the
    # test before did, with a solve that has ended since; run alone, a solve of its own does
    if url in WARMED:
        time.sleep(3.0)  # the reaper's beats after the solve ended: its memory given back
    else:
        warm = _solving(browser, url, "Libratus endgame 2 (turn, pot 4780)")
        iteration_above(warm, 2)
        warm.context.close()
        time.sleep(GRACE_S + 3.0)
    before = short_grace.rss_mb()
    # two tabs solve a turn spot each; then the tabs are closed
    tabs = [_solving(browser, url, "Libratus endgame 1 (turn, pot 500)") for _ in range(2)]
    for tab in tabs:
        iteration_above(tab, 1, timeout=300_000)
    watcher = browser.new_context(viewport=VIEW).new_page()  # a fresh page reads the server
    watcher.set_default_timeout(WAIT)
    watcher.goto(url)
    idle(watcher)
    assert _running_caption(watcher) == "2 solves running on this server"
    # the test can see memory held: the solves' arrays count once their pages are touched,
    # which a busy machine's first iterations may not have done yet (the strategy sums only
    # once the rule starts averaging). Two solves hold ~170 MB of float32 arrays each over
    # one shared game (~340 MB in all, seen steady): 200 MB is well clear of noise.
    peak = short_grace.rss_mb()
    grow_until = time.monotonic() + 240.0
    while peak - before <= 200 and time.monotonic() < grow_until:
        time.sleep(1.0)
        peak = max(peak, short_grace.rss_mb())
    assert peak - before > 200, (before, peak)
    for tab in tabs:
        tab.context.close()
    # within the grace period plus 30 s: both solves ended, their memory given back
    deadline = time.monotonic() + GRACE_S + 30.0
    after = short_grace.rss_mb()
    while time.monotonic() < deadline:
        watcher.goto(url)
        idle(watcher)
        after = short_grace.rss_mb()
        if _running_caption(watcher) == "" and after - before <= 100.0:
            break
        time.sleep(1.0)
    assert _running_caption(watcher) == ""  # no solve left on the server
    assert after - before <= 100.0, (before, peak, after)
    watcher.context.close()


def test_a_demo_race_shows_its_results_in_view(page: Page, server: str) -> None:
    page.set_viewport_size(VIEW)
    page.goto(server)
    idle(page)
    nav(page, "Compare")
    page.locator(".st-key-btn_demo_3 button").click()  # CFR+ averaging delay, Leduc
    idle(page)
    expect(chart(page, "race_chart")).to_be_visible()
    page.wait_for_function(  # in view: the top of the chart within the window
        "(h) => { const e = " + chart_js("race_chart") + ";"
        " if (!e) return false; const r = e.getBoundingClientRect();"
        " return r.top >= 0 && r.top + 100 <= h; }",
        arg=VIEW["height"],
    )
    expect(page.locator(".st-key-btn_race_start button")).to_be_enabled()  # 5,000 iterations


def _frozen_client(server: str) -> tuple[list[int], float]:
    """A raw websocket that never answers, standing in for a frozen browser: the kinds of
    the frames the server sent it (9: a ping, 8: the server's close) and the seconds from
    its opening to the server closing it."""
    import base64
    import os
    import socket

    host, port = server.split("//")[1].rstrip("/").split(":")
    with socket.create_connection((host, int(port)), timeout=120) as s:
        key = base64.b64encode(os.urandom(16)).decode()
        s.sendall(
            f"GET /_stcore/stream HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
            "Sec-WebSocket-Protocol: streamlit\r\n\r\n".encode()
        )
        opened = time.monotonic()
        assert s.recv(4096).startswith(b"HTTP/1.1 101")
        kinds = []
        while chunk := s.recv(4096):
            kinds.append(chunk[0] & 0x0F)
        return kinds, time.monotonic() - opened


@pytest.fixture(scope="module", autouse=True)
def frozen_client(server: str) -> Iterator[Callable[[], tuple[list[int], float]]]:
    """:func:`_frozen_client` run in a thread from the module's start: its ~12 s of waiting
    for the server's ping and close pass while the tests before its own run. Yields a
    function returning its result (raising what the thread raised)."""
    box: list[tuple[list[int], float] | BaseException] = []

    def run() -> None:
        try:
            box.append(_frozen_client(server))
        except BaseException as exc:  # handed to the test
            box.append(exc)

    th = threading.Thread(target=run, name="frozen-client", daemon=True)
    th.start()

    def result() -> tuple[list[int], float]:
        th.join(150)  # the socket's own timeout is 120 s
        assert box, "the frozen client's thread is still waiting"
        if isinstance(box[0], BaseException):
            raise box[0]
        return box[0]

    yield result


def test_a_client_that_stops_answering_is_dropped_within_15_s(
    frozen_client: Callable[[], tuple[list[int], float]],
) -> None:
    """A browser frozen without closing its socket (its pongs stop): the server closes the
    connection after one unanswered ping (.streamlit/config.toml, websocketPingInterval),
    so its solve ends as a closed tab's does — Streamlit's default kept it ~67 s. A raw
    websocket that never answers stands in for the frozen browser (opened when the module
    started: :func:`frozen_client`)."""
    kinds, closed_after = frozen_client()
    assert 9 in kinds and kinds[-1] == 8, kinds
    # 6 s to the ping and 6 more for its pong; the bound leaves a busy machine its margin
    assert closed_after <= 15.0 + 10.0, closed_after
