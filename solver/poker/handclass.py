"""Hand classes on hold'em boards: what a hand *makes* with its hole cards, and what it draws to.

A hand (two hole cards) on a board of 3, 4 or 5 cards gets exactly one **made class**, the
strongest that applies, strongest first (:data:`MADE`):

==================  =========================================================================
``straight_flush``  a straight flush using at least one hole card
``quads``           four of a kind with at least one hole card of the rank
``full_house``      a full house with at least one hole card in it (the pair part may be the
                    board's own pair: 55 on KK5 is a full house; KQ on KK5 is trips)
``flush``           five or more cards of a suit, a hole card among the best five of them
``straight``        a straight that the hole cards improve (higher than the board's own)
``set``             a pocket pair matching one board card
``trips``           one hole card matching a board pair
``two_pair``        two pairs, *each* containing a hole card (K5 on K52)
``overpair``        a pocket pair above every board card
``top_pair``        a hole card pairing the board's highest rank
``second_pair``     a hole card pairing the board's second-highest distinct rank
``underpair``       a pocket pair below the board's top card
``weaker_pair``     a hole card pairing the third-highest distinct rank or lower
``high_card``       none of the above
==================  =========================================================================

**Board pairs, trips and quads do not count as the hand's own.** A category is credited only
when a hole card takes part in it: AQ on KK5 is ``high_card`` (every hand holds that pair),
QQ on KK5 an ``underpair``, Q5 on KK5 a ``second_pair`` (fives), AA on KK5 an ``overpair``.
On a river whose five cards make a straight or a flush, a hand that only plays the board is
classed by what its hole cards add (often ``high_card``). So the class's evaluator category
(:data:`MADE_CATEGORY`) equals the evaluator's category of the seven cards on every board
with no pair and no five-card straight or flush, and is never above it on any board
(``tests/test_handclass.py`` checks both against :mod:`solver.poker.handeval` and phevaluator).

**Draws** are flags a hand may hold beside its made class (:data:`DRAWS`), only while a card
is still to come (flop and turn), and only where a hole card takes part:

- ``flush_draw``: four cards of a suit, at least one of them a hole card (not yet a flush);
- ``oesd``: an open-ended straight draw — two or more ranks would complete a straight the hole
  cards take part in (double gutshots count here, as they have the same eight outs); not
  flagged for a hand that already has a straight or better;
- ``gutshot``: exactly one such rank;
- ``backdoor_fd``: on the flop only, three cards of a suit with a hole card among them, when
  the hand has no flush draw;
- ``overcards`` (any street): a ``high_card`` hand whose two hole cards are both above the
  board's top card.

API (cards are indices, ``rank * 4 + suit``, see :mod:`solver.poker.cards`):

- :func:`classify` ``(hole, board) → HandClass`` for one combo (text accepted: ``"AhKh"``);
- :func:`classify_hands` ``(board, cards (n, 2)) → (made (n,) int index into MADE,
  draws (n, len(DRAWS)) bool)`` for a range;
- :func:`class_table` ``(board, cards, reach, strategy=None, actions=None) → list[ClassRow]``:
  per class the combos reaching (reach-weighted) and their share, and with a strategy
  ``(num_actions, n)`` the reach-weighted action mix — the per-class view of a range at a node.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.poker.cards import parse_cards
from solver.poker.handeval import (
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
)

MADE: tuple[str, ...] = (
    "straight_flush",
    "quads",
    "full_house",
    "flush",
    "straight",
    "set",
    "trips",
    "two_pair",
    "overpair",
    "top_pair",
    "second_pair",
    "underpair",
    "weaker_pair",
    "high_card",
)
"""Made-class keys, strongest first (the index is the class's order)."""

MADE_LABELS: dict[str, str] = {
    "straight_flush": "Straight flush",
    "quads": "Quads",
    "full_house": "Full house",
    "flush": "Flush",
    "straight": "Straight",
    "set": "Set",
    "trips": "Trips",
    "two_pair": "Two pair",
    "overpair": "Overpair",
    "top_pair": "Top pair",
    "second_pair": "Second pair",
    "underpair": "Underpair",
    "weaker_pair": "Weaker pair",
    "high_card": "High card",
}

MADE_CATEGORY: dict[str, int] = {
    "straight_flush": STRAIGHT_FLUSH,
    "quads": QUADS,
    "full_house": FULL_HOUSE,
    "flush": FLUSH,
    "straight": STRAIGHT,
    "set": TRIPS,
    "trips": TRIPS,
    "two_pair": TWO_PAIR,
    "overpair": PAIR,
    "top_pair": PAIR,
    "second_pair": PAIR,
    "underpair": PAIR,
    "weaker_pair": PAIR,
    "high_card": HIGH_CARD,
}
"""The evaluator category (:mod:`solver.poker.handeval`) each made class belongs to."""

DRAWS: tuple[str, ...] = ("flush_draw", "oesd", "gutshot", "backdoor_fd", "overcards")
DRAW_LABELS: dict[str, str] = {
    "flush_draw": "Flush draw",
    "oesd": "Open-ended straight draw",
    "gutshot": "Gutshot",
    "backdoor_fd": "Backdoor flush draw",
    "overcards": "Overcards",
}

_ACE = 12
_WINDOWS = [(high, sum(1 << (high - i) for i in range(5))) for high in range(12, 3, -1)]
_WHEEL = (1 << _ACE) | 0b1111


def straight_high(mask: int) -> int:
    """High rank of the best straight in a 13-bit rank mask (the wheel is 3 = five-high);
    −1 when there is none."""
    for high, window in _WINDOWS:
        if mask & window == window:
            return high
    return 3 if mask & _WHEEL == _WHEEL else -1


@dataclass(frozen=True)
class HandClass:
    """One combo's class: ``made`` (a key of :data:`MADE`) and its draw flags (keys of
    :data:`DRAWS`, in that order)."""

    made: str
    draws: tuple[str, ...] = ()

    @property
    def label(self) -> str:
        """``"Top pair + Flush draw"``."""
        return " + ".join([MADE_LABELS[self.made], *(DRAW_LABELS[d] for d in self.draws)])


def _cards(x: Sequence[int] | str, what: str) -> tuple[int, ...]:
    cards = parse_cards(x) if isinstance(x, str) else tuple(int(c) for c in x)
    if any(not 0 <= c < 52 for c in cards):
        raise ValueError(f"{what}: card indices must be in 0..51")
    return cards


def _made(hole: tuple[int, int], board: Sequence[int]) -> str:
    bcount = [0] * 13
    hcount = [0] * 13
    for c in board:
        bcount[c >> 2] += 1
    for c in hole:
        hcount[c >> 2] += 1
    total = [b + h for b, h in zip(bcount, hcount, strict=True)]
    cards = (*hole, *board)
    bmask = 0
    amask = 0
    for c in board:
        bmask |= 1 << (c >> 2)
    for c in cards:
        amask |= 1 << (c >> 2)
    # flushes (and straight flushes) a hole card takes part in
    flush = False
    sflush = False
    for s in range(4):
        suited = sorted((c >> 2 for c in cards if c & 3 == s), reverse=True)
        if len(suited) < 5:
            continue
        hole_ranks = {c >> 2 for c in hole if c & 3 == s}
        if hole_ranks & set(suited[:5]):
            flush = True
        smask = sum(1 << r for r in suited)
        bsmask = sum(1 << (c >> 2) for c in board if c & 3 == s)
        if straight_high(smask) > straight_high(bsmask):
            sflush = True
    if sflush:
        return "straight_flush"
    if any(total[r] == 4 and hcount[r] for r in range(13)):
        return "quads"
    trips_rank = max((r for r in range(13) if total[r] >= 3), default=-1)
    if trips_rank >= 0:
        pair_rank = max((r for r in range(13) if r != trips_rank and total[r] >= 2), default=-1)
        if pair_rank >= 0 and (hcount[trips_rank] or hcount[pair_rank]):
            return "full_house"
    if flush:
        return "flush"
    if straight_high(amask) > straight_high(bmask):
        return "straight"
    own = [r for r in range(13) if hcount[r] and total[r] >= 2]
    own_trips = [r for r in own if total[r] >= 3]
    if own_trips:
        r = max(own_trips)
        return "set" if hcount[r] == 2 else "trips"
    if len(own) >= 2:
        return "two_pair"
    if own:
        r = own[0]
        top = max(c >> 2 for c in board)
        if hcount[r] == 2:
            return "overpair" if r > top else "underpair"
        distinct = sorted({c >> 2 for c in board}, reverse=True)
        pos = distinct.index(r)
        return ("top_pair", "second_pair")[pos] if pos < 2 else "weaker_pair"
    return "high_card"


def _draws(hole: tuple[int, int], board: Sequence[int], made: str) -> tuple[str, ...]:
    out: list[str] = []
    strength = MADE.index(made)
    if len(board) < 5:
        cards = (*hole, *board)
        fd = False
        bd = False
        for s in range(4):
            n = sum(1 for c in cards if c & 3 == s)
            if not any(c & 3 == s for c in hole):
                continue
            fd |= n == 4
            bd |= n == 3 and len(board) == 3
        if fd and strength > MADE.index("flush"):
            out.append("flush_draw")
        if strength > MADE.index("straight"):
            seen = [0] * 13
            amask = 0
            bmask = 0
            for c in cards:
                seen[c >> 2] += 1
                amask |= 1 << (c >> 2)
            for c in board:
                bmask |= 1 << (c >> 2)
            outs = 0
            for r in range(13):
                if seen[r] == 4:
                    continue  # no card of the rank left
                with_r = straight_high(amask | 1 << r)
                if with_r >= 0 and with_r > straight_high(bmask | 1 << r):
                    outs += 1
            if outs >= 2:
                out.append("oesd")
            elif outs == 1:
                out.append("gutshot")
        if bd and not fd and strength > MADE.index("flush"):
            out.append("backdoor_fd")
    if made == "high_card" and min(c >> 2 for c in hole) > max(c >> 2 for c in board):
        out.append("overcards")
    return tuple(out)


def classify(hole: Sequence[int] | str, board: Sequence[int] | str) -> HandClass:
    """The class of one combo on a board of 3 to 5 cards (indices or text)."""
    h = _cards(hole, "hole")
    b = _cards(board, "board")
    if len(h) != 2:
        raise ValueError(f"hole: two cards, got {len(h)}")
    if not 3 <= len(b) <= 5:
        raise ValueError(f"board: 3 to 5 cards, got {len(b)}")
    if len(set(h) | set(b)) != len(h) + len(b):
        raise ValueError("hole and board share a card")
    pair = (h[0], h[1])
    made = _made(pair, b)
    return HandClass(made, _draws(pair, b, made))


def classify_hands(
    board: Sequence[int] | str, cards: npt.ArrayLike
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """Classes of many combos on one board: ``cards`` (n, 2) card indices. Returns ``made``
    (n,) indices into :data:`MADE` (−1 for a combo that shares a card with the board) and
    ``draws`` (n, len(DRAWS)) flags — :func:`classify`'s rules on whole arrays (a tree
    summary classifies every hand on thousands of boards); the tests check the two agree."""
    b = _cards(board, "board")
    if not 3 <= len(b) <= 5:
        raise ValueError(f"board: 3 to 5 cards, got {len(b)}")
    if len(set(b)) != len(b):
        raise ValueError("board: a card appears twice")
    arr = np.asarray(cards, dtype=np.int64).reshape(-1, 2)
    if arr.size and (arr.min() < 0 or arr.max() >= 52):
        raise ValueError("cards: card indices must be in 0..51")
    if np.any(arr[:, 0] == arr[:, 1]):
        raise ValueError("cards: a hand holds the same card twice")
    n = arr.shape[0]
    made = np.full(n, -1, dtype=np.int64)
    draws = np.zeros((n, len(DRAWS)), dtype=bool)
    barr = np.asarray(b, dtype=np.int64)
    live = ~np.isin(arr, barr).any(axis=1)
    h = arr[live]
    if h.shape[0] == 0:
        return made, draws
    m, d = _classify_live(h, barr)
    made[live] = m
    draws[live] = d
    return made, draws


def _mask_table(f: Callable[[int], int]) -> npt.NDArray[np.int64]:
    return np.array([f(m) for m in range(1 << 13)], dtype=np.int64)


_STRAIGHT_HIGH = _mask_table(straight_high)  # by 13-bit rank mask
_POPCOUNT = _mask_table(lambda m: bin(m).count("1"))
_IDX = {k: i for i, k in enumerate(MADE)}


def _classify_live(
    h: npt.NDArray[np.int64], board: npt.NDArray[np.int64]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
    """:func:`classify_hands` of hands (n, 2) that share no card with ``board``."""
    n = h.shape[0]
    hr, hs = h >> 2, h & 3
    br, bs = board >> 2, board & 3
    ranks = np.arange(13)
    bcount = np.bincount(br, minlength=13)
    hcount = (hr[:, :, None] == ranks).sum(axis=1)  # (n, 13)
    total = hcount + bcount
    bmask = int(np.bitwise_or.reduce(1 << br))
    hbits = (1 << hr[:, 0]) | (1 << hr[:, 1])
    amask = hbits | bmask
    sh = _STRAIGHT_HIGH
    out = np.full(n, _IDX["high_card"], dtype=np.int64)
    decided = np.zeros(n, dtype=bool)

    def settle(cond: npt.NDArray[np.bool_], key: str) -> None:
        take = cond & ~decided
        out[take] = _IDX[key]
        decided[take] = True

    # flushes and straight flushes a hole card takes part in
    flush = np.zeros(n, dtype=bool)
    sflush = np.zeros(n, dtype=bool)
    fd = np.zeros(n, dtype=bool)
    bd = np.zeros(n, dtype=bool)
    for s in range(4):
        on_board = br[bs == s]
        bsmask = int(np.bitwise_or.reduce(1 << on_board)) if on_board.size else 0
        in_suit = hs == s  # (n, 2)
        smask = (
            bsmask
            | np.where(in_suit[:, 0], 1 << hr[:, 0], 0)
            | np.where(in_suit[:, 1], 1 << hr[:, 1], 0)
        )
        count = on_board.size + in_suit.sum(axis=1)
        # a hole card of the suit is among the best five when fewer than five suited ranks
        # lie above it
        above = _POPCOUNT[smask[:, None] >> (hr + 1)]
        in_top5 = (in_suit & (above < 5)).any(axis=1)
        five = count >= 5
        flush |= five & in_top5
        sflush |= five & (sh[smask] > sh[bsmask])
        has_hole = in_suit.any(axis=1)
        fd |= has_hole & (count == 4)
        bd |= has_hole & (count == 3) & (board.size == 3)
    settle(sflush, "straight_flush")
    settle(((total == 4) & (hcount > 0)).any(axis=1), "quads")
    at3 = total >= 3
    trips_rank = np.where(at3.any(axis=1), 12 - np.argmax(at3[:, ::-1], axis=1), -1)
    at2 = (total >= 2) & (ranks != trips_rank[:, None])
    pair_rank = np.where(at2.any(axis=1), 12 - np.argmax(at2[:, ::-1], axis=1), -1)
    rows = np.arange(n)
    own_trips_or_pair = (trips_rank >= 0) & (pair_rank >= 0)
    hole_in = (hcount[rows, np.maximum(trips_rank, 0)] > 0) | (
        hcount[rows, np.maximum(pair_rank, 0)] > 0
    )
    settle(own_trips_or_pair & hole_in, "full_house")
    settle(flush, "flush")
    settle(sh[amask] > sh[bmask], "straight")
    own = (hcount > 0) & (total >= 2)
    own_t = own & (total >= 3)
    t_rank = 12 - np.argmax(own_t[:, ::-1], axis=1)
    has_t = own_t.any(axis=1)
    settle(has_t & (hcount[rows, t_rank] == 2), "set")
    settle(has_t, "trips")
    n_own = own.sum(axis=1)
    settle(n_own >= 2, "two_pair")
    one = n_own == 1
    r = np.argmax(own, axis=1)
    pocket = hcount[rows, r] == 2
    top = int(br.max())
    settle(one & pocket & (r > top), "overpair")
    settle(one & pocket, "underpair")
    distinct = np.unique(br)[::-1]
    pos = np.searchsorted(-distinct, -r)  # r's place among the board's ranks, highest first
    settle(one & (pos == 0), "top_pair")
    settle(one & (pos == 1), "second_pair")
    settle(one, "weaker_pair")

    draws = np.zeros((n, len(DRAWS)), dtype=bool)
    if board.size < 5:
        weaker_than_flush = out > _IDX["flush"]
        draws[:, DRAWS.index("flush_draw")] = fd & weaker_than_flush
        outs = np.zeros(n, dtype=np.int64)
        for rank in range(13):
            bit = 1 << rank
            with_r = sh[amask | bit]
            outs += (total[:, rank] != 4) & (with_r >= 0) & (with_r > sh[bmask | bit])
        weaker_than_straight = out > _IDX["straight"]
        draws[:, DRAWS.index("oesd")] = weaker_than_straight & (outs >= 2)
        draws[:, DRAWS.index("gutshot")] = weaker_than_straight & (outs == 1)
        draws[:, DRAWS.index("backdoor_fd")] = bd & ~fd & weaker_than_flush
    draws[:, DRAWS.index("overcards")] = (out == _IDX["high_card"]) & (hr.min(axis=1) > top)
    return out, draws


@dataclass(frozen=True)
class ClassRow:
    """One class of a range at a node: ``combos`` is the reach-weighted number of combos
    (range weight × the probability of playing to the node), ``share`` that over the range's
    total, ``mix`` (num_actions,) the reach-weighted action frequencies (None without a
    strategy, or when no combo reaches)."""

    key: str
    label: str
    kind: str  # "made" or "draw"
    combos: float
    share: float
    mix: tuple[float, ...] | None
    hands: int  # combos (unweighted) of the class with positive reach


def class_table(
    board: Sequence[int] | str,
    cards: npt.ArrayLike,
    reach: npt.ArrayLike,
    strategy: npt.ArrayLike | None = None,
) -> list[ClassRow]:
    """Per-class combos, share and action mix of a range at a node.

    ``cards`` (n, 2) card indices of the player's hands, ``reach`` (n,) their reach (0 for
    hands not at the node), ``strategy`` (num_actions, n) the player's strategy there. Rows:
    every made class that some hand reaches (strongest first), then every draw flag that
    some hand reaching holds (a hand appears in one made row and in each of its draw rows).
    """
    made, draws = classify_hands(board, cards)
    r = np.asarray(reach, dtype=np.float64).reshape(-1)
    if r.shape[0] != made.shape[0]:
        raise ValueError(f"reach has {r.shape[0]} entries for {made.shape[0]} hands")
    r = np.where(made >= 0, r, 0.0)
    sigma = None if strategy is None else np.asarray(strategy, dtype=np.float64)
    if sigma is not None and (sigma.ndim != 2 or sigma.shape[1] != r.shape[0]):
        raise ValueError(f"strategy must be (num_actions, {r.shape[0]})")
    total = float(r.sum())
    rows: list[ClassRow] = []

    def row(key: str, label: str, kind: str, mask: npt.NDArray[np.bool_]) -> None:
        w = np.where(mask, r, 0.0)
        mass = float(w.sum())
        if mass <= 0:
            return
        mix = None if sigma is None else tuple(float(x) for x in (sigma @ w) / mass)
        hands = int(np.count_nonzero(w > 0))
        rows.append(ClassRow(key, label, kind, mass, mass / total, mix, hands))

    for i, key in enumerate(MADE):
        row(key, MADE_LABELS[key], "made", made == i)
    for j, key in enumerate(DRAWS):
        row(key, DRAW_LABELS[key], "draw", draws[:, j])
    return rows
