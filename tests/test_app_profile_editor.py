"""AppTest: the opponent-profile editor under Explore's best-response view (issue 48 item 2):
stats typed in, Apply compiles them into shift locks listed with the other locks and
re-solves warm as the session's job; the readback table shows each stat's target beside the
locked solve's frequency, which a naive reach-weighted walk (tests/test_profiles.py)
recomputes from the locks; a bad field or a contradiction locks and starts nothing; the
profile saves as JSON and loads back into the fields."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from app_helpers import finished_job, no_threads_left, page, poll, preset_game
from streamlit.testing.v1 import AppTest
from test_profiles import _naive, _sigma_with_locks

from app import state
from app.features import profile_editor as pe
from solver.games.model import Game
from solver.run.jobs import SolveJob
from solver.study.profile_readback import Readback


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def _open(iterations: int = 40) -> tuple[Game, SolveJob, AppTest]:
    game, source = preset_game("srp-river")
    job = finished_job(game, iterations)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    at.radio(key=state.STUDY_VIEW).set_value("Best response").run()
    assert not at.exception
    return game, job, at


def _readback(at: AppTest) -> pd.DataFrame | None:
    for d in at.dataframe:
        if "achieved %" in d.value.columns:
            return d.value
    return None


def test_apply_a_profile_and_read_it_back() -> None:
    game, job, at = _open()
    assert at.session_state[pe.SEAT] == "ip"  # OOP acts at the root: the opponent is IP
    at.text_input(key=pe.value_key("cbet")).set_value("75").run()
    at.text_input(key=pe.value_key("fold_to_cbet")).set_value("65").run()
    at.button(key=pe.K + "apply").click().run()
    assert not at.exception
    run = at.session_state[pe.RUN]
    assert isinstance(run, pe.Applied) and run.job is not job
    assert at.session_state[state.JOB] is run.job  # the session's solve now
    # the profile's locks are the pending locks the lock panel lists
    locks = at.session_state[state.LOCKS][1]
    assert set(locks) == run.lines == {"k", "b:100", "b:200", "b:900"}
    run.job.wait_for(lambda q: q.finished, timeout=60)
    poll(at, lambda: _readback(at) is not None, timeout=60)
    df = _readback(at)
    assert df is not None and list(df["target %"]) == [75.0, 65.0]
    average, _ = run.job.average_strategy()
    sigma = _sigma_with_locks(game, np.asarray(average), locks)
    want = [
        _naive(game, sigma, 1, lambda h: h == ("k",), "b:"),
        _naive(game, sigma, 1, lambda h: len(h) == 1 and h[0].startswith("b:"), "f"),
    ]
    np.testing.assert_allclose(df["achieved %"], want, rtol=0, atol=1e-6)
    for _, row in df.iterrows():
        assert row["within 1 pp"] == (abs(row["achieved %"] - row["target %"]) <= 1.0)
        assert bool(row["why not"]) != row["within 1 pp"]
        if not row["within 1 pp"]:  # the reason in full under the table, naming the stat
            said = [c.value for c in at.caption if row["why not"] in c.value]
            assert said and row["stat"] in said[0], [c.value for c in at.caption]
    # the lock panel lists them as in the current solve
    assert any("in the current solve" in m.value for m in at.markdown)
    # Apply again: compiled against the locked solve, the same lines, a new job
    at.button(key=pe.K + "apply").click().run()
    again = at.session_state[pe.RUN]
    assert again is not run and again.lines == run.lines
    again.job.wait_for(lambda q: q.finished, timeout=60)
    poll(at, lambda: _readback(at) is not None, timeout=60)
    assert not at.exception


@pytest.mark.parametrize(
    ("seat", "values", "words"),
    [
        ("ip", {"cbet": "120"}, "must be from 0 to 100"),
        ("oop", {"fold_to_cbet": "70", "check_raise": "40"}, "contradict"),
        ("oop", {"cbet": "50", "river_bet": "30"}, "same spots"),  # one spot on a river
        ("ip", {"turn_barrel": "50"}, "no spot in this tree"),
    ],
)
def test_bad_input_locks_and_starts_nothing(seat: str, values: dict, words: str) -> None:
    _, job, at = _open()
    at.radio(key=pe.SEAT).set_value(seat).run()
    for stat, text in values.items():
        at.text_input(key=pe.value_key(stat)).set_value(text).run()
    apply = at.button(key=pe.K + "apply")
    if "must be" in words:  # a field that holds no percentage: Apply waits for it
        assert apply.disabled
    else:
        apply.click().run()
    assert not at.exception
    shown = " ".join(e.value for e in at.error)
    assert words in shown, shown
    assert at.session_state[state.JOB] is job  # nothing re-solved
    assert pe.RUN not in at.session_state or at.session_state[pe.RUN] is None
    held = at.session_state[state.LOCKS] if state.LOCKS in at.session_state else None  # noqa: SIM401
    assert held is None or held[1] == {}  # nothing locked


def test_save_and_load() -> None:
    _, _, at = _open()
    at.text_input(key=pe.NAME).set_value("station").run()
    at.text_input(key=pe.value_key("fold_to_river_bet")).set_value("20").run()
    at.selectbox(key=pe.CLASS_STAT).set_value("cbet").run()
    at.selectbox(key=pe.CLASS_KEY).set_value("two_pair").run()
    at.text_input(key=pe.CLASS_VALUE).set_value("100").run()
    at.button(key=pe.K + "cadd").click().run()

    def read_back() -> None:
        import streamlit as st

        from app.features import profile_editor

        st.session_state["out"] = profile_editor.profile_from_fields()

    saved = [b for b in at.get("download_button") if b.proto.label == "Save profile (JSON)"]
    assert saved
    # the fields' profile, as Save writes it, loads back into fresh fields
    probe = AppTest.from_function(read_back)
    for k in [pe.SEAT, pe.NAME, pe.CLASS_ROWS, *(pe.value_key(s) for s in pe.STATS)]:
        if k in at.session_state:
            probe.session_state[k] = at.session_state[k]
    probe.run()
    profile, error = probe.session_state["out"]
    assert error == "" and profile is not None
    data = json.loads(json.dumps(profile.to_dict()))
    assert data == {
        "version": 1,
        "name": "station",
        "player": "ip",
        "stats": [
            {"stat": "fold_to_river_bet", "value": 20.0},
            {"stat": "cbet", "value": 100.0, "class": "two_pair"},
        ],
    }

    def load(data: object) -> None:
        import streamlit as st

        from app.features import profile_editor

        st.session_state["msg"] = profile_editor.fill(data)
        st.session_state["out"] = profile_editor.profile_from_fields()

    fresh = AppTest.from_function(load, kwargs={"data": data})
    fresh.run()
    assert fresh.session_state["msg"] == ""
    assert fresh.session_state["out"][0] == profile
    bad = AppTest.from_function(load, kwargs={"data": {**data, "player": "hero"}})
    bad.run()
    assert bad.session_state["msg"].startswith("Not loaded: player:")


def test_off_stats_are_said_in_words() -> None:
    """The readback's notes: each reason once, naming its stats (class in brackets); "Apply
    again" only when a stat was reached and missed (another round cannot reach a stat whose
    spots no hand reaches); nothing when every stat is within 1 pp."""
    moved = "the hands reaching its spots moved"
    nobody = "no hand it counts reaches its spots in the locked solve"
    rows = [
        Readback("cbet", None, 45.0, 43.9, False, moved),
        Readback("cbet", "two_pair", 100.0, 100.0, True),
        Readback("fold_to_cbet", None, 65.0, 63.5, False, moved),
        Readback("river_bluff", "flush_draw", 30.0, None, False, nobody),
    ]
    notes = pe.off_notes(rows)
    assert notes == [
        f"C-bet %, Fold to c-bet %: {moved}.",
        f"River bluff share % ({pe._class_label('flush_draw')}): {nobody}.",
        "Apply again to compile against this solve, aiming past the shortfall.",
    ]
    assert pe.off_notes(rows[3:]) == [notes[1]]  # nothing reached: no round helps
    assert pe.off_notes(rows[1:2]) == []


def test_the_upload_is_capped_in_the_browser() -> None:
    """The file picker says (and the browser enforces) 1 MB, not the server's 200 MB: a
    profile is a few hundred bytes, and _load refuses over MAX_FILE_BYTES anyway."""
    _, _, at = _open()
    uploaders = [u for u in at.get("file_uploader") if u.proto.label == "Load a profile"]
    assert uploaders and uploaders[0].proto.max_upload_size_mb == pe.UPLOAD_MB == 1
    assert pe.MAX_FILE_BYTES <= pe.UPLOAD_MB * 1_000_000
