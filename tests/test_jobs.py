"""SolveJob: background solves with pause/resume/stop, immutable snapshots (the watched
node's strategy and reach, the whole average on demand), checks at fixed iterations, the
session registry (tokens for a reloaded page, the reaper that stops and releases), and no
thread left behind."""

from __future__ import annotations

import time

import numpy as np
import pytest
from conftest import game, locked_engine

from solver import Engine, exploitability, make_rule
from solver.cfr.reach import path_reach
from solver.run.jobs import (
    DONE,
    PAUSED,
    RUNNING,
    STOPPED,
    JobRegistry,
    JobReleased,
    Point,
    SolveJob,
    block_average,
    estimate_eta,
    live_jobs,
    next_check,
    reach_at,
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
    # the average handed out is the engine's, and its exploitability is what was reported
    avg, at = job.average_strategy()
    assert at == p.iteration and not avg.flags.writeable
    np.testing.assert_allclose(avg, job.engine.average_strategy(), rtol=0, atol=0)
    assert exploitability(g, avg) == pytest.approx(p.exploitability, abs=1e-12)
    assert job.average_strategy()[0] is avg  # kept until the solve moves on
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
    sigma = job.engine.average_strategy()
    expected = sigma[off : off + na * nh].reshape(na, nh)
    np.testing.assert_allclose(p.watched_strategy, expected, atol=1e-15)
    # the reach there, from the path's sums only, is the whole-tree average's path reach
    assert p.watched_reach is not None
    for mine, full in zip(p.watched_reach, path_reach(g, sigma, node), strict=True):
        np.testing.assert_allclose(mine, full, atol=1e-15)


def test_reach_at_matches_path_reach_below_a_chance_node() -> None:
    g = game("leduc")
    eng = Engine(g, make_rule("cfr+"))
    eng.iterate(30)
    sigma = eng.average_strategy()
    deep = [int(n) for n in g.decision_nodes() if g.history(int(n))[:2] == ("k", "k")]
    assert deep
    for node in deep[:6]:
        for mine, full in zip(
            reach_at(g, eng.storage.cumulative, node), path_reach(g, sigma, node), strict=True
        ):
            np.testing.assert_allclose(mine, full, atol=1e-15)


def test_the_watched_view_of_a_locked_solve_shows_the_locked_mix() -> None:
    """A locked node's sums are never updated, so the raw sums would show it uniform: the
    live view reads the locks as Engine.average_strategy does, at the node and on the path."""
    g = game("leduc")
    eng = locked_engine(g, "dcfr", {"root": {"k": 0.25, "b:2": 0.75}})
    eng.iterate(20)
    assert eng.lockset is not None
    locks = eng.lockset.locks
    sigma = eng.average_strategy()
    off, na, nh = g.block(0)
    np.testing.assert_array_equal(
        block_average(g, eng.storage.cumulative, 0, locks),
        sigma[off : off + na * nh].reshape(na, nh),
    )
    assert not np.allclose(block_average(g, eng.storage.cumulative, 0)[0], 0.25)  # raw sums
    below = [int(n) for n in g.decision_nodes() if g.history(int(n))[:1] == ("b:2",)][:4]
    for node in below:
        for mine, full in zip(
            reach_at(g, eng.storage.cumulative, node, locks), path_reach(g, sigma, node),
            strict=True,
        ):  # fmt: skip
            np.testing.assert_allclose(mine, full, atol=1e-15)


def test_checks_at_fixed_iterations_stop_the_same_solve_at_the_same_iteration() -> None:
    g = game("leduc")
    runs = []
    for chunk_s in (0.001, 0.05):  # very different chunking: the checks do not move
        job = SolveJob(g, make_rule("dcfr"), target=0.005, check_every=7, chunk_s=chunk_s)
        p = job.start().wait_for(lambda q: q.finished, timeout=60)
        assert [pt.iteration for pt in p.history] == list(range(0, p.iteration + 1, 7))
        runs.append((p.iteration, p.exploitability))
    assert runs[0] == runs[1] and runs[0][0] % 7 == 0
    assert next_check(0, 10) == 10 and next_check(10, 10) == 20 and next_check(57, 10) == 60


def test_average_on_demand_while_running() -> None:
    g = game("leduc")
    job = SolveJob(g, make_rule("dcfr"), max_iterations=10**9, chunk_s=0.01).start()
    job.wait_for(lambda q: q.iteration > 20)
    avg, at = job.average_strategy()
    assert at > 20 and avg.shape == (g.action_size,) and not avg.flags.writeable
    job.pause()
    job.wait_for(lambda q: q.state == PAUSED)
    avg2, at2 = job.average_strategy()  # served by the paused thread
    assert at2 >= at and at2 == job.engine.iteration
    np.testing.assert_allclose(avg2, job.engine.average_strategy(), rtol=0, atol=0)


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
    assert p.history[-1].iteration == p.iteration == job.engine.iteration  # measured at the end


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


def test_registry_reaps_gone_sessions_after_grace_and_releases_them() -> None:
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
    assert reg.jobs("gone") == [] and not a.released  # released once its thread has ended
    reg.reap(lambda s: active[s], grace_s=5.0, now=106.5)
    assert a.released and a.progress.state == STOPPED  # the last numbers stay
    with pytest.raises(JobReleased):
        _ = a.engine
    assert b.alive and not b.released
    b.stop()
    assert b.join(10)
    reg.reap(lambda s: active[s], grace_s=5.0, now=200.0)
    assert reg.jobs("here") == [b]  # a live session keeps its finished solve


def test_registry_hands_a_solve_to_a_reloaded_page() -> None:
    reg = JobRegistry()
    g = game("kuhn")
    job = SolveJob(g, make_rule("cfr"), max_iterations=10**9, chunk_s=0.02).start()
    reg.add("tab-1", job, token="abc", context={"label": "Kuhn"})
    assert reg.attach("nope", "tab-2") is None
    found = reg.attach("abc", "tab-2")  # the reload's new session
    assert found is not None and found[0] is job and found[1] == {"label": "Kuhn"}
    assert reg.jobs("tab-1") == [] and reg.jobs("tab-2") == [job]
    active = {"tab-1": False, "tab-2": True}
    reg.reap(lambda s: active[s], grace_s=1.0, now=10.0)
    assert reg.reap(lambda s: active[s], grace_s=1.0, now=20.0) == []  # tab-1 had nothing
    assert job.alive
    active["tab-2"] = False  # the reloaded tab is closed too
    reg.reap(lambda s: active[s], grace_s=1.0, now=30.0)
    assert reg.reap(lambda s: active[s], grace_s=1.0, now=31.5) == [job]
    assert job.join(10)
    assert reg.attach("abc", "tab-3") is None  # its token went with its owner


def test_block_average_uniform_without_sums() -> None:
    g = game("kuhn")
    node = int(g.decision_nodes()[0])
    _off, na, nh = g.block(node)
    out = block_average(g, np.zeros(g.action_size), node)
    assert out.shape == (na, nh) and np.allclose(out, 1.0 / na)


def test_eta_from_power_law() -> None:
    hist = tuple(Point(i, t, 1.0 / t) for i, t in enumerate([1.0, 2.0, 4.0, 8.0, 16.0], 1))
    assert estimate_eta(hist, 1.0 / 32.0) == pytest.approx(16.0)  # 32 s − 16 s so far
    assert estimate_eta(hist, None) is None
    assert estimate_eta(hist[:4], 0.01) is None  # too few checks for a trend: "—"
    assert estimate_eta(hist, 1.0) == 0.0
    flat = tuple(Point(i, float(i), 1.0) for i in range(1, 8))
    assert estimate_eta(flat, 0.5) is None  # not falling: no trend
    slow = tuple(Point(i, float(i), 1.0 / (1.0 + 1e-3 * i)) for i in range(1, 8))
    assert estimate_eta(slow, 1e-12) == float("inf")  # past any clock: the page says "> 1 day"


def test_release_refuses_a_running_job() -> None:
    job = SolveJob(game("kuhn"), make_rule("cfr"), max_iterations=10**9, chunk_s=0.02).start()
    with pytest.raises(RuntimeError, match="stop the job"):
        job.release()
    job.stop()
    assert job.join(10)
    job.release()
    assert job.released and job.progress.watched_strategy is None


def test_first_snapshot_reports_the_memory_the_solve_holds() -> None:
    g = game("leduc")
    job = SolveJob(g, make_rule("cfr+"), max_iterations=1)
    assert job.progress.memory_bytes == job.engine.memory_bytes > 0


def test_history_snapshots_do_not_change_when_the_solve_checks_again() -> None:
    from solver.run.jobs import History

    h0 = History()
    h1 = h0.appended(Point(0, 0.0, 1.0))
    h2 = h1.appended(Point(10, 0.1, 0.5))
    assert len(h0) == 0 and len(h1) == 1 and len(h2) == 2  # appending is O(1), views stay
    assert h1[-1].iteration == 0 and h2[-1].iteration == 10
    assert h2[:1] == (Point(0, 0.0, 1.0),) and list(h1) == [Point(0, 0.0, 1.0)]
    assert h2 == (Point(0, 0.0, 1.0), Point(10, 0.1, 0.5))
    h1b = h1.appended(Point(5, 0.05, 0.7))  # an older view appending copies
    assert len(h2) == 2 and h2[-1].iteration == 10 and h1b[-1].iteration == 5
    with pytest.raises(IndexError):
        _ = h1[1]
