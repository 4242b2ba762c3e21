"""AppTest: the Practice page plays a few hands of a finished solve with scripted clicks; its
grades, EV lost and score are checked against the solve's own per-action EVs and the grade
rule applied here, not read back from the page's drill."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from app_helpers import finished_job, no_threads_left, page
from conftest import small_turn
from streamlit.testing.v1 import AppTest

from app import state
from solver import Game
from solver.cfr.options import SolveOptions
from solver.study.trainer import GRADES, Decision, Thresholds, grade_of, pot_at
from solver.study.views import action_evs


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


@functools.cache
def _turn() -> Game:
    return small_turn("AA,KQs,T8s,76s", "QQ-99,AK,J9s")


def started(job: object, seed: int, hero: int) -> AppTest:
    """The Practice page on ``job``'s solve with a session started: dealing ``seed``, the
    hero ``hero``, Wrong above 2 % of the pot."""
    at = page(
        "practice",
        **{state.JOB: job, state.JOB_SOURCE: {}, state.PRACTICE_SEED: seed,
           state.PRACTICE_PLAYER: hero, state.PRACTICE_WRONG: 2.0},
    )  # fmt: skip
    at.run()
    assert not at.exception
    at.button(key="practice_start").click().run()
    assert not at.exception
    return at


def test_nothing_to_practise_yet() -> None:
    at = page("practice")
    at.run()
    assert not at.exception and "Nothing solved yet" in at.info[0].value


def test_play_a_few_hands_and_read_the_score() -> None:
    game = _turn()
    job = finished_job(game, 40)
    sigma, _ = job.average_strategy()
    at = started(job, seed=3, hero=1)
    graded: list[Decision] = []
    clicks = 0
    while len(graded) < 6 and clicks < 40:
        clicks += 1
        acts = [str(b.key) for b in at.button if str(b.key).startswith("practice_act_")]
        if not acts:
            assert "Hand over" in "".join(h.proto.body for h in at.get("html"))
            at.button(key="practice_next").click().run()
            continue
        at.button(key=acts[len(graded) % len(acts)]).click().run()  # cycle the actions
        assert not at.exception
        graded.append(at.session_state[state.PRACTICE_LAST])
    assert len(graded) == 6
    thresholds = Thresholds(wrong_pct_pot=2.0)
    lost = 0.0
    counts = dict.fromkeys(GRADES, 0)
    for d in graded:
        node, cmap = game.locate(list(d.history))
        h = game.map_hand(1, game.hand_names[1].index(d.hand), cmap)
        evs = action_evs(game, sigma, node)[:, h]
        np.testing.assert_allclose(d.evs, evs, atol=1e-12)
        loss = float(evs.max() - evs[d.chosen])
        assert d.ev_lost == pytest.approx(loss, abs=1e-12)
        off, _na, nh = game.block(node)
        freq = 100 * float(sigma[off + d.chosen * nh + h])
        pct = 100 * loss / pot_at(game, node)
        assert d.grade == grade_of(pct, freq, loss <= 1e-9, thresholds)
        lost += loss
        counts[d.grade] += 1
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Decisions"] == "6"
    assert metrics["Hands"] == str(len({d.hand_no for d in graded}))
    assert metrics["EV lost"].startswith(f"{lost:,.2f}")  # chips, then bb
    for grade, n in counts.items():
        assert metrics[grade] == str(n)
    # the last decision's table: its EVs, and the chosen action marked
    table = at.dataframe[0].value  # (drawn before the worst decisions)
    np.testing.assert_allclose(table["EV"], graded[-1].evs)
    assert "you" in table[""].iloc[graded[-1].chosen]
    at.toggle(key=state.PRACTICE_SHOW_RANGE).set_value(True).run()  # the node's grid
    assert not at.exception and len(at.get("plotly_chart")) == 1
    job.stop()


def test_one_node_of_leduc_with_rng_mode() -> None:
    """A toy game at one node (the Explore node: player 1 facing a bet): every hand is that
    one decision, the hero is who acts there, and in RNG mode Best is the drawn action."""
    from conftest import game as toy

    leduc = toy("leduc")
    node = leduc.find(("b:2",))
    job = finished_job(leduc, 50)
    at = page(
        "practice",
        **{state.JOB: job, state.JOB_SOURCE: {}, state.EXPLORE_NODE: node,
           state.PRACTICE_SCOPE: "node", state.PRACTICE_RNG: True, state.PRACTICE_SEED: 1},
    )  # fmt: skip
    at.run()
    at.button(key="practice_start").click().run()
    for _ in range(3):
        at.button(key="practice_act_1").click().run()  # call
        d = at.session_state[state.PRACTICE_LAST]
        assert d.node == node and d.player == 1 and d.names[d.chosen] == "Call"
        assert (d.grade == "Best") == (d.rng_pick == 1)
        at.toggle(key=state.PRACTICE_SHOW_RANGE).set_value(True).run()  # a card table
        assert any("card" in df.value.columns for df in at.dataframe)
        at.button(key="practice_next").click().run()
        assert not at.exception
    assert {m.label: m.value for m in at.metric}["Hands"] == "3"
    job.stop()


def test_filters_and_suits_on_the_page() -> None:
    """Deal only top pairs and AA with suits randomised: every hand dealt is one, the page
    shows its cards permuted and grades it as the solve's own hand; a filter that leaves
    nothing is said in words."""
    from app.components.practice_views import cards_html
    from solver.poker.handclass import classify
    from solver.study.trainer import shown_card

    game = _turn()
    job = finished_job(game, 40)
    at = page(
        "practice",
        **{state.JOB: job, state.JOB_SOURCE: {}, state.PRACTICE_SEED: 5,
           state.PRACTICE_PLAYER: 0, state.PRACTICE_SUITS: True,
           state.PRACTICE_CLASSES: ["top_pair"], state.PRACTICE_CELLS: ["AA"]},
    )  # fmt: skip
    at.run()
    at.button(key="practice_start").click().run()
    assert not at.exception and not at.error
    drill = at.session_state[state.PRACTICE_DRILL].drill
    graded: list[Decision] = []
    for _ in range(30):
        if len(graded) == 6:
            break
        if not drill.waiting:
            at.button(key="practice_next").click().run()
            continue
        html = "".join(h.proto.body for h in at.get("html"))
        cards = drill.hole_cards(0)
        assert cards_html([shown_card(c, drill.table.suits) for c in cards]) in html
        at.button(key="practice_act_0").click().run()
        assert not at.exception
        d = at.session_state[state.PRACTICE_LAST]
        assert {d.hand[:2], d.hand[2:]} == set(cards) and d.shown_hand in "".join(
            h.proto.body for h in at.get("html")
        )
        graded.append(d)
    assert len(graded) == 6
    for d in graded:
        made = classify(d.hand, "".join(d.board[:4])).made
        assert made == "top_pair" or d.hand[0] == d.hand[2] == "A"
    assert len({d.suits for d in graded}) > 1  # the suits do change
    at.session_state[state.PRACTICE_CELLS] = ["22"]
    at.session_state[state.PRACTICE_CLASSES] = []
    at.button(key="practice_start").click().run()
    assert not at.exception
    assert "leaves nothing to deal" in at.error[0].value
    job.stop()


@pytest.mark.parametrize("hero", [0, 1])
def test_practise_a_preflop_push_fold_solve(hero: int) -> None:
    """Push/fold at 10 bb, both seats: each decision's EVs are the solve's (bb: a preflop
    game's chips), the grade follows the rule on % of the pot at the node (blinds and antes
    plus what was put in), and the score's EV lost is the sum of the losses."""
    game = _push_fold()
    job = finished_job(game, 300)
    sigma, _ = job.average_strategy()
    at = started(job, seed=5, hero=hero)
    graded: list[Decision] = []
    clicks = 0
    while len(graded) < 6 and clicks < 60:
        clicks += 1
        acts = [str(b.key) for b in at.button if str(b.key).startswith("practice_act_")]
        if not acts:
            at.button(key="practice_next").click().run()
            assert not at.exception
            continue
        at.button(key=acts[len(graded) % len(acts)]).click().run()  # fold, then shove/call
        assert not at.exception
        graded.append(at.session_state[state.PRACTICE_LAST])
    assert len(graded) == 6
    thresholds = Thresholds(wrong_pct_pot=2.0)
    lost = 0.0
    for d in graded:
        node, cmap = game.locate(list(d.history))
        assert d.player == hero and int(game.tree.player[node]) == hero
        assert cmap == []  # (no board: a hand is its own index)
        h = game.hand_names[hero].index(d.hand)
        evs = action_evs(game, sigma, node)[:, h]
        np.testing.assert_allclose(d.evs, evs, atol=1e-12)
        loss = float(evs.max() - evs[d.chosen])
        assert d.ev_lost == pytest.approx(loss, abs=1e-12)
        pot = pot_at(game, node)  # bb: the blinds; facing a shove to 10, 10 + the BB's 1
        assert pot == pytest.approx(1.5 if hero == 0 else 11.0)
        off, _na, nh = game.block(node)
        freq = 100 * float(sigma[off + d.chosen * nh + h])
        assert d.grade == grade_of(100 * loss / pot, freq, loss <= 1e-9, thresholds)
        lost += loss
    # folding the SB loses its blind, whatever the hand: the EV the solve gives it
    folds = [d for d in graded if d.names[d.chosen] == "Fold"]
    assert folds and all(d.evs[d.chosen] == pytest.approx(-0.5 if hero == 0 else -1.0)
                         for d in folds)  # fmt: skip
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Decisions"] == "6"
    assert metrics["EV lost"].startswith(f"{lost:,.2f}")
    job.stop()


@functools.cache
def _push_fold() -> Game:
    from solver.games import make_game

    return make_game("preflop", stack_bb=10, tree="push-fold")


def test_off_the_solutions_tree_the_page_says_so_and_grades_by_ev() -> None:
    """Issue 44.3: OOP holding AA bets the river after check, check (the solution never does)
    and faces IP's all-in: the page says the solution never gets here with this hand, the
    decision has no mix and is graded by EV lost alone (a call losing 25 % of the pot is a
    Blunder, not Correct by the placeholder's 50 %), and the worst decisions agree. Off the
    tree is checked by a naive walk of the hand's own action probabilities."""
    from test_trainer_off_tree import naive_own_reach

    game = _turn()
    job = finished_job(game, 60)
    sigma, _ = job.average_strategy()
    node = game.find(("k", "k", "d:Js"))
    at = page(
        "practice",
        **{state.JOB: job, state.JOB_SOURCE: {}, state.PRACTICE_SEED: 5,
           state.PRACTICE_PLAYER: 0, state.PRACTICE_SCOPE: "street", state.EXPLORE_NODE: node,
           state.PRACTICE_CELLS: ["AA"]},
    )  # fmt: skip
    at.run()
    at.button(key="practice_start").click().run()
    assert not at.exception
    off_tree: list[Decision] = []
    for _ in range(40):
        if len(off_tree) == 2:
            break
        drill = at.session_state[state.PRACTICE_DRILL].drill
        if not drill.waiting:
            at.button(key="practice_next").click().run()
            continue
        t = drill.table
        h = drill.frame_hand(0)
        off_, na, nh = game.block(t.node)
        mix = sigma[off_ : off_ + na * nh].reshape(na, nh)[:, h]
        evs = action_evs(game, sigma, t.node)[:, h]
        off = naive_own_reach(game, sigma, t.node, 0, h) == 0.0
        said = "never gets here with this hand" in "".join(i.value for i in at.info)
        assert said == off
        if off:
            action = int(np.argmin(evs))
        else:  # the bet the solution never makes with AA, else the best
            never = [a for a, lab in enumerate(game.action_labels(t.node)) if lab.startswith("b:")
                     and mix[a] == 0.0]  # fmt: skip
            action = never[0] if never else int(np.argmax(evs))
        at.button(key=f"practice_act_{action}").click().run()
        assert not at.exception
        d = at.session_state[state.PRACTICE_LAST]
        assert d.off_tree == off
        if off:
            off_tree.append(d)
            warned = [w.value for w in at.warning]
            assert any("never gets here with this hand" in w for w in warned)
            table = at.dataframe[0].value  # the decision's (drawn before the worst ones)
            assert table["mix %"].isna().all()
            pct = 100 * d.ev_lost / pot_at(game, d.node)
            assert d.grade == grade_of(pct, float("nan"), d.ev_lost <= 1e-9, Thresholds())
    assert len(off_tree) == 2 and all(d.grade == "Blunder" for d in off_tree)
    at.toggle(key=state.PRACTICE_SHOW_RANGE).set_value(True).run()  # the node's whole range
    assert not at.exception and len(at.get("plotly_chart")) == 1
    (worst,) = [df.value for df in at.dataframe if "solution plays it" in df.value.columns]
    rows = worst[worst["solution plays it"] == "never gets here"]
    assert len(rows) >= 1 and set(rows["grade"]) == {"Blunder"}
    assert {m.label: m.value for m in at.metric}["Correct"] == "0"
    job.stop()


def test_the_page_names_the_locks_of_the_solve_it_drills() -> None:
    from solver import make_game, make_rule
    from solver.algorithms import make_solver
    from solver.run.jobs import SolveJob

    game = make_game("leduc")
    bet = game.action_labels(0)[1]
    engine = make_solver(game, "cfr+", options=SolveOptions(locks={"root": {"K": {bet: 1.0}}}))
    job = SolveJob(game, make_rule("cfr+"), engine=engine, max_iterations=20).start()
    job.wait_for(lambda q: q.finished, timeout=60)
    at = started(job, seed=1, hero=0)
    said = " ".join(c.value for c in at.caption)
    assert "graded against the average strategy of iteration 20 (locked: " in said
    assert "K: " in said  # the locked hand and its mix, as Explore's lock list words it
    plain = started(finished_job(game, 20, "cfr+"), seed=1, hero=0)
    assert "iteration 20 (no locks)" in " ".join(c.value for c in plain.caption)
