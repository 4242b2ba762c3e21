"""A three-way hold'em turn spot (:class:`~solver.games.holdem3_turn.Turn3Spec`) as the
engine's arrays, valued per hand, no deal list: the two-street tree of
:mod:`solver.tree.betting3_turn`, one hand vector per player, and its terminals by the
strength-order sweep of :mod:`solver.cfr.showdown3_terminal` with one table block per board
(``MultiArrays.mode`` = ``TERMINAL_TURN3``).

Card removal, exact:

* at a chance node dealing river card ``c`` every player's reach row is multiplied by
  ``Boards.valid[c's board]`` (0 for a hand holding ``c``), and the row of the player after the
  traverser by the card's chance ``1 / 42`` (each card a deal leaves is as likely); the
  traverser's values below are zeroed the same way on the way up;
* the terminal tables of board ``b`` weigh a hand 0 when it meets the board or when no two
  hands of the others fit with it on that board, and their sweep counts only the pairs of
  hands disjoint from each other and the board;
* ``Z`` is the turn's: ``Σ w0·w1·w2`` over the triples disjoint from each other and the four
  turn cards (the deal-list build's normaliser).

So a terminal gives ``v_t(h) = w_t(h)/Z · (1/42) · Σ_{h', h''} [disjoint from h, each other and
the board] w_q π_q(h') w_r π_r(h'') payoff`` — the deal-list build's number hand for hand
(:func:`~solver.games.holdem3_turn.turn3_multigame`). Cost per river terminal as on the river:
O((n_q + n_r) · 52 + n_t); per chance child O(3 · H) for the rows.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.holdem3_build import PLAYERS, _blocks
from solver.cfr.layout import GameArrays
from solver.cfr.multi import TERMINAL_TURN3, MultiArrays
from solver.cfr.multi_build import MultiBuilt
from solver.cfr.showdown3_terminal import Showdown3Tables
from solver.games.holdem3 import _pair_sums
from solver.games.holdem3_turn import Turn3Setup, Turn3Spec, checked_turn, turn_tree
from solver.games.model import Boards, Game, Hands, Tree
from solver.poker.cards import COMBOS, NUM_CARDS, NUM_COMBOS
from solver.poker.handeval import rank_hands
from solver.poker.showdown3_hands import combo_names
from solver.tree.betting3_turn import Turn3Tree

__all__ = ["build_turn3", "turn3_tables"]


def _board_block(
    board: npt.NDArray[np.int64],
    combos: tuple[npt.NDArray[np.int64], ...],
    weights: tuple[npt.NDArray[np.float64], ...],
    width: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64],
           npt.NDArray[np.int64], int]:  # fmt: skip
    """One board's block: weights (3, W) (0 for a hand meeting the board or that no deal on it
    holds), each player's live hands by ascending strength (3, W), their strength classes
    (3, W), how many are live (3,), and the number of classes. A four-card board (the turn's
    folds) puts every live hand in class 0."""
    full = np.zeros((PLAYERS, NUM_COMBOS))
    meets = np.zeros(NUM_COMBOS, dtype=bool)
    for c in board.tolist():
        meets |= (COMBOS[:, 0] == c) | (COMBOS[:, 1] == c)
    for p in range(PLAYERS):
        full[p, combos[p]] = np.where(meets[combos[p]], 0.0, weights[p])
    held = (full > 0.0).astype(np.float64)
    weight = np.zeros((PLAYERS, width))
    for p in range(PLAYERS):
        pairs = _pair_sums(held[(p + 1) % 3], held[(p + 2) % 3])  # exact small integers
        weight[p, : combos[p].size] = np.where(pairs[combos[p]] > 0.5, full[p, combos[p]], 0.0)
    if board.size == 5:
        strength = rank_hands(board, COMBOS)
    else:
        strength = np.zeros(NUM_COMBOS, dtype=np.int64)
    live = [np.flatnonzero(weight[p, : combos[p].size] > 0.0) for p in range(PLAYERS)]
    ranks = np.unique(np.concatenate([strength[combos[p][live[p]]] for p in range(PLAYERS)]))
    order = np.zeros((PLAYERS, width), dtype=np.int64)
    cls = np.zeros((PLAYERS, width), dtype=np.int64)
    num = np.zeros(PLAYERS, dtype=np.int64)
    for p in range(PLAYERS):
        k = np.searchsorted(ranks, strength[combos[p][live[p]]])
        by = np.argsort(k, kind="stable")
        num[p] = by.size
        order[p, : by.size] = live[p][by]
        cls[p, : by.size] = k[by]
    return weight, order, cls, num, int(ranks.size)


def turn3_tables(setup: Turn3Setup, tree: Turn3Tree) -> Showdown3Tables:
    """The terminal tables of the whole turn tree: block ``b`` (rows ``3b … 3b + 2`` of
    ``weight``, ``order``, ``cls``, ``num``) for board ``b`` (0 the turn's four cards, ``k + 1``
    with river card ``k``), ``inv_z`` the turn's ``1 / Z``, a row of ``contrib``/``active`` per
    terminal."""
    base = setup.base
    width = max(setup.hands)
    turn = np.array(base.board, dtype=np.int64)
    boards = [turn] + [np.append(turn, c) for c in setup.river_cards.tolist()]
    blocks = [_board_block(b, base.combos, base.hand_weights, width) for b in boards]
    cards = np.full((PLAYERS, width, 2), -1, dtype=np.int64)
    full = np.zeros((PLAYERS, NUM_COMBOS))
    for p in range(PLAYERS):
        cards[p, : base.combos[p].size] = COMBOS[base.combos[p]]
        full[p, base.combos[p]] = blocks[0][0][p, : base.combos[p].size]
    z = float(full[0] @ _pair_sums(full[1], full[2]))
    if not z > 0.0:
        raise ValueError("weights: no three hands of the ranges fit together with the board")
    term = tree.terminal_nodes()
    term_row = np.full(tree.num_nodes, -1, dtype=np.int64)
    term_row[term] = np.arange(term.size)
    return Showdown3Tables(
        cards=cards,
        weight=np.concatenate([b[0] for b in blocks]),
        inv_z=1.0 / z,
        num=np.concatenate([b[3] for b in blocks]),
        order=np.concatenate([b[1] for b in blocks]),
        cls=np.concatenate([b[2] for b in blocks]),
        num_classes=max(b[4] for b in blocks),
        contrib=np.ascontiguousarray(tree.contrib[term]),
        active=np.ascontiguousarray(tree.active[term]),
        term_row=term_row,
        mat=np.zeros((3, NUM_CARDS, NUM_CARDS)),
        vec=np.zeros((5, NUM_CARDS)),
        acc=np.zeros(8),
    )


def build_turn3(spec: Turn3Spec | Turn3Setup) -> MultiBuilt:
    """``spec`` as the engine's arrays (module docstring). Checked first
    (:func:`~solver.games.holdem3_turn.checked_turn`: every field, the tree's size and the
    memory cap, a :class:`~solver.games.spec.SpecError` naming the field)."""
    setup, plan, _est = checked_turn(spec)
    bt = turn_tree(setup, plan)
    tables = turn3_tables(setup, bt)
    n = bt.num_nodes
    hands = np.array(setup.hands, dtype=np.int64)
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
        board=bt.board.astype(i32),
        chance_weight=bt.chance_weight.copy(),
        iso_start=np.zeros(n, dtype=i32),
        iso_count=np.zeros(n, dtype=i32),
        iso_board=np.zeros(1, dtype=i32),
        iso_perm=np.zeros(1, dtype=i32),
        runout=np.full(n, -1, dtype=i32),
        pre_order=pre,
        pre_start=pre_start,
        pre_end=pre_end,
    )
    num_boards = 1 + setup.river_cards.size
    valid = np.zeros((num_boards, PLAYERS, width))
    for p in range(PLAYERS):
        c = COMBOS[setup.base.combos[p]]
        valid[0, p, : c.shape[0]] = 1.0  # (the hands miss the turn's cards)
        for k, card in enumerate(setup.river_cards.tolist()):
            valid[k + 1, p, : c.shape[0]] = np.all(c != card, axis=1)
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
    boards = Boards(  # card removal: the rows at chance nodes and the tables
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
        mode=TERMINAL_TURN3,
        sd3=tables,
    )
    cfg = setup.base.config
    game = Game(
        name=setup.spec.name,
        tree=tree,
        hands=hand_arrays,
        boards=boards,
        labels=list(bt.labels),
        hand_names=[combo_names(c) for c in setup.base.combos],
        description=f"{setup.spec.name}: three-way turn, pot {cfg.pot}, stack {cfg.stack}",
        meta={
            "kind": "turn3",
            "players": PLAYERS,
            "pot": cfg.pot,
            "combos": tuple(c.copy() for c in setup.base.combos),
        },
    )
    return MultiBuilt(game, GameArrays(tree, hand_arrays, boards, multi))
