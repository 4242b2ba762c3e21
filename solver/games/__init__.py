"""Games: the common public-tree model and the games built into it."""

from __future__ import annotations

from solver.games.model import Game
from solver.games.toy import kuhn, leduc, leduc5

GAMES = {"kuhn": kuhn, "leduc": leduc, "leduc5": leduc5}


def make_game(name: str) -> Game:
    """Build the game registered as ``name`` (see :data:`GAMES`)."""
    key = name.lower()
    if key not in GAMES:
        raise KeyError(f"unknown game {name!r}; known: {', '.join(GAMES)}")
    return GAMES[key]()


__all__ = ["GAMES", "Game", "make_game"]
