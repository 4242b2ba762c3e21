"""AppTest: the Export page offers every download for a finished solve, and refuses to save
while the solve's arrays are being written. (Download callables are not run by AppTest; the
data functions are tested in test_export.py and in the browser test.)"""

from __future__ import annotations

import pytest
from app_helpers import no_threads_left, page

from app import state
from solver import make_game, make_rule
from solver.jobs import SolveJob


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def test_downloads_for_a_finished_solve() -> None:
    job = SolveJob(make_game("kuhn"), make_rule("cfr"), max_iterations=50).start()
    job.wait_for(lambda q: q.finished)
    at = page("export", **{state.JOB: job, state.JOB_SOURCE: {"kind": "toy", "name": "kuhn"}})
    at.run()
    assert not at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    for want in ("Curve as PNG", "Curve as SVG", "Node as CSV", "Whole tree as JSON"):
        assert want in labels
    assert "Save solve (.npz)" in labels


def test_running_solve_cannot_be_saved() -> None:
    job = SolveJob(make_game("leduc"), make_rule("cfr"), max_iterations=10**9).start()
    job.wait_for(lambda q: q.average is not None)
    at = page("export", **{state.JOB: job, state.JOB_SOURCE: {"kind": "toy", "name": "leduc"}})
    at.run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Save solve (.npz)" not in labels
    assert any("Pause or stop" in i.value for i in at.info)


def test_empty_state() -> None:
    at = page("export")
    at.run()
    assert not at.exception and "Nothing solved yet" in at.info[0].value
