"""The hand evaluator against an independent published one (phevaluator), against a slow
best-of-21 evaluator written here, on hand-picked hands of every category, and under
Hypothesis properties (card order and suit relabelling change nothing)."""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from phevaluator.card import Card
from phevaluator.evaluator import evaluate_5cards, evaluate_6cards, evaluate_7cards

from solver.poker.handeval import (
    CATEGORY_NAMES,
    FLUSH,
    FULL_HOUSE,
    HIGH_CARD,
    INVALID,
    PAIR,
    QUADS,
    STRAIGHT,
    STRAIGHT_FLUSH,
    TRIPS,
    TWO_PAIR,
    category,
    category_name,
    evaluate,
    rank7,
    rank_batch,
    rank_boards,
    rank_cards,
    rank_hands,
)

RANKS = "23456789TJQKA"
SUITS = "shdc"
IntArray = npt.NDArray[np.int64]


def card_str(c: int) -> str:
    return RANKS[c // 4] + SUITS[c % 4]


def cards_of(text: str) -> list[int]:
    s = text.replace(" ", "")
    return [RANKS.index(s[i]) * 4 + SUITS.index(s[i + 1]) for i in range(0, len(s), 2)]


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def to_phe(cards: IntArray) -> IntArray:
    """Our card indices → phevaluator's (same rank * 4 + suit layout, suits ordered c d h s)."""
    return (cards & ~3) + (3 - (cards & 3))


def phe_strength(hands: IntArray) -> IntArray:
    """phevaluator's value per row, negated so that higher is better (it ranks 1 = best)."""
    fn = {5: evaluate_5cards, 6: evaluate_6cards, 7: evaluate_7cards}[hands.shape[1]]
    return -np.array([fn(*row) for row in to_phe(hands).tolist()], dtype=np.int64)


def assert_same_order(ours: IntArray, theirs: IntArray, hands: Sequence[Sequence[int]]) -> None:
    """Both arrays induce the same total preorder (same strict order, same ties).

    Sorting by ``ours`` and comparing the signs of neighbouring differences checks every pair:
    ``theirs`` must rise exactly where ``ours`` rises and stay level exactly where it does.
    """
    o = np.argsort(ours, kind="stable")
    d_ours = np.sign(np.diff(ours[o]))
    d_theirs = np.sign(np.diff(theirs[o]))
    bad = np.flatnonzero(d_ours != d_theirs)
    if bad.size:
        i, j = int(o[bad[0]]), int(o[bad[0] + 1])
        a = " ".join(card_str(c) for c in hands[i])
        b = " ".join(card_str(c) for c in hands[j])
        pytest.fail(
            f"{bad.size} order disagreements; first: [{a}] vs [{b}]: "
            f"ours {ours[i]} vs {ours[j]}, theirs {theirs[i]} vs {theirs[j]}"
        )


def random_hands(rng: np.random.Generator, n: int, k: int) -> IntArray:
    """``n`` uniformly random sets of ``k`` distinct cards."""
    return rng.random((n, 52)).argpartition(k, axis=1)[:, :k].astype(np.int64)


def dense_hands(rng: np.random.Generator, n: int) -> IntArray:
    """Seven cards from a few suits and a short run of ranks: rich in straights, flushes,
    full houses, quads and straight flushes (ace-low runs included)."""
    ring = [12, *range(13)]  # A 2 3 … A: a run may start with a low ace
    out = np.empty((n, 7), dtype=np.int64)
    for h in range(n):
        n_suits = int(rng.integers(1, 5))
        length = int(rng.integers(-(-7 // n_suits), 14))
        start = int(rng.integers(0, 14 - length + 1))
        ranks = sorted(set(ring[start : start + length]))
        suits = rng.choice(4, size=n_suits, replace=False)
        pool = np.array([r * 4 + int(s) for r in ranks for s in suits], dtype=np.int64)
        if pool.size < 7:
            pool = np.arange(52, dtype=np.int64)
        out[h] = rng.choice(pool, size=7, replace=False)
    return out


def naive5(cards: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Textbook 5-card ranking: (category, tie-break ranks high to low)."""
    ranks = [c // 4 for c in cards]
    suits = {c % 4 for c in cards}
    groups = sorted(((n, r) for r, n in Counter(ranks).items()), reverse=True)
    shape = [n for n, _ in groups]
    by_group = tuple(r for _, r in groups)
    distinct = sorted(set(ranks), reverse=True)
    straight = -1
    if len(distinct) == 5:
        if distinct[0] - distinct[4] == 4:
            straight = distinct[0]
        elif distinct == [12, 3, 2, 1, 0]:
            straight = 3
    flush = len(suits) == 1
    if straight >= 0 and flush:
        return STRAIGHT_FLUSH, (straight,)
    if shape == [4, 1]:
        return QUADS, by_group
    if shape == [3, 2]:
        return FULL_HOUSE, by_group
    if flush:
        return FLUSH, tuple(distinct)
    if straight >= 0:
        return STRAIGHT, (straight,)
    if shape == [3, 1, 1]:
        return TRIPS, by_group
    if shape == [2, 2, 1]:
        return TWO_PAIR, by_group
    if shape == [2, 1, 1, 1]:
        return PAIR, by_group
    return HIGH_CARD, tuple(distinct)


def naive7(cards: Sequence[int]) -> tuple[int, tuple[int, ...]]:
    """Best of the 21 five-card subsets."""
    return max(naive5(five) for five in itertools.combinations(cards, 5))


# ---------------------------------------------------------------------------------------------
# Against phevaluator
# ---------------------------------------------------------------------------------------------


def test_phevaluator_card_mapping() -> None:
    for c in range(52):
        assert Card(card_str(c)).id_ == int(to_phe(np.array([c]))[0])


def test_order_matches_phevaluator_random_7_cards() -> None:
    rng = np.random.default_rng(20240607)
    hands = random_hands(rng, 120_000, 7)
    ours = rank_batch(hands)
    theirs = phe_strength(hands)
    assert_same_order(ours, theirs, hands.tolist())
    # Every category turns up in a sample this big (straight flushes ~ 0.03 %).
    assert set(np.unique(ours >> 26).tolist()) == set(range(9))


def test_order_matches_phevaluator_dense_hands() -> None:
    rng = np.random.default_rng(7)
    hands = dense_hands(rng, 20_000)
    ours = rank_batch(hands)
    assert_same_order(ours, phe_strength(hands), hands.tolist())
    counts = np.bincount(ours >> 26, minlength=9)
    assert (counts > 50).all(), counts


def test_order_matches_phevaluator_across_5_6_7_cards() -> None:
    """Strengths of 5-, 6- and 7-card hands are one scale, as phevaluator's are."""
    rng = np.random.default_rng(11)
    ours_parts, theirs_parts, hands_all = [], [], []
    for k in (5, 6, 7):
        hands = random_hands(rng, 20_000, k)
        ours_parts.append(rank_batch(hands))
        theirs_parts.append(phe_strength(hands))
        hands_all.extend(hands.tolist())
    assert_same_order(np.concatenate(ours_parts), np.concatenate(theirs_parts), hands_all)


# ---------------------------------------------------------------------------------------------
# Hand-picked hands
# ---------------------------------------------------------------------------------------------

CATEGORY_CASES = [
    ("AsKsQsJsTs 2d 3c", STRAIGHT_FLUSH),  # royal flush
    ("As2s3s4s5s Kd Kc", STRAIGHT_FLUSH),  # steel wheel
    ("9h8h7h6h5h Ah Kh", STRAIGHT_FLUSH),  # straight flush inside a 7-card flush
    ("KsKhKdKc 2s 3h 4d", QUADS),
    ("AsAhAdAc KsKhKd", QUADS),  # quads + trips
    ("AsAhAd KsKh 2c 3d", FULL_HOUSE),
    ("AsAhAd KsKhKd 2c", FULL_HOUSE),  # two sets of trips
    ("2s2h2d 3s3h 4s4h", FULL_HOUSE),
    ("As Ks 9s 5s 3s 2d 4c", FLUSH),  # flush beats the wheel beside it
    ("9s 8s 7s 6d 5s 2s Kd", FLUSH),  # flush and straight, no straight flush
    ("As 2d 3h 4c 5s Kd Kc", STRAIGHT),  # wheel beats a pair
    ("As Kd Qh Jc Ts 9d 8c", STRAIGHT),  # broadway
    ("Ts Jd Qh Kc As Ad Ah", STRAIGHT),  # broadway beats trips
    ("7s7h7d As Kd 2c 4h", TRIPS),
    ("AsAh KsKh QsQh 2c", TWO_PAIR),  # three pairs
    ("AsAh KsKh 2c 3d 4h", TWO_PAIR),
    ("AsAh 2c 3d 4h 9s Td", PAIR),
    ("As Kd Qh Jc 9s 7d 2c", HIGH_CARD),
    ("As Kd Qh Jc 9s", HIGH_CARD),  # five cards
    ("As Ks Qs Js 9s 2h", FLUSH),  # six cards
]


@pytest.mark.parametrize(("text", "cat"), CATEGORY_CASES)
def test_category_examples(text: str, cat: int) -> None:
    strength = evaluate(text)
    assert category(strength) == cat
    assert category_name(strength) == CATEGORY_NAMES[cat]
    assert naive7(cards_of(text))[0] == cat


# (better, worse): the first must strictly beat the second.
BEATS = [
    # Straights and straight flushes.
    ("As Ks Qs Js Ts 2d 3c", "Ks Qs Js Ts 9s 2d 3c"),  # royal > king-high straight flush
    ("6s 5s 4s 3s 2s Kd Kc", "As 2s 3s 4s 5s Kd Kc"),  # six-high SF > steel wheel
    ("As 2s 3s 4s 5s Kd Kc", "Ac Ad Ah As Kd Qc Jh"),  # steel wheel > quad aces
    ("6d 2s 3h 4c 5s Kd Qc", "As 2d 3h 4c 5s Kd Qc"),  # six-high straight > wheel
    ("As 2d 3h 4c 5s 6d Qc", "As 2d 3h 4c 5s Kd Qc"),  # A-2-3-4-5-6 plays six-high
    ("As 2d 3h 4c 5s Kd Qc", "Ah Ad Ac Kd Qc 9h 8s"),  # wheel > trip aces
    ("As Kd Qh Jc Ts 2d 3c", "Kd Qh Jc Ts 9s 2d 3c"),  # broadway > king-high straight
    # Flush vs straight and flush kickers.
    ("2s 4s 6s 8s Ts Kd Qd", "As Kd Qh Jc Ts 2d 3c"),  # any flush > any straight
    ("As Ks Qs Js 9s 2d 3c", "As Ks Qs Js 8s 2d 3c"),  # fifth flush card decides
    ("As Ks Qs Js 9s 7s 3c", "As Ks Qs Js 8s 7s 6s"),  # only the top five suited cards play
    # Full houses: the trips decide first, then the pair.
    ("Ah Ad Ac 2s 2h 7c 8d", "Kh Kd Kc As Ah 7c 8d"),  # AAA22 > KKKAA
    ("Ah Ad Ac 3s 3h 7c 8d", "Ah Ad Ac 2s 2h 7c 8d"),  # AAA33 > AAA22
    ("Ah Ad Ac Ks Kh Kc 2d", "Ah Ad Ac Qs Qh Qc 2d"),  # two trips: AAAKK > AAAQQ
    ("Ah Ad Ac Ks Kh 2c 2d", "Ah Ad Ac Qs Qh Jc Jd"),  # AAAKK (with 22 spare) > AAAQQ
    ("2h 2d 2c 3s 3h 3c 4d", "Ah Ad Ac Ks Qh Jc 9d"),  # lowest full house > trip aces
    ("Kh Kd Kc Ks 2h 3c 4d", "Ah Ad Ac Ks Kh Qc Jd"),  # quads > full house
    # Quads kicker.
    ("Kh Kd Kc Ks Ah 3c 4d", "Kh Kd Kc Ks Qh 3c 4d"),
    # Trips kickers.
    ("7s 7h 7d As Kd 2c 4h", "7s 7h 7d As Qd 2c 4h"),
    # Two pair: top pair, second pair, then the kicker (a third pair may be the kicker).
    ("As Ah 3s 3h Kc 4d 5h", "Ks Kh Qs Qh Jc 4d 5h"),
    ("As Ah Ks Kh Qc 2d 3h", "As Ah Ks Kh Jc Td 9h"),  # two pair kicker
    ("As Ah Ks Kh Qc Qd 3h", "As Ah Ks Kh Jc Td 9h"),  # AAKKQ from three pairs
    ("As Ah Ks Kh 4c 4d Qh", "As Ah Ks Kh Jc 4d 9h"),  # the queen beats the third pair
    # Pair and high-card kickers.
    ("As Ah Kd Qc Jh 3s 2d", "As Ah Kd Qc Th 3s 2d"),
    ("As Kd Qh Jc 9s 3d 2c", "As Kd Qh Jc 8s 7d 6c"),
    ("As Kd Qh Jc 9s 3d 2c", "As Kd Qh Tc 9s 8d 7c"),
    # Counterfeited two pair: board 8 8 4 4 K, hole 3-3 plays the board, A-2 has an ace kicker.
    ("8s 8h 4d 4c Kd Ah 2c", "8s 8h 4d 4c Kd 3h 3c"),
    # Board 9 9 K K 7: a hole pair of sixes is counterfeited; the 7 kicker is beaten by Q.
    ("9s 9h Kd Kc 7s Qh 2c", "9s 9h Kd Kc 7s 6h 6c"),
]

# Hands that must tie exactly.
TIES = [
    ("As Kd Qh Jc Ts 2d 3c", "As Kd Qh Jc Ts 4h 5h"),  # board plays: broadway
    ("As Ks Qs Js Ts 2d 3c", "As Ks Qs Js Ts 4h 5h"),  # board royal flush
    ("8s 8h 4d 4c Kd 3h 3c", "8s 8h 4d 4c Kd 2h 5c"),  # counterfeited: board 8844K plays
    ("Kh Kd Kc Ks Ah 3c 4d", "Kh Kd Kc Ks Ah 5c 6d"),  # quads + ace on board
    ("Ah Ad Ac Ks Kh 2c 3d", "Ah Ad Ac Ks Kh 4c 5d"),  # board full house
    ("As 2d 3h 4c 5s Kd Qc", "Ah 2c 3d 4h 5c Kd Qc"),  # same wheel, other suits
    ("2s 4s 6s 8s Ts Kd Qd", "2h 4h 6h 8h Th Kd Qd"),  # same flush ranks, other suit
    ("As Ah Kd Qc Jh 3s 2d", "Ac Ad Kh Qs Jd 4s 2d"),  # low cards do not play
    ("As Kd Qh Jc 9s", "As Kd Qh Jc 9s 3h 2c"),  # 5 and 7 cards with the same best five
]


@pytest.mark.parametrize(("better", "worse"), BEATS)
def test_beats(better: str, worse: str) -> None:
    a, b = evaluate(better), evaluate(worse)
    assert a > b, (better, CATEGORY_NAMES[category(a)], worse, CATEGORY_NAMES[category(b)])
    pa = phe_strength(np.array([cards_of(better)], dtype=np.int64))[0]
    pb = phe_strength(np.array([cards_of(worse)], dtype=np.int64))[0]
    assert pa > pb  # the case itself is right


@pytest.mark.parametrize(("a", "b"), TIES)
def test_ties(a: str, b: str) -> None:
    assert evaluate(a) == evaluate(b)


# ---------------------------------------------------------------------------------------------
# Against a naive best-of-21 evaluator
# ---------------------------------------------------------------------------------------------


def test_order_matches_naive_best_of_21() -> None:
    rng = np.random.default_rng(3)
    hands = np.concatenate([random_hands(rng, 1_500, 7), dense_hands(rng, 1_500)])
    keys = [naive7(h) for h in hands.tolist()]
    dense = {k: i for i, k in enumerate(sorted(set(keys)))}
    theirs = np.array([dense[k] for k in keys], dtype=np.int64)
    ours = rank_batch(hands)
    assert [category(int(s)) for s in ours] == [k[0] for k in keys]
    assert_same_order(ours, theirs, hands.tolist())
    assert {k[0] for k in keys} == set(range(9))


# ---------------------------------------------------------------------------------------------
# Hypothesis properties
# ---------------------------------------------------------------------------------------------


@st.composite
def seven_cards(draw: st.DrawFn) -> list[int]:
    """Seven distinct cards, often from a few suits and a short run of ranks."""
    if draw(st.booleans()):
        return draw(st.lists(st.integers(0, 51), min_size=7, max_size=7, unique=True))
    suits = draw(st.lists(st.integers(0, 3), min_size=1, max_size=4, unique=True))
    low = draw(st.integers(-1, 12))  # -1: a run starting with a low ace
    n_ranks = draw(st.integers(-(-7 // len(suits)), 13))
    ranks = sorted({(r if r >= 0 else 12) for r in range(low, low + n_ranks) if r <= 12})
    pool = [r * 4 + s for r in ranks for s in suits]
    if len(pool) < 7:
        pool = list(range(52))
    return draw(st.lists(st.sampled_from(pool), min_size=7, max_size=7, unique=True))


@settings(max_examples=300, deadline=None)
@given(hand=seven_cards(), data=st.data())
def test_card_order_does_not_matter(hand: list[int], data: st.DataObject) -> None:
    shuffled = data.draw(st.permutations(hand))
    assert rank7(*shuffled) == rank7(*hand)
    assert rank_cards(np.array(shuffled, dtype=np.int64), 7) == rank7(*hand)


@settings(max_examples=300, deadline=None)
@given(hand=seven_cards(), perm=st.permutations(range(4)))
def test_suit_relabelling_does_not_matter(hand: list[int], perm: list[int]) -> None:
    relabelled = [(c // 4) * 4 + perm[c % 4] for c in hand]
    assert rank7(*relabelled) == rank7(*hand)


@settings(max_examples=300, deadline=None)
@given(hand=seven_cards())
def test_category_matches_naive(hand: list[int]) -> None:
    assert category(rank7(*hand)) == naive7(hand)[0]


@settings(max_examples=200, deadline=None)
@given(hand=seven_cards(), drop=st.integers(0, 6))
def test_best_of_six_and_seven_consistent(hand: list[int], drop: int) -> None:
    """Adding a card never lowers a hand; the 7-card strength is the best of its 6-card ones."""
    six = [c for i, c in enumerate(hand) if i != drop]
    s6 = rank_cards(np.array(six, dtype=np.int64), 6)
    s7 = rank7(*hand)
    assert s7 >= s6
    best6 = max(
        rank_cards(np.array([c for j, c in enumerate(hand) if j != i], dtype=np.int64), 6)
        for i in range(7)
    )
    assert s7 == best6


# ---------------------------------------------------------------------------------------------
# Solver helpers and the Python wrapper
# ---------------------------------------------------------------------------------------------

ALL_COMBOS = np.array(list(itertools.combinations(range(52), 2)), dtype=np.int64)


def test_rank_hands_matches_evaluate_and_marks_overlaps() -> None:
    board = cards_of("Ks Kd 7h 4c 2s")
    out = rank_hands(np.array(board), ALL_COMBOS)
    assert out.shape == (1326,) and out.dtype == np.int64
    overlap = np.isin(ALL_COMBOS, board).any(axis=1)
    assert (out[overlap] == INVALID).all()
    assert overlap.sum() == 1326 - 1081
    for i in np.flatnonzero(~overlap)[::37]:
        assert out[i] == evaluate([*board, *ALL_COMBOS[i].tolist()])
    assert (out[~overlap] >= 0).all()


def test_rank_hands_repeated_combo_card_is_invalid() -> None:
    out = rank_hands(np.array(cards_of("Ks Kd 7h 4c 2s")), np.array([[10, 10], [10, 12]]))
    assert out[0] == INVALID and out[1] >= 0


def test_rank_boards_equals_rank_hands() -> None:
    rng = np.random.default_rng(5)
    boards = random_hands(rng, 40, 5)
    out = rank_boards(boards, ALL_COMBOS)
    assert out.shape == (40, 1326)
    for b in range(40):
        np.testing.assert_array_equal(out[b], rank_hands(boards[b], ALL_COMBOS))


def test_rank7_equals_rank_cards_and_batch() -> None:
    rng = np.random.default_rng(9)
    hands = random_hands(rng, 500, 7)
    batch = rank_batch(hands)
    for i, h in enumerate(hands.tolist()):
        assert rank7(*h) == batch[i] == rank_cards(np.array(h, dtype=np.int64), 7)


def test_evaluate_text_and_lists() -> None:
    royal = evaluate("AsKsQsJsTs2d3c")
    assert royal == evaluate("as ks, qs js ts 2D 3C") == evaluate([48, 44, 40, 36, 32, 2, 7])
    assert category_name(royal) == "Straight flush"
    assert evaluate(np.array([48, 44, 40, 36, 32])) == royal


@pytest.mark.parametrize(
    "bad",
    ["AsKsQsJs", "AsKsQsJsTs9s8s7s", "AsAsQsJsTs", "AxKsQsJsTs", "1sKsQsJsTs", "AsKsQsJsT"],
)
def test_evaluate_rejects_bad_text(bad: str) -> None:
    with pytest.raises(ValueError):
        evaluate(bad)


def test_evaluate_rejects_bad_indices() -> None:
    with pytest.raises(ValueError):
        evaluate([0, 1, 2, 3, 52])
    with pytest.raises(ValueError):
        evaluate([0, 1, 2, 3, -1])


def test_helpers_reject_bad_input() -> None:
    with pytest.raises(ValueError):
        rank_hands(np.array([0, 0, 1, 2, 3]), ALL_COMBOS)  # repeated board card
    with pytest.raises(ValueError):
        rank_hands(np.array([0, 1, 2, 3]), ALL_COMBOS)
    with pytest.raises(ValueError):
        rank_hands(np.array([0, 1, 2, 3, 4]), np.array([[0, 60]]))
    with pytest.raises(ValueError):
        rank_boards(np.array([[0, 1, 2, 3, 3]]), ALL_COMBOS)
    with pytest.raises(ValueError):
        rank_batch(np.zeros((3, 4), dtype=np.int64))
    with pytest.raises(ValueError):
        rank_cards(np.arange(8, dtype=np.int64), 4)


def test_category_names() -> None:
    assert len(CATEGORY_NAMES) == 9
    assert CATEGORY_NAMES[HIGH_CARD] == "High card"
    assert CATEGORY_NAMES[STRAIGHT_FLUSH] == "Straight flush"
