"""Study views (solver.study.views): EV per action, range summaries, distributions, hands by
strength, action names, runout reports — each against an independent computation."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import game

from solver import Engine, make_rule
from solver.cfr.bestresponse import expected_values
from solver.games import Game
from solver.games.holdem import HoldemSpec, build_holdem
from solver.poker.handeval import rank_hands
from solver.study.analysis import analyze
from solver.study.views import (
    action_evs,
    action_names,
    distribution,
    runout_report,
    strength_order,
    summaries,
)


def _river() -> Game:
    spec = HoldemSpec(board="Td9d6hQc2s", pot=100, stack=200, oop_range="AA,KK,T9s,87s,A5s",
                      ip_range="JJ,AK,KQs,QJs", bets="50%, a", raises="a")  # fmt: skip
    return build_holdem(spec)


def _solved(g: Game, n: int = 200) -> np.ndarray:
    e = Engine(g, make_rule("dcfr"))
    e.iterate(n)
    return e.average_strategy()


@pytest.mark.parametrize("which", ["kuhn", "leduc", "river"])
def test_ev_of_an_action_is_the_ev_of_playing_it_for_sure(which: str) -> None:
    """For each action: change the strategy so every hand at the node takes it, and the
    analysis' EV per hand there (a separate evaluation) equals that action's EV; mixing the
    action EVs by the strategy gives the node's EV."""
    g = _river() if which == "river" else game(which)
    sigma = _solved(g)
    for node in [int(n) for n in g.decision_nodes()[:6]]:
        evs = action_evs(g, sigma, node)
        off, na, nh = g.block(node)
        base = analyze(g, sigma, node, with_equity=False).actor
        assert base is not None
        ok = np.isfinite(base.ev)
        mixed = (sigma[off : off + na * nh].reshape(na, nh) * evs).sum(axis=0)
        np.testing.assert_allclose(mixed[ok], base.ev[ok], rtol=1e-9, atol=1e-9)
        for a in range(na):
            pure = sigma.copy()
            block = np.zeros((na, nh))
            block[a] = 1.0
            pure[off : off + na * nh] = block.reshape(-1)
            view = analyze(g, pure, node, with_equity=False).actor
            assert view is not None
            np.testing.assert_allclose(evs[a][ok], view.ev[ok], rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize("which", ["leduc", "river"])
def test_root_range_evs_are_the_expected_values(which: str) -> None:
    g = _river() if which == "river" else game(which)
    sigma = _solved(g)
    s0, s1 = summaries(analyze(g, sigma, 0, with_equity=which == "river"))
    ev = expected_values(g, sigma)
    assert s0.ev == pytest.approx(ev[0] + g.ev_offset, abs=1e-9)
    assert s1.ev == pytest.approx(ev[1] + g.ev_offset, abs=1e-9)
    if which == "river":
        assert s0.ev + s1.ev == pytest.approx(100.0)  # the pot
        assert s0.combos == pytest.approx(float(g.hands.weights[0, : g.num_hands[0]].sum()))


def test_river_range_equity_by_brute_force() -> None:
    g = _river()
    sigma = _solved(g)
    a = analyze(g, sigma, 0)
    s0, s1 = summaries(a)
    board = np.array(g.meta["board"], dtype=np.int64)
    c0 = g.hands.cards[0, : g.num_hands[0]].astype(np.int64)
    c1 = g.hands.cards[1, : g.num_hands[1]].astype(np.int64)
    r0, r1 = rank_hands(board, c0), rank_hands(board, c1)
    w0 = g.hands.weights[0, : g.num_hands[0]]
    w1 = g.hands.weights[1, : g.num_hands[1]]
    num = den = 0.0
    for i in range(len(c0)):
        for j in range(len(c1)):
            if set(c0[i]) & set(c1[j]) or r0[i] < 0 or r1[j] < 0:
                continue
            w = w0[i] * w1[j]
            num += w * (1.0 if r0[i] > r1[j] else 0.5 if r0[i] == r1[j] else 0.0)
            den += w
    assert s0.equity == pytest.approx(num / den, abs=1e-12)
    assert s0.equity + s1.equity == pytest.approx(1.0, abs=1e-12)


def test_distribution_sorts_best_first_over_the_range_share() -> None:
    values = np.array([0.2, np.nan, 0.9, 0.5, 0.7])
    weights = np.array([1.0, 5.0, 2.0, 0.0, 1.0])
    share, v = distribution(values, weights)
    np.testing.assert_allclose(v, [0.9, 0.7, 0.2])
    np.testing.assert_allclose(share, [50.0, 75.0, 100.0])


def test_strength_order_on_a_river_follows_the_evaluator() -> None:
    g = _river()
    order = strength_order(g, 0, 0)
    board = np.array(g.meta["board"], dtype=np.int64)
    ranks = rank_hands(board, g.hands.cards[0, : g.num_hands[0]].astype(np.int64))
    valid = g.valid_hands(0, 0)
    shown = [int(h) for h in order if valid[h]]
    assert all(ranks[a] >= ranks[b] for a, b in itertools.pairwise(shown))
    assert all(not valid[h] for h in order[len(shown) :])
    leduc = game("leduc")
    node = leduc.find(("k", "k", "d:Ks"))
    names = [leduc.hand_names[0][h] for h in strength_order(leduc, node, 0)]
    assert names[0] == "Ks" or names[0] == "Kh"  # the pair with the board first


def test_all_in_actions_are_named_all_in() -> None:
    g = build_holdem(HoldemSpec(board="Td9d6hQc", pot=200, stack=900, oop_range="AA,KK",
                                ip_range="QQ,JJ", bets="50%, a", raises="a"))  # fmt: skip
    assert g.action_labels(0) == ["k", "b:100", "b:900"]
    assert action_names(g, 0) == ["k", "b:100", "All-in"]
    node = g.find(("b:100",))
    assert action_names(g, node) == ["f", "c", "All-in"]
    river = g.find(("b:100", "c", "d:2s"))  # 100 in on the turn: 800 behind
    labels = g.action_labels(river)
    assert labels[-1] == "b:800" and action_names(g, river)[-1] == "All-in"
    assert action_names(game("leduc"), 0) == game("leduc").action_labels(0)


def test_runout_report_lists_every_card_with_its_nodes_numbers() -> None:
    g = build_holdem(HoldemSpec(board="Td9d6dQd", pot=100, stack=200, oop_range="AA,KK,T9s,87s",
                                ip_range="JJ,TT,AK,65s", bets="50%, a", raises="a"))  # fmt: skip
    assert g.has_isomorphism  # three suits off a monotone board are interchangeable
    sigma = _solved(g, 100)
    chance = g.find(("k", "k"))
    rows = runout_report(g, sigma, chance)
    board = {"Td", "9d", "6d", "Qd"}
    assert sorted(r.card for r in rows) == sorted(
        f"{r}{s}" for r in "23456789TJQKA" for s in "shdc" if f"{r}{s}" not in board
    )
    by_node: dict[int, list] = {}
    for r in rows:
        by_node.setdefault(r.node, []).append(r)
        a = analyze(g, sigma, r.node)
        assert r.player == a.player
        np.testing.assert_allclose(r.mix, a.frequencies)  # type: ignore[arg-type]
        assert r.summaries == summaries(a)
    assert any(len(v) > 1 for v in by_node.values())  # suit-isomorphic cards share a node
    with pytest.raises(ValueError, match="not a chance node"):
        runout_report(g, sigma, 0)
