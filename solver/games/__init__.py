"""Games: the common public-tree model and the games built into it."""

from __future__ import annotations

from solver.games.model import Game
from solver.games.toy import kuhn, leduc, leduc5

GAMES = {"kuhn": kuhn, "leduc": leduc, "leduc5": leduc5}
# Games built from options (make_game(name, **options)); not in GAMES, whose games take none.
OPTION_GAMES = ("preflop",)


class UnknownGameError(KeyError, ValueError):
    """A game name not in :data:`GAMES`: a KeyError (the API's contract) and a ValueError
    for callers that validate user input."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown game"


def make_game(name: str, **options: object) -> Game:
    """Build the game registered as ``name`` (see :data:`GAMES`), or a game built from
    ``options`` (:data:`OPTION_GAMES`): ``make_game("preflop", stack_bb=10, tree="push-fold",
    ...)`` (:func:`solver.games.preflop.build_preflop`; a bad option raises
    :class:`~solver.games.spec.SpecError` naming it)."""
    if not isinstance(name, str):
        raise TypeError(f"a game name must be text, got {type(name).__name__}")
    key = name.lower()
    rake = sorted(k for k in options if k in ("rake_pct", "rake_cap"))
    if rake:  # a rake is a postflop pot's: HoldemSpec(rake_pct=..., rake_cap=...)
        from solver.games.spec import SpecError

        raise SpecError(rake[0], f"game {key!r} has no rake (a hold'em subgame's option)")
    if key == "preflop":
        from solver.games.preflop import build_preflop

        return build_preflop(**options)
    if key not in GAMES:
        shown = name if len(name) <= 40 else name[:40] + "…"
        known = ", ".join([*GAMES, *OPTION_GAMES])
        raise UnknownGameError(f"unknown game {shown!r}; known: {known}")
    if options:
        raise TypeError(f"game {key!r} takes no options, got {', '.join(sorted(options))}")
    return GAMES[key]()


__all__ = ["GAMES", "OPTION_GAMES", "Game", "UnknownGameError", "make_game"]
