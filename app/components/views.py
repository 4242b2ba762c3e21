"""Strategy views shared by the Solve and Explore pages: the hold'em 13×13 grid (with each
cell's combos on hover) and the per-card table of the toy games."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd
import plotly.graph_objects as go

from app.components.colors import action_colors
from app.components.figures import strategy_grid_figure
from app.components.number_formats import combos_text
from app.components.raster import grid_picture
from solver.cfr.reach import path_reach
from solver.games.model import Game
from solver.poker.ranges import GRID_LABELS
from solver.study.analysis import cell_of_hands, grid_mix
from solver.study.words import action_names

Array = npt.NDArray[np.float64]
MAX_HOVER_COMBOS = 12


def node_reach(game: Game, node: int, sigma: Array | None) -> tuple[Array, Array]:
    """Both players' reach at ``node`` under ``sigma`` (the range weights when None and the
    node is the root, or when no strategy exists yet)."""
    if sigma is None:
        return (
            game.hands.weights[0, : game.num_hands[0]] * game.valid_hands(node, 0),
            game.hands.weights[1, : game.num_hands[1]] * game.valid_hands(node, 1),
        )
    return path_reach(game, sigma, node)


def grid_figure(
    game: Game,
    node: int,
    strategy: Array,
    reach: Array,
    pot: float | None = None,
    title: str = "",
    vector: bool = False,
) -> go.Figure:
    """The acting player's 13×13 grid at a decision node; hover lists the cell's combos.
    ``vector``: rectangles instead of one picture (for exported files)."""
    player = int(game.tree.player[node])
    actions = game.action_labels(node)
    reach = np.where(game.valid_hands(node, player), reach, 0.0)
    mix, weight = grid_mix(game, player, strategy, reach)
    cells = cell_of_hands(game, player)
    names = game.hand_names[player]
    names_of = action_names(game, node)
    hover: list[list[str]] = [[f"<b>{GRID_LABELS[i][j]}</b>" for j in range(13)] for i in range(13)]
    by_cell: dict[int, list[int]] = {}
    for hi in np.flatnonzero(reach > 0):
        by_cell.setdefault(int(cells[hi]), []).append(int(hi))
    for cell, hands in by_cell.items():
        i, j = divmod(cell, 13)
        lines = [hover[i][j] + f" — {combos_text(float(weight[i, j]))} reach"]
        lines += [f"{n}: {100 * f:.1f}%" for n, f in zip(names_of, mix[i, j], strict=True)]
        for h in hands[:MAX_HOVER_COMBOS]:
            mixes = " / ".join(f"{100 * strategy[k, h]:.0f}" for k in range(len(actions)))
            lines.append(f"{names[h]}: {mixes}")
        if len(hands) > MAX_HOVER_COMBOS:
            lines.append(f"… {len(hands) - MAX_HOVER_COMBOS} more")
        hover[i][j] = "<br>".join(lines)
    for i in range(13):
        for j in range(13):
            if "<br>" not in hover[i][j]:
                hover[i][j] += "<br>not in range here"
    return strategy_grid_figure(
        mix,
        weight,
        actions,
        hover=hover,
        pot=pot,
        title=title,
        names=names_of,
    )


def grid_picture_of(
    game: Game,
    node: int,
    strategy: Array,
    reach: Array,
    pot: float | None = None,
    width: int = 420,
) -> bytes:
    """The acting player's 13×13 grid at a decision node with its legend, as PNG bytes (no
    hover): the live view's picture while a solve runs."""
    player = int(game.tree.player[node])
    actions = game.action_labels(node)
    reach = np.where(game.valid_hands(node, player), reach, 0.0)
    mix, weight = grid_mix(game, player, strategy, reach)
    names = action_names(game, node)
    return grid_picture(mix, weight, action_colors(actions), names, width)


def card_table(game: Game, node: int, strategy: Array, reach: Array) -> pd.DataFrame:
    """Toy games: one row per private card, its reach and its action frequencies (both in %,
    two decimals at most: ``87.8``, not ``0.878`` or ``87.797``)."""
    player = int(game.tree.player[node])
    names = action_names(game, node)
    valid = game.valid_hands(node, player)
    rows = []
    for h, name in enumerate(game.hand_names[player]):
        if not valid[h]:
            continue
        row: dict[str, object] = {"card": name, "reach %": round(100 * float(reach[h]), 2)}
        for a, label in enumerate(names):
            row[label] = round(100 * float(strategy[a, h]), 2)
        rows.append(row)
    return pd.DataFrame(rows)


def charts_html(game: Game, sigma: Array, players: tuple[str, str] | None = None) -> str:
    """Every decision node's 13×13 grid of a hold'em game (a preflop game's charts: the SB's
    shove/raise chart, the BB's answers, …) as one HTML page, each titled by its line in
    words; ``sigma`` (action_size,) the average strategy. plotly.js is embedded once."""
    from solver.study.words import line_words, node_words

    parts: list[str] = []
    for k, n in enumerate(int(x) for x in game.decision_nodes()):
        player = int(game.tree.player[n])
        off, na, nh = game.block(n)
        strategy = np.asarray(sigma[off : off + na * nh], dtype=np.float64).reshape(na, nh)
        reach = path_reach(game, sigma, n)[player]
        line = line_words(game, n, players) or "start"
        title = f"{line} — {node_words(game, n, players)}"
        fig = grid_figure(game, n, strategy, reach, title=title, vector=True)
        fig.update_layout(width=760, height=820, template="plotly_white")
        parts.append(fig.to_html(full_html=False, include_plotlyjs="inline" if k == 0 else False))
    body = "\n".join(parts)
    return (
        f"<!DOCTYPE html><html><head><meta charset='utf-8'><title>{game.name}: charts"
        f"</title></head><body><h1>{game.name}</h1>{body}</body></html>"
    )
