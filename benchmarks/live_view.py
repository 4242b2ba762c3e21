"""What watching a solve costs: time to target with the Solve page open and live, against the
CLI's time for the same solve; how fast a click is answered while solving; and whether the
server gives its memory back after closed tabs.

Run: ``.venv/bin/python benchmarks/live_view.py [--preset srp-turn] [--threads 1,2]
[--repeats 3] [--clicks 20] [--memory]``.

Starts the real server (``streamlit run app/main.py`` on a loopback port) and drives Debian's
headless chromium with Playwright at 1440×900.

* **Time to target**: for each thread count, interleaved runs of the CLI
  (``python -m solver solve --preset P --target 0.3% --threads N --every 10``) and of the app
  (a fresh tab picks the preset on Set up, sets the threads on Solve, presses Solve and
  watches the live view until it says Done). Both check exploitability every 10 iterations,
  so both stop at the same iteration; the solve time compared is the solver's own (checks
  included), as the CLI's final ``elapsed_s`` and the page's "Done (… in X s)" report it.
  Prints the medians and the ratio page / CLI (the goal: ≤ 1.05).
* **Clicks while solving**: with a solve running (no target), first what watching costs in
  CPU besides the solver (the browser's processes, and the server's threads other than the
  solver's, per second: on two cores, 0.1 CPU-s/s is 5 % of the machine), then clicks on the
  curve's x-axis radio: the time until the curve redraws with the new axis (median, 90th
  percentile; the goal: median < 200 ms). Also counts the page's messages to the server
  while visible and while hidden (a hidden page should send none), and samples whether the
  curve and the grid stay drawn between redraws ("blank" samples: the goal is 0).
* **Memory** (``--memory``): server RSS before, with ``--sessions`` tabs solving the
  ``--memory-preset`` spot, and 30 s after the grace period once the tabs are closed.

Timings on a shared machine drift: read the ratios, from interleaved runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from app.runtime import GRACE_S  # noqa: E402
from app.serve import CHROMIUM_ARGS, Server, running_server  # noqa: E402

IDLE = "[data-testid='stApp'][data-test-script-state='notRunning']"
VIEWPORT = {"width": 1440, "height": 900}
DONE = re.compile(r"at iteration ([\d,]+) in ([\d.]+) s")
BLANK_JS = """() => ['[class*=st-key-live_curve_] img', '.st-key-live_grid_picture img'].some(s => {
  const e = document.querySelector(s);
  if (!e || !e.complete) return true;
  const r = e.getBoundingClientRect();
  let o = 1;
  for (let n = e; n; n = n.parentElement) o *= parseFloat(getComputedStyle(n).opacity);
  return r.height < 50 || o < 0.9;
})"""


def cli_time(preset: str, target: str, threads: int) -> tuple[int, float]:
    """(iterations, solve seconds) of the CLI's solve to ``target``."""
    cmd = [
        sys.executable,
        "-m",
        "solver",
        "solve",
        "--preset",
        preset,
        "--target",
        target,
        "--threads",
        str(threads),
        "--every",
        "10",
        "--json",
    ]
    env = {**os.environ, "NUMBA_THREADING_LAYER": "threadsafe"}
    out = subprocess.run(cmd, cwd=ROOT, env=env, capture_output=True, text=True, check=True)
    final = json.loads(out.stdout.strip().splitlines()[-1])
    return int(final["iteration"]), float(final["elapsed_s"])


def _idle(page: Any, timeout: float = 120_000) -> None:
    page.wait_for_timeout(250)  # let a rerun start before waiting for it to end
    page.wait_for_selector(IDLE, timeout=timeout)


def open_preset(browser: Any, url: str, preset_label: str, sent: list[float] | None = None) -> Any:
    """A fresh tab on the Solve page with ``preset_label`` picked on Set up; the times of the
    page's websocket messages to the server go to ``sent``."""
    page = browser.new_context(viewport=VIEWPORT).new_page()
    if sent is not None:
        page.on(
            "websocket", lambda ws: ws.on("framesent", lambda _f: sent.append(time.monotonic()))
        )
    page.goto(f"{url}/setup")
    page.wait_for_selector(IDLE, timeout=180_000)
    page.get_by_role("combobox", name="Game or preset").click()
    page.get_by_role("option", name=preset_label).click()
    _idle(page)
    page.locator("[data-testid='stSidebarNav'] a", has_text="Solve").first.click()
    _idle(page)
    return page


def fill(page: Any, key: str, value: str) -> None:
    box = page.locator(f".st-key-{key} input").first
    box.fill(value)
    box.press("Enter")
    _idle(page)


def page_time(
    browser: Any, url: str, preset_label: str, threads: int, away_s: float = 0.0
) -> tuple[int, float]:
    """(iterations, solve seconds) of the app's solve, watched live in a visible tab; with
    ``away_s`` the tab goes to the Set up page for that long right after Solve (the solve
    runs unwatched) and comes back for the result."""
    page = open_preset(browser, url, preset_label)
    try:
        fill(page, "solver_threads", str(threads))
        page.locator(".st-key-btn_solve button").click()
        if away_s:
            _idle(page)
            page.locator("[data-testid='stSidebarNav'] a", has_text="Set up").first.click()
            time.sleep(away_s)
            page.locator("[data-testid='stSidebarNav'] a", has_text="Solve").first.click()
        status = page.get_by_text(re.compile(r"^Done \("))
        status.wait_for(timeout=600_000)
        found = DONE.search(status.inner_text())
        assert found is not None, status.inner_text()
        return int(found[1].replace(",", "")), float(found[2])
    finally:
        page.context.close()


def time_to_target(
    browser: Any, url: str, preset: str, label: str, target: str, threads: list[int], reps: int
) -> None:
    print(f"\n## Time to target: {preset} to {target}, page watching vs CLI\n")
    page_time(browser, url, label, 1)  # untimed: the server loads its kernels once
    print(
        "| threads | CLI s | app, page elsewhere s | app, page watching s | watching / CLI "
        "| watching / elsewhere | iterations | runs |"
    )
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    for n in threads:
        runs: dict[str, list[float]] = {"cli": [], "away": [], "live": []}
        its: set[int] = set()
        for _ in range(reps):  # interleaved: drift hits all three alike
            i, s = cli_time(preset, target, n)
            runs["cli"].append(s)
            its.add(i)
            i, s = page_time(browser, url, label, n, away_s=max(2.0 * s, 3.0))
            runs["away"].append(s)
            its.add(i)
            i, s = page_time(browser, url, label, n)
            runs["live"].append(s)
            its.add(i)
        c, w, a = (statistics.median(runs[k]) for k in ("cli", "away", "live"))
        print(
            f"| {n} | {c:.3f} | {w:.3f} | {a:.3f} | {a / c:.3f} | {a / w:.3f} | "
            f"{'/'.join(str(i) for i in sorted(its))} | {reps} |",
            flush=True,
        )


def _axis_title(page: Any) -> str:
    return str(
        page.evaluate(
            "() => { const d = document.querySelector('.st-key-live_curve .js-plotly-plot');"
            " return d && d._fullLayout ? d._fullLayout.xaxis.title.text : ''; }"
        )
    )


def _cpu_s(pid: int) -> float:
    """CPU seconds (user + system) of process ``pid``, dead threads included."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _thread_cpu_s(pid: int) -> dict[int, float]:
    out = {}
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/stat") as f:
                fields = f.read().rsplit(")", 1)[1].split()
            out[int(tid)] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
        except OSError:
            continue
    return out


def _descendants(pid: int) -> list[int]:
    kids: dict[int, list[int]] = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except OSError:
                continue
            kids.setdefault(ppid, []).append(int(d))
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(kids.get(p, []))
    return out


def live_cost(server: Server, threads: int, seconds: float = 10.0) -> tuple[float, float]:
    """(browser, server) CPU seconds per second spent on everything but the solver: the
    browser processes this script started, and the server process minus its ``threads``
    busiest long-lived threads (the solver's)."""
    mine = set(_descendants(os.getpid())) - set(_descendants(server.pid)) - {os.getpid()}
    b0 = {p: _cpu_s(p) for p in mine if os.path.exists(f"/proc/{p}")}
    s0, t0, w0 = _cpu_s(server.pid), _thread_cpu_s(server.pid), time.monotonic()
    time.sleep(seconds)
    s1, t1, w1 = _cpu_s(server.pid), _thread_cpu_s(server.pid), time.monotonic()
    b1 = {p: _cpu_s(p) for p in b0 if os.path.exists(f"/proc/{p}")}
    solver = sorted((t1[k] - t0.get(k, 0.0) for k in t1), reverse=True)[:threads]
    wall = w1 - w0
    browser = sum(b1[p] - b0[p] for p in b1)
    return browser / wall, (s1 - s0 - sum(solver)) / wall


def clicks(browser: Any, server: Server, label: str, threads: int, count: int) -> None:
    url = server.url
    print(f"\n## While solving ({label}, {threads} thread(s), no target)\n")
    sent: list[float] = []
    page = open_preset(browser, url, label, sent)
    try:
        fill(page, "solver_threads", str(threads))
        fill(page, "target_value", "0")
        page.locator(".st-key-btn_solve button").click()
        page.wait_for_selector(".st-key-live_curve_iterations img", timeout=300_000)
        page.wait_for_timeout(2000)
        b, v = live_cost(server, threads)
        print(
            f"- what watching costs besides the solver: browser {b:.3f} CPU-s/s, server "
            f"{v:.3f} CPU-s/s (the page open and live for 10 s)"
        )
        page.locator("[data-testid='stSidebarNav'] a", has_text="Set up").first.click()
        _idle(page)
        b, v = live_cost(server, threads)
        print(f"- the same with the page on Set up: browser {b:.3f}, server {v:.3f} CPU-s/s")
        page.locator("[data-testid='stSidebarNav'] a", has_text="Solve").first.click()
        _idle(page)
        ms = []
        for k in range(count):
            want = "seconds" if k % 2 == 0 else "iterations"
            t0 = time.perf_counter()
            page.locator(".st-key-curve_x label", has_text=want).click()
            page.wait_for_selector(f".st-key-live_curve_{want} img", timeout=60_000)
            ms.append(1000 * (time.perf_counter() - t0))
            page.wait_for_timeout(300)
        ms.sort()
        print(
            f"- click → redrawn curve: median {statistics.median(ms):.0f} ms, "
            f"90th percentile {ms[int(0.9 * (len(ms) - 1))]:.0f} ms ({count} clicks)"
        )
        blank = 0
        samples = 100
        for _ in range(samples):
            blank += int(page.evaluate(BLANK_JS))
            page.wait_for_timeout(50)
        print(f"- curve or grid blank or faded: {blank} of {samples} samples, 50 ms apart")
        page.wait_for_timeout(500)
        t0 = time.monotonic()
        page.wait_for_timeout(5000)
        visible = sum(1 for t in sent if t >= t0)
        page.evaluate(
            "() => { Object.defineProperty(document, 'hidden', {value: true, configurable:"
            " true}); document.dispatchEvent(new Event('visibilitychange')); }"
        )
        page.wait_for_timeout(1500)  # the page reruns once to stop polling
        t1 = time.monotonic()
        page.wait_for_timeout(5000)
        hidden = sum(1 for t in sent if t >= t1)
        print(f"- messages to the server in 5 s: {visible} visible, {hidden} hidden")
        page.locator(".st-key-btn_stop button").click()
        _idle(page)
    finally:
        page.context.close()


def memory(browser: Any, server: Server, label: str, sessions: int) -> None:
    print(f"\n## Memory after closed tabs ({sessions} × {label}, grace {GRACE_S:g} s)\n")
    base = server.rss_mb()
    pages = [open_preset(browser, server.url, label) for _ in range(sessions)]
    for page in pages:
        fill(page, "target_value", "0")
        page.locator(".st-key-btn_solve button").click()
    for page in pages:
        page.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=stMetric]')].some(e => "
            "e.innerText.startsWith('Iteration\\n') && !e.innerText.endsWith('\\n0'))",
            timeout=600_000,
        )
    peak = server.rss_mb()
    for page in pages:
        page.context.close()
    time.sleep(GRACE_S + 30.0)
    after = server.rss_mb()
    print("| server RSS | MiB |\n|---|---:|")
    print(f"| before the solves | {base:,.0f} |")
    print(f"| {sessions} tabs solving | {peak:,.0f} |")
    print(f"| 30 s after the grace period | {after:,.0f} ({after - base:+,.0f}) |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--preset", default="srp-turn")
    parser.add_argument("--label", default="SRP turn: Td9d6h Qc", help="the preset's name")
    parser.add_argument("--target", default="0.3%")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--clicks", type=int, default=20)
    parser.add_argument("--memory", action="store_true")
    parser.add_argument("--memory-label", default="SRP flop: Td9d6h (small tree)")
    parser.add_argument("--sessions", type=int, default=3)
    parser.add_argument("--skip-time", action="store_true")
    args = parser.parse_args()
    from playwright.sync_api import sync_playwright

    threads = [int(x) for x in args.threads.split(",")]
    commit = subprocess.run(
        ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
    ).stdout.strip()
    load = os.getloadavg()[0]
    print(
        f"# {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()},"
        f" {time.strftime('%Y-%m-%d %H:%M')}, commit {commit or '?'}, load average {load:.1f}"
    )
    with running_server() as server, sync_playwright() as pw:
        browser = pw.chromium.launch(
            executable_path=shutil.which("chromium"), headless=True, args=CHROMIUM_ARGS
        )
        if not args.skip_time:
            time_to_target(
                browser, server.url, args.preset, args.label, args.target, threads, args.repeats
            )
        if args.clicks:
            clicks(browser, server, args.label, threads[-1], args.clicks)
        if args.memory:
            memory(browser, server, args.memory_label, args.sessions)
        browser.close()


if __name__ == "__main__":
    main()
