"""A preflop line's pot and chips put in: a raise *to* S includes the raiser's blind, so the
pot after SB raises to 10 is 11 bb (10 + the big blind), not 11.5 (issue 48's review found
the blind counted twice by ``investments``, which Explore's EQR, the spot header and Practice
read)."""

from __future__ import annotations

import pytest

from solver.games.preflop import build_preflop
from solver.study.analysis import investments
from solver.study.views import action_names
from solver.study.words import node_pot


@pytest.mark.parametrize("ante", [0.0, 0.1])
def test_investments_count_each_blind_once(ante: float) -> None:
    g = build_preflop(stack_bb=10, tree="raise-jam", sb=0.5, bb=1.0, ante=ante)
    two = next(c for c in g.children(0) if g.labels[c] == "r:2")
    assert investments(g, 0) == pytest.approx((1.5 + 2 * ante, 0.0, 0.0))
    # SB raises to 2: SB put in 1.5 more than its blind; the pot holds 2 + 1 + antes
    assert investments(g, two) == pytest.approx((3.0 + 2 * ante, 1.5, 0.0))
    stack = [0]
    while stack:  # every node: the same pot as words' own preflop reading
        n = stack.pop()
        assert investments(g, n)[0] == pytest.approx(node_pot(g, n))
        stack.extend(g.children(n))


def test_a_jam_for_the_whole_stack_is_all_in() -> None:
    g = build_preflop(stack_bb=10, tree="push-fold", sb=0.5, bb=1.0, ante=0.0)
    assert action_names(g, 0) == ["f", "All-in"]
    jam = next(c for c in g.children(0) if g.labels[c] != "f")
    assert investments(g, jam) == pytest.approx((11.0, 9.5, 0.0))
