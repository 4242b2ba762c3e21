"""How much the exploit risks, under the profile's readback in Explore (issue 48 item 3;
docs/exploit.md): the restricted Nash response against the profiled opponent — a p slider
for one point, or the risk curve for p = 0, .25, .5, .75, 1 with its time estimated before
it starts (scaled from the profiled solve's own time) — run in the background
(:mod:`app.features.robust_job`), then exploitation against exploitability with p labelled
and the numbers in a table. Every number is :func:`solver.study.robust.robust_curve`'s."""

from __future__ import annotations

from typing import Any

import numpy as np
import streamlit as st

from app import state
from app.components import number_formats as NF
from app.components.names import player_name
from app.components.robust_figure import risk_figure, risk_frame
from app.features.controls import live_view
from app.features.robust_job import DONE, FAILED, RobustJob, RobustRequest
from app.jobs import stop_job
from app.runtime import registry, session_id
from solver.games.model import Game
from solver.study.profiles import locked_sigma
from solver.study.robust import CURVE_PS, estimate_seconds, exploiter_of

K = "rnr_"
P_KEY = K + "p"  # slider: the one p of "Compute at this p"
JOB = K + "job"  # the session's RobustJob (or None)
LAST_STATE = K + "last_state"  # the job state the view last drew for
TABLE_KEY = K + "table"
FORMATS = {  # the risk table's columns as shown (the frame keeps every digit)
    "p": "%g",
    "exploitation (chips)": NF.CHIPS,
    "exploitation (% pot)": "%.2f",
    "exploitability (chips)": NF.CHIPS,
    "exploitability (% pot)": "%.2f",
    "± (chips)": NF.CHIPS,
    "seconds": "%.2f",
}


def current_job() -> RobustJob | None:
    job = state.get(JOB)
    return job if isinstance(job, RobustJob) else None


def _plan(run: Any) -> tuple[int, float | None, float, int, float]:
    """(iterations per point, target chips, seconds per iteration measured, threads,
    seconds measured) from the profiled solve (``run``: the profile editor's Applied)."""
    p = run.job.progress
    its = max(int(p.iteration), int(run.base.iteration), 1)
    per = float(p.elapsed_s) / max(int(p.iteration), 1)
    return its, (run.job.target or None), per, int(run.job.engine.threads), float(p.elapsed_s)


def about(seconds: float) -> str:
    """A time estimate in words: "under a second", "about 12 s", "about 3 min"."""
    if seconds < 1.0:
        return "under a second"
    if seconds < 120.0:
        return f"about {seconds:,.0f} s"
    return f"about {seconds / 60.0:,.0f} min"


def seconds_text(seconds: float) -> str:
    """A measured time: "0.35 s", "12.4 s", "under 0.01 s" (not "0.00 s")."""
    if seconds < 0.01:
        return "under 0.01 s"
    return f"{seconds:,.2f} s" if seconds < 10 else f"{seconds:,.1f} s"


def estimate_text(
    one: float, curve: float, its: int, target: bool, measured: float, ran: int
) -> str:
    """What one point and the five-point curve take (seconds ``one``, ``curve``), said
    before they start: ``its`` iterations a point (at most, when a ``target`` stops a
    point sooner), scaled from the profiled solve's ``ran`` iterations in ``measured``
    seconds."""
    per_point = f"up to {its:,} iterations a point" if target else f"{its:,} iterations a point"
    basis = (
        f"scaled from the profiled solve's {ran:,} iteration{'s' if ran != 1 else ''} in "
        f"{seconds_text(measured)} — good to a factor of two"
        if ran > 0
        else "a rough guess: the profiled solve ran no iteration, its target was met already"
    )
    return (
        f"One point: {about(one)}; the curve: {about(curve)} ({per_point}, one thread, warm; "
        f"{basis})."
    )


def _start(game: Game, run: Any, ps: tuple[float, ...]) -> None:
    """Start the points ``ps`` (a callback: before the page draws)."""
    stop_job(current_job(), 5.0)
    average, _ = run.job.average_strategy()
    fixed = locked_sigma(game, np.asarray(average), run.job.engine.lockset)
    its, target, _, _, _ = _plan(run)
    request = RobustRequest(run.base, np.array(fixed), exploiter_of(run.profile.player),
                            tuple(float(p) for p in ps), its, target)  # fmt: skip
    job = RobustJob(request, owner=run.job)
    registry().add(session_id(), job)  # ended like a solve when no page watches it
    state.put(JOB, job.start())
    state.put(LAST_STATE, None)


def _stop() -> None:
    stop_job(current_job(), 5.0)


def render(game: Game, run: Any) -> None:
    """The panel for a finished profile re-solve ``run`` (its ``base``: the solve before)."""
    if getattr(run, "base", None) is None:
        return
    e = exploiter_of(run.profile.player)
    st.markdown("**How much the exploit risks** (restricted Nash response)")
    st.caption(
        f"{player_name(game, e)} plays against an opponent who follows the profile with "
        "probability p and plays its best otherwise: p = 0 is the equilibrium, p = 1 the "
        "best response to the profile. Exploitation is what it wins against the profile "
        "beyond the game's value, exploitability what a best response takes back "
        "(docs/exploit.md)."
    )
    its, target, per, threads, measured = _plan(run)
    one = estimate_seconds(per, threads, its, 1)
    curve = estimate_seconds(per, threads, its, len(CURVE_PS))
    c = st.columns([3, 2])
    c[0].slider("p: how far to trust the read", 0.0, 1.0, 0.5, 0.05, key=P_KEY)
    p = float(state.get(P_KEY) if state.get(P_KEY) is not None else 0.5)
    job = current_job()
    busy = job is not None and job.alive
    c[1].button("Compute at this p", key=K + "one", on_click=_start, args=(game, run, (p,)),
                disabled=busy)  # fmt: skip
    st.button(
        "Compute the risk curve (p = 0, 0.25, 0.5, 0.75, 1)",
        key=K + "curve",
        on_click=_start,
        args=(game, run, CURVE_PS),
        disabled=busy,
        type="primary",
    )
    ran = int(run.job.progress.iteration)
    st.caption(estimate_text(one, curve, its, target is not None, measured, ran))
    if job is not None and job.owner is run.job:
        live_view(_live, working=not job.progress.finished)


def _live() -> None:
    job = current_job()
    if job is None:
        return
    p = job.snapshot()
    if p.finished and state.get(LAST_STATE) != p.state:
        state.put(LAST_STATE, p.state)
        st.rerun()  # whole page, once: flip the buttons
    total = len(job.request.ps)
    if not p.finished:
        c = st.columns([4, 1])
        c[0].progress(min(0.99, len(p.points) / total),
                      text=f"{len(p.points)} of {total} points · {p.elapsed_s:.0f} s")  # fmt: skip
        c[1].button("Stop", key=K + "stop", on_click=_stop)
    if p.state == FAILED:
        st.error(f"The run failed: {p.error}", icon=":material/error:")
    elif p.finished and p.state != DONE:
        st.warning("Stopped.", icon=":material/info:")
    if not p.points:
        return
    if len(p.points) > 1:
        st.plotly_chart(risk_figure(list(p.points)), key=K + "chart")
    st.dataframe(
        risk_frame(list(p.points)),
        hide_index=True,
        key=TABLE_KEY,
        column_config={c: st.column_config.NumberColumn(format=f) for c, f in FORMATS.items()},
    )
    if p.curve is not None:
        cv = p.curve
        st.caption(
            f"Measured from the game's value {cv.value_estimate:.3f} chips, itself known to "
            f"± {cv.error_value:.3f} (the solve's exploitability); ± per point: its solve's "
            f"distance from the restricted equilibrium. The best response to the profile "
            f"earns {cv.best_response:.3f} chips."
        )
