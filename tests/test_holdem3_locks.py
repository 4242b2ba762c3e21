"""Locks for any player on three-way hold'em river and turn spots (issue 49 item 1;
docs/locking.md, docs/multiway.md): the heads-up lock text resolved against the spot's built
game (solver/games/holdem3_locks.py) and played by River3Engine (lock, lock_cells,
lock_players).

The reference for a locked solve is the independent evaluator (solver/games/nashconv.py,
itself checked against OpenSpiel) on the spot's deal-list build (river3_multigame,
turn3_multigame), the engine's profile mapped by combo: with two players locked to check and
call on every node, the third's CFR+ solve earns its best-response value against them."""

from __future__ import annotations

import functools

import numpy as np
import numpy.typing as npt
import pytest

from solver.cfr.holdem3_build import build_holdem3
from solver.cfr.holdem3_engine import River3Engine, lock_river3
from solver.cfr.holdem3_turn_build import build_turn3
from solver.cfr.multi_build import MultiBuilt
from solver.cfr.rules import make_rule
from solver.games.holdem3 import River3Spec, river3_multigame
from solver.games.holdem3_locks import build_holdem3_locks, holdem3_lock_lines
from solver.games.holdem3_turn import Turn3Spec, turn3_multigame
from solver.games.model import DECISION, Game
from solver.games.multi_locks import MultiLockError
from solver.games.multiway import MultiGame, multi_game
from solver.games.nashconv import best_response_values, nash_report
from solver.poker.cards import COMBOS, parse_card
from solver.poker.handclass import MADE, classify_hands

RIVER = River3Spec("Ks 7d 2c 9h 3s", "AA, KK, AK", "QQ, JJ, AQs", "TT, 99, KQs", pot=60,
                   stack=200, bets="50%", raises="a", raise_cap=1)  # fmt: skip
TURN = Turn3Spec("Ks 7d 2c 9h", "AA, KhKd", "QQ, AhQh", "TT, 9s9d", pot=60, stack=200,
                 bets="a", raises="a", raise_cap=1)  # fmt: skip
PASSIVE = {"check": {"k": 1.0}, "call": {"c": 1.0}}  # check where it can, else call


@functools.cache
def built(street: str) -> MultiBuilt:
    return build_holdem3(RIVER) if street == "river" else build_turn3(TURN)


@functools.cache
def deal_list(street: str) -> MultiGame:
    return river3_multigame(RIVER) if street == "river" else turn3_multigame(TURN)


def node_of(g: Game, line: str) -> int:
    want = () if line == "root" else tuple(line.split())
    return next(n for n in range(g.num_nodes) if g.history(n) == want)


def on_deal_list(g: Game, mg: MultiGame, sigma: npt.NDArray[np.float64]) -> np.ndarray:
    """The built game's profile as the deal-list build's: each player's hands mapped by
    combo into the union of the three ranges (hands a player never holds: uniform)."""
    union = np.asarray(mg.meta["union"])
    combos = g.meta["combos"]
    out = np.empty(mg.profile_size)
    t = g.tree
    for n in np.flatnonzero(mg.kind == DECISION):
        assert g.history(int(n)) == mg.history(int(n))  # (both lay the nodes out alike)
        na, p = int(mg.num_children[n]), int(mg.player[n])
        nh = combos[p].size  # type: ignore[index]
        block = np.full((na, mg.num_hands), 1.0 / na)
        mine = sigma[t.offset[n] : t.offset[n] + na * nh].reshape(na, nh)
        block[:, np.searchsorted(union, combos[p])] = mine  # type: ignore[index]
        out[mg.offset[n] : mg.offset[n] + na * mg.num_hands] = block.ravel()
    return out


def player_cells(g: Game, players: list[int]) -> np.ndarray:
    """Every cell of ``players``' nodes but those of hands the river card there blocks."""
    out = np.zeros(g.action_size, dtype=bool)
    for n in g.decision_nodes():
        p = int(g.tree.player[n])
        if p in players:
            off, na, nh = g.block(int(n))
            out[off : off + na * nh] = np.tile(g.valid_hands(int(n), p), na)
    return out


def hand_cells(g: Game, line: str, picked: np.ndarray) -> np.ndarray:
    """(action_size,) True at every action's cell of the ``picked`` hands at ``line``."""
    off, na, nh = g.block(node_of(g, line))
    out = np.zeros(g.action_size, dtype=bool)
    out[off : off + na * nh] = np.broadcast_to(picked, (na, nh)).reshape(-1)
    return out


# ----- two players locked: the third earns its best response (the independent evaluator) --


@pytest.mark.parametrize(("street", "free", "iterations", "tol"),
                         [("river", 0, 1000, 2e-3), ("river", 2, 1000, 2e-3),
                          ("turn", 0, 400, 5e-3), ("turn", 2, 400, 5e-3)])  # fmt: skip
def test_two_players_locked_passive_leave_the_third_its_best_response(
    street: str, free: int, iterations: int, tol: float
) -> None:
    """Every node of the other two locked to check/call by lock lines (a river card in the
    turn's lines): the free player's CFR+ solve earns, within ``tol`` chips (CFR+'s average
    closes on a best response at about 1/T; pot 60), its best-response value against them
    by the evaluator on the deal list; the locked cells of the average and current profiles
    are the lock exactly, and their regrets and sums are never touched."""
    b = built(street)
    g, mg = b.game, deal_list(street)
    others = [p for p in range(3) if p != free]
    spec = holdem3_lock_lines(g, others, PASSIVE)
    assert all(int(g.tree.player[node_of(g, line)]) in others for line in spec)
    if street == "turn":
        assert any(" d:" in line for line in spec)
    eng = River3Engine(b, make_rule("cfr+"))
    locks = lock_river3(eng, spec)
    assert locks is not None and locks.players() == tuple(others)
    locked = player_cells(g, others)
    np.testing.assert_array_equal(locks.cells, locked)
    eng.iterate(iterations)
    avg = eng.average_profile()
    np.testing.assert_array_equal(avg[locked], locks.strategy[locked])
    np.testing.assert_array_equal(eng.current_profile()[locked], locks.strategy[locked])
    assert not eng.storage.regrets[locked].any() and not eng.storage.cumulative[locked].any()
    assert eng.storage.cumulative[~locked].any()  # (the free player did learn)
    ref = nash_report(mg, on_deal_list(g, mg, avg))
    rep = eng.engine_report()
    np.testing.assert_allclose(rep.value, ref.value, rtol=0, atol=1e-9)
    fixed = np.where(locks.cells, locks.strategy, avg)  # (the free player's part: any)
    br = best_response_values(mg, on_deal_list(g, mg, fixed))[free]
    assert rep.value[free] == pytest.approx(br, abs=tol)
    assert br - rep.value[free] > -1e-9  # (never above a best response)
    if street == "river":  # without the locks the free player earns something else
        plain = River3Engine(b, make_rule("cfr+"))
        plain.iterate(iterations)
        assert abs(plain.engine_report().value[free] - br) > 1.0


def test_lock_players_is_the_lock_text_on_every_node() -> None:
    """lock_players (a profile, whole players) locks the same cells to the same mixes as the
    lock text of every node, and the solves agree."""
    b = built("river")
    g = b.game
    spec = holdem3_lock_lines(g, [0, 1], PASSIVE)
    by_text = River3Engine(b, make_rule("cfr+"))
    locks = lock_river3(by_text, spec)
    assert locks is not None
    profile = np.where(locks.cells, locks.strategy, 0.0)
    for n in g.decision_nodes():  # (player 2's part: uniform, any profile will do)
        off, na, nh = g.block(int(n))
        if int(g.tree.player[n]) == 2:
            profile[off : off + na * nh] = 1.0 / na
    by_players = River3Engine(b, make_rule("cfr+"))
    by_players.lock_players([0, 1], profile)
    assert by_players.locked_players == (0, 1)
    by_text.iterate(50)
    by_players.iterate(50)
    np.testing.assert_array_equal(by_text.average_profile(), by_players.average_profile())
    with pytest.raises(ValueError, match="profile"):
        by_players.lock_players([0], profile[:-1])


# ----- a partial lock: only the named hands at the one node ----------------------------------


def test_a_partial_river_lock_by_class_changes_only_those_cells() -> None:
    """'KK' at the root names player 0's three kings the board (Ks) leaves; 'AKs' and 'AdKd'
    their combos; only those hands' cells are locked, to their mixes, and the solve plays
    them there while the root's other hands and every other node stay free."""
    b = built("river")
    g = b.game
    names = g.hand_names[0]
    kk = np.array([n[0] == "K" and n[2] == "K" for n in names])
    aks = np.array([{n[0], n[2]} == {"A", "K"} and n[1] == n[3] for n in names])
    assert kk.sum() == 3 and aks.sum() == 3  # (AsKs and the Ks kings: blocked by the board)
    one = np.array([{n[:2], n[2:]} == {"Ad", "Kd"} for n in names])  # (named "KdAd")
    spec = {"root": {"KK": {"b:30": 1}, "AKs": {"k": 0.25, "b:30": 0.75}, "AdKd": {"k": 1}}}
    eng = River3Engine(b, make_rule("cfr+"))
    locks = lock_river3(eng, spec)
    assert locks is not None
    want = hand_cells(g, "root", kk | aks)
    np.testing.assert_array_equal(locks.cells, want)  # (AdKd: one of AKs, its mix later)
    off, na, nh = g.block(0)
    block = locks.strategy[off : off + na * nh].reshape(na, nh)
    np.testing.assert_array_equal(block[:, kk], np.tile([[0.0], [1.0]], kk.sum()))
    np.testing.assert_array_equal(block[:, aks & ~one], np.tile([[0.25], [0.75]], 2))
    np.testing.assert_array_equal(block[:, one], [[1.0], [0.0]])
    assert [s.hand for s in locks.sets] == [names[k] for k in np.flatnonzero(kk | aks)]
    assert locks.lines(3) == [["root"], [], []]
    eng.iterate(100)
    avg = eng.average_profile()
    np.testing.assert_array_equal(avg[want], locks.strategy[want])
    free = np.zeros(g.action_size, dtype=bool)
    free[off : off + na * nh] = True
    free &= ~want
    assert eng.storage.cumulative[free].any() and not eng.storage.cumulative[want].any()


def test_turn_locks_below_a_river_card_leave_out_the_hands_it_blocks() -> None:
    """At 'k k k d:Ah' player 0's 'AA' names the three aces the Ah leaves (the others are
    left out without a word, as heads-up); '*' is every other hand it can hold there; a
    hand class is read on the turn and the river card; a hand the card blocks entirely is an
    error naming it."""
    g = built("turn").game
    names = g.hand_names[0]
    line = "k k k d:Ah"
    node = node_of(g, line)
    assert int(g.tree.player[node]) == 0
    aa = np.array([n[0] == "A" and n[2] == "A" and "Ah" not in n for n in names])
    assert aa.sum() == 3
    locks = build_holdem3_locks(g, {line: {"AA": {"k": 1}}})
    np.testing.assert_array_equal(locks.cells, hand_cells(g, line, aa))
    rest = build_holdem3_locks(g, {line: {"AA": {"k": 1}, "*": {"b:200": 1}}})
    can = g.valid_hands(node, 0)
    assert not can.all()  # (the Ah aces cannot be here)
    np.testing.assert_array_equal(rest.cells, hand_cells(g, line, can))
    # a hand class on the five cards: KhKd and the aces left are sets (Ks and Ah on board)
    board = [parse_card(c) for c in ("Ks", "7d", "2c", "9h", "Ah")]
    made, _ = classify_hands(board, COMBOS[np.asarray(g.meta["combos"][0])])  # type: ignore[index]
    sets = (made == MADE.index("set")) & can
    assert [names[k] for k in np.flatnonzero(sets)] == ["KhKd", "AsAd", "AsAc", "AdAc"]
    by_class = build_holdem3_locks(g, {line: {"set": {"b:200": 1}}})
    np.testing.assert_array_equal(by_class.cells, hand_cells(g, line, sets))
    with pytest.raises(MultiLockError, match="lock 'k k k d:Kh', hand 'KhKd': names no hand"):
        build_holdem3_locks(g, {"k k k d:Kh": {"KhKd": {"k": 1}}})


# ----- bad locks: named ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("street", "spec", "says"),
    [
        ("river", {"k x": {"k": 1}}, "lock 'k x': no such line: after 'k' come k, b:30, not 'x'"),
        ("river", {"k k k k": {"k": 1}}, "lock 'k k k k': no such line: the hand is over"),
        (
            "turn",
            {"k k k d:Ks": {"k": 1}},
            "lock 'k k k d:Ks': no such line: after 'k k k' the river is dealt (d:2s, d:2h, d:2d",
        ),
        ("turn", {"k k k": {"k": 1}}, "lock 'k k k': is a chance node"),
        ("river", {"k k k": {"k": 1}}, "lock 'k k k': is a terminal node"),
        ("river", {"root": {"c": 1}}, "lock 'root': no action 'c' here (actions: k, b:30)"),
        ("river", {"b:30": {"f": 0.5, "c": 0.2}}, "lock 'b:30': probabilities sum to 0.7, not 1"),
        ("river", {"root": {"k": 1.5, "b:30": -0.5}}, "lock 'root': k: probability 1.5 is more"),
        ("river", {"root": {"k": "x"}}, "lock 'root': k: 'x' is not a probability"),
        (
            "river",
            {"root": {"AKx": {"k": 1}}},
            "lock 'root', hand 'AKx': not a hand, range or hand class",
        ),
        ("river", {"root": {"QQ": {"k": 1}}}, "lock 'root', hand 'QQ': names no hand that can"),
        ("river", {"root": {"AA": {"k": 0.5}}}, "lock 'root', hand 'AA': probabilities sum to"),
        ("river", {"root": {"AA": {"k": 1}, "*": {"x": 1}}}, "hand '*': no action 'x' here"),
        ("river", {"root": {"AA": {"k": 1}, "k": 1}}, "lock 'root': mixes {action: probability}"),
        ("river", {"root": "solved"}, "lock 'root': 'solved' needs a solve"),
        ("river", {"root": "tight"}, "lock 'root': a mix is {action: probability}, per hand"),
        ("river", {"root": {"k": 1}, "": {"k": 1}}, "lock 'root': is locked twice"),
        ("river", {"root": {5: {"k": 1}}}, "lock 'root': a hand is text like 'AhKd'"),
        ("river", ["root"], "lock 'locks': locks are {line: mix}"),
    ],
)
def test_bad_locks_are_named(street: str, spec: object, says: str) -> None:
    with pytest.raises(MultiLockError) as err:
        build_holdem3_locks(built(street).game, spec)  # type: ignore[arg-type]
    assert str(err.value).startswith(says) or says in str(err.value), str(err.value)


def test_solved_locks_take_the_profile_and_other_games_are_refused() -> None:
    b = built("river")
    eng = River3Engine(b, make_rule("cfr+"))
    eng.iterate(20)
    avg = eng.average_profile()
    locks = build_holdem3_locks(b.game, {"k": "solved"}, avg)
    want = hand_cells(b.game, "k", np.ones(b.game.hands.num_hands[1], dtype=bool))
    np.testing.assert_array_equal(locks.cells, want)
    np.testing.assert_array_equal(locks.strategy[want], avg[want])
    assert set(locks.spec["k"]) == set(b.game.hand_names[1])
    with pytest.raises(ValueError, match="three-way river and turn spots"):
        build_holdem3_locks(multi_game("kuhn3"), {"k": {"k": 1}})  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="mix: none fits the actions at 'root'"):
        holdem3_lock_lines(b.game, [0], {"call": {"c": 1}})
    with pytest.raises(TypeError, match="locks must be"):
        lock_river3(eng, ["root"])
