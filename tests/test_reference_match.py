"""The engine matches the slow dict-based reference (tests/reference.py), rule by rule,
iteration by iteration: current strategies, regrets and average strategies to 1e-10."""

from __future__ import annotations

import functools

import numpy as np
import pytest
import reference
from conftest import game

from solver import Engine, make_rule
from solver.cfr.rules import RULES

ITERATIONS = {"kuhn": 15, "leduc": 10}


@functools.cache
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
    keys, idx = _flat_index(name)
    ref = reference.ReferenceSolver(name, rule, **params)
    eng = Engine(g, make_rule(rule, **params))
    for t in range(1, ITERATIONS[name] + 1):
        ref.iterate()
        eng.iterate(1)
        where = f"{rule} {name} t={t}"
        _close(keys, eng.current_strategy()[idx], ref.current, 1e-7, f"{where} sigma")
        _close(keys, eng.storage.regrets[idx], ref.regrets, 1e-12, f"{where} regrets")
        avg = {key: _avg(ref, key) for key in keys}
        _close(keys, eng.average_strategy()[idx], avg, 1e-7, f"{where} average")


@functools.cache
def _flat_index(name: str) -> tuple[list[reference.Key], np.ndarray]:
    """Every infoset's action entries in the engine arrays, key after key: (keys, (N,) index)."""
    views = _engine_views(name)
    keys = list(views)
    parts = [off + np.arange(na) * nh + h for off, na, nh, h in views.values()]
    return keys, np.concatenate(parts)


def _close(
    keys: list[reference.Key],
    got: np.ndarray,
    want: dict[reference.Key, np.ndarray],
    rtol: float,
    where: str,
) -> None:
    """``got`` (the engine's entries in ``keys`` order) against the reference's per key,
    elementwise to atol 1e-10 and ``rtol``; a failure names the first infoset that differs."""
    expected = np.concatenate([want[key] for key in keys])
    bad = ~np.isclose(got, expected, rtol=rtol, atol=1e-10)
    if bad.any():
        sizes = np.cumsum([want[key].size for key in keys])
        key = keys[int(np.searchsorted(sizes, int(np.argmax(bad)), side="right"))]
        np.testing.assert_allclose(got, expected, rtol=rtol, atol=1e-10, err_msg=f"{where} {key}")


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
    keys, idx = _flat_index("leduc5")
    ref = reference.ReferenceSolver("leduc5", rule)
    eng = Engine(g, make_rule(rule))
    for _ in range(2):
        ref.iterate()
        eng.iterate(1)
    _close(keys, eng.current_strategy()[idx], ref.current, 1e-7, f"{rule} leduc5")
