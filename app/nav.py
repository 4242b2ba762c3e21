"""Links between the app's pages: the pages themselves are built by :mod:`app.pages` (which
``main.py`` runs and hands over with :func:`use`), so this module imports no page and every
screen may import it. The pages are kept per session (:data:`app.state.PAGES`): every
session's run hands over its own, so one session's hand-over never empties another's."""

from __future__ import annotations

import streamlit as st

from app import state


def use(pages: dict[str, st.Page]) -> None:
    """The pages of this session's run (:func:`app.pages.build`)."""
    state.put(state.PAGES, dict(pages))


def pages() -> dict[str, st.Page]:
    kept: dict[str, st.Page] | None = state.get(state.PAGES)
    if not kept:
        raise RuntimeError("no pages yet: main.py hands them over with nav.use(pages.build())")
    return kept


def link(name: str, label: str, icon: str | None = None) -> None:
    st.page_link(pages()[name], label=label, icon=icon)
