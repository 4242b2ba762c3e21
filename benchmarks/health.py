"""The app's responsiveness while solving: latency of Streamlit's health endpoint.

Run: ``.venv/bin/python benchmarks/health.py [--requests 200] [--sessions 1,2]``.

Starts ``streamlit run app/main.py`` on a free loopback port, measures ``GET /_stcore/health``
with the server idle, then opens 1 (then 2) browser sessions in Debian's headless chromium
(Playwright), presses Solve on the start-up preset in each (target 0, so the solve keeps
running) and measures again while the solves run. Requests are sequential, 20 ms apart.
Prints a markdown table of median, 95th percentile and maximum in milliseconds, and the
iterations each session reached. The goal (app issue): median < 100 ms while a solve runs.
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _latencies(url: str, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=5) as r:
            assert r.read() == b"ok"
        out.append(1000.0 * (time.perf_counter() - t0))
        time.sleep(0.02)
    return sorted(out)


def _row(label: str, ms: list[float], note: str = "") -> str:
    med = ms[len(ms) // 2]
    p95 = ms[min(len(ms) - 1, int(0.95 * len(ms)))]
    return f"| {label} | {len(ms)} | {med:.1f} | {p95:.1f} | {ms[-1]:.1f} | {note} |"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--requests", type=int, default=200)
    parser.add_argument("--sessions", default="1,2")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "NUMBA_THREADING_LAYER": "threadsafe"}
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(ROOT / "app" / "main.py"),
        "--server.headless", "true", "--server.port", str(port), "--server.address",
        "127.0.0.1", "--browser.gatherUsageStats", "false", "--server.fileWatcherType", "none",
    ]  # fmt: skip
    proc = subprocess.Popen(
        cmd,
        cwd=ROOT,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    print(f"# machine {platform.machine()}, python {platform.python_version()}, {os.cpu_count()}")
    print("| server state | requests | median ms | p95 ms | max ms | solves |")
    print("|---|---:|---:|---:|---:|---|")
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                    if r.read() == b"ok":
                        break
            except OSError:
                pass
            if time.monotonic() > deadline or proc.poll() is not None:
                raise RuntimeError("streamlit did not start")
            time.sleep(0.1)
        print(_row("idle", _latencies(url, args.requests)), flush=True)
        with sync_playwright() as pw:
            browser = pw.chromium.launch(
                executable_path=shutil.which("chromium"), headless=True, args=ARGS
            )
            for count in (int(x) for x in args.sessions.split(",")):
                pages = []
                for _ in range(count):
                    page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
                    page.goto(url)
                    page.wait_for_selector(IDLE, timeout=120_000)
                    box = page.locator(".st-key-target_value input").first
                    box.fill("0")
                    box.press("Enter")
                    page.wait_for_timeout(300)
                    page.wait_for_selector(IDLE, timeout=60_000)
                    pages.append(page)
                for page in pages:
                    page.locator(".st-key-btn_solve button").click()
                for page in pages:
                    page.locator(".st-key-btn_stop button").wait_for(timeout=60_000)
                    page.wait_for_function(
                        "() => !document.querySelector('.st-key-btn_stop button').disabled",
                        timeout=60_000,
                    )
                page_label = f"{count} solve{'s' if count > 1 else ''} running"
                ms = _latencies(url, args.requests)
                print(_row(page_label, ms, "started from the browser"), flush=True)
                for page in pages:
                    page.locator(".st-key-btn_stop button").click()
                    page.wait_for_selector(IDLE, timeout=60_000)
                    page.context.close()
            browser.close()
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)


if __name__ == "__main__":
    main()
