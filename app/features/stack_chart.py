"""The chart by stack as a background job: solve full-range push/fold at each stack of a list
(:func:`solver.study.preflop_chart.push_fold_chart`) in a thread, and publish how far it got and,
once done, the :class:`~solver.study.preflop_chart.StackChart`. The thread never calls
Streamlit: the page reads :meth:`ChartJob.snapshot` in a fragment.

A job ends as a solve does (:mod:`solver.run.lifecycle`): on :meth:`ChartJob.stop`, when the
app's job registry (:func:`app.runtime.registry`) finds no open page has watched it for the
grace period — a page reload takes it back by the token in its URL, so a reload does not stop
it — and at process exit (it is tracked, and its thread is a daemon). A stop is seen after the
current stack (about 0.25 s)."""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass

from solver.run.lifecycle import track
from solver.study.preflop_chart import (
    StackChart,
    check_stacks,
    push_fold_chart,
    stack_grid,
)

RUNNING, DONE, STOPPED, FAILED = "running", "done", "stopped", "failed"
READY_WAIT_S = 600.0  # longest wait for the warm-up's kernels before solving anyway
READY_POLL_S = 0.1  # while waiting for them, a stop is seen within this many seconds


class _Stopped(Exception):
    """Raised from the progress callback to leave the solves early."""


@dataclass(frozen=True)
class ChartProgress:
    """What the page shows: the state, stacks solved of all, the last stack solved (bb), the
    chart once done, and why it failed."""

    state: str
    done: int
    total: int
    last_stack: float | None
    chart: StackChart | None
    error: str = ""

    @property
    def finished(self) -> bool:
        return self.state != RUNNING


class ChartJob:
    """Push/fold solves at ``stacks`` (bb, 1 to 50) with ``ante`` (bb per player), each to
    ``target`` bb of exploitability. ``ready``: an event to wait for before the first solve
    (the warm-up's kernels). It satisfies :class:`solver.run.lifecycle.Job`, so the app's job
    registry can end it like a solve."""

    def __init__(
        self,
        stacks: Sequence[float],
        ante: float = 0.0,
        target: float = 1e-6,
        ready: threading.Event | None = None,
    ) -> None:
        self.stacks = tuple(check_stacks(stacks, ante=ante))  # SpecError naming the field
        self.ante = float(ante)
        self.target = float(target)
        self._ready = ready
        self.stopped_by = ""  # why it was stopped: "stop", "session" (the reaper), "exit"...
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._progress = ChartProgress(RUNNING, 0, len(self.stacks), None, None)
        self._thread = threading.Thread(target=self._run, name="stack-chart", daemon=True)

    def start(self) -> ChartJob:
        track(self)  # (stopped with every job at process exit)
        self._thread.start()
        return self

    def stop(self, reason: str = "stop") -> None:
        """Ask the job to end after the current stack (non-blocking); ``reason`` is kept."""
        if not self._stop.is_set():
            self.stopped_by = reason
        self._stop.set()

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread; True when it has ended (or never started)."""
        if self._thread.ident is None:
            return True
        self._thread.join(timeout)
        return not self._thread.is_alive()

    @property
    def alive(self) -> bool:
        return self._thread.is_alive()

    def snapshot(self) -> ChartProgress:
        with self._lock:
            return self._progress

    def _publish(self, **changes: object) -> None:
        with self._lock:
            p = self._progress
            self._progress = ChartProgress(
                str(changes.get("state", p.state)),
                int(changes.get("done", p.done)),  # type: ignore[call-overload]
                p.total,
                changes.get("last_stack", p.last_stack),  # type: ignore[arg-type]
                changes.get("chart", p.chart),  # type: ignore[arg-type]
                str(changes.get("error", p.error)),
            )

    def _check(self) -> None:
        if self._stop.is_set():
            raise _Stopped

    def _wait_ready(self) -> None:
        """Wait for the warm-up's kernels (at most :data:`READY_WAIT_S`), seeing a stop."""
        if self._ready is None:
            return
        deadline = time.monotonic() + READY_WAIT_S
        while not self._ready.wait(READY_POLL_S) and time.monotonic() < deadline:
            self._check()

    def _run(self) -> None:
        def progress(stack: float, fraction: float) -> None:
            self._publish(done=round(fraction * len(self.stacks)), last_stack=stack)
            self._check()

        try:
            self._wait_ready()
            self._check()
            chart = push_fold_chart(
                self.stacks, ante=self.ante, target=self.target, progress=progress
            )
        except _Stopped:
            self._publish(state=STOPPED)
            return
        except Exception as exc:  # shown on the page; the thread ends cleanly
            self._publish(state=FAILED, error=f"{type(exc).__name__}: {exc}")
            return
        self._publish(state=DONE, chart=chart)


def stack_list(first: float, last: float, step: float) -> list[float]:
    """Stacks from ``first`` to ``last`` (bb, included when on the grid) every ``step``:
    :func:`solver.study.preflop_chart.stack_grid`, which refuses (``SpecError`` naming
    ``first``, ``last`` or ``step``) a grid of more than ``MAX_STACKS`` stacks before making
    any."""
    return stack_grid(first, last, step)
