"""AppTest: a three-way hold'em TURN spot in the app (issue 49, docs/multiway.md). Set up's
three-player form takes a four-card board and then shows the river's sizes beside the turn's,
the estimate (both streets) before Solve, bad fields named under them with the input kept;
Solve runs it in the background with one curve per player; Explore picks the river card,
then a river line, and shows each player's grid with the combos holding the card blocked;
Export's files carry the river card in the line and parse back to the engine's profile."""

from __future__ import annotations

import json
from collections.abc import Iterator

import numpy as np
import pytest
from app_helpers import no_threads_left, page
from multiway_helpers import texts
from test_app_river3 import chart, check_curves, errors
from test_river3_job_export import profile_from_csv
from test_turn3_job_export import valid_cells

from app import state
from app.features.multi_reload import URL_KEY
from app.features.multi_study import export_files
from app.features.river3_form import DEFAULTS, KEYS, R3_RIVER_BETS, R3_RIVER_RAISES
from app.features.river3_study import RIVER_CARD, reach_text
from solver.cfr.river3_view import River3Game, line_words
from solver.games.holdem3_turn import Turn3Spec, estimate_turn
from solver.run.jobs import FINISHED, RUNNING
from solver.run.multi_job import MultiSolveJob

TURN = {**DEFAULTS, "board": "Ks 7d 2c 9h", "range0": "AA, KQs", "range1": "QQ, AQs",
        "range2": "TT, 99", "stack": "100", "bets": "50%", "raises": "a", "raise_cap": "1",
        "river_bets": "a"}  # fmt: skip
SOLVED = Turn3Spec("Ks 7d 2c 9h", "AA, KQs", "QQ, AQs", "TT, 99", pot=60, stack=100,
                   bets="50%", raises="a", raise_cap=1, river_bets="a")  # fmt: skip
"""The spot ``TURN``'s fields describe."""


@pytest.fixture(autouse=True)
def _teardown() -> Iterator[None]:
    yield
    no_threads_left()


def form_state(**changes: str) -> dict[str, object]:
    values = {**TURN, **changes}
    return {state.SOURCE: "preset:srp-river", state.SETUP_PLAYERS: 3,
            **{KEYS[f]: v for f, v in values.items()}}  # fmt: skip


def test_setup_takes_a_four_card_board_and_shows_the_river_sizes() -> None:
    at = page("setup", **form_state())
    at.run()
    assert not at.exception and not errors(at)
    labels = [t.label for t in at.text_input]
    assert "Turn bets" in labels and "River bets" in labels and "River raises" in labels
    assert at.text_input(key=R3_RIVER_BETS).value == "a"
    est = estimate_turn(SOLVED)
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Nodes"] == f"{est.nodes:,}"
    assert metrics["Hands (P1 / P2 / P3)"] == " / ".join(map(str, est.hands)) == "9 / 10 / 9"
    assert metrics["Memory"] == f"{est.memory_mb:,.1f} MB"
    assert f"{est.river_cards} river cards" in texts(at)
    # a river board: no river sizes, the river's estimate
    river = page("setup", **form_state(board="Ks 7d 2c 9h 3s"))
    river.run()
    assert not river.exception and not errors(river)
    assert "River bets" not in [t.label for t in river.text_input]
    assert "Bets" in [t.label for t in river.text_input]


@pytest.mark.parametrize(
    ("field", "value", "named"),
    [
        ("board", "Ks 7d 2c Ks", "Board"),
        ("board", "Ks 7d 2c 9h 3s 4s", "Board"),
        ("stack", "1e12", "Effective stack (chips)"),
        ("river_bets", "2.5x", "River bets"),
        ("river_raises", "50%, zz", "River raises"),
        ("range2", "", "Range of player 3 (last to act)"),
        ("max_memory_mb", "1", "Max memory (MB)"),
    ],
)
def test_bad_input_is_named_under_its_field_and_kept(field: str, value: str, named: str) -> None:
    at = page("setup", **form_state(**{field: value}))
    at.run()
    assert not at.exception
    said = errors(at)
    assert len(said) == 1 and said[0].startswith(named), said
    assert "Traceback" not in said[0]
    widget = (
        at.text_area(key=KEYS[field])
        if field.startswith("range")
        else at.text_input(key=KEYS[field])
    )
    assert widget.value == value  # what was typed stays
    solve = page("solve", **form_state(**{field: value}))
    solve.run()
    assert not solve.exception and "bad field" in texts(solve)
    assert solve.button(key="multi_start").disabled


def test_solve_explore_and_export_a_three_way_turn() -> None:
    at = page("solve", **form_state())
    at.run()
    assert not at.exception and "Three-way hold'em turn" in texts(at)
    assert "river bets a" in texts(at)
    at.selectbox(key=state.MULTI_ALGO).set_value("cfr+").run()
    at.number_input(key=state.MULTI_ITERATIONS).set_value(20).run()
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert isinstance(job, MultiSolveJob) and isinstance(job.mgame, River3Game)
    assert job.mgame.spec == SOLVED and job.mgame.is_turn
    assert job.wait_for(lambda q: q.finished, timeout=240)
    assert job.progress.state in FINISHED and job.progress.iteration == 20
    at.run()
    assert not at.exception
    check_curves(at, job, pot=60)
    last = job.progress.last
    assert last is not None

    g = job.mgame
    sigma, _ = job.average_profile()
    carried = {**form_state(), state.MULTI_JOB: job, state.MULTI_GAME: "river3"}
    ex = page("explore", **carried)
    ex.run()
    assert not ex.exception and "Three-way turn" in texts(ex)
    # player 3 after three turn checks and two river checks, the river Ts: TT's Ts combos out
    ex.radio(key=state.MULTI_PLAYER).set_value(2).run()
    cards = g.river_cards()
    b = cards.index("Ts") + 1
    ex.selectbox(key=RIVER_CARD).set_value(b).run()
    assert not ex.exception
    d = g.decision_nodes()
    options = [int(n) for n in d[(g.player[d] == 2) & (g.boards[d] == b)]]
    shown = ex.selectbox(key=state.MULTI_NODE).options
    assert shown == [line_words(g, n) for n in options] and len(shown) > 1
    assert all("/ river Ts /" in w for w in shown)
    node = next(n for n in options if g.history(n) == ("k", "k", "k", "d:Ts", "k", "k"))
    ex.selectbox(key=state.MULTI_NODE).set_value(node).run()
    assert not ex.exception
    want = "P1 checks, P2 checks, P3 checks / river Ts / P1 checks, P2 checks"
    assert line_words(g, node) == want and f"to act after: {want}" in texts(ex)
    blocked = ["TsTh", "TsTd", "TsTc"]
    assert all(h in g.hand_names(2) for h in blocked)
    assert "Blocked by the river Ts: TsTh, TsTd, TsTc" in texts(ex)
    grid = chart(ex, "river3_grid")
    heat = next(t for t in grid["data"] if t.get("type") == "heatmap" and t.get("hovertext"))
    hover = "\n".join(str(x) for row in heat["hovertext"] for x in row)
    assert "blocked by the river Ts: TsTh, TsTd, TsTc" in hover
    frame = ex.dataframe[0].value
    assert list(frame["hand"]) == [h for h in g.hand_names(2) if h not in blocked]
    blk = g.block(sigma, node)
    keep = [k for k, h in enumerate(g.hand_names(2)) if h not in blocked]
    acts = [c for c in frame.columns if c not in ("hand", "class", "reach %")]
    for i, k in enumerate(keep):
        for a, name in enumerate(acts):
            assert frame.iloc[i][name] == pytest.approx(100 * blk[a, k], abs=0.006)
    shares = g.reach_share(sigma, node)
    assert [m.value for m in ex.metric] == [reach_text(s) for s in shares]
    own = g.reach(sigma, node)[2]
    assert not own[[g.hand_names(2).index(h) for h in blocked]].any()  # blocked: no reach
    w = g.setup.hand_weights[2] * g.valid(node, 2)
    assert shares[2] == pytest.approx(float(w @ own / w.sum()), abs=1e-15)

    files = export_files(job)
    assert [f[1] for f in files] == ["turn3-player1.csv", "turn3-player2.csv",
                                     "turn3-player3.csv", "turn3-strategies.json"]  # fmt: skip
    assert f',"{want}",' in files[2][2]  # the line in words carries the river card
    back = profile_from_csv(g, [f[2] for f in files[:3]])
    valid = valid_cells(g)
    np.testing.assert_array_equal(np.isnan(back), ~valid)
    np.testing.assert_array_equal(back[valid], sigma[valid])
    data = json.loads(files[3][2])
    assert data["game"] == "turn3" and data["spot"]["river_bets"] == "a"
    assert data["nash_distance"] == list(last.nash_distance)


def test_river_sizes_left_blank_are_the_turns() -> None:
    at = page("solve", **form_state(river_bets="", river_raises=""))
    at.run()
    assert not at.exception
    assert "river bets 50% · raises a" in texts(at)
    assert at.session_state[R3_RIVER_RAISES] == ""


def test_a_running_turn_solve_keeps_its_name_and_comes_back_after_a_reload() -> None:
    """While a turn spot solves, Solve names it a turn even when Set up's board turns into
    a river; a reload (the URL's token) gets the same job and Set up's river sizes back."""
    settings = {**form_state(), state.MULTI_ALGO: "cfr+", state.MULTI_ITERATIONS: 1_000_000,
                state.MULTI_EVERY: 50}  # fmt: skip
    at = page("solve", **settings)  # a million iterations: running through this test
    at.run()
    at.button(key="multi_start").click().run()
    job = at.session_state[state.MULTI_JOB]
    assert isinstance(job, MultiSolveJob) and job.progress.state == RUNNING
    at.session_state[state.R3_BOARD] = "Ks 7d 2c 9h 3s"  # Set up: now a river
    at.run()
    assert not at.exception
    assert "**Game:** Three-way hold'em turn — solving" in texts(at)
    reloaded = page("solve")
    reloaded.query_params[URL_KEY] = at.query_params[URL_KEY]
    reloaded.run()
    assert not reloaded.exception and reloaded.session_state[state.MULTI_JOB] is job
    assert reloaded.session_state[R3_RIVER_BETS] == "a"
    job.stop()
    assert job.join(30.0)
