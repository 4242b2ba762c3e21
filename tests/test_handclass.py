"""Hand classes: hand-picked boards with the class a player names, the made-hand categories
against the project's evaluator and against phevaluator (independent), and the per-class
table of a range."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from phevaluator.evaluator import evaluate_cards

from solver.poker.cards import card_str, parse_cards
from solver.poker.handclass import (
    DRAWS,
    MADE,
    MADE_CATEGORY,
    class_table,
    classify,
    classify_hands,
    straight_high,
)
from solver.poker.handeval import FLUSH, STRAIGHT, category, evaluate

# (hole, board, made class, draw flags)
CASES = [
    # made hands on an unpaired two-tone flop K♥ 7♥ 2♣
    ("KsKd", "Kh7h2c", "set", ()),
    ("AsAd", "Kh7h2c", "overpair", ()),
    ("AhKc", "Kh7h2c", "top_pair", ("backdoor_fd",)),
    ("Ah7c", "Kh7h2c", "second_pair", ("backdoor_fd",)),
    ("Ac2s", "Kh7h2c", "weaker_pair", ()),
    ("9s9d", "Kh7h2c", "underpair", ()),
    ("5s5d", "Kh7h2c", "underpair", ()),
    ("Kc7c", "Kh7h2c", "two_pair", ("backdoor_fd",)),
    ("AhQh", "Kh7h2c", "high_card", ("flush_draw",)),
    ("AsQs", "Kh7h2c", "high_card", ()),
    ("AsQd", "Th7h2c", "high_card", ("overcards",)),
    # straights and straight draws on 9♠ 8♦ 2♣
    ("7s6h", "9s8d2c", "high_card", ("oesd",)),
    ("JcTc", "9s8d2c", "high_card", ("oesd", "backdoor_fd", "overcards")),
    ("Ts6h", "9s8d2c", "high_card", ("gutshot",)),
    ("Jh7h", "9s8d2c", "high_card", ("gutshot",)),  # only a ten completes 7-J
    ("Ah5d", "4s3d2c", "straight", ()),  # the wheel
    ("7h6h", "5s4d3c", "straight", ()),
    ("Qh9d", "KsJcTd", "straight", ()),
    ("Th9h", "8s7d2c", "high_card", ("oesd", "overcards")),
    ("Td5h", "8s7d2c", "high_card", ()),
    # paired boards: the board's pair is nobody's own
    ("AsQd", "KhKd5c", "high_card", ()),
    ("QsQd", "KhKd5c", "underpair", ()),
    ("AsAc", "KhKd5c", "overpair", ()),
    ("Qs5d", "KhKd5c", "second_pair", ()),
    ("KsQd", "KhKd5c", "trips", ()),
    ("Ks5d", "KhKd5c", "full_house", ()),
    ("5s5d", "KhKd5c", "full_house", ()),
    ("KsKc", "KhKd5c", "quads", ()),
    ("AsKs", "5h5d5c", "high_card", ("overcards",)),
    ("AsAd", "5h5d5c", "full_house", ()),
    ("As5s", "5h5d5c", "quads", ()),
    # flushes and straight flushes
    ("AhQh", "Kh7h2h", "flush", ()),
    ("2d3d", "Kh7h2h", "weaker_pair", ()),
    ("6h5h", "7h4h3h", "straight_flush", ()),
    ("6h5s", "7h4h3h", "straight", ("flush_draw",)),
    ("Ah2c", "Kh7h2h", "weaker_pair", ("flush_draw",)),
    # turn: no backdoor draws any more; rivers: no draws at all
    ("AhQh", "Kh7h2c3s", "high_card", ("flush_draw",)),
    ("7s6h", "9s8d2c3s", "high_card", ("oesd",)),
    ("7s6h", "9s8d2c3sKd", "high_card", ()),
    ("AsQd", "Th7h2c3s4d", "high_card", ("overcards",)),
    # a river straight on the board: the hand that only plays it gets nothing for it
    ("2s2d", "9s8d7c6hTd", "underpair", ()),
    ("JsAd", "9s8d7c6hTd", "straight", ()),
    ("Ks4d", "9s8d7c6hTd", "high_card", ()),
]


@pytest.mark.parametrize(("hole", "board", "made", "draws"), CASES)
def test_hand_picked(hole: str, board: str, made: str, draws: tuple[str, ...]) -> None:
    hc = classify(hole, board)
    assert hc.made == made, (hole, board, hc)
    assert set(hc.draws) == set(draws), (hole, board, hc)
    assert hc.draws == tuple(d for d in DRAWS if d in draws)  # flags in DRAWS order


def test_straight_high() -> None:
    mask = lambda ranks: sum(1 << "23456789TJQKA".index(r) for r in ranks)  # noqa: E731
    assert straight_high(mask("AKQJT")) == 12
    assert straight_high(mask("A2345")) == 3
    assert straight_high(mask("A23456")) == 4
    assert straight_high(mask("AKQJ9")) == -1


def test_labels_and_bad_input() -> None:
    assert classify("AhQh", "Kh7h2c").label == "High card + Flush draw"
    with pytest.raises(ValueError, match="share a card"):
        classify("AhKh", "Kh7h2c")
    with pytest.raises(ValueError, match="3 to 5"):
        classify("AhKh", "Kd7h")


def _phe_category(cards: list[int]) -> int:
    """phevaluator's category of 5–7 cards, in the project's numbering (0 = high card)."""
    rank = evaluate_cards(*(card_str(c) for c in cards))  # 1 (royal flush) … 7462
    bounds = [10, 166, 322, 1599, 1609, 2467, 3325, 6185, 7462]  # SF, 4K, FH, F, S, 3K, 2P, 1P
    for cat, bound in zip(range(8, -1, -1), bounds, strict=True):
        if rank <= bound:
            return cat
    raise AssertionError(rank)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.integers(0, 51), min_size=5, max_size=7, unique=True))
def test_made_category_against_two_evaluators(cards: list[int]) -> None:
    hole, board = cards[:2], cards[2:]
    hc = classify(hole, board)
    ours = category(evaluate(cards))
    assert ours == _phe_category(cards)  # the two evaluators agree
    credited = MADE_CATEGORY[hc.made]
    assert credited <= ours  # a board-only part is never credited, nothing is invented
    ranks = [c >> 2 for c in board]
    board_paired = len(set(ranks)) < len(ranks)
    board_made = len(board) == 5 and category(evaluate(board)) in (STRAIGHT, FLUSH)
    if not board_paired and not board_made:
        assert credited == ours, (card_str(hole[0]), card_str(hole[1]), board, hc)


def test_every_combo_of_boards_against_the_evaluator() -> None:
    """Every combo on a few boards of each kind: same rule as the property above."""
    boards = ["Kh7h2c", "9s8d2c", "KhKd5c", "5h5d5c", "Kh7h2h", "Td9d6hQc", "Td9d6hQc2s"]
    for text in boards:
        board = parse_cards(text)
        paired = len({c >> 2 for c in board}) < len(board)
        rest = [c for c in range(52) if c not in board]
        hands = np.array([(a, b) for i, a in enumerate(rest) for b in rest[i + 1 :]])
        made, draws = classify_hands(board, hands)
        assert (made >= 0).all()
        for (a, b), m in zip(hands, made, strict=True):
            ours = category(evaluate([int(a), int(b), *board]))
            credited = MADE_CATEGORY[MADE[m]]
            assert credited <= ours
            if not paired:
                assert credited == ours, (card_str(a), card_str(b), text)
        if len(board) == 5:  # no card to come: no draw (overcards is not a draw)
            assert not draws[:, [DRAWS.index(d) for d in DRAWS if d != "overcards"]].any()


_ALL_COMBOS = np.array([(a, b) for a in range(52) for b in range(a + 1, 52)])


@st.composite
def _boards(draw: st.DrawFn) -> list[int]:
    """Boards of 3–5 cards drawn from few ranks and few suits, so pairs, trips, quads,
    flushes, straights and wheels are common (uniform boards rarely hold them)."""
    k = draw(st.integers(3, 5))
    ranks = draw(st.lists(st.integers(0, 12), min_size=1, max_size=5, unique=True))
    straights = [[12, 0, 1, 2, 3], [8, 9, 10, 11, 12], [3, 4, 5, 6, 7]]
    ranks = draw(st.sampled_from([ranks, *straights]))
    suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
    pool = sorted({r * 4 + s for r in ranks for s in suits} | set(draw(st.lists(
        st.integers(0, 51), max_size=2))))  # fmt: skip
    if len(pool) < k:
        pool = sorted(set(pool) | set(range(k + 4)))
    return draw(st.lists(st.sampled_from(pool), min_size=k, max_size=k, unique=True))


@settings(max_examples=60, deadline=None)
@given(_boards())
@example(parse_cards("AhKh9h5h4h"))  # a suited hole card below the board's five: no flush
@example(parse_cards("Kh7h2h5h"))  # four to a flush: a one-card flush, straight flush draws
@example(parse_cards("5h5d5c5sKd"))  # quads on the board
@example(parse_cards("KhKd5c5d2s"))  # two pairs on the board
@example(parse_cards("Ah2d3c4s5h"))  # a wheel on the board
def test_classify_hands_is_classify_on_every_combo(board: list[int]) -> None:
    """The array version against the one-combo rules, on all 1,326 combos of a board."""
    made, draws = classify_hands(board, _ALL_COMBOS)
    for (a, b), m, d in zip(_ALL_COMBOS, made, draws, strict=True):
        if a in board or b in board:
            assert m == -1 and not d.any()
            continue
        hc = classify((int(a), int(b)), board)
        assert (MADE[m], tuple(k for k, f in zip(DRAWS, d, strict=True) if f)) == (
            hc.made,
            hc.draws,
        ), (card_str(a), card_str(b), [card_str(c) for c in board])


def test_classify_hands_bad_input() -> None:
    with pytest.raises(ValueError, match="3 to 5"):
        classify_hands("Kd7h", _ALL_COMBOS)
    with pytest.raises(ValueError, match="twice"):
        classify_hands([4, 4, 9], _ALL_COMBOS)
    with pytest.raises(ValueError, match="twice"):
        classify_hands("Kh7h2c", [[3, 3]])
    with pytest.raises(ValueError, match=r"0\.\.51"):
        classify_hands("Kh7h2c", [[3, 52]])
    made, draws = classify_hands("Kh7h2c", np.zeros((0, 2), dtype=np.int64))
    assert made.shape == (0,) and draws.shape == (0, len(DRAWS))


def test_class_table_mix() -> None:
    board = parse_cards("Kh7h2c")
    cards = np.array([parse_cards(h) for h in ("AsAd", "AhKc", "AhQh", "9s9d", "KhQd")])
    reach = np.array([1.0, 0.5, 1.0, 1.0, 0.3])  # KhQd shares the board's K♥: not counted
    strategy = np.array([[1.0, 0.2, 0.5, 0.0, 0.7], [0.0, 0.8, 0.5, 1.0, 0.3]])
    rows = {r.key: r for r in class_table(board, cards, reach, strategy)}
    assert list(rows) == [
        "overpair",
        "top_pair",
        "underpair",
        "high_card",
        "flush_draw",
        "backdoor_fd",
    ]
    assert rows["overpair"].combos == 1.0 and rows["overpair"].mix == (1.0, 0.0)
    assert rows["top_pair"].combos == 0.5 and rows["top_pair"].mix == pytest.approx((0.2, 0.8))
    assert rows["flush_draw"].kind == "draw" and rows["flush_draw"].hands == 1
    assert sum(r.share for r in rows.values() if r.kind == "made") == pytest.approx(1.0)
    assert rows["underpair"].share == pytest.approx(1.0 / 3.5)
    plain = class_table(board, cards, reach)
    assert all(r.mix is None for r in plain)
    with pytest.raises(ValueError, match="reach"):
        class_table(board, cards, reach[:3])
