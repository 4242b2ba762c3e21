"""AppTest: node locking in Explore — lock a node (whole range, picked hands, as solved), see
the markers, a bad lock's message, Re-solve with locks in the background, and the before/after
EVs and moved lines, each number checked against the solver's functions."""

from __future__ import annotations

import json
from collections.abc import Sequence

import numpy as np
import pandas as pd
import pytest
from app_helpers import finished_job, no_threads_left, page, poll, preset_game, stroke
from streamlit.testing.v1 import AppTest

from app import state
from app.features.locking import LockRun
from solver import Game
from solver.run.jobs import SolveJob
from solver.study.analysis import analyze
from solver.study.lock_effect import frequency_shifts
from solver.study.views import summaries


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def _explore(iterations: int = 40) -> tuple[Game, SolveJob, AppTest]:
    game, source = preset_game("srp-river")
    job = finished_job(game, iterations)
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
    at.run()
    assert not at.exception
    return game, job, at


def _table(at: AppTest, column: str) -> pd.DataFrame | None:
    """The first dataframe with ``column`` (AppTest does not expose a dataframe's key)."""
    return next((d.value for d in at.dataframe if column in d.value.columns), None)


def _mix(at: AppTest, node: int, values: Sequence[float | str]) -> None:
    for i, v in enumerate(values):
        at.text_input(key=f"lockui_mix_{node}_{i}").set_value(str(v))
    at.run()


def test_a_bad_percentage_is_named_and_nothing_is_locked() -> None:
    """A typed value that is not a percentage is shown with a message naming its field, and
    Lock records nothing until every field holds one (it silently locked the old values)."""
    game, _, at = _explore()
    n = len(game.action_labels(0))
    names = [f.label for f in at.text_input if f.key and f.key.startswith("lockui_mix_0_")]
    _mix(at, 0, ["-50", "1e9", *["0"] * (n - 2)])
    assert not at.exception
    errors = [e.value for e in at.error]
    assert f"{names[0]}: must be from 0 to 100, got -50." in errors, errors
    assert f"{names[1]}: must be from 0 to 100, got 1e9." in errors, errors
    assert at.text_input(key="lockui_mix_0_0").value == "-50"  # what was typed stays
    assert at.button(key="lockui_add").disabled
    assert at.session_state[state.LOCKS][1] == {}
    _mix(at, 0, ["100", *["0"] * (n - 1)])
    assert not at.button(key="lockui_add").disabled
    at.button(key="lockui_add").click().run()
    assert at.session_state[state.LOCKS][1] == {"root": {"k": 1.0}}


def test_lock_resolve_and_see_the_effect() -> None:
    game, first, at = _explore()
    actions = game.action_labels(0)
    assert actions[0] == "k"
    # a mix that does not sum to 100 % is refused with the solver's message
    _mix(at, 0, [50.0] + [0.0] * (len(actions) - 1))
    at.button(key="lockui_add").click().run()
    assert not at.exception
    assert "lock at Start: probabilities sum to 0.5, not 1" in at.error[0].value
    assert at.session_state[state.LOCKS][1] == {}
    # OOP checks the whole range
    _mix(at, 0, [100.0] + [0.0] * (len(actions) - 1))
    at.button(key="lockui_add").click().run()
    assert not at.exception and not at.error
    assert at.session_state[state.LOCKS][1] == {"root": {"k": 1.0}}
    assert at.button(key="crumb_0").proto.icon == ":material/lock:"
    # IP's answer to a check: KJo and sets bet, the rest is left free
    at.button(key="act_0").click().run()
    at.radio(key="lockui_mode").set_value("Picked hands").run()
    at.multiselect(key="lockui_pick").set_value(["set", "KJo"]).run()
    sub = at.session_state[state.EXPLORE_NODE]
    bet = next(i for i, a in enumerate(game.action_labels(sub)) if a.startswith("b:"))
    _mix(at, sub, [100.0 if i == bet else 0.0 for i in range(len(game.action_labels(sub)))])
    at.button(key="lockui_add").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    b = game.action_labels(sub)[bet]
    assert at.session_state[state.LOCKS][1]["k"] == {"set": {b: 1.0}, "KJo": {b: 1.0}}
    overview = at.code[0].value
    assert overview.splitlines()[0].startswith("▶ 🔒 Check")  # (the line in words)
    # re-solve warm from the current solve, as the session's background solve
    at.button(key="lockui_resolve").click().run()
    assert not at.exception and not at.error
    run = at.session_state[state.LOCK_RUN]
    assert isinstance(run, LockRun) and run.warm and at.session_state[state.JOB] is run.job
    assert run.job is not first and run.locks == at.session_state[state.LOCKS][1]
    np.testing.assert_array_equal(run.before, first.engine.average_strategy())
    run.job.wait_for(lambda q: q.finished, timeout=120)
    poll(at, lambda: _table(at, "EV before") is not None, timeout=60)
    assert not at.exception
    after, _ = run.job.average_strategy()
    off, na, nh = game.block(0)
    root = after[off : off + na * nh].reshape(na, nh)
    np.testing.assert_array_equal(root[0][game.valid_hands(0, 0)], 1.0)  # the lock holds
    # each player's EV at the root before and after: the solver's range summaries
    totals = _table(at, "player")
    assert totals is not None and "EV before" in totals
    was = summaries(analyze(game, run.before, 0, with_equity=False))
    now = summaries(analyze(game, after, 0, with_equity=False))
    np.testing.assert_allclose(totals["EV before"], [s.ev for s in was])
    np.testing.assert_allclose(totals["EV after"], [s.ev for s in now])
    assert abs(totals["change"][0]) > 1e-6  # locking OOP to check changes what it wins
    assert [m.label for m in at.metric] == ["BB EV at the root", "BTN EV at the root"]
    # the lines that moved most
    shifts = _table(at, "largest move (points)")
    assert shifts is not None
    every = frequency_shifts(game, run.before, after, locked={0, sub}, limit=None)
    expected = [s for s in every if max(s.reach_before, s.reach_after) >= 0.001][:12]
    np.testing.assert_allclose(shifts["largest move (points)"], [100 * s.change for s in expected])
    assert set(shifts[shifts["locked"] == "yes"]["line"]) <= {"Start", "BB check"}  # in words
    # per hand class at the locked node, IP
    at.selectbox(key="lockui_where").set_value(sub).run()
    at.radio(key="lockui_who").set_value(1).run()
    table = _table(at, "class")
    assert table is not None and "Set" in set(table["class"]) and not at.exception
    # the status says the locks are in the current solve now
    assert any("in the current solve" in m.value for m in at.markdown)


def test_lock_as_solved_and_remove() -> None:
    game, job, at = _explore(20)
    at.radio(key="lockui_mode").set_value("As solved").run()
    at.button(key="lockui_add").click().run()
    assert not at.exception
    spec = at.session_state[state.LOCKS][1]["root"]
    avg = job.engine.average_strategy()
    off, _na, nh = game.block(0)
    h = int(np.flatnonzero(game.valid_hands(0, 0))[0])
    name = game.hand_names[0][h]
    for i, a in enumerate(game.action_labels(0)):
        assert spec[name][a] == pytest.approx(avg[off + i * nh + h])
    at.button(key="lockui_rm_0").click().run()
    assert at.session_state[state.LOCKS][1] == {} and not at.exception
    assert at.button(key="crumb_0").proto.icon == ":material/home:"


def test_resolve_from_scratch_on_leduc() -> None:
    from solver import make_game

    game = make_game("leduc")
    job = finished_job(game, 100, "cfr+")
    at = page("explore", **{state.JOB: job, state.JOB_SOURCE: {"kind": "toy", "name": "leduc"}})
    at.run()
    at.radio(key="lockui_mode").set_value("Picked hands").run()
    at.multiselect(key="lockui_pick").set_value(["K"]).run()
    _mix(at, 0, [0.0, 100.0])  # kings bet
    at.button(key="lockui_add").click().run()
    assert at.session_state[state.LOCKS][1] == {"root": {"K": {game.action_labels(0)[1]: 1.0}}}
    at.radio(key="lockui_from").set_value("scratch").run()
    at.text_input(key="lockui_iterations").set_value("60").run()
    at.button(key="lockui_resolve").click().run()
    run = at.session_state[state.LOCK_RUN]
    assert not run.warm
    run.job.wait_for(lambda q: q.finished, timeout=60)
    poll(at, lambda: _table(at, "EV before") is not None, timeout=60)
    assert run.job.progress.iteration == 60 and not at.exception
    table = _table(at, "combos before")
    assert table is not None and set(table["hand"]) == set(game.hand_names[0])


def test_the_effect_is_measured_against_the_last_solve_without_these_locks() -> None:
    """A second re-solve with the same locks keeps the unlocked solve as its baseline (it
    compared against the first re-solve, which had the same locks, and reported ~0); a
    re-solve with other locks measures against the locked solve and names its locks."""
    from solver import make_game

    game = make_game("leduc")
    first = finished_job(game, 100, "cfr+")
    at = page("explore", **{state.JOB: first, state.JOB_SOURCE: {"kind": "toy", "name": "leduc"}})
    at.run()
    bet = game.action_labels(0)[1]
    at.radio(key="lockui_mode").set_value("Picked hands").run()
    at.multiselect(key="lockui_pick").set_value(["K"]).run()
    _mix(at, 0, [0.0, 100.0])  # kings bet
    at.button(key="lockui_add").click().run()
    at.text_input(key="lockui_iterations").set_value("60").run()
    runs = []
    for source in ("the current solve (warm)", "scratch"):
        at.radio(key="lockui_from").set_value(source).run()
        at.button(key="lockui_resolve").click().run()
        run = at.session_state[state.LOCK_RUN]
        run.job.wait_for(lambda q: q.finished, timeout=60)
        poll(at, lambda: _table(at, "EV before") is not None, timeout=60)
        runs.append(run)
    unlocked = first.engine.average_strategy()
    for run in runs:
        np.testing.assert_array_equal(run.before, unlocked)
        assert run.before_iteration == 100 and run.before_locks == {}
    caption = " ".join(c.value for c in at.caption)
    assert "Before: the last solve without these locks, at iteration 100 (no locks)" in caption
    # other locks: the baseline is the locked solve, named with its lock
    at.multiselect(key="lockui_pick").set_value(["Q"]).run()
    _mix(at, 0, [100.0, 0.0])  # queens check
    at.button(key="lockui_add").click().run()
    at.button(key="lockui_resolve").click().run()
    third = at.session_state[state.LOCK_RUN]
    np.testing.assert_array_equal(third.before, runs[1].job.engine.average_strategy())
    assert third.before_locks == {"root": {"K": {bet: 1.0}}}
    third.job.wait_for(lambda q: q.finished, timeout=60)
    poll(at, lambda: _table(at, "EV before") is not None, timeout=60)
    caption = " ".join(c.value for c in at.caption)
    assert "at iteration 60 (locked: Start: K: Bet 2 100%)" in caption, caption


def test_picking_offers_only_what_the_node_holds_in_words() -> None:
    """Picked hands: the hand classes and grid cells offered are those the acting player
    brings to the node, classes in words (a class with no combo there was offered, then
    refused as ``hand 'two_pair'``)."""
    from solver.poker.handclass import DRAWS, MADE
    from solver.poker.ranges import GRID_LABELS
    from solver.study.analysis import cell_of_hands
    from solver.study.groups import class_groups

    game, job, at = _explore()
    at.radio(key="lockui_mode").set_value("Picked hands").run()
    options = at.multiselect(key="lockui_pick").options
    a = analyze(game, job.engine.average_strategy(), 0, with_equity=False)
    reached = a.players[0].reach > 0
    held = [g.label for g in class_groups(game, 0, 0) if (g.mask & reached).any()]
    cells = set(cell_of_hands(game, 0)[reached].tolist())
    grid = [label for row in GRID_LABELS for label in row]
    assert options == [*held, *(grid[c] for c in range(169) if c in cells)]
    assert 0 < len(held) < len(MADE) + len(DRAWS) and len(cells) < 169


def test_a_stroke_on_the_pick_grid_picks_exactly_its_cells() -> None:
    """Picked hands (issue 44.5): a click on the grid picks the one cell under it and a drag
    the cells the pointer passed over (the Plotly box drag picked nothing on a click and
    whole columns on a flat drag); they join the picked hands in the brush's order, cells
    the player does not bring to the node are greyed and never picked, and Lock locks those
    cells' hands alone."""
    game, _, at = _explore()
    at.radio(key="lockui_mode").set_value("Picked hands").run()
    offered = set(at.multiselect(key="lockui_pick").options)
    drawn = {c["label"]: c["state"] for c in _canvas(at, "lockui_paint")}
    assert {lab for lab, s in drawn.items() if s == "free"} == offered & set(drawn)
    greyed = sorted(lab for lab, s in drawn.items() if s == "none")
    assert greyed and not set(greyed) & offered
    assert {"A5s", "A4s", "AKs", "QQ"} <= offered
    stroke(at, "lockui_paint", ["A5s", "A4s"])  # a drag along the top row
    assert not at.exception
    assert at.multiselect(key="lockui_pick").value == ["A5s", "A4s"]
    stroke(at, "lockui_paint", ["QQ"])  # a click: that cell joins, the others stay
    stroke(at, "lockui_paint", ["AKs", greyed[0], "A5s"])  # no hand here; already picked
    assert at.multiselect(key="lockui_pick").value == ["A5s", "A4s", "QQ", "AKs"]
    picked = {c["label"] for c in _canvas(at, "lockui_paint") if c["state"] == "picked"}
    assert picked == {"A5s", "A4s", "QQ", "AKs"}  # the grid shows the picks
    n = len(game.action_labels(0))
    _mix(at, 0, ["100", *["0"] * (n - 1)])
    at.button(key="lockui_add").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    assert set(at.session_state[state.LOCKS][1]["root"]) == {"A5s", "A4s", "QQ", "AKs"}


def test_the_resolve_target_is_in_the_solve_pages_unit_and_checked() -> None:
    """Hold'em: the re-solve's target reads in % of the pot as on the Solve page (it read in
    chips); a bad value is named under its field and Re-solve waits."""
    game, _, at = _explore()
    _mix(at, 0, ["100", *["0"] * (len(game.action_labels(0)) - 1)])
    at.button(key="lockui_add").click().run()
    field = at.text_input(key="lockui_target")
    assert field.label == "Target (% pot, 0 = none)"
    field.set_value("-1").run()
    assert any(e.value.startswith("Target (% pot, 0 = none): must be from 0") for e in at.error)
    assert at.button(key="lockui_resolve").disabled
    at.text_input(key="lockui_target").set_value("0.5").run()
    at.button(key="lockui_resolve").click().run()
    run = at.session_state[state.LOCK_RUN]
    assert run.job.target == pytest.approx(0.5 * game.starting_pot / 100)
    run.job.stop()
    run.job.join(30)


def test_the_shift_field_starts_at_the_chosen_actions_own_frequency() -> None:
    """Issue 44.6: the target field holds the chosen action's own frequency (% of the range
    reaching the node, weighted by reach): after picking another action, after moving to
    another node, and after a solve moved on — never the previous action's or another spot's
    number; a typed value stays while the action and node stay."""
    from solver.study.analysis import analyze

    game, job, at = _explore()
    average, _ = job.average_strategy()

    def own(node: int, action: int) -> str:
        a = analyze(game, average, node, with_equity=False)
        assert a.strategy is not None and a.actor is not None
        r = a.actor.reach
        return f"{100 * float(a.strategy[action] @ r) / float(r.sum()):.1f}"

    field = "lockui_shift_target"
    at.radio(key="lockui_mode").set_value("Shift the range").run()
    n = len(game.action_labels(0))
    assert at.text_input(key=field).value == own(0, n - 1)  # the last action, picked first
    values = {own(0, i) for i in range(n)}
    assert len(values) > 1  # (or the test could not tell the actions apart)
    for i in range(n):
        at.selectbox(key="lockui_shift_action").set_value(i).run()
        assert not at.exception
        assert at.text_input(key=field).value == own(0, i), i
    at.text_input(key=field).set_value("42").run()
    at.run()
    assert at.text_input(key=field).value == "42"  # typed: kept
    ip = game.find(("k",))
    at.session_state[state.EXPLORE_NODE] = ip
    at.run()
    assert not at.exception
    action = at.session_state["lockui_shift_action"]
    assert at.text_input(key=field).value == own(ip, action) != "42"
    at.session_state[state.EXPLORE_NODE] = 0
    at.run()
    action = at.session_state["lockui_shift_action"]
    assert at.text_input(key=field).value == own(0, action)
    job.stop()


def test_shift_the_range_keeps_it_ranked() -> None:
    """ "Bet 60 % instead of 35 %": the grid after the shift shows before Lock, and the lock
    gives each hand its own mix — the hands that gain most by betting bet first — with the
    range betting 60 %; a flat lock would give every hand the same mix."""
    from solver.study.analysis import analyze
    from solver.study.shift_lock import frequency
    from solver.study.views import action_evs

    game, job, at = _explore()
    at.radio(key="lockui_mode").set_value("Shift the range").run()
    assert not at.exception
    bet = 1  # Bet 50 % (100)
    at.selectbox(key="lockui_shift_action").set_value(bet).run()
    at.text_input(key="lockui_shift_target").set_value("60").run()
    assert not at.exception and not at.error
    grid = next(
        json.loads(c.proto.spec)
        for c in at.get("plotly_chart")
        if "After the shift" in str(json.loads(c.proto.spec)["layout"].get("title"))
    )
    assert "Bet 50 % (100) 60 %" in grid["layout"]["title"]["text"]
    at.button(key="lockui_add").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    lock = at.session_state[state.LOCKS][1]["root"]
    average, _ = job.average_strategy()
    a = analyze(game, average, 0, with_equity=False)
    v = a.actor
    assert v is not None and a.strategy is not None
    assert set(lock) == {v.hand_names[h] for h in np.flatnonzero(v.reach > 0)}
    labels = game.action_labels(0)
    locked = np.zeros_like(a.strategy)
    for h, name in enumerate(v.hand_names):
        for k, lab in enumerate(labels):
            locked[k, h] = lock.get(name, {}).get(lab, 0.0)
    assert frequency(locked, v.reach, bet) == pytest.approx(0.6, abs=1e-6)
    gain = action_evs(game, average, 0)[bet] - v.ev
    moved = (locked[bet] - a.strategy[bet])[v.reach > 0]
    g = gain[v.reach > 0]
    assert (moved >= -1e-9).all() and moved.max() > 0.1
    full = locked[bet][v.reach > 0] > 1 - 1e-9
    partial = (moved > 1e-9) & ~full
    assert not partial.any() or g[full & (moved > 1e-9)].min() >= g[partial].max() - 1e-9
    assert len({round(x, 6) for x in locked[bet][v.reach > 0]}) > 2  # not one flat mix


def _canvas(at: AppTest, key: str = "lockui_paint_grid") -> list[dict]:
    """The paint canvas ``key``'s 169 cells as the page sends them (label, colours, state)."""
    (canvas,) = [e for e in at.get("bidi_component")
                 if e.proto.component_name == "regret_lab.paint_canvas"
                 and e.proto.id.endswith(f"-{key}")]  # fmt: skip
    return list(json.loads(canvas.proto.json)["cells"])


def test_a_stroke_paints_exactly_its_cells() -> None:
    """What the canvas sends at the end of a stroke (the cells the pointer passed over, in
    order) is read as those cells alone: no whole rows or columns, nothing not a cell."""
    from app.components.paint_canvas import stroke_of

    assert stroke_of({"stroke": ["A5s", "A4s"]}) == ["A5s", "A4s"]
    assert stroke_of({"stroke": ["AKs", 5, "zz", None]}) == ["AKs"]
    assert stroke_of({"stroke": "AKs"}) == [] and stroke_of(None) == [] and stroke_of({}) == []


def test_paint_the_grid_locks_painted_cells_to_the_action() -> None:
    """Paint the grid: the brush paints a cell (or both halves, AKs with AKo), skips cells
    with no combo at the node and unpaints with "Leave free"; the grid after the paint shows
    before Lock; Lock records each painted cell playing its action, and every combo of those
    cells is locked to it while the node's other hands stay free."""
    from app.features import paint_lock as P
    from solver.lockspec import build_locks
    from solver.study.analysis import cell_of_hands

    game, job, at = _explore()
    labels = game.action_labels(0)
    at.radio(key="lockui_mode").set_value(P.MODE).run()
    assert not at.exception and not at.error
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    assert [c for c in _canvas(at) if c["state"] == "painted"] == []
    assert _canvas(at)[13 * 12 + 1]["label"] == "K2o"  # cell k is row k // 13, column k % 13
    assert any("Nothing painted" in str(c["layout"].get("title")) for c in charts)
    at.button(key="lockui_add").click().run()  # nothing painted: nothing locked, and said so
    assert at.session_state[state.LOCKS][1] == {}
    assert any("paint some cells first" in e.value for e in at.error)
    average = job.engine.average_strategy()
    a = analyze(game, average, 0, with_equity=False)
    allowed = P.reached_cells(game, a)
    suited = next(c for c in sorted(allowed) if c.endswith("s") and P.mirror(c) in allowed)
    offsuit = str(P.mirror(suited))
    pair = next(c for c in sorted(allowed) if len(c) == 2)
    bet = labels[1]
    # the brush: both halves, one cell, cells with no combo skipped, "Leave free" unpaints
    outside = next(c for c in P.LABELS if c not in allowed)
    both = P.paint({}, [suited, outside], bet, True, allowed)
    assert both == {suited: bet, offsuit: bet}
    one = P.paint(both, [offsuit, pair], "k", False, allowed)
    assert one == {suited: bet, offsuit: "k", pair: "k"}
    assert P.paint(one, [pair], None, False, allowed) == {suited: bet, offsuit: "k"}
    painted = {suited: bet, offsuit: "k"}
    at.session_state[P.PAINTED] = (game.name, game.num_nodes, 0, painted)
    at.run()
    assert not at.exception
    titles = [str(json.loads(c.proto.spec)["layout"].get("title")) for c in at.get("plotly_chart")]
    assert any("After the paint: 2 cells locked" in t for t in titles), titles
    drawn = {c["label"] for c in _canvas(at) if c["state"] == "painted"}
    assert drawn == {suited, offsuit}  # the canvas shows the paint too
    assert a.strategy is not None
    cells = cell_of_hands(game, 0)
    after = P.painted_strategy(a.strategy, cells, painted, labels)
    s, o = cells == P.LABELS.index(suited), cells == P.LABELS.index(offsuit)
    np.testing.assert_array_equal(after[1, s], 1.0)
    np.testing.assert_array_equal(after[0, o], 1.0)
    free = ~(s | o)
    np.testing.assert_array_equal(after[:, free], a.strategy[:, free])
    at.button(key="lockui_add").click().run()
    assert not at.exception and not at.error, [e.value for e in at.error]
    lock = at.session_state[state.LOCKS][1]["root"]
    assert lock == {suited: {bet: 1.0}, offsuit: {"k": 1.0}}
    assert at.session_state[P.PAINTED][3] == {}  # the paint is spent
    built = build_locks(game, {"root": lock}, average).locks
    off, na, nh = game.block(0)
    ioff = int(game.tree.ioffset[0])
    hands = built.hand[ioff : ioff + nh] != 0
    valid = game.valid_hands(0, 0)
    np.testing.assert_array_equal(hands, (s | o) & valid)  # every combo of both cells, no other
    table = built.strategy[off : off + na * nh].reshape(na, nh)
    np.testing.assert_array_equal(table[1, s & valid], 1.0)
    np.testing.assert_array_equal(table[0, o & valid], 1.0)
