"""Charts of a batch report (data in, figures out): each player's action frequency per flop
as sorted stacked bars, a high-card × texture heatmap of a weighted number, and EV against
equity per flop. Inputs are the flat records of :func:`solver.batch.report.table_rows`."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import plotly.graph_objects as go

from app.components.colors import action_colors
from app.components.number_formats import combos_text
from solver.poker.flops import HIGH_CARDS
from solver.study.words import first_street_name

TEXTURES = ("rainbow", "two-tone", "monotone", "paired", "trips")
SUIT_COLORS = {"rainbow": "#1f77b4", "two-tone": "#ff7f0e", "monotone": "#2ca02c"}


def texture_of(rec: dict[str, Any]) -> str:
    """The heatmap's texture column: the pairing for paired and trips flops, else the suits."""
    return str(rec["pairing"]) if rec["pairing"] != "unpaired" else str(rec["suits"])


def aggressive(columns: Sequence[str], prefix: str) -> list[str]:
    """The bet and raise columns (``b:``/``r:``) among ``prefix`` action columns."""
    n = len(prefix)
    return [c for c in columns if c.startswith(prefix) and c[n:].startswith(("b:", "r:"))]


def mix_bars(
    records: Sequence[dict[str, Any]],
    columns: Sequence[str],
    prefix: str,
    title: str,
    pot: float | None = None,
    stack: float | None = None,
) -> go.Figure:
    """Stacked bars: one bar per flop, one segment per action column (``prefix`` + label),
    flops sorted by their aggressive frequency (most betting first). Actions named as
    everywhere in the app (:func:`solver.study.words.first_street_name` with the batch's ``pot``
    and ``stack``, chips)."""
    done = [r for r in records if r.get("status") == "done"]
    cols = [c for c in columns if c.startswith(prefix)]
    labels = [c[len(prefix) :] for c in cols]
    bets = aggressive(cols, prefix)
    done.sort(key=lambda r: (-sum(r.get(c, 0.0) for c in bets), r["flop"]))
    series = [
        (first_street_name(label, pot, stack), [r.get(col, 0.0) for r in done])
        for col, label in zip(cols, labels, strict=True)
    ]
    return stacked_columns(
        [r["flop"] for r in done], series, labels, title, "flop (sorted by bet frequency)"
    )


def stacked_columns(
    x: Sequence[str],
    series: Sequence[tuple[str, Sequence[float]]],
    actions: Sequence[str],
    title: str,
    x_title: str,
) -> go.Figure:
    """Stacked columns of frequencies: one column per ``x`` label, one segment per action
    (``series`` (name, frequencies 0–1 along ``x``), coloured by the codes ``actions``)."""
    fig = go.Figure()
    for (name, ys), color in zip(series, action_colors(list(actions)), strict=True):
        fig.add_bar(
            x=list(x),
            y=[100 * y for y in ys],
            name=name,
            marker_color=color,
            hovertemplate="%{x}: %{y:.1f} %<extra>" + name + "</extra>",
        )
    fig.update_layout(
        barmode="stack",
        title=title,
        yaxis={"title": "frequency (%)", "range": [0, 100]},
        xaxis={"title": x_title, "type": "category"},
        height=420,
        margin={"l": 60, "r": 20, "t": 50, "b": 80},
        legend={"orientation": "h", "y": 1.08},
    )
    return fig


def heatmap(records: Sequence[dict[str, Any]], metric: str, label: str) -> go.Figure:
    """High card (rows) × texture (columns): the weighted mean of ``metric`` over the flops
    in each cell (blank where the set has none)."""
    sums: dict[tuple[str, str], float] = {}
    weights: dict[tuple[str, str], float] = {}
    for r in records:
        v = r.get(metric)
        if r.get("status") != "done" or v is None or not math.isfinite(float(v)):
            continue
        key = (str(r["high"]), texture_of(r))
        sums[key] = sums.get(key, 0.0) + float(r["weight"]) * float(v)
        weights[key] = weights.get(key, 0.0) + float(r["weight"])
    highs = [h for h in HIGH_CARDS if any(k[0] == h for k in sums)]
    textures = [t for t in TEXTURES if any(k[1] == t for k in sums)]
    scale = 100.0 if _is_frequency(metric) else 1.0
    z = [
        [scale * sums[(h, t)] / weights[(h, t)] if (h, t) in sums else None for t in textures]
        for h in highs
    ]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=list(textures),
            y=[f"{h}-high" for h in highs],
            colorscale="RdBu_r" if scale == 100.0 else "Viridis",
            hovertemplate="%{y}, %{x}: %{z:.2f}<extra></extra>",
            colorbar={"title": "%" if scale == 100.0 else "chips"},
            texttemplate="%{z:.1f}",
        )
    )
    fig.update_layout(
        title=label,
        height=max(300, 40 * len(highs) + 120),
        yaxis={"autorange": "reversed"},
        margin={"l": 70, "r": 20, "t": 50, "b": 50},
    )
    return fig


def _is_frequency(metric: str) -> bool:
    return metric.startswith(("oop ", "ip vs ", "bet ")) or metric == "oop_bet"


def ev_equity(records: Sequence[dict[str, Any]], pot: float | None) -> go.Figure:
    """OOP's EV (chips) against OOP's equity per flop, a point per flop coloured by suits;
    the line EV = equity × pot is full realisation."""
    fig = go.Figure()
    for suits, color in SUIT_COLORS.items():
        pts = [r for r in records if r.get("status") == "done" and r["suits"] == suits]
        if not pts:
            continue
        fig.add_scatter(
            x=[100 * r["oop_equity"] for r in pts],
            y=[r["oop_ev"] for r in pts],
            mode="markers",
            name=suits,
            marker={"color": color, "size": [6 + 8 * math.sqrt(r["weight"] / 24) for r in pts]},
            text=[r["flop"] for r in pts],
            hovertemplate="%{text}: equity %{x:.1f}%, EV %{y:.2f}<extra></extra>",
        )
    if pot:
        fig.add_scatter(
            x=[0, 100], y=[0, pot], mode="lines", name="EV = equity × pot",
            line={"dash": "dot", "color": "#888888"},
        )  # fmt: skip
    fig.update_layout(
        title="OOP's EV against equity, per flop",
        xaxis={"title": "OOP equity (%)"},
        yaxis={"title": "OOP EV (chips)"},
        height=420,
        margin={"l": 60, "r": 20, "t": 50, "b": 50},
    )
    return fig


def class_bars(
    agg: dict[str, Any],
    title: str,
    pot: float | None = None,
    stack: float | None = None,
    names: dict[str, str] | None = None,
) -> go.Figure:
    """Horizontal stacked bars: one bar per hand class (strongest at the top), one segment
    per action, from :func:`solver.batch.report.class_aggregate` (actions named as
    :func:`mix_bars` names them, or by ``names`` {code: words} where given: a node past the
    flop's first action)."""
    from solver.poker.handclass import DRAW_LABELS, MADE_LABELS

    said = names or {}
    labels = {**MADE_LABELS, **DRAW_LABELS}
    classes = [c for c in agg["classes"] if c["mix"]]
    rows = [f"{labels.get(c['class'], c['class'])} ({combos_text(c['combos'])})" for c in classes]
    actions = list(agg["actions"])
    words = {a: said.get(a) or first_street_name(a, pot, stack) for a in actions}
    groups = [(row, c["mix"]) for row, c in zip(rows, classes, strict=True)]
    return group_bars(groups, words, title, actions=actions, row_px=28, min_px=300, left_px=230)


def line_mix_bars(
    records: Sequence[dict[str, Any]],
    aggregate: dict[str, float],
    names: dict[str, str],
    title: str,
) -> go.Figure:
    """The mix at a line (:mod:`solver.batch.lines`): a first bar for the flops' weighted
    ``aggregate`` {code: frequency}, then one per flop's record (``flop``, ``mix``), flops
    sorted by their bet and raise frequency (most first); actions named by ``names``
    {code: words}."""
    actions = list(aggregate)
    for r in records:
        actions += [a for a in r["mix"] if a not in actions]
    flops = sorted(
        records,
        key=lambda r: (-sum(f for a, f in r["mix"].items() if a.startswith(("b:", "r:"))),
                       r["flop"]),
    )  # fmt: skip
    x = ["all flops", *(r["flop"] for r in flops)]
    series = [
        (names.get(a, a), [aggregate.get(a, 0.0), *(r["mix"].get(a, 0.0) for r in flops)])
        for a in actions
    ]
    return stacked_columns(
        x, series, actions, title, "all flops (weighted), then each flop (most betting first)"
    )


def group_bars(
    groups: Sequence[tuple[str, dict[str, float]]],
    names: dict[str, str],
    title: str,
    *,
    actions: Sequence[str] | None = None,
    row_px: int = 32,
    min_px: int = 260,
    left_px: int = 160,
) -> go.Figure:
    """Horizontal stacked bars: one bar per group (``(name, mix)``, in the order given, the
    first at the top), one segment per action named by ``names`` {code: words}: ``actions``
    in that order, else those the mixes hold. Sizes in pixels: a row, the least height, the
    left margin (the groups' names)."""
    if actions is None:
        found: list[str] = []
        for _g, mix in groups:
            found += [a for a in mix if a not in found]
        actions = found
    fig = go.Figure()
    for a, color in zip(actions, action_colors(list(actions)), strict=True):
        name = names.get(a, a)
        fig.add_bar(
            y=[g for g, _m in groups],
            x=[100 * m.get(a, 0.0) for _g, m in groups],
            orientation="h",
            name=name,
            marker_color=color,
            hovertemplate="%{y}: %{x:.1f} %<extra>" + name + "</extra>",
        )
    fig.update_layout(
        barmode="stack",
        title=title,
        xaxis={"title": "frequency (%)", "range": [0, 100]},
        yaxis={"autorange": "reversed", "type": "category"},
        height=max(min_px, row_px * len(groups) + 120),
        margin={"l": left_px, "r": 20, "t": 50, "b": 50},
        legend={"orientation": "h", "y": 1.08},
    )
    return fig


GRID_RANKS = "AKQJT98765432"
GRID_SUITS = "shdc"


def card_grid(values: dict[str, float | None], title: str, unit: str) -> go.Figure:
    """A street's cards as a grid: ranks (rows, ace first) × suits (columns), each dealt
    card coloured by its value (``values`` {card name: number}; a card the line does not
    deal — on the board, or under the summary's cut — blank). ``unit``: ``%`` for
    fractions shown × 100, else the numbers' unit (chips)."""
    from solver.study.words import SUITS

    scale = 100.0 if unit == "%" else 1.0

    def cell(card: str) -> float | None:
        v = values.get(card)
        return scale * float(v) if v is not None and math.isfinite(float(v)) else None

    z = [[cell(r + s) for s in GRID_SUITS] for r in GRID_RANKS]
    fig = go.Figure(
        go.Heatmap(
            z=z,
            x=[SUITS[s] for s in GRID_SUITS],
            y=list(GRID_RANKS),
            colorscale="RdBu_r" if unit == "%" else "Viridis",
            zmin=0.0 if unit == "%" else None,
            zmax=100.0 if unit == "%" else None,
            texttemplate="%{z:.1f}",
            hovertemplate="%{y}%{x}: %{z:.2f}<extra></extra>",
            colorbar={"title": unit},
            xgap=2,
            ygap=2,
        )
    )
    fig.update_layout(
        title=title,
        height=520,
        yaxis={"autorange": "reversed", "type": "category"},
        xaxis={"type": "category", "side": "top"},
        margin={"l": 50, "r": 20, "t": 80, "b": 30},
    )
    return fig
