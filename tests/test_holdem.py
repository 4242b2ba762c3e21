"""Hold'em subgames: O(n) terminal values against naive O(n²), a brute-force enumeration of
every deal against the vector form, equity with check-down only, suit symmetry, bad input."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from solver import expected_values, solve
from solver.cfr.layout import make_scratch
from solver.cfr.options import SolveOptions
from solver.cfr.terminal import fold_values, showdown_values
from solver.games import make_game
from solver.games.holdem import HoldemSpec, SpecError, build_holdem, estimate, validate
from solver.games.model import (
    AUTO_FLOAT64_CELLS,
    CHANCE,
    DECISION,
    FIXED,
    RUNOUT,
    Game,
    auto_precision,
)
from solver.poker.cards import COMBOS, card_str, parse_board
from solver.poker.handeval import rank_hands

OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"


def river(**kw: object) -> HoldemSpec:
    args: dict[str, object] = {
        "board": "Td9d6hQc2s", "pot": 200, "stack": 900, "oop_range": OOP, "ip_range": IP,
    }  # fmt: skip
    args.update(kw)
    return HoldemSpec(**args)  # type: ignore[arg-type]


def _random_reach(rng: np.random.Generator, g: Game, player: int) -> np.ndarray:
    out = np.zeros(g.hands.cards.shape[1])
    n = g.hands.num_hands[player]
    out[:n] = rng.random(n) * (rng.random(n) < 0.8)
    return out


@pytest.mark.parametrize("seed", range(4))
def test_fold_and_showdown_values_equal_naive(seed: int) -> None:
    rng = np.random.default_rng(seed)
    board_cards = rng.choice(52, size=5, replace=False)
    board = "".join(card_str(int(c)) for c in board_cards)
    g = build_holdem(river(board=board, oop_range="22+,A2+,K2+,Q2+,J2+", ip_range="T2+,92+,82+"))
    sc = make_scratch(g)
    cards = g.hands.cards
    assert g.boards.sd_row[0] >= 0  # the walk's prefix-sum showdown, not the generic sweep
    for trav in range(2):
        opp = 1 - trav
        reach = _random_reach(rng, g, opp)
        reach2 = reach[None, :].copy()
        out = np.zeros((1, reach.shape[0]))
        nt, no = g.hands.num_hands[trav], g.hands.num_hands[opp]
        ranks = g.boards.rank[0]
        disjoint = np.array(
            [[not (set(cards[trav, h]) & set(cards[opp, j])) for j in range(no)] for h in range(nt)]
        )
        fold_values(g.hands, g.boards, 0, trav, 2.5, reach2, 0, out, 0, sc.card_sum)
        naive = 2.5 * (disjoint * reach[None, :no]).sum(axis=1)
        np.testing.assert_allclose(out[0, :nt], naive, rtol=1e-12, atol=1e-12)
        showdown_values(
            g.hands, g.boards, 0, trav, 3.0, reach2, 0, out, 0, sc.card_sum, sc.card_sum2
        )
        sign = np.sign(ranks[trav, :nt, None] - ranks[opp, None, :no])
        naive = 3.0 * (disjoint * sign * reach[None, :no]).sum(axis=1)
        np.testing.assert_allclose(out[0, :nt], naive, rtol=1e-12, atol=1e-12)


def _brute_force_ev(g: Game, sigma: np.ndarray) -> float:
    """Player 0's expected payoff by enumerating every deal of hole cards and runout cards."""
    t = g.tree
    board0 = tuple(int(c) for c in g.meta["board"])  # type: ignore[attr-defined]
    card_of = {f"d:{card_str(c)}": c for c in range(52)}

    def walk(node: int, h0: int, h1: int, board: tuple[int, ...], dead: set[int]) -> float:
        kind = t.kind[node]
        if kind == FIXED:
            return float(t.payoff[node])
        if kind == DECISION:
            p = int(t.player[node])
            h = h0 if p == 0 else h1
            off, _na, nh = g.block(node)
            return sum(
                sigma[off + a * nh + h] * walk(c, h0, h1, board, dead)
                for a, c in enumerate(g.children(node))
                if sigma[off + a * nh + h] > 0
            )
        if kind == RUNOUT:  # deal the rest ourselves: every completion, equally likely
            rest = [c for c in range(52) if c not in dead]
            need = 5 - len(board)
            total = 0.0
            runouts = list(itertools.combinations(rest, need))
            for extra in runouts:
                b = np.array((*board, *extra), dtype=np.int64)
                r0 = rank_hands(b, g.hands.cards[0, h0 : h0 + 1].astype(np.int64))[0]
                r1 = rank_hands(b, g.hands.cards[1, h1 : h1 + 1].astype(np.int64))[0]
                total += float(np.sign(r0 - r1))
            return float(t.payoff[node]) * total / len(runouts)
        if kind == CHANCE:
            kids = [c for c in g.children(node) if card_of[g.labels[c]] not in dead]
            assert len(kids) == 52 - len(dead)
            return sum(
                walk(c, h0, h1, (*board, card_of[g.labels[c]]), dead | {card_of[g.labels[c]]})
                for c in kids
            ) / len(kids)
        b = np.array(board, dtype=np.int64)
        r0 = rank_hands(b, g.hands.cards[0, h0 : h0 + 1].astype(np.int64))[0]
        r1 = rank_hands(b, g.hands.cards[1, h1 : h1 + 1].astype(np.int64))[0]
        return float(t.payoff[node]) * float(np.sign(r0 - r1))

    total = 0.0
    weight = 0.0
    for h0, h1 in itertools.product(range(g.num_hands[0]), range(g.num_hands[1])):
        c0 = set(int(c) for c in g.hands.cards[0, h0])
        c1 = set(int(c) for c in g.hands.cards[1, h1])
        if c0 & c1:
            continue
        w = g.hands.weights[0, h0] * g.hands.weights[1, h1]
        total += w * walk(0, h0, h1, board0, set(board0) | c0 | c1)
        weight += w
    return total / weight


def _random_profile(g: Game, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sigma = np.zeros(g.action_size)
    for n in g.decision_nodes():
        off, na, nh = g.block(int(n))
        block = rng.random((na, nh))
        sigma[off : off + na * nh] = (block / block.sum(axis=0)).ravel()
    return sigma


def test_every_deal_enumerated_equals_the_vector_form_on_a_turn_spot() -> None:
    """A turn spot (one chance node per line that sees the river): 44 river cards for every
    pair of hands, whatever 48 cards are left — the vector form must agree exactly."""
    spec = HoldemSpec(
        board="Ks7h2d9c", pot=100, stack=150, oop_range="AA,KQs,T8s:0.5,76s", ip_range="QQ,AK,J9s",
        bets="100%", raises="a", isomorphism=False,
    )  # fmt: skip
    g = build_holdem(spec)
    sigma = _random_profile(g, 3)
    ev0, ev1 = expected_values(g, sigma)
    assert ev0 + ev1 == pytest.approx(0.0, abs=1e-12)
    assert ev0 == pytest.approx(_brute_force_ev(g, sigma), abs=1e-10)


def test_every_deal_enumerated_on_a_flop_allin_spot() -> None:
    """Flop all-in only: the runout of turn and river with card removal, exactly."""
    spec = HoldemSpec(
        board="Qs8h3d", pot=100, stack=100, oop_range="AsKs,TT", ip_range="QhJh,9d9c",
        bets="a", raises="", isomorphism=False,
    )  # fmt: skip
    g = build_holdem(spec)
    sigma = _random_profile(g, 5)
    assert expected_values(g, sigma)[0] == pytest.approx(_brute_force_ev(g, sigma), abs=1e-10)


def _equity(board: str, oop: str, ip: str) -> float:
    """OOP's share of the pot at showdown, by brute force over hand pairs (river)."""
    from solver.poker.ranges import parse_range

    b = parse_board(board)
    w0, w1 = parse_range(oop), parse_range(ip)
    barr = np.array(b, dtype=np.int64)
    ranks = rank_hands(barr, COMBOS.astype(np.int64))
    num = den = 0.0
    for i in np.flatnonzero(w0):
        for j in np.flatnonzero(w1):
            cards = set(COMBOS[i]) | set(COMBOS[j])
            if len(cards) < 4 or cards & set(b):
                continue
            w = w0[i] * w1[j]
            num += w * (1.0 if ranks[i] > ranks[j] else 0.5 if ranks[i] == ranks[j] else 0.0)
            den += w
    return num / den


def test_check_down_only_gives_each_player_its_equity_share() -> None:
    spec = river(bets="", raises="", oop_range="AA,KK,QQ,AKs,T9s", ip_range="JJ-99,AQo,KQs")
    result = solve(build_holdem(spec), "cfr", iterations=1)
    eq = _equity(spec.board, spec.oop_range, spec.ip_range)
    assert result.ev[0] == pytest.approx(eq * 200, abs=1e-9)
    assert result.ev[0] + result.ev[1] == pytest.approx(200, abs=1e-9)
    assert result.exploitability == pytest.approx(0.0, abs=1e-9)


def test_suit_permutation_leaves_the_solution_unchanged() -> None:
    perm = str.maketrans("shdc", "dcsh")
    a = solve(build_holdem(river()), "dcfr", iterations=60, check_every=60)
    b = solve(build_holdem(river(board="Td9d6hQc2s".translate(perm))), "dcfr", iterations=60)
    assert a.exploitability == pytest.approx(b.exploitability, rel=1e-7)
    assert a.ev[0] == pytest.approx(b.ev[0], rel=1e-9)


def test_river_solve_converges_and_is_zero_sum() -> None:
    result = solve(build_holdem(river()), "dcfr", target_exploitability=0.2, check_every=20)
    assert result.exploitability <= 0.2  # 0.1 % of the pot
    assert sum(result.ev) == pytest.approx(200, abs=1e-9)
    values = [cp.exploitability for cp in result.history]
    assert values[-1] < values[0] / 50


@pytest.mark.parametrize(
    ("kw", "field", "fragment"),
    [
        ({"board": "Td9dTd"}, "board", "twice"),
        ({"board": "Td"}, "board", "3, 4 or 5"),
        ({"board": "Td9d"}, "board", "3, 4 or 5"),
        ({"board": "Td9dXx"}, "board", "Xx"),
        ({"pot": -5}, "pot", "positive"),
        ({"pot": 0}, "pot", "positive"),
        ({"stack": 0}, "stack", "positive"),
        ({"stack": -900}, "stack", "positive"),
        ({"big_blind": -1}, "big_blind", "positive"),
        ({"add_allin_threshold": -0.5}, "add_allin_threshold", "≥"),
        ({"stack": "lots"}, "stack", "not a number"),
        ({"oop_range": "TdTh"}, "oop_range", "no combos"),
        ({"ip_range": "AKx"}, "ip_range", "AKx"),
        ({"bets": "50%, 3y"}, "bets", "3y"),
        ({"raises": "2e"}, "raises", "2e"),
        ({"bets": "2x"}, "bets", "2x"),
        ({"sizes": {"preflop": {}}}, "sizes.preflop", "street"),
    ],
)
def test_bad_input_names_the_field(kw: dict[str, object], field: str, fragment: str) -> None:
    with pytest.raises(SpecError) as info:
        validate(river(**kw))
    assert info.value.field == field
    assert fragment in str(info.value)


def test_memory_budget_refuses_big_trees_with_the_number() -> None:
    spec = river(board="Td9d6hQc", max_memory_mb=1)
    est = estimate(validate(spec))
    with pytest.raises(SpecError) as info:
        build_holdem(spec)
    assert info.value.field == "max_memory_mb"
    assert f"{est.memory_mb:,.0f} MB" in str(info.value)


def test_estimate_matches_the_built_tree() -> None:
    spec = HoldemSpec(
        board="Ks7h2d9c", pot=100, stack=300, oop_range="AA,KQs,76s", ip_range="QQ,AK,J9s"
    )
    setup = validate(spec)
    est = estimate(setup)
    g = build_holdem(setup)
    assert est.nodes == g.num_nodes
    assert est.storage_entries == g.action_size
    assert est.decision_nodes == len(g.decision_nodes())


def test_two_threads_give_the_serial_numbers_bit_for_bit() -> None:
    from solver import Engine, make_rule

    spec = HoldemSpec(
        board="Ks7h2d9c",
        pot=100,
        stack=300,
        oop_range="AA,KQs,T8s,76s,QJo",
        ip_range="QQ-99,AK,J9s",
    )
    # and a flop, whose tasks (turn cards) hold chance nodes of their own (river cards)
    flop = HoldemSpec(
        board="Ks7h2d", pot=100, stack=200, oop_range="AA,KQs,76s", ip_range="QQ,AKs,J9s",
        bets="a", raises="",
    )  # fmt: skip
    runs = (("pcfr+", "float32"), ("dcfr", "float32"), ("cfr+", "compressed"))
    for g, rule, precision in [(build_holdem(spec), *r) for r in runs] + [
        (build_holdem(flop), "dcfr", "float32")
    ]:
        engines = [
            Engine(g, make_rule(rule), options=SolveOptions(threads=t, precision=precision))
            for t in (1, 2)
        ]
        for e in engines:
            e.iterate(7)
        a, b = engines
        assert b.parallel.threads == 2 and b.parallel.task_node.size > 0
        np.testing.assert_array_equal(a.storage.regrets, b.storage.regrets)
        np.testing.assert_array_equal(a.average_strategy(), b.average_strategy())
        assert a.best_response_values() == b.best_response_values()
        assert a.nodes_touched == b.nodes_touched


def test_float32_storage_tracks_float64_and_halves_memory() -> None:
    from solver import Engine, make_rule

    g = build_holdem(river())
    # auto: float64 for a spot this small, float32 for a big hold'em spot
    assert Engine(g, make_rule("dcfr-tuned")).precision == "float64"
    assert estimate(validate(river())).precision == "float64"
    assert auto_precision(True, AUTO_FLOAT64_CELLS + 1) == "float32"
    assert auto_precision(False, AUTO_FLOAT64_CELLS + 1) == "float64"  # toy games
    assert Engine(make_game("kuhn"), make_rule("dcfr")).precision == "float64"
    a = Engine(g, make_rule("dcfr-tuned"), options=SolveOptions(precision="float64"))
    b = Engine(g, make_rule("dcfr-tuned"), options=SolveOptions(precision="float32"))
    assert a.walk_dtype == np.float64 and b.walk_dtype == np.float32  # float32 walk
    for _ in range(10):
        a.iterate(20)
        b.iterate(20)
        ea = sum(a.best_response_values()) / 2
        eb = sum(b.best_response_values()) / 2
        # the float32 walk's trajectory differs by rounding, either side: within 2 % over
        # these 200 iterations (measured), never a drift
        assert abs(ea - eb) <= 0.03 * ea + 1e-3
    assert b.memory_bytes <= 0.51 * a.memory_bytes


def test_suit_isomorphism_deals_fewer_cards_and_solves_the_same_game() -> None:
    """Flop Td9d6h: spades and clubs are interchangeable (text ranges are suit-symmetric),
    so the turn deals 36 cards and mirrors 13; the solve is the same game."""
    from solver import Engine, make_rule

    spec = dict(
        board="Td9d6h", pot=100, stack=100, oop_range="AA,KQs,T8s,76s,A5o", ip_range="QQ-99,AK",
        bets="a", raises="",
    )  # fmt: skip
    iso = build_holdem(HoldemSpec(**spec))  # type: ignore[arg-type]
    full = build_holdem(HoldemSpec(**spec, isomorphism=False))  # type: ignore[arg-type]
    assert iso.num_nodes < full.num_nodes
    chance = iso.find(["k", "k"])
    cards = iso.chance_cards(chance)
    assert len(cards) == 49 and len(list(iso.children(chance))) == 36
    assert estimate(validate(HoldemSpec(**spec))).nodes == iso.num_nodes  # type: ignore[arg-type]
    # The first iterations agree to rounding; later, regret matching's kink at zero lets
    # 1e-16 differences in the order of summation grow (both runs stay valid solves).
    a = Engine(full, make_rule("cfr"), options=SolveOptions(precision="float64"))
    b = Engine(iso, make_rule("cfr"), options=SolveOptions(precision="float64"))
    for _ in range(4):
        a.iterate(1)
        b.iterate(1)
        ea, eb = sum(a.best_response_values()), sum(b.best_response_values())
        assert ea == pytest.approx(eb, rel=1e-9, abs=1e-9)
    a.iterate(60)
    b.iterate(60)
    ea, eb = sum(a.best_response_values()), sum(b.best_response_values())
    assert ea == pytest.approx(eb, rel=0.05)
    assert expected_values(full, a.average_strategy())[0] == pytest.approx(
        expected_values(iso, b.average_strategy())[0], abs=0.5
    )
    # a mirrored turn card resolves to its canonical node with a card map
    node, cmap = iso.locate(["k", "k", "d:4c"])
    assert iso.labels[node] == "d:4s" and cmap[0] == 3  # 2s <-> 2c


def test_compressed_16bit_storage_halves_float32_and_still_converges() -> None:
    from solver import Engine, make_rule

    g = build_holdem(river())
    f32 = Engine(g, make_rule("dcfr"), options=SolveOptions(precision="float32"))
    q16 = Engine(g, make_rule("dcfr"), options=SolveOptions(precision="compressed"))
    assert q16.storage.regrets.dtype == np.int16 and q16.storage.cumulative.dtype == np.uint16
    f32.iterate(150)
    q16.iterate(150)
    ea = sum(f32.best_response_values()) / 2
    eb = sum(q16.best_response_values()) / 2
    assert eb < 0.003 * 200  # below 0.3 % of the pot
    assert eb < 2 * ea + 0.05
    big = g.action_size * 8  # float32 regrets + sums
    assert q16.memory_bytes - 16 * g.num_nodes <= big / 2 + 64


@pytest.mark.parametrize("trav", [0, 1])
def test_runout_values_are_the_per_hand_dot_products_bit_for_bit(trav: int) -> None:
    """The walk's all-in runout terminal sums over the opponent's hands outermost (vector
    lanes over the traverser's hands) from the opponent's matrix −eqᵀ: the same numbers, bit
    for bit, as each hand's dot product Σ_j eq[h, j]·reach[j] in j order — zeros included."""
    from solver.cfr.terminal import runout_rows

    g = build_holdem(HoldemSpec(board="Ks7h2d9c", pot=100, stack=150, oop_range=OOP,
                                ip_range=IP, bets="a", raises=""))  # fmt: skip
    rows = {int(r) for r in g.tree.runout if r >= 0}
    assert rows
    opp = 1 - trav
    nt, no = int(g.hands.num_hands[trav]), int(g.hands.num_hands[opp])
    rng = np.random.default_rng(trav)
    for r in rows:
        eq = g.boards.runout_eq[r, trav]
        reach = _random_reach(rng, g, opp)
        out = np.full((2, reach.shape[0]), np.nan)
        sums = np.full((1, reach.shape[0]), np.nan)  # the float64 sums' row
        runout_rows(g.boards.runout_eq[r, opp], 37.5, nt, no, reach[None, :], 0, out, 1, sums)
        # a float32 walk: float32 reach and values, the sums still in float64
        r32 = reach.astype(np.float32)
        out32 = np.full((2, reach.shape[0]), np.nan, dtype=np.float32)
        runout_rows(g.boards.runout_eq[r, opp], 37.5, nt, no, r32[None, :], 0, out32, 1, sums)
        for h in range(nt):
            acc = 0.0
            acc32 = 0.0
            for j in range(no):
                acc += float(eq[h, j]) * float(reach[j])
                acc32 += float(eq[h, j]) * float(r32[j])
            assert out[1, h] == 37.5 * acc
            assert not np.signbit(out[1, h]) or out[1, h] != 0.0  # a zero is +0, as before
            assert out32[1, h] == np.float32(37.5 * acc32)
        assert np.isnan(out[0]).all()  # only its row is written


@pytest.mark.parametrize("board", ["Qs8h3d", "Ks7h2d9c"])
def test_collapsed_runouts_equal_the_dealt_out_tree(board: str) -> None:
    """An all-in before the river as one terminal with precomputed runout equities gives the
    same values as dealing every turn and river card."""
    spec = dict(
        board=board, pot=100, stack=150, oop_range="AA,KQs,T8s,76s,A5o", ip_range="QQ-99,AK,J9s",
        bets="100%, a", raises="a", isomorphism=False,
    )  # fmt: skip
    fast = build_holdem(HoldemSpec(**spec))  # type: ignore[arg-type]
    slow = build_holdem(HoldemSpec(**spec, collapse_runouts=False))  # type: ignore[arg-type]
    assert fast.num_nodes < slow.num_nodes
    assert estimate(validate(HoldemSpec(**spec))).nodes == fast.num_nodes  # type: ignore[arg-type]
    for seed in (1, 2):
        sa = _random_profile(fast, seed)
        sb = _random_profile(slow, seed)
        # same decision nodes in the same order: the profiles coincide
        assert fast.action_size == slow.action_size
        np.testing.assert_allclose(sa, sb)
        assert expected_values(fast, sa)[0] == pytest.approx(
            expected_values(slow, sb)[0], abs=1e-10
        )
        from solver import best_response_values

        for x, y in zip(
            best_response_values(fast, sa), best_response_values(slow, sb), strict=True
        ):
            assert x == pytest.approx(y, abs=1e-10)
