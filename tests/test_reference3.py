"""tests/reference3.py checks itself: its deal-parallel walk (what the engine is matched
against) gives the counterfactual action values of the plain per-deal walk, on kuhn3 and on
leduc3's whole tree (public card included) with a slice of its deals, under random
strategies; and the leduc3 match (tests/test_multi_engine.py) has deals to tell apart."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from reference3 import Reference3

from solver.games.multiway import MultiGame, multi_game


def random_strategies(ref: Reference3, seed: int) -> None:
    rng = np.random.default_rng(seed)
    for key, cur in ref.current.items():
        v = rng.random(cur.size) + 0.05
        ref.current[key] = v / v.sum()


def some_deals(g: MultiGame, step: int) -> MultiGame:
    """``g`` with every ``step``-th deal (weights renormalised): the same tree and boards."""
    keep = np.arange(0, g.deals.shape[0], step)
    weight = g.deal_weight[keep] / g.deal_weight[keep].sum()
    return dataclasses.replace(g, deals=g.deals[keep], deal_weight=weight,
                               deal_valid=g.deal_valid[:, keep],
                               payoff=g.payoff[:, :, keep])  # fmt: skip


# (leduc3: one traverser of a few deals; the walk treats every traverser alike)
@pytest.mark.parametrize("name, step, travs", [("kuhn3", 1, (0, 1, 2)), ("leduc3", 41, (1,))])
def test_the_deal_parallel_walk_equals_the_per_deal_walk(
    name: str, step: int, travs: tuple[int, ...]
) -> None:
    g = some_deals(multi_game(name), step)
    ref = Reference3(g, "cfr")
    random_strategies(ref, 5)
    for trav in travs:
        want = ref.action_values_by_deal(trav)
        got = ref.action_values(trav)
        assert got.keys() == want.keys()
        for key, w in want.items():
            # the same products, each set's deals added in the same order; the node value's
            # dot product may round its last bit differently
            np.testing.assert_allclose(got[key], w, rtol=1e-12, atol=1e-16, err_msg=f"{key}")
        assert sum(np.count_nonzero(w) for w in want.values()) > len(want) // 4
    if name == "leduc3":  # some deals hold a public card (chance 0 below it)
        assert not g.deal_valid[1:].all()
