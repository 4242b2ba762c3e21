"""Per-hand locks that name single hands (what profiles and saved solves write, hundreds of
hands a line) are resolved in one numpy pass per line (solver.lockspec._named_hands): the
same LockSet as the one-entry-at-a-time resolution, bit for bit — checked against a naive
copy of that resolution written here (Game.map_hand per hand, each mix summed and divided
on its own), on lines through suit-isomorphic cards, and against the module's own per-entry
path in the same session; bad entries get the message naming the first bad hand."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest

from solver.games import Game
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.toy import leduc
from solver.lockspec import LockError, build_locks, parse_line


@functools.cache
def _river_iso_turn() -> Game:
    """A turn whose river cards of hearts and clubs are suit-isomorphic (board AsKs7s2d)."""
    spec = HoldemSpec(board="AsKs7s2d", pot=100, stack=200,
                      oop_range="AA,KK,AK,QJs,T9s,77,22", ip_range="QQ-99,AQ,KQs,JTs,76s",
                      bets="50%, a", raises="a", big_blind=100)  # fmt: skip
    return build_holdem(spec)


def _naive(game: Game, spec: dict[str, dict[str, dict[str, Any]]]) -> tuple[np.ndarray, ...]:
    """(node flags, hand flags, strategy) of a spec naming single hands and "*": each hand
    found by name and mapped into the stored node's frame one at a time, its mix a vector
    over the node's actions divided by its own sum."""
    t = game.tree
    node_flag = np.zeros(game.num_nodes, dtype=np.int8)
    hand_flag = np.zeros(max(game.info_size, 1), dtype=np.int8)
    strategy = np.zeros(max(game.action_size, 1))
    for line, mix in spec.items():
        node, cmap = game.locate(parse_line(line))
        p = int(t.player[node])
        off, na, nh = game.block(node)
        actions = game.action_labels(node)
        valid = game.valid_hands(node, p)
        table = np.zeros((na, nh))
        locked = np.zeros(nh, dtype=bool)

        def vector(m: dict[str, Any], actions: list[str] = actions) -> np.ndarray:
            v = np.zeros(len(actions))
            for a, x in m.items():
                v[actions.index(a)] = float(x)
            return v / float(v.sum())

        for hand, m in mix.items():
            if hand != "*":
                h = game.map_hand(p, list(game.hand_names[p]).index(hand), cmap)
                table[:, h] = vector(m)
                locked[h] = True
        if "*" in mix:
            others = valid & ~locked
            table[:, others] = vector(mix["*"])[:, None]
            locked |= others
        node_flag[node] = 1
        hand_flag[int(t.ioffset[node]) : int(t.ioffset[node]) + nh] = locked
        strategy[off : off + na * nh] = np.where(locked[None, :], table, 0.0).reshape(-1)
    return node_flag, hand_flag, strategy


def _random_spec(game: Game, lines: list[str], seed: int, rest: bool) -> dict[str, Any]:
    """Per-hand mixes on ``lines`` for most hands each line's node can hold (in the line's
    own card frame), over random subsets of the actions: uneven probabilities, some summing
    to 1 within the tolerance but not exactly, some integer 0/1 mixes."""
    rng = np.random.default_rng(seed)
    spec: dict[str, Any] = {}
    for line in lines:
        node, cmap = game.locate(parse_line(line))
        p = int(game.tree.player[node])
        actions = game.action_labels(node)
        valid = game.valid_hands(node, p)
        names = list(game.hand_names[p])
        mix: dict[str, Any] = {}
        for h in rng.permutation(len(names)):
            if not valid[game.map_hand(p, int(h), cmap)] or rng.random() < 0.2:
                continue
            kind = rng.random()
            if kind < 0.15:
                m: dict[str, Any] = {str(rng.choice(actions)): 1}
            else:
                chosen = [a for a in actions if rng.random() < 0.7] or [actions[0]]
                x = rng.random(len(chosen)) * 10.0 ** rng.integers(-9, 1, len(chosen))
                x /= x.sum()
                if kind < 0.4:
                    x *= 1.0 + rng.uniform(-9e-7, 9e-7)  # within the tolerance, not exactly 1
                m = {a: float(v) for a, v in zip(chosen, x, strict=True)}
            mix[names[h]] = m
        if rest:
            mix["*"] = {actions[-1]: 0.25, actions[0]: 0.75}
        spec[line] = mix
    return spec


CASES = [
    ("turn", ["root", "k", "b:100", "k k d:Jh", "k k d:Qc", "k k d:3c b:100", "k k d:9d"]),
    ("leduc", ["root", "k", "b:2", "k k d:Qs", "k k d:Kh", "b:2 c d:Qh b:4"]),
]


def _game(name: str) -> Game:
    return _river_iso_turn() if name == "turn" else leduc()


@pytest.mark.parametrize(("name", "lines"), CASES)
@pytest.mark.parametrize("rest", [False, True])
def test_named_hand_locks_equal_the_naive_resolution_bit_for_bit(
    name: str, lines: list[str], rest: bool
) -> None:
    game = _game(name)
    for seed in range(3):
        spec = _random_spec(game, lines, seed, rest)
        got = build_locks(game, spec).locks
        want = _naive(game, spec)
        for a, b in zip((got.node, got.hand, got.strategy), want, strict=True):
            assert np.asarray(a).dtype == b.dtype and np.array_equal(np.asarray(a), b), name


@pytest.mark.parametrize(("name", "lines"), CASES)
def test_named_hand_locks_equal_the_per_entry_path(name: str, lines: list[str]) -> None:
    """The same spec with NumPy floats (which only the per-entry path takes) resolves to
    the same arrays and the same saved spec."""
    game = _game(name)
    spec = _random_spec(game, lines, 7, True)
    slow = {
        line: {h: {a: np.float64(x) for a, x in m.items()} for h, m in mix.items()}
        for line, mix in spec.items()
    }
    fast, ref = build_locks(game, spec), build_locks(game, slow)
    for field in ("node", "hand", "strategy"):
        assert np.array_equal(getattr(fast.locks, field), getattr(ref.locks, field)), field
    assert fast.spec == ref.spec == spec


def _bad(game: Game, line: str, entry: tuple[str, Any]) -> dict[str, Any]:
    """A long good per-hand line with ``entry`` in the middle of it."""
    mix = _random_spec(game, [line], 1, False)[line]
    items = list(mix.items())
    half = len(items) // 2
    return {line: dict([*items[:half], entry, *items[half:]])}


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        (("AhKd", {"k": -0.5, "b:100": 1.5}), "hand 'AhKd': k: probability -0.5 is negative"),
        (("AhKd", {"k": 0.5}), "hand 'AhKd': probabilities sum to 0.5, not 1"),
        (("AhKd", {"c": 1.0}), "hand 'AhKd': no action 'c' here"),
        (("AhKd", {"k": True}), "hand 'AhKd': k: True is not a probability"),
        (("AhKd", {"k": float("nan")}), "hand 'AhKd': k: nan is not a probability"),
        (("AhKd", {"k": 10**400}), "hand 'AhKd': k: .* is not a probability"),
        (("AhKd", {}), "hand 'AhKd': a mix is"),
        (("AsKd", {"k": 1.0}), "hand 'AsKd': names no hand that can be at this node"),
        (("AhKx", {"k": 1.0}), "hand 'AhKx': not a hand, range or hand class"),
    ],
)
def test_a_bad_entry_among_many_is_named(entry: tuple[str, Any], words: str) -> None:
    game = _river_iso_turn()
    spec = _bad(game, "root", entry)
    with pytest.raises(LockError, match=f"^lock 'root', {words}"):
        build_locks(game, spec)


def test_a_later_entry_overrides_a_range_and_the_first_bad_entry_is_named() -> None:
    game = _river_iso_turn()
    names = list(game.hand_names[0])
    lock = build_locks(game, {"root": {"AA": {"k": 1.0}, "AdAh": {"b:200": 1.0}}})
    off, na, nh = game.block(0)
    table = lock.locks.strategy[off : off + na * nh].reshape(na, nh)
    assert table[:, names.index("AdAh")].tolist() == [0.0, 0.0, 1.0]
    assert table[:, names.index("AcAh")].tolist() == [1.0, 0.0, 0.0]
    spec = {"root": {"AdAh": {"k": 2.0}, "AcAh": {"x": 1.0}}}  # two bad: the first is named
    with pytest.raises(LockError, match="hand 'AdAh': probabilities sum to 2"):
        build_locks(game, spec)
