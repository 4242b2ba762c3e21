"""Solve: algorithm and parameters, target and limits, Start / Pause / Resume / Stop, and the
live view (exploitability curve, numbers, the watched node's strategy) refreshed twice a
second by a fragment while the solve runs in its background thread."""

from __future__ import annotations

import math
import os

import streamlit as st

from app import nav, state
from app import spec as S
from app.components.figures import curve_figure
from app.components.views import card_table, grid_figure, node_reach
from app.runtime import start
from app.screens.setup import Request, current_request
from solver.analysis import investments
from solver.cfr.rules import RULES, make_rule, rule_defaults
from solver.games.model import DECISION, Game
from solver.jobs import FINISHED, PAUSED, RUNNING, Progress, SolveJob, estimate_eta

DEFAULT_ALGORITHM = "dcfr"
PRECISIONS = {
    "auto": "auto (float32 for hold'em)",
    "float64": "float64",
    "float32": "float32 (half the memory)",
    "compressed": "16-bit compressed (quarter)",
}
LAST_STATE = "live_last_state"  # the job state the page last drew its buttons for


def first_decision(game: Game) -> int:
    return int(game.decision_nodes()[0])


def watched_node(game: Game) -> int:
    n = state.get(state.EXPLORE_NODE)
    if isinstance(n, int) and 0 <= n < game.num_nodes and game.tree.kind[n] == DECISION:
        return n
    return first_decision(game)


def _params(algo: str) -> dict[str, float]:
    out = {}
    for name in rule_defaults(algo):
        key = f"{state.PARAM_PREFIX}{algo}_{name}"
        out[name] = float(state.get(key, rule_defaults(algo)[name]))
    return out


def render() -> None:
    req = current_request()
    st.title("Solve")
    _summary(req)
    job = state.job()
    running = job is not None and not job.progress.finished
    if state.get(state.ALGORITHM) not in RULES:
        state.put(state.ALGORITHM, DEFAULT_ALGORITHM)
    c = st.columns([1, 2])
    with c[0]:
        algo = st.selectbox("Algorithm", list(RULES), key=state.ALGORITHM, disabled=running)
    with c[1]:
        cls = RULES[algo]
        st.markdown(f"{cls.description}  \n*{cls.paper}*")
    defaults = rule_defaults(algo)
    param_error = ""
    if defaults:
        cols = st.columns(len(defaults))
        for col, (name, value) in zip(cols, defaults.items(), strict=True):
            key = f"{state.PARAM_PREFIX}{algo}_{name}"
            if key not in st.session_state:
                st.session_state[key] = value if math.isfinite(value) else -1e9
            col.number_input(name, key=key, format="%g", disabled=running)
        try:
            make_rule(algo, **_params(algo))
        except (ValueError, KeyError) as exc:
            param_error = str(exc)
            st.error(param_error, icon=":material/error:")
    holdem = req.spec is not None
    units = ["% pot", "chips"] if holdem else ["chips"]
    if state.get(state.TARGET_UNIT) not in units:
        state.put(state.TARGET_UNIT, units[0])
        state.put(state.TARGET, 0.3 if holdem else 0.001)
    if state.get(state.MAX_ITERATIONS) is None:
        state.put(state.MAX_ITERATIONS, 100_000)
    if state.get(state.THREADS) is None:
        state.put(state.THREADS, 1)
    c = st.columns([1.2, 1, 1, 0.8, 1.2])
    c[0].number_input(
        "Target exploitability (0 = none)",
        min_value=0.0,
        format="%g",
        key=state.TARGET,
        disabled=running,
    )
    c[1].radio("Unit", units, key=state.TARGET_UNIT, horizontal=True, disabled=running)
    c[2].number_input(
        "Max iterations", min_value=1, step=1000, key=state.MAX_ITERATIONS, disabled=running
    )
    c[3].number_input(
        "Threads",
        min_value=1,
        max_value=max(os.cpu_count() or 1, 1),
        step=1,
        key=state.THREADS,
        disabled=running,
        help="solver threads per pass (hold'em spots with cards still to come split best)",
    )
    if state.get(state.PRECISION) not in PRECISIONS:
        state.put(state.PRECISION, "auto")
    c[4].selectbox(
        "Storage",
        list(PRECISIONS),
        format_func=lambda k: PRECISIONS[k],
        key=state.PRECISION,
        disabled=running,
    )
    _controls(req, job, algo, param_error)
    live()


def _summary(req: Request) -> None:
    line = f"**Game:** {req.label}"
    if req.spec is not None:
        line += f" — board {req.spec.board}, pot {req.spec.pot:g}, stack {req.spec.stack:g}"
    if req.estimate is not None:
        line += f" · {req.estimate.nodes:,} nodes, {req.estimate.memory_mb:,.1f} MB"
    st.markdown(line)
    if req.errors:
        st.error(
            "The set-up has errors: "
            + "; ".join(f"{k}: {v}" for k, v in req.errors.items())
            + ". Fix them on the Set up page.",
            icon=":material/error:",
        )
    nav.link("setup", "Change the game in Set up", ":material/tune:")


def _target_chips(game: Game) -> float | None:
    value = float(state.get(state.TARGET) or 0.0)
    if value <= 0:
        return None
    if state.get(state.TARGET_UNIT) == "% pot" and game.is_holdem:
        return value * game.starting_pot / 100.0
    return value


START_ERROR = "solve_start_error"


def _controls(req: Request, job: SolveJob | None, algo: str, param_error: str) -> None:
    """The control buttons; their work happens in callbacks, before the page redraws."""
    p = job.progress if job is not None else None
    running = p is not None and not p.finished
    c = st.columns(4)
    c[0].button(
        "Solve",
        key="btn_solve",
        type="primary",
        disabled=running or not req.valid or bool(param_error),
        help=None if req.valid else "fix the set-up first",
        on_click=_start,
        args=(req, algo),
        width="stretch",
    )
    if p is not None and p.state == PAUSED:
        c[1].button("Resume", key="btn_resume", on_click=_resume, width="stretch")
    else:
        c[1].button(
            "Pause", key="btn_pause", disabled=not running, on_click=_pause, width="stretch"
        )
    c[2].button("Stop", key="btn_stop", disabled=not running, on_click=_stop, width="stretch")
    err = state.get(START_ERROR)
    if err:
        st.error(err, icon=":material/error:")


def _pause() -> None:
    job = state.job()
    if job is not None:
        job.pause()
        job.wait_for(lambda q: q.state == PAUSED or q.finished, timeout=30.0)


def _resume() -> None:
    job = state.job()
    if job is not None:
        job.resume()
        job.wait_for(lambda q: q.state != PAUSED, timeout=5.0)


def _stop() -> None:
    job = state.job()
    if job is not None:
        job.stop()
        job.join(30.0)


def _start(req: Request, algo: str) -> None:
    state.put(START_ERROR, None)
    old = state.job()
    if old is not None:
        old.stop()
        old.join(30.0)
    if req.source is None:
        return
    try:
        game = S.build_game(req.source)
        rule = make_rule(algo, **_params(algo))
    except ValueError as exc:
        state.put(START_ERROR, f"Cannot start: {exc}")
        return
    node = watched_node(game)
    if old is None or old.game is not game:
        node = first_decision(game)
        state.put(state.EXPLORE_NODE, node)
    job = SolveJob(
        game,
        rule,
        target=_target_chips(game),
        max_iterations=int(state.get(state.MAX_ITERATIONS) or 100_000),
        watch=node,
        threads=int(state.get(state.THREADS) or 1),
        precision=str(state.get(state.PRECISION) or "auto"),
    )
    state.put(state.JOB, job)
    state.put(state.JOB_SOURCE, req.source)
    state.put(state.JOB_SPEC, req.spec)
    state.put(state.LOADED, None)
    state.put(LAST_STATE, RUNNING)
    start(job)


def _fmt_time(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "—"
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(s % 60)} s"
    return f"{s / 3600:.1f} h"


def _num(x: float | None, fmt: str) -> str:
    return "—" if x is None or not math.isfinite(x) else format(x, fmt)


@st.fragment(run_every=0.5)
def live() -> None:
    """The live view; only this fragment reruns while the job works."""
    job = state.job()
    if job is None:
        st.info("Press **Solve** to start. The curve and the strategy update live.")
        return
    p = job.progress
    if p.finished and state.get(LAST_STATE) not in FINISHED:
        state.put(LAST_STATE, p.state)
        st.rerun()  # whole page: flip the buttons once
    state.put(LAST_STATE, p.state)
    show_progress(job, p)


def show_progress(job: SolveJob, p: Progress) -> None:
    game = job.game
    status = {
        RUNNING: "Running",
        PAUSED: "Paused",
        "done": f"Done ({'target reached' if p.stopped_by == 'target' else 'iteration limit'})",
        "stopped": "Stopped",
        "failed": "Failed",
        "ready": "Starting",
    }.get(p.state, p.state)
    st.markdown(f"**{status}** · {job.rule.label()}", help="state of the background solve")
    if p.error:
        st.error(p.error)
    eta = estimate_eta(p.history, job.target) if not p.finished else None
    m = st.columns(4)
    m[0].metric("Iteration", f"{p.iteration:,}")
    m[1].metric("Iterations/s", _num(p.iterations_per_s, ",.0f"))
    m[2].metric("Elapsed", _fmt_time(p.elapsed_s))
    m[3].metric("Time to target", _fmt_time(eta) if job.target else "no target")
    m = st.columns(4)
    m[0].metric("Exploitability (chips)", _num(p.exploitability, ".4g"))
    m[1].metric("% pot", _num(p.pct_pot, ".4g"))
    m[2].metric("mbb/hand", _num(p.mbb, ".4g"))
    m[3].metric("Nodes touched", f"{p.nodes_touched:,}")
    holdem = game.is_holdem
    c = st.columns([3, 2])
    with c[0]:
        x_axis = st.radio("x axis", ["iterations", "seconds"], key=state.X_AXIS, horizontal=True)
        unit, scale = ("% pot", 100.0 / game.starting_pot) if holdem else ("chips", 1.0)
        fig = curve_figure(p.history, x_axis, job.target, unit=unit, scale=scale)
        st.plotly_chart(fig, key="live_curve", width="stretch")
    with c[1]:
        node = p.watched_node
        strat = p.watched_strategy
        if strat is None:
            st.caption("waiting for the first strategy…")
            return
        hist = " ".join(game.history(node)) or "root"
        who = "OOP" if int(game.tree.player[node]) == 0 else "IP"
        if not holdem:
            who = f"player {int(game.tree.player[node])}"
        st.markdown(f"**Live strategy** — {who} at `{hist}` (iteration {p.watched_iteration:,})")
        reach = node_reach(game, node, p.average)[int(game.tree.player[node])]
        if holdem:
            pot = investments(game, node)[0]
            fig = grid_figure(game, node, strat, reach, pot=pot)
            fig.update_layout(height=430)
            st.plotly_chart(fig, key="live_grid", width="stretch")
        else:
            st.dataframe(card_table(game, node, strat, reach), hide_index=True, key="live_table")
