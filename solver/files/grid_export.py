"""Charts as tables: a hold'em game's 13×13 grids (a preflop game's push, raise and call
charts above all) as rows of per-class action frequencies, for CSV exports
(:func:`solver.files.export.rows_to_csv`)."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from solver.cfr.reach import path_reach
from solver.files.export import MAX_TREE_EXPORT_NODES, ExportError
from solver.games.model import Game
from solver.poker.ranges import GRID_LABELS
from solver.study.analysis import grid_mix

Array = npt.NDArray[np.float64]


def chart_rows(game: Game, sigma: Array) -> list[dict[str, Any]]:
    """Hold'em (preflop charts above all): one row per decision node and hand class of the
    13×13 grid that reaches it, with the class's reach-weighted action frequencies (columns
    named by action label, share of the class's reaching combos: 0..1). ``history`` is the
    node's line in action codes, ``combos`` the reaching weight (combos) of the class."""
    if not game.is_holdem:
        raise ExportError("charts are 13×13 grids of hold'em hands")
    nodes = game.decision_nodes()
    if nodes.size > MAX_TREE_EXPORT_NODES:
        raise ExportError(
            f"the tree has {nodes.size:,} decision nodes; chart exports cover at most "
            f"{MAX_TREE_EXPORT_NODES:,}"
        )
    rows: list[dict[str, Any]] = []
    for n in (int(x) for x in nodes):
        player = int(game.tree.player[n])
        off, na, nh = game.block(n)
        strategy = np.asarray(sigma[off : off + na * nh], dtype=np.float64).reshape(na, nh)
        reach = path_reach(game, sigma, n)[player] * game.valid_hands(n, player)
        mix, weight = grid_mix(game, player, strategy, reach)
        labels = game.action_labels(n)
        for k in range(169):
            i, j = divmod(k, 13)
            if weight[i, j] <= 0:
                continue
            row: dict[str, Any] = {
                "history": " ".join(game.history(n)),
                "player": player,
                "hand": GRID_LABELS[i][j],
                "combos": float(weight[i, j]),
            }
            for a, label in enumerate(labels):
                row[label] = float(mix[i, j, a])
            rows.append(row)
    return rows
