"""The engine's restricted Nash response (``Engine.restrict``) matches CFR run literally on
the explicit restricted game (tests/rnr_reference.py), iteration by iteration: current and
average strategies and regrets to 1e-10. The learner's regrets in the explicit game carry
the free branch's chance 1 − p, which the engine leaves out (regret matching and the
discounts do not see a constant factor): they are compared scaled."""

from __future__ import annotations

import numpy as np
import pytest
import reference
from conftest import game
from rnr_reference import RNRReferenceSolver
from test_reference_match import _avg, _close, _engine_views, _flat_index

from solver import Engine, make_rule
from solver.cfr.layout import uniform_strategy
from solver.games.model import DECISION

ITERATIONS = {"kuhn": 12, "leduc": 6}


def _fixed(name: str, seed: int) -> tuple[np.ndarray, dict[reference.Key, np.ndarray]]:
    """A random mix per infoset, suit-symmetric: the engine's (A,) array and the reference's
    per key (one engine block stands for a mirrored Leduc board's infosets)."""
    g = game(name)
    rng = np.random.default_rng(seed)
    flat = uniform_strategy(g)
    t = g.tree
    for node in np.flatnonzero(t.kind == DECISION):
        off, na, nh = g.block(int(node))
        x = rng.uniform(0.05, 1.0, size=(na, nh))
        flat[off : off + na * nh] = (x / x.sum(axis=0)).ravel()
    views = _engine_views(name)
    # before the board a suit may not matter (the engine maps a mirrored board's values by
    # suit isomorphism): hands of one rank play one mix there
    by_rank: dict[tuple[int, str], np.ndarray] = {}
    for key, (off, na, nh, h) in views.items():
        if not any(e.startswith("d:") for e in key[1]):
            mix = by_rank.setdefault((off, key[2][0]), flat[off + np.arange(na) * nh + h])
            flat[off + np.arange(na) * nh + h] = mix
    per_key = {
        key: np.array([flat[off + a * nh + h] for a in range(na)])
        for key, (off, na, nh, h) in views.items()
    }
    return flat, per_key


def _scaled_regrets(ref: RNRReferenceSolver, keys: list[reference.Key]) -> dict:
    """The reference's regrets as the engine keeps them: the learner's over 1 − p."""
    q = 1.0 - ref.p
    return {k: ref.regrets[k] / q if k[0] != ref.exploiter else ref.regrets[k] for k in keys}


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
@pytest.mark.parametrize("rule", ["cfr", "dcfr", "pcfr+"])
@pytest.mark.parametrize(("p", "exploiter"), [(0.3, 0), (0.7, 1)])
def test_rnr_matches_explicit_game(name: str, rule: str, p: float, exploiter: int) -> None:
    g = game(name)
    keys, idx = _flat_index(name)
    flat, per_key = _fixed(name, 7 + exploiter)
    learner = 1 - exploiter
    fixed = {k: v for k, v in per_key.items() if k[0] == learner}
    ref = RNRReferenceSolver(name, rule, p, exploiter, fixed)
    eng = Engine(g, make_rule(rule))
    eng.restrict(p, exploiter, flat)
    for t in range(1, ITERATIONS[name] + 1):
        ref.iterate()
        eng.iterate(1)
        where = f"{rule} {name} p={p} t={t}"
        _close(keys, eng.current_strategy()[idx], ref.current, 1e-10, f"{where} sigma")
        _close(keys, eng.storage.regrets[idx], _scaled_regrets(ref, keys), 1e-10,
               f"{where} regrets")  # fmt: skip
        avg = {key: _avg(ref, key) for key in keys}
        _close(keys, eng.average_strategy()[idx], avg, 1e-10, f"{where} average")


@pytest.mark.parametrize("name", ["kuhn", "leduc"])
def test_rnr_p1_exploiter_matches_explicit_game(name: str) -> None:
    """p = 1: the learner is all fixed; the exploiter's strategies are CFR's against it."""
    g = game(name)
    keys, _ = _flat_index(name)
    flat, per_key = _fixed(name, 3)
    fixed = {k: v for k, v in per_key.items() if k[0] == 1}
    ref = RNRReferenceSolver(name, "dcfr", 1.0, 0, fixed)
    eng = Engine(g, make_rule("dcfr"))
    eng.restrict(1.0, 0, flat)
    mine = [i for i, k in enumerate(keys) if k[0] == 0]
    ekeys = [keys[i] for i in mine]
    views = _engine_views(name)
    eidx = np.concatenate(
        [off + np.arange(na) * nh + h for off, na, nh, h in (views[k] for k in ekeys)]
    )
    for t in range(1, ITERATIONS[name] + 1):
        ref.iterate()
        eng.iterate(1)
        _close(ekeys, eng.current_strategy()[eidx], ref.current, 1e-10, f"t={t} sigma")
        avg = {key: _avg(ref, key) for key in ekeys}
        _close(ekeys, eng.average_strategy()[eidx], avg, 1e-10, f"t={t} average")


@pytest.mark.parametrize("rule", ["cfr", "dcfr"])
def test_restriction_off_is_todays_solve(rule: str) -> None:
    """p = 0 (and turning a restriction off) is the ordinary solve, bit for bit."""
    g = game("leduc")
    flat, _ = _fixed("leduc", 1)
    plain = Engine(g, make_rule(rule))
    zero = Engine(g, make_rule(rule))
    zero.restrict(0.0, 0, flat)
    off = Engine(g, make_rule(rule))
    off.restrict(0.5, 0, flat)
    off.restrict(0.0, 0, None)
    for e in (plain, zero, off):
        e.iterate(5)
    for e in (zero, off):
        assert np.array_equal(e.storage.regrets, plain.storage.regrets)
        assert np.array_equal(e.storage.cumulative, plain.storage.cumulative)


def test_restriction_changes_the_solve() -> None:
    """Not a no-op: with p = 0.5 the exploiter's regrets differ from the ordinary solve's."""
    g = game("kuhn")
    flat, _ = _fixed("kuhn", 5)
    plain = Engine(g, make_rule("cfr"))
    rnr = Engine(g, make_rule("cfr"))
    rnr.restrict(0.5, 0, flat)
    plain.iterate(3)
    rnr.iterate(3)
    assert not np.allclose(plain.storage.regrets, rnr.storage.regrets)


def test_restrict_refuses_what_it_cannot_run() -> None:
    from solver.cfr.options import SolveOptions

    g = game("kuhn")
    flat, _ = _fixed("kuhn", 5)
    e = Engine(g, make_rule("cfr"), SolveOptions(threads=2))
    with pytest.raises(ValueError, match="threads"):
        e.restrict(0.5, 0, flat)
    e1 = Engine(g, make_rule("cfr"))
    with pytest.raises(ValueError, match="p must be in"):
        e1.restrict(1.5, 0, flat)
    with pytest.raises(ValueError, match="shape"):
        e1.restrict(0.5, 0, flat[:-1])
