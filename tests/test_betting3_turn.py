"""The three-way turn's two-street tree (solver/tree/betting3_turn.py, issue 49): the turn is
the one-street tree, every round closing with chips behind becomes a chance node of the river
cards with the river's round below each card (pot carried, a folded player out), all in goes
straight to showdowns; lines and chips hand-counted on small spots."""

from __future__ import annotations

import numpy as np
import pytest

from solver.tree.betting import PlayerSizes, TreeTooLarge
from solver.tree.betting3 import Betting3Config, build_betting3
from solver.tree.betting3_turn import CARDS_LEFT, Turn3Plan, Turn3Tree, build_turn3_tree, plan_turn3
from solver.tree.kinds import CHANCE, DECISION, FIXED, SHOWDOWN
from solver.tree.sizes import parse_sizes

CARDS = 48


def sizes(bets: str, raises: str) -> PlayerSizes:
    return PlayerSizes(parse_sizes(bets, raise_sizes=False), parse_sizes(raises, raise_sizes=True))


def turn_tree(
    bets: str, raises: str, river: tuple[str, str] | None = None, stack: int = 200
) -> tuple[Betting3Config, Turn3Plan, Turn3Tree]:
    ps = sizes(bets, raises)
    rs = sizes(*river) if river else ps
    cfg = Betting3Config(60, stack, (ps, ps, ps), 10.0, 1)
    plan = plan_turn3(cfg, (rs, rs, rs), CARDS)
    names = [f"d:{c}" for c in range(CARDS)]
    return cfg, plan, build_turn3_tree(plan, np.arange(CARDS), names)


def lines(tree: Turn3Tree) -> dict[tuple[str, ...], int]:
    return {tree.history(n): n for n in range(tree.num_nodes)}


def test_breadth_first_and_counted() -> None:
    _cfg, plan, t = turn_tree("50%, a", "a")
    assert t.num_nodes == plan.num_nodes
    assert np.all(np.diff(t.depth) >= 0)
    for n in range(1, t.num_nodes):
        p = int(t.parent[n])
        assert p < n and n in t.children(p) and t.depth[n] == t.depth[p] + 1
    kids = np.flatnonzero(t.kind[t.parent[1:]] == CHANCE) + 1
    assert np.all(t.chance_weight[kids] == 1.0 / CARDS_LEFT) and CARDS_LEFT == 42
    others = np.setdiff1d(np.arange(t.num_nodes), kids)
    assert np.all(t.chance_weight[others] == 1.0)
    assert np.all(t.board[others[t.kind[others] != CHANCE]] >= 0)


def test_the_turn_round_then_a_card_then_the_river_round() -> None:
    cfg, _plan, t = turn_tree("50%, a", "a")
    one = build_betting3(cfg)  # the turn alone
    at = lines(t)
    for n in range(one.num_nodes):
        m = at[one.history(n)]
        assert int(t.board[m]) == 0
        np.testing.assert_array_equal(t.contrib[m], one.contrib[n])
        if one.kind[n] == SHOWDOWN:  # the round closed: the river is dealt
            assert t.kind[m] == CHANCE and t.num_children[m] == CARDS
            for k, c in enumerate(t.children(m)):
                assert t.labels[c] == f"d:{k}" and t.board[c] == k + 1
                np.testing.assert_array_equal(t.contrib[c], t.contrib[m])
                np.testing.assert_array_equal(t.active[c], t.active[m])
        else:
            assert t.kind[m] == one.kind[n] and t.player[m] == one.player[n]
    # below a river card every node keeps the card's board, and a player out stays out
    for n in np.flatnonzero(t.board > 0).tolist():
        p = int(t.parent[n])
        assert t.kind[p] == CHANCE or t.board[p] == t.board[n]
        assert np.all(t.active[n] <= t.active[p])
        if t.kind[n] == DECISION:
            assert t.active[n, t.player[n]]


def test_a_fold_on_the_turn_leaves_a_two_player_river() -> None:
    """Pot 60 (20 from each), stack 200, bets 50%: 0 bets 30, 1 folds, 2 calls — a pot of
    120 with 50 from 0 and 2, 20 from 1; on the river 0 acts first, 2 last, 50% is 60."""
    _cfg, _plan, t = turn_tree("50%", "a")
    at = lines(t)
    card = "d:7"
    root = at[("b:30", "f", "c", card)]
    assert t.kind[root] == DECISION and t.player[root] == 0
    assert [t.labels[c] for c in t.children(root)] == ["k", "b:60"]
    check = at[("b:30", "f", "c", card, "k")]
    assert t.player[check] == 2  # player 1 folded on the turn: never acts
    done = at[("b:30", "f", "c", card, "k", "k")]
    assert t.kind[done] == SHOWDOWN
    np.testing.assert_array_equal(t.contrib[done], [50, 20, 50])
    np.testing.assert_array_equal(t.active[done], [True, False, True])
    called = at[("b:30", "f", "c", card, "k", "b:60", "c")]
    assert t.kind[called] == SHOWDOWN
    np.testing.assert_array_equal(t.contrib[called], [110, 20, 110])
    folded = at[("b:30", "f", "c", card, "k", "b:60", "f")]
    assert t.kind[folded] == FIXED
    np.testing.assert_array_equal(t.active[folded], [False, False, True])
    # all in on the turn: the river card goes straight to a showdown
    allin = at[("b:30", "f", "r:200", "c")]
    assert t.kind[allin] == CHANCE
    assert all(t.kind[c] == SHOWDOWN for c in t.children(allin))
    np.testing.assert_array_equal(t.contrib[next(iter(t.children(allin)))], [220, 20, 220])


def test_river_sizes_are_the_rivers() -> None:
    _cfg, _plan, t = turn_tree("50%", "a", river=("100%", "a"))
    at = lines(t)
    root = at[("k", "k", "k", "d:0")]
    assert [t.labels[c] for c in t.children(root)] == ["k", "b:60"]  # 100% of 60
    assert [t.labels[c] for c in t.children(at[("b:30", "c", "c", "d:0")])] == ["k", "b:150"]


def test_the_node_limit_counts_every_river() -> None:
    ps = sizes("33%, 66%, 100%, a", "50%, 100%, a")
    cfg = Betting3Config(60, 2000, (ps, ps, ps), 10.0, 3)
    with pytest.raises(TreeTooLarge, match="three-player turn tree"):
        plan_turn3(cfg, (ps, ps, ps), CARDS, max_nodes=100_000)
