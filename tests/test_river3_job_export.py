"""A three-way river spot in the background job and in files (issue 49, docs/multiway.md):
:class:`MultiSolveJob` over a :class:`River3Game` checks what the API's solve checks, with %
pot of the spot's pot; the CSVs (one per player, hands as combos with their class) and the
JSON parse back to the job's average profile exactly; mccfr-es and locks are refused by
name."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

import numpy as np
import pytest
from app_helpers import no_threads_left

from solver.api import solve
from solver.cfr.river3_view import River3Game, line_words, river3_game
from solver.files.multi_export import RIVER3_CSV_COLUMNS, player_csv, strategies_json
from solver.games.holdem3 import River3Spec
from solver.poker.ranges import COMBO_CELL, GRID_LABELS
from solver.run.multi_job import MultiSolveJob

SPEC = River3Spec("Ks 7d 2c 9h 3s", "AA, KK, AK", "QQ, JJ, AQs", "TT, 99, KQs", pot=60,
                  stack=200, bets="50%", raises="a", raise_cap=1)  # fmt: skip


@pytest.fixture(autouse=True)
def _teardown() -> Iterator[None]:
    yield
    no_threads_left()


def finished_job(game: River3Game, iterations: int = 30) -> MultiSolveJob:
    job = MultiSolveJob(game, "cfr+", max_iterations=iterations, check_every=10).start()
    assert job.wait_for(lambda q: q.finished, timeout=120)
    return job


def profile_from_csv(game: River3Game, texts: list[str]) -> np.ndarray:
    """The profile the players' CSVs describe (NaN where no row gives a cell)."""
    sigma = np.full(game.profile_size, np.nan)
    by_line = {" ".join(game.history(int(n))): int(n) for n in game.decision_nodes()}
    for p, text in enumerate(texts):
        reader = csv.DictReader(io.StringIO(text))
        assert tuple(reader.fieldnames or ()) == RIVER3_CSV_COLUMNS
        names = {h: k for k, h in enumerate(game.hand_names(p))}
        for row in reader:
            assert int(row["player"]) == p + 1
            n = by_line[row["line"]]
            assert row["line_words"] == line_words(game, n)
            k = names[row["hand"]]
            cell = int(COMBO_CELL[game.combos(p)[k]])
            assert row["hand_class"] == GRID_LABELS[cell // 13][cell % 13]
            a = [game.labels[c] for c in game.children(n)].index(row["action"])
            nh = game.num_hands(p)
            sigma[int(game.offset[n]) + a * nh + k] = float(row["probability"])
    return sigma


def test_the_job_checks_what_the_api_checks() -> None:
    game = river3_game(SPEC)
    job = finished_job(game)
    assert job.pot == 60.0 and job.progress.stopped_by == "iterations"
    api = solve(SPEC, "cfr+", iterations=30, check_every=10)
    got = [(c.iteration, c.nash_distance, c.ev) for c in job.progress.history]
    want = [(c.iteration, c.nash_distance, c.ev) for c in api.history]
    assert [g[0] for g in got] == [w[0] for w in want] == [0, 10, 20, 30]
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g[1], w[1], rtol=0, atol=1e-12)
        np.testing.assert_allclose(g[2], w[2], rtol=0, atol=1e-12)


def test_files_parse_back_to_the_average_profile() -> None:
    game = river3_game(SPEC)
    job = finished_job(game)
    sigma, iteration = job.average_profile()
    texts = [player_csv(game, sigma, p) for p in range(3)]
    back = profile_from_csv(game, texts)
    assert not np.isnan(back).any()  # every cell of every player's nodes
    np.testing.assert_array_equal(back, sigma)  # (repr of a float reads back exactly)
    data = json.loads(strategies_json(game, sigma, iteration, job.algorithm, job.params,
                                      job.progress.last))  # fmt: skip
    assert data["game"] == "river3" and data["pot"] == 60.0 and data["exploitability"] is None
    assert data["spot"]["board"] == "Ks 7d 2c 9h 3s" and data["spot"]["hands"] == list(
        game.setup.hands
    )
    last = job.progress.last
    assert last is not None and data["nash_distance"] == list(last.nash_distance)
    for p in range(3):
        strat = data["strategies"][p]["strategy"]
        for n in game.decision_nodes():
            if int(game.player[n]) != p:
                continue
            blk = game.block(sigma, int(n))
            table = strat[" ".join(game.history(int(n)))]
            for k, hand in enumerate(game.hand_names(p)):
                got = [table[hand][game.labels[c]] for c in game.children(int(n))]
                np.testing.assert_array_equal(got, blk[:, k])


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [({"algorithm": "mccfr-es"}, "algorithm"), ({"locks": {"b:99": {"c": 1.0}}}, "lock 'b:99'")],
)
def test_the_job_refuses_by_name(kwargs: dict[str, object], named: str) -> None:
    args: dict[str, object] = {"algorithm": "cfr+", **kwargs}
    with pytest.raises(ValueError, match=named):
        MultiSolveJob(river3_game(SPEC), **args)  # type: ignore[arg-type]
