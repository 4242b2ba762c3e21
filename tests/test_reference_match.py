"""The engine matches the slow dict-based reference (tests/reference.py), rule by rule,
iteration by iteration: current strategies, regrets and average strategies to 1e-10."""

from __future__ import annotations

import numpy as np
import pytest
import reference
from conftest import game

from solver import Engine, make_rule
from solver.cfr.rules import RULES

ITERATIONS = {"kuhn": 15, "leduc": 10}


def _engine_views(name: str) -> dict[reference.Key, tuple[int, int, int, int]]:
    """reference key -> (offset, num_actions, num_hands, hand index) in the engine arrays."""
    g = game(name)
    out = {}
    for key in reference.infosets(name):
        player, history, card = key
        node, cmap = g.locate(history)  # suit isomorphism: hearts boards mirror spades
        assert int(g.tree.player[node]) == player
        off, na, nh = g.block(node)
        assert g.action_labels(node) == reference.action_labels(name, key)
        out[key] = (off, na, nh, g.map_hand(player, g.hand_names[player].index(card), cmap))
    return out


def test_rule_registries_agree() -> None:
    assert set(RULES) == set(reference.RULES)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("rule", sorted(RULES))
def test_engine_matches_reference_iteration_by_iteration(name: str, rule: str) -> None:
    g = game(name)
    views = _engine_views(name)
    assert len(views) == g.num_infosets
    assert len(set(views.values())) < len(views) or name == "kuhn"  # Leduc: mirrored boards
    _match(name, rule, {})


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize(("rule", "every"), [("dcfr", 2.0), ("dcfr-tuned", 3.0), ("dcfr-nh", 2.0)])
def test_average_every_kth_iteration_matches_reference(name: str, rule: str, every: float) -> None:
    """``average_every``: the engine's sums skip the iterations the average does not take
    (:func:`solver.cfr.rules.every_kth_average`), the reference carries their decay and
    weight over to the next one taken — the same average at every iteration."""
    _match(name, rule, {"average_every": every})


def _match(name: str, rule: str, params: dict[str, float]) -> None:
    g = game(name)
    views = _engine_views(name)
    ref = reference.ReferenceSolver(name, rule, **params)
    eng = Engine(g, make_rule(rule, **params))
    for t in range(1, ITERATIONS[name] + 1):
        ref.iterate()
        eng.iterate(1)
        sigma = eng.current_strategy()
        avg = eng.average_strategy()
        regrets = eng.storage.regrets
        for key, (off, na, nh, h) in views.items():
            idx = off + np.arange(na) * nh + h
            where = f"{rule} {name} t={t} {key}"
            np.testing.assert_allclose(sigma[idx], ref.current[key], atol=1e-10, err_msg=where)
            np.testing.assert_allclose(
                regrets[idx], ref.regrets[key], atol=1e-10, rtol=1e-12, err_msg=where
            )
            np.testing.assert_allclose(
                avg[idx], _avg(ref, key),
                atol=1e-10, err_msg=where,
            )  # fmt: skip


def _avg(ref: reference.ReferenceSolver, key: reference.Key) -> np.ndarray:
    s = ref.cumulative[key]
    total = s.sum()
    return s / total if total > 0 else np.full(s.shape, 1.0 / s.size)


# Leduc-5's reference is slow (~10 s an iteration): one rule per path of the update —
# regret matching derived from the regrets (cfr), a stored predictive strategy (pcfr+),
# NormalHedge (dcfr-nh), the adaptive step with discounts (apdcfr+) — for two iterations.
# Every rule runs the same update code, checked rule by rule on Kuhn and Leduc above.
LEDUC5_RULES = ["cfr", "pcfr+", "dcfr-nh", "apdcfr+"]


@pytest.mark.slow
@pytest.mark.parametrize("rule", LEDUC5_RULES)
def test_leduc5_first_iterations_match(rule: str) -> None:
    g = game("leduc5")
    views = _engine_views("leduc5")
    ref = reference.ReferenceSolver("leduc5", rule)
    eng = Engine(g, make_rule(rule))
    for _ in range(2):
        ref.iterate()
        eng.iterate(1)
    sigma = eng.current_strategy()
    for key, (off, na, nh, h) in views.items():
        idx = off + np.arange(na) * nh + h
        np.testing.assert_allclose(sigma[idx], ref.current[key], atol=1e-10, err_msg=str(key))
