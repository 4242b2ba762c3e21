"""AppTest: heads-up preflop in the app (issue 37, docs/preflop.md). Set up lists the preflop
presets and a custom preflop game whose fields (stack, tree, raise sizes, blinds, ante, both
ranges) report bad input by name, keep it and block Solve; a preflop game source round-trips
through saves (and a save with a bad preflop field is refused naming it); Solve shows the
exploitability in bb/hand and mbb/hand and the grid of the shove; the spot header and the line
speak preflop; Explore gives each action's EV per hand in bb; Export writes the charts; the
chart by stack solves push/fold at several stacks in the background and shows both charts.

Solves here are push/fold to a loose target (about a second); the equity table is the stored
one (never built in a test)."""

from __future__ import annotations

import functools
import io
import json
import re
import threading

import numpy as np
import pytest
from app_helpers import app, no_threads_left, page, poll
from streamlit.testing.v1 import AppTest

from app import preflop_spec as PF
from app import spec as S
from app import state
from app.components.spot_header import header_html
from app.components.stack_chart_view import chart_csv, stack_text
from app.components.views import charts_html
from app.features.stack_chart import ChartJob
from solver import Game, make_rule
from solver.files.export import (
    ExportError,
    build_from_source,
    load_solve,
    preflop_source,
    save_solve,
)
from solver.files.grid_export import chart_rows
from solver.games import make_game
from solver.games.preflop import PreflopSpec
from solver.poker.ranges import CLASS_LABELS
from solver.run.jobs import SolveJob
from solver.study.words import action_names, line_words, node_pot, spot

PUSH_FOLD = "preset:preflop-pushfold-10bb"
RAISE_JAM = "preset:preflop-raisejam-15bb"


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


@functools.cache
def _push_fold() -> tuple[Game, dict]:
    spec = PreflopSpec(stack_bb=10, tree="push-fold")
    return make_game("preflop", stack_bb=10, tree="push-fold"), preflop_source(spec)


def _finished(game: Game, target: float = 2e-3) -> SolveJob:
    job = SolveJob(game, make_rule("dcfr"), max_iterations=2000, target=target).start()
    job.wait_for(lambda q: q.finished, timeout=60)
    return job


def _setup(**st: object) -> AppTest:
    at = page("setup", **st)
    at.run()
    assert not at.exception
    return at


# ----- Set up ----------------------------------------------------------------------------------
def test_setup_offers_the_preflop_presets_and_fills_the_form() -> None:
    at = _setup(**{state.SOURCE: RAISE_JAM})
    options = at.selectbox(key=state.SOURCE).options
    assert "Preflop push/fold, 10 bb" in options and "Preflop raise/jam, 15 bb" in options
    assert "Custom preflop game (push/fold, raise/jam)" in options
    assert at.text_input(key=state.PF_STACK).value == "15"
    assert at.selectbox(key=state.PF_TREE).value == "raise-jam"
    assert at.text_input(key=state.PF_RAISES).value == "2"
    assert not at.text_input(key=state.PF_RAISES).disabled
    assert [at.text_input(key=k).value for k in (state.PF_SB, state.PF_BB, state.PF_ANTE)] == [
        "0.5",
        "1",
        "0",
    ]
    areas = {a.label: a.value for a in at.text_area}
    assert areas == {"SB range": PF.EVERY_HAND, "BB range": PF.EVERY_HAND}
    assert not at.error
    # push/fold has no raise sizes: the field is off
    at.selectbox(key=state.PF_TREE).set_value("push-fold").run()
    assert at.text_input(key=state.PF_RAISES).disabled and not at.error


@pytest.mark.parametrize(
    ("key", "typed", "message"),
    [
        (state.PF_STACK, "60", "Stack (bb): must be from 1 to 50, got 60."),
        (state.PF_STACK, "abc", "Stack (bb): 'abc' is not a number."),
        (state.PF_SB, "2", "Small blind: the small blind (2) must not exceed the big blind (1)"),
        (state.PF_ANTE, "-1", "Ante (per player): must be from 0 to 1,000,000,000, got -1"),
        (state.PF_RAISES, "1.5", "Raise sizes (bb): a raise is to at least 2 bb"),
        (state.OOP_RANGE, "AKx", "SB range:"),
        (state.IP_RANGE, "", "BB range:"),
    ],
)
def test_bad_preflop_fields_are_named_kept_and_block_solve(
    key: str, typed: str, message: str
) -> None:
    at = _setup(**{state.SOURCE: RAISE_JAM})
    at.session_state[key] = typed
    at.run()
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and errors[0].startswith(message), errors
    assert at.session_state[key] == typed  # what was typed stays
    assert at.warning[0].value.startswith("Fix the fields")
    whole = app(**{state.SOURCE: RAISE_JAM})
    whole.run()
    whole.session_state[key] = typed
    whole.run()
    assert not whole.exception
    assert whole.button(key="btn_solve").disabled
    assert any(message in e.value for e in whole.error)


def test_two_bad_fields_are_both_named() -> None:
    values = {**PF.form_values(PreflopSpec(tree="raise-jam")), "stack_bb": "0.5", "sb": "3"}
    checked = PF.check_form(values)
    assert checked.spec is None
    assert set(checked.errors) == {"stack_bb", "sb"}


def test_custom_preflop_game_round_trips_through_a_save() -> None:
    at = _setup(**{state.SOURCE: S.CUSTOM_PREFLOP})
    for key, value in (
        (state.PF_STACK, "12"),
        (state.PF_TREE, "raise-jam"),
        (state.PF_RAISES, "2.5x"),
        (state.PF_ANTE, "0.1"),
        (state.OOP_RANGE, "22+, A2s+, KTo+"),
    ):
        at.session_state[key] = value
    at.run()
    assert not at.error
    source = _request(at)
    assert source["kind"] == "preflop" and source["spec"]["raise_sizes"] == "2.5x"
    game = S.build_game(source)
    assert game.meta["stack"] == 12 and game.meta["raise_sizes"] == [2.5]
    assert game.meta["ante"] == pytest.approx(0.1) and game.num_hands[0] < 1326
    job = _finished(game, target=0.05)
    data = save_solve(job.engine, source, list(job.progress.history))
    loaded = load_solve(data)
    assert loaded.game.action_size == game.action_size
    assert S.same_game(loaded.meta["game"], source)
    assert S.source_id_for(loaded.meta["game"]) == S.CUSTOM_PREFLOP
    assert S.preflop_in(loaded.meta["game"]) == PF.check_form(_form(at)).spec


def _form(at: AppTest) -> dict[str, object]:
    from app.request import PF_WIDGET

    return {f: at.session_state[k] for f, k in PF_WIDGET.items()}


def _request(at: AppTest) -> dict:
    checked = PF.check_form(_form(at))
    assert checked.spec is not None, checked.errors
    return preflop_source(checked.spec)


def test_preset_source_is_its_preset_however_it_is_typed() -> None:
    preset = S.presets()["preflop-pushfold-10bb"]
    assert preset.preflop is not None
    typed = preflop_source(PreflopSpec(stack_bb=10, sb=1, bb=2, sb_range=PF.EVERY_HAND))
    assert S.source_id_for(typed) == PUSH_FOLD
    assert S.player_names(typed) == ("SB", "BB")
    assert S.toy_name(PUSH_FOLD) is None and not S.is_holdem_spot(PUSH_FOLD)


def test_an_uploaded_preflop_preset_opens_in_the_form() -> None:
    """Through the uploader's callback (AppTest cannot feed a file uploader): the preset is
    the session's game, its values in the preflop form, no message."""

    def script() -> None:
        from app import state
        from app.screens import setup

        class Upload:
            name = "mine.toml"

            def getvalue(self) -> bytes:
                return b'name = "Mine"\ngame = "preflop"\n[preflop]\nstack_bb = 7\nante = 0.125\n'

        state.put(state.UPLOAD, Upload())
        setup._on_upload()

    up = AppTest.from_function(script, default_timeout=60)
    up.session_state[state.SOURCE] = "preset:srp-river"
    up.run()
    assert not up.exception
    assert up.session_state[state.SOURCE] == "upload"
    assert not up.session_state["setup_upload_message"]
    at = _setup(**{state.SOURCE: "upload", state.UPLOADED: up.session_state[state.UPLOADED]})
    assert at.text_input(key=state.PF_STACK).value == "7"
    assert at.text_input(key=state.PF_ANTE).value == "0.125"
    assert not at.error
    assert S.toy_name("preset:preflop-raisejam-15bb") is None  # not a toy game any more


def _resave(data: bytes, game_meta: dict) -> bytes:
    with np.load(io.BytesIO(data), allow_pickle=False) as npz:
        arrays = {k: npz[k] for k in npz.files}
    meta = json.loads(str(arrays["meta"]))
    meta["game"] = game_meta
    arrays["meta"] = np.array(json.dumps(meta))
    buf = io.BytesIO()
    np.savez_compressed(buf, **arrays)
    return buf.getvalue()


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"stack_bb": 60}, "metadata: preflop spec stack_bb: 60 bb is too large"),
        ({"tree": "limp"}, "metadata: preflop spec tree: must be one of"),
        ({"sb_range": "ZZ"}, "metadata: preflop spec sb_range:"),
        ({"chips": 3}, "metadata: preflop spec: unknown field(s) chips"),
        ({"stack_bb": 11}, "the file holds"),  # another game: a bigger stack, other sizes
    ],
)
def test_a_save_with_a_bad_preflop_field_is_refused_by_name(change: dict, message: str) -> None:
    game, source = _push_fold()
    job = _finished(game, target=0.05)
    data = save_solve(job.engine, source, list(job.progress.history))
    if message == "the file holds":  # a raise/jam game of another size than the sums saved
        change = {"tree": "raise-jam", "raise_sizes": [2.0]}
    bad = _resave(data, {"kind": "preflop", "spec": {**source["spec"], **change}})
    with pytest.raises(ExportError) as err:
        load_solve(bad)
    assert str(err.value).startswith(message), str(err.value)
    with pytest.raises(ExportError, match="metadata: preflop spec missing"):
        build_from_source({"kind": "preflop", "spec": "x"})


# ----- words and the spot header ---------------------------------------------------------------
def test_the_line_and_the_header_speak_preflop() -> None:
    game = make_game("preflop", stack_bb=15, tree="raise-jam", raise_sizes=[2.0])
    node = game.find(("r:2", "r:15"))
    assert line_words(game, node) == "SB raise to 2 → BB all-in 15"
    assert action_names(game, 0) == ["Fold", "Raise to 2", "All-in 15"]
    assert node_pot(game, game.find(("r:2",))) == 3.0  # 2 + the BB's 1
    s = spot(game, game.find(("r:2",)))
    assert (s.pot, s.stack, s.blinds, s.starting_stack, s.street) == (
        3.0,
        13.0,
        (0.5, 1.0),
        15.0,
        "preflop",
    )
    html = header_html(s)
    assert "<b>SB</b> vs <b>BB</b>" in html and "Blinds <b>0.5/1 bb</b>" in html
    assert "Stack <b>15 bb</b>" in html and "Pot <b>3 bb</b>" in html and "SPR" not in html
    antes = make_game("preflop", stack_bb=10, tree="push-fold", ante=0.1)
    assert action_names(antes, 0) == ["Fold", "All-in 9.9"]  # the ante is dead money
    assert "Ante <b>0.1 bb</b>" in header_html(spot(antes, 0))
    assert node_pot(antes, 0) == pytest.approx(1.7)


# ----- Solve -------------------------------------------------------------------------------------
def test_solve_shows_bb_and_mbb_per_hand_and_the_shove_grid() -> None:
    at = app(**{state.SOURCE: PUSH_FOLD})
    at.run()
    assert not at.exception
    unit = at.radio(key=state.TARGET_UNIT)
    assert unit.options == ["bb"] and at.text_input(key=state.TARGET).value == "0.001"
    header = next(e.proto.body for e in at.get("html") if "spot-header" in e.proto.body)
    assert "Blinds <b>0.5/1 bb</b>" in header and "Stack <b>10 bb</b>" in header
    assert "SB to act first" in header
    assert " to 0.001 bb" in at.markdown[0].value  # the estimate, in bb
    at.text_input(key=state.TARGET).set_value("0.002").run()
    at.button(key="btn_solve").click().run()
    job = at.session_state[state.JOB]
    poll(at, lambda: job.progress.finished)
    at.run()
    assert job.progress.stopped_by == "target" and job.target == pytest.approx(0.002)
    metrics = {m.label: m.value for m in at.metric}
    assert float(metrics["Exploitability (mbb/hand)"]) <= 2.0
    status = next(m.value for m in at.markdown if "Done" in m.value)
    assert re.search(r"[\d.e-]+ bb/hand · [\d.]+ mbb/hand", status), status
    charts = {c.proto.id: json.loads(c.proto.spec) for c in at.get("plotly_chart")}
    curve = next(c for c in charts.values() if c["data"][0].get("name") == "exploitability")
    assert curve["layout"]["yaxis"]["title"]["text"] == "exploitability (mbb/hand)"
    ys = curve["data"][0]["y"]
    assert ys[-1] == pytest.approx(1000 * job.progress.history[-1].exploitability)
    grid = next(c for c in charts.values() if any(t["type"] == "heatmap" for t in c["data"]))
    hover = grid["data"][1]["hovertext"]
    assert hover[0][0].startswith("<b>AA</b>") and "All-in 10: 100.0%" in hover[0][0]
    names = [t.get("name") for t in grid["data"]]
    assert "Fold" in names and "All-in 10" in names  # the legend: fold and shove


# ----- Explore and Export ------------------------------------------------------------------------
def test_explore_gives_each_actions_ev_per_hand_in_bb() -> None:
    game, source = _push_fold()
    job = _finished(game)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    assert not at.exception
    labels = [b.label for b in at.button if b.key and b.key.startswith("act_")]
    assert labels == ["Fold", "All-in 10"]
    table = _hand_table(at)
    assert {"EV", "EV Fold", "EV All-in 10"} <= set(table.columns)
    assert "equity %" not in table.columns and "EQR" not in table.columns
    row = table[table["hand"] == "AhAs"].iloc[0]
    assert row["EV Fold"] == pytest.approx(-0.5)  # folding the SB loses the small blind
    assert row["EV All-in 10"] > 2.0 and row["EV"] == pytest.approx(row["EV All-in 10"], abs=1e-6)
    assert any("EV in bb" in c.value for c in at.caption)
    assert any(c.value == "Pot at this node: 1.5 bb" for c in at.caption)
    colour = at.selectbox(key=state.GRID_COLOUR).options
    assert colour == ["Strategy", "EV", "EV of Fold", "EV of All-in 10"]
    at.button(key="act_1").click().run()  # BB facing the shove
    table = _hand_table(at)
    assert {"EV Fold", "EV Call"} <= set(table.columns)
    assert table["EV Fold"].to_numpy() == pytest.approx(-1.0)


def _hand_table(at: AppTest):
    """The per-hand table (the first frame with a hand column and EVs)."""
    return next(d.value for d in at.dataframe if {"hand", "EV"} <= set(d.value.columns))


def test_export_writes_the_preflop_charts() -> None:
    game, source = _push_fold()
    job = _finished(game)
    sigma, _ = job.average_strategy()
    rows = chart_rows(game, sigma)
    root = [r for r in rows if r["history"] == ""]
    assert len(root) == 169 and {r["player"] for r in root} == {0}
    aa = next(r for r in root if r["hand"] == "AA")
    assert aa["combos"] == pytest.approx(6.0) and aa["r:10"] == pytest.approx(1.0, abs=1e-3)
    call = [r for r in rows if r["history"] == "r:10"]
    assert call and all(set(r) >= {"f", "c"} for r in call)
    assert next(r for r in call if r["hand"] == "AA")["c"] == pytest.approx(1.0, abs=1e-3)
    page_html = charts_html(game, sigma, ("SB", "BB"))
    assert "start" in page_html and "SB all-in 10" in page_html and "BB to act" in page_html
    assert page_html.count("plotly.js") >= 1 and page_html.count("<div") >= 2
    at = page("export", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    assert not at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Preflop charts as HTML" in labels and "Preflop charts as CSV" in labels
    assert "Grid at the current node as PNG" in labels


# ----- the chart by stack --------------------------------------------------------------------
def test_chart_by_stack_solves_in_the_background_and_shows_both_charts() -> None:
    at = page(
        "charts",
        **{
            state.CHART_FROM: "2",
            state.CHART_TO: "8",
            state.CHART_STEP: "3",
            state.CHART_TARGET: "1",
        },
    )
    at.run()
    assert not at.exception
    assert any(c.value.startswith("3 stacks: 2 to 8 bb") for c in at.caption)
    at.button(key="chart_start").click().run()
    job = at.session_state[state.CHART_JOB]
    assert isinstance(job, ChartJob) and job.stacks == (2.0, 5.0, 8.0)
    poll(at, lambda: job.snapshot().finished)
    at.run()
    p = job.snapshot()
    assert p.state == "done" and p.done == 3 and p.chart is not None
    assert float(p.chart.exploitability.max()) <= 1e-3  # 1 mbb/hand = 0.001 bb
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert [c["layout"]["title"]["text"] for c in charts] == [
        "SB shoves up to (bb)",
        "BB calls a shove up to (bb)",
    ]
    sb = charts[0]["data"][0]["text"][::-1]  # (rows drawn bottom-up)
    assert sb[0][0] == "AA<br>8+"  # aces shove at every stack
    largest = p.chart.largest("SB")
    t3s = CLASS_LABELS.index("T3s")
    assert sb[t3s // 13][t3s % 13] == f"T3s<br>{stack_text(largest[t3s], 8.0)}"
    assert not at.button(key="chart_start").disabled and at.button(key="chart_stop").disabled
    csv = chart_csv(p.chart.stacks, largest, p.chart.largest("BB")).splitlines()
    assert csv[1] == "hand,sb_shoves_up_to,bb_calls_up_to" and csv[2] == "AA,8,8"


@pytest.mark.parametrize(
    ("key", "typed", "message"),
    [
        (state.CHART_TO, "60", "To (bb): must be from 1 to 50, got 60."),
        (state.CHART_FROM, "9", "To (bb): must be at least From (9), got 8."),
        (state.CHART_STEP, "0.1", "Step (bb): 201 stacks from 1 to 21; at most 200 in one chart."),
    ],
)
def test_chart_fields_name_bad_input_and_block_the_start(
    key: str, typed: str, message: str
) -> None:
    at = page("charts", **{state.CHART_FROM: "1", state.CHART_TO: "8", state.CHART_STEP: "1"})
    at.run()
    if key == state.CHART_STEP:
        at.session_state[state.CHART_TO] = "21"
    at.session_state[key] = typed
    at.run()
    assert [e.value for e in at.error] == [message]
    assert at.button(key="chart_start").disabled


def test_a_stopped_chart_says_how_far_it_got() -> None:
    never = threading.Event()  # the solves wait for kernels that never come: stop them first
    job = ChartJob([2.0, 3.0], ready=never).start()
    job.stop()
    never.set()
    job.join(10.0)
    assert job.snapshot().state == "stopped" and not job.alive
    at = page("charts", **{state.CHART_JOB: job})
    at.run()
    assert at.warning[0].value == "Stopped after 0 of 2 stacks."


def test_a_chart_outlives_a_reload_and_ends_only_past_the_grace_period() -> None:
    """The chart job follows the solves' rule: a reload (a new session presenting the URL's
    token) takes it back running, and it ends only once no page has watched it for the grace
    period (it used to stop as soon as the session that started it was gone)."""
    import time

    from app.runtime import GRACE_S, registry

    url_key = "chart"  # the query parameter a chart's page URL carries its token in

    fields = {state.CHART_FROM: "1", state.CHART_TO: "20.9", state.CHART_STEP: "0.1"}
    at = page("charts", **fields)  # 200 stacks: still running through this test
    at.run()
    at.button(key="chart_start").click().run()
    job = at.session_state[state.CHART_JOB]
    token = at.query_params[url_key]
    assert isinstance(job, ChartJob) and token and registry().watchers(job)

    reloaded = page("charts")  # a new session, on the same URL
    reloaded.query_params[url_key] = token
    reloaded.run()
    assert not reloaded.exception
    assert reloaded.session_state[state.CHART_JOB] is job
    assert reloaded.text_input(key=state.CHART_STEP).value == "0.1"  # the fields it ran with
    assert reloaded.button(key="chart_start").disabled  # running
    assert not reloaded.button(key="chart_stop").disabled

    now = time.monotonic()
    registry().reap(lambda s: False, GRACE_S, now=now)  # every page closed: the grace begins
    assert not job.snapshot().finished
    registry().reap(lambda s: False, GRACE_S, now=now + GRACE_S)  # the grace is over
    assert job.join(10.0) and job.snapshot().state == "stopped" and job.stopped_by == "session"
    gone = page("charts")  # the URL again, once the job is forgotten
    gone.query_params[url_key] = token
    gone.run()
    assert state.CHART_JOB not in gone.session_state
    assert "has ended" in gone.info[0].value and url_key not in gone.query_params
