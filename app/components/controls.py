"""The Pause/Resume and Stop buttons of a background job and its start error, and the live
view's polling, shared by the Solve and Compare pages (each draws its own start button in the
first column)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import streamlit as st


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
    (why the last start failed), if any."""
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


LIVE_EVERY_S = 0.5
"""How often the live view of a working job redraws (seconds)."""


def live_view(body: Callable[[], None], working: bool) -> None:
    """Draw ``body`` as a fragment that reruns itself every ``LIVE_EVERY_S`` seconds while
    ``working`` (a job that has not finished), and never once it has.

    A fragment that kept polling after its job ended would redraw its download buttons twice
    a second, and a click landing during a redraw is lost. The body calls ``st.rerun()`` when
    it sees the job finish; that whole-page run draws the fragment again without polling (a
    full run clears the browser's auto-rerun timers)."""
    st.fragment(body, run_every=LIVE_EVERY_S if working else None)()
