"""``solve(Turn3Spec(...))`` — the Python API on a three-way hold'em turn spot (issue 49,
docs/multiway.md): the same MultiSolveResult as the river's, its Nash distances and EVs the
independent evaluator's on the deal-list build of the spot (``turn3_multigame``, hands mapped
by combo) and the CLI's; lines carry the river card, a combo holding it has no strategy
below it and no reach there; bad fields named."""

from __future__ import annotations

import dataclasses
import json
from typing import Any

import numpy as np
import pytest
from cli_helpers import run
from multiway_helpers import combos, deal_list_profile

from solver.api import solve
from solver.cfr.multi_solve import MultiSolveResult
from solver.cfr.river3_view import River3Game, line_words, river3_game
from solver.games.holdem3_turn import Turn3Spec, turn3_multigame
from solver.games.nashconv import nash_report
from solver.games.spec import SpecError
from solver.tree.kinds import CHANCE

BOARD = "Ks 7d 2c 9h"
RANGES = ("AA, KQs", "QQ, AQs", "TT, 99")
SPEC = Turn3Spec(BOARD, *RANGES, pot=60, stack=100, bets="50%", raises="a", raise_cap=1,
                 river_bets="a")  # fmt: skip


@pytest.fixture(scope="module")
def solved() -> MultiSolveResult[River3Game]:
    r = solve(SPEC, "cfr+", iterations=30, check_every=15)
    assert isinstance(r.game, River3Game)
    return r


def test_distances_are_the_evaluators_on_the_deal_list(solved: MultiSolveResult[Any]) -> None:
    r = solved
    assert [c.iteration for c in r.history] == [0, 15, 30]
    assert r.game.is_turn and r.game.kind == "turn3"
    assert r.exploitability is None and r.pot == 60.0
    mg = turn3_multigame(SPEC)
    assert mg.num_nodes == r.game.tree.num_nodes
    ref = nash_report(mg, deal_list_profile(mg, r.game.offset, combos(r.game), r.average_profile()))
    np.testing.assert_allclose(r.nash_distance, ref.nash_distance, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.ev, ref.value, rtol=0, atol=1e-9)
    assert r.nash_conv == pytest.approx(float(ref.nash_conv), abs=1e-9)
    np.testing.assert_allclose(r.nash_distance_pct_pot, 100 * np.array(r.nash_distance) / 60,
                               rtol=1e-15)  # fmt: skip
    assert max(r.nash_distance) > 0  # (30 iterations: not an equilibrium yet)


def test_a_dict_with_four_cards_solves_as_the_cli_does() -> None:
    fields = dataclasses.asdict(SPEC)
    r = solve(fields, "dcfr", iterations=20, check_every=10)
    assert isinstance(r.game, River3Game) and r.game.is_turn
    out = run("solve", "--players", "3", "--board", BOARD, "--pot", "60", "--stack", "100",
              "--range-0", RANGES[0], "--range-1", RANGES[1], "--range-2", RANGES[2],
              "--bets", "50%", "--raises", "a", "--raise-cap", "1", "--size", "river.bets=a",
              "--algorithm", "dcfr", "--iterations", "20", "--every", "10", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    final = json.loads(out.stdout.splitlines()[-1])
    assert final["game"] == "turn3"
    np.testing.assert_allclose(r.nash_distance, final["nash_distance"], rtol=0, atol=1e-12)
    np.testing.assert_allclose(r.nash_distance_pct_pot, final["nash_distance_pct_pot"],
                               rtol=1e-12)  # fmt: skip
    np.testing.assert_allclose(r.ev, final["ev"], rtol=0, atol=1e-12)


def test_lines_carry_the_river_card_and_blocked_combos_are_left_out(
    solved: MultiSolveResult[Any],
) -> None:
    r = solved
    g = r.game
    strategies = r.strategies()
    sigma = r.average_profile()
    # P3 checks back: the chance node; river Ts: TT's combos holding it are out of P3's range
    node = r.node("k k k d:Ts")
    assert int(g.tree.kind[int(g.tree.parent[node])]) == CHANCE
    assert line_words(g, node) == "P1 checks, P2 checks, P3 checks / river Ts"
    assert g.river_card(node) == "Ts" and g.river_card(0) is None
    below = r.node("k k k d:Ts k")
    assert line_words(g, below) == "P1 checks, P2 checks, P3 checks / river Ts / P1 checks"
    assert r.node("k k k d:Ts k") == find_by_words(g, line_words(g, below))
    p0 = strategies[0]["k k k d:Ts"]
    assert set(p0) == set(g.hand_names(0))  # AA and KQs: none holds Ts
    p2 = strategies[2]["k k k d:Ts k k"]
    held = {h for h in g.hand_names(2) if "Ts" in (h[:2], h[2:])}
    assert len(held) == 3  # TsTh, TsTd, TsTc
    assert set(p2) == set(g.hand_names(2)) - held
    # on the turn every combo is there
    assert set(strategies[2]["k k"]) == set(g.hand_names(2))
    # the reach of a river node: a blocked combo's is 0, the others' their turn reach
    reach = g.reach(sigma, r.node("k k k d:Ts k k"))
    turn = g.reach(sigma, r.node("k k"))  # (P3 has not acted there)
    checks_back = g.block(sigma, r.node("k k"))[0]
    valid = g.valid(node, 2)
    assert valid.sum() == g.num_hands(2) - 3
    np.testing.assert_allclose(reach[2], np.where(valid, checks_back, 0.0), rtol=0, atol=0)
    np.testing.assert_allclose(turn[2], 1.0)
    share = g.reach_share(sigma, r.node("k k k d:Ts k k"))
    w2 = g.setup.hand_weights[2] * valid
    assert share[2] == pytest.approx(float(w2 @ checks_back / w2.sum()), abs=1e-15)


def find_by_words(g: River3Game, words: str) -> int:
    found = [int(n) for n in g.decision_nodes() if line_words(g, int(n)) == words]
    assert len(found) == 1
    return found[0]


def test_an_all_in_on_the_river_is_named_as_such(solved: MultiSolveResult[Any]) -> None:
    g = solved.game
    # P1 bets 30 on the turn, both call: 70 behind each on the river, river_bets "a"
    node = solved.node("b:30 c c d:2h b:70")
    assert line_words(g, node) == (
        "P1 bets 30 (50 %), P2 calls, P3 calls / river 2h / P1 goes all-in 70"
    )


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"board": "Ks 7d 2c Ks"}, "board"),
        ({"stack": 1e12}, "stack"),
        ({"river_bets": "2.5x"}, "river_bets"),
        ({"range2": ""}, "range2"),
        ({"flop_bets": "50%"}, "flop_bets"),
        ({"max_memory_mb": 1}, "max_memory_mb"),
    ],
)
def test_bad_fields_are_named(change: dict[str, object], field: str) -> None:
    fields = {**dataclasses.asdict(SPEC), **change}
    with pytest.raises(SpecError) as err:
        solve(fields, iterations=1)
    assert err.value.field == field


def test_river_fields_on_a_river_board_are_named() -> None:
    fields = {**dataclasses.asdict(SPEC), "board": "Ks 7d 2c 9h 3s"}
    with pytest.raises(SpecError) as err:
        river3_game(fields)
    assert err.value.field == "river_bets"


def test_a_range_all_holding_the_river_card_has_no_reach_there() -> None:
    """A one-combo range below the card it holds: no combo can be there, reach share 0 (not
    a division by zero), and its strategy table is empty."""
    spec = dataclasses.replace(SPEC, range2="TsTh")
    r = solve(spec, "cfr+", iterations=2, check_every=2)
    g = r.game
    node = r.node("k k k d:Ts k k")
    assert not g.valid(node, 2).any()
    assert g.reach_share(r.average_profile(), node)[2] == 0.0
    assert r.strategies()[2]["k k k d:Ts k k"] == {}
