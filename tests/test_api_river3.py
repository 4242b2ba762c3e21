"""``solve(River3Spec(...))`` — the Python API on a three-way hold'em river spot (issue 49,
docs/multiway.md): the same MultiSolveResult as kuhn3, its Nash distances the CLI's and the
independent evaluator's on the deal-list build of the spot (hands mapped by combo), its
strategies keyed by combo; bad fields and heads-up-only arguments refused by name."""

from __future__ import annotations

import dataclasses
import json

import numpy as np
import pytest
from cli_helpers import run
from multiway_helpers import combos, deal_list_profile

from solver.api import solve
from solver.cfr.multi_solve import MultiSolveResult
from solver.cfr.river3_view import River3Game, line_words
from solver.games.holdem3 import River3Spec, river3_multigame
from solver.games.nashconv import nash_report
from solver.games.spec import SpecError

BOARD = "Ks 7d 2c 9h 3s"
RANGES = ("AA, KK, AK", "QQ, JJ, AQs", "TT, 99, KQs")
SPEC = River3Spec(BOARD, *RANGES, pot=60, stack=200, bets="50%", raises="a", raise_cap=1)


def test_distances_are_the_evaluators_on_the_deal_list() -> None:
    r = solve(SPEC, "cfr+", iterations=40, check_every=20)
    assert isinstance(r, MultiSolveResult) and isinstance(r.game, River3Game)
    assert [c.iteration for c in r.history] == [0, 20, 40]
    assert r.exploitability is None and r.pot == 60.0
    mg = river3_multigame(SPEC)
    ref = nash_report(mg, deal_list_profile(mg, r.game.offset, combos(r.game), r.average_profile()))
    np.testing.assert_allclose(r.nash_distance, ref.nash_distance, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.ev, ref.value, rtol=0, atol=1e-9)
    assert r.nash_conv == pytest.approx(float(ref.nash_conv), abs=1e-9)
    np.testing.assert_allclose(r.nash_distance_pct_pot, 100 * np.array(r.nash_distance) / 60,
                               rtol=1e-15)  # fmt: skip
    assert max(r.nash_distance) > 0  # (40 iterations: not an equilibrium yet)


def test_a_dict_of_fields_solves_as_the_cli_does() -> None:
    fields = dataclasses.asdict(SPEC)
    r = solve(fields, "dcfr", iterations=30, check_every=10)
    out = run("solve", "--players", "3", "--board", BOARD, "--pot", "60", "--stack", "200",
              "--range-0", RANGES[0], "--range-1", RANGES[1], "--range-2", RANGES[2],
              "--bets", "50%", "--raises", "a", "--raise-cap", "1", "--algorithm", "dcfr",
              "--iterations", "30", "--every", "10", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    final = json.loads(out.stdout.splitlines()[-1])
    np.testing.assert_allclose(r.nash_distance, final["nash_distance"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.nash_distance_pct_pot, final["nash_distance_pct_pot"],
                               rtol=1e-12)  # fmt: skip
    np.testing.assert_allclose(r.ev, final["ev"], rtol=0, atol=1e-12)


def test_strategies_per_player_keyed_by_line_and_combo() -> None:
    r = solve(SPEC, "cfr+", iterations=20)
    g = r.game
    assert isinstance(g, River3Game)
    strategies = r.strategies()
    assert len(strategies) == 3
    sigma = r.average_profile()
    for p in range(3):
        lines = {" ".join(g.history(int(n))) for n in g.decision_nodes() if g.player[n] == p}
        assert set(strategies[p]) == lines
        for line, table in strategies[p].items():
            node = r.node(line)
            assert list(table) == g.hand_names(p)  # every combo of its range, "AhKd"
            blk = g.block(sigma, node)
            for k, (hand, mix) in enumerate(table.items()):
                assert len(hand) == 4 and hand in g.hand_names(p)
                assert list(mix) == [g.labels[c] for c in g.children(node)]
                np.testing.assert_allclose(list(mix.values()), blk[:, k], rtol=0, atol=0)
                assert sum(mix.values()) == pytest.approx(1.0, abs=1e-12)
    assert "AsAh" in strategies[0][""] or "AhAs" in strategies[0][""]
    # the root's line in words, and a line further down
    assert line_words(g, 0) == "start"
    node = r.node("k b:30")
    assert line_words(g, node) == "P1 checks, P2 bets 30 (50 %)"


def test_the_reach_per_player_follows_the_line() -> None:
    r = solve(SPEC, "cfr+", iterations=20)
    g = r.game
    assert isinstance(g, River3Game)
    sigma = r.average_profile()
    node = r.node("k b:30")
    reach = g.reach(sigma, node)
    np.testing.assert_allclose(reach[0], g.block(sigma, 0)[0], rtol=0, atol=0)  # P1 checked
    np.testing.assert_allclose(reach[1], g.block(sigma, r.node("k"))[1], rtol=0, atol=0)
    np.testing.assert_allclose(reach[2], 1.0)  # P3 has not acted
    share = g.reach_share(sigma, node)
    w0 = g.setup.hand_weights[0]
    assert share[0] == pytest.approx(float(w0 @ reach[0] / w0.sum()), abs=1e-15)
    assert share[2] == 1.0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"board": "Ks 7d 2c 9h Ks"}, "board"),
        ({"range1": ""}, "range1"),
        ({"stack": 1e12}, "stack"),
        ({"bets": "2.5x"}, "bets"),
        ({"stakc": 100}, "stakc"),
    ],
)
def test_bad_fields_are_named(change: dict[str, object], field: str) -> None:
    fields = {**dataclasses.asdict(SPEC), **change}
    with pytest.raises(SpecError) as err:
        solve(fields, iterations=1)
    assert err.value.field == field


def test_a_missing_field_is_named() -> None:
    fields = dataclasses.asdict(SPEC)
    del fields["range2"]
    with pytest.raises(SpecError) as err:
        solve(fields, iterations=1)
    assert err.value.field == "range2"


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"threads": 2}, "threads"),
        ({"precision": "float32"}, "precision"),
        ({"pruning": "partial"}, "pruning"),
        ({"algorithm": "mccfr-es"}, "algorithm"),
        ({"locks": {"b:99": {"c": 1.0}}}, "lock 'b:99'"),  # (locks taken; a bad one named)
        ({"seed": 4}, "seed"),
        ({"target_exploitability": 0.01}, "target_exploitability"),
        ({"rbp_threshold": 1.0}, "rbp_threshold"),
    ],
)
def test_heads_up_arguments_are_refused_by_name(kwargs: dict[str, object], named: str) -> None:
    with pytest.raises((ValueError, TypeError), match=named):
        solve(SPEC, **{"iterations": 1, **kwargs})  # type: ignore[call-overload]


def test_target_applies_to_the_largest_distance() -> None:
    free = solve(SPEC, "cfr+", iterations=200, check_every=10)
    target = free.history[5].max_distance * 1.0001
    first = next(c.iteration for c in free.history if c.max_distance <= target)
    r = solve(SPEC, "cfr+", iterations=200, check_every=10, target_nash_distance=target)
    assert r.stopped_by == "target" and r.iteration == first


def test_make_game_refuses_a_dict_as_it_did() -> None:
    """``make_game`` builds games by name: a dict (a river spot's fields) is no name there
    (``solve`` takes it), a TypeError as before — not an AttributeError."""
    from solver.api import make_game

    with pytest.raises(TypeError):
        make_game(dataclasses.asdict(SPEC))  # type: ignore[call-overload]
