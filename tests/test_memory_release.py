"""What a closed tab's session holds is released within the grace period (issue 44): the
session sweeper (app/runtime.py) closes sessions gone for the grace period, then collects and
trims; with the job reaper (solver/run/lifecycle.py) a solve, its node table, a lock's
baseline, a drill and caches kept in the session are all freed. No browser: a fake clock and
a dictionary of session states stand in for Streamlit's session storage
(tests/browser/test_memory_release.py checks a real server's memory)."""

from __future__ import annotations

import gc
import weakref
from pathlib import Path

import numpy as np
import pytest

from app.runtime import SWEEP_LOG_ENV, SessionSweeper, empty_session_state
from solver import make_rule
from solver.games.holdem import HoldemSpec, build_holdem
from solver.run.jobs import JobRegistry, SolveJob


def test_a_session_gone_for_the_grace_period_is_closed_once() -> None:
    sw = SessionSweeper()
    active = {"a": True, "b": True}
    closed: list[str] = []
    for s in active:
        sw.seen(s)
    assert sw.sweep(active.__getitem__, closed.append, 10.0, now=0.0) == []
    active["b"] = False  # tab b closed
    assert sw.sweep(active.__getitem__, closed.append, 10.0, now=1.0) == []  # first seen gone
    assert sw.sweep(active.__getitem__, closed.append, 10.0, now=10.9) == []
    assert sw.sweep(active.__getitem__, closed.append, 10.0, now=11.0) == ["b"]
    assert closed == ["b"] and sw.sessions() == ["a"]
    assert sw.sweep(active.__getitem__, closed.append, 10.0, now=30.0) == []  # forgotten
    # a session back within the grace period (a reconnect) starts its count again
    active["a"] = False
    sw.sweep(active.__getitem__, closed.append, 10.0, now=31.0)
    active["a"] = True
    sw.sweep(active.__getitem__, closed.append, 10.0, now=35.0)
    active["a"] = False
    assert sw.sweep(active.__getitem__, closed.append, 10.0, now=42.0) == []
    assert sw.sweep(active.__getitem__, closed.append, 10.0, now=52.0) == ["a"]


def test_beats_after_a_close_collect_and_trim_and_a_failing_close_is_skipped() -> None:
    sw = SessionSweeper()
    trims: list[int] = []
    sw.seen("x")
    sw.seen("y")

    def close(s: str) -> None:
        if s == "x":
            raise KeyError(s)  # Streamlit no longer knows it

    gone = lambda s: False  # noqa: E731
    sw.beat(gone, close, 0.0, trim=lambda: trims.append(1))  # first seen gone
    assert trims == []
    assert sorted(sw.beat(gone, close, 0.0, trim=lambda: trims.append(1))) == ["x", "y"]
    for _ in range(5):
        sw.beat(gone, close, 0.0, trim=lambda: trims.append(1))
    assert len(trims) == SessionSweeper.TRIM_BEATS


def test_each_close_is_a_line_of_the_sweep_log(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``REGRET_LAB_SWEEP_LOG`` set, each session a beat closes is one line of that file
    (the browser tests wait on it); a beat closing none writes nothing, and a log that cannot
    be written leaves the sweep going."""
    log = tmp_path / "sweep.log"
    monkeypatch.setenv(SWEEP_LOG_ENV, str(log))
    sw = SessionSweeper()
    active = {"a": True, "b": False, "c": False}
    for s in active:
        sw.seen(s)
    assert sw.beat(active.__getitem__, lambda s: None, 0.0, trim=lambda: None) == []
    assert not log.exists()  # seen gone, not closed yet
    assert sorted(sw.beat(active.__getitem__, lambda s: None, 0.0, trim=lambda: None)) == [
        "b",
        "c",
    ]
    assert sorted(log.read_text().splitlines()) == ["closed b", "closed c"]
    active["a"] = False
    monkeypatch.setenv(SWEEP_LOG_ENV, str(tmp_path / "no such folder" / "sweep.log"))
    sw.beat(active.__getitem__, lambda s: None, 0.0, trim=lambda: None)
    assert sw.beat(active.__getitem__, lambda s: None, 0.0, trim=lambda: None) == ["a"]
    assert sorted(log.read_text().splitlines()) == ["closed b", "closed c"]


class _Drill:
    """Stands for a Practice drill: the game and a strategy, in a reference cycle."""

    def __init__(self, game: object, sigma: np.ndarray) -> None:
        self.game = game
        self.sigma = sigma
        self.me = self


def test_a_closed_sessions_solve_table_baseline_and_drill_are_freed() -> None:
    game = build_holdem(
        HoldemSpec(
            board="Td9d6hQc",
            pot=200,
            stack=900,
            oop_range="AA,KK,T9s,87s",
            ip_range="QQ,JJ,AKs,98s",
            bets="50%, a",
            raises="a",
        )
    )
    registry = JobRegistry()
    job = SolveJob(game, make_rule("dcfr"), max_iterations=6).start()
    registry.add("tab", job)
    job.wait_for(lambda p: p.finished, timeout=120)
    job.join(60)
    table = job.node_table(timeout=120)
    assert table is not None
    avg, _ = job.average_strategy()
    # what the tab's session keeps beside the job
    sessions: dict[str, dict] = {
        "tab": {
            "job": job,
            "lock_baseline": np.array(avg),
            "drill": _Drill(game, np.array(avg)),
            "explore_cache": (table.sigma.shape, table.values[0][:1].copy()),
        }
    }
    watch = [weakref.ref(x) for x in (game, table, sessions["tab"]["drill"])]
    watch.append(weakref.ref(sessions["tab"]["lock_baseline"]))
    del table, avg, game
    sw = SessionSweeper()
    sw.seen("tab")
    active = {"tab": False}  # the tab is closed

    def close(s: str) -> None:
        sessions.pop(s, None)

    for now in (0.0, 5.0, 10.0, 11.0):  # the reaper and the sweeper beat side by side
        registry.reap(active.__getitem__, 10.0, now=now)
        for s in sw.sweep(active.__getitem__, close, 10.0, now=now):
            assert s == "tab"
    assert sessions == {}
    assert job.released and job.node_table() is None
    del job
    gc.collect()  # (the drill's cycle: the sweeper's trim collects it)
    assert [w() is None for w in watch] == [True] * len(watch)


class _State:
    """Stands for Streamlit's SessionState: keys, and widgets' callback arguments."""

    def __init__(self, held: object) -> None:
        self.keys = {"job": held}
        self._new_widget_state = type("W", (), {})()
        self._new_widget_state.widget_metadata = {"btn": ("args", held)}

    def clear(self) -> None:
        self.keys.clear()


class _Safe:
    """Stands for Streamlit's SafeSessionState: the state behind a lock."""

    def __init__(self, state: _State) -> None:
        import threading

        self._state = state
        self._lock = threading.RLock()


def test_a_closed_sessions_state_is_emptied_though_its_shell_is_kept() -> None:
    """Streamlit's runtime loop may keep the last session it served after it is shut down;
    the sweeper empties its state (keys and callback arguments) so what it held goes."""
    big = np.zeros(1000)
    safe = _Safe(_State(big))
    shell = [safe]  # the session object someone still holds
    sw = SessionSweeper()
    sw.seen("tab", safe)
    gone = lambda s: False  # noqa: E731
    sw.sweep(gone, lambda s: None, 1.0, now=0.0)
    assert sw.sweep(gone, lambda s: None, 1.0, now=2.0) == ["tab"]
    assert safe._state.keys == {}
    assert safe._state._new_widget_state.widget_metadata == {}
    ref = weakref.ref(big)
    del big
    assert ref() is None and shell  # freed, the shell still there
    empty_session_state(object())  # not a session state: nothing done


def test_the_state_behind_a_runs_wrapper_is_emptied_after_the_wrapper_is_gone() -> None:
    """Each page run has its own SafeSessionState around the session's one SessionState: the
    sweeper keeps (weakly) the state, so the close empties it though the wrapper it was shown
    is long gone."""
    big = np.zeros(1000)
    inner = _State(big)
    session = [inner]  # Streamlit's session object keeps the state, not the run's wrapper
    sw = SessionSweeper()
    sw.seen("tab", _Safe(inner))  # that run's wrapper goes at once
    gc.collect()
    gone = lambda s: False  # noqa: E731
    sw.sweep(gone, lambda s: None, 1.0, now=0.0)
    assert sw.sweep(gone, lambda s: None, 1.0, now=2.0) == ["tab"]
    assert inner.keys == {} and inner._new_widget_state.widget_metadata == {}
    ref = weakref.ref(big)
    del big
    assert ref() is None and session


def test_what_a_late_page_run_writes_back_is_emptied_on_the_next_beats() -> None:
    """A run still going when the tab closed may write its keys (a drill) after the close:
    the following beats empty the closed state again, and collect and trim meanwhile."""
    inner = _State(np.zeros(10))
    safe = _Safe(inner)
    sw = SessionSweeper()
    sw.seen("tab", safe)
    trims: list[int] = []
    gone = lambda s: False  # noqa: E731
    sw.beat(gone, lambda s: None, 0.0, trim=lambda: trims.append(1))  # first seen gone
    assert sw.beat(gone, lambda s: None, 0.0, trim=lambda: trims.append(1)) == ["tab"]
    assert inner.keys == {}
    late = np.zeros(1000)
    inner.keys["drill"] = late  # the late run's write
    ref = weakref.ref(late)
    del late
    sw.beat(gone, lambda s: None, 0.0, trim=lambda: trims.append(1))
    assert inner.keys == {} and ref() is None
    for _ in range(SessionSweeper.EMPTY_BEATS + 2):
        sw.beat(gone, lambda s: None, 0.0, trim=lambda: trims.append(1))
    n = len(trims)
    sw.beat(gone, lambda s: None, 0.0, trim=lambda: trims.append(1))
    assert len(trims) == n  # watched for a while, then let go: no more trims
