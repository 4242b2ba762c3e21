"""Self-checks of tests/reference.py: hand-computed values and OpenSpiel as the oracle.

OpenSpiel's kuhn_poker / leduc_poker are an implementation of the same games that
shares no code with the reference, so agreement on payoffs, legal actions, expected
values, best responses and (vanilla / plus) CFR dynamics validates the reference
before the fast engine is checked against it.
"""

from __future__ import annotations

import functools
import math
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np
import pyspiel
import pytest
import reference as ref
from open_spiel.python import policy as os_policy
from open_spiel.python.algorithms import cfr as os_cfr
from open_spiel.python.algorithms import expected_game_score
from open_spiel.python.algorithms import exploitability as os_exploitability

Strategy = dict[ref.Key, np.ndarray]

OPENSPIEL_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}


# ---------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------


def first_action_strategy(game: str) -> Strategy:
    out: Strategy = {}
    for key, n in ref.infosets(game).items():
        row = np.zeros(n)
        row[0] = 1.0
        out[key] = row
    return out


def random_strategy(game: str, seed: int, zero_fraction: float = 0.0) -> Strategy:
    """Dirichlet strategies; with ``zero_fraction`` > 0 some actions get probability 0."""
    rng = np.random.default_rng(seed)
    out: Strategy = {}
    for key, n in ref.infosets(game).items():
        probs = rng.dirichlet(np.ones(n))
        if zero_fraction > 0.0:
            dropped = rng.random(n) < zero_fraction
            dropped[rng.integers(n)] = False  # keep at least one action
            probs = np.where(dropped, 0.0, probs)
            probs = probs / probs.sum()
        out[key] = probs
    return out


@dataclass
class OpenSpielMap:
    """Correspondence between OpenSpiel information states and reference keys."""

    game: pyspiel.Game
    keys: dict[str, ref.Key] = field(default_factory=dict)  # info string -> key
    actions: dict[str, list[int]] = field(default_factory=dict)  # OS action per ref index
    histories: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    terminals: list[tuple[tuple[str, ...], str, str, float]] = field(default_factory=list)


def _label(game: str, labels: list[str], os_action: int) -> str:
    """Reference label of an OpenSpiel action at a node whose legal labels are ``labels``."""
    facing_bet = labels[0] == "f"
    if game == "kuhn":  # 0 = pass (check / fold), 1 = bet (bet / call)
        if os_action == 0:
            return "f" if facing_bet else "k"
        return "c" if facing_bet else "b:1"
    # leduc: 0 = fold, 1 = call (check when not facing a bet), 2 = raise (bet / raise)
    if os_action == 0:
        return "f"
    if os_action == 1:
        return "c" if facing_bet else "k"
    (aggressive,) = [label for label in labels if label[:2] in ("b:", "r:")]
    return aggressive


@functools.cache
def openspiel_map(game: str) -> OpenSpielMap:
    os_game = pyspiel.load_game(OPENSPIEL_NAMES[game])
    cards = ref.GAME_SPECS[game].cards
    result = OpenSpielMap(os_game)

    def walk(state: pyspiel.State, history: tuple[str, ...], dealt: tuple[int, ...]) -> None:
        if state.is_terminal():
            payoff = float(state.returns()[0])
            result.terminals.append((history, cards[dealt[0]], cards[dealt[1]], payoff))
            return
        if state.is_chance_node():
            for outcome, _ in state.chance_outcomes():
                if len(dealt) < 2:  # private cards: player 0 first, then player 1
                    walk(state.child(outcome), history, (*dealt, outcome))
                else:  # public card
                    walk(state.child(outcome), (*history, f"d:{cards[outcome]}"), dealt)
            return
        player = state.current_player()
        key = (player, history, cards[dealt[player]])
        labels = ref.action_labels(game, key)
        by_label = {_label(game, labels, a): a for a in state.legal_actions()}
        assert sorted(by_label) == sorted(labels), (key, by_label, labels)
        order = [by_label[label] for label in labels]
        info = state.information_state_string(player)
        if info in result.keys:
            assert result.keys[info] == key and result.actions[info] == order
        else:
            result.keys[info] = key
            result.actions[info] = order
        result.histories[info] += 1
        for label, os_action in by_label.items():
            walk(state.child(os_action), (*history, label), dealt)

    walk(os_game.new_initial_state(), (), ())
    return result


def to_openspiel(game: str, strategy: Strategy) -> os_policy.TabularPolicy:
    mapping = openspiel_map(game)
    tabular = os_policy.TabularPolicy(mapping.game)
    for info, key in mapping.keys.items():
        row = tabular.policy_for_key(info)
        row[:] = 0.0
        n = len(mapping.actions[info])
        probs = strategy.get(key, np.full(n, 1.0 / n))
        for index, os_action in enumerate(mapping.actions[info]):
            row[os_action] = probs[index]
    return tabular


def from_openspiel(game: str, getter: Callable[[str, int], float]) -> Strategy:
    """Reference-keyed vectors from ``getter(info_string, os_action)``."""
    mapping = openspiel_map(game)
    return {
        key: np.array([getter(info, a) for a in mapping.actions[info]])
        for info, key in mapping.keys.items()
    }


def assert_dicts_close(actual: Strategy, expected: Strategy, atol: float) -> None:
    assert set(actual) == set(expected)
    for key in expected:
        np.testing.assert_allclose(actual[key], expected[key], rtol=0, atol=atol, err_msg=str(key))


# ---------------------------------------------------------------------------
# Hand-computed values and structure
# ---------------------------------------------------------------------------


def test_uniform_and_first_action_nash_conv() -> None:
    assert ref.nash_conv("kuhn", {}) == pytest.approx(11 / 12, abs=1e-12)
    assert ref.nash_conv("kuhn", first_action_strategy("kuhn")) == pytest.approx(2.0, abs=1e-12)
    assert ref.nash_conv("leduc", {}) == pytest.approx(4.747222222222222, abs=1e-12)
    assert ref.exploitability("leduc", {}) == pytest.approx(4.747222222222222 / 2, abs=1e-12)


def test_infoset_keys_and_counts() -> None:
    assert ref.GAMES == ("kuhn", "leduc", "leduc5")
    assert len(ref.RULES) == 14
    kuhn = ref.infosets("kuhn")
    assert len(kuhn) == 12
    assert kuhn[(0, (), "J")] == 2
    assert ref.action_labels("kuhn", (0, (), "J")) == ["k", "b:1"]
    assert ref.action_labels("kuhn", (0, ("k", "b:1"), "Q")) == ["f", "c"]
    leduc = ref.infosets("leduc")
    assert len(leduc) == 936  # OpenSpiel's leduc_poker has 936 information states
    assert ref.action_labels("leduc", (1, ("b:2",), "Qh")) == ["f", "c", "r:2"]
    assert ref.action_labels("leduc", (0, ("b:2", "r:2"), "Qh")) == ["f", "c"]
    assert ref.action_labels("leduc", (0, ("k", "k", "d:Ks"), "Js")) == ["k", "b:4"]
    assert (0, ("k", "k", "d:Ks"), "Ks") not in leduc  # nobody holds the public card
    # leduc5: per betting round 62 decision nodes, 61 ways for round 1 to end with a
    # call or check-check; round 1 has 6 possible cards, round 2 five (not the public one).
    leduc5 = ref.infosets("leduc5")
    assert len(leduc5) == 62 * 6 + 61 * 6 * 62 * 5
    key = (0, ("k", "b:0.5", "r:8", "c", "d:Ks"), "Js")
    assert ref.action_labels("leduc5", key) == ["k", "b:1", "b:2", "b:4", "b:8", "b:16"]
    assert ref.action_labels("leduc5", (1, ("b:0.5",), "Js")) == [
        "f",
        "c",
        "r:0.5",
        "r:1",
        "r:2",
        "r:4",
        "r:8",
    ]
    assert ref.action_labels("leduc5", (0, ("b:1", "r:4"), "Js")) == ["f", "c"]


def test_hand_computed_payoffs() -> None:
    # kuhn: check-check showdown, bet-fold, bet-call.
    assert ref.terminal_payoff("kuhn", ("k", "k"), "K", "Q") == 1.0
    assert ref.terminal_payoff("kuhn", ("b:1", "f"), "J", "K") == 1.0
    assert ref.terminal_payoff("kuhn", ("k", "b:1", "f"), "K", "J") == -1.0
    assert ref.terminal_payoff("kuhn", ("b:1", "c"), "J", "Q") == -2.0
    # leduc: pair beats higher card; equal ranks split.
    history = ("b:2", "r:2", "c", "d:Js", "b:4", "c")
    assert ref.terminal_payoff("leduc", history, "Jh", "Kh") == 9.0
    assert ref.terminal_payoff("leduc", history, "Qs", "Kh") == -9.0
    assert ref.terminal_payoff("leduc", history, "Qs", "Qh") == 0.0
    # leduc5: P1 bets 0.5 (in 1.5), P0 raises 8 (in 9.5), call; P0 bets 16, P1 folds.
    history5: tuple[str, ...] = ("k", "b:0.5", "r:8", "c", "d:Ks", "b:16", "f")
    assert ref.terminal_payoff("leduc5", history5, "Js", "Qh") == 9.5
    history5 = ("b:8", "r:8", "c", "d:Qs", "k", "b:16", "r:4", "f")
    assert ref.terminal_payoff("leduc5", history5, "Js", "Qh") == 17.0 + 16.0
    history5 = ("k", "k", "d:Qs", "b:1", "r:16", "c")
    assert ref.terminal_payoff("leduc5", history5, "Js", "Qh") == -18.0


def test_normal_hedge() -> None:
    assert np.allclose(ref.normal_hedge(np.zeros(3)), 1 / 3)
    assert np.array_equal(ref.normal_hedge(np.array([0.0, 2.0, 0.0])), [0.0, 1.0, 0.0])
    rng = np.random.default_rng(7)
    for n in (2, 3, 6, 7):
        for scale in (1e-8, 1.0, 1e6):
            x = rng.random(n) * scale
            sigma = ref.normal_hedge(x)
            assert sigma.sum() == pytest.approx(1.0, abs=1e-14)
            # Recover c from two weights and check the defining equation independently:
            # w_a / w_b = (x_a / x_b) exp((x_a^2 - x_b^2) / (2c)).
            a, b = int(np.argmax(x)), int(np.argmin(x))
            ratio = (sigma[a] * x[b]) / (sigma[b] * x[a])
            c = (x[a] ** 2 - x[b] ** 2) / (2.0 * math.log(ratio))
            assert np.mean(np.exp(x**2 / (2.0 * c))) == pytest.approx(math.e, rel=1e-9)
            np.testing.assert_allclose(ref.normal_hedge(x * 3.0), sigma, rtol=1e-12)
    rows = rng.random((5, 4))
    rows[2] = 0.0
    batched = ref.normal_hedge_rows(rows)
    for i in range(5):
        np.testing.assert_allclose(batched[i], ref.normal_hedge(rows[i]), rtol=0, atol=1e-15)


def test_first_iteration_regrets_across_rules() -> None:
    """At t = 1 player 0's pass sees uniform strategies for every rule."""
    base = ref.ReferenceSolver("kuhn", "cfr")
    base.iterate()
    player0 = [key for key in base.regrets if key[0] == 0]
    r = {key: base.regrets[key] for key in player0}
    expected: dict[str, Callable[[np.ndarray], np.ndarray]] = {
        "cfr+": lambda v: np.maximum(v, 0.0),
        "lcfr": lambda v: v,
        "dcfr": lambda v: v / 2.0,  # t^alpha / (t^alpha + 1) = 1/2 and t^0 / 2 = 1/2
        "lcfr+": lambda v: np.maximum(v, 0.0),
        "olcfr": lambda v: v,
        "dcfr-nh": lambda v: v / 2.0,
        "pcfr+": lambda v: np.maximum(v, 0.0),
        "sapcfr+": lambda v: np.maximum(v, 0.0),
        "apcfr+": lambda v: np.maximum(v, 0.0),
        "pdcfr+": lambda v: np.maximum(v, 0.0),  # d(1) = 0
        "apdcfr+": lambda v: np.maximum(v, 0.0),
        "dcfr+": lambda v: np.maximum(v, 0.0),  # d(1) = 0
    }
    for rule, transform in expected.items():
        solver = ref.ReferenceSolver("kuhn", rule)
        solver.iterate()
        for key in player0:
            np.testing.assert_allclose(solver.regrets[key], transform(r[key]), atol=1e-15)
    # Explicit sigma after t = 1 for the predictive rules at one infoset.
    key = (0, (), "K")
    x = r[key]
    pcfr = ref.ReferenceSolver("kuhn", "pcfr+")
    pcfr.iterate()
    np.testing.assert_allclose(pcfr.current[key], ref.regret_matching(2 * np.maximum(x, 0)))
    pd = ref.ReferenceSolver("kuhn", "pdcfr+")
    pd.iterate()
    d2 = 1.0 / (1.0 + 1.0)  # (2-1)^alpha / ((2-1)^alpha + 1)
    np.testing.assert_allclose(pd.current[key], ref.regret_matching(np.maximum(x, 0) * d2 + x))
    ap = ref.ReferenceSolver("kuhn", "apcfr+")
    ap.iterate()
    assert ap.adaptive_a[key] == pytest.approx(float(np.sum(x**2)), abs=1e-15)
    assert ap.adaptive_b[key] == pytest.approx(float(np.sum(np.maximum(x, 0) ** 2)), abs=1e-15)
    alpha = min(math.sqrt(np.sum(x**2) / np.sum(np.maximum(x, 0) ** 2)), 5.0)
    np.testing.assert_allclose(
        ap.current[key], ref.regret_matching(np.maximum(x, 0) + x / (1 + alpha))
    )
    # beta = -inf wipes negative regrets.
    wipe = ref.ReferenceSolver("kuhn", "dcfr", beta=-math.inf)
    wipe.iterate()
    for key in player0:
        np.testing.assert_allclose(wipe.regrets[key], np.maximum(r[key], 0.0) / 2.0)
    with pytest.raises(TypeError):
        ref.ReferenceSolver("kuhn", "cfr", alpha=1.0)
    with pytest.raises(ValueError):
        ref.ReferenceSolver("kuhn", "nope")


@pytest.mark.parametrize(
    ("rule", "params", "same_as", "same_params", "compare"),
    [
        ("sapcfr+", {"alpha": 0.0}, "pcfr+", {}, "all"),
        ("apcfr+", {"alpha_max": 0.0}, "pcfr+", {}, "all"),
        ("apdcfr+", {"alpha_max": 0.0}, "pdcfr+", {}, "all"),
        ("dcfr-nh", {}, "dcfr", {}, "regrets"),  # sigma differs, regrets only see r
        ("olcfr", {}, "lcfr", {}, "regrets"),
        ("cfr+", {"delay": 3.0}, "cfr+", {}, "current"),  # delay only changes averaging
    ],
)
def test_rule_parameter_equivalences(
    rule: str, params: dict[str, float], same_as: str, same_params: dict[str, float], compare: str
) -> None:
    a = ref.ReferenceSolver("kuhn", rule, **params)
    b = ref.ReferenceSolver("kuhn", same_as, **same_params)
    for _ in range(1 if compare == "regrets" else 15):
        a.iterate()
        b.iterate()
    if compare == "regrets":  # identical after one iteration only (sigma then diverges)
        player0 = {k: v for k, v in a.regrets.items() if k[0] == 0}
        assert_dicts_close(player0, {k: b.regrets[k] for k in player0}, 0.0)
        return
    assert_dicts_close(a.current, b.current, 1e-15)
    assert_dicts_close(a.regrets, b.regrets, 1e-15)
    if compare == "all":
        assert_dicts_close(a.cumulative, b.cumulative, 1e-12)


@pytest.mark.parametrize("game", ["kuhn", "leduc", "leduc5"])
def test_internal_consistency(game: str) -> None:
    """Counterfactual values, expected values and best responses agree with each other."""
    if game == "leduc5":
        solver = ref.ReferenceSolver(game, "cfr")
        solver.iterate()
        strategy = solver.current
        sizes = ref.infosets(game)
        for key, sigma in strategy.items():
            assert sigma.shape == (sizes[key],)
            assert abs(sigma.sum() - 1.0) < 1e-12 and (sigma >= 0.0).all()
    else:
        strategy = random_strategy(game, seed=3, zero_fraction=0.3)
    ev0, ev1 = ref.expected_values(game, strategy)
    assert ev0 == pytest.approx(-ev1, abs=1e-12)
    # Root infosets of player 0 and depth-1 infosets of player 1 cover every terminal.
    values0 = ref.counterfactual_values(game, strategy, 0)
    values1 = ref.counterfactual_values(game, strategy, 1)
    root0 = sum(strategy[k] @ v for k, v in values0.items() if k[1] == ())
    root1 = sum(strategy[k] @ v for k, v in values1.items() if len(k[1]) == 1)
    assert root0 == pytest.approx(ev0, abs=1e-12)
    assert root1 == pytest.approx(ev1, abs=1e-12)
    for player in (0, 1):
        br_value, br = ref.best_response(game, player, strategy)
        assert br_value >= (ev0, ev1)[player] - 1e-12
        combined = {**strategy, **br}
        assert ref.expected_values(game, combined)[player] == pytest.approx(br_value, abs=1e-12)


# ---------------------------------------------------------------------------
# OpenSpiel as the oracle
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("game", ["kuhn", "leduc"])
def test_tree_matches_openspiel(game: str) -> None:
    mapping = openspiel_map(game)
    assert set(mapping.keys.values()) == set(ref.infosets(game))
    assert len(mapping.keys) == len(ref.infosets(game))
    for history, card0, card1, payoff in mapping.terminals:
        assert ref.terminal_payoff(game, history, card0, card1) == payoff, history


@pytest.mark.parametrize(
    ("game", "seed", "zero_fraction"),
    [
        ("kuhn", 0, 0.0),
        ("kuhn", 1, 0.4),
        ("kuhn", 2, 0.0),
        ("leduc", 0, 0.0),
        ("leduc", 1, 0.3),
        ("leduc", 2, 0.0),
    ],
)
def test_values_match_openspiel(game: str, seed: int, zero_fraction: float) -> None:
    strategy = random_strategy(game, seed, zero_fraction)
    tabular = to_openspiel(game, strategy)
    os_game = openspiel_map(game).game
    os_ev = expected_game_score.policy_value(os_game.new_initial_state(), [tabular, tabular])
    ev = ref.expected_values(game, strategy)
    np.testing.assert_allclose(ev, os_ev, rtol=0, atol=1e-12)
    info = os_exploitability.nash_conv(
        os_game, tabular, return_only_nash_conv=False, use_cpp_br=True
    )
    assert ref.nash_conv(game, strategy) == pytest.approx(info.nash_conv, abs=1e-10)
    for player in (0, 1):
        os_br = info.player_improvements[player] + os_ev[player]
        assert ref.best_response_value(game, player, strategy) == pytest.approx(os_br, abs=1e-10)


@pytest.mark.parametrize(
    ("game", "rule", "iterations"),
    [("kuhn", "cfr", 40), ("kuhn", "cfr+", 40), ("leduc", "cfr", 4), ("leduc", "cfr+", 4)],
)
def test_cfr_dynamics_match_openspiel(game: str, rule: str, iterations: int) -> None:
    """OpenSpiel's CFRSolver / CFRPlusSolver use the same alternating scheme.

    Regrets and current strategies must agree exactly.  OpenSpiel accumulates the
    average strategy of the player being updated (summed over the histories of the
    infoset, before its update); the reference accumulates the opponent's.  Player 1
    is thus identical up to the history count; player 0 (vanilla weights) is
    OpenSpiel after one more iteration minus its first (uniform) contribution.
    """
    mapping = openspiel_map(game)
    os_solver = (
        os_cfr.CFRSolver(mapping.game) if rule == "cfr" else os_cfr.CFRPlusSolver(mapping.game)
    )
    solver = ref.ReferenceSolver(game, rule)
    nodes = os_solver._info_state_nodes
    first_s: Strategy = {}
    for t in range(1, iterations + 1):
        os_solver.evaluate_and_update_policy()
        solver.iterate()
        if t == 1:
            first_s = from_openspiel(game, lambda i, a: nodes[i].cumulative_policy[a])
    atol = 1e-12 if game == "kuhn" else 1e-11
    os_regrets = from_openspiel(game, lambda i, a: nodes[i].cumulative_regret[a])
    assert_dicts_close(solver.regrets, os_regrets, atol)
    os_current = os_solver.current_policy()
    assert_dicts_close(
        solver.current, from_openspiel(game, lambda i, a: os_current.policy_for_key(i)[a]), atol
    )
    histories = {key: mapping.histories[info] for info, key in mapping.keys.items()}
    os_s = from_openspiel(game, lambda i, a: nodes[i].cumulative_policy[a])
    for key in solver.cumulative:
        if key[0] == 1:
            np.testing.assert_allclose(
                solver.cumulative[key], os_s[key] / histories[key], rtol=1e-12, atol=atol
            )
    if rule == "cfr":
        os_solver.evaluate_and_update_policy()
        os_s = from_openspiel(game, lambda i, a: nodes[i].cumulative_policy[a])
        for key in solver.cumulative:
            if key[0] == 0:
                expected = (os_s[key] - first_s[key]) / histories[key]
                np.testing.assert_allclose(solver.cumulative[key], expected, rtol=1e-12, atol=atol)


# ---------------------------------------------------------------------------
# Convergence
# ---------------------------------------------------------------------------


def test_cfr_plus_kuhn_2000() -> None:
    solver = ref.ReferenceSolver("kuhn", "cfr+")
    for _ in range(2000):
        solver.iterate()
    assert solver.t == 2000
    average = solver.average_strategy()
    assert ref.exploitability("kuhn", average) < 5e-3
    assert ref.expected_values("kuhn", average)[0] == pytest.approx(-1 / 18, abs=5e-3)


@pytest.mark.parametrize("rule", ref.RULES)
def test_every_rule_converges_on_kuhn(rule: str) -> None:
    solver = ref.ReferenceSolver("kuhn", rule)
    for _ in range(300):
        solver.iterate()
    assert ref.exploitability("kuhn", solver.average_strategy()) < 1e-2


# One rule of each family; measured exploitability after 50 iterations in brackets
# (uniform play: 2.37).  Every rule is also run to convergence on Kuhn above.
LEDUC_ITERATIONS = 50
LEDUC_THRESHOLDS = {
    "cfr": 0.25,  # vanilla regret matching (0.172)
    "cfr+": 0.05,  # regret matching+ (0.033)
    "dcfr": 0.04,  # discounted (0.024)
    "olcfr": 0.11,  # optimistic linear (0.074)
    "dcfr-nh": 0.075,  # discounted NormalHedge (0.050)
    "apcfr+": 0.055,  # predictive, adaptive (0.035)
    "pdcfr+": 0.065,  # predictive discounted (0.043)
}


@pytest.mark.parametrize("rule", list(LEDUC_THRESHOLDS))
def test_rule_families_converge_on_leduc(rule: str) -> None:
    solver = ref.ReferenceSolver("leduc", rule)
    for _ in range(LEDUC_ITERATIONS):
        solver.iterate()
    assert ref.exploitability("leduc", solver.average_strategy()) < LEDUC_THRESHOLDS[rule]
