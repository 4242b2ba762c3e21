"""The Reports line picker's words, worked out from a line's codes and the batch's pot and
stack alone, against the words Explore says on the built game (solver.study.words)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from batch_helpers import TEMPLATE

from app.components.line_picker import counted_on, line_text, step_name
from solver.games.holdem import build_holdem
from solver.games.model import DECISION
from solver.study.words import line_words


@pytest.mark.parametrize(
    ("board", "bets", "raises", "stack"),
    [
        ("KsJh8d", "a", "a", 60),  # all-ins
        ("Ks9s5s", "33%, 75%", "100%, a", 200),  # sizes, raises, all-in raises
    ],
)
def test_line_words_from_codes_equal_the_games(
    board: str, bets: str, raises: str, stack: int
) -> None:
    spot = replace(TEMPLATE, board=board, bets=bets, raises=raises, stack=stack)
    game = build_holdem(spot)
    checked = 0
    for node in range(game.num_nodes):
        if int(game.tree.kind[node]) != DECISION or (node > 200 and node % 7):
            continue  # the flop's lines and one in seven below
        codes = list(game.history(node))
        want = line_words(game, node, ("OOP", "IP")) or "Flop"
        assert line_text(codes, spot.pot, spot.stack) == want, codes
        if codes:  # the breadcrumb's last step names the same action or card
            last = step_name(codes, len(codes) - 1, spot.pot, spot.stack)
            assert want.endswith(last[0].lower() + last[1:]) or want.endswith(last), (codes, last)
        checked += 1
    assert checked > 20


def test_a_choice_not_every_flop_offers_says_on_how_many_it_is_reached() -> None:
    assert counted_on("Bet 100", 1, 5) == "Bet 100 · reached on 1 of 5 flops"
    assert counted_on("Kh", 2, 1_755) == "Kh · reached on 2 of 1,755 flops"
    assert counted_on("Check", 5, 5) == "Check"  # every flop: nothing to say
