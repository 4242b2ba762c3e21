"""Kuhn poker, Leduc hold'em and Leduc-5, built into the common public-tree model.

All three share one betting builder. Player 0 acts first in every round. Not facing a bet a
player may check or bet one of the round's sizes; facing a bet: fold, call, or (while fewer
than ``max_bets`` bets were made this round) raise. A raise of ``s`` calls the outstanding bet
and adds ``s`` on top, so in Leduc-5 a raise "by 8" after a bet of 2 puts the raiser 10 chips
above its previous commitment. A round ends on check-check or a call; a fold ends the game.

* **Kuhn**: cards J < Q < K, ante 1, one round with a single bet of 1.
* **Leduc**: six cards (J, Q, K in spades and hearts), ante 1, bet/raise 2 in round 1 and 4 in
  round 2, at most two bets per round, one public card between the rounds. A card pairing the
  board wins, else the higher rank; equal ranks split.
* **Leduc-5**: Leduc with five sizes: 0.5, 1, 2, 4, 8 in round 1 and 1, 2, 4, 8, 16 in round 2
  (each usable as a bet or as a raise increment), at most two bets per round.

Action labels: ``k`` check, ``c`` call, ``f`` fold, ``b:S`` bet S, ``r:S`` raise by S; a
public card dealt is ``d:CARD``.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from solver.games.build import NodeSpec, flatten, make_boards, make_hands
from solver.games.model import (
    CHANCE,
    DECISION,
    FIXED,
    SHOWDOWN,
    Game,
)

KUHN_CARDS = ["J", "Q", "K"]
LEDUC_CARDS = ["Js", "Jh", "Qs", "Qh", "Ks", "Kh"]  # index = rank * 2 + suit


def _fmt(size: float) -> str:
    return f"{size:g}"


def _build_betting(
    sizes: Sequence[Sequence[float]],
    max_bets: int,
    ante: float,
    board_cards: Sequence[str],
    hole_cards_dealt: int,
    isomorphic: dict[int, int] | None = None,
) -> NodeSpec:
    """Public tree of a game with ``len(sizes)`` betting rounds and one public card between
    consecutive rounds (drawn from ``board_cards``; board ``k + 1`` means card ``k`` dealt).

    ``isomorphic`` maps a canonical card to the card of the other suit it stands for (its
    subtree is not built; the engine maps hands with permutation row 0)."""
    stands_for = isomorphic or {}
    skipped = set(stands_for.values())

    deck = len(board_cards)

    def round_end(rnd: int, committed: tuple[float, float], board: int) -> NodeSpec:
        if rnd + 1 < len(sizes):
            node = NodeSpec(CHANCE, board=board)
            weight = 1.0 / (deck - hole_cards_dealt)
            for k, name in enumerate(board_cards):
                if k in skipped:
                    continue
                child = decision(rnd + 1, committed, 0, 0, False, k + 1)
                child.label = f"d:{name}"
                child.weight = weight
                if k in stands_for:
                    child.iso = [(stands_for[k] + 1, 0)]
                node.children.append(child)
            return node
        if committed[0] != committed[1]:
            raise AssertionError("showdown with unequal commitments")
        return NodeSpec(SHOWDOWN, payoff=committed[0], board=board)

    def decision(
        rnd: int,
        committed: tuple[float, float],
        actor: int,
        bets: int,
        facing: bool,
        board: int,
    ) -> NodeSpec:
        node = NodeSpec(DECISION, player=actor, board=board)
        other = 1 - actor
        kids: list[NodeSpec] = []
        if facing:
            payoff0 = -committed[0] if actor == 0 else committed[1]
            fold = NodeSpec(FIXED, payoff=payoff0, board=board, label="f")
            kids.append(fold)
            called = (committed[other], committed[other])
            call = round_end(rnd, called, board)
            call.label = "c"
            kids.append(call)
            if bets < max_bets:
                for s in sizes[rnd]:
                    c = list(committed)
                    c[actor] = committed[other] + s
                    child = decision(rnd, (c[0], c[1]), other, bets + 1, True, board)
                    child.label = f"r:{_fmt(s)}"
                    kids.append(child)
        else:
            if actor == 1:  # player 0 checked: a check ends the round
                check = round_end(rnd, committed, board)
            else:
                check = decision(rnd, committed, 1, bets, False, board)
            check.label = "k"
            kids.append(check)
            if bets < max_bets:
                for s in sizes[rnd]:
                    c = list(committed)
                    c[actor] += s
                    child = decision(rnd, (c[0], c[1]), other, bets + 1, True, board)
                    child.label = f"b:{_fmt(s)}"
                    kids.append(child)
        node.children = kids
        return node

    return decision(0, (ante, ante), 0, 0, False, 0)


def _toy_game(
    name: str,
    card_names: list[str],
    card_rank: list[int],
    sizes: Sequence[Sequence[float]],
    max_bets: int,
    description: str,
    isomorphism: bool = True,
) -> Game:
    num_cards = len(card_names)
    has_board = len(sizes) > 1
    # Leduc's two suits are interchangeable (uniform deal): deal spades, let hearts mirror them
    iso = {c: c + 1 for c in range(0, num_cards, 2)} if (has_board and isomorphism) else {}
    root = _build_betting(sizes, max_bets, 1.0, card_names if has_board else [], 2, iso)
    hand_cards: list[list[tuple[int, ...]]] = [[(c,) for c in range(num_cards)] for _ in range(2)]
    weights = [np.ones(num_cards), np.ones(num_cards)]
    swap = [c ^ 1 for c in range(num_cards)]
    hands = make_hands(hand_cards, weights, num_cards, card_perms=[swap] if iso else None)
    tree, labels = flatten(root, (num_cards, num_cards))
    boards: list[tuple[int, ...]] = [()]
    strength: list[list[list[int]]] = [[list(card_rank), list(card_rank)]]
    if has_board:
        for b in range(num_cards):
            boards.append((b,))
            ranks = [
                100 + card_rank[c] if card_rank[c] == card_rank[b] else card_rank[c]
                for c in range(num_cards)
            ]
            strength.append([ranks, ranks])
    return Game(
        name=name,
        tree=tree,
        hands=hands,
        boards=make_boards(hands, boards, strength),
        labels=labels,
        hand_names=[list(card_names), list(card_names)],
        description=description,
        meta={"kind": "toy", "sizes": [list(s) for s in sizes], "max_bets": max_bets},
        iso_labels={b + 1: f"d:{card_names[b]}" for b in iso.values()},
        card_names=list(card_names),
        card_perms=[swap] if iso else [],
    )


def kuhn() -> Game:
    """Kuhn poker: 3 cards, ante 1, one bet of 1. Game value for player 0: -1/18."""
    return _toy_game(
        "kuhn",
        KUHN_CARDS,
        [0, 1, 2],
        [[1.0]],
        1,
        "Kuhn poker: J, Q, K; ante 1; one bet of 1; value -1/18 for the first player.",
    )


def leduc(isomorphism: bool = True) -> Game:
    """Leduc hold'em: 6 cards, ante 1, bets 2 then 4, two bets per round. Value ≈ -0.0856.

    ``isomorphism``: deal the public card in one suit and mirror the other (half the
    second-round tree; the same game)."""
    game = _toy_game(
        "leduc",
        LEDUC_CARDS,
        [c // 2 for c in range(6)],
        [[2.0], [4.0]],
        2,
        "Leduc hold'em: J, Q, K x 2 suits; ante 1; bets 2 then 4; two bets per round.",
        isomorphism,
    )
    game.full_builder = lambda: leduc(False)
    return game


def leduc5(isomorphism: bool = True) -> Game:
    """Leduc-5: Leduc with five bet sizes per round (0.5..8, then 1..16)."""
    game = _toy_game(
        "leduc5",
        LEDUC_CARDS,
        [c // 2 for c in range(6)],
        [[0.5, 1.0, 2.0, 4.0, 8.0], [1.0, 2.0, 4.0, 8.0, 16.0]],
        2,
        "Leduc-5: Leduc with bets/raises of 0.5, 1, 2, 4, 8 (round 1) and 1..16 (round 2).",
        isomorphism,
    )
    game.full_builder = lambda: leduc5(False)
    return game


def one_decision(payoffs: Sequence[float], name: str = "one-decision") -> Game:
    """Player 0 picks one of ``len(payoffs)`` actions paying ``payoffs`` (chips); player 1
    never acts. The DCFR paper's "large mistake" example is ``one_decision([0, 1, -1e6])``."""
    if len(payoffs) < 1:
        raise ValueError("need at least one action")
    root = NodeSpec(DECISION, player=0)
    for i, u in enumerate(payoffs):
        root.children.append(NodeSpec(FIXED, payoff=float(u), label=f"a{i}"))
    hands = make_hands([[()], [()]], [np.ones(1), np.ones(1)], 0)
    tree, labels = flatten(root, (1, 1))
    return Game(
        name=name,
        tree=tree,
        hands=hands,
        boards=make_boards(hands, [()], None),
        labels=labels,
        hand_names=[["-"], ["-"]],
        description=f"One decision with payoffs {list(payoffs)}",
        meta={"kind": "toy"},
    )
