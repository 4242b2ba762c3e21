"""The chart by stack as a 13×13 heatmap: per hand class the largest stack (bb) at which it
still shoves (SB) or calls (BB), as :meth:`solver.study.preflop_chart.StackChart.largest`
gives it. Pure: data in, figure out."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import plotly.graph_objects as go

from solver.poker.ranges import CLASS_LABELS

Array = npt.NDArray[np.float64]


def stack_text(value: float, top: float) -> str:
    """A cell's stack as the chart says it: ``7.5``, ``20+`` at the largest stack solved
    (it may play beyond), ``–`` for never."""
    if not np.isfinite(value):
        return "–"
    return f"{top:g}+" if value >= top else f"{value:g}"


def stack_chart_figure(largest: Array, top: float, title: str = "", height: int = 460) -> go.Figure:
    """``largest`` (169,) stacks in bb (NaN: never), :data:`CLASS_LABELS` order (row-major,
    pairs on the diagonal, suited above); ``top`` the largest stack solved. Deeper red = plays
    at deeper stacks."""
    grid = np.asarray(largest, dtype=np.float64).reshape(13, 13)
    labels = np.asarray(CLASS_LABELS).reshape(13, 13)
    text = [
        [f"{labels[i, j]}<br>{stack_text(grid[i, j], top)}" for j in range(13)] for i in range(13)
    ]
    hover = [
        [
            f"<b>{labels[i, j]}</b>: "
            + (
                "never"
                if not np.isfinite(grid[i, j])
                else f"up to {stack_text(grid[i, j], top)} bb"
            )
            for j in range(13)
        ]
        for i in range(13)
    ]
    z = np.where(np.isfinite(grid), grid, 0.0)
    fig = go.Figure(
        go.Heatmap(
            z=z[::-1],
            text=text[::-1],
            hovertext=hover[::-1],
            hoverinfo="text",
            texttemplate="%{text}",
            textfont={"size": 9},
            colorscale=[[0, "#f4f4f4"], [0.02, "#fbe0d6"], [1, "#b0231e"]],
            zmin=0,
            zmax=top,
            colorbar={"title": {"text": "bb"}, "thickness": 12},
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


def chart_csv(stacks: tuple[float, ...], sb: Array, bb: Array) -> str:
    """The two charts as CSV: one row per hand class, the largest stack (bb) at which the SB
    shoves and the BB calls (empty: never), and the stacks solved."""
    lines = [
        f"# stacks solved (bb): {' '.join(f'{s:g}' for s in stacks)}",
        "hand,sb_shoves_up_to,bb_calls_up_to",
    ]
    for k, label in enumerate(CLASS_LABELS):
        a = "" if not np.isfinite(sb[k]) else f"{sb[k]:g}"
        b = "" if not np.isfinite(bb[k]) else f"{bb[k]:g}"
        lines.append(f"{label},{a},{b}")
    return "\n".join(lines) + "\n"
