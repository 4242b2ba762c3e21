"""What a new user waits for in the app on an empty kernel cache, in a real browser.

Serves the app as ``scripts/app.sh`` does — with the background warm-up — on an empty Numba
cache (a temporary ``NUMBA_CACHE_DIR``), opens it in headless Chromium, presses Solve on the
opening preset and times, from the moment the page was served: Solve's status reading
"Done", then the first Explore of that solve showing its strategy table. Prints one table::

    python benchmarks/cold_start.py [--runs 2]

The machine should be otherwise quiet (the warm-up compiles on both cores).
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "browser"))

from app.serve import CHROMIUM_ARGS, running_server  # noqa: E402


def one_run() -> tuple[float, float]:
    """(seconds to "Done", seconds to Explore's table), both from the page served."""
    from playwright.sync_api import sync_playwright
    from pw import IDLE, nav

    cache = Path(tempfile.mkdtemp(prefix="regret-cold-"))
    try:
        env = {"NUMBA_CACHE_DIR": str(cache), "REGRET_LAB_BACKGROUND_WARMUP": "1"}
        with running_server(300.0, **env) as server, sync_playwright() as p:
            browser = p.chromium.launch(
                executable_path=shutil.which("chromium"), headless=True, args=CHROMIUM_ARGS
            )
            page = browser.new_page(viewport={"width": 1400, "height": 1000})
            page.set_default_timeout(600_000)
            page.goto(server.url)
            page.wait_for_selector(IDLE)
            t0 = time.monotonic()  # the page is served (the warm-up runs behind it)
            nav(page, "Solve")
            page.locator(".st-key-btn_solve button").click()
            page.get_by_text("Done (", exact=False).first.wait_for()
            done = time.monotonic() - t0
            nav(page, "Explore")
            page.locator("[data-testid='stDataFrame']").first.wait_for()
            explore = time.monotonic() - t0
            browser.close()
            return done, explore
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=2)
    args = parser.parse_args(argv)
    runs = [one_run() for _ in range(max(1, args.runs))]
    done = [r[0] for r in runs]
    explore = [r[1] for r in runs]
    print("| from the page served, empty cache | median s | min–max s |\n|---|---:|---|")
    print(f"| Solve on the opening preset → Done | {statistics.median(done):.1f} | "
          f"{min(done):.1f}–{max(done):.1f} |")  # fmt: skip
    print(f"| … then Explore's first view shown | {statistics.median(explore):.1f} | "
          f"{min(explore):.1f}–{max(explore):.1f} |")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
