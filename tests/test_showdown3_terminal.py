"""The walk's three-way river terminal (solver/cfr/showdown3_terminal.py) against a brute force
over every card-disjoint triple of hands written here, and against the numpy showdowns of
solver/poker/showdown3.py (themselves checked against a brute force): every traverser, every
terminal kind (three-way showdown, two-way showdown after each player's fold, a folded
traverser, one player left), random small ranges and reaches with shared cards, boards with
ties, full houses and the board playing."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from solver.cfr.showdown3_terminal import showdown3_tables, showdown3_values
from solver.poker.cards import COMBO_INDEX, COMBOS, NUM_COMBOS, parse_board, parse_cards
from solver.poker.handeval import rank_hands
from solver.poker.showdown3 import fold_showdown_values, showdown_values

# (active players) of the terminals every spot carries: a showdown of three, each player's
# fold leaving two, each player left alone
ACTIVE = [
    (True, True, True),
    (False, True, True),
    (True, False, True),
    (True, True, False),
    (True, False, False),
    (False, True, False),
    (False, False, True),
]


def brute_force(
    board: np.ndarray,
    combos: list[np.ndarray],
    weights: list[np.ndarray],
    reach: np.ndarray,
    contrib: np.ndarray,
    active: tuple[bool, ...],
    trav: int,
) -> np.ndarray:
    """v_t(h) = Σ over the disjoint triples with t holding h of the deal's chance
    (w0 w1 w2 / Z) times the others' reaches times t's payoff, triple by triple."""
    s = rank_hands(board, COMBOS)
    on_board = set(int(c) for c in board)
    z = 0.0
    out = np.zeros(reach.shape[1])
    pot = float(contrib.sum())
    for hs in itertools.product(*(range(len(c)) for c in combos)):
        cards = [tuple(int(x) for x in COMBOS[combos[p][hs[p]]]) for p in range(3)]
        flat = [c for cs in cards for c in cs]
        if len(set(flat)) != 6 or on_board & set(flat):
            continue
        chance = weights[0][hs[0]] * weights[1][hs[1]] * weights[2][hs[2]]
        z += chance
        strengths = [s[combos[p][hs[p]]] if active[p] else -2 for p in range(3)]
        best = max(strengths)
        winners = [p for p in range(3) if active[p] and strengths[p] == best]
        pay = (pot / len(winners) if trav in winners else 0.0) - contrib[trav]
        others = [reach[p, hs[p]] for p in range(3) if p != trav]
        out[hs[trav]] += chance * others[0] * others[1] * pay
    return out / z


def numpy_values(
    board: np.ndarray,
    combos: list[np.ndarray],
    weights: list[np.ndarray],
    reach: np.ndarray,
    contrib: np.ndarray,
    active: tuple[bool, ...],
    trav: int,
    z: float,
) -> np.ndarray:
    """The same values from the numpy showdowns over ranges ``w · π``."""
    ranges = np.zeros((3, NUM_COMBOS))
    for p in range(3):
        ranges[p, combos[p]] = weights[p] * reach[p, : len(combos[p])]
    pot = float(contrib.sum())
    live = [p for p in range(3) if active[p]]
    if len(live) == 3:
        full = showdown_values(board, ranges, pot, contrib)[trav]
    elif len(live) == 2:
        folded = next(p for p in range(3) if not active[p])
        full = fold_showdown_values(board, ranges, pot, contrib, folded)[trav]
    else:  # the pair mass, from a fold of the traverser that costs 1 chip, times the payoff
        one = np.zeros(3)
        one[trav] = 1.0
        pairs = -fold_showdown_values(board, ranges, 1.0, one, trav)[trav]
        full = pairs * ((pot if active[trav] else 0.0) - contrib[trav])
    out = np.zeros(reach.shape[1])
    n = len(combos[trav])
    out[:n] = full[combos[trav]] * weights[trav] / z
    return out


def combos_from(cards: list[int]) -> list[int]:
    return [int(COMBO_INDEX[a, b]) for a, b in itertools.combinations(sorted(cards), 2)]


def spot(
    rng: np.random.Generator, board: np.ndarray, pool: list[int], sizes: tuple[int, int, int]
) -> tuple[list[np.ndarray], list[np.ndarray], np.ndarray, np.ndarray]:
    """Hand lists drawn from ``pool`` (shared cards), weights, reach rows (some zeros),
    contributions per terminal."""
    combos = [rng.choice(pool, size=n, replace=False).astype(np.int64) for n in sizes]
    weights = [rng.integers(1, 9, size=n) / 8.0 for n in sizes]
    width = max(sizes)
    reach = rng.random((3, width))
    reach[rng.random((3, width)) < 0.2] = 0.0
    contrib = rng.integers(1, 7, size=(len(ACTIVE), 3)).astype(np.float64)
    return combos, weights, reach, contrib


def check(
    board: np.ndarray,
    combos: list[np.ndarray],
    weights: list[np.ndarray],
    reach: np.ndarray,
    contrib: np.ndarray,
) -> None:
    active = np.array(ACTIVE, dtype=bool)
    nodes = np.arange(len(ACTIVE)) * 2 + 1  # terminals among other nodes
    c_all = np.zeros((2 * len(ACTIVE) + 1, 3))
    a_all = np.ones((2 * len(ACTIVE) + 1, 3), dtype=bool)
    c_all[nodes], a_all[nodes] = contrib, active
    tables = showdown3_tables(board, combos, weights, c_all, a_all, nodes)
    z = 1.0 / tables.inv_z
    for row, node in enumerate(nodes):
        for trav in range(3):
            args = (board, combos, weights, reach, contrib[row], ACTIVE[row], trav)
            fast = showdown3_values(tables, int(node), trav, reach)
            slow = brute_force(*args)
            scale = max(np.abs(slow).max(), 1e-300)
            assert np.abs(fast - slow).max() <= 1e-12 * scale, (ACTIVE[row], trav)
            ref = numpy_values(*args, z)
            assert np.abs(fast - ref).max() <= 1e-12 * scale, (ACTIVE[row], trav)
    assert not tables.mat.any() and not tables.vec.any()  # the work arrays left zero


@pytest.mark.parametrize("seed", range(6))
def test_random_ranges_with_shared_cards(seed: int) -> None:
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    board = np.sort(deck[:5])
    pool = combos_from(list(deck[5:13]))  # 8 cards, 28 combos: many shared cards
    sizes = tuple(int(x) for x in rng.integers(4, 12, size=3))
    check(board, *spot(rng, board, pool, sizes))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("board", "cards"),
    [
        ("AsKsQsJsTs", "2c3c4c5c6c7d8d"),  # the board plays: every showdown a three-way split
        ("AhAdKcKd2s", "AsAcKhKs3c3d2c"),  # two-way and three-way ties among full houses
        ("9h8h7h2c2d", "ThJh6h5hTc9c8c"),  # straight flushes, straights, split kickers
    ],
)
def test_ties_and_full_houses(board: str, cards: str) -> None:
    rng = np.random.default_rng(7)
    b = np.array(parse_board(board))
    pool = combos_from(list(parse_cards(cards)))
    check(b, *spot(rng, b, pool, (9, 12, 7)))


def test_hands_meeting_the_board_are_worth_nothing() -> None:
    """A hand holding a board card is dealt never: 0, and it removes no card."""
    rng = np.random.default_rng(11)
    b = np.array(parse_board("Kd9s5h3c2c"))
    pool = combos_from(list(parse_cards("KdAhAsQcQdJhJsTc")))  # some combos hold the Kd
    combos, weights, reach, contrib = spot(rng, b, pool, (8, 9, 10))
    check(b, combos, weights, reach, contrib)
    tables = showdown3_tables(b, combos, weights, contrib, np.array(ACTIVE), np.arange(7))
    for p in range(3):
        dead = [j for j, c in enumerate(combos[p]) if int(parse_cards("Kd")[0]) in COMBOS[c]]
        assert np.all(tables.weight[p, dead] == 0.0)
        values = showdown3_values(tables, 0, p, reach)
        assert np.all(values[dead] == 0.0)


def test_bad_input_is_refused_by_name() -> None:
    b = np.array(parse_board("Kd9s5h3c2c"))
    pool = [combos_from(list(parse_cards(c))) for c in ("AhAsAd", "QcQdQh", "JhJsJc")]
    combos = [np.array(c) for c in pool]  # three hands each, no card shared between players
    w = [np.ones(3)] * 3
    c, a, n = np.ones((2, 3)), np.ones((2, 3), dtype=bool), np.array([1])
    with pytest.raises(ValueError, match="combos: player 1 lists a combo twice"):
        showdown3_tables(b, [combos[0], np.array([pool[1][0]] * 2), combos[2]], w, c, a, n)
    with pytest.raises(ValueError, match="combos: player 0's combo indices"):
        showdown3_tables(b, [np.array([1326]), combos[1], combos[2]], w, c, a, n)
    with pytest.raises(ValueError, match="weights: player 2 has 3 hands but 2"):
        showdown3_tables(b, combos, [w[0], w[1], np.ones(2)], c, a, n)
    with pytest.raises(ValueError, match="weights: player 0's weights"):
        showdown3_tables(b, combos, [-w[0], w[1], w[2]], c, a, n)
    with pytest.raises(ValueError, match="board"):
        showdown3_tables(b[:4], combos, w, c, a, n)
    with pytest.raises(ValueError, match="contrib"):
        showdown3_tables(b, combos, w, -c, a, n)
    with pytest.raises(ValueError, match="active"):
        showdown3_tables(b, combos, w, c, np.zeros((2, 3), dtype=bool), n)
    with pytest.raises(ValueError, match="term_nodes"):
        showdown3_tables(b, combos, w, c, a, np.array([2]))
    one = [np.array([pool[0][0]])] * 3  # the same combo for all: no deal fits
    with pytest.raises(ValueError, match="weights: no three hands"):
        showdown3_tables(b, one, [np.ones(1)] * 3, c, a, n)
    tables = showdown3_tables(b, combos, w, c, a, n)
    with pytest.raises(ValueError, match="node: 0 is not a terminal"):
        showdown3_values(tables, 0, 0, np.ones((3, 3)))
    with pytest.raises(ValueError, match="reach: expected"):
        showdown3_values(tables, 1, 0, np.ones((2, 3)))
