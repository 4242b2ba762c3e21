"""The trainer's dealing (:mod:`solver.study.trainer`): the exact deal table at a node, drawing
from it, the deal filters (hand classes, grid cells, a minimum reach) and the suit
permutations a deal may be shown under.

**The deal table.** At a node ``n`` a pair of hands ``(h0, h1)`` is dealt with probability
proportional to ``w0(h0) · w1(h1) · [h0, h1 share no card] · π0(h0 → n) · π1(h1 → n)``: the
range weights, card removal and each player's own probability under ``sigma`` of taking the
line to ``n`` (:func:`solver.cfr.reach.path_reach`; a hand a dealt card on the line blocks has
reach 0). The chance cards' probability on the line is the same for every pair the board does
not block (one over the live deck at each deal), so it cancels.

**Filters** (:class:`DealFilter`) condition that law on the hero's hand: the filtered table is
the unfiltered one with the rows (or columns) of the hands the filter drops set to 0 and
renormalised — exactly ``P(h0, h1 | hero's hand passes)``. A hand passes when it is in one of
the chosen hand classes (:mod:`solver.poker.handclass`, on the board at the deal node) or grid cells
(either, when both are chosen; every hand when neither is), and its reach at the deal node
(range weight × its own probability of the line, 0 to 1 — what Explore shows as the hand's
weight there) is at least ``min_reach_pct`` %.

**Suits.** A deal may be shown under a permutation of the four suits applied to every card
(board, both hands, the cards to come): the spot it shows is the solved one on a board of the
same suit structure (monotone stays monotone, a flush draw stays a flush draw), and, when
both ranges are suit-symmetric, the shown hands are dealt as often there as the real ones
here, so every number (EVs, mix, grade) is the same. :func:`suit_permutations` gives the 24
permutations when every grid cell's hands have one weight in both ranges, else only the
identity.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.cfr.reach import path_reach
from solver.games.model import Game
from solver.poker.cards import SUITS
from solver.study.analysis import compatible
from solver.study.trainer_args import TrainerError, real, said

Array = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]
Perm = tuple[int, ...]
IDENTITY: Perm = (0, 1, 2, 3)


# ----- the deal table -------------------------------------------------------------------------
def _reaches(
    game: Game, sigma: Array, node: int, keep: tuple[Mask | None, Mask | None] | None
) -> tuple[Array, Array]:
    r0, r1 = path_reach(game, sigma, node)
    if keep is not None:
        r0 = r0 if keep[0] is None else np.where(keep[0], r0, 0.0)
        r1 = r1 if keep[1] is None else np.where(keep[1], r1, 0.0)
    return r0, r1


def deal_table(
    game: Game,
    sigma: Array,
    node: int,
    compat: Mask | None = None,
    keep: tuple[Mask | None, Mask | None] | None = None,
) -> Array:
    """(H[0], H[1]) probabilities summing to 1: the chance that the pair of hands is dealt at
    ``node`` (module doc), conditioned on each player's hand being in ``keep[p]`` ((H[p],)
    bool, None: any). Raises :class:`~solver.study.trainer_args.TrainerError` (``node``) when no
    pair of hands reaches the node."""
    m = compatible(game) if compat is None else compat
    r0, r1 = _reaches(game, sigma, node, keep)
    table = m * np.outer(r0, r1)
    total = float(table.sum())
    if not total > 0:
        raise TrainerError("node", f"no pair of hands reaches node {node} under this strategy")
    return np.asarray(table / total, dtype=np.float64)


def draw(weights: Array, rng: np.random.Generator) -> int:
    """An index drawn with probability ``weights / weights.sum()`` (weights ≥ 0); a
    :class:`~solver.study.trainer_args.TrainerError` naming ``sigma`` when they are all 0 (a
    strategy with no frequency for a hand that plays)."""
    cum = np.cumsum(weights)
    if not cum[-1] > 0:
        raise TrainerError("sigma", "sigma has no frequency to draw from for this hand here")
    return int(min(np.searchsorted(cum, rng.random() * cum[-1], side="right"), len(cum) - 1))


def deal_hands(
    game: Game,
    sigma: Array,
    node: int,
    rng: np.random.Generator,
    compat: Mask | None = None,
    keep: tuple[Mask | None, Mask | None] | None = None,
) -> tuple[int, int]:
    """A pair ``(h0, h1)`` drawn with :func:`deal_table`'s probabilities, in two steps:
    player 0's hand from its marginal ``r0(h0) · Σ_{h1 compatible} r1(h1)``, then player 1's
    from ``r1`` over the hands compatible with it (the same joint law, O(H²) once)."""
    m = compatible(game) if compat is None else compat
    r0, r1 = _reaches(game, sigma, node, keep)
    marginal = r0 * (m @ r1)
    if not float(marginal.sum()) > 0:
        raise TrainerError("node", f"no pair of hands reaches node {node} under this strategy")
    h0 = draw(marginal, rng)
    h1 = draw(np.where(m[h0], r1, 0.0), rng)
    return h0, h1


def hand_cards(game: Game, player: int, hand: int) -> tuple[int, ...]:
    """The card indices of a player's hand."""
    return tuple(int(c) for c in game.hands.cards[player, hand] if c >= 0)


# ----- filters --------------------------------------------------------------------------------
class FilterError(TrainerError):
    """A filter the spot cannot take: ``field`` is the :class:`DealFilter` field at fault
    (``classes``, ``cells`` or ``min_reach_pct``)."""


def _names(field: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, (tuple, list)):
        raise FilterError(field, f"{field} must be a tuple of names, not {said(value)}")
    bad = [x for x in value if not isinstance(x, str)]
    if bad:
        raise FilterError(field, f"{field} must hold names (text), not {said(bad[0])}")
    return tuple(value)


@dataclass(frozen=True)
class DealFilter:
    """Which of the hero's hands may be dealt (module doc): ``classes`` keys of
    :data:`solver.poker.handclass.MADE` or :data:`~solver.poker.handclass.DRAWS` (hold'em),
    ``cells``
    grid labels (``AKs``, ``QQ``, ``T9o``; toy games: a card ``Ks`` or a rank ``K``),
    ``min_reach_pct`` the least reach at the deal node, % in [0, 100]."""

    classes: tuple[str, ...] = ()
    cells: tuple[str, ...] = ()
    min_reach_pct: float = 0.0

    def __post_init__(self) -> None:
        object.__setattr__(self, "classes", _names("classes", self.classes))
        object.__setattr__(self, "cells", _names("cells", self.cells))
        try:
            reach = real("min_reach_pct", self.min_reach_pct)
        except TrainerError as exc:
            raise FilterError("min_reach_pct", exc.message) from None
        object.__setattr__(self, "min_reach_pct", reach)
        if not 0.0 <= self.min_reach_pct <= 100.0:
            raise FilterError(
                "min_reach_pct",
                f"the minimum reach must be in [0, 100] %, not {self.min_reach_pct}",
            )

    @property
    def active(self) -> bool:
        return bool(self.classes or self.cells or self.min_reach_pct > 0)

    def words(self) -> str:
        """The filter as a player says it (``top pair or AKs, reaching ≥ 20 %``)."""
        from solver.poker.handclass import DRAW_LABELS, MADE_LABELS

        names = [(MADE_LABELS.get(k) or DRAW_LABELS.get(k) or k).lower() for k in self.classes]
        parts = [" or ".join([*names, *self.cells])] if names or self.cells else []
        if self.min_reach_pct > 0:
            parts.append(f"reaching the spot at least {self.min_reach_pct:g} % of the time")
        return ", ".join(parts) or "any hand"


def _class_mask(game: Game, node: int, player: int, classes: tuple[str, ...]) -> Mask:
    from solver.poker.handclass import DRAWS, MADE, classify_hands
    from solver.study.views import board_cards

    nh = int(game.hands.num_hands[player])
    if not game.is_holdem:
        raise FilterError("classes", "hand classes are for hold'em spots (toy games: pick cards)")
    made, draws = classify_hands(board_cards(game, node), game.hands.cards[player, :nh])
    out = np.zeros(nh, dtype=bool)
    for key in classes:
        if key in MADE:
            out |= made == MADE.index(key)
        elif key in DRAWS:
            out |= draws[:, DRAWS.index(key)] & (made >= 0)
        else:
            raise FilterError(
                "classes", f"{key!r} is not a hand class (classes: {', '.join(MADE + DRAWS)})"
            )
    return out


def _cell_mask(game: Game, player: int, cells: tuple[str, ...]) -> Mask:
    names = game.hand_names[player]
    if game.is_holdem:
        from solver.poker.ranges import GRID_LABELS
        from solver.study.analysis import cell_of_hands

        labels = [lab for row in GRID_LABELS for lab in row]
        bad = [c for c in cells if c not in labels]
        if bad:
            raise FilterError("cells", f"{bad[0]!r} is not a grid cell (e.g. AA, AKs, T9o)")
        wanted = [labels.index(c) for c in cells]
        return np.isin(cell_of_hands(game, player), wanted)
    low = [n.lower() for n in names]
    out = np.zeros(len(names), dtype=bool)
    for cell in cells:
        c = cell.lower()
        hit = np.array([n == c or (len(c) == 1 and n[:1] == c) for n in low])
        if not hit.any():
            raise FilterError("cells", f"{cell!r} is not a card or rank of this game")
        out |= hit
    return out


def filter_mask(game: Game, sigma: Array, node: int, player: int, f: DealFilter) -> Mask:
    """(H[player],) which of ``player``'s hands ``f`` lets be dealt at ``node`` (module doc).
    Raises :class:`FilterError` naming an unknown class or cell."""
    nh = int(game.hands.num_hands[player])
    out = np.ones(nh, dtype=bool)
    if f.classes or f.cells:
        out = np.zeros(nh, dtype=bool)
        if f.classes:
            out |= _class_mask(game, node, player, f.classes)
        if f.cells:
            out |= _cell_mask(game, player, f.cells)
    if f.min_reach_pct > 0:
        reach = path_reach(game, sigma, node)[player]
        out &= reach >= f.min_reach_pct / 100.0 - 1e-12
    return out


# ----- suits ------------------------------------------------------------------------------------
def suit_permutations(game: Game) -> list[Perm]:
    """The suit permutations (``perm[s]`` the suit ``s`` is shown as, suits in
    :data:`solver.poker.cards.SUITS` order) a deal may be shown under: all 24 for a hold'em spot
    whose two ranges give every grid cell's hands (those the board leaves) one weight, else
    only the identity (toy games too)."""
    if not game.is_holdem:
        return [IDENTITY]
    from solver.poker.cards import COMBOS, NUM_COMBOS
    from solver.poker.ranges import COMBO_CELL

    board = np.asarray(game.meta["board"], dtype=np.int64)
    free = ~np.isin(COMBOS, board).any(axis=1)  # the combos the board leaves
    for p in (0, 1):
        w = np.zeros(NUM_COMBOS)  # a combo the game leaves out has weight 0
        combos = np.asarray(game.meta["combos"][p], dtype=np.int64)  # type: ignore[index]
        w[combos] = game.hands.weights[p, : len(combos)]
        hi = np.full(169, -np.inf)
        lo = np.full(169, np.inf)
        np.maximum.at(hi, COMBO_CELL[free], w[free])
        np.minimum.at(lo, COMBO_CELL[free], w[free])
        seen = np.isfinite(hi)
        if np.any(hi[seen] - lo[seen] > 1e-12):
            return [IDENTITY]
    return [tuple(p) for p in itertools.permutations(range(4))]


def shown_card(name: str, perm: Perm) -> str:
    """A card's name under a suit permutation (``Td`` with d → s: ``Ts``); names without a
    suit of :data:`~solver.poker.cards.SUITS` are left as they are."""
    if perm == IDENTITY or len(name) != 2 or name[1] not in SUITS:
        return name
    return name[0] + SUITS[perm[SUITS.index(name[1])]]


def shown_hand(name: str, perm: Perm) -> str:
    """A hand's name (``AsKd``, or a toy card) under a suit permutation, high card first."""
    if perm == IDENTITY or len(name) != 4:
        return name
    from solver.poker.cards import RANKS

    a, b = shown_card(name[:2], perm), shown_card(name[2:], perm)
    order = (RANKS.index(a[0]), SUITS.index(a[1])), (RANKS.index(b[0]), SUITS.index(b[1]))
    return a + b if order[0] >= order[1] else b + a
