"""Shift locks (solver.study.shift_lock): an action's frequency over the range moved to a target in
the order of the solution's preference, against a hand-worked example and properties."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from solver.study.shift_lock import frequency, shift


def test_a_worked_example() -> None:
    # three hands of equal reach; action 1 (bet) at 1/3: hand 0 bets half, hand 2 a sixth...
    strategy = np.array([[0.5, 1.0, 0.5], [0.5, 0.0, 0.5]])  # check, bet
    reach = np.ones(3)
    gain = np.array([1.0, 3.0, 2.0])  # betting gains most with hand 1, then 2, then 0
    assert frequency(strategy, reach, 1) == pytest.approx(1 / 3)
    up = shift(strategy, reach, gain, 1, 2 / 3)  # one more hand's worth: hand 1 bets fully
    np.testing.assert_allclose(up, [[0.5, 0.0, 0.5], [0.5, 1.0, 0.5]])
    more = shift(strategy, reach, gain, 1, 5 / 6)  # then hand 2 goes to always bet
    np.testing.assert_allclose(more, [[0.5, 0.0, 0.0], [0.5, 1.0, 1.0]])
    down = shift(strategy, reach, gain, 1, 1 / 6)  # the least gain leaves first: hand 0
    np.testing.assert_allclose(down, [[1.0, 1.0, 0.5], [0.0, 0.0, 0.5]])
    assert strategy[1, 1] == 0.0  # the input is not changed


def test_a_flat_lock_would_not_keep_the_ranking() -> None:
    """Raising a bet from 35 % to 60 %: the hands that gain most bet most afterwards."""
    rng = np.random.default_rng(3)
    strategy = rng.dirichlet([1.0, 1.0, 1.0], size=200).T
    reach = rng.uniform(0.1, 1.0, size=200)
    gain = rng.normal(size=200)
    out = shift(strategy, reach, gain, 2, 0.6)
    assert frequency(out, reach, 2) == pytest.approx(0.6)
    moved = out[2] - strategy[2]
    assert (moved >= -1e-12).all()
    full = out[2] > 1 - 1e-9
    assert gain[full].min() >= gain[(moved > 1e-9) & ~full].max()  # best hands filled first


@settings(max_examples=60, deadline=None)
@given(
    hs.integers(2, 4),
    hs.integers(1, 30),
    hs.floats(0.0, 1.0),
    hs.integers(0, 1_000),
)
def test_properties(na: int, nh: int, target: float, seed: int) -> None:
    rng = np.random.default_rng(seed)
    strategy = rng.dirichlet(np.ones(na), size=nh).T
    strategy[:, rng.random(nh) < 0.3] = np.eye(na)[:, [0]]  # some hands pure
    reach = np.where(rng.random(nh) < 0.2, 0.0, rng.uniform(0.0, 1.0, nh))
    gain = rng.normal(size=nh)
    action = int(rng.integers(na))
    out = shift(strategy, reach, gain, action, target)
    np.testing.assert_allclose(out.sum(axis=0), 1.0, atol=1e-9)  # still distributions
    assert (out >= -1e-12).all()
    if reach.sum() > 0:
        assert frequency(out, reach, action) == pytest.approx(target, abs=1e-9)
    np.testing.assert_array_equal(out[:, reach == 0], strategy[:, reach == 0])
    same = shift(strategy, reach, gain, action, frequency(strategy, reach, action))
    np.testing.assert_allclose(same, strategy, atol=1e-12)


def test_bad_input_is_named() -> None:
    with pytest.raises(ValueError, match="target must be a frequency"):
        shift(np.full((2, 1), 0.5), np.ones(1), np.zeros(1), 0, 1.5)
    with pytest.raises(ValueError, match="action must be 0 to 1"):
        shift(np.full((2, 1), 0.5), np.ones(1), np.zeros(1), 2, 0.5)
