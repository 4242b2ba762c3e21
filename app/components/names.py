"""The players' names of a game as the app says them: a preset's own (``BB``, ``BTN``) when
it names them, else OOP and IP on hold'em and player 0 / player 1 on the toy games
(:func:`solver.study.words.default_players`).

Names belong to the game, not to a session: pages record them once they know the game's
source (:func:`remember`), and every component reads them from the game (:func:`of`). The
record goes with the game (keyed by the object, freed with it)."""

from __future__ import annotations

import threading
import weakref

from solver.games.model import Game
from solver.study.words import default_players, line_words

_NAMES: dict[int, tuple[str, str]] = {}
_LOCK = threading.Lock()


def remember(game: Game, names: tuple[str, str] | None) -> None:
    """Record ``game``'s players' names (None: the defaults)."""
    key = id(game)
    with _LOCK:
        if names is None:
            _NAMES.pop(key, None)
            return
        if key not in _NAMES:
            weakref.finalize(game, _NAMES.pop, key, None)
        _NAMES[key] = (str(names[0]), str(names[1]))


def of(game: Game) -> tuple[str, str]:
    """Players 0 and 1's names for ``game``."""
    with _LOCK:
        return _NAMES.get(id(game)) or default_players(game)


def player_name(game: Game, player: int) -> str:
    """One player's name (``player`` 0 or 1)."""
    return of(game)[player]


def line(game: Game, node: int) -> str:
    """The line to ``node`` in words with these names (:func:`solver.study.words.line_words`),
    ``Start`` at the root."""
    return line_words(game, node, of(game)) or "Start"
