"""Figure files: PNG and SVG through kaleido (Debian chromium, one browser server per
process, started on first use), and self-contained HTML (plotly.js inlined)."""

from __future__ import annotations

import threading
import warnings

import plotly.graph_objects as go
import plotly.io as pio

from app.components.figures import for_export

_lock = threading.Lock()
_started = False


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
    _ensure_server()
    out = for_export(fig)
    h = height or int(out.layout.height or 500)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return pio.to_image(out, format=fmt, width=width, height=h, scale=1 if fmt == "svg" else 2)


def html_bytes(fig: go.Figure) -> bytes:
    """A self-contained HTML page of ``fig`` (plotly.js included, works offline)."""
    return for_export(fig).to_html(include_plotlyjs=True, full_html=True).encode("utf-8")
