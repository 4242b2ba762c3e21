"""AppTest: the Reports page hands a batch flop's saved solve to the Practice page ("Practice
this flop", beside "Open in Explore"): the flop's solve becomes the session's solve and the
page switches to Practice, which deals from it."""

from __future__ import annotations

from pathlib import Path

import pytest
import streamlit as st
from app_helpers import no_threads_left, page
from batch_helpers import PAGE_SPOT, tiny_spec

from app import files, state
from app.screens import reports as R
from solver.batch.store import BatchStore
from solver.batch.task import run_flop, summarize
from solver.files.export import game_source, save_solve
from solver.poker.flops import parse_flop

FLOP = "Ks9s5s"


@pytest.fixture(autouse=True)
def _teardown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(files.BATCHES_ENV, str(tmp_path))  # the page's batch folder
    yield
    no_threads_left()


def _db_with_a_saved_solve(tmp_path: Path) -> Path:
    """A batch database of one solved flop whose solve is saved in its .solves folder, as
    a batch with *Save each solve* writes it."""
    spec = tiny_spec(flops=FLOP)
    game, result = run_flop(spec, FLOP)
    db = tmp_path / "p.db"
    solves = db.with_name(db.name + ".solves")
    solves.mkdir()
    blob = save_solve(result.engine, game_source(game, holdem=spec.spot(FLOP)))
    (solves / f"{FLOP}.npz").write_bytes(blob)
    with BatchStore.create_or_open(db, spec) as store:
        store.record(parse_flop(FLOP), 0, summarize(game, result), seconds=1.0,
                     solve_file=f"{db.name}.solves/{FLOP}.npz")  # fmt: skip
    return db


def test_practice_this_flop_opens_its_solve_on_the_practice_page(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    db = _db_with_a_saved_solve(tmp_path)
    went: list[str] = []
    monkeypatch.setattr(st, "switch_page", lambda p: went.append(p.url_path))
    at = page("reports", **PAGE_SPOT, **{R.DB: str(db)})
    at.run()
    assert not at.exception and not at.error
    assert at.selectbox(key=R.OPEN_FLOP).value == FLOP
    button = at.button(key="reports_practice")
    assert button.label == "Practice this flop"
    button.click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert went == ["practice"]
    loaded = at.session_state[state.LOADED]
    assert loaded is not None and loaded.holdem.board == FLOP
    assert at.session_state[state.EXPLORE_NODE] == int(loaded.game.decision_nodes()[0])
    # the Practice page picks that solve and deals from it
    practice = page("practice", **{state.LOADED: loaded, state.EXPLORE_NODE: 0})
    practice.run()
    assert not practice.exception
    practice.button(key="practice_start").click().run()
    assert not practice.exception
    drill = practice.session_state[state.PRACTICE_DRILL].drill
    assert drill.game is loaded.game  # dealt from the flop's solve
