"""Links between the app's pages: the pages themselves are built by :mod:`app.pages` (which
``main.py`` runs and hands over with :func:`use`), so this module imports no page and every
screen may import it."""

from __future__ import annotations

import streamlit as st

_PAGES: dict[str, st.Page] = {}


def use(pages: dict[str, st.Page]) -> None:
    """The pages of this run (:func:`app.pages.build`)."""
    _PAGES.clear()
    _PAGES.update(pages)


def pages() -> dict[str, st.Page]:
    if not _PAGES:
        raise RuntimeError("no pages yet: main.py hands them over with nav.use(pages.build())")
    return _PAGES


def link(name: str, label: str, icon: str | None = None) -> None:
    st.page_link(pages()[name], label=label, icon=icon)
