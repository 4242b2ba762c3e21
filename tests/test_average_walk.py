"""Best responses and evaluations against the average strategy normalised inside the walk
(``solver.cfr.walk.AVERAGE``): the same values as against the (A,) array of
``Engine.average_strategy()``, to rounding — one thread and two, float and 16-bit sums, with
locks — and what every exploitability check of a solve uses."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import game

from solver import Engine, make_rule
from solver.cfr.bestresponse import best_response_values, root_player_values
from solver.cfr.options import SolveOptions
from solver.cfr.walk import AVERAGE
from solver.games.holdem import HoldemSpec, build_holdem
from solver.lockspec import lock_engine

TURN = HoldemSpec(
    board="Ks7h2d9c", pot=100, stack=300, oop_range="AA,KQs,T8s,76s,QJo", ip_range="QQ-99,AK,J9s"
)


@pytest.mark.parametrize(
    ("name", "threads", "precision", "locked"),
    [
        ("leduc", 1, "float64", False),
        ("leduc", 1, "float64", True),
        ("turn", 1, "float32", False),
        ("turn", 2, "float32", True),
        ("turn", 2, "compressed", False),
    ],
)
def test_average_in_the_walk_equals_the_average_array(
    name: str, threads: int, precision: str, locked: bool
) -> None:
    g = build_holdem(TURN) if name == "turn" else game(name)
    e = Engine(g, make_rule("dcfr"), options=SolveOptions(threads=threads, precision=precision))
    e.iterate(15)
    if locked:
        line = "k" if name == "leduc" else "root"
        node = 0 if line == "root" else g.find(tuple(line.split()))
        lock_engine(e, {line: {g.action_labels(node)[0]: 1.0}})
        e.iterate(5)
    sigma = e.average_strategy()
    par = e.check_parallel  # the float64 split the solve's checks run on
    want = best_response_values(g, sigma, None, par, e._locks)
    got = e.best_response_values()
    assert got == pytest.approx(want, rel=1e-9, abs=1e-9)
    # and a plain evaluation (both play the average), per hand
    for p in range(2):
        v_arr = root_player_values(g, sigma, p, False, None, par, e._locks)
        v_avg = root_player_values(g, AVERAGE, p, False, None, par, e._locks, e.storage)
        np.testing.assert_allclose(v_avg, v_arr, rtol=1e-9, atol=1e-9)
    # another strategy's values differ: the comparison can fail
    other = best_response_values(g, e.current_strategy(), None, par, e._locks)
    assert other != pytest.approx(want, rel=1e-9, abs=1e-9)


def test_the_average_needs_its_storage() -> None:
    with pytest.raises(ValueError, match="storage"):
        root_player_values(game("kuhn"), AVERAGE, 0, True)
