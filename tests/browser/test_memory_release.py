"""A closed tab gives its memory back (issue 44), in a real browser against a real server:
solve a turn spot, explore it (its node table), start a Practice drill on it (which holds the
game and the average strategy in the session), close the tab, and the server's resident memory
falls back near where it was before the solve within the grace period and 30 s. Streamlit alone
kept a closed tab's session state two minutes (app/runtime.py's SessionSweeper closes it)."""

from __future__ import annotations

import re
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("playwright")

from playwright.sync_api import Browser, Page, ViewportSize, expect
from pw import GRACE_S, WAIT, fill, idle, nav, pick_game, swept

from app.serve import Server

VIEW: ViewportSize = {"width": 1400, "height": 1000}
TURN = "Libratus endgame 1 (turn, pot 500)"  # ~30M strategy cells: its arrays stand out


def _tab(browser: Browser, url: str) -> Page:
    page = browser.new_context(viewport=VIEW).new_page()
    page.set_default_timeout(WAIT)
    page.goto(url)
    idle(page)
    return page


def _solve(page: Page, label: str, iterations: str) -> None:
    pick_game(page, label)
    fill(page, "target_value", "0")
    fill(page, "max_iterations", iterations)
    page.locator(".st-key-btn_solve button").click()
    expect(page.get_by_text(re.compile(r"^Done"))).to_be_visible(timeout=5 * WAIT)


def _status(pid: int) -> dict[str, float]:
    """The memory lines of ``/proc/<pid>/status`` (MiB): VmRSS, VmHWM (its peak), RssAnon..."""
    out: dict[str, float] = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key.startswith(("Vm", "Rss")) and rest.strip().endswith("kB"):
                out[key] = int(rest.split()[0]) / 1024.0
    return out


class _Peak:
    """The server's largest RSS (MiB), sampled every 0.2 s while the block runs: a session's
    memory counts whenever the page held it, not only at the one moment it is read."""

    def __init__(self, server: Server) -> None:
        self.server, self.peak, self._stop = server, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, self.server.rss_mb())
            self._stop.wait(0.2)

    def __enter__(self) -> _Peak:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self.server.rss_mb())


def _settle(server: Server, seconds: float = 6.0) -> float:
    """The server's RSS once it has stopped moving (MiB)."""
    last = server.rss_mb()
    deadline = time.monotonic() + 60.0
    while time.monotonic() < deadline:
        time.sleep(seconds / 3)
        now = server.rss_mb()
        if abs(now - last) < 5.0:
            return now
        last = now
    return last


def test_a_closed_tabs_solve_explore_and_drill_give_their_memory_back(
    browser: Browser, short_grace: Server, sweep_log: Path
) -> None:
    url = short_grace.url
    # the server loads its modules and kernels once (not what a session holds): a first tab
    # solves, explores and drills a river, and is closed
    warm = _tab(browser, url)
    _solve(warm, "SRP river: Td9d6h Qc 2s", "20")
    nav(warm, "Explore")
    nav(warm, "Practice")
    warm.context.close()
    swept(sweep_log, 1)  # its session closed and emptied (the grace period and a beat)
    before = _settle(short_grace)
    with _Peak(short_grace) as peak:
        page = _tab(browser, url)
        _solve(page, TURN, "2")
        nav(page, "Explore")
        expect(page.get_by_text("Per-hand table")).to_be_visible(timeout=3 * WAIT)
        nav(page, "Practice")
        page.locator(".st-key-practice_start button").click()
        idle(page)
        expect(page.locator(".st-key-practice_table")).to_be_visible(timeout=WAIT)
    held = peak.peak
    # the solve's storage, its average strategy and the game: well clear of noise (the
    # status lines say where the memory was if it never showed)
    assert held - before > 200, (before, held, _status(short_grace.pid))
    page.context.close()
    deadline = time.monotonic() + GRACE_S + 30.0
    after = short_grace.rss_mb()
    while time.monotonic() < deadline and after - before > 100.0:
        time.sleep(1.0)
        after = short_grace.rss_mb()
    print(f"server RSS (MiB): before {before:.0f}, held {held:.0f}, after {after:.0f}")
    assert after - before <= 100.0, (before, held, after)
