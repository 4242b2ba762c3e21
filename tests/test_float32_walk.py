"""The float32 walk: over float32 storage a CFR pass computes its reach, values, strategies
and regret updates in float32 (:mod:`solver.cfr.floats`), its terminal sums in float64, and
the solve's checks stay float64. Against the float64 walk over the same storage it agrees to
float32 rounding, one step and a whole solve; ``promote`` switches it to float64."""

from __future__ import annotations

import numpy as np
import pytest
from conftest import small_turn
from hypothesis import given, settings
from hypothesis import strategies as st

from solver import Engine, make_rule
from solver.cfr.engine import PROMOTE_AT
from solver.cfr.options import SolveOptions
from solver.cfr.update import regret, strategy_rows, update_block
from solver.games import model
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import Game

RIVER = HoldemSpec(board="Td9d6hQc2s", pot=200, stack=900, oop_range="66+,A8s+,AJo+,KQo,JTs",
                   ip_range="QQ-22,AQs-A2s,ATo+,K9s+,QTs+", bets="50%, a", raises="a")  # fmt: skip


@pytest.fixture(scope="module")
def river() -> Game:
    return build_holdem(RIVER)


def _pair(game: Game, rule: str, threads: int = 1) -> tuple[Engine, Engine]:
    """Two solves over float32 storage: the float32 walk, and the same in float64."""
    a = Engine(game, make_rule(rule), options=SolveOptions(precision="float32", threads=threads))
    b = Engine(game, make_rule(rule), options=SolveOptions(precision="float32", threads=threads))
    b._walk_buffers(np.float64)
    assert a.walk_dtype == np.float32 and a.scratch.value.dtype == np.float32
    assert b.walk_dtype == np.float64
    return a, b


@pytest.mark.parametrize("rule", ["dcfr-tuned", "cfr+", "pcfr+"])
def test_one_iteration_agrees_with_the_float64_walk(river: Game, rule: str) -> None:
    a, b = _pair(river, rule)
    a.iterate(1)
    b.iterate(1)
    ra, rb = a.storage.regrets.astype(np.float64), b.storage.regrets.astype(np.float64)
    scale = np.abs(rb).max()
    assert scale > 0
    np.testing.assert_allclose(ra, rb, rtol=0, atol=1e-5 * scale)
    assert not np.array_equal(ra, rb)  # the float32 walk did run: rounding differs somewhere
    sa, sb = a.storage.cumulative, b.storage.cumulative
    np.testing.assert_allclose(sa, sb, rtol=0, atol=1e-5 * max(float(np.abs(sb).max()), 1e-30))


def test_a_solve_tracks_the_float64_walk(river: Game) -> None:
    """Over 150 iterations the two trajectories stay within a few per cent of each other's
    exploitability (rounding moves them either way), and so do the root values."""
    a, b = _pair(river, "dcfr-tuned")
    for _ in range(5):
        a.iterate(30)
        b.iterate(30)
        ea, eb = sum(a.best_response_values()) / 2, sum(b.best_response_values()) / 2
        assert abs(ea - eb) <= 0.03 * eb + 1e-3


@pytest.mark.cores(2)
def test_two_threads_give_the_float32_walk_bit_for_bit() -> None:
    g = small_turn("AA,KK,QQ,T9s,87s,A5s", "JJ,TT,AK,KQs,65s")
    one = Engine(g, make_rule("dcfr-tuned"), options=SolveOptions(precision="float32"))
    two = Engine(g, make_rule("dcfr-tuned"), options=SolveOptions(precision="float32", threads=2))
    assert two.parallel.threads == 2 and two.parallel.leaves.value.dtype == np.float32
    one.iterate(9)
    two.iterate(9)
    np.testing.assert_array_equal(one.storage.regrets, two.storage.regrets)
    np.testing.assert_array_equal(one.storage.cumulative, two.storage.cumulative)
    assert one.best_response_values() == two.best_response_values()


def test_checks_run_in_float64(river: Game) -> None:
    """The exploitability a float32 solve reports is the float64 walk's over its storage."""
    a, b = _pair(river, "dcfr-tuned")
    a.iterate(20)
    assert a._eval_scratch.value.dtype == np.float64
    b.storage = a.storage  # the same sums, checked by a float64-walk engine
    assert a.best_response_values() == b.best_response_values()


def test_auto_keeps_small_spots_in_float64(river: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    assert river.action_size <= model.AUTO_FLOAT64_CELLS
    assert Engine(river, make_rule("dcfr-tuned")).precision == "float64"
    monkeypatch.setattr(model, "AUTO_FLOAT64_CELLS", river.action_size - 1)
    assert Engine(river, make_rule("dcfr-tuned")).precision == "float32"


def test_promote_switches_the_walk_to_float64(river: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(model, "AUTO_FLOAT64_CELLS", 0)  # auto: float32 storage from here on
    e = Engine(river, make_rule("dcfr-tuned"))  # float32 storage, float32 walk
    assert e.walk_dtype == np.float32
    e.iterate(PROMOTE_AT + 1)
    assert e.precision == "float64" and e.walk_dtype == np.float64
    assert e.scratch.value.dtype == np.float64 and e.parallel.leaves.value.dtype == np.float64


def test_float64_and_16_bit_storage_walk_in_float64(river: Game) -> None:
    for precision in ("float64", "compressed"):
        e = Engine(river, make_rule("dcfr"), options=SolveOptions(precision=precision))
        assert e.walk_dtype == np.float64 and e.scratch.reach.dtype == np.float64
    e = Engine(river, make_rule("cfr+"), options=SolveOptions(precision="float32", pruning="total"))
    assert e.walk_dtype == np.float64  # regret-based pruning's bounds stay float64


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_regret_matching_of_a_subnormal_sum_stays_finite(dtype: type[np.floating]) -> None:
    """A hand whose only positive regret is subnormal plays that action: the reciprocal of
    its sum is infinite, the strategy must not be (hypothesis found 9.8e-45 in float32)."""
    tiny = float(np.finfo(dtype).smallest_subnormal) * 7
    r: np.ndarray = np.array([0.0, 0.0, 0.0, 0.0, 0.0, tiny], dtype=dtype)
    out: np.ndarray = np.zeros((1, 6), dtype=dtype)
    strategy_rows(r, 0, 2, 3, out, 0, np.zeros((1, 3), dtype=dtype), 0)
    np.testing.assert_array_equal(out[0], [0.5, 0.5, 0.0, 0.5, 0.5, 1.0])


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.floats(-50, 50, allow_nan=False, width=32), min_size=6, max_size=6),
    st.integers(2, 3),
)
def test_float32_strategy_rows_are_regret_matching(regrets: list[float], na: int) -> None:
    """Regret matching in float32: a distribution per hand, within float32 rounding of the
    float64 one, uniform where no regret is positive."""
    nh = len(regrets) // na
    r = np.array(regrets[: na * nh], dtype=np.float32)
    out32 = np.zeros((1, na * nh), dtype=np.float32)
    out64 = np.zeros((1, na * nh))
    strategy_rows(r, 0, na, nh, out32, 0, np.zeros((1, nh), dtype=np.float32), 0)
    strategy_rows(r, 0, na, nh, out64, 0, np.zeros((1, nh)), 0)
    np.testing.assert_allclose(out32[0], out64[0], rtol=1e-6, atol=1e-7)
    sums = out32[0].reshape(na, nh).astype(np.float64).sum(axis=0)
    np.testing.assert_allclose(sums, 1.0, atol=1e-6)
    assert (out32 >= 0).all()


def test_float32_regret_snaps_rounding_noise_to_zero() -> None:
    """An action worth exactly the node's value: q − v is float32 rounding noise, which the
    float32 walk zeroes (it would otherwise turn into a pure strategy), while a real
    difference of a thousandth survives."""
    q = np.float32(40.756878)
    sigma = np.array([0.5328649, 0.22020972, 0.24692534], dtype=np.float32)
    v = np.float32(0.0)
    for s in sigma:  # the node value as the walk mixes it: Σ σ·q in float32
        v = np.float32(v + s * q)
    assert q != v  # rounding noise, a few units in the last place
    # float32 scalars: the kernel's float32 specialisation (its hints say float)
    assert regret(q, v) == 0.0  # type: ignore[arg-type]
    assert regret(np.float32(1.001) * q, v) != 0.0  # type: ignore[arg-type]
    assert regret(q, v) == regret(v, q) == 0.0  # type: ignore[arg-type]
    assert regret(1.2345678, 1.2345678 * (1 + 1e-9)) != 0.0  # float64: 1e-9 is not noise


def test_float32_update_matches_the_float64_update() -> None:
    """One regret update of a block in float32 against the same in float64."""
    rng = np.random.default_rng(5)
    na, nh = 3, 40
    e = Engine(
        build_holdem(RIVER), make_rule("dcfr-tuned"), options=SolveOptions(precision="float32")
    )
    co = e.coefficients(0, 8)[7]  # iteration 8's row
    av = rng.normal(size=(na, nh))
    values = (av * rng.dirichlet(np.ones(na), size=nh).T).sum(axis=0)
    start: np.ndarray = rng.normal(size=na * nh).astype(np.float32)
    out = {}
    for dt in (np.float32, np.float64):
        st = e.storage._replace(regrets=start.copy())
        update_block(st, co, 0, 0, 0, na, nh, av.astype(dt), values.astype(dt))
        out[dt] = st.regrets.astype(np.float64)
    np.testing.assert_allclose(out[np.float32], out[np.float64], rtol=1e-5, atol=1e-6)
