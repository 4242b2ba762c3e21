"""The fast three-way showdown against a brute force over every compatible triple of combos,
on random small ranges and boards — the players' combos drawn from one small pool of cards
(many shared cards: card removal at work) or from disjoint pools (none shared)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver.poker.cards import COMBO_INDEX, COMBOS, NUM_COMBOS, parse_board, parse_cards
from solver.poker.handeval import rank_hands
from solver.poker.showdown3 import board_order, fold_showdown_values, showdown_values


def brute_force(
    board: np.ndarray, ranges: np.ndarray, pot: float, committed: np.ndarray, folded: int = -1
) -> np.ndarray:
    """Every triple of combos with no card in common (nor with the board): for each player,
    each pair of the opponents' combos in turn, against all of the player's own combos at once
    (a value is owed to every combo, in the range or not)."""
    s = rank_hands(board, COMBOS).astype(np.float64)
    holds = np.zeros((NUM_COMBOS, 52), dtype=bool)
    holds[np.arange(NUM_COMBOS), COMBOS[:, 0]] = True
    holds[np.arange(NUM_COMBOS), COMBOS[:, 1]] = True
    free = np.asarray(~holds[:, board].any(axis=1), dtype=bool)
    out = np.zeros((3, NUM_COMBOS))
    for p in range(3):
        q, r = (p + 1) % 3, (p + 2) % 3
        for hq, hr in itertools.product(np.flatnonzero(ranges[q]), np.flatnonzero(ranges[r])):
            if not (free[hq] and free[hr]) or np.any(holds[hq] & holds[hr]):
                continue
            own = free & ~holds[:, COMBOS[hq]].any(axis=1) & ~holds[:, COMBOS[hr]].any(axis=1)
            strengths = {p: s, q: np.full(NUM_COMBOS, s[hq]), r: np.full(NUM_COMBOS, s[hr])}
            ins = [x for x in range(3) if x != folded]
            best = np.max([strengths[x] for x in ins], axis=0)
            winners = np.sum([strengths[x] == best for x in ins], axis=0)
            share = pot / winners if p != folded else 0.0
            won = np.where(strengths[p] == best, share, 0.0) if p != folded else 0.0
            gain = won - committed[p]
            out[p] += np.where(own, ranges[q, hq] * ranges[r, hr] * gain, 0.0)
    return out


def combos_from(cards: list[int]) -> list[int]:
    return [int(COMBO_INDEX[a, b]) for a, b in itertools.combinations(sorted(cards), 2)]


@st.composite
def spots(draw: st.DrawFn, shared: bool) -> tuple[np.ndarray, np.ndarray, float, np.ndarray]:
    deck = draw(st.permutations(list(range(52))))
    board = np.array(sorted(deck[:5]))
    rest = deck[5:]
    if shared:  # one pool of 7 cards: 21 combos, every player's drawn from them
        pools = [combos_from(rest[:7])] * 3
    else:  # three pools of 5 cards: no player's combo meets another's
        pools = [combos_from(rest[5 * p : 5 * p + 5]) for p in range(3)]
    ranges = np.zeros((3, NUM_COMBOS))
    for p in range(3):
        picked = draw(st.lists(st.sampled_from(pools[p]), min_size=1, max_size=8, unique=True))
        weights = draw(st.lists(st.integers(1, 8), min_size=len(picked), max_size=len(picked)))
        ranges[p, picked] = np.array(weights) / 8.0
    committed = np.array([draw(st.integers(1, 6)) for _ in range(3)], dtype=np.float64)
    pot = float(committed.sum() + draw(st.integers(0, 5)))
    return board, ranges, pot, committed


TOL = 1e-9  # sums of at most a few hundred products of eighths and chips


@pytest.mark.parametrize("shared", [True, False])
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_three_way_showdown_equals_brute_force(shared: bool, data: st.DataObject) -> None:
    board, ranges, pot, committed = data.draw(spots(shared))
    fast = showdown_values(board, ranges, pot, committed)
    np.testing.assert_allclose(fast, brute_force(board, ranges, pot, committed), atol=TOL)


@pytest.mark.parametrize("shared", [True, False])
@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_showdown_after_a_fold_equals_brute_force(shared: bool, data: st.DataObject) -> None:
    board, ranges, pot, committed = data.draw(spots(shared))
    folded = data.draw(st.integers(0, 2))
    fast = fold_showdown_values(board, ranges, pot, committed, folded)
    expect = brute_force(board, ranges, pot, committed, folded)
    np.testing.assert_allclose(fast, expect, atol=TOL)


@pytest.mark.parametrize(
    ("board", "cards"),
    [
        ("AsKsQsJsTs", "2c3c4c5c6c7d"),  # the board plays: every showdown a three-way split
        ("AhAdKcKd2s", "AsAcKhKs3c3d"),  # two-way and three-way ties among full houses
        ("9h8h7h2c2d", "ThJh6h5hTc9c"),  # straight flushes, straights, split kickers
    ],
)
def test_ties_split_as_the_brute_force(board: str, cards: str) -> None:
    b = np.array(parse_board(board))
    pool = combos_from(list(parse_cards(cards)))
    rng = np.random.default_rng(3)
    ranges = np.zeros((3, NUM_COMBOS))
    for p in range(3):
        ranges[p, pool] = rng.integers(1, 5, size=len(pool)) / 4.0
    committed = np.array([4.0, 4.0, 4.0])
    fast = showdown_values(b, ranges, 14.0, committed)
    np.testing.assert_allclose(fast, brute_force(b, ranges, 14.0, committed), atol=TOL)
    for folded in range(3):
        fast = fold_showdown_values(b, ranges, 14.0, committed, folded)
        expect = brute_force(b, ranges, 14.0, committed, folded)
        np.testing.assert_allclose(fast, expect, atol=TOL)


def test_full_ranges_are_zero_sum_and_symmetric() -> None:
    """Every combo in every range, equal chips and no dead money: the three players' total
    values are 0 and, the ranges being equal, each player's values are the same."""
    b = np.array(parse_board("Kd9s5h3c2c"))
    ranges = np.ones((3, NUM_COMBOS))
    values = showdown_values(b, ranges, 30.0, np.array([10.0, 10.0, 10.0]))
    assert abs(values.sum()) < 1e-6 * np.abs(values).sum()
    np.testing.assert_allclose(values[0], values[1], atol=1e-9)
    np.testing.assert_allclose(values[0], values[2], atol=1e-9)
    assert np.all(values[:, ~board_order(b).valid] == 0.0)


def test_bad_input_is_refused_by_name() -> None:
    b = np.array(parse_board("Kd9s5h3c2c"))
    ok = np.ones((3, NUM_COMBOS))
    with pytest.raises(ValueError, match="ranges: expected shape"):
        showdown_values(b, np.ones((2, NUM_COMBOS)), 3.0, [1, 1, 1])
    with pytest.raises(ValueError, match="ranges: weights"):
        showdown_values(b, -ok, 3.0, [1, 1, 1])
    with pytest.raises(ValueError, match="pot: expected at least"):
        showdown_values(b, ok, 2.0, [1, 1, 1])
    with pytest.raises(ValueError, match="committed"):
        showdown_values(b, ok, 3.0, [1, 1])
    with pytest.raises(ValueError, match="board"):
        showdown_values(b[:4], ok, 3.0, [1, 1, 1])
    with pytest.raises(ValueError, match="folded: expected player"):
        fold_showdown_values(b, ok, 3.0, [1, 1, 1], 3)
