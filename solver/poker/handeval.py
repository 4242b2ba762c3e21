"""Hold'em hand strength: a Numba best-five-of-seven evaluator written with bit tricks.

Cards follow the project convention: ranks ``23456789TJQKA`` (deuce 0 … ace 12), suits
``shdc`` (0..3) and card index ``rank * 4 + suit`` (2s = 0, 2h = 1, …, Ac = 51).

How a hand is ranked (no enumeration of the 21 five-card subsets):

* The cards are packed into one 64-bit word, four 16-bit lanes, one per suit, with bit ``r``
  of a lane set when that suit holds rank ``r``. Each lane is a 13-bit *suit mask*.
* A suit mask with five or more bits is the flush; it is a straight flush when the straight
  table says so.
* The suit masks, combined with AND/OR, give the ranks held at least twice, at least three
  times and four times, which decide quads, full house, trips, two pair and pair.
* The straight table maps any 13-bit rank mask to the high card of the best straight in it
  (the wheel A-2-3-4-5 counts as five-high), or −1.

A strength is ``category << CATEGORY_SHIFT | payload``. The payload orders hands within a
category: a rank index (4 bits) for the part that decides first, then a rank mask of the
kickers that play (a mask of distinct ranks compares as an integer exactly as the ranks
compare from the top down). Strengths of 5-, 6- and 7-card hands are comparable: the
payload names the best five cards and nothing else, so equal strength means a tie.

The tables (8,192 entries each) are built at import with numpy and read by the kernels as
globals, which Numba freezes into the compiled code as constants.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import numpy as np
import numpy.typing as npt

from solver.jit import kernel

RANK_CHARS: Final = "23456789TJQKA"
SUIT_CHARS: Final = "shdc"

HIGH_CARD: Final = 0
PAIR: Final = 1
TWO_PAIR: Final = 2
TRIPS: Final = 3
STRAIGHT: Final = 4
FLUSH: Final = 5
FULL_HOUSE: Final = 6
QUADS: Final = 7
STRAIGHT_FLUSH: Final = 8

CATEGORY_NAMES: Final[tuple[str, ...]] = (
    "High card",
    "Pair",
    "Two pair",
    "Three of a kind",
    "Straight",
    "Flush",
    "Full house",
    "Four of a kind",
    "Straight flush",
)

CATEGORY_SHIFT: Final = 26  # the largest payload (two pair: 13-bit mask << 13 | mask) < 2**26
INVALID: Final = -1  # rank_hands / rank_boards value for a hand that shares a card

_NMASK = 1 << 13
_WHEEL = (1 << 12) | 0b1111  # A 5 4 3 2


def _build_tables() -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """Popcount, highest set bit (−1 for 0) and best-straight high card (−1 if none) per mask."""
    masks = np.arange(_NMASK, dtype=np.int64)
    bits = (masks[:, None] >> np.arange(13, dtype=np.int64)) & 1
    popcount = bits.sum(axis=1).astype(np.int64)
    highest = np.full(_NMASK, -1, dtype=np.int64)
    for r in range(13):  # ascending: a higher bit overwrites a lower one
        highest[(masks >> r) & 1 == 1] = r
    straight = np.full(_NMASK, -1, dtype=np.int64)
    for high in range(4, 13):  # ascending: the higher straight wins
        window = 0b11111 << (high - 4)
        straight[(masks & window) == window] = high
    straight[((masks & _WHEEL) == _WHEEL) & (straight < 0)] = 3
    return popcount, highest, straight


_POPCOUNT, _HIGHEST, _STRAIGHT_HIGH = _build_tables()


# ---------------------------------------------------------------------------------------------
# Kernels
# ---------------------------------------------------------------------------------------------


@kernel
def card_bit(card: int) -> int:
    """The card's bit in the packed suit-lane word: lane ``suit``, bit ``rank``."""
    return 1 << (((card & 3) << 4) + (card >> 2))


@kernel
def _keep_top(mask: int, k: int) -> int:
    """``mask`` with only its ``k`` highest set bits left."""
    while _POPCOUNT[mask] > k:
        mask &= mask - 1
    return mask


@kernel
def rank_packed(packed: int) -> int:
    """Strength of the cards whose bits (see :func:`card_bit`) are OR-ed into ``packed``.

    Valid for 5 to 7 distinct cards (fewer give a consistent but partial strength).
    """
    s0 = packed & 0x1FFF
    s1 = (packed >> 16) & 0x1FFF
    s2 = (packed >> 32) & 0x1FFF
    s3 = (packed >> 48) & 0x1FFF

    flush = 0
    if _POPCOUNT[s0] >= 5:
        flush = s0
    elif _POPCOUNT[s1] >= 5:
        flush = s1
    elif _POPCOUNT[s2] >= 5:
        flush = s2
    elif _POPCOUNT[s3] >= 5:
        flush = s3
    if flush != 0:
        high = _STRAIGHT_HIGH[flush]
        if high >= 0:
            return (STRAIGHT_FLUSH << CATEGORY_SHIFT) | high

    ranks = s0 | s1 | s2 | s3
    four = s0 & s1 & s2 & s3
    if four != 0:
        q = _HIGHEST[four]
        kicker = _keep_top(ranks & ~(1 << q), 1)
        return (QUADS << CATEGORY_SHIFT) | (q << 13) | kicker

    # With no quads these are the ranks held exactly three times / at least twice.
    three = (s0 & s1 & (s2 | s3)) | ((s0 | s1) & s2 & s3)
    two = (s0 & (s1 | s2 | s3)) | (s1 & (s2 | s3)) | (s2 & s3)
    t = -1
    if three != 0:
        t = _HIGHEST[three]
        pairs = two & ~(1 << t)  # includes a second set of trips
        if pairs != 0:
            return (FULL_HOUSE << CATEGORY_SHIFT) | (t << 4) | _HIGHEST[pairs]

    if flush != 0:
        return (FLUSH << CATEGORY_SHIFT) | _keep_top(flush, 5)

    high = _STRAIGHT_HIGH[ranks]
    if high >= 0:
        return (STRAIGHT << CATEGORY_SHIFT) | high

    if t >= 0:
        kickers = _keep_top(ranks & ~(1 << t), 2)
        return (TRIPS << CATEGORY_SHIFT) | (t << 13) | kickers

    if two != 0:
        if _POPCOUNT[two] >= 2:
            top = _keep_top(two, 2)  # a third pair can only be a kicker
            kicker = _keep_top(ranks & ~top, 1)
            return (TWO_PAIR << CATEGORY_SHIFT) | (top << 13) | kicker
        p = _HIGHEST[two]
        kickers = _keep_top(ranks & ~two, 3)
        return (PAIR << CATEGORY_SHIFT) | (p << 13) | kickers

    return (HIGH_CARD << CATEGORY_SHIFT) | _keep_top(ranks, 5)


@kernel
def rank7(c0: int, c1: int, c2: int, c3: int, c4: int, c5: int, c6: int) -> int:
    """Strength of the best five of seven distinct cards (higher is better, equal ties)."""
    packed = (
        card_bit(c0)
        | card_bit(c1)
        | card_bit(c2)
        | card_bit(c3)
        | card_bit(c4)
        | card_bit(c5)
        | card_bit(c6)
    )
    return rank_packed(packed)


@kernel
def rank_cards(cards: npt.NDArray[np.int64], n: int) -> int:
    """Strength of the best five of ``cards[:n]`` (5 ≤ n ≤ 7 distinct cards)."""
    if n < 5 or n > 7:
        raise ValueError("rank_cards needs 5 to 7 cards")
    packed = 0
    for i in range(n):
        packed |= card_bit(cards[i])
    return rank_packed(packed)


@kernel
def _rank_batch_kernel(hands: npt.NDArray[np.int64], out: npt.NDArray[np.int64]) -> None:
    k = hands.shape[1]
    for i in range(hands.shape[0]):
        packed = 0
        for j in range(k):
            packed |= card_bit(hands[i, j])
        out[i] = rank_packed(packed)


@kernel
def _rank_hands_kernel(
    board: int, combos: npt.NDArray[np.int64], out: npt.NDArray[np.int64]
) -> None:
    for i in range(combos.shape[0]):
        a = card_bit(combos[i, 0])
        b = card_bit(combos[i, 1])
        if a == b or (board & (a | b)) != 0:
            out[i] = INVALID
        else:
            out[i] = rank_packed(board | a | b)


@kernel
def _rank_boards_kernel(
    boards: npt.NDArray[np.int64], combos: npt.NDArray[np.int64], out: npt.NDArray[np.int64]
) -> None:
    for b in range(boards.shape[0]):
        packed = 0
        for j in range(boards.shape[1]):
            packed |= card_bit(boards[b, j])
        _rank_hands_kernel(packed, combos, out[b])


# ---------------------------------------------------------------------------------------------
# Python entry points
# ---------------------------------------------------------------------------------------------


def _as_cards(a: npt.ArrayLike, name: str) -> npt.NDArray[np.int64]:
    arr = np.ascontiguousarray(a, dtype=np.int64)
    if arr.size and (int(arr.min()) < 0 or int(arr.max()) > 51):
        raise ValueError(f"{name}: card indices must be in 0..51")
    return arr


def _check_board_row(row: npt.NDArray[np.int64], name: str) -> None:
    if len(set(row.tolist())) != row.shape[0]:
        raise ValueError(f"{name}: repeated card {row.tolist()}")


def rank_batch(hands: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Strengths of ``hands`` (shape (m, k), 5 ≤ k ≤ 7, distinct cards in each row)."""
    arr = _as_cards(hands, "hands")
    if arr.ndim != 2 or not 5 <= arr.shape[1] <= 7:
        raise ValueError(f"hands: expected shape (m, 5..7), got {arr.shape}")
    out = np.empty(arr.shape[0], dtype=np.int64)
    _rank_batch_kernel(arr, out)
    return out


def rank_hands(board: npt.ArrayLike, combos: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """Strength of each two-card hand ``combos[i]`` (shape (n, 2)) with the 5-card ``board``.

    A combo that shares a card with the board (or repeats a card) gets ``INVALID`` (−1).
    """
    b = _as_cards(board, "board")
    c = _as_cards(combos, "combos")
    if b.shape != (5,):
        raise ValueError(f"board: expected 5 cards, got shape {b.shape}")
    _check_board_row(b, "board")
    if c.ndim != 2 or c.shape[1] != 2:
        raise ValueError(f"combos: expected shape (n, 2), got {c.shape}")
    packed = 0
    for card in b.tolist():
        packed |= 1 << (((card & 3) << 4) + (card >> 2))
    out = np.empty(c.shape[0], dtype=np.int64)
    _rank_hands_kernel(packed, c, out)
    return out


def rank_boards(boards: npt.ArrayLike, combos: npt.ArrayLike) -> npt.NDArray[np.int64]:
    """:func:`rank_hands` for many boards at once: ``out[b, i]`` for ``boards[b]`` (m, 5)."""
    bs = _as_cards(boards, "boards")
    c = _as_cards(combos, "combos")
    if bs.ndim != 2 or bs.shape[1] != 5:
        raise ValueError(f"boards: expected shape (m, 5), got {bs.shape}")
    for row in bs:
        _check_board_row(row, "boards")
    if c.ndim != 2 or c.shape[1] != 2:
        raise ValueError(f"combos: expected shape (n, 2), got {c.shape}")
    out = np.empty((bs.shape[0], c.shape[0]), dtype=np.int64)
    _rank_boards_kernel(bs, c, out)
    return out


def category(strength: int) -> int:
    """Hand category of a strength: 0 high card … 8 straight flush (see ``CATEGORY_NAMES``)."""
    return int(strength) >> CATEGORY_SHIFT


def category_name(strength: int) -> str:
    """Name of the hand category of a strength, e.g. ``"Full house"``."""
    return CATEGORY_NAMES[category(strength)]


def _parse_cards(text: str) -> list[int]:
    """``"AsKsQsJsTs2d3c"`` (spaces and commas allowed, case-insensitive) → card indices."""
    s = "".join(ch for ch in text if not ch.isspace() and ch != ",")
    if len(s) % 2:
        raise ValueError(f"cannot parse cards from {text!r}")
    cards = []
    for i in range(0, len(s), 2):
        r = RANK_CHARS.find(s[i].upper())
        u = SUIT_CHARS.find(s[i + 1].lower())
        if r < 0 or u < 0:
            raise ValueError(f"bad card {s[i : i + 2]!r} in {text!r}")
        cards.append(r * 4 + u)
    return cards


def evaluate(cards: str | Sequence[int] | npt.NDArray[np.integer]) -> int:
    """Strength of 5 to 7 distinct cards given as text (``"AsKsQsJsTs2d3c"``) or indices."""
    idx = _parse_cards(cards) if isinstance(cards, str) else [int(c) for c in cards]
    if not 5 <= len(idx) <= 7:
        raise ValueError(f"need 5 to 7 cards, got {len(idx)}")
    if any(c < 0 or c > 51 for c in idx):
        raise ValueError(f"card indices must be in 0..51, got {idx}")
    if len(set(idx)) != len(idx):
        raise ValueError(f"repeated card in {idx}")
    return int(rank_cards(np.array(idx, dtype=np.int64), len(idx)))
