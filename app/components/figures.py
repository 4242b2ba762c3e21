"""Plotly figures: the exploitability curve, the memory curve, a race's overlaid curves, the
13×13 strategy grid (each cell split by action mix), the range grid. Pure functions: data in,
figure out (no Streamlit)."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from app.components.colors import EMPTY, action_colors
from app.components.raster import GRID_CELL_PX, cell_bars, grid_png, log_ticks, tick_text
from solver.cfr.checks import Check
from solver.poker.ranges import GRID_LABELS
from solver.run.race.report import RacePoint
from solver.study.words import label_name

Array = npt.NDArray[np.float64]


CURVE_X = ("iterations", "seconds", "nodes touched")
"""The x axes of the Solve page's curves."""


def point_x(p: Check, x_axis: str) -> float:
    """A history point's x value: its iteration, solve seconds, or nodes touched so far."""
    if x_axis == "iterations":
        return p.iteration
    if x_axis == "seconds":
        return p.elapsed_s
    if x_axis == "nodes touched":
        return p.nodes_touched
    raise ValueError(f"unknown x axis {x_axis!r} (one of {', '.join(CURVE_X)})")


def log_axis(values: Sequence[float], fmt: Callable[[float], str] = lambda v: f"{v:g}") -> dict:
    """Plotly axis settings for a log axis over ``values`` (positive ones): ticks at every
    decade, and at 2 and 5 of each when the values span fewer than three decades, each
    labelled in full (100, 50, 20, 10, 5, 2, 1, 0.5 — never Plotly's bare "5" that means 50
    or 0.5, nor "100μ"). The same ticks as the live view's picture
    (:func:`app.components.raster.log_ticks`)."""
    pos = [v for v in values if v > 0 and math.isfinite(v)]
    if not pos:
        return {"type": "log"}
    lo, hi = min(pos), max(pos)
    # the ticks around the data: one step beyond it on either side, so the ends are labelled
    ticks = log_ticks(lo / 2.0, hi * 2.0) if hi > lo else [lo]
    return {"type": "log", "tickvals": ticks, "ticktext": [fmt(t) for t in ticks]}


def _target_label(fig: go.Figure, y: float, text: str) -> None:
    """A label on a horizontal line at ``y`` of a log y axis (placed by hand: on a log axis
    an annotation's y is log10 of the value; add_hline's own lands in the wrong place)."""
    fig.add_annotation(
        x=0, xref="paper", y=math.log10(y), yref="y", text=text, showarrow=False,
        xanchor="left", yanchor="bottom", font={"size": 10, "color": "#666666"},
    )  # fmt: skip


def curve_figure(
    history: Sequence[Check],
    x_axis: str = "iterations",
    target: float | None = None,
    unit: str = "chips",
    scale: float = 1.0,
    limit: int | None = None,
    markers_up_to: int | None = None,
    height: int = 340,
    replay: bool = False,
) -> go.Figure:
    """Exploitability of the average strategy (log y) against iterations, seconds or nodes
    touched (``x_axis``, one of :data:`CURVE_X`). ``scale`` converts chips to ``unit`` (e.g.
    100 / pot for % pot). At most about ``limit`` points (:func:`thin`; default
    :data:`MAX_CURVE_POINTS`); a marker per point unless there are more than
    ``markers_up_to``. ``replay``: a *Replay* button that redraws the curve check by check
    (:data:`REPLAY_FRAMES` frames at most, axes fixed), for a solve too fast to watch."""
    pts = thin([p for p in history if p.exploitability > 0], limit or MAX_CURVE_POINTS)
    xs = [point_x(p, x_axis) for p in pts]
    ys = [p.exploitability * scale for p in pts]
    many = markers_up_to is not None and len(pts) > markers_up_to
    fig = go.Figure(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines" if many else "lines+markers",
            marker={"size": 4},
            line={"color": "#d43d33"},
            name="exploitability",
            hovertemplate=f"%{{x}}<br>%{{y:.4g}} {unit}<extra></extra>",
        )
    )
    shown = list(ys)
    if target is not None and target > 0:
        fig.add_hline(y=target * scale, line={"dash": "dash", "color": "#4bb34b"})
        _target_label(fig, target * scale, f"target {target * scale:.3g} {unit}")
        shown.append(target * scale)
    fig.update_yaxes(**log_axis(shown))
    fig.update_layout(
        xaxis_title=x_axis,
        yaxis_title=f"exploitability ({unit})",
        height=height,
        margin={"l": 60, "r": 20, "t": 30, "b": 50},
        showlegend=False,
    )
    if replay and len(xs) > 1:
        _add_replay(fig, xs, ys, shown)
    return fig


REPLAY_FRAMES = 40
REPLAY_FRAME_MS = 80


def _add_replay(fig: go.Figure, xs: list[float], ys: list[float], shown: list[float]) -> None:
    """Frames showing the first k points of the curve (k up to all), a *Replay* button that
    plays them, and the axes fixed to the whole curve so that the replay does not rescale."""
    n = len(xs)
    counts = sorted({max(1, round(n * (i + 1) / REPLAY_FRAMES)) for i in range(REPLAY_FRAMES)})
    fig.frames = [go.Frame(data=[go.Scatter(x=xs[:k], y=ys[:k])], name=str(k)) for k in counts]
    pos = [v for v in shown if v > 0 and math.isfinite(v)]
    lo, hi = math.log10(min(pos)), math.log10(max(pos))
    pad = max(0.05 * (hi - lo), 0.05)
    fig.update_yaxes(range=[lo - pad, hi + pad], autorange=False)
    span = (max(xs) - min(xs)) or 1.0
    fig.update_xaxes(range=[min(xs) - 0.02 * span, max(xs) + 0.02 * span], autorange=False)
    play = {"frame": {"duration": REPLAY_FRAME_MS, "redraw": False}, "fromcurrent": False,
            "transition": {"duration": 0}, "mode": "immediate"}  # fmt: skip
    fig.update_layout(
        updatemenus=[
            {
                "type": "buttons",
                "showactive": False,
                "x": 1.0,
                "y": 1.12,
                "xanchor": "right",
                "buttons": [{"label": "▶ Replay", "method": "animate", "args": [None, play]}],
            }
        ]
    )


_BYTE_UNITS = (("GB", 2**30), ("MB", 2**20), ("KB", 2**10))


def byte_unit(n: float) -> tuple[str, int]:
    """The unit to show ``n`` bytes in, and its size in bytes: GB, MB, KB (powers of 1,024,
    as the set-up page's memory estimate) or bytes."""
    for unit, size in _BYTE_UNITS:
        if n >= size:
            return unit, size
    return "bytes", 1


def human_bytes(n: float) -> str:
    """``n`` bytes as text with four significant digits: ``36.09 KB``, ``1.5 MB``."""
    unit, size = byte_unit(n)
    return f"{n / size:.4g} {unit}"


def memory_figure(
    history: Sequence[Check],
    x_axis: str = "iterations",
    limit: int | None = None,
) -> go.Figure:
    """Memory the solve holds (:attr:`solver.cfr.checks.Check.memory_bytes`: regrets, strategy
    sums and buffers still needed; it falls while Total RBP prunes) against iterations,
    seconds or nodes touched (``x_axis``, one of :data:`CURVE_X`). One unit for the whole
    curve, chosen by its largest value; points without a memory figure (old saves) are left
    out. The y axis is fitted to the data (not from zero), so small changes are visible. At
    most about ``limit`` points (:func:`thin`)."""
    pts = thin([p for p in history if p.memory_bytes > 0], limit or MAX_CURVE_POINTS)
    unit, size = byte_unit(max((p.memory_bytes for p in pts), default=0))
    fig = go.Figure(
        go.Scatter(
            x=[point_x(p, x_axis) for p in pts],
            y=[p.memory_bytes / size for p in pts],
            mode="lines+markers",
            marker={"size": 4},
            line={"color": "#1f77b4"},
            name="memory held",
            customdata=[p.memory_bytes for p in pts],
            hovertemplate=f"%{{x}}<br>%{{y:.4g}} {unit} (%{{customdata:,}} bytes)<extra></extra>",
        )
    )
    fig.update_layout(
        xaxis_title=x_axis,
        yaxis_title=f"memory held ({unit})",
        height=260,
        margin={"l": 60, "r": 20, "t": 30, "b": 50},
        showlegend=False,
    )
    return fig


RACE_COLORS = ("#d43d33", "#1f77b4", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf")
RACE_X = {
    "iterations": "iterations",
    "seconds": "CPU seconds (each algorithm's own)",
    "nodes": "nodes touched",
}


def race_x(p: RacePoint, x_axis: str) -> float:
    """A race point's x value: iterations, its algorithm's CPU seconds, or nodes touched."""
    if x_axis == "iterations":
        return float(p.iteration)
    if x_axis == "seconds":
        return p.cpu_s
    if x_axis == "nodes":
        return float(p.nodes_touched)
    raise ValueError(f"unknown x axis {x_axis!r} (one of {', '.join(RACE_X)})")


def race_figure(
    curves: Sequence[tuple[str, Sequence[RacePoint]]],
    x_axis: str = "iterations",
    targets: Sequence[tuple[str, float]] = (),
    unit: str = "chips",
    scale: float = 1.0,
    title: str = "",
) -> go.Figure:
    """Every algorithm's exploitability curve overlaid, log-log: ``curves`` are (label,
    points) pairs in race order (one colour each, in :data:`RACE_COLORS` order); ``x_axis``
    is "iterations", "seconds" (each algorithm's own CPU seconds) or "nodes" (nodes
    touched); ``targets`` (label, chips) become dotted lines. ``scale`` converts chips to
    ``unit`` (e.g. 100 / pot for % pot). Points with a non-positive x or y are left out (a
    log axis cannot show them)."""
    traces = []
    for k, (label, points) in enumerate(curves):
        pts = [p for p in points if p.exploitability > 0 and race_x(p, x_axis) > 0]
        traces.append(
            go.Scatter(
                x=[race_x(p, x_axis) for p in pts],
                y=[p.exploitability * scale for p in pts],
                mode="lines+markers",
                marker={"size": 4},
                line={"color": RACE_COLORS[k % len(RACE_COLORS)], "width": 2},
                name=label,
                customdata=[[p.iteration, p.cpu_s] for p in pts],
                hovertemplate=(
                    f"<b>{label}</b><br>iteration %{{customdata[0]:,}}<br>"
                    f"%{{customdata[1]:.3f}} CPU s<br>%{{y:.4g}} {unit}<extra></extra>"
                ),
            )
        )
    fig = go.Figure(traces)
    for label, chips in targets:
        y = chips * scale
        if not y > 0:
            continue
        fig.add_hline(y=y, line={"dash": "dot", "color": "#888888", "width": 1})
        _target_label(fig, y, label)
    ys = [y for t in traces for y in (t.y or ())] + [c * scale for _, c in targets]
    xs = [x for t in traces for x in (t.x or ())]
    fig.update_xaxes(**log_axis(xs, tick_text))
    fig.update_yaxes(**log_axis(ys))
    fig.update_layout(
        title={"text": title, "y": 0.97, "yanchor": "top"} if title else None,
        xaxis_title=RACE_X.get(x_axis, x_axis),
        yaxis_title=f"exploitability ({unit})",
        height=460 if title else 420,
        margin={"l": 60, "r": 20, "t": 85 if title else 30, "b": 50},
        legend={"orientation": "h", "y": 1.02, "yanchor": "bottom", "x": 0},
    )
    return fig


MAX_CURVE_POINTS = 1500


def thin(points: list[Check], limit: int = MAX_CURVE_POINTS) -> list[Check]:
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
    vector: bool = False,
    names: list[str] | None = None,
) -> go.Figure:
    """The 13×13 grid: each cell a stack of action colours (widths = reach-weighted action
    frequencies of the class; height = share of the class's combos that reach the node).
    ``mix`` (13, 13, A) with NaN where nothing reaches, ``weight`` (13, 13) reach mass.

    The cells are one PNG image (:func:`grid_png`, without labels) under one transparent
    heatmap that carries the hover text, and the class labels as one text trace
    (:func:`grid_labels`: a picture's letters, scaled to the screen, blurred to ".Jo" at a
    pixel ratio of 1): a handful of elements for the browser to draw, where a rectangle per
    cell and action meant hundreds (the live view redraws it while a solve runs). ``vector`` draws
    rectangles instead, for exported files (SVG stays vector, PNG stays sharp at any scale).
    ``names`` label the actions in the legend (default: :func:`solver.study.words.label_name` of
    each).
    """
    colors = action_colors(actions)
    names = names or [label_name(a, pot) for a in actions]
    if hover is None:
        hover = [[_default_hover(mix[i, j], GRID_LABELS[i][j], actions, pot) for j in range(13)]
                 for i in range(13)]  # fmt: skip
    centres = [k + 0.5 for k in range(13)]
    traces: list[go.BaseTraceType] = []
    layout: dict = {}
    if vector:
        layout["shapes"], layout["annotations"] = _vector_cells(mix, weight, colors)
    else:
        traces.append(
            go.Image(
                source=grid_png(mix, weight, colors, labels=False),
                x0=0.5 / GRID_CELL_PX,
                y0=0.5 / GRID_CELL_PX,
                dx=1.0 / GRID_CELL_PX,
                dy=1.0 / GRID_CELL_PX,
                hoverinfo="skip",
            )
        )
    traces.append(
        go.Heatmap(
            z=np.zeros((13, 13)),
            x=centres,
            y=centres,
            hovertext=hover,
            hoverinfo="text",
            colorscale=[[0, "rgba(0,0,0,0)"], [1, "rgba(0,0,0,0)"]],
            showscale=False,
            showlegend=False,
        )
    )
    if not vector:  # the labels as text: sharp at any pixel ratio, on screen and exported
        traces.append(grid_labels())
    traces.extend(legend_swatches(names, colors))
    fig = go.Figure(traces)
    fig.update_layout(
        **layout,
        xaxis={"range": [0, 13], "visible": False, "fixedrange": True},
        yaxis={
            "range": [13, 0],
            "visible": False,
            "fixedrange": True,
            "scaleanchor": "x",
        },
        height=520,
        margin={"l": 5, "r": 5, "t": 30 if title else 5, "b": 5},
        legend={"orientation": "h", "y": -0.02},
        title=title or None,
        plot_bgcolor="white",
    )
    return fig


def grid_labels() -> go.Scatter:
    """The 169 class labels as a text trace over the grid's picture (each 38 % down its
    cell, as the exported grids place them)."""
    return go.Scatter(
        x=[j + 0.5 for i in range(13) for j in range(13)],
        y=[i + 0.38 for i in range(13) for j in range(13)],
        text=[GRID_LABELS[i][j] for i in range(13) for j in range(13)],
        mode="text",
        textfont={"size": 10, "color": "#111"},
        hoverinfo="skip",
        showlegend=False,
        name="labels",
    )


def _default_hover(cell: Array, label: str, actions: list[str], pot: float | None) -> str:
    lines = [f"<b>{label}</b>"]
    if np.all(np.isfinite(cell)):
        lines += [
            f"{label_name(a, pot)}: {100 * f:.1f}%" for a, f in zip(actions, cell, strict=True)
        ]
    else:
        lines.append("not in range here")
    return "<br>".join(lines)


def _vector_cells(mix: Array, weight: Array, colors: list[str]) -> tuple[list[dict], list[dict]]:
    """The grid as shapes (a rectangle per cell and per action bar) and label annotations,
    in the figure's coordinates (row ``i`` from ``i`` to ``i + 1`` down the reversed y axis)."""
    shapes = [_rect(j, i, j + 1, i + 1, EMPTY, line=True) for i in range(13) for j in range(13)]
    for i, j, h, widths in cell_bars(mix, weight):
        x = float(j)
        for a, w in enumerate(widths):
            if w > 0:
                shapes.append(_rect(x, i + 1 - h, x + w, i + 1, colors[a]))
                x += w
    annotations = [
        {"x": j + 0.5, "y": i + 0.38, "text": GRID_LABELS[i][j], "showarrow": False,
         "font": {"size": 10, "color": "#111"}}
        for i in range(13) for j in range(13)
    ]  # fmt: skip
    return shapes, annotations


def legend_swatches(names: Sequence[str], colors: Sequence[str]) -> list[go.Scatter]:
    """One legend entry per action: an empty trace drawn in the legend as a coloured square
    (the grids draw their cells as shapes, which have no legend of their own)."""
    return [
        go.Scatter(
            x=[None],
            y=[None],
            mode="markers",
            marker={"size": 12, "color": c, "symbol": "square"},
            name=name,
        )
        for name, c in zip(names, colors, strict=True)
    ]


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
