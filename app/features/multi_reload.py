"""A three-player solve taken back after a page reload (issue 49; docs/multiway.md), as
heads-up solves are (:func:`app.runtime.reattach`): a started
:class:`~solver.run.multi_job.MultiSolveJob` is registered with a random token that the page
URL carries (``?solve3=…``, beside the heads-up ``?solve=``); a reloaded page — a new
Streamlit session — presents it on its first run and takes the job over
(:meth:`~solver.run.lifecycle.JobRegistry.attach`) with the game, the Solve settings and the
locks it was started with. The reaper still ends the job once every page watching it has
been gone for the grace period; a token whose job is gone is dropped with a note."""

from __future__ import annotations

import secrets
from typing import Any

import streamlit as st

from app import runtime, state
from app.features import multi_locks, river3_form
from app.request import show_on_setup
from solver.run.multi_job import MultiSolveJob

URL_KEY = "solve3"  # query parameter holding the session's three-player solve token
TOKEN = "multi_token"  # the token of the session's three-player solve
ENDED = "multi_ended"  # the note when the URL's solve had ended, or None
# the Solve page's settings a reloaded page gets back with its solve
RESTORED = (
    state.MULTI_ALGO,
    state.MULTI_ITERATIONS,
    state.MULTI_EVERY,
    state.MULTI_TARGET,
    state.MULTI_SEED,
    multi_locks.TEXT,
    multi_locks.APPLIED,
)
# a three-way river spot's: Set up's source, its Players choice and the spot's fields
RIVER3_RESTORED = (state.SOURCE, state.LOADED_FROM, state.SETUP_PLAYERS,
                   *river3_form.KEYS.values())  # fmt: skip


def register(job: MultiSolveJob, name: str) -> None:
    """Make ``job`` (on the game ``name``) this session's solve: registered with the
    reaper under a fresh token the page URL carries, with what a reloaded page needs."""
    token = secrets.token_urlsafe(9)
    keys = RESTORED + (RIVER3_RESTORED if name == river3_form.NAME else ())
    widgets = {k: state.get(k) for k in keys if state.get(k) is not None}
    context: dict[str, Any] = {"game": name, "widgets": widgets}
    runtime.registry().add(runtime.session_id(), job, token=token, context=context)
    state.put(TOKEN, token)
    state.put(ENDED, None)
    show_token()


def show_token() -> None:
    """Keep the session's three-player token in the page URL (a page switch may drop it)."""
    token = state.get(TOKEN)
    try:
        if token and st.query_params.get(URL_KEY) != token:
            st.query_params[URL_KEY] = token
    except Exception:  # no browser (AppTest without query params): nothing to keep
        pass


def reattach() -> None:
    """On a session's first run: take back the three-player solve whose token is in the URL
    (a reload, or the URL in another tab: this session then watches it too), with its game,
    settings and locks; Set up holds its game again. A token whose solve is gone is dropped
    from the URL with a note (:data:`ENDED`)."""
    if state.get(state.MULTI_JOB) is not None or state.get(TOKEN) is not None:
        show_token()
        return
    token = st.query_params.get(URL_KEY)
    if not token:
        return
    found = runtime.registry().attach(str(token), runtime.session_id())
    if found is None or not isinstance(found[0], MultiSolveJob) or found[0].released:
        del st.query_params[URL_KEY]
        state.put(
            ENDED,
            "The three-player solve this page was showing has ended: its page was closed for "
            f"longer than {runtime.GRACE_S:g} s, or the server restarted.",
        )
        return
    job, ctx = found
    assert isinstance(job, MultiSolveJob)
    for key, value in ctx.get("widgets", {}).items():
        state.put(key, value)
    name = str(ctx.get("game"))
    state.put(state.MULTI_JOB, job)
    state.put(state.MULTI_GAME, name)
    state.put(state.MULTI_LAST_STATE, job.progress.state)
    state.put(TOKEN, str(token))
    if name != river3_form.NAME:  # (a river spot's Set up came back with its widgets)
        show_on_setup(f"multi:{name}", None)
