"""Heads-up preflop push/fold and raise/jam (solver.games.preflop) solved by the engine and
checked against what no one here wrote: a brute-force best response in plain NumPy over the
equity table, the blinds a locked BB gives away, the push/fold game a stack-sized raise
must be, and HoldemResources' published heads-up push/fold Nash chart."""

from __future__ import annotations

import functools
import io
import json
from contextlib import redirect_stderr, redirect_stdout

import numpy as np
import numpy.typing as npt
import pytest

from solver import solve
from solver.api import SolveResult
from solver.cli import main as cli_main
from solver.files.presets import load_preset
from solver.games import make_game
from solver.games.build import make_hands
from solver.games.model import FIXED, RUNOUT
from solver.games.preflop import PreflopSpec, _hands, validate
from solver.games.spec import SpecError
from solver.poker.preflop_equity import allin_sign, collisions
from solver.poker.ranges import parse_range

Array = npt.NDArray[np.float64]


@functools.cache
def solved(stack: float, iterations: int = 3000, target: float = 1e-6) -> SolveResult:
    """Push/fold at ``stack`` bb solved with dcfr-tuned to ``target`` bb."""
    game = make_game("preflop", stack_bb=stack, tree="push-fold")
    return solve(game, "dcfr-tuned", iterations=iterations, target_exploitability=target,
                 check_every=50)  # fmt: skip


def push_call(result: SolveResult) -> tuple[Array, Array]:
    """SB's shove and BB's call probability per combo (1326,) of a full-range push/fold."""
    jam = result.game.labels[int(result.game.children(0)[-1])]
    return result.node_strategy(())[1], result.node_strategy((jam,))[1]


def brute_force(stack: float, push: Array, call: Array, ante: float = 0.0) -> dict[str, Array]:
    """Push/fold values by plain NumPy over the equity table, every compatible pair of combos
    equally likely (full ranges): each SB combo's EV of shoving and of folding against
    ``call``, each BB combo's EV of calling and folding a shove against ``push``
    (conditioned on the shove), and the two best responses (BR₀, BR₁) in bb."""
    ok = ~collisions()
    sign = np.where(ok, allin_sign(), 0.0)
    pairs = ok.sum()
    n = ok.sum(axis=1)
    sb_push = (ok * ((1 - call)[None, :] * (1 + ante) + call[None, :] * stack * sign)).sum(1)
    sb_fold = -(0.5 + ante) * n
    br0 = np.maximum(sb_push, sb_fold).sum() / pairs
    bb_base = (ok * (1 - push)[:, None] * (0.5 + ante)).sum(0)
    bb_call = (ok * push[:, None] * stack * -sign).sum(0)
    bb_fold = (ok * push[:, None] * -(1 + ante)).sum(0)
    br1 = (bb_base + np.maximum(bb_call, bb_fold)).sum() / pairs
    mass = (ok * push[:, None]).sum(0)
    return {
        "sb_margin": (sb_push - sb_fold) / n,
        "bb_margin": np.where(mass > 0, (bb_call - bb_fold) / np.maximum(mass, 1e-300), 0.0),
        "br": np.array([br0, br1]),
    }


# ----- the game --------------------------------------------------------------------------------
def test_push_fold_tree_and_payoffs() -> None:
    g = make_game("preflop", stack_bb=10, ante=0.1)
    assert g.labels == ["", "f", "r:9.9", "f", "c"]
    t = g.tree
    assert t.kind[1] == FIXED and t.payoff[1] == pytest.approx(-0.6)  # SB folds blind + ante
    assert t.kind[3] == FIXED and t.payoff[3] == pytest.approx(1.1)  # BB folds blind + ante
    assert t.kind[4] == RUNOUT and t.payoff[4] == 10.0 and t.runout[4] == 0
    assert g.num_hands == (1326, 1326) and g.big_blind == 1.0 and g.ev_offset == 0.0
    assert g.starting_pot == pytest.approx(1.7)


def test_raise_jam_tree() -> None:
    g = make_game("preflop", stack_bb=15, tree="raise-jam", raise_sizes="3, 2x")
    assert g.action_labels(0) == ["f", "r:2", "r:3", "r:15"]
    assert g.action_labels(g.find(("r:2",))) == ["f", "r:15"]
    assert g.action_labels(g.find(("r:3", "r:15"))) == ["f", "c"]
    assert g.tree.payoff[g.find(("r:3", "r:15", "f"))] == -3.0  # SB gives up its raise
    assert g.tree.payoff[g.find(("r:3", "f"))] == 1.0


def test_runout_values_are_the_equity_table() -> None:
    g = make_game("preflop", stack_bb=10, sb_range="AA, KQs", bb_range="QQ+, AK")
    combos = g.meta["combos"]
    assert isinstance(combos, list)
    ids0, ids1 = combos
    n0, n1 = len(ids0), len(ids1)
    np.testing.assert_array_equal(g.boards.runout_eq[0, 0, :n0, :n1],
                                  allin_sign()[np.ix_(ids0, ids1)])  # fmt: skip
    np.testing.assert_array_equal(g.boards.runout_eq[0, 1, :n1, :n0],
                                  -allin_sign()[np.ix_(ids0, ids1)].T)  # fmt: skip


def test_hands_as_make_hands_makes_them() -> None:
    w0, w1 = parse_range("AA, KQs, 72o"), parse_range("QQ+, AK, T9s:0.5")
    ids = [np.flatnonzero(w0 > 0), np.flatnonzero(w1 > 0)]
    from solver.poker.cards import COMBOS

    cards: list[list[tuple[int, ...]]] = [
        [(int(COMBOS[i, 0]), int(COMBOS[i, 1])) for i in ids[p]] for p in range(2)
    ]
    ref = make_hands(cards, [w0[ids[0]], w1[ids[1]]], 52)
    ours = _hands(ids, (w0, w1))
    for name in ("num_hands", "cards", "weights", "same", "perm", "pack"):
        np.testing.assert_array_equal(getattr(ours, name), getattr(ref, name), err_msg=name)
    assert ours.norm == pytest.approx(ref.norm, rel=1e-13) and ours.num_cards == 52


@pytest.mark.parametrize(
    ("fields", "field", "words"),
    [
        ({"stack_bb": 0.5}, "stack_bb", "≥ 1"),
        ({"stack_bb": 51}, "stack_bb", "at most 50"),
        ({"stack_bb": "ten"}, "stack_bb", "not a number"),
        ({"sb": 2.0}, "sb", "must not exceed"),
        ({"bb": 0}, "bb", "positive"),
        ({"sb": -1}, "sb", "positive"),
        ({"ante": -0.1}, "ante", "≥ 0"),
        ({"stack_bb": 1, "ante": 0.5}, "stack_bb", "does not cover"),
        ({"tree": "limp"}, "tree", "push-fold, raise-jam"),
        ({"raise_sizes": [2.0]}, "raise_sizes", "only for the raise-jam"),
        ({"tree": "raise-jam", "raise_sizes": [11]}, "raise_sizes", "more than the stack"),
        ({"tree": "raise-jam", "raise_sizes": "1.5"}, "raise_sizes", "at least 2 bb"),
        ({"tree": "raise-jam", "raise_sizes": {"a": 1}}, "raise_sizes", "must be sizes"),
        ({"sb_range": "ZZ"}, "sb_range", "ZZ"),
        ({"bb_range": "AsAh", "sb_range": "AsAh"}, "bb_range", "can be dealt"),
    ],
)
def test_fields_are_checked_by_name(fields: dict, field: str, words: str) -> None:
    with pytest.raises(SpecError, match=words) as info:
        make_game("preflop", **fields)
    assert info.value.field == field


def test_unknown_option_and_game_options() -> None:
    with pytest.raises(TypeError, match="stack"):
        make_game("preflop", stack=10)
    with pytest.raises(TypeError, match="takes no options"):
        make_game("kuhn", stack_bb=10)
    with pytest.raises(TypeError):
        validate("not a spec")  # type: ignore[arg-type]


# ----- push/fold against brute force -------------------------------------------------------------
def test_push_fold_10bb_reaches_a_hundredth_of_a_mbb() -> None:
    result = solved(10.0)
    assert float(result.history[-1].as_dict(result.game)["exploitability_mbb"]) < 0.01  # type: ignore[arg-type]
    ev = result.ev
    assert ev[0] + ev[1] == pytest.approx(0.0, abs=1e-12)
    assert -0.5 < ev[0] < 0.0  # BB's edge: the SB's EV is a small loss at 10 bb


def test_engine_best_response_equals_brute_force() -> None:
    """Early (far from equilibrium) and solved average strategies: the engine's (BR₀, BR₁)
    equal a plain NumPy best response over the equity table to 1e-12 bb."""
    game = make_game("preflop", stack_bb=10)
    for iterations in (2, 7):
        r = solve(game, "cfr", iterations=iterations, check_every=iterations)
        push, call = push_call(r)
        br = brute_force(10.0, push, call)["br"]
        np.testing.assert_allclose(r.history[-1].best_response, br, rtol=0, atol=1e-12)
    r = solved(10.0)
    push, call = push_call(r)
    np.testing.assert_allclose(r.history[-1].best_response, brute_force(10.0, push, call)["br"],
                               rtol=0, atol=1e-12)  # fmt: skip


def test_brute_force_with_an_ante() -> None:
    game = make_game("preflop", stack_bb=8, ante=0.125)
    r = solve(game, "dcfr", iterations=5, check_every=5)
    push, call = push_call(r)
    br = brute_force(8.0, push, call, ante=0.125)["br"]
    np.testing.assert_allclose(r.history[-1].best_response, br, rtol=0, atol=1e-12)


# ----- raise/jam ---------------------------------------------------------------------------------
@pytest.mark.parametrize("ante", [0.0, 0.1])
def test_bb_folding_to_every_raise_gives_the_blinds(ante: float) -> None:
    """BB locked to fold to each raise and to the shove: every raise, the smallest included,
    wins exactly the BB's blind and ante, so that is SB's best response value, and the
    locked game's solution raises with every hand."""
    game = make_game("preflop", stack_bb=15, tree="raise-jam", raise_sizes=[2.0, 3.0], ante=ante)
    locks = {"r:2": {"f": 1.0}, "r:3": {"f": 1.0}, f"r:{15 - ante:g}": {"f": 1.0}}
    r = solve(game, "dcfr", iterations=200, check_every=200, locks=locks)
    assert r.history[-1].best_response[0] == pytest.approx(1.0 + ante, abs=1e-12)
    assert r.game_value == pytest.approx(1.0 + ante, abs=1e-6)
    root = r.node_strategy(())
    assert np.all(root[0] < 1e-3)  # no hand folds


def test_a_raise_the_size_of_the_stack_is_push_fold() -> None:
    pf = make_game("preflop", stack_bb=10)
    rj = make_game("preflop", stack_bb=10, tree="raise-jam", raise_sizes=[10])
    assert rj.meta["merged_sizes"] == [10.0] and rj.labels == pf.labels
    for name in ("kind", "player", "first_child", "num_children", "payoff", "runout"):
        np.testing.assert_array_equal(getattr(rj.tree, name), getattr(pf.tree, name))
    a = solve(pf, "dcfr-tuned", iterations=40, check_every=40)
    b = solve(rj, "dcfr-tuned", iterations=40, check_every=40)
    assert a.exploitability == b.exploitability and a.ev == b.ev


def test_raise_jam_solves_and_sb_prefers_raising_some_hands() -> None:
    game = make_game("preflop", stack_bb=15, tree="raise-jam")
    r = solve(game, "dcfr-tuned", iterations=600, check_every=100)
    assert float(r.history[-1].as_dict(game)["exploitability_mbb"]) < 0.1  # type: ignore[arg-type]
    root = r.node_strategy(())
    assert root[1].mean() > 0.05  # the 2 bb raise is used
    assert r.ev[0] > solved(15.0, 600, 1e-6).ev[0]  # an extra option is worth something


# ----- HoldemResources' chart ---------------------------------------------------------------------
def _margin(stack: float, hand: str, who: str) -> float:
    """The EV (bb) of shoving (SB) or calling (BB) minus folding for a hand class, against the
    other player's solved strategy, by the brute force above."""
    push, call = push_call(solved(stack))
    m = brute_force(stack, push, call)["sb_margin" if who == "SB" else "bb_margin"]
    return float(m[parse_range(hand) > 0].mean())


@pytest.mark.parametrize(
    ("hand", "who", "plays", "folds"),
    [
        ("T3s", "SB", 7.7, 7.8),  # HRC: pushes up to 7.7 bb
        ("Q2o", "BB", 5.6, 5.7),  # HRC: calls up to 5.6 bb
        ("63s", "SB", 2.3, 2.4),  # HRC: 63s pushes below 2.3 bb, ...
        ("63s", "SB", 5.1, 5.0),  # ... and between 5.1 and 7.1 bb
        ("63s", "SB", 7.1, 7.2),
    ],
)
def test_thresholds_match_hrc_heads_up_push_fold_chart(
    hand: str, who: str, plays: float, folds: float
) -> None:
    """HoldemResources, "Using the Nash Charts" (holdemresources.net, heads-up push/fold,
    SB 0.5, BB 1, no ante; chart steps 0.1 bb): at the stack where the chart still plays a
    hand, shoving/calling is a best response here (margin ≥ −1e-4 bb); one step beyond,
    folding is strictly better."""
    assert _margin(plays, hand, who) > -1e-4
    assert _margin(folds, hand, who) < -1e-3


# ----- CLI and presets ----------------------------------------------------------------------------
def _cli(*argv: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stdout(out), redirect_stderr(err):
        code = cli_main(list(argv))
    return code, out.getvalue(), err.getvalue()


def test_cli_solves_push_fold_and_raise_jam() -> None:
    code, out, _ = _cli("solve", "--game", "preflop", "--stack-bb", "10", "--tree", "push-fold",
                        "--json", "--iterations", "100", "--every", "50")  # fmt: skip
    assert code == 0
    final = json.loads(out.splitlines()[-1])
    assert final["final"] and final["exploitability_mbb"] < 0.01
    assert final["ev"][0] == pytest.approx(-final["ev"][1])
    code, out, _ = _cli("solve", "--game", "preflop", "--stack-bb", "15", "--tree", "raise-jam",
                        "--raise-sizes", "2x", "--ante", "0.1", "--json",
                        "--iterations", "20")  # fmt: skip
    assert code == 0 and json.loads(out.splitlines()[-1])["game"] == "preflop raise-jam 15bb"


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--game", "preflop", "--stack-bb", "60"], "--stack-bb: 60 bb is too large"),
        (["--game", "preflop", "--small-blind", "2"], "--small-blind: the small blind"),
        (["--game", "preflop", "--raise-sizes", "2x"], "--raise-sizes: only for the raise-jam"),
        (["--game", "preflop", "--tree", "raise-jam", "--raise-sizes", "1x"], "--raise-sizes"),
        (["--game", "preflop", "--bb-range", "ZZ"], "--bb-range"),
        (["--game", "kuhn", "--stack-bb", "10"], "--stack-bb: only with --game preflop"),
    ],
)
def test_cli_errors_name_the_flag(argv: list[str], message: str) -> None:
    code, _, err = _cli("solve", *argv)
    assert code == 2 and err.startswith(f"error: {message}") and "Traceback" not in err


def test_presets_build_the_preflop_games() -> None:
    pf = load_preset("preflop-pushfold-10bb")
    assert pf.preflop == PreflopSpec(stack_bb=10, tree="push-fold", sb=0.5, bb=1.0, ante=0.0,
                                     name=pf.name)  # fmt: skip
    assert pf.build().labels == make_game("preflop", stack_bb=10).labels
    rj = load_preset("preflop-raisejam-15bb").build()
    assert rj.action_labels(0) == ["f", "r:2", "r:15"] and rj.meta["stack"] == 15.0


def test_chart_by_stack() -> None:
    """The push/fold chart by stack reads HRC's thresholds where its stacks bracket them, and
    its per-hand EV margins (solver.study.views.action_evs) equal the brute force's."""
    from solver.poker.ranges import CLASS_LABELS, COMBO_CELL
    from solver.study.preflop_chart import format_grid, push_fold_chart

    chart = push_fold_chart([7.8, 5.6, 7.7, 5.7])
    assert chart.stacks == (5.6, 5.7, 7.7, 7.8) and np.all(chart.exploitability <= 1e-6)
    assert chart.threshold("T3s", "SB") == 7.7 and chart.threshold("Q2o", "BB") == 5.6
    assert chart.threshold("AA", "SB") == 7.8 and chart.threshold("72o", "SB") is None
    push, call = push_call(solved(7.7))
    bf = brute_force(7.7, push, call)
    counts = np.bincount(COMBO_CELL, minlength=169)
    for key, row in (("sb_margin", chart.push_margin[2]), ("bb_margin", chart.call_margin[2])):
        np.testing.assert_allclose(row, np.bincount(COMBO_CELL, bf[key], 169) / counts,
                                   atol=1e-9)  # fmt: skip
    grid = format_grid(chart.largest("SB"), 7.8)
    assert grid.splitlines()[0].split()[:2] == ["AA", "7.8+"] and len(CLASS_LABELS) == 169
    with pytest.raises(ValueError, match="SB or BB"):
        chart.largest("BTN")


def test_every_algorithm_solves_the_preflop_game() -> None:
    """The preflop game is one more game of the common model: every algorithm runs on it
    with the kernels the warm-up compiles, and lowers the exploitability of the uniform
    profile (the samplers included, over enough iterations)."""
    from solver.algorithms import ALGORITHMS, make_solver

    game = make_game("preflop", stack_bb=10, sb_range="22+,A2s+,K9o+", bb_range="22+,A8o+,KTs+")
    uniform = make_solver(game, "cfr")
    start = sum(uniform.best_response_values()) / 2
    for name in ALGORITHMS:
        eng = make_solver(game, name)
        eng.iterate(2000 if ALGORITHMS[name].kind == "sampling" else 30)
        got = sum(eng.best_response_values()) / 2
        assert 0 <= got < start, (name, got, start)
