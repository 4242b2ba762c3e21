"""AppTest: the Locks expander on three-way hold'em river spots (issue 49; docs/locking.md,
docs/multiway.md). Lock text pasted on the Solve page is resolved against Set up's spot
(solver/games/holdem3_locks.py), listed in words with the combos grouped by hand class,
played by the next solve and carried by its export; a bad lock is named with the locks before
kept; a reload takes the solve back with its locks."""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping

import numpy as np
import pytest
from app_helpers import no_threads_left, page
from multiway_helpers import texts
from streamlit.testing.v1 import AppTest
from test_app_river3 import SOLVED, form_state

from app import state
from app.features import multi_locks as ML
from app.features.multi_reload import URL_KEY
from app.features.multi_study import export_files
from solver.cfr.multi_solve import resolve_locks
from solver.cfr.river3_view import River3Game, river3_game
from solver.games.holdem3_locks import holdem3_lock_lines
from solver.run.jobs import RUNNING
from solver.run.multi_job import MultiSolveJob

PASSIVE = {"check": {"k": 1.0}, "call": {"c": 1.0}}
# player 1 (the API's 0) checks its aces, bets the rest of its range; player 2 always checks
# or calls (lines for its every node)
PARTIAL = {"root": {"AA": {"k": 1}, "*": {"b:30": 1}}}


@pytest.fixture(autouse=True)
def _teardown() -> Iterator[None]:
    yield
    no_threads_left()


def paste(at: AppTest, spec: Mapping[str, object]) -> None:
    at.text_area(key=ML.TEXT).set_value(json.dumps(spec)).run()
    at.button(key=ML.K + "apply").click().run()


def test_pasted_river_locks_are_listed_by_class_played_and_exported() -> None:
    """Player 1's aces check, its other hands bet, player 2 checks or calls everywhere: the
    list says so with the combos grouped by class ("AA ×6"); the solve's average plays the
    locks exactly at their cells, and the exported JSON's strategies do too, its ``locks``
    resolving back to the same cells."""
    g = river3_game(SOLVED)
    spec = {**PARTIAL, **holdem3_lock_lines(g.built.game, [1], PASSIVE)}
    at = page("solve", **form_state(), **{state.MULTI_ALGO: "cfr+", state.MULTI_ITERATIONS: 60,
                                         state.MULTI_EVERY: 30})  # fmt: skip
    at.run()
    assert "No locks" in texts(at) and "Locks are not offered" not in texts(at)
    paste(at, spec)
    assert not at.exception and not at.error
    held = at.session_state[ML.APPLIED]
    assert held[0] == ML.spot_key(SOLVED) and held[1].spec == spec
    shown = texts(at)
    assert "Applied to the next solve" in shown
    # (the board's Ks leaves three KK and AKs combos; AKo nine)
    assert ("player 1 at 'root': bet 30 100 % — AKs ×3, AKo ×9, KK ×3; check 100 % — AA ×6"
            in shown)  # fmt: skip
    assert "player 2 at 'k': check 100 % — AQs ×4, QQ ×6, JJ ×6" in shown
    assert "player 2 at 'b:30': call 100 % —" in shown and "player 3 at" not in shown
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert isinstance(job, MultiSolveJob) and job.locks is not None
    assert job.locks.spec == spec and job.locks.players() == (0, 1)
    assert job.wait_for(lambda q: q.finished, timeout=120)
    at.run()
    assert not at.exception and "Solved with locks" in texts(at)
    sigma, _ = job.average_profile()
    cells = job.locks.cells
    np.testing.assert_array_equal(sigma[cells], job.locks.strategy[cells])
    data = json.loads(export_files(job)[3][2])
    assert data["locks"] == spec and data["locked"][2] == []
    back = resolve_locks(job.mgame, data["locks"])
    np.testing.assert_array_equal(back.cells, cells)
    np.testing.assert_array_equal(back.strategy, job.locks.strategy)
    root = data["strategies"][0]["strategy"][""]
    assert root["AhAd"] == {"k": 1.0, "b:30": 0.0} and root["KhKd"] == {"k": 0.0, "b:30": 1.0}
    facing = data["strategies"][1]["strategy"]["b:30"]
    assert all(mix["c"] == 1.0 for mix in facing.values())


@pytest.mark.parametrize(("bad", "says"), [
    ({"root": {"ZZ": {"k": 1}}}, "lock 'root', hand 'ZZ'"),
    ({"b:99": {"c": 1}}, "lock 'b:99': no such line"),
    ({"k": {"k": 0.7, "b:30": 0.7}}, "lock 'k'"),
    ({"k": "solved"}, "lock 'k': 'solved' needs a solve"),
])  # fmt: skip
def test_a_bad_river_lock_is_named_and_the_locks_before_stay(
    bad: dict[str, object], says: str
) -> None:
    at = page("solve", **form_state())
    at.run()
    paste(at, PARTIAL)
    before = at.session_state[ML.APPLIED]
    assert before is not None and before[1].spec == PARTIAL
    paste(at, bad)
    assert not at.exception
    assert any("the locks before stay" in str(e.value) and says in str(e.value) for e in at.error)
    assert at.session_state[ML.APPLIED] is before
    assert "check 100 % — AA ×6" in texts(at)


def test_locks_of_another_spot_are_not_played() -> None:
    """Locks applied on one spot, Set up then changed: the page lists none and the solve
    plays none (they were resolved against the first spot's lines and combos)."""
    at = page("solve", **form_state())
    at.run()
    paste(at, PARTIAL)
    assert at.session_state[ML.APPLIED] is not None
    at.session_state[state.R3_RANGE2] = "TT, 99"
    at.run()
    assert "No locks" in texts(at)
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert isinstance(job, MultiSolveJob) and job.locks is None
    job.stop()
    assert job.join(30.0)


def test_a_solved_lock_takes_the_finished_solve_of_the_same_spot() -> None:
    at = page("solve", **form_state(), **{state.MULTI_ALGO: "cfr+", state.MULTI_ITERATIONS: 40,
                                         state.MULTI_EVERY: 40})  # fmt: skip
    at.run()
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert job.wait_for(lambda q: q.finished, timeout=120)
    at.run()
    paste(at, {"k": "solved"})
    assert not at.exception and not at.error
    locks = at.session_state[ML.APPLIED][1]
    g = job.mgame
    assert isinstance(g, River3Game)
    n = next(int(x) for x in g.decision_nodes() if g.history(int(x)) == ("k",))
    sigma, _ = job.average_profile()
    np.testing.assert_array_equal(g.block(locks.strategy, n), g.block(sigma, n))


def test_a_running_river_solve_comes_back_with_its_locks_after_a_reload() -> None:
    settings = {**form_state(), state.MULTI_ALGO: "cfr+", state.MULTI_ITERATIONS: 1_000_000,
                state.MULTI_EVERY: 50}  # fmt: skip
    at = page("solve", **settings)  # a million iterations: running through this test
    at.run()
    paste(at, PARTIAL)
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    token = at.query_params[URL_KEY]
    assert isinstance(job, MultiSolveJob) and job.progress.state == RUNNING
    assert job.locks is not None and job.locks.spec == PARTIAL
    reloaded = page("solve")  # a new session on the same URL: Set up on its default game
    reloaded.query_params[URL_KEY] = token
    reloaded.run()
    assert not reloaded.exception
    assert reloaded.session_state[state.MULTI_JOB] is job
    held = reloaded.session_state[ML.APPLIED]
    assert held[0] == ML.spot_key(SOLVED) and held[1].spec == PARTIAL
    assert "check 100 % — AA ×6" in texts(reloaded)
    assert any("Solving with locks" in str(c.value) for c in reloaded.caption)
    job.stop()
    assert job.join(30.0)
