"""AppTest: how much the exploit risks (issue 48 item 3), under the profile's readback in
Explore: the time is stated before anything starts; the risk curve runs in the background
and its table equals the API's (solver.study.robust.robust_curve on the same solves); the
chart is drawn; the slider's one p runs one point."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
from app_helpers import finished_job, no_threads_left, page, poll, preset_game
from streamlit.testing.v1 import AppTest

from app import state
from app.components.robust_figure import risk_figure, risk_frame
from app.features import profile_editor as pe
from app.features import robust_view as rv
from app.features.robust_job import DONE, RobustJob
from solver.api import SolveResult, measure
from solver.study.robust import CURVE_PS, RobustPoint, robust_curve


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def _profiled() -> tuple[AppTest, pe.Applied]:
    game, source = preset_game("srp-river")
    job = finished_job(game, 40)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    at.radio(key=state.STUDY_VIEW).set_value("Best response").run()
    at.text_input(key=pe.value_key("fold_to_cbet")).set_value("70").run()
    at.button(key=pe.K + "apply").click().run()
    run = at.session_state[pe.RUN]
    assert isinstance(run, pe.Applied) and run.base is job.engine  # the solve before
    run.job.wait_for(lambda q: q.finished, timeout=60)
    poll(at, lambda: any("How much the exploit risks" in m.value for m in at.markdown), 60)
    assert not at.exception
    return at, run


def _table(at: AppTest) -> pd.DataFrame | None:
    for d in at.dataframe:
        if "exploitability (chips)" in d.value.columns:
            return d.value
    return None


def test_risk_curve_flow() -> None:
    at, run = _profiled()
    # the time is said before it starts, and nothing runs yet
    said = [c.value for c in at.caption if "the curve: " in c.value]
    assert said and "about 0 s" not in said[0] and "0.00 s" not in said[0], said
    assert rv.JOB not in at.session_state or at.session_state[rv.JOB] is None
    at.button(key=rv.K + "curve").click().run()
    job = at.session_state[rv.JOB]
    assert isinstance(job, RobustJob) and job.request.ps == CURVE_PS
    assert job.request.base is run.base and job.owner is run.job
    job.wait_for(lambda q: q.finished, timeout=180)
    assert job.progress.state == DONE, job.progress.error
    poll(at, lambda: (t := _table(at)) is not None and len(t) == 5, timeout=60)
    df = _table(at)
    assert df is not None and list(df["p"]) == list(CURVE_PS)
    assert len(at.get("plotly_chart")) >= 1
    # the same numbers from the API on the same solves
    r = job.request
    base = SolveResult(r.base.game, r.base.rule, r.base)
    base.history.append(measure(r.base, 0.0))
    want = robust_curve(base, r.fixed, CURVE_PS, exploiter=r.exploiter,
                        iterations=r.iterations, target=r.target)  # fmt: skip
    assert r.exploiter == 0  # the profile is IP's: OOP exploits
    for col, attr in [("exploitation (chips)", "exploitation_chips"),
                      ("exploitability (chips)", "exploitability_chips")]:  # fmt: skip
        np.testing.assert_allclose(
            df[col], [getattr(p, attr) for p in want.points], rtol=1e-9, atol=1e-9
        )
    # the read is worth more, and risks more, the more it is trusted
    assert df["exploitation (chips)"].iloc[-1] > df["exploitation (chips)"].iloc[0]
    assert df["exploitability (chips)"].iloc[-1] > df["exploitability (chips)"].iloc[0]
    assert not at.exception


def test_one_p_from_the_slider() -> None:
    at, _ = _profiled()
    at.slider(key=rv.P_KEY).set_value(0.75).run()
    at.button(key=rv.K + "one").click().run()
    job = at.session_state[rv.JOB]
    assert isinstance(job, RobustJob) and job.request.ps == (0.75,)
    job.wait_for(lambda q: q.finished, timeout=120)
    poll(at, lambda: (t := _table(at)) is not None and len(t) == 1, timeout=60)
    df = _table(at)
    assert df is not None and list(df["p"]) == [0.75]
    assert not at.exception


def test_the_estimate_in_words() -> None:
    """No "about 0 s" for a fast spot, minutes for a slow one; "up to" when a target may
    stop a point sooner; the basis named, or said missing when the solve ran no iteration."""
    assert rv.about(0.4) == "under a second"
    assert rv.about(12.4) == "about 12 s"
    assert rv.about(600.0) == "about 10 min"
    assert rv.seconds_text(0.004) == "under 0.01 s"
    assert rv.seconds_text(0.35) == "0.35 s"
    text = rv.estimate_text(0.3, 1.5, 88, True, 0.04, 10)
    assert text.startswith("One point: under a second; the curve: about 2 s (up to 88 ")
    assert "10 iterations in 0.04 s" in text
    assert "up to" not in rv.estimate_text(3.0, 15.0, 88, False, 2.0, 88)
    assert "rough guess" in rv.estimate_text(0.3, 1.5, 88, True, 0.004, 0)


def _points(n: int) -> list[RobustPoint]:
    return [
        RobustPoint(
            p=p,
            exploiter=0,
            iterations=10,
            ev_vs_profile=1.0,
            exploitation_chips=2.0 * p,
            exploitation_pct_pot=p,
            exploitability_chips=4.0 * p,
            exploitability_pct_pot=2.0 * p,
            value=0.0,
            error_chips=0.1,
            seconds=0.01,
            strategy=np.zeros(1),
        )
        for p in np.linspace(0.0, 1.0, n)
    ]


def test_the_chart_labels_each_p_once() -> None:
    """Hover says "p=0.25", not "p=p=0.25", with the axes' unit; neighbouring labels sit on
    opposite sides of their markers (points near the origin nearly coincide)."""
    fig = risk_figure(_points(5))
    trace = fig.data[0]
    hover = trace.hovertemplate.replace("%{text}", trace.text[1])
    assert hover.count("p=") == 1 and hover.startswith("p=0.25<br>"), hover
    assert "% pot" in hover
    sides = list(trace.textposition)
    assert len(sides) == 5 and all(a != b for a, b in itertools.pairwise(sides))


def test_the_risk_table_rounds_for_reading() -> None:
    """The table's shown formats cover its numeric columns (the frame keeps every digit)."""
    frame = risk_frame(_points(3))
    assert set(rv.FORMATS) == set(frame.columns) - {"iterations"}
    assert frame["exploitation (chips)"].iloc[1] == 1.0  # exact values underneath
