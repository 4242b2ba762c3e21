"""Figures of the study views in Explore: a 13×13 grid coloured by a value (EV, equity,
EQR), each hand class's action mix as stacked bars, equity/EV distribution curves of both
players, and the card grid of a runout report. Data in, figures out: the numbers come from
:mod:`solver.study.views`, :mod:`solver.study.groups` and :mod:`solver.poker.handclass`."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from app.components.colors import CARD_SUIT_COLORS, EMPTY, action_colors
from app.components.figures import _rect, legend_swatches
from solver.poker.ranges import GRID_LABELS

Array = npt.NDArray[np.float64]

RANKS = "AKQJT98765432"
SUITS = "shdc"
PLAYER_COLORS = ("#1f77b4", "#d62728")


def value_grid_figure(values: Array, what: str, unit: str = "", title: str = "") -> go.Figure:
    """(169,) values per grid cell (row-major as GRID_LABELS, NaN where nothing reaches) as a
    13×13 heatmap labelled with the class and its value."""
    z = np.asarray(values, dtype=np.float64).reshape(13, 13)[::-1]
    labels = [list(row) for row in GRID_LABELS][::-1]
    text = [
        [f"{lab}<br>{v:.2f}{unit}" if np.isfinite(v) else lab for lab, v in zip(r, zr, strict=True)]
        for r, zr in zip(labels, z, strict=True)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=np.where(np.isfinite(z), z, np.nan),
            text=text,
            hovertext=[[t.replace("<br>", f": {what} ") for t in r] for r in text],
            hoverinfo="text",
            texttemplate="%{text}",
            textfont={"size": 8},
            colorscale="RdYlGn",
            colorbar={"title": {"text": what}, "thickness": 12},
            xgap=1,
            ygap=1,
        )
    )
    fig.update_layout(
        title=title or None,
        height=520,
        margin={"l": 5, "r": 5, "t": 30 if title else 5, "b": 5},
        xaxis={"visible": False, "fixedrange": True},
        yaxis={"visible": False, "fixedrange": True, "scaleanchor": "x"},
        plot_bgcolor="white",
    )
    return fig


def class_mix_figure(
    labels: list[str], mixes: list[tuple[float, ...]], actions: list[str], names: list[str]
) -> go.Figure:
    """One horizontal bar per hand class, stacked by the class's action mix (%); ``actions``
    are the labels (for colours), ``names`` what the legend says."""
    colors = action_colors(actions)
    fig = go.Figure()
    for a, (name, color) in enumerate(zip(names, colors, strict=True)):
        fig.add_trace(
            go.Bar(
                y=labels,
                x=[100 * m[a] for m in mixes],
                name=name,
                orientation="h",
                marker_color=color,
                hovertemplate="%{y}: %{x:.1f}%<extra>" + name + "</extra>",
            )
        )
    fig.update_layout(
        barmode="stack",
        height=80 + 26 * len(labels),
        margin={"l": 10, "r": 10, "t": 10, "b": 40},
        xaxis={"range": [0, 100], "title": "% of the class's combos"},
        yaxis={"autorange": "reversed"},
        legend={"orientation": "h", "y": -0.25},
    )
    return fig


def distribution_figure(
    curves: list[tuple[str, Array, Array]], what: str, title: str = ""
) -> go.Figure:
    """Each player's hands sorted from best to worst: ``curves`` of (name, share of the
    range in %, value), one line each (:func:`solver.study.views.distribution`)."""
    fig = go.Figure()
    for i, (name, share, value) in enumerate(curves):
        fig.add_trace(
            go.Scatter(
                x=share,
                y=value,
                mode="lines",
                name=name,
                line={"color": PLAYER_COLORS[i % 2], "shape": "hv"},
            )
        )
    fig.update_layout(
        title=title or None,
        height=380,
        margin={"l": 10, "r": 10, "t": 30 if title else 10, "b": 40},
        xaxis={"title": "% of the range (best hands first)", "range": [0, 100]},
        yaxis={"title": what},
        legend={"orientation": "h", "y": 1.08},
    )
    return fig


def card_grid_figure(
    cells: dict[str, tuple[Array, str]], actions: list[str], names: list[str], title: str = ""
) -> go.Figure:
    """The deck as 13 ranks × 4 suits: each card a chance node can deal split by the acting
    player's mix below it (``cells``: card → (mix (num_actions,), hover text)); other cards
    grey. ``actions`` label the colours, ``names`` the legend. The first trace has a marker
    per dealt card, its card as ``customdata`` (what a click selects)."""
    colors = action_colors(actions)
    shapes: list[dict] = []
    annotations = []
    xs, ys, hover, dealt = [], [], [], []
    for si, s in enumerate(SUITS):
        for ri, r in enumerate(RANKS):
            card = r + s
            x0, y0 = ri, 3 - si
            shapes.append(_rect(x0, y0, x0 + 1, y0 + 1, EMPTY, line=True))
            found = cells.get(card)
            if found is not None:
                mix, text = found
                x = float(x0)
                for a, f in enumerate(mix):
                    if f > 1e-4 and a < len(colors):
                        shapes.append(_rect(x, y0, x + float(f), y0 + 1, colors[a]))
                        x += float(f)
                xs.append(x0 + 0.5)
                ys.append(y0 + 0.5)
                hover.append(text)
                dealt.append(card)
            annotations.append(
                {
                    "x": x0 + 0.5,
                    "y": y0 + 0.5,
                    "text": f"<b>{card}</b>",
                    "showarrow": False,
                    "font": {"size": 12, "color": CARD_SUIT_COLORS[s] if found is None else "#111"},
                }
            )
    traces = [
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers",
            marker={"size": 30, "opacity": 0, "symbol": "square"},
            hovertext=hover,
            hoverinfo="text",
            customdata=dealt,  # the card a click on the marker deals (Explore)
            showlegend=False,
        )
    ]
    traces.extend(legend_swatches(names, colors))
    fig = go.Figure(traces)
    fig.update_layout(
        shapes=shapes,
        annotations=annotations,
        xaxis={"range": [0, 13], "visible": False, "fixedrange": True},
        yaxis={"range": [0, 4], "visible": False, "fixedrange": True, "scaleanchor": "x"},
        height=260,
        margin={"l": 5, "r": 5, "t": 30 if title else 5, "b": 5},
        legend={"orientation": "h", "y": -0.05},
        title=title or None,
        plot_bgcolor="white",
    )
    return fig
