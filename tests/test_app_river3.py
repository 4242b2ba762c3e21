"""AppTest: the three-way hold'em river spot in the app (issue 49, docs/multiway.md). Set up's
hold'em form offers 2 or 3 players; with 3, three ranges in acting order, the board, chips
and sizes, the estimate before Solve, bad fields named under them with nothing typed lost.
Solve runs it in the background with one Nash-distance curve per player in % of the starting
pot; Explore shows each player's 13×13 grid, a per-combo table and the reach per player;
Export's files parse back to the engine's average profile."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from app_helpers import no_threads_left, page
from multiway_helpers import texts
from streamlit.testing.v1 import AppTest
from test_river3_job_export import profile_from_csv

from app import state
from app.features.multi_reload import URL_KEY
from app.features.multi_study import export_files
from app.features.river3_form import DEFAULTS, KEYS
from app.features.river3_study import reach_text
from solver.cfr.river3_view import River3Game, line_words, river3_game
from solver.games.holdem3 import River3Spec, estimate
from solver.poker.ranges import COMBO_CELL, GRID_LABELS
from solver.run.jobs import FINISHED, RUNNING
from solver.run.multi_job import MultiSolveJob

# a small spot: one bet size, one raise (all-in), so a solve takes a moment
SMALL = {**DEFAULTS, "bets": "50%", "raises": "a", "raise_cap": "1"}
SOLVED = River3Spec("Ks 7d 2c 9h 3s", "AA, KK, AK", "QQ, JJ, AQs", "TT, 99, KQs", pot=60,
                    stack=200, bets="50%", raises="a", raise_cap=1)  # fmt: skip
"""The spot ``SMALL``'s fields describe."""


@pytest.fixture(autouse=True)
def _teardown() -> Iterator[None]:
    yield
    no_threads_left()


def check_curves(at: AppTest, job: MultiSolveJob, pot: float) -> dict:
    """The finished ``job``'s chart (its plotly spec, returned): a Nash-distance curve per
    player and NashConv, each player's last point its distance in % of the starting
    ``pot``."""
    spec = chart(at, "multi_curve")
    names = [t["name"] for t in spec["data"]]
    assert names == [f"Nash distance (player {k})" for k in (1, 2, 3)] + ["NashConv"]
    last = job.progress.last
    assert last is not None
    for k in range(3):
        pct = 100 * last.nash_distance[k] / pot
        assert spec["data"][k]["y"][-1] == pytest.approx(pct, rel=1e-12)
    return spec


def errors(at: AppTest) -> list[str]:
    return [str(e.value) for e in at.error]


def form_state(**changes: str) -> dict[str, object]:
    """Session state of Set up holding the river spot (fields: River3Spec names)."""
    values = {**SMALL, **changes}
    return {state.SOURCE: "preset:srp-river", state.SETUP_PLAYERS: 3,
            **{KEYS[f]: v for f, v in values.items()}}  # fmt: skip


def chart(at: AppTest, key: str) -> dict:
    found = next(c for c in at.get("plotly_chart") if key in str(c.proto.id))
    return json.loads(found.proto.spec)


def test_setup_offers_two_or_three_players_and_keeps_both_forms() -> None:
    at = page("setup")
    at.run()
    players = at.radio(key=state.SETUP_PLAYERS)
    assert players.options == ["2 (heads-up)", "3 (three-way)"] and players.value == 2
    heads_up_board = at.text_input(key=state.BOARD).value
    players.set_value(3).run()
    assert not at.exception
    labels = [t.label for t in at.text_area]
    assert labels == ["Player 1 range (first to act)", "Player 2 range (second to act)",
                      "Player 3 range (last to act)"]  # fmt: skip
    metrics = {m.label: m.value for m in at.metric}
    d = DEFAULTS
    default = River3Spec(d["board"], d["range0"], d["range1"], d["range2"], pot=60, stack=200)
    est = estimate(default)
    assert metrics["Nodes"] == f"{est.nodes:,}" == "331"
    assert metrics["Hands (P1 / P2 / P3)"] == " / ".join(map(str, est.hands)) == "21 / 16 / 12"
    assert "MB" in metrics["Memory"]
    at.text_area(key=state.R3_RANGE2).input("TT, 99").run()
    at.radio(key=state.SETUP_PLAYERS).set_value(2).run()
    assert at.text_input(key=state.BOARD).value == heads_up_board  # the heads-up form's
    at.radio(key=state.SETUP_PLAYERS).set_value(3).run()
    assert at.text_area(key=state.R3_RANGE2).value == "TT, 99"  # nothing typed lost


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("board", "Ks 7d 2c 9h Ks", "Board"),
        ("board", "Ks 7d 2c", "Board"),
        ("range1", "", "Range of player 2 (second to act)"),
        ("range0", "AA, ZZ", "Range of player 1 (first to act)"),
        ("stack", "1e12", "Effective stack (chips)"),
        ("stack", "20000000", "Effective stack (chips)"),  # past 10⁶ big blinds of 10
        ("bets", "2.5x", "Bets"),
    ],
)
def test_bad_input_is_named_under_its_field_and_kept(field: str, value: str, named: str) -> None:
    at = page("setup", **form_state(**{field: value}))
    at.run()
    assert not at.exception
    said = errors(at)
    assert len(said) == 1 and said[0].startswith(named), said
    assert "Traceback" not in said[0]
    assert "Fix the fields marked above" in texts(at)
    widget = (
        at.text_area(key=KEYS[field])
        if field.startswith("range")
        else at.text_input(key=KEYS[field])
    )
    assert widget.value == value  # what was typed stays
    solve = page("solve", **form_state(**{field: value}))
    solve.run()
    assert not solve.exception and "bad field" in texts(solve)
    assert solve.button(key="multi_start").disabled  # until Set up is fixed


def test_solve_explore_and_export_a_three_way_river() -> None:
    at = page("solve", **form_state())
    at.run()
    assert not at.exception and "Three-way hold'em river" in texts(at)
    assert "mccfr-es" not in at.selectbox(key=state.MULTI_ALGO).options
    at.selectbox(key=state.MULTI_ALGO).set_value("cfr+").run()
    at.number_input(key=state.MULTI_ITERATIONS).set_value(60).run()
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert isinstance(job, MultiSolveJob) and isinstance(job.mgame, River3Game)
    assert job.mgame.spec == SOLVED
    assert job.wait_for(lambda q: q.finished, timeout=120)
    assert job.progress.state in FINISHED and job.progress.iteration == 60
    at.run()
    assert not at.exception
    spec = check_curves(at, job, pot=60)
    last = job.progress.last
    assert last is not None
    assert "starting pot" in spec["layout"]["yaxis"]["title"]["text"]
    assert [m.value for m in at.metric[:3]] == [f"{d:.3g} chips" for d in last.nash_distance]

    carried = {**form_state(), state.MULTI_JOB: job, state.MULTI_GAME: "river3"}
    ex = page("explore", **carried)
    ex.run()
    assert not ex.exception
    g = job.mgame
    assert isinstance(g, River3Game)
    sigma, _ = job.average_profile()
    for player in (0, 1, 2):
        ex.radio(key=state.MULTI_PLAYER).set_value(player).run()
        node = int(str(ex.selectbox(key=state.MULTI_NODE).value))
        assert int(g.player[node]) == player
        assert f"to act after: {line_words(g, node)}" in texts(ex)
        grid = chart(ex, "river3_grid")
        assert any(t.get("type") == "heatmap" for t in grid["data"])  # the 13×13 grid
        frame = ex.dataframe[0].value
        assert list(frame["hand"]) == g.hand_names(player)
        blk = g.block(sigma, node)
        acts = [c for c in frame.columns if c not in ("hand", "class", "reach %")]
        assert len(acts) == blk.shape[0]
        for k, row in frame.iterrows():
            cell = int(COMBO_CELL[g.combos(player)[int(k)]])
            assert row["class"] == GRID_LABELS[cell // 13][cell % 13]
            for a, name in enumerate(acts):
                assert row[name] == pytest.approx(100 * blk[a, int(k)], abs=0.006)
        shares = g.reach_share(sigma, node)
        assert [m.value for m in ex.metric] == [reach_text(s) for s in shares]
    # a node deeper down: the third player facing a bet after a check
    node = next(int(n) for n in g.decision_nodes() if g.history(int(n)) == ("k", "b:30"))
    ex.radio(key=state.MULTI_PLAYER).set_value(2).run()
    ex.selectbox(key=state.MULTI_NODE).set_value(node).run()
    assert not ex.exception
    assert "**Player 3** to act after: P1 checks, P2 bets 30 (50 %)" in texts(ex)
    assert list(ex.dataframe[0].value.columns)[3:] == ["fold", "call", "all-in 200"]

    files = export_files(job)
    assert [f[1] for f in files] == ["river3-player1.csv", "river3-player2.csv",
                                     "river3-player3.csv", "river3-strategies.json"]  # fmt: skip
    back = profile_from_csv(g, [f[2] for f in files[:3]])
    np.testing.assert_array_equal(back, sigma)
    data = json.loads(files[3][2])
    assert data["game"] == "river3" and data["pot"] == 60.0
    assert data["nash_distance"] == list(last.nash_distance)
    out = page("export", **carried)
    out.run()
    assert not out.exception and "`hand_class`" in texts(out)
    assert [getattr(b, "label", None) for b in out.get("download_button")] == [
        "Player 1's strategy as CSV", "Player 2's strategy as CSV",
        "Player 3's strategy as CSV", "All three strategies as JSON"]  # fmt: skip


def test_heads_up_pages_say_they_are_heads_up_only() -> None:
    at = page("practice", **form_state())
    at.run()
    assert not at.exception and "heads-up only" in texts(at)
    assert "Three-way hold'em river" in texts(at)


def test_a_running_river3_solve_is_taken_back_after_a_reload() -> None:
    """A reload (a new session with the URL's ``?solve3=`` token) gets the same job, and Set
    up holds the same three-way spot with its fields, not the default game."""
    settings = {**form_state(range2="TT, 99"), state.MULTI_ALGO: "cfr+",
                state.MULTI_ITERATIONS: 1_000_000, state.MULTI_EVERY: 50}  # fmt: skip
    at = page("solve", **settings)  # a million iterations: running through this test
    at.run()
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    token = at.query_params[URL_KEY]
    assert isinstance(job, MultiSolveJob) and token and job.progress.state == RUNNING
    reloaded = page("solve")  # a new session on the same URL: Set up on its default game
    reloaded.query_params[URL_KEY] = token
    reloaded.run()
    assert not reloaded.exception
    assert reloaded.session_state[state.MULTI_JOB] is job
    assert reloaded.session_state[state.SETUP_PLAYERS] == 3
    assert reloaded.session_state[state.R3_RANGE2] == "TT, 99"
    assert "Three-way hold'em river" in texts(reloaded)
    assert reloaded.button(key="multi_start").disabled  # running
    kept = (state.SOURCE, state.LOADED_FROM, state.SETUP_PLAYERS, *KEYS.values())
    setup = page("setup", **{k: reloaded.session_state[k] for k in kept
                             if k in reloaded.session_state})  # fmt: skip
    setup.run()
    assert not setup.exception and setup.text_area(key=state.R3_RANGE2).value == "TT, 99"
    job.stop()
    assert job.join(30.0)


def test_explore_says_when_set_up_holds_another_spot() -> None:
    job = MultiSolveJob(river3_game(SOLVED), "cfr+", max_iterations=10).start()
    assert job.wait_for(lambda q: q.finished, timeout=60)
    same = page("explore", **form_state(), **{state.MULTI_JOB: job, state.MULTI_GAME: "river3"})
    same.run()
    assert not same.exception and "another three-way spot" not in texts(same)
    other = page("explore", **form_state(pot="80"),
                 **{state.MULTI_JOB: job, state.MULTI_GAME: "river3"})  # fmt: skip
    other.run()
    assert not other.exception and "another three-way spot" in texts(other)
    assert "board Ks 7d 2c 9h 3s · pot 60" in texts(other)  # the solved spot's


def test_reach_reads_in_percent_small_ones_not_as_zero() -> None:
    assert reach_text(1.0) == "100.0 %" and reach_text(0.5) == "50.0 %"
    assert reach_text(0.0) == "0.0 %" and reach_text(0.00042) == "0.042 %"
    assert reach_text(0.0095) == "0.95 %"


def test_a_start_with_a_bad_spot_names_the_field() -> None:
    """The Solve button is disabled on a bad spot; its callback (a click that raced the
    edit) still refuses, naming the field."""
    at = page("solve", **form_state())
    at.run()
    assert not at.button(key="multi_start").disabled
    at.session_state[state.R3_RANGE1] = ""  # (the spot turns bad behind the drawn button)
    at.button(key="multi_start").click().run()
    assert at.button(key="multi_start").disabled
    assert state.MULTI_JOB not in at.session_state  # no solve started
    assert "Range of player 2 (second to act)" in str(at.session_state[state.MULTI_ERROR])


def test_compare_does_not_race_the_hidden_heads_up_form() -> None:
    """With 3 players on Set up, Compare's "current set-up" is the three-way spot: not raced
    (three-player races run from the command line), never the heads-up form behind it."""
    at = page("compare", **form_state(), **{state.COMPARE_GAME: state.CURRENT_SETUP})
    at.run()
    assert not at.exception
    assert any("Compare races heads-up games" in str(e.value) for e in at.error)
    assert at.button(key="btn_race_start").disabled
    heads_up = page("compare", **{**form_state(), state.SETUP_PLAYERS: 2,
                                  state.COMPARE_GAME: state.CURRENT_SETUP})  # fmt: skip
    heads_up.run()
    assert not any("Compare races heads-up games" in str(e.value) for e in heads_up.error)
