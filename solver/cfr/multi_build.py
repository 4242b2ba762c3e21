"""A game of three (or more) players as the engine's arrays: the one place a
:class:`~solver.games.multiway.MultiGame` becomes a :class:`~solver.games.model.Game` the walk
takes (its public tree as the heads-up :class:`~solver.games.model.Tree`, one hand vector per
player) with the deals and payoffs beside it (:class:`~solver.cfr.multi.MultiArrays`).

The engine's ``[action, hand]`` blocks are the MultiGame's own (the same offsets), so a
profile of the engine — its average or current strategy — is a profile of the MultiGame as
:mod:`solver.games.nashconv` reads it, entry for entry. Every array has the heads-up game's
dtype and number of dimensions (only the leading "player" axes have ``P`` rows), so the
walk runs in the kernel signature heads-up games compile, no new one.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from solver.cfr.layout import GameArrays, Scratch, make_scratch
from solver.cfr.multi import TERMINAL_DEALS, TERMINAL_TOY3, MultiArrays
from solver.cfr.showdown3_terminal import Showdown3Tables
from solver.games.model import Boards, Game, Hands, Tree, parent_nodes
from solver.games.multiway import MultiGame

__all__ = ["MultiBuilt", "build_multi", "multi_scratch", "toy3_applies", "toy3_tables"]


class MultiBuilt(NamedTuple):
    """A MultiGame built for the engine: the Game (sizes, names, storage layout) and the
    arrays the kernels take."""

    game: Game
    arrays: GameArrays


def _preorder(mg: MultiGame) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(ioffset (N,), pre_order (M,), pre_start (N,), pre_end (N,)): the per-hand blocks and
    each node's subtree as a range of the decision nodes in depth-first preorder (the
    MultiGame lays out its ``[action, hand]`` blocks in that order, by offset)."""
    n, h = mg.num_nodes, mg.num_hands
    dec = mg.decision_nodes()
    pre = dec[np.argsort(mg.offset[dec], kind="stable")]
    ioffset = np.full(n, -1, dtype=np.int64)
    ioffset[pre] = np.arange(pre.size, dtype=np.int64) * h
    position = np.full(n, -1, dtype=np.int64)
    position[pre] = np.arange(pre.size)
    start = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    end = np.zeros(n, dtype=np.int64)
    for k in range(n - 1, -1, -1):  # children after parents: one backward sweep
        if position[k] >= 0:
            start[k] = min(start[k], position[k])
            end[k] = max(end[k], position[k] + 1)
        kids = mg.children(k)
        if len(kids):
            start[k] = min(start[k], int(start[kids.start : kids.stop].min()))
            end[k] = max(end[k], int(end[kids.start : kids.stop].max()))
    start[end == 0] = 0
    return ioffset, pre.astype(np.int64), start, end


def build_multi(mg: MultiGame, terminals: str = "auto") -> MultiBuilt:
    """``mg`` as the engine's arrays (module docstring). Hands are one card each in the toy
    games; every player draws from the same ``H`` hands. ``terminals``: ``"auto"`` values
    a three-player game of one-card hands (kuhn3, leduc3) by strength class
    (:func:`toy3_tables`, mode ``TERMINAL_TOY3``) and any other by its deal list;
    ``"deals"`` always by the deal list (the reference the other is checked against)."""
    if terminals not in ("auto", "deals"):
        raise ValueError(f"terminals: expected 'auto' or 'deals', got {terminals!r}")
    n, h, pl = mg.num_nodes, mg.num_hands, mg.num_players
    i32 = np.int32
    ioffset, pre, pre_start, pre_end = _preorder(mg)
    tree = Tree(
        kind=mg.kind.astype(np.int8),
        player=mg.player.astype(np.int8),
        first_child=mg.first_child.astype(i32),
        num_children=mg.num_children.astype(i32),
        offset=mg.offset.astype(np.int64),
        ioffset=ioffset,
        payoff=np.zeros(n),  # (the terminals' payoffs are MultiArrays.wpay's)
        rake=np.zeros(n),
        board=mg.board.astype(i32),
        chance_weight=mg.chance_weight.astype(np.float64),
        iso_start=np.zeros(n, dtype=i32),
        iso_count=np.zeros(n, dtype=i32),
        iso_board=np.zeros(1, dtype=i32),
        iso_perm=np.zeros(1, dtype=i32),
        runout=np.full(n, -1, dtype=i32),
        pre_order=pre,
        pre_start=pre_start,
        pre_end=pre_end,
        parent=parent_nodes(mg.first_child, mg.num_children),
    )
    k = mg.hand_cards.shape[1]
    cards = np.full((pl, h, 2), -1, dtype=i32)
    cards[:, :, :k] = mg.hand_cards.astype(i32)[None]
    num_cards = int(mg.hand_cards.max()) + 1
    hands = Hands(
        num_hands=np.full(pl, h, dtype=np.int64),
        cards=cards,
        weights=np.ones((pl, h)),
        same=np.full((pl, h), -1, dtype=i32),
        num_cards=num_cards,
        norm=np.float64(1.0),  # (the deals' chances are in MultiArrays.wpay)
        perm=np.zeros((1, pl, h), dtype=i32),
        pack=np.zeros((pl, h), dtype=np.uint64),
    )
    b = mg.board_cards.shape[0]
    boards = Boards(  # card removal is the deals' (wpay is 0 where a board blocks a deal)
        valid=np.ones((b, pl, h)),
        order=np.zeros((b, pl, h), dtype=i32),
        rank=np.zeros((b, pl, h), dtype=np.int64),
        sorted_rank=np.zeros((b, pl, h), dtype=np.int64),
        sorted_cards=np.zeros((b, pl, h, 2), dtype=i32),
        runout_eq=np.zeros((0, 2, h, h)),
        sd_row=np.full(b, -1, dtype=i32),
        sd_src=np.zeros((0, 2, 2 * h), dtype=np.uint16),
        sd_cstart=np.zeros((0, 2, num_cards + 1), dtype=i32),
        sd_pack=np.zeros((0, 2, h, 2), dtype=np.uint64),
    )
    term_row = np.ascontiguousarray(mg.terminal_row, dtype=np.int64)
    if terminals == "auto" and toy3_applies(mg):  # no deal list: (T, P, D) floats saved
        multi = MultiArrays(
            players=int(pl),
            term_row=term_row,
            deals=np.zeros((1, pl), dtype=np.int64),
            wpay=np.zeros((1, 1, 1)),
            mode=TERMINAL_TOY3,
            sd3=toy3_tables(mg),
        )
    else:
        term = np.flatnonzero(mg.terminal_row >= 0)
        valid = mg.deal_valid[mg.board[term]]  # (T, D)
        wpay = mg.payoff * (mg.deal_weight[None, :] * valid)[:, None, :]
        multi = MultiArrays(
            players=int(pl),
            term_row=term_row,
            deals=np.ascontiguousarray(mg.deals, dtype=np.int64),
            wpay=np.ascontiguousarray(wpay, dtype=np.float64),
            mode=TERMINAL_DEALS,
        )
    game = Game(
        name=mg.name,
        tree=tree,
        hands=hands,
        boards=boards,
        labels=list(mg.labels),
        hand_names=[mg.hand_names for _ in range(pl)],
        description=f"{mg.name}: {mg.meta.get('openspiel', '')}",
        meta={"kind": "multi", "players": int(pl)},
        card_names=list(mg.card_names),
    )
    return MultiBuilt(game, GameArrays(tree, hands, boards, multi))


def toy3_applies(mg: MultiGame) -> bool:
    """Whether ``mg`` can be valued by :func:`~solver.cfr.toy3_terminal.toy3_terminal`:
    three players, one card per hand, one card per board, a showdown strength per board,
    and every ordered triple of distinct hands dealt, each as likely."""
    h = mg.num_hands
    return (
        mg.num_players == 3
        and mg.strength is not None
        and mg.hand_cards.shape[1] == 1
        and mg.board_cards.shape[1] == 1
        and mg.deals.shape[0] == h * (h - 1) * (h - 2)
        and bool(np.all(mg.deal_weight == mg.deal_weight[0]))
    )


def toy3_tables(mg: MultiGame) -> Showdown3Tables:
    """The tables :func:`~solver.cfr.toy3_terminal.toy3_terminal` reads for ``mg`` (that
    module's docstring); ValueError when ``mg`` is not such a game (:func:`toy3_applies`)."""
    if not toy3_applies(mg):
        raise ValueError(f"game: {mg.name} is not a three-player game of one-card hands")
    assert mg.strength is not None
    nb, h = mg.board_cards.shape[0], mg.num_hands
    card = mg.hand_cards[:, 0]
    cls = np.full((nb, h), -1, dtype=np.int64)
    order = np.zeros((nb, h), dtype=np.int64)
    span = np.zeros((nb, h, 2), dtype=np.int64)
    num = np.zeros(nb, dtype=np.int64)
    for b in range(nb):
        live = np.flatnonzero(card != mg.board_cards[b, 0])
        classes, inverse = np.unique(mg.strength[b, live], return_inverse=True)
        cls[b, live] = inverse
        num[b] = classes.size
        by = live[np.argsort(inverse, kind="stable")]
        order[b, : by.size] = by
        order[b, by.size :] = np.setdiff1d(np.arange(h), live)
        starts = np.searchsorted(cls[b, by], np.arange(classes.size + 1))
        span[b, live, 0] = starts[inverse]
        span[b, live, 1] = starts[inverse + 1]
    term = np.flatnonzero(mg.terminal_row >= 0)
    return Showdown3Tables(
        cards=span,
        weight=np.zeros((1, 1)),
        inv_z=1.0 / mg.deals.shape[0],
        num=num,
        order=order,
        cls=cls,
        num_classes=int(num.max()),
        contrib=np.ascontiguousarray(mg.contrib[term]),
        active=np.ascontiguousarray(mg.active[term]),
        term_row=np.ascontiguousarray(mg.terminal_row, dtype=np.int64),
        mat=np.zeros((1, 1, 1)),
        vec=np.zeros((9, int(num.max()))),
        acc=np.zeros(8),
    )


def multi_scratch(game: Game, players: int) -> Scratch:
    """The walk's scratch for a ``players``-player game: as heads-up, with ``players`` reach
    rows per depth (row ``d · P + p``: player ``p``'s own reach at depth ``d``)."""
    sc = make_scratch(game)
    rows, width = sc.reach.shape
    return sc._replace(reach=np.zeros((rows * players, width)))
