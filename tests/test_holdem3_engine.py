"""The three-way river solved per hand (solver/cfr/holdem3_build.py: terminals by the
strength-order sweep, hand lists of each player's own length) against the same spot as a
deal list (solver.games.holdem3.river3_multigame through build_multi): after every iteration
of CFR and CFR+ the same regrets and strategy sums, hand for hand (mapped by combo), and the
same values, best responses and Nash distances, to 1e-10."""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
import pytest
from multiway_helpers import deal_list_profile

from solver.cfr.holdem3_build import build_holdem3
from solver.cfr.holdem3_engine import River3Engine
from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.games.holdem3 import River3Spec, river3_multigame, validate
from solver.games.model import DECISION
from solver.games.nashconv import nash_report
from solver.poker.cards import card_str

SMALL: dict[str, Any] = {"bets": "50%", "raises": "a", "raise_cap": 1}
TOL = 1e-10


def random_spot(seed: int, shared: bool, board: str | None = None) -> River3Spec:
    """Three ranges of 5 to 12 combos with random weights: ``shared``, from one pool of 9
    cards (many share a card), else from three disjoint pools."""
    rng = np.random.default_rng(seed)
    deck = rng.permutation(52)
    if board is not None:  # a given board: the pools from the cards it leaves
        taken = {c for c in deck if card_str(int(c)) in board.split()}
        deck = np.array([c for c in deck if c not in taken])
        board_text = board
    else:
        board_text = " ".join(card_str(int(c)) for c in deck[:5])
        deck = deck[5:]
    texts = []
    for p in range(3):
        pool = deck[:9] if shared else deck[8 * p : 8 * p + 8]
        combos = list(itertools.combinations(sorted(pool.tolist()), 2))
        pick = rng.choice(len(combos), size=int(rng.integers(5, 13)), replace=False)
        parts = []
        for k in pick.tolist():
            a, b = combos[k]
            w = float(rng.choice([1.0, 0.5, 0.25, 0.75]))
            parts.append(f"{card_str(a)}{card_str(b)}:{w}")
        texts.append(", ".join(parts))
    return River3Spec(board_text, texts[0], texts[1], texts[2], pot=60, stack=150, **SMALL)


class Pair:
    """The two builds of one spot and the map from the fast one's cells to the deal list's."""

    def __init__(self, spec: River3Spec, rule: str) -> None:
        self.fast = River3Engine(spec, make_rule(rule))
        self.mgame = river3_multigame(spec)
        self.slow = MultiEngine(self.mgame, make_rule(rule))
        union = np.asarray(self.mgame.meta["union"])
        combos = validate(spec).combos
        self.combos = combos
        # per player, its hand j of the fast build is hand where[p][j] of the deal list's
        self.where = [np.searchsorted(union, c) for c in combos]
        tf, ts = self.fast.game.tree, self.slow.game.tree
        h = self.mgame.num_hands
        fast_cells, slow_cells = [], []
        for n in np.flatnonzero(tf.kind == DECISION):
            p = int(tf.player[n])
            nh = combos[p].size
            for a in range(int(tf.num_children[n])):
                fast_cells.append(tf.offset[n] + a * nh + np.arange(nh))
                slow_cells.append(ts.offset[n] + a * h + self.where[p])
        self.fast_cells = np.concatenate(fast_cells)
        self.slow_cells = np.concatenate(slow_cells)
        assert self.fast_cells.size == self.fast.game.action_size  # every cell mapped once

    def profile_for_slow(self, sigma: np.ndarray) -> np.ndarray:
        """The fast build's profile in the deal list's layout (hands a player never holds:
        uniform)."""
        return deal_list_profile(self.mgame, self.fast.game.tree.offset, self.combos, sigma)


def close(fast: np.ndarray, slow: np.ndarray) -> bool:
    scale = max(1.0, float(np.abs(slow).max()))
    return bool(np.abs(fast - slow).max() <= TOL * scale)


@pytest.mark.parametrize(
    ("seed", "shared", "board"),
    [
        (1, True, None),
        (2, False, None),
        (3, True, None),
        (4, True, "As Ks Qs Js Ts"),  # the board plays: every showdown split
        (5, True, "Ah Ad Kc Kd 2s"),  # full houses that tie
    ],
)
@pytest.mark.parametrize("rule", ["cfr", "cfr+"])
def test_fast_build_equals_the_deal_list_iteration_by_iteration(
    seed: int, shared: bool, board: str | None, rule: str
) -> None:
    pair = Pair(random_spot(seed, shared, board), rule)
    for it in range(4):
        pair.fast.iterate(1)
        pair.slow.iterate(1)
        for name in ("regrets", "cumulative"):
            f = getattr(pair.fast.storage, name)[pair.fast_cells]
            s = getattr(pair.slow.storage, name)[pair.slow_cells]
            assert close(f, s), (name, it)
        for p in range(3):  # each traverser's root values, hand for hand
            f = pair.fast.pass_values[p, : pair.where[p].size]
            assert close(f, pair.slow.pass_values[p, pair.where[p]]), ("values", p, it)
        mine, ref = pair.fast.engine_report(), pair.slow.engine_report()
        for field in ("value", "best_response", "nash_distance"):
            assert close(getattr(mine, field), getattr(ref, field)), (field, it)
    # and the independent evaluator on the fast build's average profile, mapped
    ev = nash_report(pair.mgame, pair.profile_for_slow(pair.fast.average_profile()))
    mine = pair.fast.engine_report()
    assert close(mine.nash_distance, ev.nash_distance)
    assert close(mine.value, ev.value)
    assert mine.nash_distance.max() > 1e-3  # (not a trivial spot: somebody can gain)


def test_hand_lists_have_each_players_length() -> None:
    spec = random_spot(6, True)
    built = build_holdem3(spec)
    combos = validate(spec).combos
    assert list(built.game.hands.num_hands) == [c.size for c in combos]
    assert built.game.hand_names[0][0] == "".join(
        card_str(int(x)) for x in built.arrays.multi.sd3.cards[0, 0]
    )
    with pytest.raises(ValueError, match="profile: expected"):
        River3Engine(built, make_rule("cfr")).lock_players([0], np.zeros(1))


def test_one_kernel_type_for_heads_up_and_one_for_three_players() -> None:
    """Heads-up games hand the walk arrays of one Numba type, and the toy and deal-list games
    and the river spot arrays of one other: one signature of the walk more for three
    players, and none of their code in the heads-up ones (issue 50)."""
    from numba import typeof

    from solver.cfr.layout import game_arrays
    from solver.cfr.multi_build import build_multi
    from solver.games import make_game
    from solver.games.multiway import multi_game

    heads_up = typeof(game_arrays(make_game("kuhn")))
    three = typeof(build_multi(multi_game("kuhn3")).arrays)
    assert three != heads_up
    assert typeof(game_arrays(make_game("leduc"))) == heads_up
    assert typeof(build_multi(multi_game("leduc3"), terminals="deals").arrays) == three
    assert typeof(build_holdem3(random_spot(6, True)).arrays) == three
