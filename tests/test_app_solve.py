"""AppTest: the Solve page (the app's default page) drives a background solve and shows its
numbers; buttons follow the job's state; no thread is left behind."""

from __future__ import annotations

import json

import pytest
from app_helpers import app, no_threads_left, poll

from app import state
from solver import exploitability


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def test_opens_on_a_preset_with_solve_enabled() -> None:
    at = app()
    at.run()
    assert not at.exception
    assert at.title[0].value == "Solve"
    assert "SRP river" in at.markdown[0].value
    assert not at.button(key="btn_solve").disabled
    assert at.button(key="btn_pause").disabled and at.button(key="btn_stop").disabled
    assert at.selectbox(key=state.ALGORITHM).value == "dcfr"
    assert [n.label for n in at.number_input][:3] == ["alpha", "beta", "gamma"]


def test_tiny_leduc_solve_shows_its_numbers() -> None:
    at = app(**{state.SOURCE: "preset:leduc"})
    at.run()
    at.number_input(key=state.MAX_ITERATIONS).set_value(300)
    at.number_input(key=state.TARGET).set_value(0.0)
    at.selectbox(key=state.ALGORITHM).set_value("cfr+").run()
    at.button(key="btn_solve").click().run()
    assert not at.exception
    job = at.session_state[state.JOB]
    poll(at, lambda: job.progress.finished)
    at.run()
    p = job.progress
    assert p.iteration == 300 and p.state == "done"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Iteration"] == "300"
    assert metrics["Exploitability (chips)"] == format(p.exploitability, ".4g")
    assert float(metrics["Exploitability (chips)"]) == pytest.approx(
        exploitability(job.game, job.engine.average_strategy()), rel=1e-3
    )
    curve = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert curve["data"][0]["x"] == [pt.iteration for pt in p.history]
    assert job.rule.name == "cfr+"
    # the live per-card table of the watched node (Leduc root, player 0's six cards)
    table = at.dataframe[0].value
    assert list(table["card"]) == job.game.hand_names[0]
    assert not at.button(key="btn_solve").disabled


def test_pause_resume_stop_buttons() -> None:
    at = app(**{state.SOURCE: "preset:leduc"})
    at.run()
    at.number_input(key=state.MAX_ITERATIONS).set_value(10**8)
    at.number_input(key=state.TARGET).set_value(0.0)
    at.button(key="btn_solve").click().run()
    job = at.session_state[state.JOB]
    assert at.button(key="btn_solve").disabled and not at.button(key="btn_stop").disabled
    at.button(key="btn_pause").click().run()
    assert job.progress.state == "paused"
    at.button(key="btn_resume").click().run()
    assert job.progress.state == "running"
    at.button(key="btn_stop").click().run()
    assert job.progress.state == "stopped" and not job.alive
    assert not at.button(key="btn_solve").disabled


def test_invalid_setup_disables_solve() -> None:
    at = app()
    at.run()
    at.session_state[state.BOARD] = "Td 9d 6h Qc Td"
    at.run()
    assert at.button(key="btn_solve").disabled
    assert any("board" in e.value for e in at.error)


def test_bad_parameter_is_shown_and_blocks_solve() -> None:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    at.selectbox(key=state.ALGORITHM).set_value("cfr+").run()
    at.number_input(key=f"{state.PARAM_PREFIX}cfr+_delay").set_value(-3).run()
    assert any("delay" in e.value for e in at.error)
    assert at.button(key="btn_solve").disabled


def test_long_histories_are_thinned_for_the_curve() -> None:
    from app.components.figures import curve_figure, thin
    from solver.jobs import Point

    pts = [Point(i, 0.01 * i, 1.0 / (i + 1)) for i in range(10_000)]
    kept = thin(pts)
    assert len(kept) <= 1501 and kept[0] == pts[0] and kept[-1] == pts[-1]
    fig = curve_figure(pts)
    assert len(fig.data[0].x) == len(kept)
