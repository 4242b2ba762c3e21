"""One way to stop a job in the app (app/jobs.py): asked to stop, then waited for, bounded."""

from __future__ import annotations

import re
from pathlib import Path

from app.jobs import stop_job

ROOT = Path(__file__).resolve().parents[1]

# Pages that still stop their job by hand: none; a new one fails here
BY_HAND: set[str] = set()


class Job:
    def __init__(self) -> None:
        self.calls: list[tuple[str, float | None]] = []

    def stop(self) -> None:
        self.calls.append(("stop", None))

    def join(self, timeout: float | None = None) -> bool:
        self.calls.append(("join", timeout))
        return True


def test_stop_job_stops_then_waits_bounded() -> None:
    job = Job()
    stop_job(job)
    assert job.calls == [("stop", None), ("join", 30.0)]
    chart = Job()
    stop_job(chart, 5.0)
    assert chart.calls == [("stop", None), ("join", 5.0)]
    stop_job(None)  # no job: nothing to stop


def test_jobs_are_stopped_through_stop_job() -> None:
    stops = re.compile(r"\.stop\(\)")
    by_hand = {
        str(p.relative_to(ROOT))
        for p in (ROOT / "app").rglob("*.py")
        if p.name != "jobs.py" and stops.search(p.read_text(encoding="utf-8"))
    }
    assert by_hand == BY_HAND, sorted(by_hand ^ BY_HAND)
