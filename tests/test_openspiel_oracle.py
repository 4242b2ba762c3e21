"""OpenSpiel as an independent oracle: our average strategies, handed to OpenSpiel, must get
the exploitability and expected values our own best response and evaluation report."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import game

from solver import Game, best_response_values, expected_values, solve
from solver.cfr.layout import uniform_strategy

pyspiel = pytest.importorskip("pyspiel")
exploitability_mod = pytest.importorskip("open_spiel.python.algorithms.exploitability")
expected_game_score = pytest.importorskip("open_spiel.python.algorithms.expected_game_score")
policy_mod = pytest.importorskip("open_spiel.python.policy")

OS_NAMES = {"kuhn": "kuhn_poker", "leduc": "leduc_poker"}
LEDUC_SIZES = (2, 4)


def to_openspiel(name: str, g: Game, sigma: np.ndarray) -> tuple[Any, Any]:
    """An OpenSpiel TabularPolicy playing our flat strategy ``sigma`` on ``name``."""
    os_game = pyspiel.load_game(OS_NAMES[name])
    pol = policy_mod.TabularPolicy(os_game)

    def label(state: Any, action: int, rnd: int) -> str:
        facing = 0 in state.legal_actions() if name == "leduc" else _kuhn_facing(state)
        if action == 0:
            return "f" if facing else "k"
        if name == "kuhn":
            return "c" if facing else "b:1"
        if action == 1:
            return "c" if facing else "k"
        size = LEDUC_SIZES[rnd]
        return f"r:{size}" if facing else f"b:{size}"

    def walk(state: Any, hist: tuple[str, ...], chance_seen: int, cards: list[int]) -> None:
        if state.is_terminal():
            return
        if state.is_chance_node():
            for a, _p in state.chance_outcomes():
                child = state.child(a)
                if chance_seen < 2:
                    walk(child, hist, chance_seen + 1, [*cards, a])
                else:
                    walk(child, (*hist, f"d:{g.hand_names[0][a]}"), chance_seen + 1, cards)
            return
        p = state.current_player()
        node, cmap = g.locate(hist)  # hearts boards are mirrored from spades ones
        off, na, nh = g.block(node)
        legal = state.legal_actions()
        assert len(legal) == na
        probs = np.zeros(os_game.num_distinct_actions())
        hand = g.map_hand(p, cards[p], cmap)
        for i, a in enumerate(legal):
            probs[a] = sigma[off + i * nh + hand]
        pol.policy_for_key(state.information_state_string())[:] = probs
        rnd = 1 if chance_seen > 2 else 0
        for a in legal:
            walk(state.child(a), (*hist, label(state, a, rnd)), chance_seen, cards)

    walk(os_game.new_initial_state(), (), 0, [])
    return os_game, pol


def _kuhn_facing(state: Any) -> bool:
    return any(a == 1 for a in state.history()[2:])


def random_strategy(g: Game, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    sigma = np.zeros(g.action_size)
    for n in g.decision_nodes():
        off, na, nh = g.block(int(n))
        block = rng.random((na, nh)) ** 3
        sigma[off : off + na * nh] = (block / block.sum(axis=0)).ravel()
    return sigma


def _full(name: str) -> Game:
    """The game without suit isomorphism: an arbitrary (asymmetric) profile is only a
    profile of the full tree; solved profiles are suit-symmetric and fine either way."""
    from solver.games.toy import leduc

    return leduc(isomorphism=False) if name == "leduc" else game(name)


def _check(name: str, sigma: np.ndarray, g: Game | None = None) -> None:
    g = g or game(name)
    os_game, pol = to_openspiel(name, g, sigma)
    br = best_response_values(g, sigma)
    assert sum(br) == pytest.approx(exploitability_mod.nash_conv(os_game, pol), abs=1e-9)
    ev = expected_values(g, sigma)
    os_ev = expected_game_score.policy_value(os_game.new_initial_state(), [pol, pol])
    assert ev[0] == pytest.approx(os_ev[0], abs=1e-9)
    assert ev[1] == pytest.approx(os_ev[1], abs=1e-9)


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("seed", [0, 1])
def test_random_strategies_agree_with_openspiel(name: str, seed: int) -> None:
    g = _full(name)
    _check(name, random_strategy(g, seed), g)


def test_uniform_agrees_with_openspiel() -> None:
    _check("leduc", uniform_strategy(game("leduc")))
    _check("leduc", uniform_strategy(_full("leduc")), _full("leduc"))


@pytest.mark.parametrize("rule", ["cfr+", "pdcfr+"])
def test_solved_leduc_agrees_with_openspiel(rule: str) -> None:
    result = solve(game("leduc"), rule, iterations=300, check_every=300)
    _check("leduc", result.average_strategy())
