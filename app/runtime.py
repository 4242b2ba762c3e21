"""The bridge between Streamlit sessions and background jobs (solves and races): one shared
:class:`~solver.run.lifecycle.JobRegistry` per server (with its reaper thread), the current
session's id, starting a job for it, and taking a solve back after a page reload.

Jobs end on Stop, when every browser session watching them has been gone for :data:`GRACE_S`
seconds (the reaper, which then releases their memory), and at server exit (``atexit``).

**Reload.** A started solve gets a random token, put in the page's URL (``?solve=…``). A page
reload is a new Streamlit session; its first run finds the token in the URL and takes the solve
over (:func:`reattach`) with what the page needs to show it — its game, the Set up source and
the Solve settings it was started with — so the reloaded page is where the user left it. The
same URL opened in a second tab does the same: both sessions then watch the solve, and it ends
only once the last of them is gone.
"""

from __future__ import annotations

import os
import secrets
from typing import Any, TypeVar

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from app import state
from app.request import show_on_setup
from app.spec import preflop_in
from solver.games.holdem import HoldemSpec
from solver.run.jobs import JobRegistry, SolveJob
from solver.run.race import RaceJob

GRACE_S = float(os.environ.get("REGRET_LAB_GRACE_S", "10"))
"""Seconds a job keeps running once the last tab watching it is closed (a reload within it
takes its solve back); ``REGRET_LAB_GRACE_S`` overrides it."""
URL_KEY = "solve"  # query parameter holding the session's solve token

# Session keys a reloaded page gets back with its solve (the Set up source and the settings
# the solve was started with, so the page shows that game and those values).
RESTORED = (
    state.SOURCE,
    state.ALGORITHM,
    state.TARGET,
    state.TARGET_UNIT,
    state.MAX_ITERATIONS,
    state.THREADS,
    state.CHECK_EVERY,
    state.PRECISION,
    state.PRUNING,
    state.SEED,
    state.RBP_CHECK_EVERY,
    state.RBP_THRESHOLD,
    state.RBP_FREE_OPPONENT,
    state.EXPLORE_NODE,
    state.SETTINGS_GAME,
    state.SETTINGS_HOLDEM,
)


def session_active(session_id: str) -> bool:
    """Whether a browser session is still connected (True outside a server, e.g. AppTest)."""
    if not runtime.exists():
        return True
    try:
        return bool(runtime.get_instance().is_active_session(session_id))
    except Exception:
        return True


@st.cache_resource(show_spinner=False)
def registry() -> JobRegistry:
    reg = JobRegistry()
    reg.start_reaper(session_active, grace_s=GRACE_S)
    return reg


def session_id() -> str:
    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else "no-session"


J = TypeVar("J", SolveJob, RaceJob)


def start(job: J) -> J:
    """Register ``job`` under this session and start it."""
    registry().add(session_id(), job)
    job.start()
    return job


def start_solve(
    job: SolveJob, source: dict, spec: HoldemSpec | None, game_id: str, label: str
) -> SolveJob:
    """Make ``job`` this session's solve (its game's source, spec, Set up id and label kept
    for the pages), register it with a fresh token that the page URL carries, and start it."""
    token = secrets.token_urlsafe(9)
    state.put(state.JOB, job)
    state.put(state.JOB_SOURCE, source)
    state.put(state.JOB_SPEC, spec)
    state.put(state.JOB_GAME_ID, game_id)
    state.put(state.JOB_LABEL, label)
    state.put(state.JOB_TOKEN, token)
    widgets = {k: state.get(k) for k in RESTORED if state.get(k) is not None}
    state.put(state.JOB_WIDGETS, widgets)
    context: dict[str, Any] = {
        "source": source,
        "spec": spec,
        "game_id": game_id,
        "label": label,
        "widgets": widgets,
        "params": {
            k: v for k, v in st.session_state.items() if str(k).startswith(state.PARAM_PREFIX)
        },
    }
    registry().add(session_id(), job, token=token, context=context)
    job.start()
    show_token()
    return job


def show_token() -> None:
    """Keep the session solve's token in the page URL (a page switch may drop it)."""
    token = state.get(state.JOB_TOKEN)
    try:
        if token and st.query_params.get(URL_KEY) != token:
            st.query_params[URL_KEY] = token
    except Exception:  # no browser (AppTest without query params): nothing to keep
        pass


def reattach() -> None:
    """On a session's first run: take back the solve whose token is in the URL (a reload,
    or the URL opened in another tab: this session then watches it too), with the game and
    settings it runs with. A token whose solve is gone (closed past the grace period, or
    another server) is dropped from the URL with a note."""
    if state.get(state.JOB) is not None or state.get(state.JOB_TOKEN) is not None:
        show_token()
        return
    token = st.query_params.get(URL_KEY)
    if not token:
        return
    found = registry().attach(str(token), session_id())
    if found is None or not isinstance(found[0], SolveJob) or found[0].released:
        del st.query_params[URL_KEY]
        state.put(
            state.JOB_ENDED,
            "The solve this page was showing has ended: its page was closed for longer than "
            f"{GRACE_S:g} s, or the server restarted.",
        )
        return
    job, ctx = found[0], found[1]
    assert isinstance(job, SolveJob)
    for key, value in ctx.get("widgets", {}).items():
        state.put(key, value)
    for key, value in ctx.get("params", {}).items():
        state.put(key, value)
    state.put(state.JOB, job)
    state.put(state.JOB_SOURCE, ctx.get("source"))
    state.put(state.JOB_SPEC, ctx.get("spec"))
    state.put(state.JOB_GAME_ID, ctx.get("game_id"))
    state.put(state.JOB_LABEL, ctx.get("label"))
    state.put(state.JOB_TOKEN, str(token))
    spec = ctx.get("spec")
    held = spec if isinstance(spec, HoldemSpec) else preflop_in(ctx.get("source"))
    show_on_setup(str(ctx.get("game_id")), held)
    state.put(state.JOB_WIDGETS, ctx.get("widgets", {}))
    state.put(state.LIVE_LAST_STATE, job.progress.state)
