"""The three-way turn spot (solver/games/holdem3_turn.py, issue 49): its checks name the
field, its size is known (and refused) before the tree is laid out, and its deal-list
reference (turn3_multigame) equals a plain recursion over every deal, river card and line."""

from __future__ import annotations

import functools
import itertools
from dataclasses import replace

import numpy as np
import pytest

from solver.cfr.holdem3_engine import River3Engine
from solver.cfr.holdem3_turn_build import build_turn3
from solver.cfr.layout import make_storage
from solver.cfr.rules import make_rule
from solver.games import holdem3_turn
from solver.games.holdem3_turn import (
    Turn3Spec,
    checked_turn,
    estimate_turn,
    turn3_multigame,
    validate_turn,
)
from solver.games.model import Tree
from solver.games.multiway import MultiGame
from solver.games.nashconv import nash_report
from solver.games.spec import SpecError
from solver.poker.cards import COMBOS, card_str, parse_board
from solver.poker.handeval import rank_hands
from solver.tree.kinds import CHANCE, DECISION, FIXED

SMALL = {"bets": "a", "raises": "a", "raise_cap": 1}


def random_spot(seed: int, shared: bool, **sizes: object) -> Turn3Spec:
    """A random turn board and three ranges of 5 to 10 combos with random weights: ``shared``
    from one pool of 9 cards (many share a card), else from three disjoint pools. The
    weights are irregular (4 decimals): with round ones (1, ½, ¼) two actions can be worth
    exactly the same (a call winning a third of the time against ½ and 1), and then the sign
    of a regret is the rounding's, which regret matching turns into any strategy — two
    correct builds would part ways there."""
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    board = " ".join(card_str(int(c)) for c in deck[:4])
    deck = deck[4:]
    texts = []
    for p in range(3):
        pool = deck[:9] if shared else deck[8 * p : 8 * p + 8]
        combos = list(itertools.combinations(sorted(pool.tolist()), 2))
        pick = rng.choice(len(combos), size=int(rng.integers(5, 11)), replace=False)
        parts = []
        for k in pick.tolist():
            a, b = combos[k]
            parts.append(f"{card_str(a)}{card_str(b)}:{rng.uniform(0.2, 1.0):.4f}")
        texts.append(", ".join(parts))
    kw = dict(SMALL, **sizes)
    return Turn3Spec(board, texts[0], texts[1], texts[2], pot=60, stack=150, **kw)  # type: ignore[arg-type]


BASE = Turn3Spec("Ks 7d 2c 9h", "AA, KK", "QQ, JJ", "TT, 99", pot=60, stack=200, **SMALL)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("change", "field", "words"),
    [
        ({"board": "Ks 7d 2c 9h 3s"}, "board", "four cards"),
        ({"board": "Ks 7d 2c 2c"}, "board", ""),
        ({"range0": "7d7s"}, "range0", "no combos"),  # the board holds 7d
        ({"range0": "AhAc", "range1": "AhAd"}, "range1", "shares a card"),
        ({"river_bets": "2.5x"}, "river_bets", ""),
        ({"river_raises": "3e"}, "river_raises", ""),
        ({"river_bets": 5}, "river_bets", "size text"),
        ({"bets": "2.5x"}, "bets", ""),
        ({"pot": -1}, "pot", ""),
        ({"stack": 0.5}, "stack", ""),
    ],
)
def test_bad_fields_are_named(change: dict[str, object], field: str, words: str) -> None:
    spec = replace(BASE, **change)  # type: ignore[arg-type]
    with pytest.raises(SpecError) as err:
        validate_turn(spec)
    assert err.value.field == field
    assert words in err.value.message


def test_not_a_turn_spec() -> None:
    with pytest.raises(TypeError, match="Turn3Spec"):
        validate_turn("Ks 7d 2c 9h")  # type: ignore[arg-type]


def test_over_the_memory_cap_refused_before_the_tree_is_laid_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def never(*_a: object) -> None:
        raise AssertionError("the whole tree was built")

    monkeypatch.setattr(holdem3_turn, "turn_tree", never)
    spec = replace(BASE, bets="50%, 100%, a", raises="100%, a", raise_cap=3, max_memory_mb=1)
    with pytest.raises(SpecError) as err:
        checked_turn(spec)
    assert err.value.field == "max_memory_mb" and "MB" in err.value.message
    with pytest.raises(SpecError) as err:
        turn3_multigame(spec)
    assert err.value.field == "max_memory_mb"


def test_the_estimate_is_the_built_arrays() -> None:
    spec = random_spot(3, True, bets="50%, a", river_bets="100%")
    est = estimate_turn(spec)
    built = build_turn3(spec)
    tree = built.game.tree
    assert est.nodes == tree.kind.size
    assert est.decision_nodes == tuple(int(np.sum(tree.player == p)) for p in range(3))
    assert sum(est.storage_entries) == built.game.action_size
    storage = make_storage(built.game, make_rule("cfr"), "float64")
    assert 2 * 8 * sum(est.storage_entries) == storage.regrets.nbytes + storage.cumulative.nbytes
    assert est.chance_nodes == int(np.sum(tree.kind == CHANCE)) and est.river_cards == 48
    assert est.depth >= 1 + int(np.max(_depths(tree)))
    engine = River3Engine(built, make_rule("cfr"))
    arrays = [*engine.storage, *engine.scratch, *built.arrays.tree, *built.arrays.hands,
              *built.arrays.boards, *built.arrays.multi, *built.arrays.multi.sd3]  # fmt: skip
    real = sum(a.nbytes for a in arrays if isinstance(a, np.ndarray))
    assert real <= est.memory_bytes <= 1.1 * real


def _depths(tree: Tree) -> np.ndarray:
    d = np.zeros(tree.kind.size, dtype=np.int64)
    for n in range(tree.kind.size):
        first = int(tree.first_child[n])
        if first >= 0:
            d[first : first + int(tree.num_children[n])] = d[n] + 1
    return d


def test_too_many_deals_refused() -> None:
    with pytest.raises(SpecError) as err:
        turn3_multigame(random_spot(1, False), max_deals=10)
    assert err.value.field == "max_deals"


def brute_values(mg: MultiGame, spec: Turn3Spec) -> np.ndarray:
    """Each player's expected chips under the uniform profile by plain recursion over every
    triple of hands (chance ∝ w0·w1·w2), every river card left by the board and the three
    hands (each as likely), every line (each action as likely) — the 7-card evaluator at the
    showdowns."""
    setup = validate_turn(spec)
    board = parse_board(spec.board)
    combos, weights = setup.base.combos, setup.base.hand_weights
    triples = []
    for i0, i1, i2 in itertools.product(*(range(c.size) for c in combos)):
        cards = [*COMBOS[combos[0][i0]], *COMBOS[combos[1][i1]], *COMBOS[combos[2][i2]]]
        if len(set(cards)) == 6:
            w = weights[0][i0] * weights[1][i1] * weights[2][i2]
            triples.append((w, [combos[p][i] for p, i in enumerate((i0, i1, i2))], set(cards)))
    total = sum(w for w, _, _ in triples)

    @functools.cache  # (the same at every showdown of a river)
    def strengths(river: int, hands: tuple[int, ...]) -> np.ndarray:
        return rank_hands(np.array([*board, river]), COMBOS[np.array(hands)])

    def value(n: int, river: int, hands: list[int], held: set[int]) -> np.ndarray:
        kind = mg.kind[n]
        kids = list(range(mg.first_child[n], mg.first_child[n] + mg.num_children[n]))
        if kind == DECISION:
            return np.mean([value(k, river, hands, held) for k in kids], axis=0)
        if kind == CHANCE:
            dealt = [(k, int(mg.board_cards[mg.board[k], 4])) for k in kids]
            left = [(k, c) for k, c in dealt if c not in held]
            assert len(left) == 42
            return np.mean([value(k, c, hands, held) for k, c in left], axis=0)
        live = mg.active[n]
        pot = mg.contrib[n].sum()
        if kind == FIXED:
            won = live.astype(float)
        else:
            s = np.where(live, strengths(river, tuple(hands)), -1)
            won = (s == s.max()).astype(float)
        return pot * won / won.sum() - mg.contrib[n]

    out = np.zeros(3)
    for w, hands, held in triples:
        out += w / total * value(0, -1, hands, held)
    return out


@pytest.mark.parametrize(("seed", "shared"), [(1, True), (2, False)])
def test_the_deal_list_equals_a_plain_recursion(seed: int, shared: bool) -> None:
    spec = random_spot(seed, shared)
    mg = turn3_multigame(spec)
    assert np.allclose(mg.payoff.sum(axis=1), 0.0, atol=1e-9)
    assert mg.deal_valid[0].all() and not mg.deal_valid[1:].all()
    uniform = np.zeros(mg.profile_size)
    for n in np.flatnonzero(mg.kind == DECISION):
        na = int(mg.num_children[n])
        uniform[mg.offset[n] : mg.offset[n] + na * mg.num_hands] = 1.0 / na
    report = nash_report(mg, uniform)
    np.testing.assert_allclose(report.value, brute_values(mg, spec), rtol=0, atol=1e-9)
