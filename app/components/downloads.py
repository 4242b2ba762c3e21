"""Download buttons of a view, as on the Export page: a chart as PNG / SVG / HTML (built when
clicked, through :mod:`app.components.images`), a table as CSV / JSON."""

from __future__ import annotations

import functools

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.components.images import html_bytes, image_bytes

FIGURE_FORMATS = (("png", "image/png"), ("svg", "image/svg+xml"), ("html", "text/html"))


def figure_bytes(fig: go.Figure, fmt: str) -> bytes:
    """``fig`` as a file: ``png``, ``svg`` or ``html``."""
    return html_bytes(fig) if fmt == "html" else image_bytes(fig, fmt)


def table_csv(df: pd.DataFrame) -> str:
    return df.to_csv(index=False)


def table_json(df: pd.DataFrame) -> str:
    """Records, NaN as null."""
    return df.to_json(orient="records", indent=1)


def download_row(
    key: str, name: str, fig: go.Figure | None = None, table: pd.DataFrame | None = None
) -> None:
    """One row of buttons (keys ``dl_{key}_{fmt}``): the chart's PNG/SVG/HTML and the
    table's CSV/JSON, files named ``{name}.{fmt}``."""
    items: list[tuple[str, object, str]] = []
    if fig is not None:
        for fmt, mime in FIGURE_FORMATS:
            items.append((fmt, functools.partial(figure_bytes, fig, fmt), mime))
    if table is not None:
        items.append(("csv", functools.partial(table_csv, table), "text/csv"))
        items.append(("json", functools.partial(table_json, table), "application/json"))
    row = st.container(horizontal=True, key=f"dl_{key}")
    for fmt, data, mime in items:
        row.download_button(
            fmt.upper(),
            data=data,  # type: ignore[arg-type]
            file_name=f"{name}.{fmt}",
            mime=mime,
            key=f"dl_{key}_{fmt}",
            on_click="ignore",
            icon=":material/download:",
            type="tertiary",
        )
