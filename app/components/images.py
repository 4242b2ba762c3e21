"""Figure files: PNG and SVG through kaleido (Debian chromium, one browser server per
process, started on first use), and self-contained HTML (plotly.js inlined).

PNG and SVG need a Chromium-based browser; :func:`image_problem` says what is missing when
there is none (the pages disable those buttons and show it; HTML exports still work)."""

from __future__ import annotations

import threading
import warnings

import plotly.graph_objects as go
import plotly.io as pio

from app.components.figures import for_export

_lock = threading.Lock()
_started = False


NO_BROWSER = (
    "PNG and SVG need Chromium, which kaleido renders them with: install it with "
    "`sudo apt-get install chromium` (scripts/app.sh does where it can) and restart the app. "
    "HTML exports work without it."
)


def _browser() -> str | None:
    try:
        from choreographer.browsers.chromium import Chromium

        return Chromium.find_browser(skip_local=False)
    except Exception:  # kaleido's helper moved or failed: look on PATH ourselves
        import shutil

        for name in ("chromium", "chromium-browser", "google-chrome", "chrome"):
            if shutil.which(name):
                return name
        return None


def image_problem() -> str:
    """Why PNG/SVG exports cannot be made here ("" when they can)."""
    return "" if _browser() else NO_BROWSER


def _ensure_server() -> None:
    global _started
    with _lock:
        if _started:
            return
        try:
            import kaleido

            kaleido.start_sync_server(silence_warnings=True)
        except Exception:  # fall back to one browser per image
            pass
        _started = True


def image_bytes(fig: go.Figure, fmt: str, width: int = 900, height: int | None = None) -> bytes:
    """``fig`` as ``png`` or ``svg`` bytes, in the light export template."""
    if fmt not in ("png", "svg"):
        raise ValueError(f"unknown image format {fmt!r}")
    problem = image_problem()
    if problem:
        raise RuntimeError(problem)
    _ensure_server()
    out = for_export(fig)
    h = height or int(out.layout.height or 500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pio.to_image(out, format=fmt, width=width, height=h, scale=1 if fmt == "svg" else 2)


def html_bytes(fig: go.Figure) -> bytes:
    """A self-contained HTML page of ``fig`` (plotly.js included, works offline)."""
    return for_export(fig).to_html(include_plotlyjs=True, full_html=True).encode("utf-8")
