"""Regret Lab solver: one vector-form CFR engine for Kuhn, Leduc and hold'em subgames.

Entry points: :func:`solve` (Python API), ``python -m solver`` (CLI).
"""

from __future__ import annotations

from solver.api import Checkpoint, SolveResult, make_game, solve
from solver.cfr.bestresponse import best_response_values, expected_values, exploitability
from solver.cfr.engine import Engine
from solver.cfr.multi_solve import MultiSolveResult
from solver.cfr.options import SolveOptions
from solver.cfr.rules import RULES, Rule, make_rule
from solver.games import GAMES, Game

__all__ = [
    "GAMES",
    "RULES",
    "Checkpoint",
    "Engine",
    "Game",
    "MultiSolveResult",
    "Rule",
    "SolveOptions",
    "SolveResult",
    "best_response_values",
    "expected_values",
    "exploitability",
    "make_game",
    "make_rule",
    "solve",
]
