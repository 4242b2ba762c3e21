"""Hypothesis properties of the rules and of best response / evaluation."""

from __future__ import annotations

import numpy as np
from conftest import full_game as game
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from solver import Engine, best_response_values, expected_values
from solver.cfr.layout import Storage
from solver.cfr.rules import DERIVE, FLOOR, RULES, make_rule
from solver.cfr.update import update_block

values = arrays(
    np.float64,
    st.tuples(st.integers(1, 6), st.integers(1, 5)),
    elements=st.floats(-1e6, 1e6, allow_nan=False),
)


@settings(max_examples=60, deadline=None)
@given(
    rule_name=st.sampled_from(sorted(RULES)),
    rounds=st.lists(values, min_size=1, max_size=4),
    t0=st.integers(1, 10_000),
)
def test_rule_updates_give_distributions_and_rm_plus_stays_nonnegative(
    rule_name: str, rounds: list[np.ndarray], t0: int
) -> None:
    na, nh = rounds[0].shape
    rule = make_rule(rule_name)
    size = na * nh
    storage = Storage(
        regrets=np.zeros(size),
        strategy=np.full(size, 1.0 / na),
        cumulative=np.zeros(size),
        last_regret=np.zeros(size),
        step_num=np.zeros(nh),
        step_den=np.zeros(nh),
        rscale=np.ones(1),
        sscale=np.ones(1),
        quantized=0,
    )
    coefs = rule.coefficients(np.arange(t0, t0 + len(rounds), dtype=np.float64))
    coefs[:, DERIVE] = 0  # store the next strategy so it can be checked
    for k, av in enumerate(rounds):
        if av.shape != (na, nh):
            av = np.resize(av, (na, nh))
        av = np.ascontiguousarray(av)
        sigma = storage.strategy.reshape(na, nh)
        out = (sigma * av).sum(axis=0)
        update_block(storage, coefs[k], 0, 0, 0, na, nh, av, out)
        sigma = storage.strategy.reshape(na, nh)
        assert np.all(sigma >= 0.0)
        np.testing.assert_allclose(sigma.sum(axis=0), 1.0, atol=1e-12)
        if coefs[k, FLOOR]:
            assert np.all(storage.regrets >= 0.0)


def _random_profile(name: str, seed: int, power: float) -> np.ndarray:
    g = game(name)
    rng = np.random.default_rng(seed)
    sigma = np.zeros(g.action_size)
    for n in g.decision_nodes():
        off, na, nh = g.block(int(n))
        block = rng.random((na, nh)) ** power + 1e-300
        sigma[off : off + na * nh] = (block / block.sum(axis=0)).ravel()
    return sigma


@settings(max_examples=25, deadline=None)
@given(
    name=st.sampled_from(["kuhn", "leduc"]),
    seed=st.integers(0, 2**32 - 1),
    power=st.floats(0.0, 8.0),
)
def test_best_response_dominates_and_evs_are_zero_sum(name: str, seed: int, power: float) -> None:
    g = game(name)
    sigma = _random_profile(name, seed, power)
    ev = expected_values(g, sigma)
    br = best_response_values(g, sigma)
    assert abs(ev[0] + ev[1]) < 1e-12
    # a best response earns at least what the strategy itself earns
    assert br[0] >= ev[0] - 1e-12
    assert br[1] >= ev[1] - 1e-12
    # exploitability (BR0 + BR1) / 2 ≥ 0, and > 0 away from equilibrium
    exploit = 0.5 * (br[0] + br[1])
    assert exploit >= -1e-12
    assert exploit > 1e-6  # random profiles are not equilibria of Kuhn or Leduc


@settings(max_examples=40, deadline=None)
@given(
    rule_name=st.sampled_from(sorted(RULES)),
    chunks=st.lists(st.integers(1, 700), min_size=1, max_size=8),
    back=st.integers(0, 300),
)
def test_the_engine_serves_the_rules_rows_in_chunks(
    rule_name: str, chunks: list[int], back: int
) -> None:
    """Engine.coefficients computes the rows a block ahead and slices them: every chunk
    equals the rule's own rows for its iterations, across block ends, after a jump back (a
    loaded save) and after the rule is swapped."""
    eng = Engine(game("kuhn"), make_rule(rule_name))
    start = 0
    for k in chunks:
        got = eng.coefficients(start, k)
        want = eng.rule.coefficients(np.arange(start + 1, start + k + 1, dtype=np.float64))
        assert got.flags.c_contiguous and got.shape == want.shape
        np.testing.assert_array_equal(got, want)
        start += k
    start = max(start - back, 0)
    eng.rule = make_rule("cfr+" if rule_name != "cfr+" else "dcfr")
    for s in (start, start + 3):
        want = eng.rule.coefficients(np.arange(s + 1, s + 6, dtype=np.float64))
        np.testing.assert_array_equal(eng.coefficients(s, 5), want)
