"""AppTest: the Explore page walks the tree of a finished solve and shows the solver's
numbers (strategy grid / card table, per-hand EVs and equities, frequencies); its hand filter
reads range syntax and clears when the node changes; all-in actions say so."""

from __future__ import annotations

import functools
import json
import re
from dataclasses import asdict

import numpy as np
import pytest
from app_helpers import finished_job, no_threads_left, page, preset_game
from streamlit.testing.v1 import AppTest

from app import state
from solver import Game, make_rule
from solver.files.presets import load_preset
from solver.run.jobs import SolveJob
from solver.study.analysis import analyze


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


@functools.cache
def _river() -> tuple[Game, dict]:
    p = load_preset("srp-river")
    assert p.holdem is not None
    return p.build(), {"kind": "holdem", "spec": asdict(p.holdem)}


def _finished(game: Game, iterations: int = 40) -> SolveJob:
    job = SolveJob(game, make_rule("dcfr"), max_iterations=iterations).start()
    job.wait_for(lambda q: q.finished, timeout=60)
    return job


def test_nothing_to_explore_yet() -> None:
    at = page("explore")
    at.run()
    assert not at.exception and "Nothing solved yet" in at.info[0].value


@pytest.mark.parametrize("kept", [10**9, -1, True, "3"])
def test_a_node_kept_from_another_game_explores_the_root(kept: object) -> None:
    """An explored node out of this game's range (or not a node number) reads as the root,
    on Explore and on every page that watches the node (app.state.explored_node)."""
    game, source = _river()
    job = _finished(game)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: kept})
    at.run()
    assert not at.exception
    assert at.session_state[state.EXPLORE_NODE] == 0
    for name in ("export", "practice"):
        other = page(name, **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: kept})
        other.run()
        assert not other.exception, name


def test_walk_two_actions_and_read_the_numbers() -> None:
    game, source = _river()
    job = _finished(game)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    assert not at.exception
    grid = json.loads(at.get("plotly_chart")[0].proto.spec)
    kinds = [t["type"] for t in grid["data"]]
    assert kinds[:2] == ["image", "heatmap"]  # the cells as one picture, hover on a heatmap
    # ... and the labels as text (a picture's letters blur at a pixel ratio of 1: ".Jo")
    text = grid["data"][2]
    assert text["mode"] == "text" and len(text["text"]) == 169 and "AJo" in text["text"]
    assert not grid["layout"].get("shapes")
    hover = grid["data"][1]["hovertext"]
    assert len(hover) == 13 and hover[0][0].startswith("<b>AA</b>")
    at.button(key="act_1").click().run()  # OOP bets 100
    at.button(key="act_1").click().run()  # IP calls
    node = at.session_state[state.EXPLORE_NODE]
    assert game.history(node) == ("b:100", "c")
    assert not at.exception
    # the last breadcrumb is the current node; clicking the root goes back
    at.button(key="crumb_0").click().run()
    assert at.session_state[state.EXPLORE_NODE] == 0
    # the per-hand table holds the analysis numbers
    table = at.dataframe[0].value
    average, _ = job.average_strategy()
    a = analyze(game, average, 0)
    v = a.players[0]
    names = [n for h, n in enumerate(v.hand_names) if v.valid[h] and v.reach[h] > 0]
    assert sorted(table["hand"]) == sorted(names)  # (strongest first: test_app_study)
    names = list(table["hand"])
    idx = [v.hand_names.index(n) for n in names]
    np.testing.assert_allclose(table["EV"], v.ev[idx])
    np.testing.assert_allclose(table["equity %"], 100 * v.equity[idx])
    # the filter reads range syntax: a class, both suits of it, a combo, words
    names_all = list(at.dataframe[0].value["hand"])
    for text, keep in (
        ("KK", lambda h: h[0] == "K" and h[2] == "K"),
        ("AK", lambda h: {h[0], h[2]} == {"A", "K"}),
        ("AKs", lambda h: {h[0], h[2]} == {"A", "K"} and h[1] == h[3]),
        ("pairs", lambda h: h[0] == h[2]),
        ("suited", lambda h: h[1] == h[3] and h[0] != h[2]),
        ("T9s+, pairs", lambda h: h[0] == h[2] or ({h[0], h[2]} == {"T", "9"} and h[1] == h[3])),
    ):
        at.text_input(key=state.COMBO_FILTER).set_value(text).run()
        shown = list(at.dataframe[0].value["hand"])
        assert shown == [h for h in names_all if keep(h)], text
        assert shown  # the examples are not empty on this preset
    at.text_input(key=state.COMBO_FILTER).set_value("s").run()  # not a suit any more
    assert [e.value for e in at.error] == [
        "Filter: 's' is neither a hand range nor a word (e.g. KK, AK, AKs, T9s+, suited, pairs, "
        "top pair, flush draw)"
    ]
    at.text_input(key=state.COMBO_FILTER).set_value("AKs").run()
    at.button(key="act_0").click().run()  # another node: the filter is cleared
    assert at.text_input(key=state.COMBO_FILTER).value == ""
    assert len(at.dataframe[0].value) > 4


def test_all_in_actions_say_all_in() -> None:
    game, source = _river()
    job = _finished(game, 10)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    labels = [b.label for b in at.button if b.key and b.key.startswith("act_")]
    assert labels[0] == "Check" and labels[-1] == "All-in 900"  # stack 900 behind
    assert all(not x.startswith("Bet 900") for x in labels)
    assert "All-in 900 %" in at.dataframe[0].value.columns or "All-in 900" in list(
        at.dataframe[0].value.columns
    )


def test_toy_game_card_table_and_chance_node() -> None:
    from solver import make_game

    game = make_game("leduc")
    job = _finished(game, 200)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: {"kind": "toy", "name": "leduc"}})
    at.run()
    cards = at.dataframe[0].value
    assert list(cards["card"]) == game.hand_names[0]
    at.button(key="act_0").click().run()  # check
    at.button(key="act_0").click().run()  # check: the public card comes next
    assert at.session_state[state.EXPLORE_NODE] == game.find(("k", "k"))
    chance = game.find(("k", "k"))
    labels = [c[0] for c in game.chance_cards(chance)]
    assert sorted(labels) == sorted(f"d:{c}" for c in game.hand_names[0])  # all six cards
    at.selectbox(key=state.CHANCE_CARD).set_value(labels.index("d:Ks")).run()
    assert game.history(at.session_state[state.EXPLORE_NODE]) == ("k", "k", "d:Ks")
    assert not at.exception
    # a suit-isomorphic card goes to the node that stands for it, with a note
    at.button(key="crumb_2").click().run()
    assert at.session_state[state.EXPLORE_NODE] == chance
    iso = [i for i, c in enumerate(game.chance_cards(chance)) if c[2] >= 0]
    if iso:
        at.selectbox(key=state.CHANCE_CARD).set_value(iso[0]).run()
        assert at.session_state[state.EXPLORE_NODE] == game.chance_cards(chance)[iso[0]][1]
        assert "suit symmetry" in at.info[0].value


CODE = re.compile(r"(^|[\s`])[kcf]($|[\s`])|\b[br]:\d|\bd:[2-9TJQKA]")
"""An action code (``k``, ``b:100``, ``d:8h``) where a player would read it."""


def visible_text(at: AppTest) -> list[str]:
    """Every text a person reads on the page: markdown, captions, messages, code blocks,
    HTML (styles aside), button labels, table column names, widget options, chart names."""
    out = [str(getattr(e, "value", "")) for kind in ("markdown", "caption", "info", "warning",
           "error", "code") for e in at.get(kind)]  # fmt: skip
    out += [e.proto.body for e in at.get("html") if not e.proto.body.startswith("<style>")]
    out += [b.label for b in at.button]
    out += [str(c) for df in at.dataframe for c in df.value.columns]
    for w in (*at.selectbox, *at.radio):
        out += [str(o) for o in w.options]
    for chart in at.get("plotly_chart"):
        out += [str(t.get("name", "")) for t in json.loads(chart.proto.spec)["data"]]
    return out


def test_spot_header_and_the_line_in_words() -> None:
    """The header says the board, pot, stack, SPR and the line with the preset's names
    (BB and BTN); no text on the page is an action code."""
    game, source = _river()
    job = _finished(game, 10)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    at.button(key="act_0").click().run()  # BB checks
    at.button(key="act_1").click().run()  # BTN bets 100 into 200
    assert game.history(at.session_state[state.EXPLORE_NODE]) == ("k", "b:100")
    header = next(e.proto.body for e in at.get("html") if "spot-header" in e.proto.body)
    assert "Line: BB check → BTN bet 50 % (100) — <b>BB to act</b>" in header
    assert "<b>BB</b> vs <b>BTN</b>" in header
    assert "Pot <b>300 (30 bb)</b>" in header and "Effective stack <b>800 (80 bb)</b>" in header
    assert "SPR <b>2.7</b>" in header
    cards = re.findall(r"background:(#[0-9a-f]{6})\">([^<]+)</span>", header)
    assert cards == [("#1f77b4", "T♦"), ("#1f77b4", "9♦"), ("#d62728", "6♥"),
                     ("#2ca02c", "Q♣"), ("#222222", "2♠")]  # fmt: skip
    text = visible_text(at)
    assert [t for t in text if CODE.search(t)] == []
    crumbs = [b.label for b in at.button if b.key and b.key.startswith("crumb_")]
    assert crumbs == ["Start", "Check", "Bet 50 % (100)"]
    # the same action has the same name on the buttons, the chart, the table and the grid
    at.button(key="crumb_0").click().run()
    buttons = [b.label for b in at.button if b.key and b.key.startswith("act_")]
    assert buttons == ["Check", "Bet 50 % (100)", "Bet 100 % (200)", "All-in 900"]
    freq = json.loads(at.get("plotly_chart")[1].proto.spec)["data"][0]["y"]
    assert list(freq) == buttons
    grid = json.loads(at.get("plotly_chart")[0].proto.spec)["data"]
    assert [t["name"] for t in grid if t.get("mode") == "markers"] == buttons
    assert [c for c in at.dataframe[0].value.columns if c in buttons] == buttons
    # numbers as a player reads them: chips with two decimals, combos without a stray ".0"
    cfg = json.loads(at.dataframe[0].proto.columns)
    assert cfg["EV"]["type_config"]["format"] == "%.2f"
    assert cfg["All-in 900"]["type_config"]["format"] == "%.1f %%"
    titles = [str(json.loads(c.proto.spec)["layout"].get("title", {}).get("text", ""))
              for c in at.get("plotly_chart")]  # fmt: skip
    ranges = [t for t in titles if t.endswith("combos")]
    assert [t.split(":")[0] for t in ranges] == ["BB", "BTN"]
    assert all(re.fullmatch(r"(BB|BTN): [\d,]+(\.[1-9])? combos", t) for t in ranges), ranges


def test_the_frequencies_say_how_they_weight_each_hand() -> None:
    # Explore's mix is the own-range one; the report's and Practice's are as dealt (issue 44)
    from app.screens.explore import FREQ_HELP

    game, source = preset_game("srp-river")
    job = finished_job(game, 10)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    shown = [m for m in at.markdown if m.value == "**Aggregate action frequencies**"]
    assert shown and shown[0].help == FREQ_HELP
    assert "range weight" in FREQ_HELP and "does not block" in FREQ_HELP
