"""What players expect beside the numbers (issue 44): the amount to call and the pot odds in
the spot header, numbers as people read them, estimates that count threads."""

from __future__ import annotations

import functools
from pathlib import Path

import pytest

from app.components.spot_header import call_fact, header_html, pot_odds
from solver.files.presets import load_preset
from solver.games import Game
from solver.games.holdem import HoldemSpec, build_holdem
from solver.study.words import spot

BB_BTN = ("BB", "BTN")


@functools.cache
def _turn() -> Game:
    """Turn Td9d6hQc, pot 200, 900 behind, big blind 10: a 33 % bet is 66 chips."""
    spec = HoldemSpec(board="Td9d6hQc", pot=200, stack=900, oop_range="AA,KK", ip_range="QQ,JJ",
                      bets="33%, a", raises="a", big_blind=10)  # fmt: skip
    return build_holdem(spec)


# ----- the amount to call and the pot odds --------------------------------------------------
def test_pot_odds_of_known_numbers() -> None:
    assert pot_odds(66, 166) == pytest.approx(66 / 232)  # 100 in, a 66 bet: 28.4 %
    assert f"{100 * pot_odds(66, 166):.1f}" == "28.4"
    assert pot_odds(50, 150) == pytest.approx(0.25)  # a pot-sized bet: 25 %


def test_header_says_what_to_call_and_the_pot_odds_facing_a_bet() -> None:
    g = _turn()
    facing = spot(g, g.find(("b:66",)), BB_BTN)  # BTN faces 66 with 266 in the pot
    assert facing.to_call == 66.0 and facing.pot == 266.0
    html = header_html(facing)
    assert "To call <b>66 (6.6 bb)</b> · pot odds <b>19.9 %</b>" in html  # 66 / 332
    jam = spot(g, g.find(("b:900",)), BB_BTN)  # all-in 900 into 200
    assert jam.to_call == 900.0
    assert "pot odds <b>45.0 %</b>" in header_html(jam)  # 900 / 2000
    raised = spot(g, g.find(("k", "b:66", "r:900")), BB_BTN)  # BB jams over the 66 bet
    assert raised.to_call == 900.0 - 66.0 and raised.pot == 200 + 66 + 900
    assert f"pot odds <b>{100 * 834 / 2000:.1f} %</b>" in header_html(raised)


def test_no_call_where_no_bet_is_faced() -> None:
    g = _turn()
    for line in ((), ("k",), ("k", "b:66", "c"), ("k", "b:66", "c", "d:8h")):
        s = spot(g, g.find(line), BB_BTN)
        assert s.to_call is None and call_fact(s) == ""
        assert "To call" not in header_html(s)


def test_preflop_header_calls_in_bb() -> None:
    g = load_preset("preflop-pushfold-10bb").build()
    root = spot(g, 0)  # the SB completes 0.5 into 1.5: 25 %
    assert root.to_call == 0.5
    assert "To call <b>0.5 bb</b> · pot odds <b>25.0 %</b>" in header_html(root)
    shove = next(c for c in g.children(0) if g.labels[c].startswith("r:"))
    s = spot(g, shove)  # the BB calls 9 into 11: 45 %
    assert s.to_call == pytest.approx(9.0)
    assert "To call <b>9 bb</b> · pot odds <b>45.0 %</b>" in header_html(s)


# ----- numbers as players read them -----------------------------------------------------------
def _sprintf_g(fmt: str, x: float) -> str:
    """sprintf-js's ``%.Ng`` (what st.dataframe's printf formats run):
    ``String(Number(x.toPrecision(N)))`` — the shortest text of the number rounded to N
    significant digits."""
    digits = int(fmt.removeprefix("%.").removesuffix("g"))
    text = repr(float(f"{x:.{digits - 1}e}"))
    return text.removesuffix(".0")


def test_table_formats_say_combos_without_a_stray_decimal_and_reach_in_percent() -> None:
    from app.components import number_formats as NF

    fmt = NF.column_format("combos after")
    assert fmt == NF.COMBOS
    assert _sprintf_g(fmt, 167.0) == "167" and _sprintf_g(fmt, 1326.0) == "1326"
    assert _sprintf_g(fmt, 167.43) == "167.4" and _sprintf_g(fmt, 12.3456) == "12.35"
    assert NF.column_format("reach") == NF.REACH == "percent"  # st.column_config: 87.80%
    assert NF.decimals(87.797) == "87.8" and NF.decimals(167.0) == "167"
    assert NF.decimals(-0.001) == "0" and NF.decimals(1234.5) == "1,234.5"


def test_lock_effect_metric_has_two_decimals_at_most() -> None:
    from app.features.lock_effect import ev_metric

    row = {"EV after": 87.797, "change": 1.2468, "EV before": 86.5502}
    assert ev_metric(row) == ("87.8", "+1.25 (was 86.55)")
    assert ev_metric({"EV after": 10.0, "change": -2.0, "EV before": 12.0}) == (
        "10",
        "-2 (was 12)",
    )


def test_toy_card_table_reach_in_percent() -> None:
    import numpy as np

    from app.components.views import card_table
    from solver import make_game

    g = make_game("leduc")
    nh = g.num_hands[0]
    reach = np.full(nh, 0.87797)
    strategy = np.full((len(g.action_labels(0)), nh), 1 / 3)
    df = card_table(g, 0, strategy, reach)
    assert list(df["reach %"]) == [87.8] * nh
    assert df[df.columns[-1]].iloc[0] == 33.33


# ----- estimates count threads ---------------------------------------------------------------
def test_two_thread_estimates_use_the_speedup_measured_here(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from solver.run import calibration

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cells = 2_000_000
    calibration.record(cells, 0.010)  # one thread: 5 ns per hand-cell
    assumed = calibration.load()
    assert assumed.seconds(cells, 2) == pytest.approx(0.010 / calibration.TWO_THREAD_SPEEDUP)
    # two threads measured here at 8 ms an iteration: a 1.25× speed-up, not the assumed 1.5×
    cost = calibration.record(cells, 0.008, threads=2)
    assert cost.ns_per_cell == pytest.approx(5.0)  # the one-thread figure is untouched
    assert cost.seconds(cells, 2) == pytest.approx(0.008)
    assert cost.speedup(2) == pytest.approx(1.25)
    assert cost.seconds(cells) == pytest.approx(0.010)
    # a second two-thread solve folds into the two-thread figure (a running mean)
    cost = calibration.record(cells, 0.006, threads=2)
    assert cost.seconds(cells, 2) == pytest.approx(0.5 * 0.008 + 0.5 * 0.006)
    assert calibration.load() == cost
    # four threads never measured: the one-thread figure over the assumed speed-up
    assert cost.seconds(cells, 4) == pytest.approx(0.010 / (2 * calibration.TWO_THREAD_SPEEDUP))


def test_the_estimate_line_names_the_threads() -> None:
    from app.components.solve_estimate import estimate_line

    assert estimate_line(0.02, 0.3, "% pot", True, 100_000, threads=2) == (
        "≈ 3.0 s to 0.3 % pot on 2 threads"
    )
    assert estimate_line(0.02, 0.3, "% pot", True, 100_000) == "≈ 3.0 s to 0.3 % pot"


def test_solve_page_estimate_uses_the_threads_field(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Solve page's estimate for 2 threads is the time measured on two threads here."""
    from app_helpers import app

    from app import state
    from solver.run import calibration

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.setenv("REGRET_LAB_BACKGROUND_WARMUP", "0")
    from solver.cfr.parallel import max_threads
    from solver.games.holdem import estimate, validate

    if max_threads() < 2:
        pytest.skip("one core: the Threads field takes 1 only")
    spec = load_preset("srp-river").holdem
    assert spec is not None
    cells = calibration.cells_of_estimate(estimate(validate(spec)))
    big = 1_000_000  # (a tree this size teaches the calibration: 10 ns, then 500 ns on 2)
    calibration.record(big, 10e-9 * big)
    calibration.record(big, 500e-9 * big, threads=2)
    at = app(**{state.THREADS: "2"})
    at.run()
    text = " ".join(m.value for m in at.markdown)
    assert not at.exception
    from app.components.fields import duration

    # 150 iterations to 0.3 % pot at 500 ns per hand-cell on two threads (not 10 / 1.5)
    assert f"≈ {duration(150 * cells * 500e-9)} to 0.3 % pot on 2 threads" in text, text


def test_a_batch_says_its_time_to_the_target() -> None:
    from solver.batch.driver import target_seconds
    from solver.batch.spec import BatchCost, BatchSpec
    from solver.run.calibration import iterations_to

    worst = 3 * (1000 * 0.5 + 4.0)  # 5 flops, 2 at once, each to the cap and summarised
    cost = BatchCost(flops=5, biggest="AsKd2c", memory_mb=100.0, seconds_per_iteration=0.5,
                     workers=2, max_seconds=worst, summary_seconds=4.0)  # fmt: skip
    template = load_preset("srp-flop").holdem
    assert template is not None
    spec = BatchSpec(template, target_pct=0.3, max_iterations=1000)
    n = iterations_to(0.3, True, 1000)
    assert n == 150
    to_target = target_seconds(spec, cost)
    assert to_target == pytest.approx(3 * (150 * 0.5 + 4.0))  # 3 rounds of 2
    assert to_target is not None and to_target < cost.max_seconds
    assert target_seconds(BatchSpec(template, target_pct=None), cost) is None


# ----- hand classes: the filter and their equity and EQR -------------------------------------
@pytest.mark.parametrize("board", ["Td9d6h", "Td9d6hQc", "Td9d6hQc2s", "KhKd5c"])
def test_a_class_name_filters_exactly_the_hands_of_that_class(board: str) -> None:
    """ "top pair", "flush draw", … select the combos handclass.classify gives that class on
    the board, one combo at a time (every combo not holding a board card)."""
    from app.components.hand_filter import combo_mask
    from solver.poker.cards import COMBOS, parse_cards
    from solver.poker.handclass import classify

    cards = parse_cards(board)
    free = [i for i, (a, b) in enumerate(COMBOS) if a not in cards and b not in cards]
    classes = {i: classify((int(COMBOS[i][0]), int(COMBOS[i][1])), cards) for i in free}
    for text, made, draw in (("top pair", "top_pair", None), ("Top Pair", "top_pair", None),
                             ("set", "set", None), ("two_pair", "two_pair", None),
                             ("overpair", "overpair", None), ("high card", "high_card", None),
                             ("flush draw", None, "flush_draw"), ("oesd", None, "oesd"),
                             ("gutshot", None, "gutshot"), ("overcards", None, "overcards"),
                             ("open-ended straight draw", None, "oesd")):  # fmt: skip
        mask = combo_mask(text, cards)
        assert mask is not None
        want = {i for i, c in classes.items() if c.made == made or (draw in c.draws)}
        assert set(int(i) for i in mask.nonzero()[0]) == want, (board, text)
    both, top = combo_mask("top pair, AA", cards), combo_mask("top pair", cards)
    aces = combo_mask("AA")
    assert both is not None and top is not None and aces is not None
    assert (both == (top | aces)).all()


def test_a_class_name_needs_a_board() -> None:
    from app.components.hand_filter import FilterError, combo_mask

    with pytest.raises(FilterError, match="'top pair' is a hand class: classes need a board"):
        combo_mask("top pair")
    with pytest.raises(FilterError, match="neither a hand range nor a word"):
        combo_mask("top pear", (0, 5, 9))


@functools.cache
def _river_solved() -> tuple[Game, object]:
    from solver import make_rule
    from solver.algorithms import make_solver

    game = load_preset("srp-river").build()
    eng = make_solver(game, make_rule("dcfr").name)
    eng.iterate(30)
    return game, eng.average_strategy()


def test_explore_filter_keeps_the_top_pairs_of_the_node() -> None:
    """Explore's filter (the screen's filter_rows) keeps exactly the rows whose hands are top
    pair on the river board Td9d6hQc2s: the queens."""
    from app.screens.explore import filter_rows
    from solver.poker.handclass import classify
    from solver.study.views import board_cards

    game, _ = _river_solved()
    board = board_cards(game, 0)
    names = [n for h, n in enumerate(game.hand_names[1]) if game.valid_hands(0, 1)[h]]
    keep = filter_rows(game, 1, names, "top pair", 0)
    assert keep is not None
    want = [classify(n, board).made == "top_pair" for n in names]
    assert list(keep) == want and any(want)
    assert all("Q" in n for n, k in zip(names, keep, strict=True) if k)


def test_class_equity_and_eqr_are_the_reach_weighted_aggregate_of_their_hands() -> None:
    import numpy as np

    from app.features.study_views import class_frame
    from solver.study.analysis import analyze
    from solver.study.groups import class_groups, group_numbers

    game, sigma = _river_solved()
    node = game.find(("k",))  # IP facing a check: both invested 0, pot 200
    a = analyze(game, sigma, node)  # type: ignore[arg-type]
    for player in (0, 1):
        v = a.players[player]
        frame = class_frame(game, a, player)
        for g in class_groups(game, node, player):
            # naive: a plain loop over the class's hands, weights own reach × opponent mass
            w = ev = eq = 0.0
            for h in np.flatnonzero(g.mask):
                wt = float(v.reach[h] * v.opponent_mass[h])
                if wt > 0:
                    w, ev, eq = w + wt, ev + wt * float(v.ev[h]), eq + wt * float(v.equity[h])
            got = group_numbers(v, g.mask)
            if w == 0:
                continue
            ev, eq = ev / w, eq / w
            eqr = (ev + v.invested) / (eq * v.pot)
            assert got.ev == pytest.approx(ev, rel=1e-9, abs=1e-9)
            assert got.equity == pytest.approx(eq, rel=1e-9, abs=1e-12)
            assert got.eqr == pytest.approx(eqr, rel=1e-9)
            row = frame[frame["class"] == g.label].iloc[0]
            assert row["equity %"] == pytest.approx(100 * eq, rel=1e-9)
            assert row["EQR"] == pytest.approx(eqr, rel=1e-9)
    assert {"equity %", "EQR"} <= set(class_frame(game, a, 0).columns)


# ----- what a lock changed, on flop trees too ---------------------------------------------------
@functools.cache
def _turn_profiles() -> tuple[Game, object, object]:
    """srp-turn (4,052 decision nodes, river cards below) at 10 and at 40 DCFR iterations."""
    import numpy as np

    from solver.algorithms import make_solver

    game = load_preset("srp-turn").build()
    eng = make_solver(game, "dcfr")
    eng.iterate(10)
    before = np.array(eng.average_strategy())
    eng.iterate(30)
    return game, before, np.array(eng.average_strategy())


def test_top_shifts_are_the_exhaustive_comparisons_top_lines() -> None:
    from solver.study.lock_effect import frequency_shifts, top_shifts

    game, before, after = _turn_profiles()
    every = frequency_shifts(game, before, after, locked={0}, limit=None)  # type: ignore[arg-type]
    for floor in (0.0, 0.001):
        want = [s for s in every if max(s.reach_before, s.reach_after) >= floor][:12]
        got = top_shifts(game, before, after, locked={0}, limit=12, min_reach=floor)  # type: ignore[arg-type]
        assert got.complete and got.compared < got.total == len(game.decision_nodes())
        assert [s.node for s in got.shifts] == [s.node for s in want]
        for g, w in zip(got.shifts, want, strict=True):
            assert g.weighted == pytest.approx(w.weighted, rel=1e-9)
            assert (g.reach_before, g.reach_after) == pytest.approx(
                (w.reach_before, w.reach_after), rel=1e-9
            )
            assert g.locked == w.locked and g.change == pytest.approx(w.change, abs=1e-12)
            assert g.combos_before == pytest.approx(w.combos_before, rel=1e-12)


def test_a_search_cut_short_keeps_the_most_reached_lines() -> None:
    """Past its budget the search says so, and every line of the exhaustive top 12 whose
    weighted move is above the reach where it stopped is in its list."""
    from solver.study.lock_effect import frequency_shifts, top_shifts

    game, before, after = _turn_profiles()
    every = frequency_shifts(game, before, after, limit=None)  # type: ignore[arg-type]
    got = top_shifts(game, before, after, limit=12, budget=30)  # type: ignore[arg-type]
    assert not got.complete and got.compared == 30 and got.below > 0
    nodes = {s.node for s in got.shifts}
    assert {s.node for s in every[:12] if s.weighted > got.below} <= nodes


def test_lines_that_moved_on_a_flop_tree_past_the_old_limit() -> None:
    """A flop tree of 51,880 decision nodes (the comparison stopped at 20,000 with "limited
    to 20,000"): the Effect table lists its lines, found among the most reached."""
    import numpy as np

    from app.features.lock_effect import search_words, shifts_frame
    from solver.algorithms import make_solver
    from solver.study.lock_effect import MAX_SHIFT_NODES, frequency_shifts

    spec = HoldemSpec(board="Qs8s3h", pot=200, stack=400, oop_range="AA,KK", ip_range="QQ,JJ",
                      bets="50%", raises="")  # fmt: skip
    game = build_holdem(spec)
    assert len(game.decision_nodes()) > MAX_SHIFT_NODES
    eng = make_solver(game, "dcfr")
    eng.iterate(2)
    before = np.array(eng.average_strategy())
    eng.iterate(6)
    after = np.array(eng.average_strategy())
    with pytest.raises(ValueError, match="limited to"):
        frequency_shifts(game, before, after)
    df, search = shifts_frame(game, before, after, {0})
    assert len(df) == 12 and search.complete and search.compared < MAX_SHIFT_NODES
    assert df["locked"].iloc[0] in ("yes", "") and "limited" not in search_words(search)
    assert df["largest move (points)"].max() > 0


def test_the_resolve_target_starts_at_the_solves_own() -> None:
    """The re-solve's target and limit are the solve's own (its target in % pot, not the
    exploitability it reached), and follow when another solve comes in."""
    from app_helpers import finished_job, no_threads_left, page, preset_game

    from app import state
    from solver import make_rule
    from solver.run.jobs import SolveJob

    game, source = preset_game("srp-river")
    try:
        job = SolveJob(game, make_rule("dcfr"), target=0.5, max_iterations=300).start()
        job.wait_for(lambda q: q.finished, timeout=60)
        at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source, state.EXPLORE_NODE: 0})
        at.run()
        n = len(game.action_labels(0))
        for i, v in enumerate(["100", *["0"] * (n - 1)]):
            at.text_input(key=f"lockui_mix_0_{i}").set_value(v)
        at.run()
        at.button(key="lockui_add").click().run()
        assert not at.exception
        assert at.text_input(key="lockui_target").value == "0.25"  # 0.5 chips of a 200 pot
        assert at.text_input(key="lockui_iterations").value == "300"
        other = finished_job(game, 40)  # no target: none, not its last exploitability
        at.session_state[state.JOB] = other
        at.run()
        assert at.text_input(key="lockui_target").value == "0"
        assert at.text_input(key="lockui_iterations").value == "40"
    finally:
        no_threads_left()


# ----- the opening preset tells its convergence story -------------------------------------------
OPENING = "preset:srp-river"  # the game the app opens on (app.spec.DEFAULT_SOURCE)


def test_the_opening_solve_draws_a_curve_worth_replaying() -> None:
    """The app opens on srp-river, checked every iteration: its first solve (about 90
    iterations to 0.3 % pot) has a point per iteration, so the finished curve's replay plays
    every one of its frames — seconds, not the 10 checks of a 0.6 s replay."""
    import json

    from app_helpers import app, no_threads_left, poll

    from app import state
    from app.components.figures import REPLAY_FRAME_MS, REPLAY_FRAMES

    try:
        at = app()
        at.run()
        assert not at.exception and at.session_state[state.SOURCE] == OPENING == "preset:srp-river"
        assert at.text_input(key=state.CHECK_EVERY).value == "1"
        at.button(key="btn_solve").click().run()
        job = at.session_state[state.JOB]
        poll(at, lambda: job.progress.finished, timeout=120)
        at.run()
        p = job.progress
        assert p.stopped_by == "target" and job.check_every == 1
        assert [q.iteration for q in p.history] == list(range(p.iteration + 1))
        assert len(p.history) > REPLAY_FRAMES  # (10 points when checked every 10)
        curve = json.loads(at.get("plotly_chart")[0].proto.spec)
        frames = len(curve["frames"])
        assert frames == REPLAY_FRAMES and frames * REPLAY_FRAME_MS >= 3000  # ≥ 3 s
        # another game checks every 10 again; back on the opening one, every iteration
        at.session_state[state.SOURCE] = "preset:srp-turn"
        at.run()
        assert at.text_input(key=state.CHECK_EVERY).value == "10"
        at.session_state[state.SOURCE] = OPENING
        at.run()
        assert at.text_input(key=state.CHECK_EVERY).value == "1"
    finally:
        no_threads_left()


def test_a_check_interval_set_for_the_opening_game_is_kept() -> None:
    from app_helpers import app

    from app import state

    at = app()
    at.run()
    at.text_input(key=state.CHECK_EVERY).set_value("5").run()
    at.session_state[state.SOURCE] = "preset:leduc"
    at.run()
    assert at.text_input(key=state.CHECK_EVERY).value == "10"
    at.session_state[state.SOURCE] = OPENING
    at.run()
    assert at.text_input(key=state.CHECK_EVERY).value == "5"
