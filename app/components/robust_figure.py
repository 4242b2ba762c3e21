"""The restricted Nash response's risk curve (docs/exploit.md, "How much the exploit risks"):
exploitation against exploitability, one marker per p with its label and error bars, and the
same numbers as a table. Pure: data in, figure or frame out."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import pandas as pd
import plotly.graph_objects as go


class Point(Protocol):
    """What a point of the curve shows (:class:`solver.study.robust.RobustPoint`'s fields,
    read only)."""

    @property
    def p(self) -> float: ...

    @property
    def iterations(self) -> int: ...

    @property
    def exploitation_chips(self) -> float: ...

    @property
    def exploitation_pct_pot(self) -> float | None: ...

    @property
    def exploitability_chips(self) -> float: ...

    @property
    def exploitability_pct_pot(self) -> float | None: ...

    @property
    def error_chips(self) -> float: ...

    @property
    def seconds(self) -> float: ...


def _pct(points: Sequence[Point]) -> bool:
    return all(
        pt.exploitation_pct_pot is not None and pt.exploitability_pct_pot is not None
        for pt in points
    )


def label_positions(n: int) -> list[str]:
    """Where each of ``n`` markers' p labels goes: above-left and below-right in turn, so
    the labels of neighbouring points that nearly coincide (small p, near the origin) do
    not print over each other."""
    return ["top left" if i % 2 == 0 else "bottom right" for i in range(n)]


def risk_figure(points: Sequence[Point], height: int = 380) -> go.Figure:
    """Exploitation (y) against exploitability (x), in % of the pot where every point has
    a pot (hold'em), else chips; each marker labelled with its p, error bars ± its solve's
    NashConv in the restricted game (chips, scaled like the axes)."""
    pct = _pct(points)
    unit = "% pot" if pct else "chips"

    def scale(pt: Point) -> float:
        if not pct or pt.exploitation_chips == 0.0 or pt.exploitation_pct_pot is None:
            return 1.0
        return pt.exploitation_pct_pot / pt.exploitation_chips

    xs = [pt.exploitability_pct_pot if pct else pt.exploitability_chips for pt in points]
    ys = [pt.exploitation_pct_pot if pct else pt.exploitation_chips for pt in points]
    err = [2.0 * pt.error_chips * scale(pt) for pt in points]
    fig = go.Figure(
        go.Scatter(
            x=xs,
            y=ys,
            mode="lines+markers+text",
            text=[f"p={pt.p:g}" for pt in points],
            textposition=label_positions(len(points)),
            error_x={"type": "data", "array": err, "visible": True},
            error_y={"type": "data", "array": err, "visible": True},
            hovertemplate=f"%{{text}}<br>exploitability %{{x:.3f}} {unit}"
            f"<br>exploitation %{{y:.3f}} {unit}<extra></extra>",
            name="restricted Nash response",
        )
    )
    fig.update_layout(
        height=height,
        margin={"l": 10, "r": 10, "t": 30, "b": 10},
        xaxis_title=f"exploitability: what a best response takes back ({unit})",
        yaxis_title=f"exploitation: won against the profile ({unit})",
        showlegend=False,
    )
    return fig


def risk_frame(points: Sequence[Point]) -> pd.DataFrame:
    """One row per p: the two measures in chips and % pot, the error, iterations, seconds."""
    return pd.DataFrame(
        [
            {
                "p": pt.p,
                "exploitation (chips)": pt.exploitation_chips,
                "exploitation (% pot)": pt.exploitation_pct_pot,
                "exploitability (chips)": pt.exploitability_chips,
                "exploitability (% pot)": pt.exploitability_pct_pot,
                "± (chips)": 2.0 * pt.error_chips,
                "iterations": pt.iterations,
                "seconds": pt.seconds,
            }
            for pt in points
        ],
        columns=[
            "p", "exploitation (chips)", "exploitation (% pot)", "exploitability (chips)",
            "exploitability (% pot)", "± (chips)", "iterations", "seconds",
        ],
    )  # fmt: skip
