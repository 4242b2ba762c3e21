"""The Python API on the three-player games (issue 49, docs/multiway.md): ``solve("kuhn3")``
returns each player's Nash distance, NashConv and EV of its average profile — the same as
the independent evaluator (solver/games/nashconv.py) on the profile it returns — and the
strategies per player in words; no exploitability; heads-up-only arguments refused by
name."""

from __future__ import annotations

import numpy as np
import pytest

from solver import make_game as top_make_game
from solver.api import SolveResult, make_game, solve
from solver.cfr.multi_solve import MultiCheckpoint, MultiSolveResult
from solver.games.model import Game
from solver.games.multiway import MultiGame
from solver.games.nashconv import nash_report

KAPPA = 1 / 24  # Szafron, Gibson, Sturtevant (AAMAS 2013): the family's unit of value


def assert_report_matches(r: MultiSolveResult) -> None:
    """The last check's numbers are the evaluator's on the returned profile (to 1e-9)."""
    rep = nash_report(r.game, r.average_profile())
    np.testing.assert_allclose(r.nash_distance, rep.nash_distance, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.ev, rep.value, rtol=0, atol=1e-9)
    np.testing.assert_allclose(r.history[-1].best_response, rep.best_response, atol=1e-9)
    assert r.nash_conv == pytest.approx(rep.nash_conv, abs=1e-9)
    assert r.nash_conv == pytest.approx(sum(r.nash_distance), abs=1e-12)


@pytest.mark.parametrize(
    ("name", "algorithm", "iterations", "extra"),
    [
        ("kuhn3", "cfr", 30, {}),
        ("kuhn3", "dcfr", 50, {}),
        ("kuhn3", "mccfr-es", 200, {"seed": 5}),
        ("leduc3", "cfr+", 3, {}),
    ],
)
def test_nash_distances_are_the_evaluators(
    name: str, algorithm: str, iterations: int, extra: dict[str, int]
) -> None:
    r = solve(name, algorithm, iterations=iterations, check_every=7, **extra)  # type: ignore[call-overload]
    assert isinstance(r, MultiSolveResult)
    assert r.iteration == iterations and r.stopped_by == "iterations"
    assert r.exploitability is None
    assert len(r.nash_distance) == 3 and min(r.nash_distance) >= -1e-12
    assert_report_matches(r)
    # the checks over time: at 0, every 7 iterations and at the end
    its = [cp.iteration for cp in r.history]
    assert its == sorted({0, *range(7, iterations, 7), iterations})
    # % of the pot: the pot is the three antes
    assert r.pot == 3.0
    np.testing.assert_allclose(r.nash_distance_pct_pot, np.array(r.nash_distance) / 3 * 100)


def test_kuhn3_solved_has_the_familys_values() -> None:
    """NashConv below 1e-3, and the values of a member of the Szafron–Gibson–Sturtevant
    family (ours 1 is the paper's player 2: −κ/2 = −1/48 in every member) within ten times
    the NashConv."""
    r = solve("kuhn3", "cfr+", iterations=1000, check_every=250)
    assert r.nash_conv < 1e-3
    tol = 10 * r.nash_conv
    assert r.ev[1] == pytest.approx(-1 / 48, abs=tol)
    beta = r.ev[2] / KAPPA - 1.0
    assert -tol / KAPPA <= beta <= 0.25 + tol / KAPPA
    assert r.ev[0] == pytest.approx(-KAPPA * (0.5 + beta), abs=tol)
    assert sum(r.ev) == pytest.approx(0.0, abs=1e-12)


def test_strategies_per_player_are_the_average_profile() -> None:
    r = solve("kuhn3", "cfr", iterations=20)
    g, sigma = r.game, r.average_profile()
    per_player = r.strategies()
    assert len(per_player) == 3
    seen = 0
    for n in g.decision_nodes():
        p, h = int(g.player[n]), g.num_hands
        line = " ".join(g.history(int(n)))
        table = per_player[p][line]
        actions = [g.labels[c] for c in g.children(int(n))]
        assert set(table) == set(g.hand_names)  # Kuhn: every card can be held anywhere
        for k, hand in enumerate(g.hand_names):
            for i, a in enumerate(actions):
                assert table[hand][a] == sigma[g.offset[n] + i * h + k]
                seen += 1
    assert seen == g.profile_size
    # the same node by its labels, its line or its index
    assert r.strategy(("k", "b")) == r.strategy("k b") == per_player[2]["k b"]
    with pytest.raises(KeyError, match="no decision node"):
        r.strategy("b b")


def test_leduc3_strategies_leave_out_hands_the_board_holds() -> None:
    r = solve("leduc3", "cfr", iterations=1)
    g = r.game
    after = next(
        int(n) for n in g.decision_nodes() if any(x.startswith("d:") for x in g.history(int(n)))
    )
    board = next(x[2:] for x in g.history(after) if x.startswith("d:"))
    table = r.strategy(after)
    assert board not in table and len(table) == g.num_hands - 1


def test_target_applies_to_the_largest_nash_distance() -> None:
    r = solve("kuhn3", "cfr+", target_nash_distance=0.01, check_every=5)
    assert r.stopped_by == "target"
    assert max(r.nash_distance) <= 0.01
    assert max(r.history[-2].nash_distance) > 0.01  # it stopped at the first check below
    assert r.iteration % 5 == 0


def test_callback_gets_each_check_and_may_stop() -> None:
    got: list[MultiCheckpoint] = []

    def cb(cp: MultiCheckpoint) -> bool:
        got.append(cp)
        return cp.iteration >= 20

    r = solve("kuhn3", "cfr", iterations=100, check_every=10, callback=cb)
    assert r.stopped_by == "callback" and r.iteration == 20
    assert [c.iteration for c in got] == [0, 10, 20]
    rec = got[-1].as_dict(3.0)
    assert "exploitability" not in rec
    dist = rec["nash_distance"]
    assert rec["nash_conv"] == got[-1].nash_conv and isinstance(dist, list) and len(dist) == 3


def test_make_game_builds_either_kind() -> None:
    assert isinstance(make_game("kuhn3"), MultiGame)
    assert isinstance(make_game("Leduc3"), MultiGame)
    assert isinstance(top_make_game("kuhn3"), MultiGame)
    assert isinstance(make_game("kuhn"), Game)
    with pytest.raises(TypeError, match="takes no options"):
        make_game("kuhn3", stack_bb=10)


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"threads": 2}, "threads"),
        ({"precision": "float32"}, "precision"),
        ({"pruning": "partial"}, "pruning"),
        ({"algorithm": "mccfr-es", "locks": {"k": {"k": 1.0, "b": 0.0}}}, "locks"),
        ({"seed": 4}, "seed"),
        ({"target_exploitability": 0.01}, "target_exploitability"),
        ({"algorithm": "mccfr-os"}, "algorithm"),
        ({"algorithm": "mccfr-es", "params": {"alpha": 1.0}}, "params"),
        ({"target_nash_distance": -1.0}, "target_nash_distance"),
        ({"iterations": 1.5}, "iterations"),
        ({"check_every": 0}, "check_every"),
        ({"rbp_threshold": 1.0}, "rbp_threshold"),
    ],
)
def test_heads_up_arguments_are_refused_by_name(kwargs: dict[str, object], named: str) -> None:
    with pytest.raises((ValueError, TypeError), match=named):
        solve("kuhn3", **{"iterations": 1, **kwargs})  # type: ignore[call-overload]


def test_warm_start_is_heads_up_only() -> None:
    warm = solve("kuhn", "cfr", iterations=2)
    with pytest.raises(ValueError, match="warm_start"):
        solve("kuhn3", iterations=1, warm_start=warm)


def test_heads_up_refuses_a_nash_distance_target_and_is_unchanged() -> None:
    with pytest.raises(ValueError, match="target_nash_distance"):
        solve("kuhn", iterations=1, target_nash_distance=0.1)
    r = solve("kuhn", "cfr+", iterations=100)
    assert isinstance(r, SolveResult) and r.exploitability > 0
