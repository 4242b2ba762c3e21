"""A three-way hold'em river spot (:class:`~solver.games.holdem3.River3Spec`) as the engine's
arrays, valued per hand: the public tree of :mod:`solver.tree.betting3`, one hand vector per
player (of its own length: player ``p``'s combos, ``[action, hand]`` blocks of ``n_p`` hands
at its nodes) and its terminals by the strength-order sweep
(:mod:`solver.cfr.showdown3_terminal`, ``MultiArrays.mode`` = ``TERMINAL_SHOWDOWN3``) — no
deal list. The numbers are the deal-list build's of the same spot
(:func:`~solver.games.holdem3.river3_multigame`, :func:`~solver.cfr.multi_build.build_multi`),
hand for hand, at a cost per terminal of O((n_q + n_r) · 52 + n_t) instead of O(deals).
"""

from __future__ import annotations

import numpy as np

from solver.cfr.layout import GameArrays
from solver.cfr.multi import TERMINAL_SHOWDOWN3, MultiArrays
from solver.cfr.multi_build import MultiBuilt
from solver.cfr.showdown3_terminal import Showdown3Tables, showdown3_tables
from solver.games.holdem3 import River3Setup, River3Spec, checked
from solver.games.model import DECISION, Boards, Game, Hands, Tree, parent_nodes
from solver.poker.showdown3_hands import combo_names
from solver.tree.betting3 import Betting3Tree
from solver.tree.betting3_turn import Turn3Tree

__all__ = ["build_holdem3"]

PLAYERS = 3
NUM_CARDS = 52


def _blocks(
    kind: np.ndarray, player: np.ndarray, first: np.ndarray, count: np.ndarray,
    pre: np.ndarray, hands: np.ndarray,
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:  # fmt: skip
    """(offset, ioffset, pre_start, pre_end) per node: the ``[action, hand]`` and ``[hand]``
    blocks in the preorder ``pre`` (each of the actor's ``hands[p]`` hands), and each node's
    subtree as a range of ``pre``."""
    n = kind.shape[0]
    nh = hands[player[pre]]
    offset = np.full(n, -1, dtype=np.int64)
    ioffset = np.full(n, -1, dtype=np.int64)
    offset[pre] = np.concatenate([[0], np.cumsum(count[pre] * nh)[:-1]])
    ioffset[pre] = np.concatenate([[0], np.cumsum(nh)[:-1]])
    position = np.full(n, -1, dtype=np.int64)
    position[pre] = np.arange(pre.size)
    start = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    end = np.zeros(n, dtype=np.int64)
    for k in range(n - 1, -1, -1):  # breadth-first: children after parents
        if position[k] >= 0:
            start[k] = min(start[k], position[k])
            end[k] = max(end[k], position[k] + 1)
        if kind[k] == DECISION:
            kids = slice(int(first[k]), int(first[k] + count[k]))
            start[k] = min(start[k], int(start[kids].min()))
            end[k] = max(end[k], int(end[kids].max()))
    start[end == 0] = 0
    return offset, ioffset, start, end


def per_hand_arrays(
    bt: Betting3Tree | Turn3Tree, hands: np.ndarray, tables: Showdown3Tables, *,
    board: np.ndarray, chance_weight: np.ndarray, valid: np.ndarray, mode: int,
) -> tuple[Tree, Hands, Boards, MultiArrays]:  # fmt: skip
    """The engine's arrays of a three-way per-hand build (river or turn): the tree ``bt`` with
    ``[action, hand]`` blocks of each actor's ``hands[p]`` hands, ``board``/``chance_weight``
    per node, ``valid`` ``(boards, 3, width)`` card removal at chance nodes, and placeholder
    hand, board and deal arrays (the terminal ``tables`` hold the weights and payoffs)."""
    n = bt.num_nodes
    width = int(hands.max())
    i32 = np.int32
    pre = bt.preorder().astype(np.int64)
    offset, ioffset, pre_start, pre_end = _blocks(bt.kind, bt.player, bt.first_child,
                                                  bt.num_children, pre, hands)  # fmt: skip
    tree = Tree(
        kind=bt.kind.astype(np.int8),
        player=bt.player.astype(np.int8),
        first_child=bt.first_child.astype(i32),
        num_children=bt.num_children.astype(i32),
        offset=offset,
        ioffset=ioffset,
        payoff=np.zeros(n),  # (the terminals' payoffs are the tables')
        rake=np.zeros(n),
        board=board,
        chance_weight=chance_weight,
        iso_start=np.zeros(n, dtype=i32),
        iso_count=np.zeros(n, dtype=i32),
        iso_board=np.zeros(1, dtype=i32),
        iso_perm=np.zeros(1, dtype=i32),
        runout=np.full(n, -1, dtype=i32),
        pre_order=pre,
        pre_start=pre_start,
        pre_end=pre_end,
        parent=parent_nodes(bt.first_child, bt.num_children),
    )
    hand_arrays = Hands(
        num_hands=hands,
        cards=tables.cards.astype(i32),
        weights=np.ones((PLAYERS, width)),  # (the range weights are the tables')
        same=np.full((PLAYERS, width), -1, dtype=i32),
        num_cards=NUM_CARDS,
        norm=np.float64(1.0),
        perm=np.zeros((1, PLAYERS, width), dtype=i32),
        pack=np.zeros((PLAYERS, width), dtype=np.uint64),
    )
    boards = Boards(  # card removal: ``valid`` at chance nodes and the tables
        valid=valid,
        order=np.zeros((1, PLAYERS, width), dtype=i32),
        rank=np.zeros((1, PLAYERS, width), dtype=np.int64),
        sorted_rank=np.zeros((1, PLAYERS, width), dtype=np.int64),
        sorted_cards=np.zeros((1, PLAYERS, width, 2), dtype=i32),
        runout_eq=np.zeros((0, 2, width, width)),
        sd_row=np.full(1, -1, dtype=i32),
        sd_src=np.zeros((0, 2, 2 * width), dtype=np.uint16),
        sd_cstart=np.zeros((0, 2, NUM_CARDS + 1), dtype=i32),
        sd_pack=np.zeros((0, 2, width, 2), dtype=np.uint64),
    )
    multi = MultiArrays(
        players=PLAYERS,
        term_row=tables.term_row,
        deals=np.zeros((1, PLAYERS), dtype=np.int64),  # (no deal list: the tables value it)
        wpay=np.zeros((1, 1, 1)),
        mode=mode,
        sd3=tables,
    )
    return tree, hand_arrays, boards, multi


def build_holdem3(spec: River3Spec | River3Setup) -> MultiBuilt:
    """``spec`` as the engine's arrays (module docstring). Checked first
    (:func:`~solver.games.holdem3.checked`: every field, the tree's size and the memory cap,
    a :class:`~solver.games.spec.SpecError` naming the field)."""
    setup, bt, _est = checked(spec)
    terminal = bt.terminal_nodes()
    tables = showdown3_tables(np.array(setup.board, dtype=np.int64), setup.combos,
                              setup.hand_weights, bt.contrib, bt.active, terminal)  # fmt: skip
    n = bt.num_nodes
    hands = np.array(setup.hands, dtype=np.int64)
    width = int(hands.max())
    tree, hand_arrays, boards, multi = per_hand_arrays(
        bt, hands, tables, board=np.zeros(n, dtype=np.int32), chance_weight=np.ones(n),
        valid=np.ones((1, PLAYERS, width)), mode=TERMINAL_SHOWDOWN3,
    )  # fmt: skip
    game = Game(
        name=setup.spec.name,
        tree=tree,
        hands=hand_arrays,
        boards=boards,
        labels=list(bt.labels),
        hand_names=[combo_names(c) for c in setup.combos],
        description=f"{setup.spec.name}: three-way river, pot {setup.config.pot}, "
        f"stack {setup.config.stack}",
        meta={
            "kind": "river3",
            "players": PLAYERS,
            "pot": setup.config.pot,
            "combos": tuple(c.copy() for c in setup.combos),  # each player's hands
            "board": setup.board,  # (hand classes in lock text: solver/games/holdem3_locks.py)
        },
    )
    return MultiBuilt(game, GameArrays(tree, hand_arrays, boards, multi))
