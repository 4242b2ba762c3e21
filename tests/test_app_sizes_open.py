"""AppTest: after a sizes run (issue 47), "Open the simplified tree" makes the player's
simplified tree the session's solve, as a loaded save: Explore shows its actions only,
Practice deals on it, Export saves it with its removed sizes, and Set up and Solve say which
sizes the tree lacks."""

from __future__ import annotations

from dataclasses import asdict

import numpy as np
import pytest
from app_helpers import finished_job, no_threads_left, page, poll
from sizes_helpers import GRID, SPEC
from streamlit.testing.v1 import AppTest

from app import state
from app.features import sizes_view
from solver.files.export import load_solve, save_solve
from solver.games.holdem import build_holdem


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def _actions(at: AppTest) -> list[str]:
    return [str(b.label) for b in at.button if b.key and str(b.key).startswith("act_")]


def _run_sizes() -> AppTest:
    """Explore on a solve of the spot, a sizes run for IP at its first node (k = 1) done."""
    job = finished_job(build_holdem(SPEC), 20)
    source = {"kind": "holdem", "spec": asdict(SPEC)}
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.JOB_SPEC: SPEC,
                            state.EXPLORE_NODE: 0})  # fmt: skip
    at.run()
    at.text_input(key=sizes_view.GRID).set_value(GRID)
    at.selectbox(key=sizes_view.PLAYER).set_value("ip")
    at.selectbox(key=sizes_view.NODES_KEY).set_value("root")
    at.number_input(key=sizes_view.KEEP).set_value(1)
    at.text_input(key=sizes_view.TARGET).set_value("0.2")
    at.run()
    at.button(key="sz_start").click().run()
    sizes = at.session_state[sizes_view.JOB]
    poll(at, lambda: not sizes.alive, timeout=60)
    at.run()
    assert not at.exception
    return at


def test_open_the_simplified_tree_then_explore_practice_and_export() -> None:
    at = _run_sizes()
    result = at.session_state[sizes_view.JOB].snapshot().results[0]
    (kept,) = result.kept["k"]
    assert state.LOADED not in at.session_state or at.session_state[state.LOADED] is None
    at.button(key="sz_open_ip").click().run()
    assert not at.exception
    loaded = at.session_state[state.LOADED]
    assert at.session_state[state.JOB] is None and loaded.engine is result.final.engine
    assert loaded.meta["game"]["removed"] == {"k": result.removed["k"]}
    assert any("simplified tree is the current solve" in s.value for s in at.success)

    # Explore: OOP's bets are the grid's (not simplified); after the check IP has the kept
    # size only where the superset had four
    assert len(_actions(at)) == 1 + 4
    at.button(key="act_0").click().run()
    assert not at.exception
    ip_actions = _actions(at)
    assert len(ip_actions) == 2
    game = loaded.game
    k = next(int(c) for c in game.children(0) if game.labels[c] == "k")
    assert game.action_labels(k) == ["k", kept]

    # a lock at IP's simplified node re-solves the simplified tree, warm from it
    for i, v in enumerate([0.0, 100.0]):
        at.text_input(key=f"lockui_mix_{k}_{i}").set_value(str(v))
    at.run()
    at.button(key="lockui_add").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    at.button(key="lockui_resolve").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    relocked = at.session_state[state.JOB]
    assert relocked is not None and relocked.game is game
    assert at.session_state[state.JOB_SOURCE]["removed"] == {"k": result.removed["k"]}
    relocked.wait_for(lambda q: q.finished, timeout=120)
    after, _ = relocked.average_strategy()
    off, na, nh = game.block(k)
    assert np.all(after[off : off + na * nh].reshape(na, nh)[1][game.valid_hands(k, 1)] == 1.0)

    # Practice deals on the simplified solve: IP's decisions offer check and the kept size
    practice = page("practice", **{state.LOADED: loaded, state.JOB: None,
                                   state.PRACTICE_SEED: 1, state.PRACTICE_PLAYER: 1})  # fmt: skip
    practice.run()
    practice.button(key="practice_start").click().run()
    assert not practice.exception
    shown = [b for b in practice.button if str(b.key).startswith("practice_act_")]
    assert shown and len(shown) in (2, 3)  # after a check: 2; facing a bet: fold, call, raise

    # Export's save of it (the page offers it; its bytes as the page makes them) names the
    # removed sizes and reloads the same numbers
    export = page("export", **{state.LOADED: loaded, state.JOB: None})
    export.run()
    assert not export.exception
    assert [b for b in export.get("download_button") if b.proto.id.endswith("dl_save")]
    data = save_solve(loaded.engine, state_source(loaded), tuple(loaded.history))
    again = load_solve(data)
    assert again.game.num_nodes == game.num_nodes
    assert np.array_equal(again.engine.average_strategy(), loaded.engine.average_strategy())

    # Set up and Solve say the current solve lacks the removed sizes
    for name in ("setup", "solve"):
        other = page(name, **{state.LOADED: loaded, state.JOB: None})
        other.run()
        assert not other.exception
        notes = [i.value for i in other.info if "simplified tree" in i.value]
        assert len(notes) == 1 and all(s in notes[0] for s in result.removed["k"]), notes


def state_source(loaded: object) -> dict:
    """The source Export saves a loaded solve with (``Solved.source``: its metadata's game)."""
    return loaded.meta.get("game", {})  # type: ignore[attr-defined]


def test_no_note_without_a_simplified_solve() -> None:
    job = finished_job(build_holdem(SPEC), 5)
    source = {"kind": "holdem", "spec": asdict(SPEC)}
    at = page("solve", **{state.JOB: job, state.JOB_SOURCE: source, state.JOB_SPEC: SPEC})
    at.run()
    assert not at.exception
    assert not [i for i in at.info if "simplified tree" in i.value]
