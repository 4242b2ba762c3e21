"""The job registry with several tabs on one solve (issue 33): the same URL open in two tabs
is two sessions watching one job; the job ends only when no live session watches it (and has
not for the grace period), each job counts once, and races and batches end as before."""

from __future__ import annotations

import time

import pytest
from conftest import game

from solver import make_rule
from solver.run.jobs import STOPPED, JobRegistry, SolveJob, live_jobs, stop_all
from solver.run.race import RaceJob, parse_entries


@pytest.fixture(autouse=True)
def _no_threads_left():
    yield
    stop_all("test")
    assert live_jobs() == []


def _endless(name: str = "kuhn") -> SolveJob:
    """A real solve that runs until stopped, in short chunks (a stop lands at once)."""
    return SolveJob(game(name), make_rule("cfr"), max_iterations=10**9, chunk_s=0.02).start()


def test_a_job_two_tabs_watch_ends_only_when_both_are_gone() -> None:
    reg = JobRegistry()
    job = _endless()
    reg.add("tab-1", job, token="abc", context={"label": "Kuhn"})
    found = reg.attach("abc", "tab-2")  # the same URL opened in a second tab
    assert found is not None and found[0] is job
    assert reg.watchers(job) == ["tab-1", "tab-2"]
    assert reg.running() == [job]  # one solve, however many tabs show it
    active = {"tab-1": True, "tab-2": False}  # the second tab is closed
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=100.0) == []
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=200.0) == []  # long past the grace period
    assert job.alive and not job.released and job.progress.state != STOPPED
    assert reg.watchers(job) == ["tab-1"] and reg.jobs("tab-1") == [job]
    assert reg.attach("abc", "tab-3") is not None  # its token still works: a reload of tab-1
    active.update({"tab-1": False, "tab-3": False})  # then every tab is closed
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=300.0) == []
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=304.0) == []
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=305.5) == [job]
    assert job.join(10) and job.progress.stopped_by == "session"
    reg.reap(lambda s: active[s], grace_s=5.0, now=306.5)
    assert job.released and reg.running() == [] and reg.watchers(job) == []
    assert reg.attach("abc", "tab-4") is None


def test_a_reload_of_the_last_tab_within_the_grace_period_keeps_the_solve() -> None:
    reg = JobRegistry()
    job = _endless()
    reg.add("tab-1", job, token="abc")
    reg.attach("abc", "tab-2")
    active = {"tab-1": False, "tab-2": False}  # both closed ...
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=100.0) == []
    assert reg.attach("abc", "tab-3") is not None  # ... and one reloaded within the grace
    active["tab-3"] = True
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=106.0) == []
    assert job.alive and reg.watchers(job) == ["tab-3"] and reg.jobs("tab-3") == [job]
    active["tab-3"] = False
    reg.reap(lambda s: active[s], grace_s=5.0, now=110.0)
    assert reg.reap(lambda s: active[s], grace_s=5.0, now=115.0) == [job]


def test_the_reaper_thread_keeps_a_solve_another_tab_watches() -> None:
    """The same with the real reaper and a short grace period (REGRET_LAB_GRACE_S in the app)."""
    reg = JobRegistry()
    job = _endless("leduc")
    reg.add("tab-1", job, token="abc")
    reg.attach("abc", "tab-2")
    active = {"tab-1": True, "tab-2": False}
    reg.start_reaper(lambda s: active[s], grace_s=0.2, every_s=0.05)
    time.sleep(1.0)  # five grace periods
    assert job.alive and reg.watchers(job) == ["tab-1"]
    active["tab-1"] = False
    assert job.join(10) and job.progress.stopped_by == "session"
    deadline = time.monotonic() + 10.0
    while not job.released and time.monotonic() < deadline:
        time.sleep(0.05)
    assert job.released


def test_a_new_solve_leaves_the_finished_one_to_the_tab_still_showing_it() -> None:
    reg = JobRegistry()
    old = _endless()
    reg.add("tab-1", old, token="old")
    reg.attach("old", "tab-2")
    old.stop()
    assert old.join(10)
    new = _endless()
    reg.add("tab-1", new, token="new")  # tab 1 solves again; tab 2 still shows the old one
    assert reg.watchers(old) == ["tab-2"] and reg.attach("old", "tab-2") is not None
    assert reg.running() == [new]
    reg.add("tab-2", _endless(), token="newer")  # tab 2 too: nobody shows the old one
    assert reg.watchers(old) == [] and reg.attach("old", "tab-3") is None


def test_races_and_tokenless_jobs_end_with_their_session() -> None:
    reg = JobRegistry()
    race = RaceJob(game("leduc"), parse_entries("cfr,cfr+"), max_iterations=10**8).start()
    solve = _endless()
    reg.add("tab-1", race)
    reg.add("tab-1", solve)
    assert set(reg.running()) == {race, solve}
    active = {"tab-1": False}
    reg.reap(lambda s: active[s], grace_s=1.0, now=10.0)
    assert set(reg.reap(lambda s: active[s], grace_s=1.0, now=11.0)) == {race, solve}
    assert race.join(30) and solve.join(10)
    assert race.progress.stopped_by == "session" and solve.progress.stopped_by == "session"
