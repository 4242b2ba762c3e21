"""Suit-isomorphic cards against the same spot built with every card dealt (issue 44).

A flop game with suit isomorphism deals one card per class of interchangeable suits and
mirrors the others. The reference is the same spot with ``isomorphism=False``: every
strategy of the isomorphic game that is symmetric under the suit permutations the line has
not told apart maps onto the full game (each real history through :meth:`Game.locate`,
each hand through its card map), and both games must then give the same values, to
rounding, at the root and at every card — the cards listed once each, labelled as dealt,
on both orders of (turn, river). The boards: 7s7h2d (a paired flop: spades and hearts stay
alike) and 9s8s2h (diamonds and clubs alike on the flop; the turn 2d or 2c makes them
hold the same ranks as hearts, which the flop told apart). Then every view that reads a
dealt card through its canonical node: the API's strategies, Explore's runout list and
numbers, the trainer's dealing, the batch reports' lines and per-card numbers."""

from __future__ import annotations

import functools
import itertools
from collections import Counter
from dataclasses import asdict, replace

import numpy as np
import numpy.typing as npt
import pytest

from solver.batch.lines import flop_line, next_steps, parse_line
from solver.batch.summary import summarize_tree
from solver.cfr.bestresponse import node_values
from solver.games.holdem import HoldemSpec, build_holdem, validate
from solver.games.model import CHANCE, DECISION, Game
from solver.poker.cards import card_str, parse_card
from solver.study.trainer import Drill, Table
from solver.study.views import runout_report

Array = npt.NDArray[np.float64]

SPOT = HoldemSpec(
    board="7s7h2d",
    pot=200,
    stack=400,
    oop_range="AA,KK,QQ,AKs,AKo,KQs",
    ip_range="QQ,JJ,TT,AQs,AQo,KJs,98s",
    bets="a",
    raises="",
)
BOARDS = ("7s7h2d", "9s8s2h")
# values are sums of a few thousand products of numbers ≤ the stack: float64 rounding
TOL = 1e-9


def _spec(board: str, isomorphism: bool = True) -> HoldemSpec:
    return replace(SPOT, board=board, isomorphism=isomorphism)


@functools.cache
def games(board: str) -> tuple[Game, Game]:
    """(isomorphic, full) games of the spot on ``board``."""
    return build_holdem(_spec(board)), build_holdem(_spec(board, False))


def _suit_map(perm: tuple[int, ...]) -> list[int]:
    """Card map of a suit permutation (suit s → perm[s])."""
    return [c - c % 4 + perm[c % 4] for c in range(52)]


def _hand_index(game: Game, player: int) -> dict[tuple[int, ...], int]:
    cards = game.hands.cards[player, : game.num_hands[player]]
    return {tuple(sorted(int(c) for c in row if c >= 0)): h for h, row in enumerate(cards)}


def _image(game: Game, player: int, cmap: list[int]) -> npt.NDArray[np.int64]:
    """For each of ``player``'s hands, the index of its image under the card map."""
    index = _hand_index(game, player)
    cards = game.hands.cards[player, : game.num_hands[player]]
    return np.array([index[tuple(sorted(cmap[int(c)] for c in row if c >= 0))] for row in cards])


def _path_boards(game: Game, node: int) -> list[set[int]]:
    """The boards on the way to ``node`` in its frame: the flop, then with each card dealt."""
    board = [int(c) for c in np.asarray(game.meta["board"])]
    out = [set(board)]
    for label in game.history(node):
        if label.startswith("d:"):
            board.append(parse_card(label[2:]))
            out.append(set(board))
    return out


def _stabilizer(boards: list[set[int]]) -> list[tuple[int, ...]]:
    """The suit permutations mapping every board of a line onto itself (found by trying all
    24, independently of the dealer's classes)."""
    out = []
    for perm in itertools.permutations(range(4)):
        cmap = _suit_map(perm)
        if all({cmap[c] for c in b} == b for b in boards):
            out.append(perm)
    return out


@functools.cache
def symmetric_sigma(board: str, seed: int = 1) -> Array:
    """A random strategy of the isomorphic game, averaged over each node's stabilizer: the
    strategies the isomorphic game stands for exactly (CFR keeps them from its start)."""
    iso, _full = games(board)
    rng = np.random.default_rng(seed)
    weights = validate(_spec(board)).weights
    flop = _path_boards(iso, 0)
    for perm in _stabilizer(flop):  # the ranges are symmetric under the flop's permutations
        cmap = np.array(_suit_map(perm))
        assert all(np.array_equal(w, w[_combo_image(cmap)]) for w in weights)
    sigma = np.zeros(iso.action_size)
    images: dict[tuple[int, tuple[int, ...]], npt.NDArray[np.int64]] = {}
    for n in iso.decision_nodes():
        off, na, nh = iso.block(int(n))
        p = int(iso.tree.player[n])
        x = rng.random((na, nh)) + 0.05
        x /= x.sum(axis=0)
        group = _stabilizer(_path_boards(iso, int(n)))
        acc = np.zeros_like(x)
        for perm in group:
            if (p, perm) not in images:
                images[p, perm] = _image(iso, p, _suit_map(perm))
            acc += x[:, images[p, perm]]
        sigma[off : off + na * nh] = (acc / len(group)).ravel()
    return sigma


def _combo_image(cmap: npt.NDArray[np.int64]) -> npt.NDArray[np.int64]:
    from solver.poker.cards import COMBO_INDEX, COMBOS

    return np.asarray(COMBO_INDEX[cmap[COMBOS[:, 0]], cmap[COMBOS[:, 1]]])


@functools.cache
def mapped_sigma(board: str) -> Array:
    """:func:`symmetric_sigma` played in the full game: each node's strategy read at the node
    its history locates, hands through the card map."""
    iso, full = games(board)
    si = symmetric_sigma(board)
    sf = np.zeros(full.action_size)
    images: dict[tuple[int, tuple[int, ...]], npt.NDArray[np.int64]] = {}
    for n in full.decision_nodes():
        m, cmap = iso.locate(full.history(int(n)))
        off, na, nh = full.block(int(n))
        offi, nai, nhi = iso.block(m)
        assert (na, nh) == (nai, nhi)
        p = int(full.tree.player[n])
        key = (p, tuple(cmap))
        if key not in images:
            images[key] = _image(iso, p, cmap)
        sf[off : off + na * nh] = si[offi : offi + na * nh].reshape(na, nh)[:, images[key]].ravel()
    return sf


def _frame_values(board: str, history: tuple[str, ...], player: int) -> tuple[Array, Array]:
    """``player``'s counterfactual values per (real) hand at ``history``: in the full game,
    and in the isomorphic game at the node standing for it, read through the card map."""
    iso, full = games(board)
    n = full.find(history)
    m, cmap = iso.locate(history)
    got = node_values(iso, symmetric_sigma(board), m, player)[_image(iso, player, cmap)]
    return got, node_values(full, mapped_sigma(board), n, player)


# ----- the dealt cards --------------------------------------------------------------------
TURN_RIVER = [
    ("7s7h2d", "2c", "7c"),  # the issue's: 7c after 2c was labelled 2c (2c after 7c's label)
    ("7s7h2d", "Ac", "As"),
    ("9s8s2h", "2c", "Ac"),  # 2c mirrors 2d; after it hearts and clubs hold the same ranks
    ("9s8s2h", "Ah", "Ac"),
]


@pytest.mark.parametrize(("board", "a", "b"), TURN_RIVER)
def test_each_card_is_listed_once_as_dealt_on_both_orders(board: str, a: str, b: str) -> None:
    iso, full = games(board)
    flop = {parse_card(x) for x in (board[0:2], board[2:4], board[4:6])}
    for turn, river in ((a, b), (b, a)):
        line = ("k", "k", f"d:{turn}", "k", "k")
        chance, cmap = iso.locate(line)
        assert iso.tree.kind[chance] == CHANCE
        labels = [lab for lab, _c, _r in iso.chance_cards(chance)]
        live = sorted(
            f"d:{card_str(cmap[c])}" for c in range(52) if c not in flop | {parse_card(turn)}
        )
        assert sorted(labels) == live  # every live card once, in the node's frame
        assert [lab for lab, _c, _r in full.chance_cards(full.find(line))] == sorted(
            (f"d:{card_str(c)}" for c in range(52) if c not in flop | {parse_card(turn)}),
            key=lambda x: parse_card(x[2:]),
        )
        # the card dealt at each child is the one its label names: the node's board holds it
        for lab, child, row in iso.chance_cards(chance):
            card = parse_card(lab[2:])
            canon = parse_card(iso.labels[child][2:])
            if row < 0:
                assert card == canon
            else:
                assert iso.card_perms[row][canon] == card
        node, _m = iso.locate((*line, f"d:{river}"))
        assert iso.parents[node] == chance


@pytest.mark.parametrize("board", BOARDS)
def test_root_values_equal_the_full_games(board: str) -> None:
    """The whole tree under one symmetric strategy: every card's value counts at the root."""
    for p in range(2):
        got, want = _frame_values(board, (), p)
        assert np.max(np.abs(got - want)) <= TOL * max(1.0, float(np.max(np.abs(want))))


@pytest.mark.parametrize(("board", "a", "b"), TURN_RIVER)
def test_every_river_card_has_its_own_values(board: str, a: str, b: str) -> None:
    """At each river card after both orders of (turn, river), mirrored or not: each hand's
    value is the full game's at that card (read through the card map)."""
    _iso, full = games(board)
    for turn in (a, b):
        line = ("k", "k", f"d:{turn}", "k", "k")
        for lab, _child, _row in full.chance_cards(full.find(line)):
            for p in range(2):
                got, want = _frame_values(board, (*line, lab), p)
                scale = max(1.0, float(np.max(np.abs(want))))
                assert np.max(np.abs(got - want)) <= TOL * scale, (line, lab, p)


def test_the_turn_makes_no_mirror_of_suits_the_flop_told_apart() -> None:
    """9s8s2h: after 2d hearts and diamonds hold the same ranks, but the flop's 2h has told
    them apart, so Ad is dealt on its own; Ac after 2c (the mirror of 2d) is Ad's node, not
    Ah's. After Ah the flop's alike diamonds and clubs still mirror each other."""
    iso, _full = games("9s8s2h")
    after_2d = iso.chance_cards(iso.find(("k", "k", "d:2d", "k", "k")))
    assert all(row < 0 for _lab, _child, row in after_2d)
    ah, _cm = iso.locate(("k", "k", "d:2c", "k", "k", "d:Ah"))
    ac, _cmap = iso.locate(("k", "k", "d:2c", "k", "k", "d:Ac"))
    assert ah != ac and iso.labels[ac] == "d:Ad" and iso.labels[ah] == "d:Ah"
    after_ah = iso.chance_cards(iso.find(("k", "k", "d:Ah", "k", "k")))
    mirrored = {lab for lab, _c, row in after_ah if row >= 0}
    assert mirrored == {f"d:{r}c" for r in "23456789TJQKA"}


# ----- the views that read a dealt card through its canonical node ---------------------------
def test_api_strategy_takes_every_card_as_dealt() -> None:
    from solver.api import solve

    iso, _full = games("7s7h2d")
    result = solve(iso, "dcfr", iterations=2, check_every=2)
    line = ("k", "k", "d:2c", "k", "k")
    at_7c = result.strategy((*line, "d:7c"))  # was a KeyError (the card read as 2c)
    assert at_7c and not any("7c" in hand for hand in at_7c)
    at_as = result.strategy((*line, "d:As"))  # OOP's river decisions
    at_ah = result.strategy((*line, "d:Ah"))  # Ah mirrors As: hands swap spades, hearts
    assert at_ah["AsKs"] == at_as["AhKh"] and at_ah["KhKs"] == at_as["KhKs"]
    assert not any("Ah" in hand for hand in at_ah)


@pytest.mark.parametrize(("board", "line"), [("7s7h2d", "2c"), ("9s8s2h", "2c"), ("9s8s2h", "Ah")])
def test_explore_runouts_list_each_card_with_its_numbers(board: str, line: str) -> None:
    """Explore's runout table: every live card once, named as dealt, each with the full
    game's range numbers at that card."""
    iso, full = games(board)
    history = ("k", "k", f"d:{line}", "k", "k")
    chance, _cmap = iso.locate(history)
    got = runout_report(iso, symmetric_sigma(board), chance)
    want = {r.card: r for r in runout_report(full, mapped_sigma(board), full.find(history))}
    _node, cmap = iso.locate(history)
    inverse = np.argsort(cmap)  # frame card → real card
    real = [card_str(int(inverse[parse_card(r.card)])) for r in got]
    assert sorted(real) == sorted(want) and len(set(real)) == len(real)
    for r, card in zip(got, real, strict=True):
        w = want[card]
        for p in range(2):
            g, x = r.summaries[p], w.summaries[p]
            assert g.combos == pytest.approx(x.combos, rel=1e-9)
            assert g.ev == pytest.approx(x.ev, rel=1e-9, abs=1e-9)
            assert g.equity == pytest.approx(x.equity, rel=1e-9, abs=1e-12)
        assert r.mix is not None and w.mix is not None
        assert np.allclose(r.mix, w.mix, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize(("board", "turn"), [("7s7h2d", "2c"), ("9s8s2h", "2c")])
def test_the_trainer_deals_every_live_river_card(board: str, turn: str) -> None:
    """The trainer deals the river uniformly over the live cards, each named as dealt (it
    dealt 2c twice as often and never 7c)."""
    iso, _full = games(board)
    drill = Drill(iso, symmetric_sigma(board), 0, seed=3)
    history = ["k", "k", f"d:{turn}", "k", "k"]
    node, cmap = iso.locate(history)
    h0 = iso.hand_names[0].index("AsKs")
    h1 = iso.hand_names[1].index("QdQh")
    dealt: Counter[str] = Counter()
    for _ in range(2000):
        drill.table = Table((h0, h1), list(history), node, list(cmap))
        drill.deal_card()
        dealt[drill.table.history[-1][2:]] += 1
    used = {board[i : i + 2] for i in (0, 2, 4)} | {turn, "As", "Ks", "Qd", "Qh"}
    live = {card_str(c) for c in range(52)} - used
    assert set(dealt) == live
    assert max(dealt.values()) < 2.5 * 2000 / len(live)  # none counted for two


@pytest.mark.parametrize(
    ("board", "line"),
    [("7s7h2d", ("d:2c", "k", "k", "d:Ah")), ("9s8s2h", ("d:2c", "k", "k", "d:Ac")),
     ("9s8s2h", ("d:Ah", "k", "k", "d:Ac")), ("7s7h2d", ("d:Ah", "k", "k", "d:2c"))],
)  # fmt: skip
def test_practice_grades_a_mirrored_card_with_its_own_numbers(
    board: str, line: tuple[str, ...]
) -> None:
    """Practice at a river card the tree mirrors (or reached through a mirrored turn): each
    hero hand's mix and action EVs are the full game's for that hand at that card."""
    iso, full = games(board)
    history = ["k", "k", *line]
    drills = (Drill(iso, symmetric_sigma(board), 0), Drill(full, mapped_sigma(board), 0))
    located = (iso.locate(history), (full.find(history), list(range(52))))
    valid = full.valid_hands(full.find(history), 0)
    checked = 0
    for h0 in np.flatnonzero(valid):
        got = []
        for drill, (node, cmap) in zip(drills, located, strict=True):
            drill.table = Table((int(h0), 0), list(history), node, list(cmap))
            got.append(drill.spot())
        (mix, evs), (want_mix, want_evs) = got
        assert np.allclose(mix, want_mix, rtol=1e-12, atol=1e-12)
        assert np.allclose(evs, want_evs, rtol=1e-9, atol=1e-9)
        checked += 1
    assert checked > 20


@pytest.mark.parametrize("board", BOARDS)
def test_report_lines_give_each_river_card_its_numbers(board: str) -> None:
    """The batch summary's line report, "any" river and each named card: the same cards
    and, at each, the full game's numbers (stored as float32: 1e-6 relative). The per-card
    table holds a class of suit-isomorphic cards once, named as dealt, with the class's
    reach."""
    iso, full = games(board)
    ts_iso = summarize_tree(iso, symmetric_sigma(board), min_line_reach=0.0)
    ts_full = summarize_tree(full, mapped_sigma(board), min_line_reach=0.0)
    flop = [parse_card(board[i : i + 2]) for i in (0, 2, 4)]
    for turn in ("2c", "Ac", "Ah"):
        steps = parse_line(f"k k {turn} k k any")
        got, want = flop_line(ts_iso, flop, steps, 2), flop_line(ts_full, flop, steps, 2)
        assert not isinstance(got, tuple) and not isinstance(want, tuple)
        _close(got.stats, want.stats, f"{board} {turn} any")
        dealt = next_steps(ts_iso, steps[:-1])
        assert dealt is not None and sorted(dealt.cards) == sorted(want.cards)
        chance, _cmap = iso.locate(tuple(steps[:-1]))
        size = Counter(child for _lab, child, _row in iso.chance_cards(chance))
        for card, w in want.cards.items():
            one = flop_line(ts_iso, flop, parse_line(f"k k {turn} k k {card}"))
            assert not isinstance(one, tuple), (turn, card)  # every card reaches a node
            _close(one.stats, w, f"{board} {turn} {card}")
            node, _m = iso.locate((*steps[:-1], f"d:{card}"))
            if card in got.cards:  # the class's card: its numbers, the class's reach
                _close(got.cards[card], w, f"{board} {turn} {card}", size[node])
        assert sum(size[iso.locate((*steps[:-1], f"d:{c}"))[0]] for c in got.cards) == len(
            want.cards
        )


def _close(got: object, want: object, where: str, cards: int = 1) -> None:
    g, w = got.record(), want.record()  # type: ignore[attr-defined]
    assert g["reach"] == pytest.approx(cards * w["reach"], rel=1e-5), where
    for key in ("ev", "equity"):
        assert g[key] == pytest.approx(w[key], rel=1e-5, abs=1e-4), (where, key)
    assert g["mix"].keys() == w["mix"].keys(), where
    for a, f in w["mix"].items():
        assert g["mix"][a] == pytest.approx(f, abs=1e-5), (where, a)


def test_every_decision_below_a_chance_node_is_covered() -> None:
    """The mapping the tests above use covers the full game: every decision node of it
    locates a decision node of the isomorphic game of the same player and actions."""
    iso, full = games("9s8s2h")
    for n in full.decision_nodes()[:: max(1, len(full.decision_nodes()) // 400)]:
        m, _cmap = iso.locate(full.history(int(n)))
        assert iso.tree.kind[m] == DECISION and iso.tree.player[m] == full.tree.player[n]
        assert iso.action_labels(m) == full.action_labels(int(n))


# ----- what a person sees: Explore's river list -----------------------------------------------
def test_explore_river_list_shows_every_card_once() -> None:
    """On Explore, after check, check, 2c, check, check on 7s7h2d: the river picker lists
    every live card once (7c among them, 2c not), and picking 7c or the mirrored Ah goes to
    the node that stands for it (Ah with the suit-symmetry note)."""
    from app_helpers import no_threads_left, page

    from app import state
    from solver import make_rule
    from solver.run.jobs import SolveJob

    iso, _full = games("7s7h2d")
    job = SolveJob(iso, make_rule("dcfr"), max_iterations=2).start()
    try:
        job.wait_for(lambda q: q.finished, timeout=120)
        line = ("k", "k", "d:2c", "k", "k")
        chance = iso.find(line)
        source = {"kind": "holdem", "spec": asdict(_spec("7s7h2d"))}
        at = page("explore", **{state.JOB: job, state.JOB_SOURCE: source,
                                state.EXPLORE_NODE: chance})  # fmt: skip
        at.run()
        assert not at.exception
        picker = at.selectbox(key=state.CHANCE_CARD)
        shown = list(picker.options)
        live = {card_str(c) for c in range(52)} - {"7s", "7h", "2d", "2c"}
        assert sorted(shown) == sorted(live)  # each once, as dealt
        picker.set_value(shown.index("7c")).run()
        assert at.session_state[state.EXPLORE_NODE] == iso.locate((*line, "d:7c"))[0]
        at.button(key="crumb_5").click().run()  # back to the river's chance node
        assert at.session_state[state.EXPLORE_NODE] == chance
        at.selectbox(key=state.CHANCE_CARD).set_value(shown.index("Ah")).run()
        assert at.session_state[state.EXPLORE_NODE] == iso.locate((*line, "d:As"))[0]
        assert any("Ah is dealt like As" in i.value for i in at.info)
    finally:
        job.stop()
        no_threads_left()


def test_a_solve_saved_with_the_old_mirrors_says_to_solve_again(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A 9s8s2h solve saved when the turn's alike suits were mirrored has fewer strategy
    sums than the game now: loading it says why, it does not load the wrong tree."""
    from solver.api import solve
    from solver.files.export import ExportError, game_source, load_solve, save_solve
    from solver.games import holdem

    deals = holdem.Dealer.deals

    def board_only(self: holdem.Dealer, board: tuple[int, ...]) -> list:
        self.start = len(board)  # suits alike on the current board alone, as before
        return deals(self, board)

    spec = _spec("9s8s2h")
    with monkeypatch.context() as m:
        m.setattr(holdem.Dealer, "deals", board_only)
        old = build_holdem(spec)
    assert old.action_size < games("9s8s2h")[0].action_size
    data = save_solve(solve(old, "dcfr", iterations=1).engine, game_source(old, spec))
    with pytest.raises(ExportError, match="solve it again"):
        load_solve(data)


@pytest.mark.parametrize("board", BOARDS)
def test_the_estimate_counts_the_tree_built(board: str) -> None:
    """The size estimate deals the same cards as the builder (both ask the dealer with the
    line's cards in order)."""
    from solver.games.holdem import estimate

    iso, full = games(board)
    for game, spec in ((iso, _spec(board)), (full, _spec(board, False))):
        est = estimate(validate(spec))
        t = game.tree
        assert est.nodes == game.num_nodes
        assert est.chance_nodes == int(np.count_nonzero(t.kind == CHANCE))
        assert est.storage_entries == game.action_size


def test_report_line_through_the_swapped_deal_keeps_the_flop(tmp_path: object) -> None:
    """``report --line "k k 2c k k 7c"`` (the issue's: 7c after 2c) on a batch of 7s7h2d
    and 9s8s2h: both flops have the line; the line picker offers every river card as dealt,
    each by the flops where it is live."""
    import json
    from pathlib import Path

    from batch_helpers import solved_db
    from cli_helpers import run

    from solver.batch.spec import BatchSpec

    spec = BatchSpec(replace(SPOT, board=""), flops="7s7h2d, 9s8s2h", target_pct=5.0,
                     max_iterations=30, name="iso")  # fmt: skip
    db = solved_db(Path(str(tmp_path)) / "iso.db", spec)
    for line in ("k k 2c k k 7c", "k k 7c k k 2c", "k k 2c k k Ac", "k k Ac k k As"):
        r = run("report", str(db), "--line", line, "--json")
        assert r.returncode == 0, r.stderr
        records = [json.loads(x) for x in r.stdout.splitlines()]
        assert records[-1]["final"] is True
        assert records[-1]["flops"] == 2, (line, records[-1])
    # the line picker's river cards after 2c
    from solver.batch.linereport import report_at

    offered = report_at(str(db), parse_line("k k 2c k k"), None, [], with_next=True)["next"]
    live = {b: {card_str(c) for c in range(52)} - {b[i : i + 2] for i in (0, 2, 4)} - {"2c"}
            for b in ("7s7h2d", "9s8s2h")}  # fmt: skip
    assert set(offered["cards"]) == live["7s7h2d"] | live["9s8s2h"]
    for card, flops in offered["cards"].items():
        assert flops == sum(card in cards for cards in live.values()), card
