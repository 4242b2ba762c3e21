"""A three-way turn spot in the background job and in files (issue 49, docs/multiway.md):
:class:`MultiSolveJob` over a turn spot's :class:`River3Game` checks what the API's solve
checks; the CSVs carry the river card in each line below the chance node, leave out the
combos holding it there, and parse back to the job's average profile exactly everywhere else;
the JSON says ``turn3`` and carries the river's sizes."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from app_helpers import no_threads_left
from test_river3_job_export import finished_job, profile_from_csv

from solver.api import solve
from solver.cfr.river3_view import River3Game, river3_game
from solver.files.multi_export import player_csv, strategies_json
from solver.games.holdem3_turn import Turn3Spec

SPEC = Turn3Spec("Ks 7d 2c 9h", "AA, KQs", "QQ, AQs", "TT, 99", pot=60, stack=100,
                 bets="50%", raises="a", raise_cap=1, river_bets="a")  # fmt: skip


@pytest.fixture(autouse=True)
def _teardown() -> Iterator[None]:
    yield
    no_threads_left()


def valid_cells(game: River3Game) -> np.ndarray:
    """(profile_size,) True where the cell's combo can be held at its node."""
    out = np.zeros(game.profile_size, dtype=bool)
    for n in game.decision_nodes():
        n = int(n)
        p = int(game.player[n])
        nh = game.num_hands(p)
        for a in range(int(game.num_children[n])):
            start = int(game.offset[n]) + a * nh
            out[start : start + nh] = game.valid(n, p)
    return out


def test_the_job_checks_what_the_api_checks() -> None:
    game = river3_game(SPEC)
    job = finished_job(game, 20)
    api = solve(SPEC, "cfr+", iterations=20, check_every=10)
    got = job.progress.history
    assert [c.iteration for c in got] == [c.iteration for c in api.history] == [0, 10, 20]
    for g, w in zip(got, api.history, strict=True):
        np.testing.assert_allclose(g.nash_distance, w.nash_distance, rtol=0, atol=1e-12)
        np.testing.assert_allclose(g.ev, w.ev, rtol=0, atol=1e-12)


def test_files_carry_the_river_card_and_parse_back() -> None:
    game = river3_game(SPEC)
    job = finished_job(game, 20)
    sigma, iteration = job.average_profile()
    texts = [player_csv(game, sigma, p) for p in range(3)]
    assert "k k k d:Ts k k," in texts[2]
    assert "P1 checks, P2 checks, P3 checks / river Ts / P1 checks, P2 checks" in texts[2]
    back = profile_from_csv(game, texts)
    valid = valid_cells(game)
    assert not valid.all()
    np.testing.assert_array_equal(np.isnan(back), ~valid)  # the blocked combos: no rows
    np.testing.assert_array_equal(back[valid], sigma[valid])
    data = json.loads(strategies_json(game, sigma, iteration, job.algorithm, job.params,
                                      job.progress.last))  # fmt: skip
    assert data["game"] == "turn3" and data["pot"] == 60.0
    spot = data["spot"]
    assert spot["board"] == "Ks 7d 2c 9h" and spot["stack"] == 100.0
    assert (spot["bets"], spot["river_bets"], spot["river_raises"]) == ("50%", "a", "a")
    table = data["strategies"][2]["strategy"]["k k k d:Ts k k"]
    assert "TsTh" not in table and "ThTs" not in table and "9s9d" in table
