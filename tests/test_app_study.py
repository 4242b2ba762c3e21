"""AppTest: the study views in Explore show the solver's study functions' numbers — EV per
action and hand strength in the per-hand table, the grid coloured by a value, the range
summary, hand classes, the equity/EV distribution and the runout report."""

from __future__ import annotations

import base64
import json

import numpy as np
import pandas as pd
import pytest
from app_helpers import finished_job, no_threads_left, page, preset_game
from streamlit.testing.v1 import AppTest

from app import state
from solver import make_game
from solver.poker.handclass import class_table
from solver.study.analysis import analyze, cell_of_hands
from solver.study.groups import cell_means
from solver.study.views import (
    action_evs,
    board_cards,
    distribution,
    runout_report,
    strength_order,
    summaries,
)


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def _table(at: AppTest, column: str) -> pd.DataFrame:
    return next(d.value for d in at.dataframe if column in d.value.columns)


def _chart(at: AppTest, key: str) -> dict:
    """The chart drawn under ``key`` as JSON."""
    return dict(json.loads(next(c.proto.spec for c in at.get("plotly_chart") if key in c.proto.id)))


def _arr(x: object) -> np.ndarray:
    """A plotly JSON array: a list, or typed ``{"dtype", "bdata", "shape"}``."""
    if isinstance(x, dict) and "bdata" in x:
        a = np.frombuffer(base64.b64decode(x["bdata"]), dtype=np.dtype(x["dtype"]))
        shape = x.get("shape")
        return a.reshape([int(n) for n in str(shape).split(",")]) if shape else a
    return np.asarray(x, dtype=float)


def test_river_study_views() -> None:
    game, source = preset_game("srp-river")
    job = finished_job(game, 40)
    sigma, _ = job.average_strategy()
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    assert not at.exception
    a = analyze(game, sigma, 0)
    v = a.players[0]
    # the per-hand table: strength rank and EV per action ("All-in 900" named, as everywhere)
    table = _table(at, "strength")
    idx = [v.hand_names.index(h) for h in table["hand"]]
    evs = action_evs(game, sigma, 0)
    assert [c for c in table.columns if c.startswith("EV ")][-1] == "EV All-in 900"
    for i, col in enumerate(c for c in table.columns if c.startswith("EV ")):
        np.testing.assert_allclose(table[col], evs[i, idx])
    order = strength_order(game, 0, 0)
    # the table opens strongest first
    assert table["hand"].tolist() == [
        v.hand_names[h] for h in order if v.hand_names[h] in set(table["hand"])
    ]
    # the grid coloured by the EV of checking
    at.selectbox(key=state.GRID_COLOUR).set_value("EV of Check").run()
    grid = _chart(at, "explore_grid")
    z = _arr(grid["data"][0]["z"]).astype(float)[::-1].reshape(-1)
    np.testing.assert_allclose(z, cell_means(v, evs[0], cell_of_hands(game, 0)), equal_nan=True)
    # both ranges' summary
    summary = _table(at, "combos")
    for row, s in zip(summary.to_dict("records"), summaries(a), strict=True):
        assert row["EV"] == pytest.approx(s.ev) and row["equity %"] == pytest.approx(100 * s.equity)
    # hand classes of the acting player: combos and mix of solver.poker.handclass.class_table
    classes = _table(at, "share %")
    rows = class_table(board_cards(game, 0), game.hands.cards[0, : game.num_hands[0]], v.reach,
                       a.strategy)  # fmt: skip
    assert list(classes["class"]) == [r.label for r in rows]
    np.testing.assert_allclose(classes["combos"], [r.combos for r in rows])
    assert rows[0].mix is not None
    np.testing.assert_allclose(classes.iloc[0, 5:9], [100 * m for m in rows[0].mix])
    bar = _chart(at, "study_class_bar")
    assert [t["name"] for t in bar["data"]][-1] == "All-in 900"
    # the equity distribution of both players
    at.radio(key=state.STUDY_VIEW).set_value("Distribution").run()
    curve = _chart(at, "study_distribution")
    for p, trace in enumerate(curve["data"]):
        share, value = distribution(100 * a.players[p].equity, a.players[p].reach)
        np.testing.assert_allclose(_arr(trace["x"]), share)
        np.testing.assert_allclose(_arr(trace["y"]), value)
    assert not at.exception


def test_runout_report_on_leduc() -> None:
    game = make_game("leduc")
    job = finished_job(game, 200)
    sigma, _ = job.average_strategy()
    chance = game.find(("k", "k"))
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: {"kind": "toy", "name": "leduc"},
                            state.EXPLORE_NODE: chance})  # fmt: skip
    at.run()
    assert not at.exception
    assert at.radio(key=state.STUDY_VIEW).options == ["Distribution", "Runouts"]
    at.radio(key=state.STUDY_VIEW).set_value("Runouts").run()
    table = _table(at, "card")
    rows = runout_report(game, sigma, chance)
    assert list(table["card"]) == [r.card for r in rows] and len(rows) == 6
    for col, a in zip([c for c in table.columns if c.endswith(" %")][:2], range(2), strict=True):
        np.testing.assert_allclose(table[col], [100 * r.mix[a] for r in rows])  # type: ignore[index]
    np.testing.assert_allclose(table["EV player 0"], [r.summaries[0].ev for r in rows])
    grid = _chart(at, "study_runout_grid")
    assert len(grid["layout"]["shapes"]) > 52  # every card's cell, the six split by their mix


def test_a_click_on_the_runout_grid_names_its_card() -> None:
    from app.features.study_views import clicked_card

    assert clicked_card({"selection": {"points": [{"x": 3.5, "customdata": "Kh"}]}}) == "Kh"
    assert clicked_card({"selection": {"points": []}}) is None
    assert clicked_card(None) is None and clicked_card({"selection": {}}) is None
    game = make_game("leduc")
    job = finished_job(game, 50)
    chance = game.find(("k", "k"))
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: {"kind": "toy", "name": "leduc"},
                            state.EXPLORE_NODE: chance})  # fmt: skip
    at.run()
    at.radio(key=state.STUDY_VIEW).set_value("Runouts").run()
    trace = _chart(at, "study_runout_grid")["data"][0]
    dealt = [label[2:] for label, _child, _row in game.chance_cards(chance)]
    assert sorted(trace["customdata"]) == sorted(dealt)  # each marker carries its card
