"""A three-player solve's strategies as files (docs/multiway.md): per player a CSV (one row
per information set and action), and one JSON with every player's strategy and the solve's
last check. Players are counted from 1 in files, as people count them (player 1 acts first);
lists run player 1 first. On a three-way river or turn spot a hand is a combo (``AhKd``), the
CSV adds its hand class (``AKo``, column ``hand_class``) and the JSON the spot's fields. A turn
spot's lines carry the river card (``k k k d:Qh k``; in words "… / river Qh / P1 checks"), and
below it a combo holding the card has no rows."""

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
    ThreeGame,
    action_word,
    game_pot,
    line_text,
    node_strategy,
    profile_strategies,
)
from solver.cfr.river3_view import River3Game, line_words
from solver.games.holdem3_turn import Turn3Spec
from solver.games.multi_locks import MultiLocks
from solver.games.nashconv import check_profile
from solver.poker.cards import COMBOS, parse_cards
from solver.poker.ranges import COMBO_CELL, GRID_LABELS

Array = npt.NDArray[np.float64]

__all__ = ["CSV_COLUMNS", "RIVER3_CSV_COLUMNS", "hand_class", "player_csv", "strategies_json",
           "strategy_rows"]  # fmt: skip

CSV_COLUMNS = ("player", "line", "line_words", "hand", "action", "action_words", "probability")
RIVER3_CSV_COLUMNS = ("player", "line", "line_words", "hand", "hand_class", "action",
                      "action_words", "probability")  # fmt: skip
"""A river spot's CSV: ``hand`` a combo (``AhKd``), ``hand_class`` its grid cell (``AKo``)."""


def _words(history: tuple[str, ...]) -> str:
    return ", ".join(action_word(x) for x in history) or "start"


def hand_class(combo: str) -> str:
    """The 13×13 grid's class of a combo's text: ``AhKd`` → ``AKo``, ``7s7c`` → ``77``."""
    a, b = parse_cards(combo)
    return _CLASS_OF[(min(a, b), max(a, b))]


def _class_table() -> dict[tuple[int, int], str]:
    return {
        (int(c[0]), int(c[1])): GRID_LABELS[int(cell) // 13][int(cell) % 13]
        for c, cell in zip(COMBOS, COMBO_CELL, strict=True)
    }


_CLASS_OF = _class_table()


def _checked(game: ThreeGame, sigma: Array) -> Array:
    if isinstance(game, River3Game):
        return game.check_profile(sigma)
    return check_profile(game, sigma)


def strategy_rows(game: ThreeGame, sigma: Array, player: int) -> list[dict[str, Any]]:
    """Player ``player``'s (0-based) part of the profile ``sigma``: one row per decision
    node of it (breadth-first), hand that can be there and action (a river spot adds each
    combo's ``hand_class``, and its ``line_words`` name the players: "P1 checks, …")."""
    sigma = _checked(game, sigma)
    river = isinstance(game, River3Game)
    out: list[dict[str, Any]] = []
    for n in game.decision_nodes():
        if int(game.player[n]) != player:
            continue
        hist = game.history(int(n))
        words = line_words(game, int(n)) if isinstance(game, River3Game) else _words(hist)
        for hand, mix in node_strategy(game, sigma, int(n)).items():
            for a, prob in mix.items():
                row: dict[str, Any] = {
                    "player": player + 1,
                    "line": line_text(hist),
                    "line_words": words,
                    "hand": hand,
                }
                if river:
                    row["hand_class"] = hand_class(hand)
                row.update(action=a, action_words=action_word(a), probability=prob)
                out.append(row)
    return out


def player_csv(game: ThreeGame, sigma: Array, player: int) -> str:
    """:func:`strategy_rows` as CSV text (probabilities unrounded)."""
    buf = io.StringIO()
    cols = RIVER3_CSV_COLUMNS if isinstance(game, River3Game) else CSV_COLUMNS
    w = csv.DictWriter(buf, fieldnames=list(cols), lineterminator="\n")
    w.writeheader()
    w.writerows(strategy_rows(game, sigma, player))
    return buf.getvalue()


def strategies_json(
    game: ThreeGame,
    sigma: Array,
    iteration: int,
    algorithm: str,
    params: Mapping[str, float],
    last: MultiCheckpoint | None,
    locks: MultiLocks | None = None,
) -> str:
    """Every player's strategy (``strategies[k]``: player k + 1's, line → hand → action →
    probability) with the game, the solve's algorithm and iterations, and its last check's
    Nash distances, NashConv and EVs (chips; None before a check). A river spot's is keyed
    by combo (``AhKd``), with ``"game": "river3"``, its name and its fields under ``spot``; a
    turn spot's has ``"game": "turn3"`` and adds the river's sizes to ``spot``. With
    ``locks`` (the solve's), ``locks`` is their spec — the lock text, "solved" written out
    per hand, which resolves again against the same game — and ``locked`` per player (player
    1 first) the lines where it has locked hands; both None without."""
    sigma = _checked(game, sigma)
    pot = game_pot(game)  # the antes (one chip each), or a river spot's pot
    data: dict[str, Any] = {
        "game": game.kind if isinstance(game, River3Game) else game.name,
        "players": game.num_players,
        "pot": pot,
        "iteration": iteration,
        "algorithm": algorithm,
        "params": {k: float(v) for k, v in params.items()},
        "nash_distance": None if last is None else list(last.nash_distance),
        "nash_conv": None if last is None else last.nash_conv,
        "ev": None if last is None else list(last.ev),
        "exploitability": None,  # a three-player game has none (docs/multiway.md)
        "locks": None if locks is None else locks.spec,
        "locked": None if locks is None else locks.lines(game.num_players),
        "strategies": [
            {"player": k + 1, "strategy": s} for k, s in enumerate(profile_strategies(game, sigma))
        ],
    }
    if isinstance(game, River3Game):
        spec = game.spec
        data["spot"] = {
            "name": spec.name,
            "board": game.board_text,
            "range0": spec.range0,
            "range1": spec.range1,
            "range2": spec.range2,
            "pot": game.pot,
            "stack": float(game.setup.config.stack),
            "bets": spec.bets,
            "raises": spec.raises,
            "raise_cap": int(spec.raise_cap),
            "big_blind": float(spec.big_blind),
            "hands": list(game.setup.hands),
        }
        if isinstance(spec, Turn3Spec):  # the river's sizes (the turn's when not set apart)
            data["spot"]["river_bets"] = spec.river_bets if spec.river_bets else spec.bets
            data["spot"]["river_raises"] = spec.river_raises if spec.river_raises else spec.raises

    return json.dumps(data, indent=1)
