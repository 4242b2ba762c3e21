"""Games: the common public-tree model and the games built into it."""

from __future__ import annotations

from solver.games.model import Game
from solver.games.toy import kuhn, leduc, leduc5

GAMES = {"kuhn": kuhn, "leduc": leduc, "leduc5": leduc5}


class UnknownGameError(KeyError, ValueError):
    """A game name not in :data:`GAMES`: a KeyError (the API's contract) and a ValueError
    for callers that validate user input."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


def make_game(name: str) -> Game:
    """Build the game registered as ``name`` (see :data:`GAMES`)."""
    if not isinstance(name, str):
        raise TypeError(f"a game name must be text, got {type(name).__name__}")
    key = name.lower()
    if key not in GAMES:
        shown = name if len(name) <= 40 else name[:40] + "…"
        raise UnknownGameError(f"unknown game {shown!r}; known: {', '.join(GAMES)}")
    return GAMES[key]()


__all__ = ["GAMES", "Game", "UnknownGameError", "make_game"]
