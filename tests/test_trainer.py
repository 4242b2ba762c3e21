"""The trainer (solver/study/trainer.py): exact dealing against brute force, card removal, grades at
their thresholds' edges, and EVs against the solve's own per-hand EVs and a naive walk."""

from __future__ import annotations

import csv
import functools
import io
import itertools
import json

import numpy as np
import pytest
from conftest import full_game, game, small_turn
from hypothesis import given, settings
from hypothesis import strategies as hst
from scipy.stats import chisquare

from solver import Game, solve
from solver.games.model import CHANCE, DECISION, FIXED, SHOWDOWN
from solver.study.analysis import analyze, compatible, node_path
from solver.study.trainer import (
    GRADES,
    DealFilter,
    Drill,
    Table,
    Thresholds,
    deal_hands,
    deal_table,
    filter_mask,
    grade_of,
    play,
    pot_at,
    score,
    strategy_at,
    suit_permutations,
    to_csv,
    to_json,
)
from solver.study.views import action_evs

Array = np.ndarray


@functools.cache
def solved(name: str) -> tuple[Game, Array]:
    """A small solve, once per test session: ``kuhn``, ``leduc`` (full tree: no suit
    isomorphism) or ``turn`` (a hold'em turn whose river is dealt)."""
    if name == "turn":
        g = small_turn("AA,KQs,T8s,76s", "QQ-99,AK,J9s")
        iterations = 60
    else:
        g = full_game(name) if name == "leduc" else game(name)
        iterations = 150
    return g, solve(g, "dcfr", iterations=iterations).average_strategy()


def below_chance(g: Game) -> int:
    """A decision node below the first chance node: the second decision of the next street
    (so both players' strategies on two streets and a chance card are on its line)."""
    n = 0
    while g.tree.kind[n] != CHANCE:
        n = int(g.tree.first_child[n])  # check, check … to the deal
    n = int(g.tree.first_child[n]) + 1  # the second card the chance node deals
    n = int(g.tree.first_child[n])  # player 0 checks: player 1 to act
    assert g.tree.kind[n] == DECISION
    return n


def naive_table(g: Game, sigma: Array, node: int) -> Array:
    """Brute force: for every pair of hands, weights × [no shared card, none on the board] ×
    each action's probability on the line × 1 / live deck at each deal, normalised."""
    h0, h1 = g.num_hands
    board = {int(c) for c in np.asarray(g.meta.get("board", []))}
    out = np.zeros((h0, h1))
    for a, b in itertools.product(range(h0), range(h1)):
        ca = {int(c) for c in g.hands.cards[0, a] if c >= 0}
        cb = {int(c) for c in g.hands.cards[1, b] if c >= 0}
        if ca & cb or (ca | cb) & board:
            continue
        p = g.hands.weights[0, a] * g.hands.weights[1, b]
        used = len(board) + len(ca) + len(cb)
        for child in node_path(g, node):
            parent = int(g.parents[child])
            if g.tree.kind[parent] == CHANCE:
                card = g.card_names.index(g.labels[child][2:])
                p *= 0.0 if card in ca | cb else 1.0 / (len(g.card_names) - used)
                used += 1
                continue
            actor = int(g.tree.player[parent])
            off = int(g.tree.offset[parent])
            k = child - int(g.tree.first_child[parent])
            p *= sigma[off + k * g.num_hands[actor] + (a if actor == 0 else b)]
        out[a, b] = p
    return out / out.sum()


@pytest.mark.parametrize("name", ["kuhn", "leduc", "turn"])
def test_deal_table_matches_brute_force(name: str) -> None:
    g, sigma = solved(name)
    nodes = [0, int(g.tree.first_child[0]) + 1]  # the root, and below player 0's bet
    if name != "kuhn":
        nodes.append(below_chance(g))
    for node in nodes:
        np.testing.assert_allclose(deal_table(g, sigma, node), naive_table(g, sigma, node),
                                   atol=1e-12)  # fmt: skip


def test_kuhn_root_deal_is_uniform_over_the_six_pairs() -> None:
    g, sigma = solved("kuhn")
    expected = (1 - np.eye(3)) / 6
    np.testing.assert_allclose(deal_table(g, sigma, 0), expected, atol=1e-15)


def test_dealt_frequencies_pass_a_chi_square_test() -> None:
    """20,000 deals at a Leduc node below the flop card against the exact table: the
    chi-square test's p-value is above 0.001 (fixed seed, so a pass is reproducible; a
    sampler off by a few % in any cell fails it)."""
    g, sigma = solved("leduc")
    node = below_chance(g)
    table = deal_table(g, sigma, node)
    rng = np.random.default_rng(7)
    n = 20_000
    counts = np.zeros_like(table)
    for _ in range(n):
        a, b = deal_hands(g, sigma, node, rng)
        counts[a, b] += 1
    live = table > 0
    assert counts[~live].sum() == 0  # never a pair the table excludes
    assert chisquare(counts[live], n * table[live]).pvalue > 1e-3


@settings(max_examples=25, deadline=None)
@given(seed=hst.integers(0, 2**32 - 1), hero=hst.integers(0, 1))
def test_no_card_is_dealt_twice(seed: int, hero: int) -> None:
    g, sigma = solved("turn")
    drill = Drill(g, sigma, hero, "hand", seed=seed)
    for _ in range(6):
        if not drill.waiting:
            drill.new_hand()
        cards = [*drill.hole_cards(0), *drill.hole_cards(1), *drill.board()]
        assert len(set(cards)) == len(cards) == 8 + len(drill.board()) - 4
        drill.act(int(drill.rng.integers(g.tree.num_children[drill.table.node])))  # type: ignore[union-attr]


def test_river_card_uniform_over_the_live_deck() -> None:
    """With the hands fixed, the river is one of the 44 cards in no hand and not on the
    board, each about equally often."""
    g, sigma = solved("turn")
    drill = Drill(g, sigma, 0, "hand", seed=3)
    chance = int(g.tree.first_child[int(g.tree.first_child[0])])  # check, check: the deal
    assert g.tree.kind[chance] == CHANCE
    h = deal_hands(g, sigma, chance, drill.rng)
    seen: dict[str, int] = {}
    for _ in range(4400):
        drill.table = Table(h, list(g.history(chance)), chance, list(range(52)))
        drill.deal_card()
        card = drill.board()[-1]
        seen[card] = seen.get(card, 0) + 1
    used = {*drill.hole_cards(0), *drill.hole_cards(1), *drill.board()[:4]}
    assert len(seen) == 44 and not used & set(seen)
    assert chisquare(list(seen.values())).pvalue > 1e-3


@pytest.mark.parametrize(
    ("pct", "freq", "best", "grade"),
    [
        (0.0, 0.0, True, "Best"),
        (9.0, 0.0, True, "Best"),  # RNG mode's pick is Best whatever it loses
        (9.0, 3.5, False, "Correct"),
        (0.5, 3.49, False, "Inaccuracy"),
        (1.0, 3.49, False, "Inaccuracy"),
        (1.0 + 1e-9, 0.0, False, "Wrong"),
        (5.0, 0.0, False, "Wrong"),
        (5.0 + 1e-9, 0.0, False, "Blunder"),
    ],
)
def test_grades_at_the_edges(pct: float, freq: float, best: bool, grade: str) -> None:
    assert grade_of(pct, freq, best, Thresholds()) == grade


def test_thresholds_are_settings() -> None:
    t = Thresholds(correct_pct=10.0, wrong_pct_pot=2.0, blunder_pct_pot=3.0)
    assert grade_of(1.5, 9.9, False, t) == "Inaccuracy"
    assert grade_of(2.5, 9.9, False, t) == "Wrong"
    assert grade_of(3.5, 9.9, False, t) == "Blunder"
    assert grade_of(3.5, 10.0, False, t) == "Correct"
    with pytest.raises(ValueError):
        Thresholds(wrong_pct_pot=6.0, blunder_pct_pot=5.0)
    with pytest.raises(ValueError):
        Thresholds(correct_pct=101.0)


def kuhn_value(g: Game, sigma: Array, node: int, cards: tuple[int, int]) -> float:
    """Player 0's expected payoff (chips) below ``node`` with the cards dealt, both playing
    ``sigma``: a plain recursive walk (Kuhn's J, Q, K are cards 0, 1, 2)."""
    t = g.tree
    kind = int(t.kind[node])
    if kind == FIXED:
        return float(t.payoff[node])
    if kind == SHOWDOWN:
        return float(t.payoff[node]) * (1.0 if cards[0] > cards[1] else -1.0)
    actor = int(t.player[node])
    off, _na, nh = g.block(node)
    return sum(
        sigma[off + a * nh + cards[actor]] * kuhn_value(g, sigma, c, cards)
        for a, c in enumerate(g.children(node))
    )


def test_kuhn_evs_match_a_naive_walk() -> None:
    """Every Kuhn decision node, every card: the trainer's per-action EVs equal a plain walk
    over the opponent's cards weighted by its reach (its strategy on the line)."""
    g, sigma = solved("kuhn")
    for node in g.decision_nodes():
        p = int(g.tree.player[node])
        drill = Drill(g, sigma, p, "node", node=int(node), seed=0)
        for card in range(3):
            opp_reach = {}
            for o in set(range(3)) - {card}:
                r = 1.0
                for child in node_path(g, int(node)):
                    parent = int(g.parents[child])
                    if int(g.tree.player[parent]) == 1 - p:
                        off, _na, nh = g.block(parent)
                        r *= sigma[off + (child - int(g.tree.first_child[parent])) * nh + o]
                opp_reach[o] = r
            total = sum(opp_reach.values())
            if total <= 0:
                continue
            for a, child in enumerate(g.children(int(node))):
                ev = 0.0
                for o, r in opp_reach.items():
                    pair = (card, o) if p == 0 else (o, card)
                    v = kuhn_value(g, sigma, child, pair)
                    ev += r * (v if p == 0 else -v)
                assert drill.action_evs(int(node))[a, card] == pytest.approx(ev / total, abs=1e-9)


@pytest.mark.parametrize("name", ["leduc", "turn"])
def test_graded_evs_are_the_solves_per_hand_evs(name: str) -> None:
    """Each decision's EVs are Explore's per-action EVs for the hand (solver.study.views), their
    mix is the hand's EV at the node (solver.study.analysis), and EV lost is best − chosen."""
    g, sigma = solved(name)
    drill = Drill(g, sigma, 1, "hand", seed=11)
    for d in play(drill, "uniform", 12):
        node, cmap = g.locate(list(d.history))
        assert node == d.node
        h = g.hand_names[1].index(d.hand)
        h = g.map_hand(1, h, cmap)
        evs = action_evs(g, sigma, node)[:, h]
        np.testing.assert_allclose(d.evs, evs, atol=1e-12)
        a = analyze(g, sigma, node, with_equity=False)
        np.testing.assert_allclose(d.mix, a.strategy[:, h], atol=1e-12)  # type: ignore[index]
        assert float(np.dot(d.mix, d.evs)) == pytest.approx(a.players[1].ev[h], abs=1e-9)
        assert d.ev_lost == pytest.approx(max(evs) - evs[d.chosen], abs=1e-12)
        assert d.pot == pytest.approx(pot_at(g, node))


def test_best_answers_lose_nothing_and_uniform_loses_more_than_the_solution() -> None:
    g, sigma = solved("turn")
    best = play(Drill(g, sigma, 0, "hand", seed=1), "best", 30)
    assert all(d.ev_lost == 0 and d.grade == "Best" for d in best)
    mean = {}
    for how in ("solution", "uniform"):
        ds = play(Drill(g, sigma, 0, "hand", seed=2), how, 80)
        mean[how] = np.mean([d.ev_lost for d in ds])
    assert mean["uniform"] > 3 * mean["solution"]


def test_node_scope_repeats_one_decision() -> None:
    g, sigma = solved("leduc")
    node = below_chance(g)
    drill = Drill(g, sigma, 1, "node", node=node, seed=5)
    ds = play(drill, "uniform", 15)
    assert {d.node for d in ds} == {node}
    assert [d.hand_no for d in ds] == list(range(1, 16))
    with pytest.raises(ValueError):
        Drill(g, sigma, 0, "node", node=node)  # player 1 acts there


def test_street_scope_stops_at_the_street_end() -> None:
    g, sigma = solved("turn")
    for d in play(Drill(g, sigma, 1, "street", seed=4), "uniform", 20):
        assert not any(lab.startswith("d:") for lab in d.history)


def test_rng_mode_best_is_the_pick() -> None:
    g, sigma = solved("leduc")
    ds = play(Drill(g, sigma, 0, "hand", rng_mode=True, seed=9), "uniform", 40)
    for d in ds:
        assert d.rng_pick is not None
        assert (d.grade == "Best") == (d.chosen == d.rng_pick)


def test_seeded_sessions_repeat() -> None:
    g, sigma = solved("leduc")
    a = play(Drill(g, sigma, 0, "hand", seed=3), "solution", 10)
    b = play(Drill(g, sigma, 0, "hand", seed=3), "solution", 10)
    assert a == b


def test_score_and_exports() -> None:
    g, sigma = solved("turn")
    drill = Drill(g, sigma, 0, "hand", seed=8)
    ds = play(drill, "uniform", 25)
    s = drill.score(worst=3)
    assert s.decisions == 25 and s.hands == len({d.hand_no for d in ds})
    assert s.ev_lost == pytest.approx(sum(d.ev_lost for d in ds))
    assert s.ev_lost_per_decision == pytest.approx(s.ev_lost / 25)
    assert s.pct_pot == pytest.approx(sum(100 * d.ev_lost / d.pot for d in ds))
    assert sum(s.grades.values()) == 25 and set(s.grades) == set(GRADES)
    assert [d.ev_lost for d in s.worst] == sorted((d.ev_lost for d in ds), reverse=True)[:3]
    assert s.bb(100.0) == pytest.approx(1.0)  # big blind 100
    rows = list(csv.DictReader(io.StringIO(to_csv(ds, 100.0))))
    assert len(rows) == 25 and rows[0]["grade"] == ds[0].grade
    data = json.loads(to_json(ds, 100.0))
    assert len(data["decisions"]) == 25
    assert data["score"]["ev_lost"] == pytest.approx(s.ev_lost)
    assert data["decisions"][0]["ev_lost_bb"] == pytest.approx(ds[0].ev_lost / 100)
    assert score([]).decisions == 0


# ----- deal filters ------------------------------------------------------------------------
def naive_cell(name: str) -> str:
    """The grid label of a hold'em hand name (``AsKd`` → ``AKo``), written out here."""
    order = "AKQJT98765432"
    a, b = sorted((name[0], name[2]), key=order.index)
    return a + b if a == b else a + b + ("s" if name[1] == name[3] else "o")


def naive_own_reach(g: Game, sigma: Array, node: int, player: int, hand: int) -> float:
    """A hand's range weight × its own action probabilities on the line (0 if a dealt card
    on the line is one of its cards)."""
    r = float(g.hands.weights[player, hand])
    cards = {int(c) for c in g.hands.cards[player, hand] if c >= 0}
    for child in node_path(g, node):
        parent = int(g.parents[child])
        if g.tree.kind[parent] == CHANCE:
            if g.card_names.index(g.labels[child][2:]) in cards:
                return 0.0
            continue
        if int(g.tree.player[parent]) == player:
            off, _na, nh = g.block(parent)
            r *= sigma[off + (child - int(g.tree.first_child[parent])) * nh + hand]
    return r


@pytest.mark.parametrize(
    ("name", "hero", "f"),
    [
        ("turn", 1, DealFilter(classes=("top_pair", "oesd"), cells=("AA",), min_reach_pct=30)),
        ("turn", 0, DealFilter(cells=("KQs", "76s"))),
        ("turn", 0, DealFilter(classes=("second_pair", "flush_draw"))),
        ("leduc", 1, DealFilter(cells=("K", "Qs"), min_reach_pct=20)),
    ],
)
def test_filtered_deal_is_the_deal_conditioned_on_the_filter(
    name: str, hero: int, f: DealFilter
) -> None:
    """The filtered table equals the brute-force table with the pairs whose hero hand fails
    the filter (classes by :func:`classify` one hand at a time, grid cells spelt out, reach
    multiplied out along the line) set to 0 and renormalised; at the root and deeper."""
    from solver.poker.handclass import classify

    g, sigma = solved(name)
    nodes = [0, int(g.tree.first_child[0]) + 1] + ([below_chance(g)] if name == "leduc" else [])
    compared = 0
    for node in nodes:
        board = [int(c) for c in np.asarray(g.meta.get("board", []))]
        passes = np.zeros(g.num_hands[hero], dtype=bool)
        for h, hname in enumerate(g.hand_names[hero]):
            cards = tuple(int(c) for c in g.hands.cards[hero, h] if c >= 0)
            ok = not (f.classes or f.cells)
            if f.classes and not set(cards) & set(board):
                hc = classify(cards, board)
                ok |= hc.made in f.classes or bool(set(hc.draws) & set(f.classes))
            if g.is_holdem:
                ok |= naive_cell(hname) in f.cells
            else:
                ok |= hname in f.cells or hname[0] in f.cells
            reach = naive_own_reach(g, sigma, node, hero, h)
            passes[h] = ok and reach >= f.min_reach_pct / 100 - 1e-12
        expected = naive_table(g, sigma, node)
        expected *= passes[:, None] if hero == 0 else passes[None, :]
        mask = filter_mask(g, sigma, node, hero, f)
        keep = (mask, None) if hero == 0 else (None, mask)
        if expected.sum() == 0:  # nothing left to deal: said, not dealt
            with pytest.raises(ValueError):
                deal_table(g, sigma, node, keep=keep)
            continue
        got = deal_table(g, sigma, node, keep=keep)
        np.testing.assert_allclose(got, expected / expected.sum(), atol=1e-12)
        assert 0 < passes.sum() < len(passes)  # the filter does filter
        compared += 1
    assert compared >= 2


def test_drill_deals_only_what_the_filter_keeps() -> None:
    """A filtered Drill's hero hands are drawn from the conditioned marginal (chi-square)
    and never fail the filter."""
    g, sigma = solved("leduc")
    f = DealFilter(cells=("K", "Q"))
    drill = Drill(g, sigma, 0, "hand", seed=12, deal_filter=f)
    table = deal_table(g, sigma, 0, keep=(filter_mask(g, sigma, 0, 0, f), None)).sum(axis=1)
    counts = np.zeros(g.num_hands[0])
    for _ in range(3000):
        table_now = drill.new_hand()
        counts[table_now.hands[0]] += 1
    assert all(g.hand_names[0][h][0] in "KQ" for h in np.flatnonzero(counts))
    live = table > 0
    assert counts[~live].sum() == 0
    # (skipped hands are re-dealt: the hero always acts at the root here, so none are)
    assert drill.skipped == 0
    assert chisquare(counts[live], counts.sum() * table[live]).pvalue > 1e-3


def test_a_filter_that_leaves_nothing_says_so() -> None:
    g, sigma = solved("turn")
    with pytest.raises(ValueError, match=r"leaves nothing to deal.*reaching the spot at least"):
        Drill(g, sigma, 0, "hand", deal_filter=DealFilter(cells=("AKo",), min_reach_pct=5))
    with pytest.raises(ValueError, match="leaves nothing to deal: no hand OOP holds"):
        Drill(g, sigma, 0, "hand", deal_filter=DealFilter(classes=("quads",)))
    with pytest.raises(ValueError, match="not a hand class"):
        Drill(g, sigma, 0, "hand", deal_filter=DealFilter(classes=("monster",)))
    with pytest.raises(ValueError, match="not a grid cell"):
        Drill(g, sigma, 0, "hand", deal_filter=DealFilter(cells=("AKx",)))
    with pytest.raises(ValueError):
        DealFilter(min_reach_pct=120)


# ----- suits -------------------------------------------------------------------------------
def test_suit_permutations_only_for_suit_symmetric_ranges() -> None:
    g, _ = solved("turn")
    assert len(suit_permutations(g)) == 24
    assert suit_permutations(small_turn("AsKs,QQ", "JJ")) == [(0, 1, 2, 3)]
    assert suit_permutations(game("leduc")) == [(0, 1, 2, 3)]


def permuted_spot(g: Game, sigma: Array, pi: tuple[int, ...]) -> tuple[Game, Array]:
    """The turn spot rebuilt on the π-permuted board with the same ranges, and ``sigma``
    carried over: at each decision node (found by its π-permuted line) each hand plays what
    its π-preimage plays. (Two solves are no reference: DCFR trajectories drift apart by
    rounding after some ten iterations.)"""
    from solver.games.holdem import HoldemSpec, build_holdem
    from solver.study.dealing import shown_card, shown_hand

    board = "".join(shown_card(c, pi) for c in ("Td", "9d", "6h", "Qc"))
    g2 = build_holdem(HoldemSpec(board=board, pot=100, stack=200, oop_range="AA,KQs,T8s,76s",
                                 ip_range="QQ-99,AK,J9s", bets="50%, a", raises="a",
                                 big_blind=100))  # fmt: skip
    sigma2 = np.zeros_like(sigma)
    for node in g.decision_nodes():
        p = int(g.tree.player[node])
        line = [("d:" + shown_card(lab[2:], pi)) if lab.startswith("d:") else lab
                for lab in g.history(int(node))]  # fmt: skip
        n2 = g2.find(line)
        off, na, nh = g.block(int(node))
        off2, na2, nh2 = g2.block(n2)
        assert (na, nh) == (na2, nh2)
        idx = [g2.hand_names[p].index(shown_hand(n, pi)) for n in g.hand_names[p]]
        for a in range(na):
            sigma2[off2 + a * nh + np.asarray(idx)] = sigma[off + a * nh : off + (a + 1) * nh]
    return g2, sigma2


def test_suit_randomised_deals_grade_as_the_permuted_spot() -> None:
    """Every hand shown under one suit permutation π, graded here, gets the EVs and grade
    that the π-permuted spot (rebuilt, its strategy carried over) gives the hand as shown;
    the same seed without suits deals and grades the same hands."""
    g, sigma = solved("turn")
    pi = (1, 3, 0, 2)  # s→h, h→c, d→s, c→d: Td9d6hQc is shown as Ts9s6cQd
    g2, sigma2 = permuted_spot(g, sigma, pi)
    drill = Drill(g, sigma, 0, "hand", seed=21, suits=True)
    drill.suit_choices = [pi]
    shown = play(drill, "uniform", 20)
    plain = play(Drill(g, sigma, 0, "hand", seed=21), "uniform", 20)
    assert [(d.hand, d.history, d.evs, d.grade) for d in shown] == [
        (d.hand, d.history, d.evs, d.grade) for d in plain
    ]
    rivers = 0
    for d in shown:
        assert d.suits == pi and d.shown_board[:4] == ("Ts", "9s", "6c", "Qd")
        history = [("d:" + d.shown_board[4]) if lab.startswith("d:") else lab for lab in d.history]
        node, cmap = g2.locate(history)
        h = g2.map_hand(0, g2.hand_names[0].index(d.shown_hand), cmap)
        evs = action_evs(g2, sigma2, node)[:, h]
        np.testing.assert_allclose(d.evs, evs, atol=1e-9)
        lost = float(evs.max() - evs[d.chosen])
        off, _na, nh = g2.block(node)
        freq = 100 * float(sigma2[off + d.chosen * nh + h])
        pct = 100 * lost / pot_at(g2, node)
        assert d.grade == grade_of(pct, freq, lost <= 1e-9, Thresholds())
        if len(d.board) == 5:
            rivers += 1
            assert d.shown_board[4] in d.line and d.board[4] not in d.line
    assert rivers > 0


# ----- the API: deal(solve, player, line, rng) and grade(solve, deal, action) -----------------
# Kuhn's equilibria differ in player 0's strategy only (a family in α); player 1's is unique,
# so the EV of each of player 0's first actions per card is the same closed form for all of
# them (antes 1, bets 1; player 0 with Q, checked and bet into, is indifferent between calling
# and folding): J check −1, bet −1; Q check −1/3, bet −1/2; K check 7/6, bet 7/6.
KUHN_ROOT_EVS = {"J": (-1.0, -1.0), "Q": (-1 / 3, -1 / 2), "K": (7 / 6, 7 / 6)}


@functools.cache
def kuhn_equilibrium() -> object:
    return solve("kuhn", "cfr+", iterations=3000)


def test_kuhn_root_evs_per_card_equal_the_closed_form() -> None:
    from solver.study.trainer import deal

    result = kuhn_equilibrium()
    assert result.exploitability < 1e-4  # type: ignore[attr-defined]
    seen = set()
    rng = np.random.default_rng(5)
    for _ in range(40):
        d = deal(result, 0, "", rng)  # type: ignore[arg-type]
        assert d.actions == ("k", "b:1") and d.line == ()
        np.testing.assert_allclose(d.evs, KUHN_ROOT_EVS[d.hand], atol=2e-3)
        seen.add(d.hand)
    assert seen == {"J", "Q", "K"}


def test_deal_and_grade_are_the_drills_own() -> None:
    """deal() deals what a node-scope Drill with the same Generator deals; grade() records
    the Drill's Decision (EV lost = best EV − chosen EV), by index or by code, once."""
    from solver.study.trainer import deal, grade

    result = solve(small_turn("AA,KQs,T8s,76s", "QQ-99,AK,J9s"), "dcfr", iterations=60)
    g = result.game
    d = deal(result, 1, "k", np.random.default_rng(11))
    drill = Drill(g, result.average_strategy(), 1, "node", g.find(["k"]))
    drill.rng = np.random.default_rng(11)
    t = drill.new_hand()
    assert d.hand == g.hand_names[1][t.hands[1]] and d.villain == g.hand_names[0][t.hands[0]]
    mix, evs = drill.spot()
    assert d.mix == tuple(mix) and d.evs == tuple(evs)
    chosen = int(np.argmin(evs))
    dec = grade(result, d, d.actions[chosen])
    assert dec.chosen == chosen and dec.ev_lost == pytest.approx(max(evs) - evs[chosen])
    assert dec == drill.act(chosen)  # the same record the page and the CLI keep
    with pytest.raises(ValueError, match="graded already"):
        grade(result, d, 0)
    with pytest.raises(ValueError, match="not one of"):
        grade(result, deal(result, 1, ["k"], 3), "zz")
    with pytest.raises(ValueError, match="is not in this game's tree"):
        deal(result, 0, "k zz")
    with pytest.raises(ValueError, match="decision of player 0"):
        deal(result, 0, "k")
    other = solve(g, "cfr", iterations=2)
    with pytest.raises(ValueError, match="another solve"):
        grade(other, deal(result, 0, "", 1), 0)


def test_solution_answers_lose_no_more_than_the_exploitability_allows() -> None:
    """The bound: a hero who plays the solution's mix at a node and is graded against each
    action's EV (both playing the solution after) loses, on average over the deal at the
    root, the gain of best-responding at that node alone: at most the hero's whole
    best-response gain, at most NashConv = 2 × exploitability (chips). Exact expectation on
    a half-solved Leduc (where it is far from 0), then the sampled average of `solution`
    answers against it; uniform answers lose more."""
    result = solve(full_game("leduc"), "cfr", iterations=15)
    g, sigma, eps = result.game, result.average_strategy(), result.exploitability
    for player in (0, 1):
        node = 0 if player == 0 else int(g.tree.first_child[0])  # player 1 after a check
        drill = Drill(g, sigma, player, "node", node, seed=3)
        evs = drill.action_evs(node)
        mix = strategy_at(g, sigma, node)
        per_hand = (mix * (evs.max(axis=0) - evs)).sum(axis=0)
        p_hand = deal_table(g, sigma, node).sum(axis=1 - player)
        expected = float(p_hand @ per_hand)
        assert 0 < expected <= 2 * eps / (1.0 if node == 0 else reach_of(g, sigma, node))
        lost = [d.ev_lost for d in play(drill, "solution", 3000)]
        se = np.std(lost) / np.sqrt(len(lost))
        assert abs(np.mean(lost) - expected) < 5 * se + 1e-12
        uniform = [d.ev_lost for d in play(Drill(g, sigma, player, "node", node, seed=4),
                                           "uniform", 1000)]  # fmt: skip
        assert np.mean(uniform) > np.mean(lost)


def reach_of(g: Game, sigma: Array, node: int) -> float:
    """The probability the deal reaches ``node`` under ``sigma`` (both players' actions)."""
    m = compatible(g)
    total = float(m.sum())
    r = [np.ones(g.num_hands[0]), np.ones(g.num_hands[1])]
    for child in node_path(g, node):
        parent = int(g.parents[child])
        if g.tree.kind[parent] == DECISION:
            p = int(g.tree.player[parent])
            a = child - int(g.tree.first_child[parent])
            r[p] = r[p] * strategy_at(g, sigma, parent)[a]
    return float((m * np.outer(r[0], r[1])).sum()) / total


def test_river_deals_pass_a_chi_square_test_at_the_root_and_below_a_bet() -> None:
    """On a river spot, 20,000 deals' hero-hand counts against the exact table's marginal
    (chi-square, significance 0.001 with a fixed seed), at the root and below OOP's bet."""
    from solver.games.holdem import HoldemSpec, build_holdem

    g = build_holdem(HoldemSpec(board="Td9d6hQc2s", pot=100, stack=200,
                                oop_range="AA,KQs,T8s,76s,J8s", ip_range="QQ-99,AK,J9s",
                                bets="50%, a", raises="a", big_blind=10))  # fmt: skip
    sigma = solve(g, "dcfr", iterations=40).average_strategy()
    compat = compatible(g)
    for node in (0, g.find(["b:50"])):
        table = deal_table(g, sigma, node, compat)
        rng = np.random.default_rng(17)
        counts = np.zeros(g.num_hands[1])
        for _ in range(20_000):
            counts[deal_hands(g, sigma, node, rng, compat)[1]] += 1
        expected = table.sum(axis=0) * counts.sum()
        seen = expected > 0
        assert counts[~seen].sum() == 0  # a hand the table never deals is never dealt
        assert chisquare(counts[seen], expected[seen]).pvalue > 0.001
