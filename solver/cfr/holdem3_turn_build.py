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

from solver.cfr.holdem3_build import NUM_CARDS, PLAYERS, per_hand_arrays
from solver.cfr.layout import GameArrays
from solver.cfr.multi import TERMINAL_TURN3
from solver.cfr.multi_build import MultiBuilt
from solver.cfr.showdown3_terminal import Showdown3Tables
from solver.games.holdem3_turn import (
    Turn3Hands,
    Turn3Setup,
    Turn3Spec,
    checked_turn,
    turn3_hands,
    turn_tree,
)
from solver.games.model import Game
from solver.poker.showdown3_hands import combo_names
from solver.tree.betting3_turn import Turn3Tree

__all__ = ["build_turn3", "turn3_tables"]


def turn3_tables(hands: Turn3Hands, tree: Turn3Tree) -> Showdown3Tables:
    """The terminal tables of the whole turn tree: block ``b`` (rows ``3b … 3b + 2`` of
    ``weight``, ``order``, ``cls``, ``num``) for board ``b`` (0 the turn's four cards, ``k + 1``
    with river card ``k``), ``inv_z`` the turn's ``1 / Z``, a row of ``contrib``/``active`` per
    terminal."""
    term = tree.terminal_nodes()
    term_row = np.full(tree.num_nodes, -1, dtype=np.int64)
    term_row[term] = np.arange(term.size)
    boards = hands.weight.shape[0]
    return Showdown3Tables(
        cards=hands.cards,
        weight=hands.weight.reshape(boards * PLAYERS, -1),
        inv_z=1.0 / hands.z,
        num=hands.num.reshape(-1),
        order=hands.order.reshape(boards * PLAYERS, -1),
        cls=hands.cls.reshape(boards * PLAYERS, -1),
        num_classes=hands.num_classes,
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
    th = turn3_hands(setup)
    tables = turn3_tables(th, bt)
    hands = np.array(setup.hands, dtype=np.int64)
    tree, hand_arrays, boards, multi = per_hand_arrays(
        bt, hands, tables, board=bt.board.astype(np.int32),
        chance_weight=bt.chance_weight.copy(), valid=th.valid, mode=TERMINAL_TURN3,
    )  # fmt: skip
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
            "board": setup.base.board,  # the turn's four cards (hand classes in lock text)
        },
    )
    return MultiBuilt(game, GameArrays(tree, hand_arrays, boards, multi))
