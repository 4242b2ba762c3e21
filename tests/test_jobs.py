"""SolveJob: background solves with pause/resume/stop, immutable snapshots, the session
registry's reaper, and no thread left behind."""

from __future__ import annotations

import time

import numpy as np
import pytest
from conftest import game

from solver import Engine, exploitability, make_rule
from solver.jobs import (
    DONE,
    PAUSED,
    RUNNING,
    STOPPED,
    JobRegistry,
    Point,
    SolveJob,
    block_average,
    estimate_eta,
    live_jobs,
    stop_all,
)


@pytest.fixture(autouse=True)
def _no_threads_left():
    yield
    stop_all("test")
    assert live_jobs() == []


def test_reaches_target_and_snapshot_matches_engine() -> None:
    g = game("leduc")
    job = SolveJob(g, make_rule("dcfr"), target=0.01, check_every=20).start()
    p = job.wait_for(lambda q: q.finished, timeout=60)
    assert job.join(5)
    assert p.state == DONE and p.stopped_by == "target"
    assert p.exploitability is not None and p.exploitability <= 0.01
    # the published average is the engine's, and its exploitability is what was reported
    assert p.average is not None and not p.average.flags.writeable
    np.testing.assert_allclose(p.average, job.engine.average_strategy(), rtol=0, atol=0)
    assert exploitability(g, p.average) == pytest.approx(p.exploitability, abs=1e-12)
    iters = [pt.iteration for pt in p.history]
    assert iters == sorted(iters) and iters[0] == 0 and iters[-1] == p.iteration
    assert all(it % 20 == 0 for it in iters)
    assert p.iteration == job.engine.iteration
    assert p.pct_pot is None and p.mbb is None  # toy game: no pot, no big blind


def test_iteration_limit_and_watched_node_copy() -> None:
    g = game("kuhn")
    node = int(g.decision_nodes()[1])
    job = SolveJob(g, make_rule("cfr+"), max_iterations=300, watch=node).start()
    p = job.wait_for(lambda q: q.finished, timeout=60)
    assert p.state == DONE and p.stopped_by == "iterations" and p.iteration == 300
    assert p.watched_node == node and p.watched_iteration == 300
    assert p.watched_strategy is not None and not p.watched_strategy.flags.writeable
    off, na, nh = g.block(node)
    expected = job.engine.average_strategy()[off : off + na * nh].reshape(na, nh)
    np.testing.assert_allclose(p.watched_strategy, expected, atol=1e-15)


def test_pause_resume_stop() -> None:
    g = game("leduc")
    job = SolveJob(g, make_rule("dcfr"), max_iterations=10**9, chunk_s=0.02).start()
    job.wait_for(lambda q: q.iteration > 0 and q.state == RUNNING)
    job.pause()
    p = job.wait_for(lambda q: q.state == PAUSED)
    frozen = job.engine.iteration
    assert p.iteration == frozen
    time.sleep(0.1)  # checking that nothing happens while paused
    assert job.engine.iteration == frozen and job.progress.state == PAUSED
    # watching another node while paused publishes its strategy without running
    other = int(g.decision_nodes()[3])
    job.watch(other)
    p = job.wait_for(lambda q: q.watched_node == other)
    assert p.watched_strategy is not None and p.iteration == frozen
    job.resume()
    job.wait_for(lambda q: q.iteration > frozen)
    job.stop()
    assert job.join(10)
    p = job.progress
    assert p.state == STOPPED and p.stopped_by == "stop"
    assert p.average_iteration == p.iteration == job.engine.iteration


def test_two_jobs_at_once() -> None:
    jobs = [
        SolveJob(game("leduc"), make_rule(name), max_iterations=400).start()
        for name in ("dcfr", "pcfr+")
    ]
    for j in jobs:
        p = j.wait_for(lambda q: q.finished, timeout=60)
        assert p.state == DONE and p.iteration == 400


def test_resume_from_engine_keeps_counting() -> None:
    g = game("kuhn")
    eng = Engine(g, make_rule("dcfr"))
    eng.iterate(50)
    hist = (Point(0, 0.0, 1.0), Point(50, 0.1, 0.01))
    job = SolveJob(g, eng.rule, engine=eng, history=hist, max_iterations=80).start()
    p = job.wait_for(lambda q: q.finished, timeout=60)
    assert p.iteration == 80 and p.history[:2] == hist and p.history[-1].iteration == 80


def test_bad_arguments() -> None:
    g = game("kuhn")
    with pytest.raises(ValueError):
        SolveJob(g, make_rule("cfr"), target=0)
    with pytest.raises(ValueError):
        SolveJob(g, make_rule("cfr"), check_every=0)
    terminal = int(np.flatnonzero(g.tree.kind != 0)[0])
    with pytest.raises(ValueError, match="not a decision node"):
        SolveJob(g, make_rule("cfr"), watch=terminal)


def test_failure_is_reported_not_raised() -> None:
    g = game("kuhn")
    job = SolveJob(g, make_rule("cfr"), max_iterations=10)
    job.engine.iterate = None  # type: ignore[method-assign, assignment]
    job.start()
    p = job.wait_for(lambda q: q.finished)
    assert p.state == "failed" and "TypeError" in p.error


def test_registry_reaps_gone_sessions_after_grace() -> None:
    reg = JobRegistry()
    g = game("leduc")
    a = SolveJob(g, make_rule("dcfr"), max_iterations=10**9, chunk_s=0.02).start()
    b = SolveJob(g, make_rule("dcfr"), max_iterations=10**9, chunk_s=0.02).start()
    reg.add("gone", a)
    reg.add("here", b)
    active = {"here": True, "gone": False}
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=100.0) == []
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=104.0) == []
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=105.5) == [a]
    assert a.join(10) and a.progress.stopped_by == "session"
    assert b.alive
    b.stop()
    assert b.join(10)
    reg.reap(lambda s: active[s], grace_s=5.0, now=200.0)
    assert reg.jobs("here") == [] and reg.jobs("gone") == []


def test_block_average_uniform_without_sums() -> None:
    g = game("kuhn")
    node = int(g.decision_nodes()[0])
    _off, na, nh = g.block(node)
    out = block_average(g, np.zeros(g.action_size), node)
    assert out.shape == (na, nh) and np.allclose(out, 1.0 / na)


def test_eta_from_power_law() -> None:
    hist = tuple(Point(i, t, 1.0 / t) for i, t in enumerate([1.0, 2.0, 4.0, 8.0], 1))
    assert estimate_eta(hist, 1.0 / 16.0) == pytest.approx(8.0)
    assert estimate_eta(hist, None) is None
    assert estimate_eta(hist[:2], 0.01) is None
    assert estimate_eta(hist, 1.0) == 0.0


def test_first_snapshot_reports_the_memory_the_solve_holds() -> None:
    g = game("leduc")
    job = SolveJob(g, make_rule("cfr+"), max_iterations=1)
    assert job.progress.memory_bytes == job.engine.memory_bytes > 0
