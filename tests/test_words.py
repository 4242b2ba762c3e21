"""A game's tree in a player's words (solver.study.words): action names, the line so far and the
spot header's numbers, as known strings on Kuhn, Leduc and a small hold'em turn."""

from __future__ import annotations

import functools

import pytest
from conftest import game

from solver.files.presets import PresetError, load_preset, parse_preset
from solver.games import Game
from solver.games.holdem import HoldemSpec, build_holdem
from solver.study.words import (
    action_names,
    card_text,
    first_street_name,
    label_name,
    line_words,
    node_words,
    spot,
    start_spot,
)

BB_BTN = ("BB", "BTN")


@functools.cache
def _turn() -> Game:
    """Turn Td9d6hQc, pot 200, 900 behind, big blind 10: a 33 % bet is 66 chips."""
    spec = HoldemSpec(board="Td9d6hQc", pot=200, stack=900, oop_range="AA,KK", ip_range="QQ,JJ",
                      bets="33%, a", raises="a", big_blind=10)  # fmt: skip
    return build_holdem(spec)


def test_holdem_actions_have_one_name_each() -> None:
    g = _turn()
    assert g.action_labels(0) == ["k", "b:66", "b:900"]
    assert action_names(g, 0) == ["Check", "Bet 33 % (66)", "All-in 900"]
    assert action_names(g, g.find(("b:66",))) == ["Fold", "Call", "All-in 900"]
    river = g.find(("k", "b:66", "c", "d:8h"))  # 66 in on the turn: 834 behind
    assert g.action_labels(river)[-1] == "b:834"
    assert action_names(g, river)[-1] == "All-in 834"
    # the river pot is 332: a third of it
    assert action_names(g, river)[1] == f"Bet 33 % ({g.action_labels(river)[1][2:]})"


def test_holdem_line_and_spot_in_words() -> None:
    g = _turn()
    river = g.find(("k", "b:66", "c", "d:8h"))
    assert line_words(g, river, BB_BTN) == "BB check → BTN bet 33 % (66) → BB call · river 8h"
    assert line_words(g, river) == "OOP check → IP bet 33 % (66) → OOP call · river 8h"
    assert line_words(g, 0, BB_BTN) == ""
    after = g.find(("k", "b:66", "c", "d:8h", "k"))
    assert line_words(g, after, BB_BTN).endswith("· river 8h → BB check")
    s = spot(g, river, BB_BTN)
    assert s.board == ("Td", "9d", "6h", "Qc", "8h")
    assert (s.pot, s.stack, s.big_blind) == (332.0, 834.0, 10.0)
    assert s.spr == pytest.approx(834 / 332)
    assert (s.players, s.to_act, s.street, s.status) == (BB_BTN, "BB", "river", "BB to act")
    assert s.line == "BB check → BTN bet 33 % (66) → BB call · river 8h"
    root = spot(g, 0, BB_BTN)
    assert (root.pot, root.stack, root.spr, root.street, root.to_act) == (
        200.0, 900.0, 4.5, "turn", "BB",
    )  # fmt: skip
    assert start_spot(root.board, 200, 900, 10, BB_BTN) == root
    jam = spot(g, g.find(("b:900",)), BB_BTN)
    assert (jam.pot, jam.stack, jam.to_act) == (1100.0, 0.0, "BTN")
    assert node_words(g, river, BB_BTN) == "BB to act"
    assert node_words(g, g.find(("k", "b:66", "f"))) == "hand over (fold)"
    assert node_words(g, g.find(("k", "b:66", "c"))) == "card to deal"
    assert spot(g, g.find(("k", "b:66", "c")), BB_BTN).status == "card to deal"


def test_toy_games_in_words() -> None:
    kuhn = game("kuhn")
    assert action_names(kuhn, 0) == ["Check", "Bet 1"]
    node = kuhn.find(("k", "b:1"))
    assert line_words(kuhn, node) == "player 0 check → player 1 bet 1"
    assert action_names(kuhn, node) == ["Fold", "Call"]
    leduc = game("leduc")
    node = leduc.find(("b:2", "r:2", "c", "d:Ks"))
    assert line_words(leduc, node) == "player 0 bet 2 → player 1 raise 2 → player 0 call · board Ks"
    assert action_names(leduc, leduc.find(("b:2",))) == ["Fold", "Call", "Raise 2"]
    s = spot(leduc, node)
    assert s.board == ("Ks",) and s.pot is None and s.spr is None and s.to_act == "player 0"


def test_codes_without_a_tree() -> None:
    assert first_street_name("b:900", 200, 900) == "All-in 900"
    assert first_street_name("b:100", 200, 900) == "Bet 50 % (100)"
    assert first_street_name("r:300", 200, 900) == "Raise to 300"
    assert first_street_name("k", 200, 900) == "Check"
    assert label_name("b:66.5", 200) == "Bet 33 % (66.5)"
    assert label_name("b:1") == "Bet 1"
    assert label_name("d:8h") == "Deal 8h"
    assert card_text("Td") == "T♦" and card_text("K") == "K"


def test_presets_name_their_players() -> None:
    assert load_preset("srp-river").players == BB_BTN
    assert load_preset("libratus-3-river").players is None
    bad = 'name = "x"\ngame = "kuhn"\nplayers = ["BB", "BB"]\n'
    with pytest.raises(PresetError, match="players: must be two different names"):
        parse_preset(bad)
    assert parse_preset('name = "x"\ngame = "kuhn"\nplayers = ["SB", "BB"]\n').players == (
        "SB",
        "BB",
    )
