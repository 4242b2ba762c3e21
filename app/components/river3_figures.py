"""Figures and tables of a three-way river or turn solve (docs/multiway.md), pure: a player's
strategy at a node as the heads-up Explore's 13×13 grid (:func:`strategy_grid_figure`, each
class's reach-weighted mix) and as a table per combo, and the node's reach per player. Below
a turn spot's river card the combos holding it are not in the range: the grid's hover and
:func:`blocked_text` name them as blocked, the table leaves them out."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt
import pandas as pd
import plotly.graph_objects as go

from app.components.figures import strategy_grid_figure
from app.components.multi_figures import player_label
from app.components.number_formats import combos_text
from solver.cfr.river3_view import River3Game, action_words
from solver.poker.ranges import COMBO_CELL, GRID_LABELS
from solver.study.analysis import grid_mix

Array = npt.NDArray[np.float64]
MAX_HOVER_COMBOS = 12
POSITIONS = ("first to act", "second to act", "last to act")
"""Players 1, 2 and 3 by their place in the acting order."""


def action_names(game: River3Game, node: int) -> list[str]:
    """The actions of decision ``node`` in words, without the actor: "check", "bet 30
    (50 %)", "raise to 120", "fold", "call", "all-in 200"."""
    words = {"checks": "check", "calls": "call", "folds": "fold"}
    out = []
    for c in game.children(node):
        w = action_words(game, c)
        w = words.get(w, w)
        out.append(w.replace("bets ", "bet ").replace("raises ", "raise ").replace(
            "goes all-in", "all-in"))  # fmt: skip
    return out


def hand_reach(game: River3Game, sigma: Array, node: int) -> Array:
    """(n_p,): the actor's range weight times its own reach of ``node``, per hand."""
    p = int(game.player[node])
    return game.setup.hand_weights[p] * game.reach(sigma, node)[p]


def grid(game: River3Game, sigma: Array, node: int, title: str = "") -> go.Figure:
    """The actor's 13×13 grid at decision ``node`` under the profile ``sigma``: each cell
    the class's action mix weighted by reach (range weight × own reach), its height the
    class's reaching share; hover lists the cell's combos and their mixes."""
    p = int(game.player[node])
    strategy = game.block(sigma, node)
    reach = hand_reach(game, sigma, node)
    mix, weight = grid_mix(game.built.game, p, strategy, reach)
    actions = [game.labels[c] for c in game.children(node)]
    names = action_names(game, node)
    cells = COMBO_CELL[game.combos(p)]
    hands = game.hand_names(p)
    hover = [[f"<b>{GRID_LABELS[i][j]}</b>" for j in range(13)] for i in range(13)]
    by_cell: dict[int, list[int]] = {}
    for k in np.flatnonzero(reach > 0):
        by_cell.setdefault(int(cells[k]), []).append(int(k))
    for cell, members in by_cell.items():
        i, j = divmod(cell, 13)
        lines = [hover[i][j] + f" — {combos_text(float(weight[i, j]))} reach"]
        lines += [f"{n}: {100 * f:.1f}%" for n, f in zip(names, mix[i, j], strict=True)]
        for h in members[:MAX_HOVER_COMBOS]:
            lines.append(f"{hands[h]}: " + " / ".join(f"{100 * strategy[a, h]:.0f}"
                                                      for a in range(len(actions))))  # fmt: skip
        if len(members) > MAX_HOVER_COMBOS:
            lines.append(f"… {len(members) - MAX_HOVER_COMBOS} more")
        hover[i][j] = "<br>".join(lines)
    card = game.river_card(node)
    out = np.flatnonzero(~game.valid(node, p))
    by_blocked: dict[int, list[str]] = {}
    for k in out:
        by_blocked.setdefault(int(cells[k]), []).append(hands[int(k)])
    for cell, held in by_blocked.items():
        i, j = divmod(cell, 13)
        hover[i][j] += f"<br>blocked by the river {card}: {', '.join(held)}"
    for i in range(13):
        for j in range(13):
            if "<br>" not in hover[i][j]:
                hover[i][j] += "<br>not in range here"
    return strategy_grid_figure(mix, weight, actions, hover=hover, title=title, names=names)


def combo_table(game: River3Game, sigma: Array, node: int) -> pd.DataFrame:
    """One row per combo of the actor that can be there (below a river card, not one holding
    it): its class, its reach (% of its weight that plays the line) and each action's
    frequency (%, two decimals at most)."""
    p = int(game.player[node])
    strategy = game.block(sigma, node)
    own = game.reach(sigma, node)[p]
    names = action_names(game, node)
    cells = COMBO_CELL[game.combos(p)]
    valid = game.valid(node, p)
    rows = []
    for h, hand in enumerate(game.hand_names(p)):
        if not valid[h]:
            continue
        cell = int(cells[h])
        row: dict[str, object] = {
            "hand": hand,
            "class": GRID_LABELS[cell // 13][cell % 13],
            "reach %": round(100.0 * float(own[h]), 2),
        }
        for a, name in enumerate(names):
            row[name] = round(100.0 * float(strategy[a, h]), 2)
        rows.append(row)
    return pd.DataFrame(rows)


def reach_lines(game: River3Game, sigma: Array, node: int) -> list[tuple[str, float]]:
    """Per player ("Player 1", share): the share of its range (by weight) that plays the
    line to ``node`` (:meth:`River3Game.reach_share`)."""
    return [(player_label(p).capitalize(), s)
            for p, s in enumerate(game.reach_share(sigma, node))]  # fmt: skip


def blocked_text(game: River3Game, node: int) -> str:
    """The actor's combos that hold the river card dealt above ``node``, in words ("" when
    none: on the turn, a river spot, or a range without the card)."""
    p = int(game.player[node])
    held = [h for h, ok in zip(game.hand_names(p), game.valid(node, p), strict=True) if not ok]
    if not held:
        return ""
    return (f"Blocked by the river {game.river_card(node)}: {', '.join(held)} — not in "
            f"{player_label(p)}'s range here (no strategy, no reach).")  # fmt: skip
