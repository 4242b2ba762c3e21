"""The pictures of docs/app.md, docs/locking.md, docs/exploit.md and docs/multiway.md (two:
three-player Kuhn's Solve, a three-way river's Explore grid), taken from the running app.

Run it after a change to what a pictured page shows (layout, wording, colours, a chart), and
look at the new PNGs before committing them::

    .venv/bin/python scripts/screenshots.py                   # every picture
    .venv/bin/python scripts/screenshots.py --only lock-paint # one (its journey runs whole)

It starts the app on a free loopback port (``app.serve.running_app``), drives Debian's
``chromium`` through Playwright as the browser tests do (never a downloaded browser:
``scripts/ensure_chromium.sh`` installs it) and walks real journeys on the *SRP river*
preset, saving each picture into ``assets/`` (PNGs 1440 px wide or cropped to the part a doc
talks about, each well under 250 KB). The waits and clicks are the browser tests' own
(``tests/browser/pw.py``; the paint brush among them). With
a warm Numba cache (``python -m solver.warmup``) the whole run takes about a minute on a
2-core machine (a cold one compiles the kernels first: minutes).

``assets/screenshot.png`` (README; taken by ``tests/browser/test_app_browser.py`` when
``REGRET_LAB_SCREENSHOT=1``) and
``assets/practice.png`` (docs/trainer.md) and ``assets/exploit-view.png`` (a one-off) are not
this script's: it leaves them alone.
"""

from __future__ import annotations

import argparse
import re
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the app's packages
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests" / "browser"))

from playwright.sync_api import FloatRect, Locator, Page, expect, sync_playwright
from pw import WAIT, brush, chart, fill, idle, nav, rerun_done, solve_preset  # tests' helpers

from app.serve import CHROMIUM_ARGS, running_app

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"
WIDTH = 1440
PAGE_HEIGHT = 900  # whole-page pictures
TALL = 2000  # cropped pictures: the parts fit without the app's inner scrolling
MAIN = "[data-testid='stMainBlockContainer']"


class Shots:
    """Saves the pictures asked for (all by default) and remembers what it saved."""

    def __init__(self, only: set[str] | None) -> None:
        self.only = only
        self.saved: list[Path] = []

    def wanted(self, *names: str) -> bool:
        return self.only is None or bool(self.only & set(names))

    def _path(self, name: str) -> Path | None:
        if not self.wanted(name):
            return None
        path = ASSETS / f"{name}.png"
        self.saved.append(path)
        return path

    def page(self, name: str, page: Page) -> None:
        """The whole viewport."""
        path = self._path(name)
        if path is not None:
            page.wait_for_timeout(1000)  # the charts' last redraw
            page.screenshot(path=str(path))

    def region(self, name: str, page: Page, top: Locator, bottom: Locator, pad: int = 12) -> None:
        """The main column from ``top``'s top to ``bottom``'s bottom."""
        path = self._path(name)
        if path is None:
            return
        top.evaluate("(e) => e.scrollIntoView({block: 'start'})")
        page.mouse.move(1, 1)  # off the charts: no hover label, no toolbar
        page.wait_for_timeout(1000)  # the scroll, and the charts' last redraw
        a, b, m = top.bounding_box(), bottom.bounding_box(), page.locator(MAIN).bounding_box()
        assert a is not None and b is not None and m is not None, name
        y0 = max(a["y"] - pad, 0)
        y1 = min(b["y"] + b["height"] + pad, page.viewport_size["height"])  # type: ignore[index]
        assert y1 - y0 > 50, f"{name}: nothing to crop ({y0}..{y1})"
        x0 = m["x"] + 2  # (not the sidebar's border)
        clip: FloatRect = {"x": x0, "y": y0, "width": m["width"] - 2, "height": y1 - y0}
        page.screenshot(path=str(path), clip=clip)


def drawn(page: Page, key: str) -> Locator:
    """The 13×13 chart keyed ``key``, once its 169 cell labels are drawn."""
    grid = chart(page, key)
    expect(grid.locator("g.textpoint")).to_have_count(169)
    return grid


def radio(page: Page, label: str) -> None:
    page.locator("[data-testid='stRadio'] label", has_text=label).click()
    idle(page)


def app_journey(page: Page, url: str, shots: Shots) -> None:
    """docs/app.md: Solve after the opening preset's solve; Explore two actions below the
    root (BB check → BTN bet 50 %, BB to act); the hand classes study view there."""
    page.set_viewport_size({"width": WIDTH, "height": PAGE_HEIGHT})
    solve_preset(page, url)
    drawn(page, "live_grid")
    expect(chart(page, "live_curve")).to_be_visible()
    shots.page("app-solve", page)

    page.set_viewport_size({"width": WIDTH, "height": TALL})
    nav(page, "Explore")
    header = page.locator(".st-key-spot_header")
    page.locator(".st-key-act_0 button").click()  # BB checks
    idle(page)
    expect(header).to_contain_text("Line: BB check — BTN to act")
    page.locator(".st-key-act_1 button", has_text="Bet 50 %").click()
    idle(page)
    expect(header).to_contain_text("Line: BB check → BTN bet 50 % (100) — BB to act")
    grid = drawn(page, "explore_grid")
    expect(chart(page, "explore_freq")).to_be_visible()
    shots.region("app-explore", page, page.locator("h1", has_text="Explore"), grid)

    radio(page, "Hand classes")
    bar = chart(page, "study_class_bar")
    expect(bar).to_be_visible()
    study = page.locator("[data-testid='stRadio']", has_text="Study view")
    shots.region("app-study", page, study, bar)


def locking_journey(page: Page, url: str, shots: Shots) -> None:
    """docs/locking.md: at the root (BB to act) the lock form, a shift of the range, a paint
    (Bet 50 % to half the range), a paint of the grid (AA, AKs, AQs, then KQ both halves,
    to All-in), Lock, Re-solve with locks and its effect."""
    page.set_viewport_size({"width": WIDTH, "height": TALL})
    solve_preset(page, url)
    nav(page, "Explore")
    expect(page.locator(".st-key-spot_header")).to_contain_text("Line: start of the river")
    page.locator("summary", has_text="Lock this node").click()
    idle(page)
    form = page.locator("[data-testid='stExpander']", has_text="Lock this node").first
    expect(page.locator("[class*='st-key-lockui_mix_0_'] input").first).to_be_visible()
    drawn(page, "explore_grid")
    shots.region("lock-form", page, form, form)

    radio(page, "Shift the range")
    page.get_by_role("combobox", name="Action").click()
    page.get_by_role("option", name="Bet 50 % (100)", exact=True).click()
    idle(page)
    fill(page, "lockui_shift_target", "50")
    shifted = drawn(page, "lock_shift_grid")
    expect(shifted.locator("text.gtitle")).to_contain_text(
        re.compile(r"After the shift: Bet 50 % \(100\) 50 % instead of \d")
    )
    shots.region("lock-shift", page, form, form)

    radio(page, "Paint the grid")
    drawn(page, "lock_paint_result")
    brush(page, "lockui_paint_grid", "AA", "AQs")  # AA, AKs, AQs
    radio(page, "Suited and offsuit together")
    brush(page, "lockui_paint_grid", "KQs", "KQs")  # KQs, and KQo with it
    painted = drawn(page, "lock_paint_result")
    expect(painted.locator("text.gtitle")).to_contain_text("After the paint: 5 cells locked")
    shots.region("lock-paint", page, form, form)

    if not shots.wanted("lock-effect"):
        return
    page.locator(".st-key-lockui_add button").click()
    idle(page)
    expect(page.get_by_text("re-solve to apply")).to_be_visible()
    page.locator(".st-key-lockui_resolve button").first.click()
    idle(page)
    title = page.locator("h3", has_text="Effect of the locks")
    expect(title).to_be_visible(timeout=3 * WAIT)
    idle(page)
    shifts = page.locator(".st-key-dl_lock_shifts")  # the moved lines' downloads, last
    expect(shifts).to_be_visible()
    shots.region("lock-effect", page, title, shifts, pad=4)


def exploit_journey(page: Page, url: str, shots: Shots) -> None:
    """docs/exploit.md: at the root (BB to act) the best-response view's *Opponent profile*
    of BTN ("over-folder": c-bet 45 %, c-bet 100 % with two pair, fold to c-bet 65 %),
    applied until every stat is within 1 pp (at most four rounds) with its readback; then
    the risk curve (p = 0, 0.25, 0.5, 0.75, 1), its chart and table."""
    page.set_viewport_size({"width": WIDTH, "height": TALL})
    solve_preset(page, url)
    nav(page, "Explore")
    expect(page.locator(".st-key-spot_header")).to_contain_text("Line: start of the river")
    radio(page, "Best response")
    drawn(page, "exploit_grid")
    page.locator("summary", has_text="Opponent profile").click()
    idle(page)
    editor = page.locator("[data-testid='stExpander']", has_text="Opponent profile").first
    fill(page, "lockui_profile_name", "over-folder")
    fill(page, "lockui_profile_v_cbet", "45")
    fill(page, "lockui_profile_v_fold_to_cbet", "65")
    page.locator(".st-key-lockui_profile_cclass [role='combobox']").click()
    page.keyboard.type("Two pair")  # (the list draws only its first options)
    page.get_by_role("option", name="Two pair", exact=True).click()
    idle(page)
    fill(page, "lockui_profile_cvalue", "100")
    page.locator(".st-key-lockui_profile_cadd button").first.click()
    rerun_done(page)
    expect(editor).to_contain_text("C-bet % for Two pair: 100 %")
    readback = page.get_by_text("target vs the locked solve")
    again = page.locator("[data-testid='stCaptionContainer']", has_text="Apply again")
    for _ in range(4):  # each Apply: one round, compiled against the last locked solve
        page.locator(".st-key-lockui_profile_apply button").first.click()
        rerun_done(page)
        refused = page.locator("[data-testid='stAlert']", has_text="Not applied")
        expect(readback.or_(refused)).to_be_visible(timeout=3 * WAIT)
        assert refused.count() == 0, refused.first.inner_text()
        idle(page)
        if again.count() == 0:
            break
    risk = page.locator("[data-testid='stElementContainer']",
                        has_text="How much the exploit risks").last  # fmt: skip
    expect(risk).to_be_visible()
    above = risk.locator("xpath=preceding-sibling::*[1]")  # the readback's table or its notes
    shots.region("exploit-profile", page, editor, above)

    if not shots.wanted("exploit-risk"):
        return
    expect(page.get_by_text(re.compile(r"^One point: "))).to_be_visible()
    page.locator(".st-key-rnr_curve button").click()
    done = page.locator(
        "[data-testid='stCaptionContainer']", has_text="Measured from the game's value"
    )
    expect(done).to_be_visible(timeout=5 * WAIT)
    idle(page)
    drawn_curve = chart(page, "rnr_chart")
    expect(drawn_curve.locator("g.textpoint")).to_have_count(5)
    shots.region("exploit-risk", page, risk, done, pad=3)


def multiway_journey(page: Page, url: str, shots: Shots) -> None:
    """docs/multiway.md: three-player Kuhn solved, a Nash-distance curve per player."""
    page.set_viewport_size({"width": WIDTH, "height": PAGE_HEIGHT})
    page.goto(url)
    idle(page)
    nav(page, "Set up")
    page.get_by_role("combobox", name="Game or preset").click()
    page.get_by_role("option", name="Kuhn poker, 3 players").click()
    idle(page)
    nav(page, "Solve")
    page.locator(".st-key-multi_start button").click()
    expect(page.get_by_text(re.compile(r"^Done \(iterations\)"))).to_be_visible(timeout=3 * WAIT)
    idle(page)
    curve = chart(page, "multi_curve")
    expect(curve.locator(".legendtext", has_text="NashConv")).to_have_count(1)
    shots.region("multiway-solve", page, page.locator("h1", has_text="Solve"), curve)


def river3_journey(page: Page, url: str, shots: Shots) -> None:
    """docs/multiway.md: Set up's default three-way river spot solved; Explore's grid of the
    last to act after two checks."""
    page.set_viewport_size({"width": WIDTH, "height": TALL})
    page.goto(url)
    idle(page)
    nav(page, "Set up")
    radio(page, "3 (three-way river)")
    nav(page, "Solve")
    page.locator(".st-key-multi_start button").click()
    expect(page.get_by_text(re.compile(r"^Done \(iterations\)"))).to_be_visible(timeout=3 * WAIT)
    idle(page)
    nav(page, "Explore")
    radio(page, "Player 3 (last to act)")
    page.get_by_role("combobox", name="Node (the line to it)").click()
    page.get_by_role("option", name="P1 checks, P2 checks", exact=True).click()
    idle(page)
    expect(page.get_by_text(re.compile(r"to act after: P1 checks, P2 checks"))).to_be_visible()
    grid = drawn(page, "river3_grid")
    shots.region("multiway-river3-explore", page, page.locator("h1", has_text="Explore"), grid)


JOURNEYS: dict[str, tuple[tuple[str, ...], Callable[[Page, str, Shots], None]]] = {
    "app": (("app-solve", "app-explore", "app-study"), app_journey),
    "locking": (("lock-form", "lock-shift", "lock-paint", "lock-effect"), locking_journey),
    "exploit": (("exploit-profile", "exploit-risk"), exploit_journey),
    "multiway": (("multiway-solve",), multiway_journey),
    "river3": (("multiway-river3-explore",), river3_journey),
}
NAMES = [n for names, _ in JOURNEYS.values() for n in names]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--only", action="append", choices=NAMES, metavar="NAME",
        help=f"take only this picture (repeatable): {', '.join(NAMES)}",
    )  # fmt: skip
    args = parser.parse_args(argv)
    if shutil.which("chromium") is None:
        print("screenshots: no chromium on PATH (bash scripts/ensure_chromium.sh)")
        return 1
    shots = Shots(set(args.only) if args.only else None)
    ASSETS.mkdir(exist_ok=True)
    start = time.monotonic()
    with running_app() as url, sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=shutil.which("chromium"), headless=True, args=CHROMIUM_ARGS
        )
        try:
            for names, journey in JOURNEYS.values():
                if shots.wanted(*names):
                    page = browser.new_page(viewport={"width": WIDTH, "height": PAGE_HEIGHT})
                    page.set_default_timeout(WAIT)
                    journey(page, url, shots)
                    page.close()
        finally:
            browser.close()
    for path in shots.saved:
        print(f"{path.relative_to(ROOT)}: {path.stat().st_size / 1024:.0f} KB")
    print(f"{len(shots.saved)} pictures in {time.monotonic() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
