"""AppTest: a running three-player solve is taken back after a page reload (issue 49;
app/features/multi_reload.py), as heads-up solves and charts are: a reload is a new session
presenting the URL's token (``?solve3=…``); it gets the same job, its game on Set up, its
settings and locks, and sees its progress; the job ends only once no page has watched it for
the grace period, and the URL of an ended solve says so."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator

import pytest
from app_helpers import no_threads_left, page, poll

from app import state
from app.features import multi_locks as ML
from app.features.multi_reload import URL_KEY
from app.runtime import GRACE_S, registry
from solver.run.jobs import RUNNING
from solver.run.multi_job import MultiSolveJob

KUHN3 = "multi:kuhn3"


@pytest.fixture(autouse=True)
def _teardown() -> Iterator[None]:
    yield
    no_threads_left()


def status(at: object) -> str:
    return "\n".join(str(m.value) for m in at.markdown)  # type: ignore[attr-defined]


def test_a_running_kuhn3_solve_is_taken_back_after_a_reload() -> None:
    settings = {state.SOURCE: KUHN3, state.MULTI_ALGO: "cfr+",
                state.MULTI_ITERATIONS: 1_000_000, state.MULTI_EVERY: 50}  # fmt: skip
    at = page("solve", **settings)  # a million iterations: running through this test
    at.run()
    at.text_area(key=ML.TEXT).set_value('{"k b": {"K": {"c": 1}}}').run()
    at.button(key=ML.K + "apply").click().run()
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    token = at.query_params[URL_KEY]
    assert isinstance(job, MultiSolveJob) and token and registry().watchers(job)
    assert job.progress.state == RUNNING and job.locks is not None

    reloaded = page("solve")  # a new session on the same URL: Set up on its default game
    reloaded.query_params[URL_KEY] = token
    reloaded.run()
    assert not reloaded.exception
    assert reloaded.session_state[state.MULTI_JOB] is job
    assert reloaded.session_state[state.SOURCE] == KUHN3
    assert "Kuhn poker, 3 players" in status(reloaded)
    assert reloaded.session_state[state.MULTI_ITERATIONS] == 1_000_000  # its settings
    assert reloaded.session_state[state.MULTI_ALGO] == "cfr+"
    assert reloaded.session_state[ML.APPLIED][1].spec == {"k b": {"K": {"c": 1}}}  # its locks
    assert reloaded.button(key="multi_start").disabled  # running
    assert not reloaded.button(key="multi_stop").disabled
    # the same job's progress: its iterations climb on the reloaded page
    seen = job.progress.iteration
    poll(reloaded, lambda: job.progress.iteration > seen + 100)
    reloaded.run()
    shown = re.search(r"iteration ([\d,]+)", status(reloaded))
    assert (
        shown is not None and seen + 100 < int(shown[1].replace(",", "")) <= job.progress.iteration
    )
    assert any(m.label == "NashConv" for m in reloaded.metric)
    assert any("Solving with locks" in str(c.value) for c in reloaded.caption)

    now = time.monotonic()
    registry().reap(lambda s: False, GRACE_S, now=now)  # every page closed: the grace begins
    assert not job.progress.finished
    registry().reap(lambda s: False, GRACE_S, now=now + GRACE_S)  # the grace is over
    assert job.join(10.0) and job.progress.state == "stopped"
    assert job.progress.stopped_by == "session"
    gone = page("solve", **{state.SOURCE: KUHN3})  # the URL again, once the job is forgotten
    gone.query_params[URL_KEY] = token
    gone.run()
    assert not gone.exception and state.MULTI_JOB not in gone.session_state
    assert "has ended" in gone.info[0].value and URL_KEY not in gone.query_params
