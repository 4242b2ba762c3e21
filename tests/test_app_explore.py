"""AppTest: the Explore page walks the tree of a finished solve and shows the solver's
numbers (strategy grid / card table, per-hand EVs and equities, frequencies)."""

from __future__ import annotations

import functools
import json
from dataclasses import asdict

import numpy as np
import pytest
from app_helpers import no_threads_left, page

from app import state
from solver import Game, make_rule
from solver.analysis import analyze
from solver.jobs import SolveJob
from solver.presets import load_preset


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


def test_walk_two_actions_and_read_the_numbers() -> None:
    game, source = _river()
    job = _finished(game)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    assert not at.exception
    grid = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert len(grid["layout"]["shapes"]) > 169  # background cells + action bars
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
    assert job.progress.average is not None
    a = analyze(game, job.progress.average, 0)
    v = a.players[0]
    names = [n for h, n in enumerate(v.hand_names) if v.valid[h] and v.reach[h] > 0]
    assert list(table["hand"]) == names
    idx = [v.hand_names.index(n) for n in names]
    np.testing.assert_allclose(table["EV"], v.ev[idx])
    np.testing.assert_allclose(table["equity %"], 100 * v.equity[idx])
    # filtering keeps the matching hands only
    at.text_input(key=state.COMBO_FILTER).set_value("Ah").run()
    assert all("Ah" in h for h in at.dataframe[0].value["hand"])


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
