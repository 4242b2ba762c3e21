"""The hold'em three-way river spot (solver/games/holdem3.py, issue 49): its checks name the
field, its hands and size are what the ranges and tree say, and as an explicit-deal MultiGame
it equals a brute force written here over every triple of hands — the deals, their chances,
zero-sum payoffs, and each player's expected value under a profile — and the deal-list engine
(MultiEngine) solves it, its own measures equal to nashconv's."""

from __future__ import annotations

import itertools
from dataclasses import replace
from typing import Any

import numpy as np
import pytest

from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.games import holdem3
from solver.games.holdem3 import (
    River3Spec,
    estimate,
    river3_multigame,
    triple_weight,
    validate,
)
from solver.games.multiway import MultiGame
from solver.games.nashconv import nash_report, uniform_profile
from solver.games.spec import SpecError
from solver.poker.cards import COMBOS, card_str, parse_board
from solver.poker.handeval import evaluate
from solver.poker.ranges import parse_range
from solver.tree.kinds import DECISION, FIXED

BOARD = "Ks 7d 2c 9h 3s"
SPOT = River3Spec(BOARD, "AA, KK, AK", "QQ, JJ, AQs", "TT, 99, KQs", pot=60, stack=200)
SMALL: dict[str, Any] = {"bets": "50%", "raises": "a", "raise_cap": 1}


# ----- validation -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"range1": "AKx"}, "range1", "bad range token"),
        ({"range0": 42}, "range0", "range text"),
        ({"board": "Ks 7d 2c 9h Ks"}, "board", "twice"),
        ({"board": "Ks 7d 2c 9h"}, "board", "five cards"),
        ({"board": None}, "board", "text"),
        ({"range2": "KsKh, Ks9d"}, "range2", "no combos left"),
        ({"stack": -5}, "stack", "positive"),
        ({"stack": 1e12}, "stack", "too large"),
        ({"pot": float("nan")}, "pot", "finite"),
        ({"pot": "lots"}, "pot", "not a number"),
        ({"pot": 10.5}, "pot", "whole chips"),
        ({"stack": 100_000_000, "big_blind": 1}, "stack", "big blinds"),
        ({"bets": "33%, 2.5x"}, "bets", "raises only"),
        ({"raises": "3e"}, "raises", "bets only"),
        ({"bets": ["33%"]}, "bets", "size text"),
        ({"raise_cap": 51}, "raise_cap", "too large"),
        ({"raise_cap": 1.5}, "raise_cap", "whole"),
        ({"max_memory_mb": 0}, "max_memory_mb", "positive"),
        ({"name": "x" * 201}, "name", "at most"),
        ({"range0": "AsAh", "range1": "AdAs, AhKd"}, "range1", "shares a card"),
        (
            {"range0": "AsAh", "range1": "AdAc", "range2": "AsQd, AhQc, AdQh, AcJh"},
            "range2",
            "every triple",
        ),
    ],
)
def test_bad_input_names_the_field(change: dict, field: str, words: str) -> None:
    with pytest.raises(SpecError, match=words) as info:
        validate(replace(SPOT, **change))
    assert info.value.field == field
    assert str(info.value).startswith(f"{field}: ")


def test_not_a_spec_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="River3Spec"):
        validate("AA")  # type: ignore[arg-type]


def test_too_large_a_tree_or_memory_is_refused_by_field() -> None:
    big = replace(SPOT, bets="10%, 25%, 33%, 50%, 75%, 100%, 150%, a", raises="50%, 2x, 3x, a",
                  raise_cap=50, stack=1_000_000)  # fmt: skip
    with pytest.raises(SpecError, match="passes 200,000 nodes") as info:
        estimate(big)
    assert info.value.field == "tree"
    with pytest.raises(SpecError, match=r"over the 0\.01 MB allowed") as info:
        river3_multigame(replace(SPOT, max_memory_mb=0.01))
    assert info.value.field == "max_memory_mb"
    # the engine's arrays fit in 1 MB; the deal list's payoffs (331 nodes' terminals × 3 ×
    # 3,303 deals) do not
    assert estimate(SPOT).memory_mb < 1
    with pytest.raises(SpecError, match="the deals' payoffs needs") as info:
        river3_multigame(replace(SPOT, max_memory_mb=1))
    assert info.value.field == "max_memory_mb"


def test_too_many_deals_are_refused_before_listing_them(monkeypatch: pytest.MonkeyPatch) -> None:
    wide = replace(SPOT, range0="22+, A2+, K2+", range1="22+, A2+, K2+", range2="22+, A2+")

    def never(*_args: object) -> None:
        raise AssertionError("the deals were listed")

    monkeypatch.setattr(holdem3, "list_deals", never)
    with pytest.raises(SpecError, match="more than the 20,000 allowed") as info:
        river3_multigame(wide)
    assert info.value.field == "max_deals"
    for bad in (0, -3, 2.5, True, "10"):
        with pytest.raises(SpecError) as info:
            river3_multigame(SPOT, max_deals=bad)  # type: ignore[arg-type]
        assert info.value.field == "max_deals"


# ----- hands and size ---------------------------------------------------------------------------


def test_each_players_hands_are_its_range_less_the_board() -> None:
    spot = replace(SPOT, range0="AA, KK:0.5, AK:0.25")
    setup = validate(spot)
    board = set(parse_board(BOARD))
    for p, name in enumerate(holdem3.RANGE_FIELDS):
        w = parse_range(getattr(spot, name))
        expect = [i for i in range(1326) if w[i] > 0 and not set(COMBOS[i].tolist()) & board]
        assert setup.combos[p].tolist() == expect
        assert setup.hand_weights[p].tolist() == [w[i] for i in expect]
    # AA: 6, KK without the Ks: 3, AK without the Ks: 12
    assert setup.hands == (21, 16, 12)
    assert sorted(set(setup.hand_weights[0].tolist())) == [0.25, 0.5, 1.0]


def test_estimate_counts_the_tree_and_the_storage() -> None:
    setup = validate(SPOT)
    tree = holdem3.betting_tree(setup)
    est = estimate(setup)
    assert est.nodes == tree.num_nodes
    entries = [0, 0, 0]
    decisions = [0, 0, 0]
    for n in tree.decision_nodes().tolist():
        p = int(tree.player[n])
        decisions[p] += 1
        entries[p] += int(tree.num_children[n]) * setup.hands[p]
    assert est.decision_nodes == tuple(decisions)
    assert est.storage_entries == tuple(entries)
    assert est.showdown_nodes + est.fold_nodes + sum(decisions) == est.nodes
    # regrets and sums in float64 are the bulk; scratch and nodes come on top
    assert est.memory_bytes >= 2 * 8 * sum(entries)
    assert est.memory_bytes <= 2 * 8 * sum(entries) + 100 * tree.num_nodes * 8 * 21


# ----- triples, brute force ---------------------------------------------------------------------


def disjoint(*combos: int) -> bool:
    cards = [c for i in combos for c in COMBOS[i].tolist()]
    return len(set(cards)) == len(cards)


def random_spot(seed: int, shared: bool) -> River3Spec:
    """Three ranges of 5 to 12 combos with random weights on a random board; ``shared``:
    the combos come from one pool of 9 cards (many share a card), else from three
    disjoint pools."""
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    board = deck[:5]
    texts = []
    for p in range(3):
        pool = deck[5:14] if shared else deck[5 + 8 * p : 13 + 8 * p]
        combos = [(a, b) for a, b in itertools.combinations(sorted(pool.tolist()), 2)]
        pick = rng.choice(len(combos), size=int(rng.integers(5, 13)), replace=False)
        parts = []
        for k in pick.tolist():
            a, b = combos[k]
            w = float(rng.choice([1.0, 0.5, 0.25, 0.75]))
            parts.append(f"{card_str(a)}{card_str(b)}:{w}")
        texts.append(", ".join(parts))
    board_text = " ".join(card_str(int(c)) for c in board)
    return River3Spec(board_text, texts[0], texts[1], texts[2], pot=60, stack=150, **SMALL)


SEEDS = [(1, True), (2, True), (3, False), (4, True), (5, False)]


@pytest.mark.parametrize(("seed", "shared"), SEEDS)
def test_triple_weight_is_the_sum_over_compatible_triples(seed: int, shared: bool) -> None:
    setup = validate(random_spot(seed, shared))
    w = setup.weights
    brute = sum(
        w[0][a] * w[1][b] * w[2][c]
        for a, b, c in itertools.product(*setup.combos)
        if disjoint(a, b, c)
    )
    assert triple_weight(*w) == pytest.approx(brute, rel=1e-12, abs=1e-12)
    if shared:  # the check can fail: with shared cards, ignoring collisions counts too much
        naive = w[0].sum() * w[1].sum() * w[2].sum()
        assert naive > brute * 1.01


def brute_values(g: MultiGame, spec: River3Spec, sigma: np.ndarray) -> np.ndarray:
    """Each player's expected chips under ``sigma``, over every triple of hands the ranges
    can deal (weights w0 w1 w2), every terminal (each player's probability of its actions
    on the path, per its hand) and the 7-card evaluator — no MultiGame deal list used."""
    setup = validate(spec)
    union = np.asarray(g.meta["union"])
    pos = {int(c): h for h, c in enumerate(union.tolist())}
    terminals = [n for n in range(g.num_nodes) if g.kind[n] != DECISION]
    paths = {}
    for t in terminals:
        steps = []
        k = t
        while k > 0:
            par = int(g.parent[k])
            steps.append(
                (int(g.player[par]), int(g.offset[par] + (k - g.first_child[par]) * g.num_hands))
            )
            k = par
        paths[t] = steps
    total = np.zeros(3)
    mass = 0.0
    weight = [dict(zip(setup.combos[p].tolist(), setup.hand_weights[p].tolist(), strict=True))
              for p in range(3)]  # fmt: skip
    for hands in itertools.product(*setup.combos):
        if not disjoint(*hands):
            continue
        w = weight[0][hands[0]] * weight[1][hands[1]] * weight[2][hands[2]]
        mass += w
        strength = [evaluate([*setup.board, *COMBOS[h].tolist()]) for h in hands]
        for t in terminals:
            prob = 1.0
            for actor, base in paths[t]:
                prob *= sigma[base + pos[int(hands[actor])]]
            chips = g.contrib[t]
            live = [p for p in range(3) if g.active[t, p]]
            if g.kind[t] == FIXED:
                winners = live
            else:
                best = max(strength[p] for p in live)
                winners = [p for p in live if strength[p] == best]
            pot = float(chips.sum())
            for p in range(3):
                share = pot / len(winners) if p in winners else 0.0
                total[p] += w * prob * (share - chips[p])
    return total / mass


def random_profile(g: MultiGame, rng: np.random.Generator) -> np.ndarray:
    out = np.empty(g.profile_size)
    h = g.num_hands
    for n in g.decision_nodes().tolist():
        a = int(g.num_children[n])
        block = rng.random((a, h)) + 0.05
        out[g.offset[n] : g.offset[n] + a * h] = (block / block.sum(axis=0)).ravel()
    return out


@pytest.mark.parametrize(("seed", "shared"), SEEDS)
def test_multigame_equals_the_brute_force_over_triples(seed: int, shared: bool) -> None:
    spec = random_spot(seed, shared)
    setup = validate(spec)
    g = river3_multigame(spec)
    union = np.asarray(g.meta["union"])
    # the deals: every compatible triple once, its chance w0 w1 w2 normalised
    got = {tuple(int(union[h]) for h in row): w for row, w in zip(g.deals.tolist(),
           g.deal_weight.tolist(), strict=True)}  # fmt: skip
    want = {
        (a, b, c): setup.weights[0][a] * setup.weights[1][b] * setup.weights[2][c]
        for a, b, c in itertools.product(*setup.combos)
        if disjoint(a, b, c)
    }
    assert got.keys() == want.keys() and len(got) == g.deals.shape[0]
    norm = sum(want.values())
    for key, w in want.items():
        assert got[key] == pytest.approx(w / norm, rel=1e-12)
    # zero-sum payoffs at every terminal and deal; the evaluator runs
    assert np.abs(g.payoff.sum(axis=1)).max() < 1e-9
    rep = nash_report(g, uniform_profile(g))
    assert np.all(rep.nash_distance >= -1e-9) and rep.nash_conv > 0
    # each player's value under the uniform and a random profile, by brute force
    rng = np.random.default_rng(seed)
    for sigma in (uniform_profile(g), random_profile(g, rng)):
        want_v = brute_values(g, spec, sigma)
        np.testing.assert_allclose(nash_report(g, sigma).value, want_v, rtol=1e-9, atol=1e-9)


def test_engine_solves_a_tiny_spot_and_measures_as_nashconv() -> None:
    """The deal-list engine on a spot of 6 to 12 combos a player: CFR+ brings every Nash
    distance down from the uniform profile's, and the engine's own best-response and
    evaluation passes equal nashconv's evaluation of the same average profile."""
    spec = River3Spec(BOARD, "AA, KK", "QQ, AQs", "TT, 99", pot=60, stack=200, **SMALL)
    g = river3_multigame(spec)
    start = nash_report(g, uniform_profile(g))
    eng = MultiEngine(g, make_rule("cfr+"))
    eng.iterate(300)
    mine = eng.engine_report()
    ref = nash_report(g, eng.average_profile())
    np.testing.assert_allclose(mine.value, ref.value, rtol=0, atol=1e-9)
    np.testing.assert_allclose(mine.best_response, ref.best_response, rtol=0, atol=1e-9)
    assert abs(mine.value.sum()) < 1e-9  # zero-sum
    assert ref.nash_conv < start.nash_conv / 20
    assert np.all(ref.nash_distance < start.nash_distance / 5)
