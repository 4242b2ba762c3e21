"""AppTest: three-player games in the app (issue 49, docs/multiway.md). Set up offers kuhn3
and leduc3; Solve runs one in the background and draws one Nash-distance curve per player
and NashConv; Explore shows a player's strategy per hand at a node; Export's files parse
back to the engine's average profile; heads-up-only pages say so; switching games while a
solve runs never breaks a page."""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Iterator

import numpy as np
import pytest
from app_helpers import no_threads_left, page
from multiway_helpers import texts
from streamlit.testing.v1 import AppTest

from app import state
from app.features.multi_study import export_files
from solver import make_game
from solver.cfr.multi_solve import node_strategy
from solver.games.multiway import MultiGame, multi_game
from solver.run.jobs import FINISHED, RUNNING
from solver.run.multi_job import MultiSolveJob

KUHN3 = "multi:kuhn3"


@pytest.fixture(autouse=True)
def _teardown() -> Iterator[None]:
    yield
    no_threads_left()


def traces(at: AppTest, key: str) -> list[str]:
    chart = next(c for c in at.get("plotly_chart") if key in str(c.proto.id))
    return [t.get("name") for t in json.loads(chart.proto.spec)["data"]]


def solved_kuhn3(iterations: int = 300) -> MultiSolveJob:
    job = MultiSolveJob(multi_game("kuhn3"), "cfr+", max_iterations=iterations).start()
    job.wait_for(lambda q: q.finished, timeout=60)
    return job


def test_setup_offers_the_three_player_games() -> None:
    at = page("setup")
    at.run()
    box = at.selectbox(key=state.SOURCE)
    assert "Kuhn poker, 3 players" in box.options  # (AppTest lists the labels)
    assert "Leduc hold'em, 3 players" in box.options
    box.set_value(KUHN3).run()
    assert not at.exception
    assert "three players" in texts(at) and "Nash distance" in texts(at)


def test_solve_draws_one_curve_per_player_and_nash_conv() -> None:
    at = page("solve", **{state.SOURCE: KUHN3})
    at.run()
    assert at.title[0].value == "Solve" and "Kuhn poker, 3 players" in texts(at)
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert isinstance(job, MultiSolveJob)
    job.wait_for(lambda q: q.finished, timeout=60)
    at.run()
    assert not at.exception
    names = [f"Nash distance (player {k})" for k in (1, 2, 3)] + ["NashConv"]
    assert traces(at, "multi_curve") == names
    assert [m.label for m in at.metric] == names
    assert "docs/multiway.md" in texts(at) and "no guarantee" in texts(at)
    assert "exploitab" not in " ".join(m.label for m in at.metric).lower()
    last = job.progress.last
    assert last is not None and job.progress.iteration == 1000  # the default limit
    assert at.metric[3].value == f"{last.nash_conv:.3g} chips"


def test_explore_shows_a_players_strategy_per_hand() -> None:
    job = solved_kuhn3()
    at = page("explore", **{state.SOURCE: KUHN3, state.MULTI_JOB: job, state.MULTI_GAME: "kuhn3"})
    at.run()
    assert not at.exception
    at.radio(key=state.MULTI_PLAYER).set_value(2).run()  # the third player
    g = job.mgame
    node = next(int(n) for n in g.decision_nodes() if g.history(int(n)) == ("k", "b"))
    at.selectbox(key=state.MULTI_NODE).set_value(node).run()
    assert not at.exception
    frame = at.dataframe[0].value
    sigma, _ = job.average_profile()
    want = node_strategy(g, sigma, node)
    assert list(frame["hand"]) == list(want)
    for _, row in frame.iterrows():
        assert row["fold"] == pytest.approx(100 * want[row["hand"]]["f"], abs=0.006)
        assert row["call"] == pytest.approx(100 * want[row["hand"]]["c"], abs=0.006)
    assert "**Player 3** to act after: check → bet" in texts(at)
    assert traces(at, "multi_strategy_bars") == ["fold", "call"]


def profile_from_files(g: MultiGame, files: list[tuple[str, str, str, str]]) -> np.ndarray:
    """The profile the CSVs describe, and a check that the JSON says the same."""
    sigma = np.full(g.profile_size, np.nan)
    by_line = {" ".join(g.history(int(n))): int(n) for n in g.decision_nodes()}
    hands = {name: k for k, name in enumerate(g.hand_names)}
    data = json.loads(files[-1][2])
    assert data["exploitability"] is None and len(data["nash_distance"]) == 3
    for p, (_, _, text, _) in enumerate(files[:-1]):
        for row in csv.DictReader(io.StringIO(text)):
            assert int(row["player"]) == p + 1
            n = by_line[row["line"]]
            a = [g.labels[c] for c in g.children(n)].index(row["action"])
            sigma[g.offset[n] + a * g.num_hands + hands[row["hand"]]] = float(row["probability"])
            got = data["strategies"][p]["strategy"][row["line"]][row["hand"]][row["action"]]
            assert got == float(row["probability"])
    return sigma


def test_export_files_parse_back_to_the_average_profile() -> None:
    job = solved_kuhn3()
    at = page("export", **{state.SOURCE: KUHN3, state.MULTI_JOB: job, state.MULTI_GAME: "kuhn3"})
    at.run()
    assert not at.exception
    files = export_files(job)
    labels = [b.proto.label for b in at.get("download_button")]
    assert labels == [f[0] for f in files] and len(labels) == 4
    sigma = profile_from_files(job.mgame, files)
    avg, _ = job.average_profile()
    np.testing.assert_array_equal(sigma, avg)  # every entry, exactly (repr round-trips)


def test_switching_games_mid_solve() -> None:
    """A three-player solve running while Set up switches to Kuhn: Solve keeps showing it
    with a note, Stop works, then the heads-up page; Explore and Export follow Set up."""
    at = page("solve", **{state.SOURCE: "multi:leduc3", state.MULTI_ITERATIONS: 1_000_000})
    at.run()
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert job.progress.state == RUNNING
    at.session_state[state.SOURCE] = "toy:kuhn"
    at.run()
    assert not at.exception
    assert "Set up now holds another game" in texts(at)
    at.button(key="multi_stop").click().run()
    assert job.progress.state in FINISHED
    at.run()
    assert not at.exception and not [b for b in at.button if b.key == "multi_start"]
    for page_name in ("explore", "export"):  # kuhn's pages: nothing solved (heads-up)
        other = page(page_name, **{state.SOURCE: "toy:kuhn", state.MULTI_JOB: job,
                                   state.MULTI_GAME: "leduc3"})  # fmt: skip
        other.run()
        assert not other.exception and "Nothing solved yet" in texts(other)
    # back on leduc3: its finished solve is there to explore
    other = page("explore", **{state.SOURCE: "multi:leduc3", state.MULTI_JOB: job,
                               state.MULTI_GAME: "leduc3"})  # fmt: skip
    other.run()
    assert not other.exception and other.dataframe


def test_a_heads_up_solve_running_keeps_its_page() -> None:
    from solver import make_rule
    from solver.run.jobs import SolveJob

    hu = SolveJob(make_game("leduc"), make_rule("cfr"), max_iterations=10**8).start()
    at = page("solve", **{state.SOURCE: KUHN3, state.JOB: hu})
    at.run()
    assert not at.exception
    assert not [b for b in at.button if b.key == "multi_start"]  # the heads-up page
    hu.stop()
    hu.join(30)
    at.run()
    assert not at.exception
    assert [b for b in at.button if b.key == "multi_start"]  # kuhn3's, once it stopped


def test_explore_before_any_solve_and_heads_up_only_pages() -> None:
    at = page("explore", **{state.SOURCE: KUHN3})
    at.run()
    assert not at.exception and "Nothing solved for Kuhn poker, 3 players yet" in texts(at)
    at = page("practice", **{state.SOURCE: KUHN3})
    at.run()
    assert not at.exception and "The trainer is heads-up only" in texts(at)
    at = page("reports", **{state.SOURCE: KUHN3})
    at.run()
    assert not at.exception and "A batch is heads-up only" in texts(at)
    at = page("compare", **{state.SOURCE: KUHN3, state.COMPARE_GAME: state.CURRENT_SETUP})
    at.run()
    assert not at.exception
    assert "python -m solver race --game kuhn3" in texts(at)
    options = at.selectbox(key=state.COMPARE_GAME).options
    assert [o for o in options if "3 players" in o] == ["Current set-up: Kuhn poker, 3 players"]


def test_a_long_solves_curves_are_thinned_keeping_both_ends() -> None:
    from app.components.multi_figures import nash_figure
    from solver.cfr.multi_solve import MultiCheckpoint

    hist = [
        MultiCheckpoint(
            10 * i,
            0.01 * i,
            (1 / (i + 1), 2 / (i + 1), 0.0),
            3 / (i + 1),
            (0.0, 0.0, 0.0),
            (0.0, 0.0, 0.0),
        )
        for i in range(5000)
    ]
    fig = nash_figure(hist)
    xs = list(fig.data[0].x)
    assert len(xs) <= 1500 and xs[0] == 0 and xs[-1] == 49_990
    assert list(fig.data[2].y)[-1] is None  # an exact 0 is left off the log axis
