"""Explore's hand filter: the range syntax players use (``KK``, ``AK``, ``AKs``, ``T9s+``,
``KQo-KTo``, ``AsKs`` — :func:`solver.poker.ranges.parse_range`) plus the words ``suited``,
``offsuit`` and ``pairs``, and on a board the hand classes of :mod:`solver.poker.handclass`
by name (``top pair``, ``set``, ``flush draw``, ``gutshot``, ``oesd`` …: docs/hand-classes.md;
spaces, ``_`` or ``-`` alike), comma separated; a hand matches when any part covers it.

Toy games have single cards (Leduc's ``Ks``, Kuhn's ``K``): a part there matches the cards of
that rank (``K``) or that card (``Ks``).
"""

from __future__ import annotations

import functools
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt

from solver.poker.cards import COMBOS, NUM_COMBOS
from solver.poker.handclass import DRAW_LABELS, DRAWS, MADE, MADE_LABELS, classify_hands
from solver.poker.ranges import RangeError, parse_range

EXAMPLES = "KK, AK, AKs, T9s+, suited, pairs, top pair, flush draw"
_SUITS = COMBOS % 4  # card = rank * 4 + suit
_RANKS = COMBOS // 4
_WORDS: dict[str, npt.NDArray[np.bool_]] = {
    "suited": _SUITS[:, 0] == _SUITS[:, 1],
    "offsuit": (_SUITS[:, 0] != _SUITS[:, 1]) & (_RANKS[:, 0] != _RANKS[:, 1]),
    "pairs": _RANKS[:, 0] == _RANKS[:, 1],
}
_WORDS["pair"] = _WORDS["pairs"]


class FilterError(ValueError):
    """A filter part that is neither range syntax nor one of the words."""


def _name(text: str) -> str:
    return " ".join(text.lower().replace("_", " ").replace("-", " ").split())


CLASS_NAMES: dict[str, tuple[str, int]] = {}
"""A hand-class name as typed (lower case, single spaces) → ("made" or "draw", its index in
:data:`~solver.poker.handclass.MADE` or :data:`~solver.poker.handclass.DRAWS`): each class's
label and key (``top pair``, ``open ended straight draw``, ``oesd``, ``backdoor fd``)."""
for _i, _key in enumerate(MADE):
    CLASS_NAMES[_name(_key)] = CLASS_NAMES[_name(MADE_LABELS[_key])] = ("made", _i)
for _j, _key in enumerate(DRAWS):
    CLASS_NAMES[_name(_key)] = CLASS_NAMES[_name(DRAW_LABELS[_key])] = ("draw", _j)


@functools.lru_cache(maxsize=8)
def _classes(board: tuple[int, ...]) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """:func:`~solver.poker.handclass.classify_hands` of all 1,326 combos on ``board``."""
    return classify_hands(board, COMBOS)


def class_mask(name: str, board: Sequence[int]) -> npt.NDArray[np.bool_] | None:
    """(1326,) mask of the combos of the hand class ``name`` (:data:`CLASS_NAMES`) on
    ``board`` (3 to 5 card indices; combos holding a board card are out); None when ``name``
    is no class."""
    found = CLASS_NAMES.get(_name(name))
    if found is None:
        return None
    made, draws = _classes(tuple(int(c) for c in board))
    kind, index = found
    if kind == "made":
        return made == index
    return draws[:, index] & (made >= 0)


def combo_mask(text: str, board: Sequence[int] | None = None) -> npt.NDArray[np.bool_] | None:
    """(1326,) mask of the combos ``text`` covers; None for empty text (no filter). Hand
    class names need the ``board`` (card indices; None preflop or off hold'em). Raises
    :class:`FilterError` quoting the first part it cannot read."""
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if not parts:
        return None
    mask = np.zeros(NUM_COMBOS, dtype=bool)
    for part in parts:
        word = _WORDS.get(part.lower())
        if word is not None:
            mask |= word
            continue
        if _name(part) in CLASS_NAMES:
            if board is None or not 3 <= len(board) <= 5:
                raise FilterError(
                    f"Filter: {part!r} is a hand class: classes need a board (after the flop)"
                )
            got = class_mask(part, board)
            assert got is not None
            mask |= got
            continue
        try:
            mask |= parse_range(part) > 0
        except (RangeError, ValueError):
            raise FilterError(
                f"Filter: {part!r} is neither a hand range nor a word (e.g. {EXAMPLES})"
            ) from None
    return mask


def hand_mask(
    text: str, combos: npt.ArrayLike, board: Sequence[int] | None = None
) -> npt.NDArray[np.bool_] | None:
    """Which of a hold'em player's hands (``combos``: their combo indices, the game's
    ``meta["combos"][player]``) ``text`` covers on ``board`` (the node's cards, for class
    names); None for no filter."""
    mask = combo_mask(text, board)
    return None if mask is None else mask[np.asarray(combos, dtype=np.int64)]


def card_mask(text: str, names: list[str]) -> npt.NDArray[np.bool_] | None:
    """Toy games: which cards ``names`` (``Ks``, ``J``…) ``text`` covers — a part is a rank
    (``K``: every K) or a card (``Ks``), any case; None for no filter."""
    parts = [p.strip().lower() for p in text.split(",") if p.strip()]
    if not parts:
        return None
    low = [n.lower() for n in names]
    out = np.zeros(len(names), dtype=bool)
    for part in parts:
        hit = np.array([n == part or (len(part) == 1 and n[:1] == part) for n in low])
        if not hit.any() and part not in low:
            raise FilterError(f"Filter: {part!r} is not a card or rank of this game")
        out |= hit
    return out
