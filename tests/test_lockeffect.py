"""What a lock changes (solver.study.lock_effect) and hands by group (solver.study.groups): the
re-solve engine solves the locked game warm and fresh, frequency shifts against a naive
reach walk, group EVs against the per-hand numbers and the range summary."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import full_game, game, locked_engine

from solver import Engine, make_rule
from solver.api import solve
from solver.cfr.options import SolveOptions
from solver.games import Game
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import DECISION
from solver.lockspec import LockError
from solver.poker.handclass import MADE, classify
from solver.study.analysis import analyze, cell_of_hands
from solver.study.groups import cell_means, class_groups, group_ev, group_mean, hand_groups
from solver.study.lock_effect import ev_changes, frequency_shifts, locked_nodes, relock
from solver.study.views import board_cards, range_summary

KUHN_EXPLOIT = {"k": {"k": 1.0}, "b:1": {"f": 1.0}}  # player 1 checks behind, folds to bets


def _river() -> Game:
    spec = HoldemSpec(board="Td9d6hQc2s", pot=100, stack=200, oop_range="AA,KK,T9s,87s,A5s,QJ",
                      ip_range="JJ,AK,KQs,QJs,99", bets="50%, a", raises="a")  # fmt: skip
    return build_holdem(spec)


@pytest.mark.parametrize("warm", [True, False])
def test_relock_solves_the_locked_game(warm: bool) -> None:
    first = solve("kuhn", "cfr+", iterations=200)
    engine = relock(first.engine, KUHN_EXPLOIT, warm=warm)
    assert engine.rule == first.engine.rule and engine.iteration == 0
    engine.iterate(400)
    sigma = engine.average_strategy()
    s0, _ = (range_summary(v) for v in analyze(first.game, sigma, 0, with_equity=False).players)
    assert s0.ev == pytest.approx(1.0, abs=0.02)  # player 0 bets every card: +1 chip
    br = engine.best_response_values()
    assert 0.5 * (br[0] + br[1]) < 0.02  # the locked game's exploitability goes to 0


def test_relock_names_a_bad_line_and_refuses_rbp() -> None:
    first = solve("kuhn", "cfr", iterations=10)
    with pytest.raises(LockError, match="lock 'x'"):
        relock(first.engine, {"x": {"k": 1.0}})
    with pytest.raises(LockError, match=r"sum to 0\.5"):
        relock(first.engine, {"k": {"k": 0.5}}, warm=False)
    rbp = Engine(game("kuhn"), make_rule("cfr"), options=SolveOptions(pruning="interval"))
    with pytest.raises(ValueError, match="pruning"):
        relock(rbp, KUHN_EXPLOIT)


def _naive_reach(g: Game, sigma: np.ndarray, node: int, player: int) -> np.ndarray:
    """Own reach by walking the line's labels from the root (toy games: no card blocks)."""
    reach = np.ones(g.num_hands[player])
    n = 0
    for label in g.history(node):
        child = next(c for c in g.children(n) if g.labels[c] == label)
        if g.tree.kind[n] == DECISION and int(g.tree.player[n]) == player:
            off, na, nh = g.block(n)
            a = list(g.children(n)).index(child)
            reach = reach * np.asarray(sigma[off : off + na * nh]).reshape(na, nh)[a]
        n = child
    return reach


def test_frequency_shifts_against_a_naive_reach_walk() -> None:
    g = game("kuhn")
    assert int(g.tree.kind[0]) == DECISION
    before = solve(g, "cfr+", iterations=300).average_strategy()
    e = locked_engine(g, "cfr+", KUHN_EXPLOIT)
    e.iterate(1000)
    after = e.average_strategy()
    locked = set(locked_nodes(g, KUHN_EXPLOIT))
    assert locked == {g.find(("k",)), g.find(("b:1",))}
    shifts = frequency_shifts(g, before, after, locked=locked, limit=None)
    assert len(shifts) == len(g.decision_nodes())
    weighted = [s.weighted for s in shifts]
    assert weighted == sorted(weighted, reverse=True)
    for s in shifts:
        off, na, nh = g.block(s.node)
        for sigma, freqs, reach in ((before, s.before, s.reach_before),
                                    (after, s.after, s.reach_after)):  # fmt: skip
            r = _naive_reach(g, sigma, s.node, s.player)
            table = np.asarray(sigma[off : off + na * nh]).reshape(na, nh)
            np.testing.assert_allclose(freqs, table @ r / r.sum(), atol=1e-12)
            # the chance a deal reaches the line: every deal of Kuhn's 6 (two different
            # cards) times both players' own reach, walked naively
            r0, r1 = (_naive_reach(g, sigma, s.node, p) for p in (0, 1))
            deals = sum(r0[i] * r1[j] for i in range(3) for j in range(3) if i != j) / 6
            assert reach == pytest.approx(deals, abs=1e-12)
        assert s.change * max(s.reach_before, s.reach_after) == pytest.approx(s.weighted)
        assert s.locked == (s.node in locked)
    assert next(s for s in shifts if s.node == 0).reach_before == pytest.approx(1.0)
    root = next(s for s in shifts if s.node == 0)
    # J and Q bet into the folder (K wins a chip either way: any mix)
    assert root.after[root.actions.index("b:1")] >= 2 / 3 - 1e-6
    assert len(frequency_shifts(g, before, after, limit=2)) == 2


def test_group_evs_add_up_to_the_range_and_match_each_hand() -> None:
    g = _river()
    e = Engine(g, make_rule("dcfr"))
    e.iterate(100)
    sigma = e.average_strategy()
    for node in (0, int(g.decision_nodes()[1])):
        a = analyze(g, sigma, node)
        for p in range(2):
            v = a.players[p]
            for grp in hand_groups(g, node, p):
                combos, ev = group_ev(v, grp.mask)
                h = int(np.flatnonzero(grp.mask)[0])
                assert combos == pytest.approx(float(v.reach[h]))
                if v.reach[h] > 0:
                    assert ev == pytest.approx(float(v.ev[h]))
            made = [c for c in class_groups(g, node, p) if c.key in MADE]
            # made classes partition the hands: their weighted EVs make the range's EV
            w = v.reach * v.opponent_mass
            weights = [float(w[c.mask & np.isfinite(v.ev)].sum()) for c in made]
            total = sum(
                wt * group_ev(v, c.mask)[1] for wt, c in zip(weights, made, strict=True) if wt > 0
            )
            assert total / sum(weights) == pytest.approx(range_summary(v).ev, rel=1e-9)
            # each class by classifying every hand one by one
            board = board_cards(g, node)
            for c in made:
                for k in np.flatnonzero(c.mask):
                    assert classify(tuple(int(x) for x in g.hands.cards[p, k]), board).made == c.key
            # grid cells all at once = one cell at a time
            cells = cell_of_hands(g, p)
            means = cell_means(v, v.equity, cells)
            for cell in np.unique(cells):
                np.testing.assert_allclose(
                    means[cell], group_mean(v, v.equity, cells == cell), equal_nan=True
                )


def test_ev_changes_pair_the_groups() -> None:
    g = game("kuhn")
    before = solve(g, "cfr+", iterations=200).average_strategy()
    e = locked_engine(g, "cfr+", KUHN_EXPLOIT)
    e.iterate(300)
    b = analyze(g, before, 0, with_equity=False).players[0]
    a = analyze(g, e.average_strategy(), 0, with_equity=False).players[0]
    rows = ev_changes(hand_groups(g, 0, 0), b, a)
    assert [r.key for r in rows] == g.hand_names[0]
    for r, h in zip(rows, range(3), strict=True):
        assert r.ev_before == pytest.approx(b.ev[h]) and r.ev_after == pytest.approx(a.ev[h])
        assert r.change == pytest.approx(a.ev[h] - b.ev[h])
    assert all(r.ev_after == pytest.approx(1.0, abs=0.05) for r in rows)  # +1 with every card


def test_the_chance_of_reaching_a_line_adds_up_over_its_children() -> None:
    """On a hold'em river and on Leduc (chance nodes: the turn card): a decision node's
    reach is the sum of its children's that are decisions or terminals under the same
    strategy, and a chance node's the sum over its cards."""
    from solver.cfr.reach import path_reach
    from solver.study.analysis import compatible
    from solver.study.lock_effect import _deal_reach

    for g in (_river(), game("leduc"), full_game("leduc")):  # (suit isomorphism or not)
        sigma = solve(g, "cfr+", iterations=30).average_strategy()
        pairs = compatible(g)
        mult = g.multiplicity
        reach = [
            _deal_reach(g, pairs, n, path_reach(g, sigma, n), int(mult[n]))
            for n in range(g.num_nodes)
        ]
        assert reach[0] == pytest.approx(1.0)
        for node in range(g.num_nodes):
            kids = list(g.children(node))
            if kids:
                assert sum(reach[c] for c in kids) == pytest.approx(reach[node], abs=1e-9)
