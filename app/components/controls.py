"""The Pause/Resume and Stop buttons of a background job and its start error, shared by the
Solve and Compare pages (each draws its own start button in the first column)."""

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
