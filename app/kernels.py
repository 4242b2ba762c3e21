"""The solver's kernels compiled in the background while the app is already served.

On a fresh install Numba's cache is empty and compiling every kernel takes minutes on two
cores. The app does not wait for that: at the first page load of a server whose cache is not
warm (:func:`solver.run.warmup.is_warm`) a background thread runs the warm-up groups, each in its
own process — first ``opening`` (what the opening preset's first solve needs, with a second
process compiling its kernels from the other end: :mod:`solver.run.prefetch`), then the others
two at a time and niced (a first solve runs beside them) — and the sidebar shows where it
is. A solve started before its group is ready waits for it (its status says so) instead of
compiling the same kernels a second time in the server, so the first solve starts as soon as
its own kernels are ready.

Then, once, it measures this machine's cost per hand-cell for the time estimates
(:func:`solver.run.calibration.measure`) if none is kept yet.

``REGRET_LAB_BACKGROUND_WARMUP=0`` turns both off (the test servers: the test command warms
the cache first).
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import threading
from dataclasses import dataclass, field

import streamlit as st

from solver.games.model import AUTO_FLOAT64_CELLS, auto_precision
from solver.run import calibration, prefetch
from solver.run.warmup import (
    COMPILING,
    GROUPS,
    NICE_ENV,
    group_command,
    is_warm,
    mark_warm,
)

WAITING, LOADING, COMPILING_NOW, READY, FAILED = (
    "waiting",
    "loading",
    "compiling",
    "ready",
    "failed",
)
BACKGROUND_NICE = 10  # the groups behind ``opening``: a first solve in the server goes first
GROUP_NAMES = {
    "opening": "the opening spot",
    "float32": "big hold'em spots",
    "float64": "Kuhn, Leduc and small spots",
    "compressed": "16-bit storage",
    "parts": "the test suite's own",
}


@dataclass
class Warmup:
    """Per group its state and an event set once it is ready (or failed: a solve then
    compiles what it needs itself)."""

    states: dict[str, str] = field(default_factory=lambda: dict.fromkeys(GROUPS, WAITING))
    events: dict[str, threading.Event] = field(
        default_factory=lambda: {g: threading.Event() for g in GROUPS}
    )
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def set(self, group: str, value: str) -> None:
        with self._lock:
            self.states[group] = value
        if value in (READY, FAILED):
            self.events[group].set()

    def ready(self) -> bool:
        return all(e.is_set() for e in self.events.values())

    def compiling(self) -> bool:
        with self._lock:
            return COMPILING_NOW in self.states.values()

    def summary(self) -> str:
        """One line for the sidebar ("" once every group is ready)."""
        if self.ready():
            return ""
        with self._lock:
            states = dict(self.states)
        done = sum(v in (READY, FAILED) for v in states.values())
        now = [GROUP_NAMES[g] for g, v in states.items() if v in (LOADING, COMPILING_NOW)]
        verb = "Compiling" if COMPILING_NOW in states.values() else "Loading"
        what = f" ({', '.join(now)})" if now else ""
        return f"{verb} the solver's kernels{what}: {done} of {len(GROUPS)} groups ready"

    def run(self, jobs: int = 2) -> None:
        """Run every group, then leave the warm stamp: ``opening`` first and alone, beside
        the helper that compiles its kernels from the other end (:mod:`solver.run.prefetch`),
        then the others ``jobs`` at a time at :data:`BACKGROUND_NICE`, since the first solve
        loads and runs in the server as they start."""
        helper = prefetch.start() if jobs > 1 else None
        try:
            self._run_batch([GROUPS[0]], 1)
        finally:
            prefetch.stop(helper)
        self._run_batch(list(GROUPS[1:]), jobs, BACKGROUND_NICE)
        with self._lock:
            ok = all(v == READY for v in self.states.values())
        if ok:
            mark_warm()

    def _run_batch(self, groups: list[str], jobs: int, nice: int = 0) -> None:
        threads = []
        pending = list(groups)
        lock = threading.Lock()

        def worker() -> None:
            while True:
                with lock:
                    if not pending:
                        return
                    g = pending.pop(0)
                self._run_group(g, nice)

        for _ in range(max(1, min(jobs, len(groups)))):
            t = threading.Thread(target=worker, name="kernel-warmup", daemon=True)
            t.start()
            threads.append(t)
        for t in threads:
            t.join()

    def _run_group(self, group: str, nice: int = 0) -> None:
        self.set(group, LOADING)
        env = {**os.environ, "NUMBA_THREADING_LAYER": "threadsafe", NICE_ENV: str(nice)}
        try:
            proc = subprocess.Popen(
                group_command(group),
                stdout=subprocess.PIPE,
                stderr=subprocess.DEVNULL,
                text=True,
                env=env,
            )
            assert proc.stdout is not None
            for line in proc.stdout:
                if line.strip() == COMPILING:
                    self.set(group, COMPILING_NOW)
            ok = proc.wait() == 0
        except OSError:
            ok = False
        self.set(group, READY if ok else FAILED)


def _ready_warmup() -> Warmup:
    w = Warmup()
    for g in GROUPS:
        w.set(g, READY)
    return w


def _calibrate() -> None:
    """Measure this machine's cost per hand-cell once (the Set up and Solve estimates), when
    no solve here has measured it yet; a second or two of one core."""
    if calibration.load().measured:
        return
    with contextlib.suppress(Exception):  # an estimate is not worth failing anything for
        calibration.measure(1.0)


@st.cache_resource(show_spinner=False)
def warmup() -> Warmup:
    """The server's warm-up: started at the first page load when the cache is not warm, then
    a calibration of the time estimates if this machine has none."""
    if os.environ.get("REGRET_LAB_BACKGROUND_WARMUP", "1") == "0":
        return _ready_warmup()
    if is_warm():
        threading.Thread(target=_calibrate, name="calibration", daemon=True).start()
        return _ready_warmup()
    w = Warmup()

    def run() -> None:
        w.run()
        _calibrate()

    threading.Thread(target=run, name="kernel-warmup", daemon=True).start()
    return w


def group_for(
    holdem: bool,
    algorithm: str,
    threads: int,
    precision: str,
    pruning: str,
    cells: int = AUTO_FLOAT64_CELLS + 1,
) -> str:
    """The warm-up group whose kernels a solve with these settings runs first (``cells``:
    the game's regret entries, which decide what "auto" storage is)."""
    kind = auto_precision(holdem, cells) if precision == "auto" else precision
    if kind == "float64":
        opening = holdem and threads == 1 and algorithm == "dcfr-tuned" and pruning == "partial"
        return "opening" if opening else "float64"
    return kind if kind in GROUPS else "float64"
