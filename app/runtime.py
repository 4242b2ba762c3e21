"""The bridge between Streamlit sessions and background jobs (solves and races): one shared
:class:`~solver.run.lifecycle.JobRegistry` per server (with its reaper thread), the current
session's id, starting a job for it, and taking a solve back after a page reload.

Jobs end on Stop, when every browser session watching them has been gone for :data:`GRACE_S`
seconds (the reaper, which then releases their memory), and at server exit (``atexit``).

**Sessions.** Streamlit keeps a closed tab's session (its whole session state: a loaded
solve, lock baselines, a Practice drill, Explore's caches) for two minutes in case the tab
reconnects, and drops it only when another session comes or goes. The
:class:`SessionSweeper` closes every session gone for :data:`GRACE_S` seconds (as the reaper
ends its jobs) and empties its session state — a closed session's shell can outlive it
(Streamlit's runtime loop keeps the last active session it iterated over in a local
variable) — then collects garbage and gives the freed memory back to the operating system
(:func:`solver.run.lifecycle.trim_memory`): within the grace period and a few seconds of the
last tab closing.

**Reload.** A started solve gets a random token, put in the page's URL (``?solve=…``). A page
reload is a new Streamlit session; its first run finds the token in the URL and takes the solve
over (:func:`reattach`) with what the page needs to show it — its game, the Set up source and
the Solve settings it was started with — so the reloaded page is where the user left it. The
same URL opened in a second tab does the same: both sessions then watch the solve, and it ends
only once the last of them is gone.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

import streamlit as st
from streamlit import runtime
from streamlit.runtime.scriptrunner import get_script_run_ctx

from app import state
from app.request import show_on_setup
from app.spec import preflop_in
from solver.cfr.options import OPTION_FIELDS
from solver.games.holdem import HoldemSpec
from solver.games.source import GameSource
from solver.run.jobs import JobRegistry, SolveJob, trim_memory
from solver.run.race import RaceJob

GRACE_S = float(os.environ.get("REGRET_LAB_GRACE_S", "10"))
"""Seconds a job keeps running once the last tab watching it is closed (a reload within it
takes its solve back); ``REGRET_LAB_GRACE_S`` overrides it."""
URL_KEY = "solve"  # query parameter holding the session's solve token
SWEEP_LOG_ENV = "REGRET_LAB_SWEEP_LOG"
"""A file the :class:`SessionSweeper` appends ``closed <session>`` to for each session it
closes (unset: none): lets the browser tests wait for the sweep instead of a fixed time."""

# Session keys a reloaded page gets back with its solve (the Set up source and the settings
# the solve was started with, so the page shows that game and those values).
RESTORED = (
    state.SOURCE,
    state.ALGORITHM,
    state.TARGET,
    state.TARGET_UNIT,
    state.MAX_ITERATIONS,
    state.CHECK_EVERY,
    *(f.app for f in OPTION_FIELDS if f.app is not None),  # the solver options' widgets
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


class SessionSweeper:
    """The browser sessions this server has run pages for, and the closing of those gone
    for a grace period (their session state then goes, with everything it holds).

    :meth:`seen` records a session and its state (every page run does);
    :meth:`sweep` closes, through ``close``, each recorded session ``is_active`` has reported
    gone for ``grace_s`` seconds, empties its state (``empty``) and forgets it; :meth:`start`
    sweeps every second in a daemon thread and, on the beats after a close, collects garbage
    and trims the heap (``trim``)."""

    TRIM_BEATS = 3  # beats after a close that collect and trim (the close is asynchronous)
    EMPTY_BEATS = 15  # beats a closed session's state is emptied again: a page run still in
    # flight when the tab closed may write its keys back (a drill, its pages) after the close

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._gone: dict[str, float | None] = {}  # session → when first seen gone, or None
        # session → its SessionState (it cannot be weakly referenced; kept until the close
        # empties it, and a few beats more: then only its empty shell goes with it)
        self._states: dict[str, object] = {}
        self._closed: list[tuple[object, int]] = []  # closed states, beats left to empty
        self._trims = 0

    def seen(self, session_id: str, session_state: object | None = None) -> None:
        """Record a session that ran a page, and its state. A run's ``SafeSessionState`` is
        a wrapper made for that run: the state behind it, which lives as long as the
        session, is what is kept."""
        with self._lock:
            self._gone[session_id] = None
            if session_state is not None:
                self._states[session_id] = _inner_state(session_state)

    def sessions(self) -> list[str]:
        with self._lock:
            return list(self._gone)

    def sweep(
        self,
        is_active: Callable[[str], bool],
        close: Callable[[str], None],
        grace_s: float,
        now: float | None = None,
        empty: Callable[[object], None] | None = None,
    ) -> list[str]:
        """Close (and forget) the sessions gone for at least ``grace_s`` seconds, emptying
        their states (``empty``, :func:`empty_session_state` by default); returns them."""
        now = time.monotonic() if now is None else now
        empty = empty_session_state if empty is None else empty
        closing: list[tuple[str, object | None]] = []
        with self._lock:
            for s, since in list(self._gone.items()):
                if is_active(s):
                    self._gone[s] = None
                elif since is None:
                    self._gone[s] = now
                elif now - since >= grace_s:
                    closing.append((s, self._states.pop(s, None)))
                    del self._gone[s]
            if closing:
                self._trims = self.TRIM_BEATS
        for s, held in closing:
            with contextlib.suppress(Exception):  # (a session Streamlit no longer knows)
                close(s)
            if held is not None:
                empty(held)
                with self._lock:
                    self._closed.append((held, self.EMPTY_BEATS))
        return [s for s, _ in closing]

    def empty_again(self, empty: Callable[[object], None] | None = None) -> bool:
        """Empty each recently closed session's state once more (:attr:`EMPTY_BEATS` beats
        after its close); True while some are still watched."""
        empty = empty_session_state if empty is None else empty
        with self._lock:
            due = [held for held, _ in self._closed]
            self._closed = [(held, n - 1) for held, n in self._closed if n > 1]
            watching = bool(self._closed)
        for held in due:
            empty(held)
        return watching

    def beat(
        self,
        is_active: Callable[[str], bool],
        close: Callable[[str], None],
        grace_s: float,
        trim: Callable[[], object] = trim_memory,
    ) -> list[str]:
        """One sweep, then a collection and a trim on the beats after a close."""
        closed = self.sweep(is_active, close, grace_s)
        log_closed(closed)
        watching = self.empty_again()
        with self._lock:
            if watching:  # what a late page run wrote back goes too
                self._trims = max(self._trims, 1)
            due = self._trims > 0
            self._trims = max(self._trims - 1, 0)
        if due:
            trim()
        return closed

    def start(
        self,
        is_active: Callable[[str], bool],
        close: Callable[[str], None],
        grace_s: float,
        every_s: float = 1.0,
    ) -> threading.Thread:
        def loop() -> None:
            while True:
                time.sleep(every_s)
                try:
                    self.beat(is_active, close, grace_s)
                except Exception:  # keep sweeping whatever one beat does
                    continue

        t = threading.Thread(target=loop, name="session-sweeper", daemon=True)
        t.start()
        return t


def log_closed(closed: list[str]) -> None:
    """Append one ``closed <session>`` line per closed session to :data:`SWEEP_LOG_ENV`'s
    file, if set (a file that cannot be written is skipped: the sweep goes on)."""
    path = os.environ.get(SWEEP_LOG_ENV)
    if not path or not closed:
        return
    with contextlib.suppress(OSError), open(path, "a", encoding="utf-8") as f:
        f.writelines(f"closed {s}\n" for s in closed)


def _inner_state(safe: object) -> object:
    """The ``SessionState`` behind a run's ``SafeSessionState`` (or the object itself)."""
    try:
        return object.__getattribute__(safe, "_state")
    except AttributeError:
        return safe


def empty_session_state(state: object) -> None:
    """Empty a Streamlit session's state (its ``SessionState``, or a run's
    ``SafeSessionState`` around it, then under its lock): every key, widget value and
    widget's callback arguments. Anything else: nothing."""
    inner: Any = _inner_state(state)
    if not callable(getattr(inner, "clear", None)) or not hasattr(inner, "_new_widget_state"):
        return
    try:
        lock = object.__getattribute__(state, "_lock")
    except AttributeError:
        lock = contextlib.nullcontext()  # (the session is closed: its runs are ending)
    with lock, contextlib.suppress(Exception):  # a run may hold it half-written: next beat
        inner.clear()
        widgets = getattr(inner, "_new_widget_state", None)
        meta = getattr(widgets, "widget_metadata", None)
        if isinstance(meta, dict):  # (the callbacks' arguments: a solve, a drill…)
            meta.clear()


def close_session(session_id: str) -> None:
    """Close a session Streamlit keeps for a reconnect, so its state is dropped now (on the
    server's event loop; an active session is left as it is)."""
    if not runtime.exists():
        return
    close = getattr(runtime.get_instance(), "clear_user_info_for_session", None)
    if callable(close):  # (marks it not resumable, closes it if it has no connection)
        close(session_id)


@st.cache_resource(show_spinner=False)
def registry() -> JobRegistry:
    reg = JobRegistry()
    reg.start_reaper(session_active, grace_s=GRACE_S)
    return reg


@st.cache_resource(show_spinner=False)
def sweeper() -> SessionSweeper:
    """The server's :class:`SessionSweeper` (sweeping only under a real server)."""
    sw = SessionSweeper()
    if runtime.exists():
        sw.start(session_active, close_session, GRACE_S)
    return sw


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
    job: SolveJob, source: GameSource | dict, spec: HoldemSpec | None, game_id: str, label: str
) -> SolveJob:
    """Make ``job`` this session's solve (its game's source, spec, Set up id and label kept
    for the pages), register it with a fresh token that the page URL carries, and start it.
    The session keeps the source as its dict (the save format: ``JOB_SOURCE``)."""
    token = secrets.token_urlsafe(9)
    source = source if isinstance(source, dict) else source.to_dict()
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
    another server) is dropped from the URL with a note. Every run records its session
    with the :class:`SessionSweeper` (closed once gone for the grace period)."""
    run = get_script_run_ctx()
    sweeper().seen(session_id(), run.session_state if run is not None else None)
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
