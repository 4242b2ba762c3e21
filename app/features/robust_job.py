"""The restricted Nash response as a background job (:func:`solver.study.robust.robust_curve`
in a thread), publishing each point as it is done. The thread never calls Streamlit: the
page reads :meth:`RobustJob.snapshot` in a fragment.

It ends as the sizes job does (:mod:`app.features.sizes_job`): on :meth:`RobustJob.stop`
(seen between chunks of iterations), when the app's job registry finds no page has watched
it for the grace period, and at process exit (tracked; a daemon thread)."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from solver.api import SolveResult, measure
from solver.cfr.protocol import Solver
from solver.run.lifecycle import StudyThread
from solver.study.robust import RobustCurve, RobustPoint, RobustStopped, robust_curve

RUNNING, DONE, STOPPED, FAILED = "running", "done", "stopped", "failed"


@dataclass(frozen=True)
class RobustRequest:
    """What to run: from the solve before the profile (``base``, its engine), against the
    profiled opponent's average strategy ``fixed`` (A,), for ``exploiter`` at each p of
    ``ps``: ``iterations`` iterations each, or down to ``target`` chips."""

    base: Solver
    fixed: npt.NDArray[np.float64]
    exploiter: int
    ps: tuple[float, ...]
    iterations: int
    target: float | None = None


@dataclass(frozen=True)
class RobustProgress:
    """What the page shows: the state, the points done, seconds since the start, the curve
    once done and why it failed."""

    state: str
    points: tuple[RobustPoint, ...] = field(default=())
    elapsed_s: float = 0.0
    curve: RobustCurve | None = None
    error: str = ""

    @property
    def finished(self) -> bool:
        return self.state != RUNNING


class RobustJob(StudyThread[RobustProgress]):
    """Runs a :class:`RobustRequest` (its p values checked beforehand); satisfies
    :class:`solver.run.lifecycle.Job`."""

    thread_name = "robust"

    def __init__(self, request: RobustRequest, owner: object = None) -> None:
        super().__init__(RobustProgress(RUNNING))
        self.request = request
        self.owner = owner  # what the points are for (the profile re-solve's job)

    def _run(self) -> None:
        r = self.request
        points: list[RobustPoint] = []

        def said(pt: RobustPoint) -> None:
            points.append(pt)
            self._publish(points=tuple(points))

        try:
            base = SolveResult(r.base.game, r.base.rule, r.base)
            base.history.append(measure(r.base, time.perf_counter()))
            curve = robust_curve(
                base, r.fixed, r.ps, exploiter=r.exploiter, iterations=r.iterations,
                target=r.target, on_point=said, stop=self._stop.is_set,
            )  # fmt: skip
        except RobustStopped:
            self._publish(state=STOPPED)
            return
        except Exception as exc:  # shown on the page; the thread ends cleanly
            self._publish(state=FAILED, error=f"{type(exc).__name__}: {exc}")
            return
        self._publish(state=DONE, points=tuple(curve.points), curve=curve)
