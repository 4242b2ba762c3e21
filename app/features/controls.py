"""The Pause/Resume and Stop buttons of a background job and its start error, and the live
view's polling, shared by the Solve and Compare pages (each draws its own start button in the
first column)."""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st

from app import state


def pause_resume_stop(
    cols: Sequence[Any],
    prefix: str,
    paused: bool,
    running: bool,
    on_pause: Callable[[], None],
    on_resume: Callable[[], None],
    on_stop: Callable[[], None],
    error: str | None,
) -> None:
    """Resume (while ``paused``) or Pause in ``cols[1]``, Stop in ``cols[2]`` (both enabled
    only while ``running``), keys ``{prefix}resume`` / ``pause`` / ``stop``; then ``error``
    (why the last start failed), if any (None: the caller shows it)."""
    if paused:
        cols[1].button("Resume", key=f"{prefix}resume", on_click=on_resume, width="stretch")
    else:
        cols[1].button(
            "Pause", key=f"{prefix}pause", disabled=not running, on_click=on_pause, width="stretch"
        )
    cols[2].button(
        "Stop", key=f"{prefix}stop", disabled=not running, on_click=on_stop, width="stretch"
    )
    if error:
        st.error(error, icon=":material/error:")


LIVE_EVERY_S = 1.0
"""How often the live view of a working job redraws (seconds): a modest, fixed rate; what
did not change is not rebuilt (:mod:`app.features.live`). A job whose threads take every
core redraws half as often (:func:`redraw_every`): each redraw's browser and server work then
comes out of the solver's own share of the machine."""


def redraw_every(threads: int) -> float:
    """Seconds between live redraws for a job running ``threads`` threads on this machine."""
    cores = os.cpu_count() or 1
    return LIVE_EVERY_S if threads < cores else 2.0 * LIVE_EVERY_S


_VISIBILITY_JS = """
export default function (component) {
  const { setStateValue } = component;
  const report = () => setStateValue("hidden", document.hidden);
  document.addEventListener("visibilitychange", report);
  if (document.hidden) report();
  return () => document.removeEventListener("visibilitychange", report);
}
"""
_visibility = st.components.v2.component("regret_lab.visibility", js=_VISIBILITY_JS)


def page_hidden() -> bool:
    """Whether the browser reports this page hidden (another tab in front, a minimised
    window). Mounts an invisible component that reports each change, which reruns the page:
    the live view stops polling while hidden and starts again when seen."""
    result = _visibility(
        key="page_visibility", default={"hidden": False}, height=0, on_hidden_change=lambda: None
    )
    hidden = bool(getattr(result, "hidden", False))
    st.session_state[state.PAGE_HIDDEN] = hidden
    return hidden


def live_view(body: Callable[[], None], working: bool, every: float = LIVE_EVERY_S) -> None:
    """Draw ``body`` as a fragment that reruns itself every ``every`` seconds while
    ``working`` (a job that has not finished) and the page is visible, and never otherwise.

    A fragment that kept polling after its job ended would redraw its download buttons every
    second, and a click landing during a redraw is lost. The body calls ``st.rerun()`` when
    it sees the job finish; that whole-page run draws the fragment again without polling (a
    full run clears the browser's auto-rerun timers). A hidden page polls nothing: showing it
    again reruns the page, which starts polling again."""
    hidden = page_hidden() if working else False
    st.fragment(body, run_every=every if working and not hidden else None)()
