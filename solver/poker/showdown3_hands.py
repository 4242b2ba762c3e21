"""Three players' hand lists on a river board as arrays: each hand's cards, its strength,
its range weight (0 for a hand meeting the board) and ``Z``, the weight of all deals — the
poker half of the engine's three-way river terminal (:mod:`solver.cfr.showdown3_terminal`,
which sees only these arrays)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.poker.cards import COMBOS, NUM_COMBOS, card_str
from solver.poker.handeval import rank_hands
from solver.poker.showdown3 import fold_showdown_values

__all__ = ["River3Hands", "combo_names", "river3_hands"]


class River3Hands(NamedTuple):
    """Per player ``p`` its ``num[p]`` hands (``H`` = the longest list; entries past a
    player's hands are padding: cards -1, weight 0, strength -1)."""

    cards: npt.NDArray[np.int64]  # (3, H, 2) card indices 0..51
    # (3, H) range weights; 0 where the hand is never dealt (it meets the board, or no two
    # hands of the others' ranges fit with it and each other)
    weight: npt.NDArray[np.float64]
    strength: npt.NDArray[np.int64]  # (3, H) 7-card strength on the board, -1 if it meets it
    num: npt.NDArray[np.int64]  # (3,) hands per player
    z: float  # Σ w0·w1·w2 over the triples of hands disjoint from each other and the board


def _hand_list(
    p: int, combos: npt.ArrayLike, weights: npt.ArrayLike
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    c = np.asarray(combos)
    w = np.asarray(weights, dtype=np.float64)
    if c.ndim != 1 or c.size == 0 or not np.issubdtype(c.dtype, np.integer):
        raise ValueError(f"combos: player {p}'s hands must be a non-empty list of combo indices")
    if np.any(c < 0) or np.any(c >= NUM_COMBOS):
        raise ValueError(f"combos: player {p}'s combo indices must be 0 to {NUM_COMBOS - 1}")
    if np.unique(c).size != c.size:
        raise ValueError(f"combos: player {p} lists a combo twice")
    if w.shape != c.shape:
        raise ValueError(f"weights: player {p} has {c.size} hands but {w.size} weights")
    if not np.all(np.isfinite(w)) or np.any(w < 0.0):
        raise ValueError(f"weights: player {p}'s weights must be finite and not negative")
    return c.astype(np.int64), w


def river3_hands(
    board: npt.ArrayLike, combos: Sequence[npt.ArrayLike], weights: Sequence[npt.ArrayLike]
) -> River3Hands:
    """``board`` five card indices; per player ``p`` its hands as combo indices ``combos[p]``
    (0 … 1325, each once) and range weights ``weights[p]``. ValueError naming the field on
    bad input, or when no three hands fit together with the board."""
    if len(combos) != 3 or len(weights) != 3:
        raise ValueError("combos, weights: expected one hand list and one weight list per player")
    hands = [_hand_list(p, combos[p], weights[p]) for p in range(3)]
    cards = np.asarray(board)
    if cards.shape != (5,) or not np.issubdtype(cards.dtype, np.integer):
        raise ValueError(f"board: expected five card indices, got {cards.tolist()!r}")
    strength = rank_hands(cards, COMBOS)  # checks the cards' range and repeats; -1 meets it
    width = max(c.size for c, _ in hands)
    out_cards = np.full((3, width, 2), -1, dtype=np.int64)
    weight = np.zeros((3, width))
    rank = np.full((3, width), -1, dtype=np.int64)
    full = np.zeros((3, NUM_COMBOS))  # the ranges over all combos (for Z)
    for p, (c, w) in enumerate(hands):
        out_cards[p, : c.size] = COMBOS[c]
        rank[p, : c.size] = strength[c]
        weight[p, : c.size] = np.where(strength[c] >= 0, w, 0.0)
        full[p, c] = weight[p, : c.size]
    # A hand no deal holds weighs 0: its values are then exactly 0, not a rounding residue of
    # the terminal's inclusion–exclusion (whose sign would steer regret matching). Counted
    # with 0/1 weights, so the pair counts are exact integers.
    held = (full > 0.0).astype(np.float64)
    for p, (c, _) in enumerate(hands):
        one = np.zeros(3)
        one[p] = 1.0
        pairs = -fold_showdown_values(cards, held, 1.0, one, p)[p]  # the numpy showdown's
        weight[p, : c.size] = np.where(pairs[c] > 0.5, weight[p, : c.size], 0.0)
        full[p, c] = weight[p, : c.size]
    # Z = Σ_h w0(h) · (pairs of w1, w2 disjoint from h and each other): the loss of a player
    # 0 who folded one chip
    z = -float(full[0] @ fold_showdown_values(cards, full, 1.0, [1.0, 0.0, 0.0], 0)[0])
    if not z > 0.0:
        raise ValueError("weights: no three hands of the ranges fit together with the board")
    num = np.array([c.size for c, _ in hands], dtype=np.int64)
    return River3Hands(out_cards, weight, rank, num, z)


def combo_names(combos: npt.ArrayLike) -> list[str]:
    """The names of combos (indices 0 … 1325), as ``AsKd``."""
    return ["".join(card_str(int(c)) for c in COMBOS[i]) for i in np.asarray(combos).tolist()]
