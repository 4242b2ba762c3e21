"""Locks for any player of a three-player game (issue 49 item 1; docs/locking.md,
docs/multiway.md): the heads-up lock text ``{LINE: MIX}`` resolved against kuhn3 / leduc3
(solver/games/multi_locks.py), played by the engine (MultiEngine.lock) and taken by
``solve("kuhn3", locks=...)``.

The reference for a locked solve is the independent evaluator (solver/games/nashconv.py,
itself checked against OpenSpiel in tests/test_multiway_openspiel.py): with two players
locked to uniform on every node by lock lines, the third's solve earns its best-response
value against uniform."""

from __future__ import annotations

import functools
import json

import numpy as np
import pytest

from solver.api import solve
from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.games.multi_locks import MultiLockError, build_multi_locks, uniform_locks
from solver.games.multiway import MultiGame, multi_game
from solver.games.nashconv import best_response_values, uniform_profile


@functools.cache
def game(name: str) -> MultiGame:
    return multi_game(name)


def node_of(g: MultiGame, line: str) -> int:
    want = tuple(line.split())
    return next(n for n in range(g.num_nodes) if g.history(n) == want)


def cells_of(g: MultiGame, line: str, hands: list[str]) -> np.ndarray:
    """(profile_size,) True at every action's cell of ``hands`` at ``line``'s node."""
    n = node_of(g, line)
    out = np.zeros(g.profile_size, dtype=bool)
    for name in hands:
        k = g.hand_names.index(name)
        for a in range(int(g.num_children[n])):
            out[g.offset[n] + a * g.num_hands + k] = True
    return out


def players_cells(g: MultiGame, players: list[int]) -> np.ndarray:
    out = np.zeros(g.profile_size, dtype=bool)
    for n in g.decision_nodes():
        if int(g.player[n]) in players:
            out[g.offset[n] : g.offset[n] + g.num_children[n] * g.num_hands] = True
    return out


@pytest.mark.parametrize("free", [0, 1, 2])
def test_two_players_line_locked_to_uniform_leave_the_third_its_best_response(free: int) -> None:
    """Every node of the other two locked to uniform by lock lines: the free player's CFR+
    solve earns its best-response value against uniform within 1e-4, and the locked cells
    of the average profile are the lock exactly."""
    g = game("kuhn3")
    others = [p for p in range(3) if p != free]
    spec = uniform_locks(g, others)
    assert all(int(g.player[node_of(g, "" if k == "root" else k)]) in others for k in spec)
    r = solve("kuhn3", "cfr+", iterations=1000, check_every=1000, locks=spec)
    u = uniform_profile(g)
    br = best_response_values(g, u)[free]
    assert r.ev[free] == pytest.approx(br, abs=1e-4)
    assert br - r.ev[free] > -1e-12  # (never above a best response)
    avg = r.average_profile()
    locked = players_cells(g, others)
    np.testing.assert_array_equal(avg[locked], u[locked])
    assert r.locks is not None and r.locks.players() == tuple(others)
    assert np.array_equal(r.locks.cells, locked)
    assert r.locked[free] == [] and all(r.locked[p] for p in others)
    assert sorted(r.locked[others[0]] + r.locked[others[1]]) == sorted(spec)
    # and without the locks the free player does not earn it (the check can fail)
    free_solve = solve("kuhn3", "cfr+", iterations=1000, check_every=1000)
    assert abs(free_solve.ev[free] - br) > 1e-2


def test_a_partial_lock_changes_only_its_cells() -> None:
    """Player 2 facing check–bet (``k b``) locked to call with J only: exactly J's cells
    there are locked (their sums and regrets never move, the average plays the lock);
    the node's other hands and every other node solve as usual. Unlocked, J folds there."""
    g = game("kuhn3")
    line = "k b"
    free = solve("kuhn3", "cfr+", iterations=300, check_every=300)
    assert free.strategy(line)["J"]["c"] < 0.05  # the lock bites
    r = solve("kuhn3", "cfr+", iterations=300, check_every=300, locks={line: {"J": {"c": 1}}})
    want = cells_of(g, line, ["J"])
    assert r.locks is not None and np.array_equal(r.locks.cells, want)
    assert [(s.player, s.line, s.hand, s.mix) for s in r.locks.sets] == [
        (2, "k b", "J", {"f": 0.0, "c": 1.0})
    ]
    assert r.locked == [[], [], ["k b"]]
    assert r.strategy(line)["J"] == {"f": 0.0, "c": 1.0}
    eng = r.engine
    assert isinstance(eng, MultiEngine)
    assert np.all(eng.storage.cumulative[want] == 0) and np.all(eng.storage.regrets[want] == 0)
    node = node_of(g, line)
    others = np.zeros(g.profile_size, dtype=bool)
    others[g.offset[node] : g.offset[node] + 2 * g.num_hands] = True
    others &= ~want
    assert np.all(eng.storage.cumulative[others].reshape(2, 3).sum(axis=0) > 0)
    assert json.loads(json.dumps(r.locks.spec)) == {"k b": {"J": {"c": 1}}}


def test_a_rank_names_both_cards_but_not_the_board_card() -> None:
    """Leduc: "Q" names Qs and Qh; after the board card Qs only Qh can be held."""
    g = game("leduc3")
    pre = build_multi_locks(g, {"r": {"Q": {"c": 1}}})
    assert [s.hand for s in pre.sets] == ["Qs", "Qh"] and {s.player for s in pre.sets} == {1}
    post = build_multi_locks(g, {"c c c d:Qs": {"Q": {"r": 1}, "*": {"c": 1}}})
    by_hand = {s.hand: s.mix for s in post.sets}
    assert set(by_hand) == {"Js", "Jh", "Qh", "Ks", "Kh", "As", "Ah"}
    assert by_hand["Qh"] == {"c": 0.0, "r": 1.0} and by_hand["Ks"] == {"c": 1.0, "r": 0.0}


def test_solved_takes_the_given_profile() -> None:
    g = game("kuhn3")
    sigma = solve("kuhn3", "cfr", iterations=20, check_every=20).average_profile()
    locks = build_multi_locks(g, {"b": "solved"}, sigma)
    cells = cells_of(g, "b", g.hand_names)
    np.testing.assert_array_equal(locks.strategy[cells], sigma[cells])
    assert set(locks.spec["b"]) == set(g.hand_names)


@pytest.mark.parametrize(
    ("name", "spec", "says"),
    [
        ("kuhn3", {"k x": {"k": 1}}, "lock 'k x': no such line in kuhn3: after 'k' come k, b"),
        ("kuhn3", {"k k k": {"k": 1}}, "lock 'k k k': is a terminal node"),
        ("kuhn3", {"k k k b": {"k": 1}}, "lock 'k k k b': no such line: the hand is over"),
        ("leduc3", {"c c c": {"c": 1}}, "lock 'c c c': is a chance node"),
        ("kuhn3", {"k b": {"k": 1}}, "lock 'k b': no action 'k' here (actions: f, c)"),
        ("kuhn3", {"root": {"k": 0.5}}, "lock 'root': probabilities sum to 0.5, not 1"),
        ("kuhn3", {"root": {"k": 1.5, "b": -0.5}}, "lock 'root': k: probability 1.5 is more"),
        ("kuhn3", {"root": {"b": -0.5, "k": 1.5}}, "lock 'root': b: probability -0.5 is neg"),
        ("kuhn3", {"root": {"k": "1"}}, "lock 'root': k: '1' is not a probability"),
        ("kuhn3", {"root": {"k": float("nan")}}, "lock 'root': k: nan is not a probability"),
        ("kuhn3", {"k": {"Z": {"k": 1}}}, "lock 'k', hand 'Z': no such hand (hands: J, Q, K, A)"),
        ("kuhn3", {"k": {"J": {"k": 0.2}}}, "lock 'k', hand 'J': probabilities sum to 0.2"),
        ("leduc3", {"c c c d:Qs": {"Qs": {"c": 1}}}, "hand 'Qs': names no hand that can be"),
        ("kuhn3", {"k": "solved"}, "lock 'k': 'solved' needs a solve"),
        ("kuhn3", {"k": "folded"}, "lock 'k': a mix is {action: probability}"),
        ("kuhn3", {"k": {"J": {"k": 1}, "b": 1}}, "lock 'k': mixes {action: probability} with"),
        ("kuhn3", {"k": {"k": 1}, " k ": {"b": 1}}, "lock 'k': is locked twice (also as 'k')"),
        ("kuhn3", {"k": {}}, "lock 'k': a mix is {action: probability} over k, b"),
        ("kuhn3", {7: {"k": 1}}, "lock '7': a line is action and card labels"),
    ],
)
def test_bad_locks_are_named_by_line(name: str, spec: dict, says: str) -> None:
    g = game(name)
    with pytest.raises(MultiLockError) as err:
        build_multi_locks(g, spec)
    assert says in str(err.value)
    with pytest.raises(ValueError, match=r"^lock "):  # the API says the same, solving nothing
        solve(name, "cfr", iterations=1, locks=spec)


def test_locks_must_be_a_mapping_and_not_with_external_sampling() -> None:
    with pytest.raises(TypeError, match="locks must be"):
        solve("kuhn3", "cfr", iterations=1, locks=[("k", {"k": 1})])  # type: ignore[call-overload]
    with pytest.raises(ValueError, match="locks: not with mccfr-es"):
        solve("kuhn3", "mccfr-es", iterations=1, locks={"k": {"k": 1}})
    r = solve("kuhn3", "cfr", iterations=1, locks={})  # none: as without
    assert r.locks is None and r.locked == [[], [], []]


def test_engine_lock_cells_checks_whole_sets_and_unlocks() -> None:
    g = game("kuhn3")
    eng = MultiEngine(g, make_rule("cfr+"))
    u = uniform_profile(g)
    half = cells_of(g, "k", ["J"])
    half[np.flatnonzero(half)[0]] = False  # one action of J only
    with pytest.raises(ValueError, match=r"at node \d+ \(k\) a hand is locked on some actions"):
        eng.lock_cells(half, u)
    with pytest.raises(ValueError, match="does not sum to 1"):
        eng.lock_cells(cells_of(g, "k", ["J"]), u * 0.5)
    eng.lock(build_multi_locks(g, {"k": {"J": {"b": 1}}}))
    assert eng.locks is not None and eng.average_profile()[cells_of(g, "k", ["J"])].tolist() == [
        0.0,
        1.0,
    ]
    eng.lock(None)
    assert eng.locks is None and eng.average_profile()[cells_of(g, "k", ["J"])].tolist() == [
        0.5,
        0.5,
    ]
    eng.lock_players([1], u)  # whole players, as before
    assert eng.locked_players == (1,)
