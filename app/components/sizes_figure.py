"""The sizes view's chart of one node: each size of the grid with its frequency (% of the
range), its EV (chips) and its removal regret (chips), the kept sizes marked. Data in, figure
out: the numbers are :class:`solver.study.sizes.SizesResult`'s."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence

import plotly.graph_objects as go
from plotly.subplots import make_subplots

KEPT_COLOR = "#2ca02c"
REMOVED_COLOR = "#b0b0b0"


def sizes_figure(
    labels: Sequence[str],
    names: Mapping[str, str],
    kept: Sequence[str],
    frequency: Mapping[str, float],
    action_ev: Mapping[str, float],
    removal_regret: Mapping[str, float],
    confirmed: Mapping[str, bool],
) -> go.Figure:
    """Three bar panels over the node's sizes (``labels``, the tree's, shown as ``names``):
    frequency in the superset solve (%), the range's EV betting it (chips), and the removal
    regret (chips; hatched: a best-response bound, plain: a re-solve). Kept sizes green."""
    x = [names.get(a, a) for a in labels]
    colors = [KEPT_COLOR if a in kept else REMOVED_COLOR for a in labels]
    fig = make_subplots(
        rows=1,
        cols=3,
        subplot_titles=(
            "frequency (% of the range)",
            "EV when bet (chips)",
            "removal regret (chips)",
        ),
    )
    panels = (
        [100.0 * frequency.get(a, 0.0) for a in labels],
        [action_ev.get(a, math.nan) for a in labels],
        [removal_regret.get(a, math.nan) for a in labels],
    )
    for col, values in enumerate(panels, start=1):
        fig.add_trace(
            go.Bar(
                x=x,
                y=values,
                marker={
                    "color": colors,
                    "pattern": {
                        "shape": ["" if col < 3 or confirmed.get(a) else "/" for a in labels]
                    },
                },
                hovertext=[f"{a}: {'kept' if a in kept else 'removed'}" for a in labels],
                showlegend=False,
            ),
            row=1,
            col=col,
        )
    fig.update_layout(height=260, margin={"l": 5, "r": 5, "t": 30, "b": 5}, bargap=0.2)
    fig.update_annotations(font_size=12)
    return fig


def certificate_words(
    player: str,
    kept: Mapping[str, Sequence[str]],
    names: Mapping[str, Mapping[str, str]],
    loss_pct_pot: float,
    loss_chips: float,
    grid_size: int,
) -> str:
    """The certificate in words: "OOP keeps 33% and 125% at root: gives up 0.04 % of the pot
    (0.08 chips) against an opponent who keeps all 9"."""
    parts = []
    for line, actions in kept.items():
        shown = [names.get(line, {}).get(a, a) for a in actions]
        text = " and ".join(shown) if len(shown) <= 2 else ", ".join(shown)
        parts.append(f"{text} at {line}")
    where = "; ".join(parts) if parts else "no node to simplify"
    # below zero the figure is the solves' own error (docs/sizes.md, "The certificate")
    gives = (
        f"gives up {loss_pct_pot:.3f} % of the pot ({loss_chips:.3f} chips)"
        if loss_chips > 0
        else f"gives up nothing measurable ({loss_pct_pot:.3f} % of the pot, within the error bars)"
    )
    return (
        f"**{player.upper()} keeps {where}**: {gives} against an opponent who keeps all "
        f"{grid_size} sizes and every response."
    )
