"""Hands grouped as players read them — one hand, a hand class, a grid cell — and a range's
numbers averaged over a group: the weights are those of :func:`solver.study.views.range_summary`
(own reach × compatible opponent reach), so a range's EV is the weighted mean of its groups'.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.games.model import Game
from solver.study.analysis import PlayerView, range_eqr

Array = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


@dataclass(frozen=True)
class Group:
    """Some of a player's hands at a node: ``key`` (a hand name, or a hand-class key of
    :mod:`solver.poker.handclass`), the label people read, ``mask`` (H[player],) bool."""

    key: str
    label: str
    mask: Mask


def hand_groups(game: Game, node: int, player: int) -> list[Group]:
    """One group per hand the player can hold at ``node``."""
    valid = game.valid_hands(node, player)
    nh = game.num_hands[player]
    out = []
    for h in np.flatnonzero(valid):
        mask = np.zeros(nh, dtype=bool)
        mask[h] = True
        name = game.hand_names[player][h]
        out.append(Group(name, name, mask))
    return out


def class_groups(game: Game, node: int, player: int) -> list[Group]:
    """Hold'em: one group per made class, then per draw flag, of the hands the player can
    hold at ``node`` (the board there: :func:`solver.study.views.board_cards`); classes no hand
    holds are left out. Toy games: :func:`hand_groups`."""
    if not game.is_holdem:
        return hand_groups(game, node, player)
    from solver.poker.handclass import DRAW_LABELS, DRAWS, MADE, MADE_LABELS, classify_hands
    from solver.study.views import board_cards

    nh = game.num_hands[player]
    valid = game.valid_hands(node, player)
    made, draws = classify_hands(board_cards(game, node), game.hands.cards[player, :nh])
    out = []
    for i, key in enumerate(MADE):
        mask = valid & (made == i)
        if mask.any():
            out.append(Group(key, MADE_LABELS[key], mask))
    for j, key in enumerate(DRAWS):
        mask = valid & draws[:, j] & (made >= 0)
        if mask.any():
            out.append(Group(key, DRAW_LABELS[key], mask))
    return out


def group_mean(view: PlayerView, values: Array, mask: Mask) -> float:
    """``values`` (H[player],) of the hands in ``mask`` averaged with the weights of
    :func:`solver.study.views.range_summary` (own reach × compatible opponent reach); NaN where no
    such weight is positive (or no value is finite)."""
    w = np.where(mask, view.reach * view.opponent_mass, 0.0)
    ok = np.isfinite(values) & (w > 0)
    total = float(w[ok].sum())
    return float((w[ok] * values[ok]).sum() / total) if total > 0 else float("nan")


def group_ev(view: PlayerView, mask: Mask) -> tuple[float, float]:
    """``(combos, EV)`` of the hands in ``mask``: the reach-weighted combos there and their EV
    (chips, :func:`group_mean` of ``view.ev``)."""
    return float(view.reach[mask].sum()), group_mean(view, view.ev, mask)


@dataclass(frozen=True)
class GroupNumbers:
    """A group's numbers at a node, as a range's (:func:`solver.study.views.range_summary`):
    ``combos`` reach-weighted, ``ev`` chips, ``equity`` in [0, 1], ``eqr`` the group's EQR
    (its mean EV plus the chips invested over its mean equity × the pot:
    :func:`~solver.study.analysis.range_eqr`, not the mean of its hands' ratios); NaN where
    undefined."""

    combos: float
    ev: float
    equity: float
    eqr: float


def group_numbers(view: PlayerView, mask: Mask) -> GroupNumbers:
    """:class:`GroupNumbers` of the hands in ``mask`` (H[player],), weighted as
    :func:`group_mean` weighs them."""
    combos, ev = group_ev(view, mask)
    equity = group_mean(view, view.equity, mask)
    return GroupNumbers(combos, ev, equity, range_eqr(ev, equity, view))


def cell_means(
    view: PlayerView, values: Array, cells: npt.NDArray[np.int64], n: int = 169
) -> Array:
    """(n,) :func:`group_mean` of ``values`` over the hands of each cell (``cells`` (H,) the
    cell of each hand, e.g. :func:`solver.study.analysis.cell_of_hands` for the 13×13 grid), NaN
    where nothing reaches; all cells at once."""
    w = view.reach * view.opponent_mass
    ok = np.isfinite(values) & (w > 0)
    wv = np.where(ok, w, 0.0)
    num = np.bincount(cells, weights=np.where(ok, wv * np.where(ok, values, 0.0), 0.0), minlength=n)
    den = np.bincount(cells, weights=wv, minlength=n)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(den > 0, num / np.where(den > 0, den, 1.0), np.nan)


def cell_eqr(view: PlayerView, cells: npt.NDArray[np.int64], n: int = 169) -> Array:
    """(n,) EQR of each cell's hands as a group: its mean EV plus the chips invested over its
    mean equity × the pot (:func:`~solver.study.analysis.range_eqr`), not the mean of its
    hands' ratios; NaN where undefined."""
    ev = cell_means(view, view.ev, cells, n)
    denom = cell_means(view, view.equity, cells, n) * view.pot
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denom > 0, (ev + view.invested) / np.where(denom > 0, denom, 1.0), np.nan)
