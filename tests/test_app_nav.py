"""The pages links point at are each session's own (app/nav.py): one session handing over
its pages never leaves another session without them, even halfway through the hand-over."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Mapping
from typing import Any

from streamlit.testing.v1 import AppTest


class HalfwayPages(Mapping[str, Any]):
    """Pages whose hand-over stops halfway (when they are first listed) until ``release``
    is set, saying so with ``entered``: the window in which a session is refilling them."""

    def __init__(self, pages: dict[str, Any]) -> None:
        self.pages = pages
        self.entered = threading.Event()
        self.release = threading.Event()

    def keys(self) -> Any:
        self.entered.set()
        assert self.release.wait(30), "the test never let the hand-over finish"
        return self.pages.keys()

    def __getitem__(self, name: str) -> Any:
        return self.pages[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self.keys())

    def __len__(self) -> int:
        return len(self.pages)


def session(pages: dict, hand_over: bool) -> None:
    """One run of a session: hand its pages over (as main.py does each run) when
    ``hand_over``, then read them as a link does. (Run as a script of its own: no names
    from this module.)"""
    import streamlit as st

    from app import nav

    if hand_over:
        nav.use(pages)
    st.markdown(" ".join(sorted(nav.pages())))


def test_a_session_keeps_its_pages_while_another_hands_over() -> None:
    ours = AppTest.from_function(
        session, default_timeout=30, kwargs={"pages": {"solve": "s"}, "hand_over": True}
    )
    ours.run()
    assert not ours.exception
    halfway = HalfwayPages({"setup": "u"})
    theirs = AppTest.from_function(
        session, default_timeout=30, kwargs={"pages": halfway, "hand_over": True}
    )
    other = threading.Thread(target=theirs.run)
    other.start()
    try:
        assert halfway.entered.wait(30), "the other session never started its hand-over"
        ours.kwargs = {"pages": None, "hand_over": False}  # a link between two hand-overs
        ours.run()
    finally:
        halfway.release.set()
        other.join(60)
    assert not ours.exception, ours.exception[0].message
    assert ours.markdown[0].value == "solve"  # its own pages, not the other session's
    assert not theirs.exception
    assert theirs.markdown[0].value == "setup"
