"""The bridge between Streamlit sessions and background jobs (solves and races): one shared
:class:`JobRegistry` per server (with its reaper thread), the current session's id, and
starting a job for it.

Jobs end on Stop, when their browser session is gone for :data:`GRACE_S` seconds (the
reaper), and at server exit (``solver.jobs`` registers an ``atexit`` hook)."""

from __future__ import annotations

from typing import TypeVar

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from solver.jobs import JobRegistry, SolveJob
from solver.race import RaceJob

GRACE_S = 10.0


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
