"""Number fields drawn as text inputs kept per session (:class:`app.components.fields.Number`
parses them): the typed text stays as typed, a bad value gets its message under the field."""

from __future__ import annotations

from typing import Any

import streamlit as st

from app.components.fields import PERSIST, Number, show


def as_text(key: str) -> None:
    """Turn a number held under ``key`` (a preset's value, a default) into the text the field
    shows; text stays as typed."""
    value = st.session_state.get(key)
    if value is not None and not isinstance(value, str):
        st.session_state[key] = show(value) if isinstance(value, (int, float)) else str(value)


def number_field(
    spec: Number,
    key: str,
    *,
    container: Any = None,
    disabled: bool = False,
    help: str | None = None,
    placeholder: str | None = None,
    show_error: bool = True,
) -> tuple[float | None, str]:
    """A text input for ``spec`` under ``key`` (kept for the session) with its error shown
    underneath; returns (value, message) as :meth:`Number.parse`."""
    where = container if container is not None else st
    as_text(key)
    text = where.text_input(
        spec.label,
        key=key,
        disabled=disabled,
        help=help,
        placeholder=placeholder,
        persist_state=PERSIST,
    )
    value, error = spec.parse(text)
    if error and show_error:
        where.error(error, icon=":material/error:")
    return value, error


def read(spec: Number, key: str, default: float | None = None) -> tuple[float | None, str]:
    """The value under ``key`` checked by ``spec`` without drawing it (``default`` while the
    field has never been drawn)."""
    return spec.parse_kept(st.session_state.get(key), default)
