"""Three-way hold'em showdowns on a river board, by sorting on hand strength with card-removal
corrections — never a loop over triples of hands.

Given the five board cards, three ranges (weights over the 1,326 two-card combos: reach
probabilities, say) and the pot, :func:`showdown_values` gives every combo of every player
its value: the sum, over the two opponents' combos ``(h', h'')`` that share no card with it,
the board or each other, of ``w_q(h') * w_r(h'')`` times what the player wins — its share of
the pot (alone ``pot``, tied two ways ``pot / 2``, three ways ``pot / 3``) minus its own chips
in. :func:`fold_showdown_values` is the two-way showdown after one player folded in a
three-way pot: the folded player's chips stay in the pot, and its range still removes cards.

How. For a combo ``h = {a, b}`` and two opponent weight vectors ``f``, ``g`` (each the
opponent's range restricted to a window of the strength order: weaker than ``h``, as strong,
or all), the compatible pairs sum to ::

    Σ f(h') g(h'') [h', h'', h pairwise disjoint]
      = S_f S_g − Σ_c F_c G_c + Σ_{h'} f(h') g(h')

with every sum over combos disjoint from ``h`` (``S_f``: the restricted total; ``F_c``: the
restricted weight of combos holding card ``c``), since two distinct combos share at most one
card: ``[h' ∩ h'' = ∅] = 1 − |h' ∩ h''| + [h' = h'']``. The restricted card sums of every
``h`` at once come from prefix sums over the strength order, ``(H + 1) × 52``, less the
weights of the combos ``{a, c}`` and ``{b, c}``, gathered from a 52 × 52 table.

Cost per showdown node: O(H · 52) for each of a fixed number (about a dozen per player) of
restricted card sums — about 35 arrays of 1,326 × 52 numbers for the three players, and one
sort of the H = 1,326 strengths per board — against O(H³) for the triples.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.poker.cards import COMBOS, NUM_CARDS, NUM_COMBOS
from solver.poker.handeval import rank_hands

__all__ = ["BoardOrder", "board_order", "fold_showdown_values", "showdown_values"]

# combo index of {a, c} (-1 where a == c)
_PAIR = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int64)
_PAIR[COMBOS[:, 0], COMBOS[:, 1]] = np.arange(NUM_COMBOS)
_PAIR[COMBOS[:, 1], COMBOS[:, 0]] = np.arange(NUM_COMBOS)
_CARD_OF = np.zeros((NUM_COMBOS, NUM_CARDS))  # (H, 52): 1 where the combo holds the card
_CARD_OF[np.arange(NUM_COMBOS), COMBOS[:, 0]] = 1.0
_CARD_OF[np.arange(NUM_COMBOS), COMBOS[:, 1]] = 1.0


class BoardOrder(NamedTuple):
    """The strength order of the 1,326 combos on one river board (shared by the players)."""

    strength: npt.NDArray[np.int64]  # (H,) the combo's strength, -1 if it meets the board
    order: npt.NDArray[np.int64]  # (H,) combos by ascending strength
    pos: npt.NDArray[np.int64]  # (H,) each combo's place in ``order``
    start: npt.NDArray[np.int64]  # (H,) first place of the combo's strength class
    end: npt.NDArray[np.int64]  # (H,) one past its last place
    valid: npt.NDArray[np.bool_]  # (H,) the combo shares no card with the board


def board_order(board: npt.ArrayLike) -> BoardOrder:
    """Sort the combos by strength on the five-card ``board`` (card indices 0..51)."""
    cards = np.asarray(board)
    if cards.shape != (5,) or not np.issubdtype(cards.dtype, np.integer):
        raise ValueError(f"board: expected five card indices, got {cards.tolist()!r}")
    strength = rank_hands(cards, COMBOS)  # checks the range and repeats
    order = np.argsort(strength, kind="stable")
    pos = np.empty(NUM_COMBOS, dtype=np.int64)
    pos[order] = np.arange(NUM_COMBOS)
    ranked = strength[order]
    start = np.searchsorted(ranked, strength, side="left")
    end = np.searchsorted(ranked, strength, side="right")
    return BoardOrder(strength, order, pos, start, end, strength >= 0)


def _card_sums(
    bo: BoardOrder, w: npt.NDArray[np.float64], lo: npt.NDArray[np.int64], hi: npt.NDArray[np.int64]
) -> npt.NDArray[np.float64]:
    """(H, 52): for each combo ``h = {a, b}``, per card ``c``, the weight ``w`` of the combos
    holding ``c``, disjoint from ``h``, whose place in the strength order is in
    ``[lo[h], hi[h])`` (0 in the columns ``a`` and ``b``)."""
    prefix = np.zeros((NUM_COMBOS + 1, NUM_CARDS))
    np.cumsum(w[bo.order, None] * _CARD_OF[bo.order], axis=0, out=prefix[1:])
    hi = np.maximum(hi, lo)
    out = prefix[hi] - prefix[lo]
    wt = np.where(_PAIR >= 0, w[_PAIR], 0.0)  # (52, 52): weight of {a, c}
    at = bo.pos[_PAIR]  # place of {a, c} (junk on the diagonal, whose weight is 0)
    for k in (0, 1):
        a = COMBOS[:, k]
        inside = (at[a] >= lo[:, None]) & (at[a] < hi[:, None])
        out -= np.where(inside, wt[a], 0.0)
    rows = np.arange(NUM_COMBOS)
    out[rows, COMBOS[:, 0]] = 0.0
    out[rows, COMBOS[:, 1]] = 0.0
    return out


class _Windows(NamedTuple):
    lo: npt.NDArray[np.int64]
    hi: npt.NDArray[np.int64]


def _windows(bo: BoardOrder) -> dict[str, _Windows]:
    zero = np.zeros(NUM_COMBOS, dtype=np.int64)
    full = np.full(NUM_COMBOS, NUM_COMBOS, dtype=np.int64)
    return {
        "weaker": _Windows(zero, bo.start),
        "tied": _Windows(bo.start, bo.end),
        "all": _Windows(zero, full),
    }


class _Pairs:
    """Compatible pair sums against two opponents' ranges ``f`` and ``g`` for every combo,
    each opponent's combos restricted to a window of the strength order."""

    def __init__(self, bo: BoardOrder, f: npt.NDArray[np.float64], g: npt.NDArray[np.float64]):
        self.bo, self.f, self.g = bo, f, g
        self.win = _windows(bo)
        self._sums: dict[tuple[int, str], npt.NDArray[np.float64]] = {}

    def _sum(self, which: int, name: str) -> npt.NDArray[np.float64]:
        key = (which, name)
        if key not in self._sums:
            w = self.f if which == 0 else self.g
            win = self.win[name]
            self._sums[key] = _card_sums(self.bo, w, win.lo, win.hi)
        return self._sums[key]

    def __call__(self, wf: str, wg: str) -> npt.NDArray[np.float64]:
        """(H,): Σ f(h') g(h'') over pairwise disjoint ``h, h', h''`` with ``h'`` in window
        ``wf`` and ``h''`` in ``wg`` (of ``h``'s place in the strength order)."""
        fs, gs = self._sum(0, wf), self._sum(1, wg)
        a, b = self.win[wf], self.win[wg]
        both = _card_sums(self.bo, self.f * self.g, np.maximum(a.lo, b.lo), np.minimum(a.hi, b.hi))
        return fs.sum(1) * gs.sum(1) / 4.0 - (fs * gs).sum(1) + both.sum(1) / 2.0


def _check(
    ranges: npt.ArrayLike, pot: float, committed: npt.ArrayLike
) -> tuple[npt.NDArray[np.float64], float, npt.NDArray[np.float64]]:
    w = np.asarray(ranges, dtype=np.float64)
    if w.shape != (3, NUM_COMBOS):
        raise ValueError(f"ranges: expected shape (3, {NUM_COMBOS}), got {w.shape}")
    if not np.all(np.isfinite(w)) or np.any(w < 0.0):
        raise ValueError("ranges: weights must be finite and not negative")
    c = np.asarray(committed, dtype=np.float64)
    if c.shape != (3,) or not np.all(np.isfinite(c)) or np.any(c < 0.0):
        raise ValueError(f"committed: expected three chip counts ≥ 0, got {c.tolist()!r}")
    if not np.isfinite(pot) or pot < c.sum():
        raise ValueError(f"pot: expected at least the chips committed ({c.sum():g}), got {pot!r}")
    return w, float(pot), c


def showdown_values(
    board: npt.ArrayLike | BoardOrder,
    ranges: npt.ArrayLike,
    pot: float,
    committed: npt.ArrayLike,
) -> npt.NDArray[np.float64]:
    """(3, 1326): each player's value of each combo at a three-way showdown, in chips times
    the opponents' weights (see the module docstring); 0 for combos meeting the board.

    ``ranges`` (3, 1326) are the players' weights, ``pot`` the chips in the middle (dead
    money included), ``committed[p]`` what player ``p`` put in — what it loses when beaten."""
    bo = board if isinstance(board, BoardOrder) else board_order(board)
    w, pot, c = _check(ranges, pot, committed)
    w = w * bo.valid
    out = np.zeros((3, NUM_COMBOS))
    for p in range(3):
        q, r = (p + 1) % 3, (p + 2) % 3
        pairs = _Pairs(bo, w[q], w[r])
        share = pairs("weaker", "weaker")
        share += (pairs("tied", "weaker") + pairs("weaker", "tied")) / 2.0
        share += pairs("tied", "tied") / 3.0
        out[p] = (pot * share - c[p] * pairs("all", "all")) * bo.valid
    return out


def fold_showdown_values(
    board: npt.ArrayLike | BoardOrder,
    ranges: npt.ArrayLike,
    pot: float,
    committed: npt.ArrayLike,
    folded: int,
) -> npt.NDArray[np.float64]:
    """(3, 1326): the two-way showdown after player ``folded`` folded in a three-way pot.

    The two left split ``pot`` (the folded player's chips in it) by strength; the folded
    player loses ``committed[folded]`` whatever it holds. Every value sums over the other two
    players' combos compatible with it and each other — the folded range still removes
    cards — weighted by their ``ranges``."""
    if folded not in (0, 1, 2):
        raise ValueError(f"folded: expected player 0, 1 or 2, got {folded!r}")
    bo = board if isinstance(board, BoardOrder) else board_order(board)
    w, pot, c = _check(ranges, pot, committed)
    w = w * bo.valid
    out = np.zeros((3, NUM_COMBOS))
    for p in range(3):
        q, r = (p + 1) % 3, (p + 2) % 3
        if p == folded:
            out[p] = -c[p] * _Pairs(bo, w[q], w[r])("all", "all")
            continue
        # the other player still in is the opponent whose strength counts
        other, dead = (q, r) if q != folded else (r, q)
        pairs = _Pairs(bo, w[other], w[dead])
        share = pairs("weaker", "all") + pairs("tied", "all") / 2.0
        out[p] = pot * share - c[p] * pairs("all", "all")
    return out * bo.valid
