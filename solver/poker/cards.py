"""Cards, two-card combos and boards for hold'em, plus the Libratus endgame file format.

Conventions (used everywhere in the solver and the app):

* Ranks ``"23456789TJQKA"``: rank index 0 (deuce) .. 12 (ace).
* Suits ``"shdc"``: suit index 0 (spades) .. 3 (clubs).
* Card index ``rank * 4 + suit``, an ``int`` in ``0..51``: 2s = 0, 2h = 1, 2d = 2, 2c = 3, 3s = 4,
  ..., Ac = 51. Card text is rank then suit (``"As"``, ``"Td"``); parsing accepts either case,
  output is canonical (upper-case rank letter, lower-case suit).
* Combo index ``0..1325``: the 1,326 unordered two-card hands ``(c1, c2)`` with ``c1 < c2``, in
  lexicographic order of ``(c1, c2)``: (0, 1), (0, 2), ..., (0, 51), (1, 2), ..., (50, 51). This
  is the order of the Libratus endgame files (2s2h, 2s2d, 2s2c, 2s3s, ..., 2sAc, 2h2d, ..., AdAc).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from dataclasses import dataclass
from operator import index as _as_index
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.quoting import brief, odd_characters

__all__ = [
    "COMBOS",
    "COMBO_INDEX",
    "NUM_CARDS",
    "NUM_COMBOS",
    "RANKS",
    "SUITS",
    "CardError",
    "LibratusEndgame",
    "board_mask",
    "card_str",
    "cards_mask",
    "combo_cards",
    "combo_index",
    "combo_str",
    "format_libratus_endgame",
    "parse_board",
    "parse_card",
    "parse_cards",
    "parse_combo",
    "parse_libratus_endgame",
    "read_libratus_endgame",
    "write_libratus_endgame",
]

RANKS = "23456789TJQKA"
"""Rank characters by rank index (0 = deuce, 12 = ace)."""
SUITS = "shdc"
"""Suit characters by suit index (0 = spades, 1 = hearts, 2 = diamonds, 3 = clubs)."""
NUM_CARDS = 52
NUM_COMBOS = 1326

BOARD_SIZES = (3, 4, 5)
"""Valid board lengths: flop, turn, river."""


class CardError(ValueError):
    """Bad card, combo or board input; the message names the offending token or card."""


# --------------------------------------------------------------------------------------------
# Single cards


def parse_card(text: str) -> int:
    """Card index (``0..51``) of a two-character card such as ``"As"``, ``"td"`` or ``"2C"``."""
    if not isinstance(text, str):
        raise CardError(f"a card must be text like 'As', got {brief(text)}")
    token = text.strip()
    if len(token) == 2:
        rank = RANKS.find(token[0].upper())
        suit = SUITS.find(token[1].lower())
        if rank >= 0 and suit >= 0:
            return rank * 4 + suit
    raise CardError(
        f"bad card {token!r}: expected a rank from {RANKS} and a suit from {SUITS}"
        + odd_characters(token)
    )


def _check_card(c: Any) -> int:
    """``c`` as a Python ``int`` card index, or :class:`CardError` if it is not one."""
    try:
        card = _as_index(c)
    except TypeError:
        raise CardError(f"a card index must be an integer, got {brief(c)}") from None
    if not 0 <= card < NUM_CARDS:
        raise CardError(f"card index {brief(card)} out of range 0..51")
    return card


def card_str(c: int) -> str:
    """Canonical text (``"As"``) of card index ``c`` (``0..51``)."""
    card = _check_card(c)
    return RANKS[card >> 2] + SUITS[card & 3]


_SEPARATORS = re.compile(r"[\s,]+")


def parse_cards(text: str) -> tuple[int, ...]:
    """Card indices of ``"Td9d6h"``, ``"Td 9d 6h"`` or ``"Td,9d,6h"`` in the order given.

    Whitespace and commas between cards are optional. Raises :class:`CardError` naming the bad
    token, or naming the card if a card appears twice. Empty text gives ``()``.
    """
    if not isinstance(text, str):
        raise CardError(f"cards must be text like 'Td9d6h', got {brief(text)}")
    cards: list[int] = []
    for chunk in _SEPARATORS.split(text.strip()):
        for start in range(0, len(chunk), 2):
            token = chunk[start : start + 2]
            if len(token) < 2:
                raise CardError(f"incomplete card {token!r} at the end of {brief(chunk)}")
            card = parse_card(token)
            if card in cards:
                raise CardError(f"card {card_str(card)} appears twice")
            cards.append(card)
    return tuple(cards)


def parse_board(text: str) -> tuple[int, ...]:
    """Card indices of a flop, turn or river board (3, 4 or 5 distinct cards), in order dealt."""
    cards = parse_cards(text)
    if len(cards) not in BOARD_SIZES:
        raise CardError(f"a board has 3, 4 or 5 cards, got {len(cards)}")
    return cards


def _card_tuple(cards: str | Iterable[int]) -> tuple[int, ...]:
    """Distinct card indices from text (parsed) or from an iterable of card indices."""
    if isinstance(cards, str):
        return parse_cards(cards)
    out: list[int] = []
    for c in cards:
        card = _check_card(c)
        if card in out:
            raise CardError(f"card {card_str(card)} appears twice")
        out.append(card)
    return tuple(out)


def cards_mask(cards: str | Iterable[int]) -> int:
    """52-bit mask of the cards: bit ``c`` set for each card index ``c`` (text is parsed)."""
    mask = 0
    for card in _card_tuple(cards):
        mask |= 1 << card
    return mask


# --------------------------------------------------------------------------------------------
# Two-card combos


def _build_combos() -> tuple[npt.NDArray[np.int32], npt.NDArray[np.int32]]:
    first, second = np.triu_indices(NUM_CARDS, k=1)  # row-major: (0,1), (0,2), ..., (50,51)
    combos = np.stack([first, second], axis=1).astype(np.int32)
    lookup = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int32)
    ids = np.arange(len(combos), dtype=np.int32)
    lookup[first, second] = ids
    lookup[second, first] = ids
    combos.flags.writeable = False
    lookup.flags.writeable = False
    return combos, lookup


COMBOS, COMBO_INDEX = _build_combos()
"""``COMBOS``: (1326, 2) int32, the cards ``(c1, c2)`` of each combo with ``c1 < c2``, sorted
lexicographically. ``COMBO_INDEX``: (52, 52) int32, ``COMBO_INDEX[a, b]`` = combo index of cards
``a`` and ``b`` in either order, −1 on the diagonal. Both arrays are read-only."""

assert COMBOS.shape == (NUM_COMBOS, 2)


def combo_index(c1: int, c2: int) -> int:
    """Combo index (``0..1325``) of two distinct cards given in either order."""
    a, b = _check_card(c1), _check_card(c2)
    if a == b:
        raise CardError(f"card {card_str(a)} appears twice")
    return int(COMBO_INDEX[a, b])


def _check_combo(i: Any) -> int:
    try:
        combo = _as_index(i)
    except TypeError:
        raise CardError(f"a combo index must be an integer, got {brief(i)}") from None
    if not 0 <= combo < NUM_COMBOS:
        raise CardError(f"combo index {combo} out of range 0..1325")
    return combo


def combo_cards(i: int) -> tuple[int, int]:
    """The two card indices ``(c1, c2)``, ``c1 < c2``, of combo index ``i``."""
    combo = _check_combo(i)
    return int(COMBOS[combo, 0]), int(COMBOS[combo, 1])


def combo_str(i: int) -> str:
    """Text of combo ``i``, higher rank first (``"AsKd"``); a pair in suit order s, h, d, c
    (``"AsAh"``)."""
    low, high = combo_cards(i)  # by card index; equal ranks => low has the earlier suit
    if low >> 2 == high >> 2:
        return card_str(low) + card_str(high)
    return card_str(high) + card_str(low)


def parse_combo(text: str) -> int:
    """Combo index of two-card text such as ``"AsKs"``, ``"kd ac"`` (either card order)."""
    cards = parse_cards(text)
    if len(cards) != 2:
        raise CardError(f"a combo has 2 cards, got {len(cards)} in {text.strip()!r}")
    return combo_index(cards[0], cards[1])


def board_mask(board: str | Iterable[int]) -> npt.NDArray[np.bool_]:
    """(1326,) bool: True for each combo sharing no card with ``board`` (text or card indices;
    any number of distinct cards, so dead cards can be included)."""
    dead = np.zeros(NUM_CARDS, dtype=bool)
    dead[list(_card_tuple(board))] = True
    return ~(dead[COMBOS[:, 0]] | dead[COMBOS[:, 1]])


# --------------------------------------------------------------------------------------------
# Libratus endgame files

_ROUND_BOARD_SIZE = {3: 4, 4: 5}  # round 3 = the turn (4 board cards), round 4 = the river (5)
_FIELDS = ("round", "board", "pot", "reach")


@dataclass(frozen=True, eq=False)
class LibratusEndgame:
    """One Libratus endgame (turn or river subgame) as published with the Libratus data.

    Attributes:
        round: betting round the endgame starts on: 3 = turn, 4 = river.
        board: card indices of the board in the order dealt (4 cards on round 3, 5 on round 4).
        pot: chips in the pot at the start of the endgame (each player put in half).
        reach: (2, 1326) float64, read-only: ``reach[p, i]`` is the probability under the
            blueprint that player ``p`` reaches the endgame holding combo ``i`` (order as
            :data:`COMBOS`). Player 0 is out of position (first to act), player 1 the button.

    Equality compares every field, the reach arrays exactly.
    """

    round: int
    board: tuple[int, ...]
    pot: int
    reach: npt.NDArray[np.float64]

    def __post_init__(self) -> None:
        if (
            isinstance(self.round, bool)
            or not isinstance(self.round, int | np.integer)
            or self.round not in _ROUND_BOARD_SIZE
        ):
            raise ValueError(f"round: must be 3 (turn) or 4 (river), got {self.round!r}")
        board = _card_tuple(self.board)
        if len(board) != _ROUND_BOARD_SIZE[self.round]:
            raise CardError(
                f"board: round {self.round} needs {_ROUND_BOARD_SIZE[self.round]} board cards, "
                f"got {len(board)}"
            )
        if isinstance(self.pot, bool) or not isinstance(self.pot, int | np.integer):
            raise ValueError(f"pot: must be an integer number of chips, got {self.pot!r}")
        if self.pot <= 0:
            raise ValueError(f"pot: must be positive, got {self.pot}")
        reach = np.array(self.reach, dtype=np.float64)  # a private copy
        if reach.shape != (2, NUM_COMBOS):
            raise ValueError(f"reach: must have shape (2, {NUM_COMBOS}), got {reach.shape}")
        _check_reach(reach.ravel())
        reach.flags.writeable = False
        object.__setattr__(self, "round", int(self.round))
        object.__setattr__(self, "board", board)
        object.__setattr__(self, "pot", int(self.pot))
        object.__setattr__(self, "reach", reach)

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, LibratusEndgame):
            return NotImplemented
        return (
            self.round == other.round
            and self.board == other.board
            and self.pot == other.pot
            and np.array_equal(self.reach, other.reach)
        )

    __hash__ = None  # type: ignore[assignment]  # holds an array: not hashable

    @property
    def board_text(self) -> str:
        """The board as canonical text, e.g. ``"7s9h9cTc"``."""
        return "".join(card_str(c) for c in self.board)


def _check_reach(values: npt.NDArray[np.float64]) -> None:
    """Raise ValueError naming the first non-finite or negative reach (flat position)."""
    bad = np.flatnonzero(~np.isfinite(values) | (values < 0))
    if bad.size:
        k = int(bad[0])
        raise ValueError(
            f"reach: number {k + 1} (player {k // NUM_COMBOS}, combo "
            f"{combo_str(k % NUM_COMBOS)}) must be a finite probability >= 0, got {values[k]!r}"
        )


_FIELD_TOKEN = re.compile(r"-[A-Za-z]\w*")


def parse_libratus_endgame(text: str, source: str = "<text>") -> LibratusEndgame:
    """Parse the text of a Libratus endgame file (``-round``, ``-board``, ``-pot``, ``-reach``
    fields, each followed by its whitespace-separated values). ``source`` prefixes messages.

    Raises :class:`CardError` for a bad board and ValueError for anything else, naming the field.
    """
    values: dict[str, list[str]] = {}
    current: list[str] | None = None
    for token in text.split():
        if _FIELD_TOKEN.fullmatch(token):
            name = token[1:].lower()
            if name not in _FIELDS:
                raise ValueError(f"{source}: unknown field {token!r}")
            if name in values:
                raise ValueError(f"{source}: field -{name} appears twice")
            current = values[name] = []
        elif current is None:
            raise ValueError(f"{source}: expected a field such as -round, got {token!r}")
        else:
            current.append(token)
    for name in _FIELDS:
        if name not in values:
            raise ValueError(f"{source}: missing field -{name}")
    for name in ("round", "board", "pot"):
        if len(values[name]) != 1:
            raise ValueError(f"{source}: {name}: expected 1 value, got {len(values[name])}")

    round_text, board_text, pot_text = values["round"][0], values["board"][0], values["pot"][0]
    try:
        round_ = int(round_text)
    except ValueError:
        raise ValueError(f"{source}: round: not an integer: {round_text!r}") from None
    try:
        board = parse_board(board_text)
    except CardError as e:
        raise CardError(f"{source}: board: {e}") from None
    try:
        pot = int(pot_text)
    except ValueError:
        raise ValueError(f"{source}: pot: not an integer: {pot_text!r}") from None

    reach_text = values["reach"]
    if len(reach_text) != 2 * NUM_COMBOS:
        raise ValueError(
            f"{source}: reach: expected {2 * NUM_COMBOS} numbers (1,326 per player), "
            f"got {len(reach_text)}"
        )
    reach = np.empty(2 * NUM_COMBOS, dtype=np.float64)
    for k, item in enumerate(reach_text):
        try:
            reach[k] = float(item)
        except ValueError:
            raise ValueError(f"{source}: reach: number {k + 1} is not a number: {item!r}") from None
    try:
        return LibratusEndgame(round_, board, pot, reach.reshape(2, NUM_COMBOS))
    except ValueError as e:  # CardError included
        raise type(e)(f"{source}: {e}") from None


def format_libratus_endgame(endgame: LibratusEndgame) -> str:
    """The file text of ``endgame``: four lines; reach values in shortest round-trip form."""
    reach = " ".join(repr(float(x)) for x in endgame.reach.ravel())
    return (
        f"-round {endgame.round}\n-board {endgame.board_text}\n-pot {endgame.pot}\n-reach {reach}\n"
    )


def read_libratus_endgame(path: str | os.PathLike[str]) -> LibratusEndgame:
    """Read a Libratus endgame file (e.g. ``subgame1.txt``); see :func:`parse_libratus_endgame`."""
    p = Path(path)
    return parse_libratus_endgame(p.read_text(encoding="utf-8"), source=str(p))


def write_libratus_endgame(path: str | os.PathLike[str], endgame: LibratusEndgame) -> None:
    """Write ``endgame`` in the Libratus file format; ``read_libratus_endgame`` gives it back."""
    Path(path).write_text(format_libratus_endgame(endgame), encoding="utf-8")
