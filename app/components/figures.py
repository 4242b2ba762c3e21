"""Plotly figures: the exploitability curve, the 13×13 strategy grid (each cell split by
action mix), the range grid. Pure functions: data in, figure out (no Streamlit)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from app.components.colors import EMPTY, action_colors, action_name
from solver.jobs import Point
from solver.ranges import GRID_LABELS

Array = npt.NDArray[np.float64]
_CELL_COMBOS = np.array(
    [[6 if i == j else (4 if i < j else 12) for j in range(13)] for i in range(13)], dtype=float
)


def curve_figure(
    history: tuple[Point, ...] | list[Point],
    x_axis: str = "iterations",
    target: float | None = None,
    unit: str = "chips",
    scale: float = 1.0,
) -> go.Figure:
    """Exploitability of the average strategy (log y) against iterations or seconds.
    ``scale`` converts chips to ``unit`` (e.g. 100 / pot for % pot)."""
    pts = thin([p for p in history if p.exploitability > 0])
    xs = [p.iteration if x_axis == "iterations" else p.elapsed_s for p in pts]
    ys = [p.exploitability * scale for p in pts]
    fig = go.Figure(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines+markers",
            marker={"size": 4},
            line={"color": "#d43d33"},
            name="exploitability",
            hovertemplate=f"%{{x}}<br>%{{y:.4g}} {unit}<extra></extra>",
        )
    )
    if target is not None and target > 0:
        fig.add_hline(
            y=target * scale,
            line={"dash": "dash", "color": "#4bb34b"},
            annotation_text="target",
        )
    fig.update_layout(
        xaxis_title="iterations" if x_axis == "iterations" else "seconds",
        yaxis_title=f"exploitability ({unit})",
        yaxis_type="log",
        height=340,
        margin={"l": 60, "r": 20, "t": 30, "b": 50},
        showlegend=False,
    )
    return fig


MAX_CURVE_POINTS = 1500


def thin(points: list[Point], limit: int = MAX_CURVE_POINTS) -> list[Point]:
    """At most about ``limit`` points, log-spaced by index (the curve's x axis is mostly read
    on a log-like scale), always keeping the first and the last."""
    if len(points) <= limit:
        return points
    idx = np.unique(np.geomspace(1, len(points), limit).astype(np.int64) - 1)
    keep = [points[int(i)] for i in idx]
    if keep[-1] is not points[-1]:
        keep.append(points[-1])
    return keep


def strategy_grid_figure(
    mix: Array,
    weight: Array,
    actions: list[str],
    hover: list[list[str]] | None = None,
    pot: float | None = None,
    title: str = "",
) -> go.Figure:
    """The 13×13 grid: each cell a stack of action colours (widths = reach-weighted action
    frequencies of the class; height = share of the class's combos that reach the node).
    ``mix`` (13, 13, A) with NaN where nothing reaches, ``weight`` (13, 13) reach mass."""
    colors = action_colors(actions)
    shapes = []
    annotations = []
    for i in range(13):
        for j in range(13):
            x0, y0 = j, 12 - i
            shapes.append(_rect(x0, y0, x0 + 1, y0 + 1, EMPTY, line=True))
            cell = mix[i, j]
            if not np.all(np.isfinite(cell)) or weight[i, j] <= 0:
                continue
            h = min(1.0, weight[i, j] / _CELL_COMBOS[i, j])
            h = max(h, 0.12)
            x = float(x0)
            for a, f in enumerate(cell):
                if f <= 1e-4:
                    continue
                shapes.append(_rect(x, y0, x + float(f), y0 + h, colors[a]))
                x += float(f)
    for i in range(13):
        for j in range(13):
            annotations.append(
                {
                    "x": j + 0.5,
                    "y": 12 - i + 0.62,
                    "text": GRID_LABELS[i][j],
                    "showarrow": False,
                    "font": {"size": 10, "color": "#111"},
                }
            )
    xs = [j + 0.5 for i in range(13) for j in range(13)]
    ys = [12 - i + 0.5 for i in range(13) for j in range(13)]
    if hover is None:
        text = []
        for i in range(13):
            for j in range(13):
                cell = mix[i, j]
                lines = [f"<b>{GRID_LABELS[i][j]}</b>"]
                if np.all(np.isfinite(cell)):
                    lines += [
                        f"{action_name(a, pot)}: {100 * f:.1f}%"
                        for a, f in zip(actions, cell, strict=True)
                    ]
                else:
                    lines.append("not in range here")
                text.append("<br>".join(lines))
    else:
        text = [hover[i][j] for i in range(13) for j in range(13)]
    traces: list[go.Scatter] = [
        go.Scatter(
            x=xs,
            y=ys,
            mode="markers",
            marker={"size": 26, "opacity": 0, "symbol": "square"},
            hovertext=text,
            hoverinfo="text",
            showlegend=False,
        )
    ]
    for label, c in zip(actions, colors, strict=True):
        traces.append(
            go.Scatter(
                x=[None],
                y=[None],
                mode="markers",
                marker={"size": 12, "color": c, "symbol": "square"},
                name=action_name(label, pot),
            )
        )
    fig = go.Figure(traces)
    fig.update_layout(
        shapes=shapes,
        annotations=annotations,
        xaxis={"range": [0, 13], "visible": False, "fixedrange": True},
        yaxis={"range": [0, 13], "visible": False, "fixedrange": True, "scaleanchor": "x"},
        height=520,
        margin={"l": 5, "r": 5, "t": 30 if title else 5, "b": 5},
        legend={"orientation": "h", "y": -0.02},
        title=title or None,
        plot_bgcolor="white",
    )
    return fig


def _rect(x0: float, y0: float, x1: float, y1: float, color: str, line: bool = False) -> dict:
    return {
        "type": "rect",
        "x0": x0,
        "y0": y0,
        "x1": x1,
        "y1": y1,
        "fillcolor": color,
        "line": {"width": 1 if line else 0, "color": "white"},
        "layer": "below",
    }


def range_grid_figure(grid: Array, title: str = "", height: int = 360) -> go.Figure:
    """A (13, 13) grid of weights in [0, 1] (e.g. reach or range weights) as a heatmap with
    class labels."""
    z = np.where(np.isfinite(grid), grid, 0.0)[::-1]
    labels = [row for row in GRID_LABELS][::-1]
    text = [
        [f"{lab}<br>{100 * v:.0f}%" if v > 0 else lab for lab, v in zip(r, zr, strict=True)]
        for r, zr in zip(labels, z, strict=True)
    ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            text=[[lab for lab in r] for r in labels],
            hovertext=text,
            hoverinfo="text",
            texttemplate="%{text}",
            textfont={"size": 9},
            colorscale=[[0, "#f4f4f4"], [1, "#e8685a"]],
            zmin=0,
            zmax=1,
            showscale=False,
            xgap=1,
            ygap=1,
        )
    )
    fig.update_layout(
        title=title or None,
        height=height,
        margin={"l": 5, "r": 5, "t": 30 if title else 5, "b": 5},
        xaxis={"visible": False, "fixedrange": True},
        yaxis={"visible": False, "fixedrange": True, "scaleanchor": "x"},
    )
    return fig


def for_export(fig: go.Figure) -> go.Figure:
    """A copy in a light template with explicit margins (Streamlit's template looks wrong in
    files)."""
    out = go.Figure(fig)
    out.update_layout(template="plotly_white", paper_bgcolor="white")
    m = out.layout.margin
    out.update_layout(
        margin={
            "l": 60 if m.l is None else m.l,
            "r": 20 if m.r is None else m.r,
            "t": 40 if m.t is None else m.t,
            "b": 50 if m.b is None else m.b,
        }
    )
    return out


def finite(x: float | None) -> bool:
    return x is not None and math.isfinite(x)
