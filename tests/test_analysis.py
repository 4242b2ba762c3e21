"""Per-node analysis: EVs agree with the engine's expected values and with the actor's
children, equities match brute-force enumeration, the grid and frequencies add up."""

from __future__ import annotations

import functools
import itertools
from dataclasses import replace

import numpy as np
import pytest
from conftest import game

from solver import Engine, Game, expected_values, make_rule
from solver.files.presets import load_preset
from solver.games.model import DECISION
from solver.poker.handeval import rank_hands
from solver.study.analysis import (
    PlayerView,
    action_frequencies,
    analyze,
    compatible,
    final_boards,
    grid_mix,
    investments,
)
from solver.study.groups import cell_eqr
from solver.study.views import range_summary


@functools.cache
def river() -> Game:
    return load_preset("srp-river").build()


@functools.cache
def solved(name: str, iterations: int) -> tuple[Game, np.ndarray]:
    g = river() if name == "river" else game(name)
    e = Engine(g, make_rule("dcfr"))
    e.iterate(iterations)
    return g, e.average_strategy()


@pytest.mark.parametrize(("name", "iters"), [("kuhn", 200), ("leduc", 100), ("river", 60)])
def test_root_ev_weighted_by_reach_is_the_game_ev(name: str, iters: int) -> None:
    g, sigma = solved(name, iters)
    a = analyze(g, sigma, 0)
    ev = expected_values(g, sigma)
    for p in range(2):
        v = a.players[p]
        w = v.reach * v.opponent_mass
        assert np.nansum(w * v.ev) / w.sum() == pytest.approx(ev[p] + g.ev_offset, abs=1e-9)


@pytest.mark.parametrize(("name", "iters"), [("leduc", 100), ("river", 60)])
def test_actor_ev_is_strategy_weighted_child_ev(name: str, iters: int) -> None:
    g, sigma = solved(name, iters)
    compat = compatible(g)
    for node in g.decision_nodes()[:6]:
        a = analyze(g, sigma, int(node), compat=compat, with_equity=False)
        p = a.player
        assert a.strategy is not None
        child_ev = np.array(
            [
                analyze(g, sigma, c, compat=compat, with_equity=False).players[p].ev
                for c in g.children(int(node))
            ]
        )
        ok = a.players[p].opponent_mass > 0
        mixed = (a.strategy * np.nan_to_num(child_ev)).sum(axis=0)
        np.testing.assert_allclose(mixed[ok], a.players[p].ev[ok], atol=1e-9)


def test_kuhn_root_equity_and_no_eqr() -> None:
    g, sigma = solved("kuhn", 10)
    a = analyze(g, sigma, 0)
    for p in range(2):
        eq = dict(zip(a.players[p].hand_names, a.players[p].equity, strict=True))
        assert eq == pytest.approx({"J": 0.0, "Q": 0.5, "K": 1.0})
        assert np.all(np.isnan(a.players[p].eqr))
    assert a.pot is None


def test_leduc_root_equity_by_brute_force() -> None:
    g, sigma = solved("leduc", 10)
    a = analyze(g, sigma, 0)
    ranks = [c // 2 for c in range(6)]  # J J Q Q K K

    def strength(hand: int, board: int) -> int:
        return 100 + ranks[hand] if ranks[hand] == ranks[board] else ranks[hand]

    for h in range(6):
        num = den = 0.0
        for o, b in itertools.permutations([c for c in range(6) if c != h], 2):
            s, t = strength(h, b), strength(o, b)
            num += 1.0 if s > t else (0.5 if s == t else 0.0)
            den += 1.0
        assert a.players[0].equity[h] == pytest.approx(num / den)
        assert a.players[1].equity[h] == pytest.approx(num / den)
    boards = final_boards(g, 0)
    assert boards is not None and len(boards) == 6


def test_river_equity_by_brute_force_and_eqr() -> None:
    g, sigma = solved("river", 60)
    a = analyze(g, sigma, 0)
    board = list(g.meta["board"])  # type: ignore[call-overload]
    cards = [g.hands.cards[p, : g.num_hands[p]] for p in range(2)]
    strength = [rank_hands(board, cards[p]) for p in range(2)]
    rng = np.random.default_rng(0)
    for p in range(2):
        v = a.players[p]
        opp = a.players[1 - p]
        for h in rng.choice(g.num_hands[p], size=5, replace=False):
            num = den = 0.0
            for o in range(g.num_hands[1 - p]):
                if set(cards[p][h]) & set(cards[1 - p][o]):
                    continue
                s, t = strength[p][h], strength[1 - p][o]
                num += opp.reach[o] * (1.0 if s > t else (0.5 if s == t else 0.0))
                den += opp.reach[o]
            assert v.equity[h] == pytest.approx(num / den)
        # EQR at the root: EV / (equity × pot), nothing invested yet
        ok = v.equity > 0
        np.testing.assert_allclose(v.eqr[ok], v.ev[ok] / (v.equity[ok] * 200.0))
    assert a.pot == 200.0


def test_investments_follow_the_labels() -> None:
    g = river()
    node = g.find(("b:100",))
    assert investments(g, node) == (300.0, 100.0, 0.0)
    node = g.find(("b:100", "c"))
    assert investments(g, node) == (400.0, 100.0, 100.0)
    with pytest.raises(ValueError):
        investments(game("kuhn"), 0)


def test_grid_mix_and_frequencies_add_up() -> None:
    g, sigma = solved("river", 60)
    a = analyze(g, sigma, 0, with_equity=False)
    assert a.strategy is not None and a.frequencies is not None
    assert a.frequencies.sum() == pytest.approx(1.0)
    reach = a.players[0].reach
    mix, weight = grid_mix(g, 0, a.strategy, reach)
    assert weight.sum() == pytest.approx(reach.sum())
    reached = weight > 0
    np.testing.assert_allclose(mix[reached].sum(axis=-1), 1.0)
    assert np.all(np.isnan(mix[~reached]))
    # the grid's reach-weighted mixes give back the aggregate frequencies
    agg = (mix[reached] * weight[reached][:, None]).sum(axis=0) / weight.sum()
    np.testing.assert_allclose(agg, a.frequencies)
    assert action_frequencies(a.strategy, np.zeros_like(reach)) == pytest.approx(
        np.full(a.strategy.shape[0], 1.0 / a.strategy.shape[0])
    )


def test_non_decision_nodes() -> None:
    g, sigma = solved("leduc", 50)
    chance = int(np.flatnonzero(g.tree.kind == 1)[0])
    a = analyze(g, sigma, chance)
    assert a.player == -1 and a.strategy is None and a.actions == []
    assert g.tree.kind[g.children(chance)[0]] == DECISION


def test_turn_equity_over_every_river_matches_brute_force() -> None:
    """Suit isomorphism deals one card per class; equity must still count all 48 rivers."""
    g = load_preset("srp-turn").build()
    sigma = Engine(g, make_rule("dcfr")).average_strategy()  # uniform: reach = range
    a = analyze(g, sigma, 0)
    board = list(g.meta["board"])  # type: ignore[call-overload]
    cards = [g.hands.cards[p, : g.num_hands[p]].astype(np.int64) for p in range(2)]
    w1 = g.hands.weights[1, : g.num_hands[1]]
    num = np.zeros(g.num_hands[0])
    den = np.zeros(g.num_hands[0])
    clash = (cards[0][:, None, :, None] == cards[1][None, :, None, :]).any(axis=(2, 3))
    for river in sorted(set(range(52)) - set(board)):
        s0 = rank_hands([*board, river], cards[0])
        s1 = rank_hands([*board, river], cards[1])
        ok = ~clash & (s0[:, None] >= 0) & (s1[None, :] >= 0)
        share = (s0[:, None] > s1[None, :]) + 0.5 * (s0[:, None] == s1[None, :])
        num += (share * ok) @ w1
        den += ok @ w1
    np.testing.assert_allclose(a.players[0].equity, num / den, rtol=1e-12)


def test_range_eqr_is_the_range_ev_over_its_equity_share() -> None:
    """After a bet and a call the range's EQR is (mean EV + chips invested) / (mean equity ×
    pot), the means weighted by own reach × compatible opponent reach."""
    g, sigma = solved("river", 60)
    node = next(
        n for n in range(g.tree.kind.shape[0])
        if g.tree.kind[n] == DECISION and investments(g, n)[1] > 0 and investments(g, n)[2] > 0
    )  # fmt: skip
    pot, *inv = investments(g, node)
    a = analyze(g, sigma, node)
    for p in range(2):
        v = a.players[p]
        w = v.reach * v.opponent_mass
        ok = (w > 0) & np.isfinite(v.ev) & np.isfinite(v.equity)
        ev = float((w[ok] * v.ev[ok]).sum() / w[ok].sum())
        eq = float((w[ok] * v.equity[ok]).sum() / w[ok].sum())
        assert range_summary(v).eqr == pytest.approx((ev + inv[p]) / (eq * pot), rel=1e-12)


def test_a_sliver_of_equity_does_not_swamp_a_range_or_cell_eqr() -> None:
    """Two hands in one cell: one with half the equity and EV 50 of a 100 pot (EQR 1), one
    with 1e-13 equity and EV 0.001 (EQR 1e8 on its own). The pair's EQR is their EV share
    over their equity share, ~1, not the mean of the two ratios (~5e7)."""
    equity = np.array([0.5, 1e-13])
    ev = np.array([50.0, 0.001])
    eqr = ev / (equity * 100.0)
    v = PlayerView(0, ["AsAh", "2c3d"], np.array([True, True]), np.ones(2), np.ones(2), ev,
                   equity, eqr, 100.0, 0.0)  # fmt: skip
    want = (25.0005) / ((0.5 + 1e-13) / 2 * 100.0)
    assert range_summary(v).eqr == pytest.approx(want, rel=1e-12)
    assert cell_eqr(v, np.array([0, 0]), 1)[0] == pytest.approx(want, rel=1e-12)
    invested = replace(v, invested=20.0)  # chips put in count with the EV
    assert range_summary(invested).eqr == pytest.approx(want + 20.0 / 25.0, rel=1e-9)
