"""Chart by stack: solve heads-up push/fold at every stack of a range in one click (a background
job, :mod:`app.features.stack_chart`) and show per hand class the largest stack at which
the SB still shoves and the BB still calls — the classic Nash push/fold chart
(docs/preflop.md, "The chart by stack"). The page never waits for the solves: a fragment
shows their progress.

The job ends as a solve does: on Stop, or once no open page has watched it for
:data:`app.runtime.GRACE_S` seconds. Started, it gets a token that the page URL carries
(``?chart=…``); a reloaded page (a new session) takes the job back with it, with the fields
it was started with."""

from __future__ import annotations

import secrets

import streamlit as st

from app import kernels, state
from app.components.fields import Number
from app.components.stack_chart_view import chart_csv, stack_chart_figure
from app.features.controls import live_view
from app.features.number_fields import number_field, read
from app.features.stack_chart import DONE, FAILED, STOPPED, ChartJob, stack_list
from app.jobs import stop_job
from app.runtime import GRACE_S, registry, session_id
from solver.games.spec import SpecError

GRID_FIELDS = {"first": "From (bb)", "last": "To (bb)", "step": "Step (bb)"}
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
    stacks: list[float] = []
    if not errors:
        try:
            stacks = stack_list(first, last, values[state.CHART_STEP])
        except SpecError as exc:  # too many stacks for the step: counted before made
            errors.append(f"{GRID_FIELDS.get(exc.field, exc.field)}: {exc.message}.")
    return stacks, values[state.CHART_ANTE], values[state.CHART_TARGET] / 1000.0, errors


def render() -> None:
    _reattach()
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
    ended = state.get(state.CHART_ENDED)
    if ended:
        st.info(str(ended), icon=":material/info:")
    for err in errors:
        st.error(err, icon=":material/error:")
    if not errors and not running:
        st.caption(f"{len(stacks)} stacks: {stacks[0]:g} to {stacks[-1]:g} bb.")
    live_view(_live, running)


URL_KEY = "chart"  # query parameter holding the session's chart token


def _show_token() -> None:
    """Keep the session chart's token in the page URL (a page switch may drop it)."""
    token = state.get(state.CHART_TOKEN)
    if token and st.query_params.get(URL_KEY) != token:
        st.query_params[URL_KEY] = token


def _reattach() -> None:
    """On a session's first look at this page: take back the chart job whose token is in the
    URL (a reload, or the URL in another tab: this session then watches it too), with the
    fields it was started with. A token whose job is gone is dropped with a note."""
    if current_job() is not None:
        _show_token()
        return
    token = st.query_params.get(URL_KEY)
    if not token:
        return
    found = registry().attach(str(token), session_id())
    if found is None or not isinstance(found[0], ChartJob):
        del st.query_params[URL_KEY]
        state.put(
            state.CHART_ENDED,
            "The chart this page was solving has ended: its page was closed for longer than "
            f"{GRACE_S:g} s, or the server restarted.",
        )
        return
    for key, value in found[1].get("fields", {}).items():
        state.put(key, value)
    state.put(state.CHART_JOB, found[0])
    state.put(state.CHART_TOKEN, str(token))
    state.put(state.CHART_LAST_STATE, found[0].snapshot().state)


def _start() -> None:
    stacks, ante, target, errors = read_fields()
    if errors:
        return
    stop_job(current_job(), 5.0)
    ready = kernels.warmup().events["opening"]  # (push/fold solves run its kernels)
    job = ChartJob(stacks, ante, target, ready=ready)
    token = secrets.token_urlsafe(9)
    fields = {key: state.get(key) for key in FIELDS}
    # the registry ends it like a solve: when no page has watched it for the grace period
    registry().add(session_id(), job, token=token, context={"fields": fields})
    state.put(state.CHART_JOB, job.start())
    state.put(state.CHART_TOKEN, token)
    state.put(state.CHART_ENDED, None)
    state.put(state.CHART_LAST_STATE, None)
    _show_token()


def _stop() -> None:
    stop_job(current_job(), 5.0)


def _live() -> None:
    job = current_job()
    if job is None:
        st.info("Press **Solve the chart** to start. The solves run in the background.")
        return
    p = job.snapshot()
    if p.finished and state.get(state.CHART_LAST_STATE) != p.state:
        state.put(state.CHART_LAST_STATE, p.state)
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
