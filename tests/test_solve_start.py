"""AppTest: Solve on a big spot answers at once (issue 44). Building a flop's game and
allocating its solver take seconds; they run in the background (solver/run/jobs.py's
JobStarter) while the page says what is happening, and the job starts when it is made. A game
build held back by a gate stands in for a slow flop."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from app_helpers import app, no_threads_left, poll
from streamlit.testing.v1 import AppTest

import app.screens.solve as solve_screen
from app import spec as S
from app import state
from solver.run.jobs import JobStarter, SolveJob


@pytest.fixture
def gate(monkeypatch: pytest.MonkeyPatch) -> Iterator[threading.Event]:
    """Every spot builds in the background; a game build waits for the gate."""
    opened = threading.Event()
    real = S.build_game

    def slow(source: dict) -> object:
        assert opened.wait(60)
        return real(source)

    monkeypatch.setattr(solve_screen, "BACKGROUND_MB", 0.0)
    monkeypatch.setattr(S, "build_game", slow)
    yield opened
    opened.set()
    no_threads_left()


def _job(at: AppTest) -> SolveJob | None:
    return at.session_state[state.JOB] if state.JOB in at.session_state else None  # noqa: SIM401


def test_the_page_says_the_solve_is_starting_before_the_game_is_built(
    gate: threading.Event,
) -> None:
    at = app()
    at.run()
    at.text_input(key=state.MAX_ITERATIONS).set_value("20")
    at.button(key="btn_solve").click().run()  # returns with the build still held back
    assert not at.exception
    assert _job(at) is None
    said = " ".join(i.value for i in at.info)
    assert "Starting** — building the game tree" in said
    assert at.button(key="btn_solve").disabled and not at.button(key="btn_stop").disabled
    gate.set()
    poll(at, lambda: _job(at) is not None, timeout=60)  # the live view starts the job
    job = _job(at)
    assert job is not None
    job.wait_for(lambda p: p.finished, timeout=60)
    at.run()
    assert job.progress.iteration == 20 and not at.exception
    assert not at.button(key="btn_solve").disabled


def test_stop_while_starting_drops_the_solve(gate: threading.Event) -> None:
    at = app()
    at.run()
    at.button(key="btn_solve").click().run()
    made = at.session_state[state.STARTING][0]
    assert isinstance(made, JobStarter)
    at.button(key="btn_stop").click().run()
    assert at.session_state[state.STARTING] is None
    gate.set()
    assert made.join(60)
    at.run()
    assert made.job is None and _job(at) is None  # made, then dropped: never started
    assert not at.button(key="btn_solve").disabled


def test_a_starter_keeps_the_error_a_make_raises() -> None:
    def make(say: Callable[[str], None]) -> SolveJob:
        say("building the game tree")
        raise ValueError("stack: must be > 0")

    s = JobStarter(make).start()
    assert s.join(10)
    assert s.done and s.job is None and s.error == "stack: must be > 0"
    assert s.phase == "building the game tree"
