"""Opponent profiles (issue 48 item 2, solver.study.profiles): a profile's stats are reached
within ±1 pp on the srp-river and srp-turn presets, measured by a naive reach-weighted walk
written here (its own stat-node rules, its own card-removal sums, the locks read from the
lock spec, not from the engine); bad input is named by its field and nothing is locked or
solved before every field is valid; the JSON round trip."""

from __future__ import annotations

import json
from functools import cache

import numpy as np
import pytest

from solver import solve
from solver.api import SolveResult
from solver.files.presets import load_preset
from solver.games.model import CHANCE, DECISION, Game
from solver.poker.handclass import MADE, classify_hands
from solver.study.profiles import (
    Profile,
    ProfileError,
    StatTarget,
    apply_profile,
    compile_profile,
    plan,
)


@cache
def _game(key: str) -> Game:
    return load_preset(key).build()


@cache
def _solved(key: str, iterations: int) -> SolveResult:
    return solve(_game(key), "dcfr", iterations=iterations)


def _sigma_with_locks(game: Game, sigma: np.ndarray, locks: dict) -> np.ndarray:
    """The average strategy with every locked hand's mix written in from the lock spec."""
    out = np.array(sigma, dtype=np.float64)
    for line, mixes in locks.items():
        node = game.find(() if line == "root" else tuple(line.split()))
        p = int(game.tree.player[node])
        off, na, nh = game.block(node)
        labels = game.action_labels(node)
        names = list(game.hand_names[p])
        for hand, mix in mixes.items():
            h = names.index(hand)
            for a in range(na):
                out[off + a * nh + h] = float(mix.get(labels[a], 0.0))
    return out


def _naive(game: Game, sigma: np.ndarray, villain: int, is_stat, family: str, klass=None):
    """The villain's frequency of ``family`` ("b:"/"f"/"r:") over the nodes ``is_stat``
    (history → bool) picks: each hand at each node weighted by its own reach × the
    compatible reach of the other player × the cards' chance, by a walk of the whole tree."""
    t = game.tree
    nh = [int(x) for x in game.num_hands]
    cards = [[set(int(c) for c in game.hands.cards[p, h] if c >= 0) for h in range(nh[p])]
             for p in range(2)]  # fmt: skip
    compat = np.array([[not (a & b) for b in cards[1]] for a in cards[0]], dtype=float)
    num = den = 0.0

    def walk(node: int, reach: list[np.ndarray], chance: float, hist: tuple[str, ...]) -> None:
        nonlocal num, den
        kind = int(t.kind[node])
        kids = list(game.children(node))
        if kind == CHANCE:
            for c in kids:
                r = [reach[p] * game.boards.valid[t.board[c], p, : nh[p]] for p in range(2)]
                w = float(t.chance_weight[c]) * (1 + int(t.iso_count[c]))
                walk(c, r, chance * w, (*hist, game.labels[c]))
            return
        if kind != DECISION:
            return
        p = int(t.player[node])
        off, na, n = game.block(node)
        strat = sigma[off : off + na * n].reshape(na, n)
        if p == villain and is_stat(hist):
            other = compat @ reach[1] if villain == 0 else compat.T @ reach[0]
            w = reach[villain] * other * chance
            if klass is not None:
                board = [int(c) for c in np.asarray(game.meta["board"])]
                board += [game.card_names.index(x[2:]) for x in hist if x.startswith("d:")]
                made, _ = classify_hands(board, game.hands.cards[villain, : nh[villain]])
                w = w * (made == MADE.index(klass))
            labels = game.action_labels(node)
            fam = [a for a, lab in enumerate(labels) if lab.startswith(family)]
            if fam:
                num += float(w @ strat[fam].sum(axis=0))
                den += float(w.sum())
        for a, c in enumerate(kids):
            r = list(reach)
            r[p] = reach[p] * strat[a]
            walk(c, r, chance, (*hist, game.labels[c]))

    walk(0, [game.hands.weights[p, : nh[p]].copy() for p in range(2)], 1.0, ())
    return 100.0 * num / den


def _streets(hist: tuple[str, ...]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for lab in hist:
        if lab.startswith("d:"):
            out.append([])
        else:
            out[-1].append(lab)
    return out


def test_river_profile_reached_within_one_point() -> None:
    game = _game("srp-river")
    base = _solved("srp-river", 60)
    profile = Profile(
        "ip",
        (
            StatTarget("cbet", 70.0),
            StatTarget("cbet", 100.0, "two_pair"),
            StatTarget("fold_to_cbet", 60.0),
        ),
    )
    run = apply_profile(base, profile, iterations=60)
    assert run.result.engine.lockset is not None
    sigma = _sigma_with_locks(game, run.result.average_strategy(), run.locks)
    checks = [
        (lambda h: h == ("k",), "b:", None),
        (lambda h: h == ("k",), "b:", "two_pair"),
        (lambda h: len(h) == 1 and h[0].startswith("b:"), "f", None),
    ]
    for row, (is_stat, fam, klass) in zip(run.rows, checks, strict=True):
        got = _naive(game, sigma, 1, is_stat, fam, klass)
        assert row.achieved is not None
        assert abs(row.achieved - got) < 1e-6  # the module's readback is the naive one's
        assert abs(got - row.target) <= 1.0, (row, got)
        assert row.ok
    # the locks are at the stat nodes only, for IP's hands
    assert set(run.locks) == {"k", "b:100", "b:200", "b:900"}


def test_river_oop_bets_and_bluffs() -> None:
    """OOP: river bet (the root), bluff share of those bets, fold to a river bet."""
    game = _game("srp-river")
    base = _solved("srp-river", 60)
    profile = Profile(
        "oop",
        (
            StatTarget("river_bet", 40.0),
            StatTarget("river_bluff", 50.0),
            StatTarget("fold_to_river_bet", 25.0),
        ),
    )
    run = apply_profile(base, profile, iterations=60)
    sigma = _sigma_with_locks(game, run.result.average_strategy(), run.locks)
    bet = _naive(game, sigma, 0, lambda h: h == (), "b:")
    fold = _naive(game, sigma, 0, lambda h: len(h) == 2 and h[0] == "k" and h[1][:2] == "b:", "f")
    assert abs(bet - 40.0) <= 1.0 and abs(fold - 25.0) <= 1.0
    assert [r.ok for r in run.rows] == [True, True, True]
    # the bluff share: the bets of the hands under 50 % equity, over all bets, at the root
    compiled = compile_profile(base, profile)
    bluffs = compiled.plan.bluffs[0]
    off, na, nh = game.block(0)
    s = sigma[off : off + na * nh].reshape(na, nh)
    bets = s[[a for a, lab in enumerate(game.action_labels(0)) if lab.startswith("b:")]].sum(0)
    nh1 = int(game.num_hands[1])
    w1 = game.hands.weights[1, :nh1]
    c0 = game.hands.cards[0, :nh]
    c1 = game.hands.cards[1, :nh1]
    compat = np.ones((nh, nh1), dtype=bool)
    for i in range(2):
        for j in range(2):
            compat &= c0[:, None, i] != c1[None, :, j]
    w = game.hands.weights[0, :nh] * (compat @ w1) * game.valid_hands(0, 0)
    share = 100 * float(w @ (bets * bluffs)) / float(w @ bets)
    assert abs(share - 50.0) <= 1.0
    got = run.rows[1].achieved
    assert got is not None and abs(got - share) < 1e-6


def test_turn_profile_reached_within_one_point() -> None:
    game = _game("srp-turn")
    base = _solved("srp-turn", 30)
    profile = Profile(
        "ip",
        (
            StatTarget("cbet", 80.0),
            StatTarget("fold_to_cbet", 55.0),
            StatTarget("river_bet", 50.0),
        ),
    )
    run = apply_profile(base, profile, iterations=30, rounds=3)
    sigma = _sigma_with_locks(game, run.result.average_strategy(), run.locks)

    def river_first(h: tuple[str, ...]) -> bool:
        st = _streets(h)
        return len(st) == 2 and st[1] == ["k"]

    checks = [
        (lambda h: h == ("k",), "b:"),
        (lambda h: len(h) == 1 and h[0].startswith("b:"), "f"),
        (river_first, "b:"),
    ]
    for row, (is_stat, fam) in zip(run.rows, checks, strict=True):
        got = _naive(game, sigma, 1, is_stat, fam)
        assert row.achieved is not None and abs(row.achieved - got) < 1e-6
        assert abs(got - row.target) <= 1.0, (row, got)


# ----- bad input ------------------------------------------------------------------------------
GOOD = {"version": 1, "name": "station", "player": "oop", "stats": [{"stat": "cbet", "value": 30}]}


def _with(**stats) -> dict:
    return {**GOOD, **stats}


@pytest.mark.parametrize(
    ("data", "field", "words"),
    [
        ([], "profile", "JSON object"),
        ({**GOOD, "version": 2}, "version", "version"),
        ({**GOOD, "player": "villain"}, "player", "'oop' or 'ip'"),
        ({**GOOD, "colour": 1}, "colour", "not a profile field"),
        (_with(stats=[]), "stats", "at least one"),
        (_with(stats=[{"stat": "vpip", "value": 20}]), "stats[0].stat", "not a stat"),
        (_with(stats=[{"stat": "cbet", "value": 120}]), "stats[0].value", "outside 0–100"),
        (_with(stats=[{"stat": "cbet", "value": -1}]), "stats[0].value", "outside 0–100"),
        (_with(stats=[{"stat": "cbet", "value": "60"}]), "stats[0].value", "percentage"),
        (_with(stats=[{"stat": "cbet", "value": float("nan")}]), "stats[0].value", "outside"),
        (_with(stats=[{"stat": "cbet", "value": 10**400}]), "stats[0].value", "outside"),
        (_with(stats=[{"stat": ["cbet"], "value": 5}]), "stats[0].stat", "not a stat"),
        (_with(stats=[{"stat": "cbet", "value": 5, "class": ["x"]}]), "stats[0].class", "class"),
        (_with(stats=[{"stat": "cbet", "value": 5, "size": 1}]), "stats[0].size", "not a stat"),
        (_with(stats=[{"stat": "cbet", "value": 5}] * 65), "stats", "at most 64"),
        (
            _with(
                stats=[
                    {"stat": "cbet", "value": 50},
                    {"stat": "cbet", "value": 50, "class": "pairs"},
                ]
            ),
            "stats[1].class",
            "not a hand class",
        ),
        (
            _with(stats=[{"stat": "cbet", "value": 50}, {"stat": "cbet", "value": 40}]),
            "stats[1]",
            "given twice",
        ),
        (
            _with(player="ip", stats=[{"stat": "check_raise", "value": 10}]),
            "stats[0].stat",
            "not a stat of the IP player",
        ),
        (
            _with(
                stats=[{"stat": "fold_to_cbet", "value": 70}, {"stat": "check_raise", "value": 40}]
            ),
            "stats[1]",
            "contradict",
        ),
        (
            _with(stats=[{"stat": "river_bluff", "value": 30, "class": "top_pair"}]),
            "stats[0].class",
            "no class",
        ),
    ],
)
def test_bad_profile_named_by_field(data, field, words) -> None:
    with pytest.raises(ProfileError) as err:
        Profile.from_dict(data)
    assert err.value.field == field
    assert words in err.value.message
    assert str(err.value).startswith(f"{field}: ")


@pytest.mark.parametrize(
    ("stats", "field", "words"),
    [
        # the river spot: its first street is the river, so c-bet and river bet are one spot
        ([("cbet", 60.0, None), ("river_bet", 40.0, None)], "stats[1]", "same spots"),
        ([("turn_barrel", 60.0, None)], "stats[0].stat", "no spot in this tree"),
        ([("cbet", 60.0, None), ("cbet", 50.0, "quads")], "stats[1].class", "no hand"),
    ],
)
def test_profile_that_does_not_fit_the_tree(stats, field, words) -> None:
    game = _game("srp-river")
    profile = Profile("oop", tuple(StatTarget(s, v, k) for s, v, k in stats))
    with pytest.raises(ProfileError) as err:
        plan(game, profile)
    assert err.value.field == field and words in err.value.message


def test_nothing_locked_or_solved_before_every_field_is_valid() -> None:
    """A bad second stat: apply_profile raises before a lock or an iteration."""
    base = solve(_game("srp-river"), "dcfr", iterations=10)
    before = base.average_strategy().copy()
    bad = Profile("oop", (StatTarget("cbet", 50.0), StatTarget("turn_barrel", 50.0)))
    with pytest.raises(ProfileError) as err:
        apply_profile(base, bad, iterations=10)
    assert err.value.field == "stats[1].stat"
    assert base.iteration == 10
    assert base.engine.lockset is None or not base.engine.lockset.spec
    np.testing.assert_array_equal(base.average_strategy(), before)


def test_bluff_share_that_the_range_cannot_hold() -> None:
    """All bets bluffs at a 100 % bet frequency: the range has value hands too."""
    base = _solved("srp-river", 60)
    bad = Profile("oop", (StatTarget("river_bet", 100.0), StatTarget("river_bluff", 100.0)))
    with pytest.raises(ProfileError) as err:
        compile_profile(base, bad)
    assert err.value.field == "stats[1]" and "contradicts the range" in err.value.message


def test_json_round_trip() -> None:
    p = Profile(
        "ip",
        (StatTarget("cbet", 75.5), StatTarget("fold_to_river_bet", 40.0, "top_pair")),
        "nit",
    )
    text = json.dumps(p.to_dict())
    back = Profile.from_dict(json.loads(text))
    assert back == p
    assert json.loads(text) == {
        "version": 1,
        "name": "nit",
        "player": "ip",
        "stats": [
            {"stat": "cbet", "value": 75.5},
            {"stat": "fold_to_river_bet", "value": 40.0, "class": "top_pair"},
        ],
    }


def test_class_stats_that_leave_the_whole_range_out_of_reach() -> None:
    """Two pair always c-bets, the range never does: the other hands would need less than
    nothing. Named at the whole-range entry, nothing compiled."""
    base = _solved("srp-river", 60)
    bad = Profile("ip", (StatTarget("cbet", 0.0), StatTarget("cbet", 100.0, "two_pair")))
    with pytest.raises(ProfileError) as err:
        compile_profile(base, bad)
    assert err.value.field == "stats[0]"
    assert "contradicts the class stats" in err.value.message and "at k" in err.value.message


def test_hands_nobody_brings_play_the_target() -> None:
    """A group no hand of which reaches a stat node when it is compiled is locked at the
    target, flat: each hand's family share is the target, split as the hand split it."""
    from solver.study.profiles import _flat

    s = np.array([[0.5, 0.0, 1.0], [0.25, 0.0, 0.0], [0.25, 1.0, 0.0]])  # k, b:100, b:200
    out = _flat(s, [1, 2], 0.3)
    np.testing.assert_allclose(out.sum(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(out[1:].sum(axis=0), 0.3, atol=1e-12)
    np.testing.assert_allclose(out[:, 0], [0.7, 0.15, 0.15], atol=1e-12)  # its own split
    np.testing.assert_allclose(out[:, 2], [0.7, 0.15, 0.15], atol=1e-12)  # none: evenly
    np.testing.assert_allclose(out[:, 1], [0.7, 0.0, 0.3], atol=1e-12)
