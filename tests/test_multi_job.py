"""The app's background job on three-player games (solver/run/multi_job.py): checks at fixed
iterations equal to the evaluator's on the same rule's profile, a target on the largest Nash
distance, Stop, Pause, the average profile read while it runs, bad arguments by name."""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
import pytest

from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.games.multiway import multi_game
from solver.games.nashconv import check_profile, nash_report
from solver.run.jobs import DONE, PAUSED, STOPPED, stop_all
from solver.run.multi_job import MultiSolveJob


@pytest.fixture(autouse=True)
def _no_jobs_left() -> Iterator[None]:
    yield
    stop_all("test")


def test_checks_are_the_evaluators_at_fixed_iterations() -> None:
    g = multi_game("kuhn3")
    job = MultiSolveJob(g, "cfr+", max_iterations=200, check_every=50, chunk_s=0.001).start()
    assert job.join(60)
    p = job.progress
    assert p.state == DONE and p.stopped_by == "iterations" and p.iteration == 200
    assert [c.iteration for c in p.history] == [0, 50, 100, 150, 200]
    solo = MultiEngine(g, make_rule("cfr+"))
    for c in p.history:
        solo.iterate(c.iteration - solo.iteration)
        rep = nash_report(g, solo.average_profile())
        np.testing.assert_allclose(c.nash_distance, rep.nash_distance, rtol=0, atol=1e-9)
        assert c.nash_conv == pytest.approx(rep.nash_conv, abs=1e-9)
        np.testing.assert_allclose(c.ev, rep.value, rtol=0, atol=1e-9)
    avg, it = job.average_profile()
    assert it == 200
    np.testing.assert_array_equal(avg, solo.average_profile())


def test_target_is_the_largest_nash_distance() -> None:
    job = MultiSolveJob(multi_game("kuhn3"), "dcfr", target=0.005, max_iterations=5000,
                        check_every=5).start()  # fmt: skip
    assert job.join(60)
    p = job.progress
    assert p.stopped_by == "target" and p.iteration < 5000
    assert p.history[-1].max_distance <= 0.005 < p.history[-2].max_distance


def test_pause_stop_and_the_profile_while_running() -> None:
    g = multi_game("leduc3")
    job = MultiSolveJob(g, "cfr", max_iterations=1_000_000, check_every=1000, chunk_s=0.02)
    job.start()
    job.wait_for(lambda q: q.iteration >= 2, timeout=60)
    avg, _ = job.average_profile()  # (waits for the chunk running)
    check_profile(g, avg)
    job.pause()
    job.wait_for(lambda q: q.state == PAUSED, timeout=30)
    job.resume()
    job.stop()
    assert job.join(60)
    p = job.progress
    assert p.state == STOPPED and p.stopped_by == "stop"
    assert p.history[-1].iteration == p.iteration  # measured where it stopped
    job.release()
    with pytest.raises(RuntimeError, match="released"):
        job.average_profile()


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"algorithm": "mccfr-os"}, "algorithm"),
        ({"max_iterations": -1}, "max_iterations"),
        ({"check_every": 0}, "check_every"),
        ({"target": 0.0}, "target"),
        ({"algorithm": "dcfr", "params": {"nope": 1.0}}, "nope"),
    ],
)
def test_bad_arguments_are_named(kwargs: dict[str, object], named: str) -> None:
    args: dict[str, object] = {"algorithm": "cfr", **kwargs}
    with pytest.raises((ValueError, TypeError), match=named):
        MultiSolveJob(multi_game("kuhn3"), **args)  # type: ignore[arg-type]
