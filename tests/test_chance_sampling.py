"""Chance-sampled CFR (``mccfr-cs``) in the vector engine: every sampled pass is an unbiased
estimate of the full-width CFR pass (checked exactly by enumerating every draw), seeded runs
repeat, and the solve converges."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from conftest import game, small_turn

from solver.algorithms import make_solver
from solver.cfr.drive import run_pass
from solver.cfr.engine import Engine
from solver.cfr.layout import empty_leaves, game_arrays
from solver.cfr.locks import no_locks
from solver.cfr.options import SolveOptions
from solver.cfr.pruning.state import no_rbp
from solver.cfr.rules import make_rule
from solver.cfr.walk import SolveState
from solver.games import Game
from solver.games.model import CHANCE


def _turn() -> Game:
    return small_turn("AA,KK,T9s,87s,A5s", "JJ,TT,AK,65s")


def _breakpoints(g: Game) -> list[float]:
    """Every point where the draw of some first-level chance node changes child."""
    t = g.tree
    cuts = {0.0, 1.0}
    for node in np.flatnonzero(t.kind == CHANCE):
        if any(t.kind[a] == CHANCE for a in _ancestors(g, int(node))):
            continue  # deeper levels use another draw
        kids = list(g.children(int(node)))
        w = np.array([(1.0 + t.iso_count[c]) * t.chance_weight[c] for c in kids])
        cuts.update(np.cumsum(w / w.sum())[:-1].tolist())
    return sorted(cuts)


def _ancestors(g: Game, node: int) -> list[int]:
    out = []
    while node > 0:
        node = int(g.parents[node])
        out.append(node)
    return out


def _one_pass(engine: Engine, trav: int, u: float | None) -> tuple[np.ndarray, np.ndarray]:
    """Regret and strategy-sum increments of one CFR pass for ``trav`` from the engine's
    state (left unchanged): full width (u None) or chance-sampled with draw ``u``."""
    g = engine.game
    st = engine.storage._replace(
        regrets=engine.storage.regrets.copy(), cumulative=engine.storage.cumulative.copy()
    )
    co = engine.rule.coefficients(np.array([float(engine.iteration + 1)]))[0]
    draws = np.zeros(4)
    flags = engine.flags(trav)
    if u is not None:
        flags = flags._replace(sampled=True)
        draws[2 * trav] = u
    state = SolveState(st, no_rbp(), no_locks())
    run_pass(
        game_arrays(g), state, 0, st.strategy, co, draws, flags, engine.scratch, empty_leaves()
    )
    return st.regrets - engine.storage.regrets, st.cumulative - engine.storage.cumulative


@pytest.mark.parametrize("which", ["leduc", "turn"])
def test_a_sampled_pass_is_unbiased(which: str) -> None:
    g = game("leduc") if which == "leduc" else _turn()
    engine = Engine(g, make_rule("cfr"), options=SolveOptions(pruning="none", precision="float64"))
    engine.iterate(3)  # a non-trivial state
    cuts = _breakpoints(g)
    assert len(cuts) > 3
    for trav in (0, 1):
        full_r, full_s = _one_pass(engine, trav, None)
        exp_r = np.zeros_like(full_r)
        exp_s = np.zeros_like(full_s)
        for lo, hi in itertools.pairwise(cuts):
            r, s = _one_pass(engine, trav, 0.5 * (lo + hi))
            exp_r += (hi - lo) * r
            exp_s += (hi - lo) * s
        assert np.abs(full_r).max() > 0
        np.testing.assert_allclose(exp_r, full_r, rtol=1e-9, atol=1e-12 * np.abs(full_r).max())
        np.testing.assert_allclose(exp_s, full_s, rtol=1e-9, atol=1e-12 * np.abs(full_s).max())
        # and a single draw is not the full update (it really samples)
        one_r, _ = _one_pass(engine, trav, 0.5 * cuts[1])
        assert not np.allclose(one_r, full_r)


def test_seeded_runs_repeat_and_seeds_differ() -> None:
    g = game("leduc")
    a = make_solver(g, "mccfr-cs", options=SolveOptions(seed=7))
    b = make_solver(g, "mccfr-cs", options=SolveOptions(seed=7))
    c = make_solver(g, "mccfr-cs", options=SolveOptions(seed=8))
    a.iterate(40)
    b.iterate(15)
    b.iterate(25)  # chunking does not change the draws
    c.iterate(40)
    np.testing.assert_array_equal(a.storage.regrets, b.storage.regrets)
    assert not np.array_equal(a.storage.regrets, c.storage.regrets)


def test_chance_sampling_converges_and_touches_fewer_nodes() -> None:
    g = game("leduc")
    cs = make_solver(g, "mccfr-cs", options=SolveOptions(seed=1))
    full = make_solver(g, "cfr", options=SolveOptions(pruning="none"))
    cs.iterate(10_000)
    full.iterate(300)
    expl = 0.5 * sum(cs.best_response_values())
    assert 0 <= expl < 0.05
    assert cs.nodes_touched / cs.iteration < full.nodes_touched / full.iteration / 2


@pytest.mark.cores(2)
def test_chance_sampling_refuses_threads() -> None:
    with pytest.raises(ValueError, match="one thread"):
        make_solver(_turn(), "mccfr-cs", options=SolveOptions(threads=2))
