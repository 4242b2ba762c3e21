"""The engine on three-player games (issue 49): kuhn3 and leduc3 solved by the one walk
(solver/cfr/multi.py's steps) match a plain recursive reference (tests/reference3.py)
iteration by iteration, locks fix players, and kuhn3's solve reaches the
Szafron–Gibson–Sturtevant family's values; measured by solver/games/nashconv.py."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from reference3 import RULES, Reference3

from solver.cfr.multi import TERMINAL_TOY3
from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.games.multiway import MultiGame, kuhn_multi, multi_game
from solver.games.nashconv import (
    best_response_values,
    expected_values,
    nash_report,
    uniform_profile,
)


@functools.cache
def game(name: str) -> MultiGame:
    return multi_game(name)


def match(name: str, rule: str, iterations: int) -> None:
    """Regrets, current strategies and strategy sums equal the reference's after every
    iteration (float64 sums in another order: 1e-10)."""
    g = game(name)
    ref, eng = Reference3(g, rule), MultiEngine(g, make_rule(rule))
    assert eng.arrays.multi.mode == TERMINAL_TOY3  # terminals by strength class, no deal list
    for t in range(1, iterations + 1):
        ref.iterate()
        eng.iterate(1)
        where = f"{rule} {name} t={t}"
        st = eng.storage
        np.testing.assert_allclose(st.regrets, ref.flat(ref.regrets), rtol=1e-12, atol=1e-10,
                                   err_msg=f"{where} regrets")  # fmt: skip
        np.testing.assert_allclose(eng.current_profile(), ref.flat(ref.current), rtol=0,
                                   atol=1e-10, err_msg=f"{where} current")  # fmt: skip
        np.testing.assert_allclose(st.cumulative, ref.flat(ref.cumulative), rtol=1e-12,
                                   atol=1e-10, err_msg=f"{where} sums")  # fmt: skip
        np.testing.assert_allclose(eng.average_profile(), ref.average(), rtol=0, atol=1e-10,
                                   err_msg=f"{where} average")  # fmt: skip


@pytest.mark.parametrize("rule", RULES)
def test_kuhn3_matches_the_reference_iteration_by_iteration(rule: str) -> None:
    match("kuhn3", rule, 12)


# the reference walks every history in Python (all deals at once: tests/reference3.py)
@pytest.mark.slow
@pytest.mark.parametrize("rule", ["cfr", "cfr+"])
def test_leduc3_matches_the_reference_for_two_iterations(rule: str) -> None:
    match("leduc3", rule, 2)


def test_each_pass_values_its_players_strategy() -> None:
    """The root values of each traverser's pass sum to its expected chips under the profile
    that pass played: in the first iteration player 0's pass plays uniform, player 1's
    player 0's updated strategy and the rest uniform, player 2's both updates."""
    g = game("kuhn3")
    eng = MultiEngine(g, make_rule("cfr"))
    eng.iterate(1)
    ref = Reference3(g, "cfr")
    for trav in range(3):
        played = ref.flat(ref.current)
        want = expected_values(g, played)[trav]
        assert eng.current_values()[trav] == pytest.approx(want, abs=1e-14)
        ref._pass(trav)


@pytest.mark.parametrize("free", [0, 1, 2])
def test_two_players_locked_to_uniform_leave_the_third_its_best_response(free: int) -> None:
    """With the other two locked to uniform, the free player's solve earns its best-response
    value against uniform (which nashconv computes as OpenSpiel does:
    tests/test_multiway_openspiel.py): CFR+'s average within 1e-4 after 1000 iterations; the
    locked players' strategies never move."""
    g = game("kuhn3")
    u = uniform_profile(g)
    eng = MultiEngine(g, make_rule("cfr+"))
    eng.lock_players([p for p in range(3) if p != free], u)
    eng.iterate(1000)
    avg = eng.average_profile()
    br = best_response_values(g, u)[free]
    assert expected_values(g, avg)[free] == pytest.approx(br, abs=1e-4)
    assert eng.current_values()[free] == pytest.approx(br, abs=1e-12)
    own = np.zeros(g.profile_size, dtype=bool)
    for n in g.decision_nodes():
        if g.player[n] == free:
            own[g.offset[n] : g.offset[n] + g.num_children[n] * g.num_hands] = True
    np.testing.assert_array_equal(avg[~own], u[~own])
    assert np.all(eng.storage.cumulative[~own] == 0.0) and np.all(eng.storage.regrets[~own] == 0)


def test_kuhn3_reaches_the_equilibrium_familys_values() -> None:
    """Kuhn3's CFR+ solve: NashConv below 1e-4 after 1000 iterations (uniform's is 2.0625)
    and each player's value that of a member of the Szafron–Gibson–Sturtevant family —
    player 2 (ours 1) gets -κ/2 = -1/48 whichever member, player 3 κ(1 + β) with β in
    [0, 1/4] and player 1 the rest (κ = 1/24) — to within the NashConv."""
    g = game("kuhn3")
    eng = MultiEngine(g, make_rule("cfr+"))
    eng.iterate(1000)
    rep = eng.report()
    assert 0.0 <= rep.nash_conv < 1e-4
    assert np.all(rep.nash_distance >= -1e-12)
    kappa = 1 / 24
    tol = 10 * rep.nash_conv
    assert rep.value[1] == pytest.approx(-kappa / 2, abs=tol)
    beta = rep.value[2] / kappa - 1.0
    assert -tol / kappa <= beta <= 0.25 + tol / kappa
    assert rep.value[0] == pytest.approx(-kappa * (0.5 + beta), abs=tol)


def random_profile(g: MultiGame, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sigma = np.empty(g.profile_size)
    for n in g.decision_nodes():
        a = int(g.num_children[n])
        block = rng.random((a, g.num_hands)) ** 3
        sigma[g.offset[n] : g.offset[n] + a * g.num_hands] = (block / block.sum(axis=0)).ravel()
    return sigma


@pytest.mark.parametrize("name", ["kuhn3", "leduc3"])
def test_the_engines_best_response_equals_the_evaluators(name: str) -> None:
    """The walk's own evaluation and best-response passes (MODE_EVAL, MODE_BR) give each
    player's value and best-response value as nashconv.py does (itself OpenSpiel's: tests/
    test_multiway_openspiel.py), to 1e-9: against uniform (leduc3's NashConv 12.6112…), a
    random profile, and a solve's average strategy normalised in the walk."""
    g = game(name)
    eng = MultiEngine(g, make_rule("cfr+"))
    assert eng.arrays.multi.mode == TERMINAL_TOY3
    eng.iterate(5)
    for sigma in (uniform_profile(g), random_profile(g, 3), None):
        ours = eng.engine_report(sigma)
        want = nash_report(g, eng.average_profile() if sigma is None else sigma)
        np.testing.assert_allclose(ours.value, want.value, rtol=0, atol=1e-9)
        np.testing.assert_allclose(ours.best_response, want.best_response, rtol=0, atol=1e-9)
        assert ours.nash_conv == pytest.approx(want.nash_conv, abs=1e-9)
    assert eng.engine_report(uniform_profile(g)).nash_conv > 2.0  # (not all zeros)


def test_the_engines_best_response_keeps_locked_players_on_their_mix() -> None:
    """In the locked game a locked player has nothing to deviate to (distance 0); the free
    one's best response is the evaluator's against the locked mixes."""
    g = game("kuhn3")
    u = uniform_profile(g)
    eng = MultiEngine(g, make_rule("cfr"))
    eng.lock_players([0, 2], u)
    eng.iterate(3)
    rep = eng.engine_report()
    assert rep.nash_distance[0] == pytest.approx(0.0, abs=1e-15)
    assert rep.nash_distance[2] == pytest.approx(0.0, abs=1e-15)
    assert rep.best_response[1] == pytest.approx(best_response_values(g, u)[1], abs=1e-12)


def test_two_players_are_refused_by_name() -> None:
    with pytest.raises(ValueError, match="players: the multi-player engine takes 3"):
        MultiEngine(kuhn_multi(2), make_rule("cfr"))
