"""DCFR's ``average_every`` (:func:`solver.cfr.rules.every_kth_average`): the average takes
every k-th iteration with the skipped ones' weight folded in, and the engine leaves the
strategy sums untouched in between (:func:`solver.cfr.update.add_sums`) — on one thread
and split over two, bit for bit alike. The rule itself is matched against the reference
iteration by iteration in ``test_reference_match.py``."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import task_turn

from solver import Engine, make_rule
from solver.cfr.options import SolveOptions
from solver.cfr.rules import AVG_WEIGHT, DECAY, every_kth_average
from solver.games.model import Game


@pytest.fixture(scope="module")
def game() -> Game:
    """A turn with river tasks and all-in runouts (the walk's zero updates, the split)."""
    return task_turn()


def test_every_first_iteration_is_the_dense_average_bit_for_bit() -> None:
    t = np.arange(1.0, 200.0)
    for gamma in (2.0, 3.0):
        dense = ((t - 1.0) / t) ** gamma

        def d(s: np.ndarray, g: float = gamma) -> np.ndarray:
            return ((s - 1.0) / s) ** g

        decay, weight = every_kth_average(t, 1, d)
        np.testing.assert_array_equal(decay, dense)
        np.testing.assert_array_equal(weight, np.ones_like(t))


def test_skipped_iterations_fold_into_the_next_one_taken() -> None:
    # γ = 2: d(t) = ((t−1)/t)², d(3) = 4/9, d(4) = 9/16
    c = make_rule("dcfr", average_every=2).coefficients(np.arange(1.0, 5.0))
    np.testing.assert_array_equal(c[[0, 2], DECAY], [1.0, 1.0])  # skipped: left alone
    np.testing.assert_array_equal(c[[0, 2], AVG_WEIGHT], [0.0, 0.0])
    np.testing.assert_allclose(c[1, [DECAY, AVG_WEIGHT]], [0.0, 1.0 * 0.25 + 1.0])
    np.testing.assert_allclose(c[3, [DECAY, AVG_WEIGHT]], [4 / 9 * 9 / 16, 9 / 16 + 1.0])


def _dense_weights(t: int, gamma: float) -> np.ndarray:
    """Iteration s's weight in the dense average at t: Π_{r=s+1..t} d(r), s = 1 … t."""
    d = [((r - 1.0) / r) ** gamma for r in range(1, t + 1)]
    return np.array([np.prod(d[s:]) for s in range(1, t + 1)])


@pytest.mark.parametrize("k", [2, 3, 5])
def test_the_weights_taken_add_up_to_the_dense_ones(k: int) -> None:
    """At an iteration taken, each iteration taken holds its own dense weight plus those of
    the k − 1 before it (the dense average's total weight, regrouped)."""
    gamma, t_end = 3.0, 6 * k
    c = make_rule("dcfr", gamma=gamma, average_every=k).coefficients(np.arange(1.0, t_end + 1.0))
    held = np.zeros(t_end)  # weight of iteration s's strategy in the sums
    for t in range(1, t_end + 1):
        held *= c[t - 1, DECAY]
        held[t - 1] += c[t - 1, AVG_WEIGHT]
    dense = _dense_weights(t_end, gamma)
    for s in range(k, t_end + 1, k):
        assert held[s - 1] == pytest.approx(dense[s - k : s].sum(), rel=1e-12)
    assert np.all(held[[s - 1 for s in range(1, t_end + 1) if s % k]] == 0.0)


@pytest.mark.parametrize("threads", [1, pytest.param(2, marks=pytest.mark.cores(2))])
def test_the_sums_are_not_touched_in_a_skipped_iteration(game: Game, threads: int) -> None:
    e = Engine(
        game, make_rule("dcfr-tuned", average_every=2), options=SolveOptions(threads=threads)
    )
    e.iterate(2)
    taken = e.storage.cumulative.copy()
    assert taken.any()
    e.iterate(1)  # iteration 3: skipped
    np.testing.assert_array_equal(e.storage.cumulative, taken)
    assert not np.array_equal(e.storage.regrets, 0.0)
    e.iterate(1)  # iteration 4: taken
    assert not np.array_equal(e.storage.cumulative, taken)


@pytest.mark.cores(2)
def test_two_threads_match_one_bit_for_bit(game: Game) -> None:
    rule = make_rule("dcfr-tuned", average_every=2)
    a = Engine(game, rule, options=SolveOptions(threads=1))
    b = Engine(game, rule, options=SolveOptions(threads=2))
    for chunk in (1, 4, 5):
        a.iterate(chunk)
        b.iterate(chunk)
        np.testing.assert_array_equal(a.storage.regrets, b.storage.regrets)
        np.testing.assert_array_equal(a.storage.cumulative, b.storage.cumulative)
    assert a.best_response_values() == b.best_response_values()
