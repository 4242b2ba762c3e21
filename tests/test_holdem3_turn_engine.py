"""The three-way turn solved per hand (solver/cfr/holdem3_turn_build.py: card removal in the
rows at the river's chance nodes, terminals by the strength sweep of each river board, Z the
turn's) against the same spot as a deal list (turn3_multigame through build_multi): after
every iteration of CFR and CFR+ the same regrets and strategy sums, hand for hand, and the
same values, best responses and Nash distances, to 1e-10; and the engine's Nash distances
equal the independent evaluator's (solver.games.nashconv) on the deal list."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from multiway_helpers import deal_list_profile
from test_holdem3_turn import random_spot

from solver.cfr.holdem3_engine import River3Engine
from solver.cfr.holdem3_turn_build import build_turn3
from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.games.holdem3_turn import Turn3Spec, turn3_multigame, validate_turn
from solver.games.model import DECISION
from solver.games.nashconv import nash_report

TOL = 1e-10


class Pair:
    """The two builds of one spot and the map from the fast one's cells to the deal list's
    (``reach``: the cells whose hand misses the node's board; a hand holding the river card
    is never dealt there)."""

    def __init__(self, spec: Turn3Spec, rule: str) -> None:
        self.fast = River3Engine(build_turn3(spec), make_rule(rule))
        self.mgame = turn3_multigame(spec)
        self.slow = MultiEngine(self.mgame, make_rule(rule))
        union = np.asarray(self.mgame.meta["union"])
        combos = validate_turn(spec).base.combos
        self.combos = combos
        self.where = [np.searchsorted(union, c) for c in combos]
        tf, ts = self.fast.game.tree, self.slow.game.tree
        valid = self.fast.arrays.boards.valid
        h = self.mgame.num_hands
        fast_cells, slow_cells, reach = [], [], []
        for n in np.flatnonzero(tf.kind == DECISION):
            p = int(tf.player[n])
            nh = combos[p].size
            for a in range(int(tf.num_children[n])):
                fast_cells.append(tf.offset[n] + a * nh + np.arange(nh))
                slow_cells.append(ts.offset[n] + a * h + self.where[p])
                reach.append(valid[tf.board[n], p, :nh] > 0.0)
        self.fast_cells = np.concatenate(fast_cells)
        self.slow_cells = np.concatenate(slow_cells)
        self.reach = np.concatenate(reach)
        assert self.fast_cells.size == self.fast.game.action_size  # every cell mapped once
        assert not self.reach.all()  # (some hands hold a river card)

    def profile_for_slow(self, sigma: np.ndarray) -> np.ndarray:
        """The fast build's profile in the deal list's layout (hands a player never holds:
        uniform)."""
        return deal_list_profile(self.mgame, self.fast.game.tree.offset, self.combos, sigma)


def close(fast: np.ndarray, slow: np.ndarray) -> bool:
    scale = max(1.0, float(np.abs(slow).max()))
    return bool(np.abs(fast - slow).max() <= TOL * scale)


SPOTS: list[tuple[int, bool, dict[str, Any]]] = [
    (1, True, {}),  # all in or check, one street after another
    (2, False, {}),
    (3, True, {"bets": "50%, a"}),  # two-player rivers after a turn fold
    (4, True, {"bets": "50%", "river_bets": "100%, a"}),
]


@pytest.mark.parametrize(("seed", "shared", "sizes"), SPOTS)
@pytest.mark.parametrize("rule", ["cfr", "cfr+"])
def test_fast_build_equals_the_deal_list_iteration_by_iteration(
    seed: int, shared: bool, sizes: dict[str, Any], rule: str
) -> None:
    pair = Pair(random_spot(seed, shared, **sizes), rule)
    for it in range(4):
        pair.fast.iterate(1)
        pair.slow.iterate(1)
        f = pair.fast.storage.regrets[pair.fast_cells]
        assert close(f, pair.slow.storage.regrets[pair.slow_cells]), ("regrets", it)
        f = pair.fast.storage.cumulative[pair.fast_cells]
        s = pair.slow.storage.cumulative[pair.slow_cells]
        assert close(f[pair.reach], s[pair.reach]), ("sums", it)
        # a hand holding the river card has no reach there: nothing summed (the deal list,
        # whose rows keep it, sums a strategy no deal plays)
        assert np.all(f[~pair.reach] == 0.0)
        for p in range(3):  # each traverser's root values, hand for hand
            f = pair.fast.pass_values[p, : pair.where[p].size]
            assert close(f, pair.slow.pass_values[p, pair.where[p]]), ("values", p, it)
        mine, ref = pair.fast.engine_report(), pair.slow.engine_report()
        for field in ("value", "best_response", "nash_distance"):
            assert close(getattr(mine, field), getattr(ref, field)), (field, it)
    ev = nash_report(pair.mgame, pair.profile_for_slow(pair.fast.average_profile()))
    mine = pair.fast.engine_report()
    assert close(mine.nash_distance, ev.nash_distance)
    assert close(mine.value, ev.value)
    assert close(mine.best_response, ev.best_response)
    assert mine.nash_distance.max() > 1e-3  # (not a trivial spot: somebody can gain)


def test_solving_brings_every_distance_down() -> None:
    spot = random_spot(3, True, bets="50%, a")
    engine = River3Engine(build_turn3(spot), make_rule("dcfr"))
    first = engine.report().nash_distance.copy()
    engine.iterate(60)  # (at 50 every distance is below 1.3 % of its start)
    last = engine.report().nash_distance
    assert np.all(last < 0.05 * first)
    ev = nash_report(turn3_multigame(spot), Pair(spot, "dcfr").profile_for_slow(
        engine.average_profile()))  # fmt: skip
    assert close(last, ev.nash_distance)
