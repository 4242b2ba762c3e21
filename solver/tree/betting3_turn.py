"""The card-free tree of a three-way turn spot (issue 49): the turn's betting round
(:mod:`solver.tree.betting3`), a chance node dealing the river, the river's betting round, as
flat arrays in breadth-first order.

Rules:

* the turn is one street of :func:`~solver.tree.betting3.build_betting3` (players 0, 1, 2 in
  that order, the starting pot dead money, ``pot / 3`` from each player);
* where the turn's round closes with two or three players in (a turn SHOWDOWN of the one-street
  tree) a CHANCE node deals each river card not on the board (``river_cards``, child ``k``
  deals ``river_cards[k]``, on board ``k + 1``);
* below each card, with chips behind, the river's round: the same rules, the pot carried (each
  player's chips in kept, a player who folded on the turn stays out and never acts), the
  players still in acting in the same order, the river's sizes, bets counted from 0 again;
* all in on the turn (no chips behind): the river card goes straight to a SHOWDOWN;
* a fold leaving one player ends the hand on either street (FIXED).

Board per node: 0 on the turn (the four cards), ``k + 1`` below river card ``river_cards[k]``.
A chance child's ``chance_weight`` is ``1 / cards_left``: every deal holds six cards, so given
the deal each of the 52 − 4 − 6 = 42 cards it leaves is as likely (the deal's own cards are
removed from the rows and the deals, not from the tree).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.tree.betting import PlayerSizes, TreeTooLarge
from solver.tree.betting3 import PLAYERS3, Betting3Config, Betting3Tree, Nodes3, build_betting3
from solver.tree.kinds import CHANCE, DECISION, SHOWDOWN

__all__ = [
    "CARDS_LEFT",
    "MAX_TURN3_NODES",
    "Turn3Plan",
    "Turn3Tree",
    "build_turn3_tree",
    "plan_turn3",
]

CARDS_LEFT = 52 - 4 - 2 * PLAYERS3
"""Cards a river can be, given the turn board and the three hands (42)."""
MAX_TURN3_NODES = 2_000_000
"""Default node limit of the whole two-street tree."""


@dataclass(frozen=True, eq=False)
class Turn3Tree(Nodes3):
    """Both streets' nodes in breadth-first order (a parent before its children, siblings
    contiguous, each depth a contiguous run); node 0 the turn's root, player 0 to act."""

    kind: npt.NDArray[np.int8]  # (N,) DECISION, CHANCE, FIXED, SHOWDOWN
    player: npt.NDArray[np.int8]  # (N,) actor of a decision node, else -1
    parent: npt.NDArray[np.int64]  # (N,) -1 at the root
    first_child: npt.NDArray[np.int64]  # (N,) -1 at a terminal
    num_children: npt.NDArray[np.int64]  # (N,)
    depth: npt.NDArray[np.int64]  # (N,) non-decreasing
    contrib: npt.NDArray[np.float64]  # (N, 3) chips each player has in
    active: npt.NDArray[np.bool_]  # (N, 3) not folded
    board: npt.NDArray[np.int64]  # (N,) 0 on the turn, k + 1 below river card k
    chance_weight: npt.NDArray[np.float64]  # (N,) a chance child: 1 / CARDS_LEFT, else 1
    river_cards: npt.NDArray[np.int64]  # (R,) the cards a river may be, ascending
    labels: list[str]  # action or card leading to each node ("" at the root)


@dataclass(frozen=True, eq=False)
class Turn3Plan:
    """The turn's one-street tree and, per turn node where the round closes with chips
    behind, its river's one-street tree (the same for every card) — the whole tree's parts,
    counted before it is laid out."""

    turn: Betting3Tree
    river: dict[int, Betting3Tree]  # turn node → its river round (chips behind)
    allin: tuple[int, ...]  # turn nodes where the round closes all in: straight to showdown
    cards: int  # river cards per chance node

    @property
    def num_nodes(self) -> int:
        per_card = sum(r.num_nodes for r in self.river.values()) + len(self.allin)
        return self.turn.num_nodes + self.cards * per_card


def plan_turn3(
    turn: Betting3Config,
    river_sizes: tuple[PlayerSizes, PlayerSizes, PlayerSizes],
    cards: int,
    max_nodes: int = MAX_TURN3_NODES,
) -> Turn3Plan:
    """The parts of the tree (:class:`Turn3Plan`), :class:`TreeTooLarge` once they pass
    ``max_nodes`` nodes in all (the river rounds are built under what is left)."""
    t = build_betting3(turn, max_nodes)
    ante = turn.pot / PLAYERS3
    river: dict[int, Betting3Tree] = {}
    allin: list[int] = []
    total = t.num_nodes
    for n in np.flatnonzero(t.kind == SHOWDOWN).tolist():
        live = tuple(bool(x) for x in t.active[n])
        bets = [round(float(c) - ante) for c in t.contrib[n]]
        behind = turn.stack - max(bets)
        if behind <= 0:
            allin.append(n)
            total += cards
        else:
            left = (max_nodes - total) // max(cards, 1)
            cfg = Betting3Config(
                round(float(t.contrib[n].sum())), int(behind), river_sizes, turn.big_blind,
                turn.raise_cap,
            )  # fmt: skip
            chips = (float(t.contrib[n, 0]), float(t.contrib[n, 1]), float(t.contrib[n, 2]))
            try:
                r = build_betting3(cfg, max(left, 0), (live[0], live[1], live[2]), chips)
            except TreeTooLarge:
                raise TreeTooLarge(max_nodes + 1, max_nodes, "three-player turn tree") from None
            river[n] = r
            total += cards * r.num_nodes
        if total > max_nodes:
            raise TreeTooLarge(total, max_nodes, "three-player turn tree")
    return Turn3Plan(t, river, tuple(allin), cards)


def build_turn3_tree(
    plan: Turn3Plan, river_cards: npt.ArrayLike, card_names: list[str] | None = None
) -> Turn3Tree:
    """The whole tree of ``plan`` laid out breadth first (module docstring); ``river_cards``
    the cards the river may be (``plan.cards`` of them), ``card_names`` their labels
    (``d:7h``)."""
    cards = np.asarray(river_cards, dtype=np.int64)
    if cards.shape != (plan.cards,):
        raise ValueError(f"river_cards: expected {plan.cards} cards, got {cards.shape}")
    names = card_names if card_names is not None else [str(c) for c in cards.tolist()]
    t = plan.turn
    kind: list[int] = []
    player: list[int] = []
    parent: list[int] = []
    depth: list[int] = []
    first: list[int] = []
    count: list[int] = []
    contrib: list[npt.NDArray[np.float64]] = []
    active: list[npt.NDArray[np.bool_]] = []
    board: list[int] = []
    weight: list[float] = []
    labels: list[str] = []
    # a queued node: (its source tree: -1 the turn, else the turn node of its river round;
    # its index there, -1 for an all-in river card's showdown; its board)
    src: list[tuple[int, int, int]] = []

    def add(s: tuple[int, int, int], par: int, label: str, w: float) -> None:
        tree_of, i, b = s
        if tree_of < 0:
            bt = t
            k_ = int(bt.kind[i])
            if k_ == SHOWDOWN:
                k_ = CHANCE
        elif i < 0:  # an all-in river card: straight to the showdown
            bt = t
            k_ = SHOWDOWN
        else:
            bt = plan.river[tree_of]
            k_ = int(bt.kind[i])
        row = i if i >= 0 else tree_of
        kind.append(k_)
        player.append(int(bt.player[row]) if k_ == DECISION else -1)
        parent.append(par)
        depth.append(depth[par] + 1 if par >= 0 else 0)
        first.append(-1)
        count.append(0)
        contrib.append(bt.contrib[row])
        active.append(bt.active[row])
        board.append(b)
        weight.append(w)
        labels.append(label)
        src.append(s)

    add((-1, 0, 0), -1, "", 1.0)
    head = 0
    w_card = 1.0 / CARDS_LEFT
    while head < len(kind):
        n = head
        head += 1
        tree_of, i, b = src[n]
        start = len(kind)
        if kind[n] == DECISION:
            bt = t if tree_of < 0 else plan.river[tree_of]
            for c in bt.children(i):
                add((tree_of, c, b), n, bt.labels[c], 1.0)
        elif kind[n] == CHANCE:
            nxt = 0 if i in plan.river else -1
            for k in range(cards.size):
                add((i, nxt, k + 1), n, names[k], w_card)
        else:
            continue
        first[n] = start
        count[n] = len(kind) - start
    return Turn3Tree(
        kind=np.array(kind, dtype=np.int8),
        player=np.array(player, dtype=np.int8),
        parent=np.array(parent, dtype=np.int64),
        first_child=np.array(first, dtype=np.int64),
        num_children=np.array(count, dtype=np.int64),
        depth=np.array(depth, dtype=np.int64),
        contrib=np.array(contrib, dtype=np.float64).reshape(-1, PLAYERS3),
        active=np.array(active, dtype=bool).reshape(-1, PLAYERS3),
        board=np.array(board, dtype=np.int64),
        chance_weight=np.array(weight, dtype=np.float64),
        river_cards=cards,
        labels=labels,
    )
