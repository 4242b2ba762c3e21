"""AppTest: Explore's sizes view (issue 47) runs :func:`solver.study.sizes.simplify_sizes` in
the background and shows its certificate and a chart per node; bad fields are named and
start nothing."""

from __future__ import annotations

from dataclasses import asdict, replace

import pytest
from app_helpers import finished_job, no_threads_left, page, poll
from sizes_helpers import GRID, SPEC
from streamlit.testing.v1 import AppTest

from app import state
from app.features import sizes_view
from solver.games.holdem import build_holdem
from solver.study.sizes import simplify_sizes


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def _open() -> AppTest:
    job = finished_job(build_holdem(SPEC), 20)
    source = {"kind": "holdem", "spec": asdict(SPEC)}
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.JOB_SPEC: SPEC,
                            state.EXPLORE_NODE: 0})  # fmt: skip
    at.run()
    assert not at.exception
    return at


def test_the_view_runs_and_shows_the_certificate() -> None:
    at = _open()
    at.text_input(key=sizes_view.GRID).set_value(GRID)
    at.selectbox(key=sizes_view.PLAYER).set_value("ip")
    at.selectbox(key=sizes_view.NODES_KEY).set_value("root")
    at.number_input(key=sizes_view.KEEP).set_value(1)
    at.run()
    assert not at.exception
    estimate = " ".join(c.value for c in at.caption)
    assert "The superset tree:" in estimate and "warm re-solves" in estimate
    at.button(key="sz_start").click().run()
    job = at.session_state[sizes_view.JOB]
    poll(at, lambda: not job.alive, timeout=60)
    at.run()
    assert not at.exception
    result = job.snapshot().results[0]
    want = simplify_sizes(SPEC, GRID, player="ip", nodes="root", keep=1,
                          target=0.05 / 100 * 200)  # fmt: skip
    assert result.kept == want.kept and result.loss_chips == pytest.approx(want.loss_chips)
    words = " ".join(m.value for m in at.markdown)
    assert "IP keeps" in words and f"{result.loss_pct_pot:.3f} % of the pot" in words
    charts = [c for c in at.get("plotly_chart") if "sz_chart_ip_k" in c.proto.id]
    assert len(charts) == 1


def test_a_bad_grid_is_named_and_starts_nothing() -> None:
    at = _open()
    at.text_input(key=sizes_view.GRID).set_value("33%, 2x")
    at.run()
    assert any("Grid:" in e.value and "2x" in e.value for e in at.error)
    assert at.button(key="sz_start").disabled
    at.text_input(key=sizes_view.GRID).set_value(GRID)
    at.number_input(key=sizes_view.KEEP).set_value(5)
    at.run()
    assert any("Keep:" in e.value for e in at.error)
    assert sizes_view.JOB not in at.session_state  # nothing started


def test_a_superset_past_the_memory_cap_is_refused_before_it_starts() -> None:
    at = _open()
    at.session_state[state.JOB_SPEC] = replace(SPEC, max_memory_mb=0.01)
    at.run()
    assert any("too large" in e.value for e in at.error)
    assert at.button(key="sz_start").disabled
