"""How the app words an error it did not expect: the message for the person, the stack for
the server's log (``.streamlit/config.toml`` keeps tracebacks out of the browser)."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).absolute().parent.parent


def shown(exc: BaseException) -> str:
    """An unexpected error as the browser shows it: type and message, cut to 300 characters,
    with the server's paths left out."""
    # a fragment's error reaches the page wrapped in Streamlit's FragmentHandledException
    while type(exc).__name__ == "FragmentHandledException" and exc.args:
        if not isinstance(exc.args[0], BaseException):
            break
        exc = exc.args[0]
    text = f"{type(exc).__name__}: {exc}".replace(str(ROOT), "…")
    return text if len(text) <= 300 else text[:300] + "…"
