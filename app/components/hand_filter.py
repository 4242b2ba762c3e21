"""Explore's hand filter: the range syntax players use (``KK``, ``AK``, ``AKs``, ``T9s+``,
``KQo-KTo``, ``AsKs`` — :func:`solver.poker.ranges.parse_range`) plus the words ``suited``,
``offsuit`` and ``pairs``, comma separated; a hand matches when any part covers it.

Toy games have single cards (Leduc's ``Ks``, Kuhn's ``K``): a part there matches the cards of
that rank (``K``) or that card (``Ks``).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.poker.cards import COMBOS, NUM_COMBOS
from solver.poker.ranges import RangeError, parse_range

EXAMPLES = "KK, AK, AKs, T9s+, suited, pairs"
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


def combo_mask(text: str) -> npt.NDArray[np.bool_] | None:
    """(1326,) mask of the combos ``text`` covers; None for empty text (no filter). Raises
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
        try:
            mask |= parse_range(part) > 0
        except (RangeError, ValueError):
            raise FilterError(
                f"Filter: {part!r} is neither a hand range nor a word (e.g. {EXAMPLES})"
            ) from None
    return mask


def hand_mask(text: str, combos: npt.ArrayLike) -> npt.NDArray[np.bool_] | None:
    """Which of a hold'em player's hands (``combos``: their combo indices, the game's
    ``meta["combos"][player]``) ``text`` covers; None for no filter."""
    mask = combo_mask(text)
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
