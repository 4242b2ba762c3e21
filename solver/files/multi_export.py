"""A three-player solve's strategies as files (docs/multiway.md): per player a CSV (one row
per information set and action), and one JSON with every player's strategy and the solve's
last check. Players are counted from 1 in files, as people count them (player 1 acts first);
lists run player 1 first."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Mapping
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.cfr.multi_solve import (
    MultiCheckpoint,
    action_word,
    line_text,
    node_strategy,
    profile_strategies,
)
from solver.games.multiway import MultiGame
from solver.games.nashconv import check_profile

Array = npt.NDArray[np.float64]

__all__ = ["CSV_COLUMNS", "player_csv", "strategies_json", "strategy_rows"]

CSV_COLUMNS = ("player", "line", "line_words", "hand", "action", "action_words", "probability")


def _words(history: tuple[str, ...]) -> str:
    return ", ".join(action_word(x) for x in history) or "start"


def strategy_rows(game: MultiGame, sigma: Array, player: int) -> list[dict[str, Any]]:
    """Player ``player``'s (0-based) part of the profile ``sigma``: one row per decision
    node of it (breadth-first), hand that can be there and action."""
    sigma = check_profile(game, sigma)
    out: list[dict[str, Any]] = []
    for n in game.decision_nodes():
        if int(game.player[n]) != player:
            continue
        hist = game.history(int(n))
        for hand, mix in node_strategy(game, sigma, int(n)).items():
            for a, prob in mix.items():
                out.append(
                    {
                        "player": player + 1,
                        "line": line_text(hist),
                        "line_words": _words(hist),
                        "hand": hand,
                        "action": a,
                        "action_words": action_word(a),
                        "probability": prob,
                    }
                )
    return out


def player_csv(game: MultiGame, sigma: Array, player: int) -> str:
    """:func:`strategy_rows` as CSV text (probabilities unrounded)."""
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(CSV_COLUMNS), lineterminator="\n")
    w.writeheader()
    w.writerows(strategy_rows(game, sigma, player))
    return buf.getvalue()


def strategies_json(
    game: MultiGame,
    sigma: Array,
    iteration: int,
    algorithm: str,
    params: Mapping[str, float],
    last: MultiCheckpoint | None,
) -> str:
    """Every player's strategy (``strategies[k]``: player k + 1's, line → hand → action →
    probability) with the game, the solve's algorithm and iterations, and its last check's
    Nash distances, NashConv and EVs (chips; None before a check)."""
    sigma = check_profile(game, sigma)
    pot = float(game.num_players)  # the antes: one chip each
    data: dict[str, Any] = {
        "game": game.name,
        "players": game.num_players,
        "pot": pot,
        "iteration": iteration,
        "algorithm": algorithm,
        "params": {k: float(v) for k, v in params.items()},
        "nash_distance": None if last is None else list(last.nash_distance),
        "nash_conv": None if last is None else last.nash_conv,
        "ev": None if last is None else list(last.ev),
        "exploitability": None,  # a three-player game has none (docs/multiway.md)
        "strategies": [
            {"player": k + 1, "strategy": s} for k, s in enumerate(profile_strategies(game, sigma))
        ],
    }
    return json.dumps(data, indent=1)
