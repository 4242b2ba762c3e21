"""Solved values against the literature, the DCFR paper's large-mistake example, and
convergence of every rule on Leduc."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import game

from solver import Engine, make_rule, solve
from solver.cfr.rules import RULES
from solver.games.toy import one_decision


def test_kuhn_game_value() -> None:
    result = solve(game("kuhn"), "cfr+", iterations=3000, check_every=500)
    assert result.exploitability < 1e-4
    assert result.ev[0] == pytest.approx(-1 / 18, abs=1e-4)
    assert result.ev[0] + result.ev[1] == pytest.approx(0.0, abs=1e-12)


def test_leduc_game_value() -> None:
    result = solve(game("leduc"), "dcfr", target_exploitability=1e-4, check_every=50)
    assert result.exploitability <= 1e-4
    assert result.ev[0] == pytest.approx(-0.0856, abs=1e-3)


def _first_pure_iteration(rule_name: str, chunk_guess: int) -> int:
    """First iteration t whose played strategy σ^t (computed from t − 1 updates) puts
    probability 1 on the second action of the large-mistake example."""
    g = one_decision([0.0, 1.0, -1_000_000.0])
    engine = Engine(g, make_rule(rule_name))
    engine.iterate(chunk_guess - 2)
    assert engine.current_strategy()[1] < 1.0
    while engine.current_strategy()[1] < 1.0:
        engine.iterate(1)
    return engine.iteration + 1


def test_large_mistake_cfr_plus_needs_471407_iterations() -> None:
    """DCFR paper, section 3: "It will take 471,407 iterations for the agent to choose the
    second action ... with 100% probability" — exactly what CFR+ does here."""
    assert _first_pure_iteration("cfr+", 471_407) == 471_407


def test_large_mistake_linear_cfr_is_three_orders_faster() -> None:
    """The paper reports 970 iterations for LCFR. Counted the same way as CFR+'s 471,407
    (the iteration whose strategy is pure), exact arithmetic gives 972: after 971 updates
    R[0] = -286.76 (60-digit decimal arithmetic agrees), after 970 it is +199. We assert
    our count and that it is within 2 of the paper's figure."""
    t = _first_pure_iteration("lcfr", 960)
    assert t == 972
    assert abs(t - 970) <= 2


def test_lcfr_equals_dcfr_one_one_one() -> None:
    g = game("leduc")
    a = Engine(g, make_rule("lcfr"))
    b = Engine(g, make_rule("dcfr", alpha=1, beta=1, gamma=1))
    a.iterate(50)
    b.iterate(50)
    np.testing.assert_allclose(a.current_strategy(), b.current_strategy(), atol=1e-9)
    np.testing.assert_allclose(a.average_strategy(), b.average_strategy(), atol=1e-9)


FAST_RULES = [r for r in RULES if r not in ("cfr", "lcfr")]


@pytest.mark.parametrize("rule", FAST_RULES)
def test_every_fast_rule_reaches_1e_3_on_leduc_within_5000(rule: str) -> None:
    result = solve(game("leduc"), rule, iterations=5000, target_exploitability=1e-3, check_every=50)
    assert result.exploitability < 1e-3, (rule, result.iteration, result.exploitability)


@pytest.mark.parametrize(("rule", "bound"), [("cfr", 4e-3), ("lcfr", 2e-3)])
def test_vanilla_and_linear_cfr_converge_at_the_published_rate(rule: str, bound: float) -> None:
    """Vanilla CFR does not reach 1e-3 on Leduc in 5,000 iterations — OpenSpiel's own C++
    CFRSolver is at 3.55e-3 there (measured on this machine, see BENCHMARKS.md); ours is at
    3.25e-3. LCFR is at 1.7e-3. We check they get there and keep falling."""
    result = solve(game("leduc"), rule, iterations=5000, check_every=1000)
    values = [cp.exploitability for cp in result.history[1:]]
    assert values[-1] < bound
    assert all(b < a for a, b in itertools.pairwise(values))


def test_uniform_report_with_zero_iterations() -> None:
    result = solve(game("kuhn"), "cfr", iterations=0)
    assert result.iteration == 0
    assert 2 * result.exploitability == pytest.approx(11 / 12)
    assert result.ev[0] == pytest.approx(0.125)


def test_default_algorithm_depends_on_the_game() -> None:
    from conftest import small_turn

    assert solve(game("kuhn"), iterations=2).rule.name == "dcfr"
    turn = solve(small_turn("AA, T9s", "QQ, AKs"), iterations=2)
    assert turn.rule.name == "dcfr-tuned"
    assert turn.rule.params() == {"alpha": 1.5, "beta": 0.1, "gamma": 4.0, "average_every": 2.0}


def test_callback_can_stop_and_history_is_recorded() -> None:
    seen: list[int] = []

    def cb(cp: object) -> bool:
        seen.append(cp.iteration)  # type: ignore[attr-defined]
        return len(seen) >= 3

    result = solve(
        game("leduc"), "cfr+", iterations=1000, check_every=7, callback=cb, pruning="none"
    )
    assert seen == [0, 7, 14]
    assert result.stopped_by == "callback"
    assert [cp.iteration for cp in result.history] == [0, 7, 14]
    assert result.history[-1].nodes_touched == 14 * 2 * game("leduc").num_nodes


def test_strategy_queries() -> None:
    result = solve(game("kuhn"), "dcfr", iterations=2000)
    root = result.strategy(())
    assert set(root) == {"J", "Q", "K"}
    assert sum(root["Q"].values()) == pytest.approx(1.0)
    # Q never bets first at equilibrium, K always calls a bet
    assert root["Q"]["b:1"] < 0.02
    assert result.hand_strategy(("b:1",), "K")["c"] > 0.98
    table = result.node_strategy(("k", "b:1"))
    assert table.shape == (2, 3)
    with pytest.raises(KeyError):
        result.strategy(("x",))


def test_bad_arguments() -> None:
    with pytest.raises(KeyError):
        solve("chess", "cfr")
    with pytest.raises(KeyError):
        solve("kuhn", "nope")
    with pytest.raises(ValueError):
        solve("kuhn", "cfr", iterations=-1)
    with pytest.raises(ValueError):
        solve("kuhn", "cfr+", params={"delay": -2})
    with pytest.raises(ValueError):
        solve("kuhn", "cfr+", params={"zeta": 1})


def test_strategy_queries_follow_suit_isomorphic_cards() -> None:
    """Leduc deals the public card in one suit and mirrors the other: a query through a
    mirrored card (``d:Kh``) answers for the real hands, exactly as the game built in full."""
    from solver.games.toy import leduc

    iso = solve(game("leduc"), "cfr+", iterations=60, check_every=60)
    full = solve(leduc(isomorphism=False), "cfr+", iterations=60, check_every=60)
    checked = 0
    for n in full.game.decision_nodes():
        hist = full.game.history(int(n))
        a, b = full.strategy(hist), iso.strategy(hist)
        assert set(a) == set(b)
        for hand in a:
            for act, prob in a[hand].items():
                assert b[hand][act] == pytest.approx(prob, abs=1e-12)
        np.testing.assert_allclose(iso.node_strategy(hist), full.node_strategy(hist), atol=1e-12)
        checked += any(lab.startswith("d:") and lab.endswith("h") for lab in hist)
    assert checked > 0  # mirrored (hearts) boards were among the queries
