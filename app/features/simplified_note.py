"""The note Set up and Solve show while the session's solve is of a simplified tree (one
opened from Explore's sizes view, or a save of one): which bet sizes its tree lacks, read
from the solve's game source (``removed``, :mod:`solver.games.source`)."""

from __future__ import annotations

import streamlit as st

from app import state
from solver.games.source import Removed, SourceError, removed_from_json, removed_words


def current_removed() -> Removed:
    """The sizes removed from the session's solve's tree (its job's, else the loaded
    save's); none when it has the spot's every size."""
    job = state.job()
    if job is not None:
        source = state.get(state.JOB_SOURCE)
    else:
        loaded = state.get(state.LOADED)
        source = loaded.meta.get("game") if loaded is not None else None
    if not isinstance(source, dict) or "removed" not in source:
        return ()
    try:
        return removed_from_json(source["removed"])
    except SourceError:  # (a save's was checked when it loaded)
        return ()


def simplified_note() -> None:
    """An info line when the session's solve is of a simplified tree, naming what it lacks."""
    removed = current_removed()
    if not removed:
        return
    st.info(
        f"The current solve is of a simplified tree: removed {removed_words(removed)}. "
        "A new solve from these pages plays every size of the spot.",
        icon=":material/info:",
    )
