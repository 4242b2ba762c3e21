"""The restricted Nash response through the API (solver.study.robust): p = 0 is the
equilibrium, p = 1 the best response to σ_fix, exploitation and exploitability grow with p
within the solves' errors (bounds derived from each point's ε-optimality in its restricted
game, below), a small hold'em river, and bad input named by its field."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest
from test_exploit import SPEC, random_profile

from solver import solve
from solver.api import SolveResult
from solver.cfr.layout import uniform_strategy
from solver.games.holdem import build_holdem
from solver.study.robust import (
    RobustCurve,
    RobustError,
    check_ps,
    estimate_seconds,
    exploiter_of,
    robust_curve,
    robust_response,
)

# OpenSpiel's best-response value against uniform play in Leduc (issue 48; test_exploit.py)
LEDUC_BR_UNIFORM = 2.0875


@functools.cache
def _leduc() -> SolveResult:
    return solve("leduc", "dcfr", iterations=300)


@functools.cache
def _leduc_curve() -> RobustCurve:
    r = _leduc()
    return robust_curve(r, uniform_strategy(r.game), exploiter=0, iterations=300)


def test_p0_is_the_equilibrium() -> None:
    c = _leduc_curve()
    pt = c.points[0]
    eps = c.error_value + 2 * pt.error_chips  # v̂'s error and the point's own NashConv
    assert pt.p == 0.0
    assert abs(pt.value - c.value_estimate) <= eps
    assert abs(pt.exploitability_chips) <= eps
    # the known value of Leduc for the first player (−0.0856 chips)
    assert abs(c.value_estimate - (-0.08556)) <= c.error_value + 1e-4


def test_p1_is_the_best_response() -> None:
    c = _leduc_curve()
    assert abs(c.best_response - LEDUC_BR_UNIFORM) <= 1e-9
    pt = c.points[-1]
    assert pt.p == 1.0
    # at p = 1 the restricted game's NashConv is exactly BR_e(σ_fix) − u_e(σ_1, σ_fix)
    assert 0.0 <= c.best_response - pt.ev_vs_profile <= 2 * pt.error_chips + 1e-9
    assert pt.ev_vs_profile > 2.0  # the exploit is real (the equilibrium's is 0.60)
    assert pt.exploitability_chips > 1.0


def test_monotone_within_the_errors() -> None:
    """For a < b, with δ the points' suboptimality in their restricted games (≤ NashConv
    = 2·error): E_b − E_a ≥ −((1−b)δ_a + (1−a)δ_b)/(b−a) and X_b − X_a ≥ −(bδ_a + aδ_b)/(b−a)
    (from f_a(σ_a) ≥ f_a(σ_b) − δ_a and f_b(σ_b) ≥ f_b(σ_a) − δ_b, f_p = p·E − (1−p)·X)."""
    pts = _leduc_curve().points
    for pa, pb in itertools.pairwise(pts):
        a, b = pa.p, pb.p
        da, db = 2 * pa.error_chips, 2 * pb.error_chips
        dx = pb.exploitation_chips - pa.exploitation_chips
        dy = pb.exploitability_chips - pa.exploitability_chips
        assert dx >= -((1 - b) * da + (1 - a) * db) / (b - a) - 1e-9, (a, b, dx)
        assert dy >= -(b * da + a * db) / (b - a) - 1e-9, (a, b, dy)
    # and the curve goes somewhere: p = 1 exploits far more, and risks far more, than p = 0
    assert pts[-1].exploitation_chips - pts[0].exploitation_chips > 1.0
    assert pts[-1].exploitability_chips - pts[0].exploitability_chips > 1.0


def test_one_point_and_target() -> None:
    r = _leduc()
    pt = robust_response(r, uniform_strategy(r.game), 0.5, exploiter=0, target=0.01,
                         iterations=2000, check_every=20)  # fmt: skip
    assert pt.error_chips <= 0.01
    assert pt.iterations < 2000
    assert pt.strategy.shape == (r.game.action_size,)


def test_holdem_river() -> None:
    """A small river: the opponent (IP) on a random mix; the same checks at p = 0 and 1."""
    g = build_holdem(SPEC)
    r = solve(g, "dcfr", iterations=200)
    fx = random_profile(g, 3)
    c = robust_curve(r, fx, [0.0, 0.5, 1.0], exploiter=0, iterations=200)
    p0, p5, p1 = c.points
    assert c.pot == 100.0
    assert abs(p0.exploitability_chips) <= c.error_value + 2 * p0.error_chips
    assert 0.0 <= c.best_response - p1.ev_vs_profile <= 2 * p1.error_chips + 1e-9
    assert p1.exploitation_pct_pot == pytest.approx(100 * p1.exploitation_chips / 100.0)
    assert p0.exploitation_chips < p5.exploitation_chips < p1.exploitation_chips
    assert p0.to_dict()["p"] == 0.0 and set(p1.to_dict()) >= {
        "p", "exploitation_chips", "exploitation_pct_pot", "exploitability_chips",
        "exploitability_pct_pot", "seconds",
    }  # fmt: skip


@pytest.mark.parametrize(
    ("kwargs", "field"),
    [
        ({"ps": [0.5, 1.5]}, "p"),
        ({"ps": [-0.1]}, "p"),
        ({"ps": ["x"]}, "p"),
        ({"ps": [float("nan")]}, "p"),
        ({"ps": [i / 20 for i in range(12)]}, "p"),
        ({"ps": []}, "p"),
        ({"ps": [0.5, 0.5]}, "p"),
        ({"exploiter": 2}, "exploiter"),
        ({"iterations": 0}, "iterations"),
        ({"target": -1.0}, "target"),
        ({"fixed": np.zeros(3)}, "fixed"),
    ],
)
def test_bad_input_named(kwargs: dict, field: str) -> None:
    r = _leduc()
    args = {"fixed": uniform_strategy(r.game), "ps": [0.0], "exploiter": 0, **kwargs}
    fx = args.pop("fixed")
    ps = args.pop("ps")
    with pytest.raises(RobustError) as e:
        robust_curve(r, fx, ps, **args)
    assert e.value.field == field


def test_sampled_solves_refused() -> None:
    r = solve("kuhn", "mccfr-cs", iterations=10)
    with pytest.raises(RobustError) as e:
        robust_response(r, uniform_strategy(r.game), 0.5, exploiter=0)
    assert e.value.field == "algorithm"


def test_helpers() -> None:
    assert check_ps([0, 0.25, 1]) == [0.0, 0.25, 1.0]
    assert exploiter_of("ip") == 0 and exploiter_of("oop") == 1
    with pytest.raises(RobustError):
        exploiter_of("btn")
    assert estimate_seconds(0.01, 2, 100, 5) == pytest.approx(1.25 * 0.02 * 100 * 5)
