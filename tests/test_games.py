"""Known values of Kuhn and Leduc (OpenSpiel's tests) and the shape of the three games."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import game

from solver import best_response_values, expected_values, exploitability
from solver.cfr.layout import uniform_strategy
from solver.games.model import DECISION


def first_action_strategy(name: str) -> np.ndarray:
    g = game(name)
    sigma = np.zeros(g.action_size)
    for n in g.decision_nodes():
        off, _na, nh = g.block(int(n))
        sigma[off : off + nh] = 1.0
    return sigma


def test_kuhn_uniform_nash_conv() -> None:
    assert 2 * exploitability(game("kuhn"), uniform_strategy(game("kuhn"))) == pytest.approx(
        11 / 12, abs=1e-12
    )


def test_kuhn_first_action_nash_conv_is_two() -> None:
    g = game("kuhn")
    assert 2 * exploitability(g, first_action_strategy("kuhn")) == pytest.approx(2.0, abs=1e-12)


def test_leduc_uniform_nash_conv() -> None:
    g = game("leduc")
    assert 2 * exploitability(g, uniform_strategy(g)) == pytest.approx(4.747222222222222, abs=1e-12)


def test_kuhn_known_equilibrium_has_zero_exploitability() -> None:
    """Kuhn's equilibrium family (alpha = 1/3): exploitability 0 and value -1/18."""
    g = game("kuhn")
    a = 1 / 3
    bet_prob = {  # (history, card) -> probability of the second action (bet/call)
        ((), "J"): a,
        ((), "Q"): 0.0,
        ((), "K"): 3 * a,
        (("k",), "J"): 1 / 3,
        (("k",), "Q"): 0.0,
        (("k",), "K"): 1.0,
        (("b:1",), "J"): 0.0,
        (("b:1",), "Q"): 1 / 3,
        (("b:1",), "K"): 1.0,
        (("k", "b:1"), "J"): 0.0,
        (("k", "b:1"), "Q"): a + 1 / 3,
        (("k", "b:1"), "K"): 1.0,
    }
    sigma = np.zeros(g.action_size)
    for n in g.decision_nodes():
        off, _na, nh = g.block(int(n))
        hist = g.history(int(n))
        for h, card in enumerate(g.hand_names[int(g.tree.player[n])]):
            p = bet_prob[(hist, card)]
            sigma[off + h] = 1 - p
            sigma[off + nh + h] = p
    assert exploitability(g, sigma) == pytest.approx(0.0, abs=1e-12)
    ev = expected_values(g, sigma)
    assert ev[0] == pytest.approx(-1 / 18, abs=1e-12)
    assert ev[0] + ev[1] == pytest.approx(0.0, abs=1e-15)
    br = best_response_values(g, sigma)
    assert br[0] == pytest.approx(-1 / 18, abs=1e-12)


@pytest.mark.parametrize(
    ("name", "infosets", "decision_nodes"),
    [("kuhn", 12, 4), ("leduc", 936, 96), ("leduc5", 113832, None)],
)
def test_game_sizes(name: str, infosets: int, decision_nodes: int | None) -> None:
    g = game(name)
    assert g.num_infosets == infosets
    if decision_nodes is not None:
        assert int(np.sum(g.tree.kind == DECISION)) == decision_nodes


def test_tree_layout_parents_before_children_and_contiguous_siblings() -> None:
    g = game("leduc")
    t = g.tree
    for n in range(g.num_nodes):
        if t.first_child[n] >= 0:
            assert t.first_child[n] > n
            kids = list(g.children(n))
            assert all(g.parents[c] == n for c in kids)


def test_leduc5_actions_and_raises() -> None:
    g = game("leduc5")
    assert g.action_labels(0) == ["k", "b:0.5", "b:1", "b:2", "b:4", "b:8"]
    node = g.find(["b:2"])
    assert g.action_labels(node) == ["f", "c", "r:0.5", "r:1", "r:2", "r:4", "r:8"]
    # after a bet and a raise (two bets) no more raises
    node = g.find(["b:2", "r:8"])
    assert g.action_labels(node) == ["f", "c"]
    # a fold after b:2 r:8: player 1 raised to 1 + 2 + 8 = 11, player 0 folds its 3 chips
    fold = g.find(["b:2", "r:8", "f"])
    assert g.tree.payoff[fold] == -3.0
    # round 2 sizes after the public card
    node = g.find(["k", "k", "d:Ks"])
    assert g.action_labels(node) == ["k", "b:1", "b:2", "b:4", "b:8", "b:16"]


def test_leduc_card_removal_at_the_chance_node() -> None:
    """All 6 public cards are dealt (3 as children, 3 mirrored by suit isomorphism); for any
    two hole cards 4 remain, each 1/4."""
    g = game("leduc")
    chance = g.find(["k", "k"])
    cards = g.chance_cards(chance)
    assert sorted(label for label, _, _ in cards) == sorted(f"d:{c}" for c in g.card_names)
    kids = list(g.children(chance))
    assert len(kids) == 3
    assert all(g.tree.chance_weight[c] == 0.25 for c in kids)
    flat = __import__("solver.games.toy", fromlist=["leduc"]).leduc(isomorphism=False)
    assert len(list(flat.children(flat.find(["k", "k"])))) == 6
    # the Ks board blocks the Ks hand for both players
    ks = g.find(["k", "k", "d:Ks"])
    assert not g.valid_hands(ks, 0)[4]
    assert g.valid_hands(ks, 0).sum() == 5


def test_node_values_at_the_root_match_the_root_pass() -> None:
    from solver.cfr.bestresponse import node_values, root_player_values

    g = game("leduc")
    rng = np.random.default_rng(7)
    sigma = np.zeros(g.action_size)
    for n in g.decision_nodes():
        off, na, nh = g.block(int(n))
        block = rng.random((na, nh))
        sigma[off : off + na * nh] = (block / block.sum(axis=0)).ravel()
    for p in range(2):
        np.testing.assert_allclose(
            node_values(g, sigma, 0, p), root_player_values(g, sigma, p, False), atol=1e-15
        )
    # below a chance node the boards' values sum to the parent's (full tree, no mirroring)
    from solver.games.toy import leduc

    g = leduc(isomorphism=False)
    sigma = np.zeros(g.action_size)
    for n in g.decision_nodes():
        off, na, nh = g.block(int(n))
        block = rng.random((na, nh))
        sigma[off : off + na * nh] = (block / block.sum(axis=0)).ravel()
    chance = g.find(["k", "k"])
    total = sum(node_values(g, sigma, c, 0) for c in g.children(chance))
    np.testing.assert_allclose(total, node_values(g, sigma, chance, 0), atol=1e-15)


@pytest.mark.parametrize("rule", ["cfr+", "apcfr+", "dcfr"])
def test_suit_isomorphism_solves_the_same_game(rule: str) -> None:
    """Leduc with the hearts boards mirrored from the spades ones and Leduc built in full
    give the same exploitability, values and strategies, iteration after iteration."""
    from solver import Engine, make_rule
    from solver.games.toy import leduc

    full = leduc(isomorphism=False)
    iso = game("leduc")
    a, b = Engine(full, make_rule(rule)), Engine(iso, make_rule(rule))
    for _ in range(4):
        a.iterate(25)
        b.iterate(25)
        assert sum(a.best_response_values()) == pytest.approx(
            sum(b.best_response_values()), abs=1e-12
        )
    sa, sb = a.average_strategy(), b.average_strategy()
    for n in full.decision_nodes():
        hist = full.history(int(n))
        node, cmap = iso.locate(hist)
        offa, na, nh = full.block(int(n))
        offb, _, _ = iso.block(node)
        p = int(full.tree.player[n])
        for h in np.flatnonzero(full.valid_hands(int(n), p)):
            hb = iso.map_hand(p, int(h), cmap)
            np.testing.assert_allclose(
                sa[offa + np.arange(na) * nh + h], sb[offb + np.arange(na) * nh + hb], atol=1e-12
            )


@pytest.mark.parametrize("rule", ["cfr+", "dcfr"])
def test_derived_strategy_equals_stored_strategy(rule: str) -> None:
    """Rules whose strategy is plain RM(R) do not store it; forcing storage changes nothing
    but rounding (the walk mixes the traverser's action values by RM(R) in one pass, and the
    opponent's strategy divides once per hand, where the stored strategy is divided per
    cell first)."""
    from solver import Engine, make_rule
    from solver.cfr.rules import DERIVE

    g = game("leduc")
    derived = Engine(g, make_rule(rule))
    assert derived.storage.strategy.size == 1
    stored = Engine(g, make_rule(rule))
    from solver.cfr.layout import uniform_strategy

    stored.storage = stored.storage._replace(strategy=uniform_strategy(g))
    real = stored.rule.coefficients

    def no_derive(t: np.ndarray) -> np.ndarray:
        c = real(t)
        c[:, DERIVE] = 0
        return c

    object.__setattr__(stored.rule, "coefficients", no_derive)
    derived.iterate(30)
    stored.iterate(30)
    for a, b in (
        (derived.storage.regrets, stored.storage.regrets),
        (derived.current_strategy(), stored.current_strategy()),
        (derived.average_strategy(), stored.average_strategy()),
    ):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
    assert not np.allclose(derived.storage.regrets, 0.0)
