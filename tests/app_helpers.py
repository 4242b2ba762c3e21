"""Shared helpers of the AppTest page tests."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

from streamlit.testing.v1 import AppTest

from solver import Game, make_rule
from solver.run.jobs import SolveJob, live_jobs, stop_all

MAIN = str(Path(__file__).resolve().parent.parent / "app" / "main.py")


def app(**state: object) -> AppTest:
    """The whole app (it opens on the Solve page) with ``state`` preset."""
    at = AppTest.from_file(MAIN, default_timeout=60)
    for k, v in state.items():
        at.session_state[k] = v
    return at


def page(module: str, **state: object) -> AppTest:
    """One page's ``render()`` on its own, with ``state`` preset."""

    def script(module: str) -> None:
        import importlib

        from app import nav, pages

        nav.use(pages.build())  # as main.py does: the screens' links need the pages
        importlib.import_module(f"app.screens.{module}").render()

    at = AppTest.from_function(script, default_timeout=60, kwargs={"module": module})
    for k, v in state.items():
        at.session_state[k] = v
    return at


def poll(at: AppTest, done: Callable[[], bool], timeout: float = 30.0) -> None:
    """Rerun ``at`` until ``done()`` (run_every never fires under AppTest)."""
    deadline = time.monotonic() + timeout
    while not done():
        if time.monotonic() > deadline:
            raise TimeoutError("condition not reached")
        time.sleep(0.05)
        at.run()


def no_threads_left() -> None:
    """Tear-down: stop whatever solves a test left and wait for their threads. AppTest cannot
    end a session, so this says nothing about the app ending its own solves (a real server
    does: ``tests/browser/test_app_sessions.py``, closed tabs' solves end after the grace
    period)."""
    stop_all("test")
    assert live_jobs() == []


@functools.cache
def preset_game(key: str) -> tuple[Game, dict]:
    """A hold'em preset's game (built once per test session) and its game-source metadata."""
    from dataclasses import asdict

    from solver.files.presets import load_preset

    p = load_preset(key)
    assert p.holdem is not None
    return p.build(), {"kind": "holdem", "spec": asdict(p.holdem)}


def finished_job(game: Game, iterations: int, rule: str = "dcfr") -> SolveJob:
    """A background solve of ``game`` run to ``iterations`` and finished."""
    job = SolveJob(game, make_rule(rule), max_iterations=iterations).start()
    job.wait_for(lambda q: q.finished, timeout=60)
    return job


def stroke(at: AppTest, key: str, cells: list[str]) -> AppTest:
    """Rerun ``at`` as the browser does when a brush stroke over ``cells`` ends on the paint
    canvas keyed ``key`` (:mod:`app.components.paint_canvas`): its ``stroke`` trigger value
    sent beside the other widgets' values. AppTest has no setter for a ``st.components.v2``
    component, so the trigger goes in as the frontend sends it (one JSON list of events)."""
    import json

    from streamlit.components.v2.bidi_component.constants import EVENT_DELIM
    from streamlit.runtime.state.session_state import STREAMLIT_INTERNAL_KEY_PREFIX

    (canvas,) = [
        e
        for e in at.get("bidi_component")
        if e.proto.component_name == "regret_lab.paint_canvas" and e.proto.id.endswith(f"-{key}")
    ]
    states = at._tree.get_widget_states()
    trigger = states.widgets.add()
    trigger.id = f"{STREAMLIT_INTERNAL_KEY_PREFIX}_{canvas.proto.id}{EVENT_DELIM}events"
    trigger.json_trigger_value = json.dumps([{"event": "stroke", "value": cells}])
    return at._run(states)
