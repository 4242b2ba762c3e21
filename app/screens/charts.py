"""Chart by stack: solve heads-up push/fold at every stack of a range in one click (a background
job, :mod:`app.stack_chart`) and show per hand class the largest stack at which the SB still
shoves and the BB still calls — the classic Nash push/fold chart (docs/preflop.md, "The chart
by stack"). The page never waits for the solves: a fragment shows their progress."""

from __future__ import annotations

from collections.abc import Callable

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from app import kernels, state
from app.components.controls import live_view
from app.components.fields import Number, number_field, read
from app.components.stack_chart_view import chart_csv, stack_chart_figure
from app.stack_chart import DONE, FAILED, STOPPED, ChartJob, stack_list

MAX_STACKS = 200
FIELDS = {  # widget key → (what it accepts, its default text)
    state.CHART_FROM: (Number("From (bb)", 1, 50), "1"),
    state.CHART_TO: (Number("To (bb)", 1, 50), "20"),
    state.CHART_STEP: (Number("Step (bb)", 0.1, 49), "0.5"),
    state.CHART_ANTE: (Number("Ante (bb per player)", 0, 10, note="0 = none"), "0"),
    state.CHART_TARGET: (Number("Target (mbb/hand)", 0.0001, 100), "0.001"),
}
FIELD_HELP = {
    state.CHART_STEP: "the chart's resolution: a hand's threshold is known to one step",
    state.CHART_TARGET: "each stack is solved to this exploitability (0.001 mbb/hand = "
    "1e-6 bb: thresholds settle; looser is faster)",
}


def current_job() -> ChartJob | None:
    job = state.get(state.CHART_JOB)
    return job if isinstance(job, ChartJob) else None


def read_fields() -> tuple[list[float], float, float, list[str]]:
    """(stacks in bb, ante in bb, target in bb, every problem's message naming its field)."""
    values: dict[str, float] = {}
    errors: list[str] = []
    for key, (spec, default) in FIELDS.items():
        value, error = read(spec, key, float(default))
        if error:
            errors.append(error)
        values[key] = float(value if value is not None else default)
    first, last = values[state.CHART_FROM], values[state.CHART_TO]
    if not errors and first > last:
        errors.append(f"To (bb): must be at least From ({first:g}), got {last:g}.")
    stacks = stack_list(first, last, values[state.CHART_STEP]) if not errors else []
    if len(stacks) > MAX_STACKS:
        errors.append(f"Step (bb): {len(stacks)} stacks; at most {MAX_STACKS} in one chart.")
    return stacks, values[state.CHART_ANTE], values[state.CHART_TARGET] / 1000.0, errors


def render() -> None:
    st.title("Chart by stack")
    st.caption(
        "Heads-up push/fold, full ranges, blinds 0.5/1: each stack is solved exactly (every "
        "all-in runs out over every board) and each hand class gets the largest stack at "
        "which shoving (SB) or calling (BB) is still a best response. 1 to 20 bb every 0.5 bb "
        "takes about 10 s on 2 cores."
    )
    job = current_job()
    running = job is not None and not job.snapshot().finished
    cols = st.columns(len(FIELDS) + 2, vertical_alignment="bottom")
    for col, (key, (spec, default)) in zip(cols, FIELDS.items(), strict=False):
        if state.get(key) is None:
            state.put(key, default)
        number_field(spec, key, container=col, disabled=running, help=FIELD_HELP.get(key),
                     show_error=False)  # fmt: skip
    stacks, _, _, errors = read_fields()
    cols[-2].button(
        "Solve the chart",
        key="chart_start",
        type="primary",
        disabled=running or bool(errors),
        on_click=_start,
        width="stretch",
    )
    cols[-1].button("Stop", key="chart_stop", disabled=not running, on_click=_stop, width="stretch")
    for err in errors:
        st.error(err, icon=":material/error:")
    if not errors and not running:
        st.caption(f"{len(stacks)} stacks: {stacks[0]:g} to {stacks[-1]:g} bb.")
    live_view(_live, running)


def _session_alive() -> Callable[[], bool]:
    """A check the job's thread may call: whether this browser session is still there."""
    ctx = get_script_run_ctx()
    sid = ctx.session_id if ctx is not None else None

    def alive() -> bool:
        if sid is None or not runtime.exists():
            return True  # (AppTest, bare runs: no sessions to lose)
        return bool(runtime.get_instance().is_active_session(sid))

    return alive


def _start() -> None:
    stacks, ante, target, errors = read_fields()
    if errors:
        return
    old = current_job()
    if old is not None:
        old.stop()
        old.join(5.0)
    ready = kernels.warmup().events["opening"]  # (push/fold solves run its kernels)
    job = ChartJob(stacks, ante, target, ready=ready, alive=_session_alive())
    state.put(state.CHART_JOB, job.start())
    state.put(LAST_STATE, None)


def _stop() -> None:
    job = current_job()
    if job is not None:
        job.stop()
        job.join(5.0)


LAST_STATE = "chart_last_state"  # the job state the page last drew its buttons for


def _live() -> None:
    job = current_job()
    if job is None:
        st.info("Press **Solve the chart** to start. The solves run in the background.")
        return
    p = job.snapshot()
    if p.finished and state.get(LAST_STATE) != p.state:
        state.put(LAST_STATE, p.state)
        st.rerun()  # whole page, once: flip the buttons
    if not p.finished:
        last = f", last {p.last_stack:g} bb" if p.last_stack is not None else ""
        st.progress(p.done / p.total, text=f"Solved {p.done} of {p.total} stacks{last}")
        return
    if p.state == FAILED:
        st.error(f"The chart failed: {p.error}", icon=":material/error:")
        return
    if p.state == STOPPED or p.chart is None:
        st.warning(f"Stopped after {p.done} of {p.total} stacks.", icon=":material/info:")
        return
    assert p.state == DONE
    chart = p.chart
    top = chart.stacks[-1]
    worst = float(chart.exploitability.max()) * 1000.0
    st.markdown(
        f"**Done**: {len(chart.stacks)} stacks from {chart.stacks[0]:g} to {top:g} bb, each "
        f"solved to at most {worst:.3g} mbb/hand."
    )
    sb, bb = chart.largest("SB"), chart.largest("BB")
    c = st.columns(2)
    c[0].plotly_chart(
        stack_chart_figure(sb, top, "SB shoves up to (bb)"), key="chart_sb", width="stretch"
    )
    c[1].plotly_chart(
        stack_chart_figure(bb, top, "BB calls a shove up to (bb)"), key="chart_bb", width="stretch"
    )
    st.caption(
        f"`{top:g}+`: still plays at the largest stack solved; `–`: never in this range of "
        "stacks. A hand close to indifferent may play at some stacks below its number and "
        "not at others (docs/preflop.md)."
    )
    st.download_button(
        "Chart as CSV",
        data=chart_csv(chart.stacks, sb, bb),
        file_name="push-fold-chart.csv",
        mime="text/csv",
        key="dl_stack_chart",
        on_click="ignore",
    )
