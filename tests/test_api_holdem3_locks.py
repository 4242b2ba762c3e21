"""``solve(River3Spec | Turn3Spec, locks=…)`` (issue 49; docs/locking.md, docs/multiway.md):
the API and the background job take locks for any player on three-way hold'em river and turn
spots, resolved against the spot's built game (solver/games/holdem3_locks.py) by
``lock_multi_engine``, as kuhn3 and leduc3 take theirs.

The reference is the independent evaluator (solver/games/nashconv.py) on the spot's deal-list
build, the profile mapped by combo (tests/test_holdem3_locks.py): with two players locked to
check and call on every node, the third's solve earns its best-response value against them."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from app_helpers import no_threads_left
from test_holdem3_locks import PASSIVE, RIVER, TURN, deal_list, on_deal_list

from solver import solve
from solver.cfr.multi_solve import MultiLockError, MultiSolveResult, resolve_locks
from solver.cfr.river3_view import River3Game, river3_game
from solver.files.multi_export import strategies_json
from solver.games.holdem3 import River3Spec
from solver.games.holdem3_locks import holdem3_lock_lines
from solver.games.holdem3_turn import Turn3Spec
from solver.games.nashconv import best_response_values
from solver.run.multi_job import MultiSolveJob


@pytest.fixture(autouse=True)
def _teardown() -> Iterator[None]:
    yield
    no_threads_left()


def spot(street: str) -> River3Game:
    return river3_game(RIVER if street == "river" else TURN)


def free_player_best_response(r: MultiSolveResult[River3Game], street: str, free: int) -> float:
    """The free player's best-response value against the locked two (evaluator, deal list)."""
    locks = r.locks
    assert locks is not None
    g = r.game.built.game
    mg = deal_list(street)
    fixed = np.where(locks.cells, locks.strategy, r.average_profile())
    return float(best_response_values(mg, on_deal_list(g, mg, fixed))[free])


@pytest.mark.parametrize(
    ("street", "spec", "free", "iterations", "tol"),
    [("river", RIVER, 2, 1000, 2e-3), ("turn", TURN, 0, 400, 5e-3)],
)
def test_solve_with_two_players_locked_gives_the_third_its_best_response(
    street: str, spec: River3Spec | Turn3Spec, free: int, iterations: int, tol: float
) -> None:
    """solve(spec, locks=…) with the other two checking and calling on every node: the locked
    cells of the average are the lock exactly; the free player's EV is its best-response
    value against them within ``tol`` chips (CFR+'s average closes at about 1/T; pot 60);
    ``locked`` names the two players' lines and no line of the free one's."""
    others = [p for p in range(3) if p != free]
    text = holdem3_lock_lines(spot(street).built.game, others, PASSIVE)
    r = solve(spec, "cfr+", iterations=iterations, check_every=iterations, locks=text)
    assert isinstance(r, MultiSolveResult) and r.locks is not None
    assert r.locks.spec == text and r.locks.players() == tuple(others)
    cells = r.locks.cells
    np.testing.assert_array_equal(r.average_profile()[cells], r.locks.strategy[cells])
    assert r.locked[free] == [] and all(len(r.locked[p]) > 0 for p in others)
    br = free_player_best_response(r, street, free)
    assert r.ev[free] == pytest.approx(br, abs=tol)
    assert br - r.ev[free] > -1e-9  # (never above a best response)
    if street == "river":  # unlocked, the free player earns something else
        plain = solve(spec, "cfr+", iterations=iterations, check_every=iterations)
        assert abs(plain.ev[free] - br) > 1.0


@pytest.mark.parametrize(("spec", "says"), [
    ({"b:99": {"c": 1}}, "lock 'b:99': no such line"),
    ({"root": {"k": 0.5, "b:30": 0.6}}, "lock 'root'"),
    ({"root": {"ZZ": {"k": 1}}}, "lock 'root', hand 'ZZ'"),
    ({"k": "solved"}, "lock 'k': 'solved' needs a solve"),
])  # fmt: skip
def test_bad_locks_are_refused_naming_the_line(spec: dict[str, object], says: str) -> None:
    with pytest.raises(MultiLockError, match=says):
        solve(RIVER, "cfr+", iterations=5, locks=spec)


def test_solved_locks_take_the_last_solve_s_average() -> None:
    """resolve_locks({"k": "solved"}) on a finished solve fixes player 1's node 'k' to that
    solve's average there; the next solve plays it exactly; a line that is not there is
    named."""
    first = solve(RIVER, "cfr+", iterations=60, check_every=60)
    locks = first.resolve_locks({"k": "solved"})
    g = first.game
    n = first.node("k")
    assert int(g.player[n]) == 1
    want = g.block(first.average_profile(), n)
    second = solve(RIVER, "dcfr", iterations=40, check_every=40, locks=locks)
    assert second.locks is locks and second.locked == [[], ["k"], []]
    np.testing.assert_array_equal(g.block(second.average_profile(), n), want)
    assert first.strategy("k") == second.strategy("k")
    with pytest.raises(MultiLockError, match="lock 'k k k k'"):
        first.resolve_locks({"k k k k": "solved"})


def test_the_job_plays_river_locks() -> None:
    """MultiSolveJob on a river spot with lock text: its locks resolved against the spot, and
    the locked cells of its average the lock exactly at the end; a bad lock refused before
    any thread starts, naming the line."""
    g = spot("river")
    text = holdem3_lock_lines(g.built.game, [0, 2], PASSIVE)
    job = MultiSolveJob(g, "cfr+", max_iterations=60, check_every=30, locks=text).start()
    assert job.join(60.0) and job.progress.state == "done", job.progress.error
    assert job.locks is not None and job.locks.players() == (0, 2)
    sigma, it = job.average_profile()
    assert it == 60
    np.testing.assert_array_equal(sigma[job.locks.cells], job.locks.strategy[job.locks.cells])
    with pytest.raises(MultiLockError, match="lock 'b:30'"):
        MultiSolveJob(g, "cfr+", locks={"b:30": {"k": 1}})


def test_the_export_json_carries_a_turn_solve_s_locks_and_they_parse_back() -> None:
    """strategies_json with the solve's locks: ``locks`` is their text (a river card's
    lines kept), ``locked`` per player; resolved again against the spot they give the same
    cells and mixes, and the JSON's strategies play them there; without locks both None."""
    g = spot("turn")
    text = {"k k k d:Ah": {"AA": {"b:200": 1}, "*": {"k": 1}},
            **holdem3_lock_lines(g.built.game, [2], PASSIVE)}  # fmt: skip
    r = solve(TURN, "cfr+", iterations=30, check_every=30, locks=text)
    locks = r.locks
    assert locks is not None
    sigma = r.average_profile()
    data = json.loads(strategies_json(g, sigma, r.iteration, r.algorithm, r.params,
                                      r.history[-1], locks))  # fmt: skip
    assert data["locks"] == text and data["locked"] == locks.lines(3)
    assert data["locked"][0] == ["k k k d:Ah"] and data["locked"][1] == []
    back = resolve_locks(g, data["locks"])
    np.testing.assert_array_equal(back.cells, locks.cells)
    np.testing.assert_array_equal(back.strategy, locks.strategy)
    node = data["strategies"][0]["strategy"]["k k k d:Ah"]
    assert node["AsAd"] == {"k": 0.0, "b:200": 1.0} and "AhAd" not in node  # (Ah: dealt)
    assert all(mix["k"] == 1.0 for hand, mix in node.items() if hand[0] + hand[2] != "AA")
    plain = json.loads(strategies_json(g, sigma, r.iteration, r.algorithm, r.params, None))
    assert plain["locks"] is None and plain["locked"] is None
