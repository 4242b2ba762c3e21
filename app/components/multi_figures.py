"""Figures and tables of a three-player solve (docs/multiway.md), pure: the checks' curves —
one Nash distance per player and NashConv — and a node's strategy per hand."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from app.components.figures import MAX_CURVE_POINTS, log_axis
from solver.cfr.multi_solve import MultiCheckpoint, action_word

PLAYER_COLORS = ("#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b")
NASH_CONV_COLOR = "#d43d33"
MULTI_X = ("iterations", "seconds")


def player_label(p: int) -> str:
    """Player ``p`` (the API's 0-based index) as people count: "player 1" acts first."""
    return f"player {p + 1}"


def curve_names(players: int) -> list[str]:
    """The curves' names, as their legend shows them."""
    return [f"Nash distance ({player_label(p)})" for p in range(players)] + ["NashConv"]


def thinned(
    history: Sequence[MultiCheckpoint], limit: int = MAX_CURVE_POINTS
) -> list[MultiCheckpoint]:
    """At most about ``limit`` checks, log-spaced by index, the first and last kept (as
    the heads-up curve's :func:`app.components.figures.thin`)."""
    if len(history) <= limit:
        return list(history)
    idx = np.unique(np.geomspace(1, len(history), limit).astype(np.int64) - 1)
    keep = [history[int(i)] for i in idx]
    if keep[-1] is not history[-1]:
        keep.append(history[-1])
    return keep


def nash_figure(
    history: Sequence[MultiCheckpoint],
    x_axis: str = "iterations",
    target: float | None = None,
    height: int = 360,
    pot: float | None = None,
) -> go.Figure:
    """Each player's Nash distance and NashConv (chips, log y) of the average profile at
    each check, against iterations or seconds (``x_axis``); ``target`` (chips, applied to
    the largest distance) as a dashed line. Zeros (exact equilibria) are left out of the
    log axis. At most about :data:`MAX_CURVE_POINTS` checks are drawn (:func:`thinned`).
    ``pot`` (chips; a river spot's starting pot): the y axis in % of it instead of chips."""
    scale = 100.0 / pot if pot else 1.0
    unit = "% pot" if pot else "chips"
    players = len(history[0].nash_distance) if history else 3
    history = thinned(history)
    xs = [c.iteration if x_axis == "iterations" else c.elapsed_s for c in history]
    fig = go.Figure()
    shown: list[float] = []
    names = curve_names(players)
    for p in range(players):
        ys = [scale * c.nash_distance[p] for c in history]
        shown += ys
        fig.add_trace(
            go.Scatter(
                x=xs,
                y=[y if y > 0 else None for y in ys],
                mode="lines+markers" if len(xs) <= 200 else "lines",
                marker={"size": 4},
                line={"color": PLAYER_COLORS[p % len(PLAYER_COLORS)]},
                name=names[p],
                hovertemplate=f"{names[p]}<br>%{{x}}<br>%{{y:.4g}} {unit}<extra></extra>",
            )
        )
    conv = [scale * c.nash_conv for c in history]
    shown += conv
    fig.add_trace(
        go.Scatter(
            x=xs,
            y=[y if y > 0 else None for y in conv],
            mode="lines",
            line={"color": NASH_CONV_COLOR, "dash": "dot"},
            name=names[-1],
            hovertemplate=f"NashConv<br>%{{x}}<br>%{{y:.4g}} {unit}<extra></extra>",
        )
    )
    if target is not None and target > 0:
        fig.add_hline(y=scale * target, line={"dash": "dash", "color": "#4bb34b"})
        shown.append(scale * target)
    fig.update_yaxes(**log_axis(shown))
    fig.update_layout(
        xaxis_title="iterations" if x_axis == "iterations" else "seconds",
        yaxis_title="% of the starting pot" if pot else "chips per game",
        height=height,
        margin={"l": 60, "r": 20, "t": 30, "b": 50},
        legend={"orientation": "h", "y": 1.12},
    )
    return fig


def strategy_frame(table: Mapping[str, Mapping[str, float]]) -> pd.DataFrame:
    """A node's strategy (hand → action label → probability) as a table: one row per hand,
    one column per action in words, in %."""
    rows = []
    for hand, mix in table.items():
        row: dict[str, object] = {"hand": hand}
        for a, prob in mix.items():
            row[action_word(a)] = round(100.0 * prob, 2)
        rows.append(row)
    return pd.DataFrame(rows)


def strategy_bars(table: Mapping[str, Mapping[str, float]], height: int = 300) -> go.Figure:
    """The same as stacked bars: one bar per hand, each action's share of it."""
    hands = list(table)
    actions = list(next(iter(table.values()))) if table else []
    fig = go.Figure()
    for i, a in enumerate(actions):
        fig.add_trace(
            go.Bar(
                x=hands,
                y=[100.0 * table[h][a] for h in hands],
                name=action_word(a),
                marker={"color": PLAYER_COLORS[(i + 3) % len(PLAYER_COLORS)]},
            )
        )
    fig.update_layout(
        barmode="stack",
        yaxis_title="% of the hand's play",
        yaxis={"range": [0, 100]},
        height=height,
        margin={"l": 60, "r": 20, "t": 30, "b": 40},
    )
    return fig
