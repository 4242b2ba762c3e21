"""The bet-size syntax and the card-free betting tree."""

from __future__ import annotations

import pytest

from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN
from solver.tree.betting import ActionNode, BettingConfig, PlayerSizes, build_betting_tree
from solver.tree.sizes import Size, SizeError, bet_amount, parse_sizes, raise_to


def test_parse_sizes_forms_and_merging_duplicates() -> None:
    sizes = parse_sizes("33%, 75%, a, 2e, 120c, 33%", raise_sizes=False)
    assert sizes == (Size("pct", 33), Size("pct", 75), Size("allin"), Size("geo", 2),
                     Size("chips", 120))  # fmt: skip
    assert parse_sizes("2.5x, 100%, A", raise_sizes=True)[0] == Size("x", 2.5)
    assert parse_sizes("", raise_sizes=False) == ()


@pytest.mark.parametrize(
    ("text", "is_raise", "fragment"),
    [
        ("50%, 3y", False, "'3y'"),
        ("2x", False, "raises only"),
        ("2e", True, "bets only"),
        ("1.5e", False, "whole number"),
        ("0%", False, "positive"),
        ("1x", True, "more than 1x"),
        ("50%,,a", False, "empty size"),
    ],
)
def test_bad_sizes_name_the_token(text: str, is_raise: bool, fragment: str) -> None:
    with pytest.raises(SizeError, match=fragment):
        parse_sizes(text, raise_sizes=is_raise)


def test_size_arithmetic() -> None:
    assert bet_amount(Size("pct", 50), pot=200, stack=900) == 100
    assert bet_amount(Size("chips", 120), pot=200, stack=900) == 120
    assert bet_amount(Size("allin"), pot=200, stack=900) == 900
    # geometric over 2 streets: pot 100, stack 400 -> bet pot, then pot again is all-in
    assert bet_amount(Size("geo", 2), pot=100, stack=400) == pytest.approx(100)
    # pot-size raise: pot 100, facing a bet of 50 -> raise to 50 + (100 + 50 + 50) = 250
    assert raise_to(Size("pct", 100), pot=150, bet_faced=50, own_bet=0, stack_total=900) == 250
    assert raise_to(Size("x", 2.5), pot=150, bet_faced=50, own_bet=0, stack_total=900) == 125
    assert raise_to(Size("chips", 60), pot=150, bet_faced=50, own_bet=0, stack_total=900) == 110


def _cfg(**kw: object) -> BettingConfig:
    sizes = kw.pop("sizes", None)
    ps = PlayerSizes(parse_sizes("50%, 100%, a", raise_sizes=False),
                     parse_sizes("100%, a", raise_sizes=True))  # fmt: skip
    args: dict[str, object] = {
        "start_street": 2, "pot": 100, "stack": 400,
        "sizes": sizes or ((ps, ps), (ps, ps), (ps, ps)), "big_blind": 2.0,
    }  # fmt: skip
    args.update(kw)
    return BettingConfig(**args)  # type: ignore[arg-type]


def _labels(node: ActionNode) -> list[str]:
    return [c.label for c in node.children]


def _child(node: ActionNode, label: str) -> ActionNode:
    return next(c for c in node.children if c.label == label)


def test_river_tree_actions_amounts_and_payoffs() -> None:
    root = build_betting_tree(_cfg())
    assert root.kind == DECISION and root.player == 0
    assert _labels(root) == ["k", "b:50", "b:100", "b:400"]
    facing = _child(root, "b:50")
    # pot-size raise to 50 + (100 + 50 + 50) = 250; all-in 400
    assert _labels(facing) == ["f", "c", "r:250", "r:400"]
    fold = _child(facing, "f")
    assert fold.kind == FIXED and fold.payoff == 50  # IP folds: OOP nets the 50 IP put in
    call = _child(facing, "c")
    assert call.kind == SHOWDOWN and call.payoff == 100  # each put in 50 + 50
    check_check = _child(_child(root, "k"), "k")
    assert check_check.kind == SHOWDOWN and check_check.payoff == 50
    # facing a raise to 250: OOP can re-raise only all-in (pot raise is above the stack)
    assert _labels(_child(facing, "r:250")) == ["f", "c", "r:400"]
    assert _labels(_child(facing, "r:400")) == ["f", "c"]


def test_raise_cap_and_sizes_at_or_above_the_stack_become_all_in() -> None:
    root = build_betting_tree(_cfg(raise_cap=0))
    assert _labels(_child(root, "b:50")) == ["f", "c"]
    small = build_betting_tree(_cfg(stack=60))
    assert _labels(small) == ["k", "b:50", "b:60"]  # 100 % = 100 > 60 -> all-in, merged


def test_thresholds() -> None:
    # force all-in: after a call of a pot bet the SPR would be (400-100)/300 = 1 <= 1.5
    forced = build_betting_tree(_cfg(force_allin_threshold=1.5))
    assert _labels(forced) == ["k", "b:50", "b:400"]
    # add all-in when the stack is at most 3 pots: 400 > 3 * 100 -> not added without 'a'
    no_a = PlayerSizes(parse_sizes("50%", raise_sizes=False), ())
    cfg = _cfg(sizes=((no_a, no_a),) * 3)
    assert _labels(build_betting_tree(cfg)) == ["k", "b:50"]
    cfg = _cfg(sizes=((no_a, no_a),) * 3, add_allin_threshold=4.0)
    assert _labels(build_betting_tree(cfg)) == ["k", "b:50", "b:400"]
    # merging: 50 and 100 differ by 0.5 pot -> keep the larger with threshold 0.6
    merged = build_betting_tree(_cfg(merging_threshold=0.6))
    assert _labels(merged) == ["k", "b:100", "b:400"]


def test_min_raise_and_min_bet() -> None:
    tiny = PlayerSizes(parse_sizes("1%", raise_sizes=False), parse_sizes("1.1x", raise_sizes=True))
    root = build_betting_tree(_cfg(sizes=((tiny, tiny),) * 3, big_blind=10.0))
    assert _labels(root) == ["k", "b:10"]  # 1 % of 100 = 1 chip < one big blind
    assert _labels(_child(root, "b:10")) == ["f", "c", "r:20"]  # min raise: 10 more


def test_turn_tree_deals_the_river_and_donks() -> None:
    ps = PlayerSizes(parse_sizes("50%", raise_sizes=False), parse_sizes("a", raise_sizes=True))
    donk = PlayerSizes(ps.bets, ps.raises, parse_sizes("", raise_sizes=False))
    cfg = _cfg(start_street=1, sizes=((ps, ps), (ps, ps), (donk, ps)))
    root = build_betting_tree(cfg)
    # IP bets the turn and OOP calls: the river is dealt, OOP may not donk (empty donks)
    ip_bet = _child(_child(root, "k"), "b:50")
    deal = _child(ip_bet, "c")
    assert deal.kind == CHANCE
    river_root = deal.children[0]
    assert _labels(river_root) == ["k"]
    # after check-check on the turn OOP bets normally on the river
    river_after_checks = _child(_child(root, "k"), "k").children[0]
    assert _labels(river_after_checks) == ["k", "b:50"]
    # an all-in call on the turn runs the river out with no betting: one RUNOUT terminal,
    # or (collapse_runouts=False) a chance node whose child is a showdown
    allin_call = _child(_child(_child(root, "b:50"), "r:400"), "c")
    assert allin_call.kind == RUNOUT and allin_call.payoff == 450
    dealt = build_betting_tree(_cfg(start_street=1, sizes=cfg.sizes, collapse_runouts=False))
    allin_call = _child(_child(_child(dealt, "b:50"), "r:400"), "c")
    assert allin_call.kind == CHANCE and allin_call.children[0].kind == SHOWDOWN


def test_donk_sizes_replace_oop_bets_after_ip_was_the_aggressor() -> None:
    """Donk sizes are OOP's first bets on a street after IP made the last bet of the street
    before; elsewhere OOP bets its ordinary sizes (and ``None`` donks = the bet sizes)."""
    ps = PlayerSizes(parse_sizes("50%", raise_sizes=False), parse_sizes("a", raise_sizes=True))
    oop_river = PlayerSizes(ps.bets, ps.raises, parse_sizes("25%", raise_sizes=False))
    cfg = _cfg(start_street=1, sizes=((ps, ps), (ps, ps), (oop_river, ps)))
    root = build_betting_tree(cfg)
    # IP bets 50 into 100, OOP calls: pot 200 on the river, OOP leads 25 % = 50
    after_ip_bet = _child(_child(_child(root, "k"), "b:50"), "c").children[0]
    assert _labels(after_ip_bet) == ["k", "b:50"]
    # OOP bet the turn and IP called: OOP is the aggressor, so its river bet is 50 % = 100
    after_oop_bet = _child(_child(root, "b:50"), "c").children[0]
    assert _labels(after_oop_bet) == ["k", "b:100"]
    # no donk sizes given: OOP leads with its bet sizes either way
    plain = build_betting_tree(_cfg(start_street=1, sizes=((ps, ps),) * 3))
    assert _labels(_child(_child(_child(plain, "k"), "b:50"), "c").children[0]) == ["k", "b:100"]
