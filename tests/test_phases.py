"""benchmarks/phases.py: its per-phase replays are the walk's work — composed node by node
into a pass, they give the walk's root values and leave the walk's regrets and strategy sums,
bit for bit — and the timed replays (no per-node inputs) run the same helpers (no timings)."""

from __future__ import annotations

import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from bench_helpers import benchmark
from conftest import task_turn

from solver import Engine, make_rule
from solver.cfr.drive import run_pass
from solver.cfr.layout import (
    MODE_UPDATE,
    NO_DRAWS,
    Storage,
    empty_leaves,
    game_arrays,
    make_scratch,
    pass_flags,
)
from solver.cfr.locks import no_locks
from solver.cfr.options import SolveOptions
from solver.cfr.pruning.state import no_rbp
from solver.cfr.rules import AVG_WEIGHT
from solver.cfr.walk import SolveState
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN


def phases() -> ModuleType:
    return benchmark("phases")


def _copy(st: Storage) -> Storage:
    return Storage._make(a.copy() if isinstance(a, np.ndarray) else a for a in st)


@pytest.mark.parametrize("precision", ["float64", "float32"])
def test_the_replays_composed_are_the_walks_pass_bit_for_bit(precision: str) -> None:
    game = task_turn()
    t = game.tree
    assert (t.kind == RUNOUT).any() and (t.kind == SHOWDOWN).any() and (t.kind == FIXED).any()
    for trav in (0, 1):  # folds beside the traverser's showdowns: they share its prefix sums
        assert any(
            t.kind[v] == FIXED
            and t.kind[v + 1] == SHOWDOWN
            and t.player[game.parents[v]] == trav
            and game.parents[v + 1] == game.parents[v]
            for v in range(game.num_nodes - 1)
        )
    e = Engine(game, make_rule("dcfr-tuned"),
               options=SolveOptions(threads=1, pruning="none", precision=precision))  # fmt: skip
    e.iterate(3)  # regrets and sums that are not uniform
    rows = e.coefficients(e.schedule_start + e.iteration, 2)  # iterations 4 and 5
    co = rows[0] if rows[0, AVG_WEIGHT] > 0.0 else rows[1]  # the one the average takes
    assert co[AVG_WEIGHT] > 0.0
    dtype = e.walk_dtype
    ph = phases()
    for trav in (0, 1):
        walked = _copy(e.storage)
        sc = make_scratch(game, dtype)
        fl = pass_flags(trav, MODE_UPDATE)
        run_pass(game_arrays(game), SolveState(walked, no_rbp(), no_locks()), 0,
                 walked.strategy, co, NO_DRAWS, fl, sc, empty_leaves(dtype))  # fmt: skip
        replayed = _copy(e.storage)
        root = ph.compose_pass(ph.Replay(game, dtype), replayed, co, trav)
        nt = game.hands.num_hands[trav]
        np.testing.assert_array_equal(root, sc.value[0, :nt].astype(np.float64))
        np.testing.assert_array_equal(replayed.regrets, walked.regrets)
        np.testing.assert_array_equal(replayed.cumulative, walked.cumulative)
        assert not np.array_equal(walked.regrets, e.storage.regrets)  # the pass did update
        assert not np.array_equal(walked.cumulative, e.storage.cumulative)


def test_the_timed_replays_visit_every_node_of_their_kind() -> None:
    game = task_turn()
    t = game.tree
    e = Engine(game, make_rule("dcfr-tuned"), options=SolveOptions(threads=1))
    e.iterate(2)
    ph = phases()
    rp = ph.Replay(game, e.walk_dtype)
    h = rp.sc.reach.shape[1]
    rp.fill(np.full(h, 0.01), np.linspace(-50.0, 50.0, h))
    co = e.coefficients(e.iteration, 1)[0]
    st = _copy(e.storage)
    kinds = {"trav: update": DECISION, "opp: values": DECISION, "chance: values": CHANCE,
             "fold": FIXED, "showdown": SHOWDOWN, "runout": RUNOUT}  # fmt: skip
    for trav in (0, 1):
        for phase in ph.PHASES:
            n = rp.run(phase, st, co, trav)
            kind = kinds.get(phase)
            if kind == DECISION:
                mine = phase.startswith("trav")
                want = np.count_nonzero((t.kind == DECISION) & ((t.player == trav) == mine))
                assert n == want
            elif kind is not None:
                assert n == np.count_nonzero(t.kind == kind)
    # the timed update ran the rule's update on the solve's regrets (a copy)
    assert not np.array_equal(st.regrets, e.storage.regrets)
    assert np.isfinite(st.regrets).all() and np.isfinite(rp.sc.value).all()


@pytest.mark.parametrize("precision", ["float32", "compressed"])
def test_the_node_kinds_bytes_add_up_to_the_floor(precision: str) -> None:
    ph = phases()
    model = ph.floor.iteration_bytes(task_turn(), precision, 2)
    groups = ph.group_bytes(model)
    assert set(groups) == set(ph.GROUPS)
    assert sum(groups.values()) == pytest.approx(model.floor_bytes, rel=1e-12)
    assert groups["average sums"] == pytest.approx(model.total("sums") + (
        model.kinds["decision (opponent)"]["scales"]))  # fmt: skip


def test_phase_kernels_cache_is_dropped_when_the_solver_changes(tmp_path: Path) -> None:
    """The replay kernels inline the solver's helpers but Numba keys their cache on their
    own file: a solver edit (another source hash) must remove them, the same hash keep them."""
    phases()  # puts benchmarks/ on the path and imports phase_kernels
    drop = sys.modules["phase_kernels"].drop_stale_cache
    cached = [tmp_path / "phase_kernels.fold_phase-42.py311.nbi",
              tmp_path / "phase_kernels.fold_phase-42.py311.1.nbc"]  # fmt: skip
    other = tmp_path / "other.f-1.py311.nbi"
    for f in [*cached, other]:
        f.write_bytes(b"x")
    assert drop(tmp_path, "aaaa")  # no stamp yet: dropped
    assert not any(f.exists() for f in cached) and other.exists()
    for f in cached:
        f.write_bytes(b"x")
    assert not drop(tmp_path, "aaaa")  # compiled from these sources: kept
    assert all(f.exists() for f in cached)
    assert drop(tmp_path, "bbbb")  # the solver changed: dropped
    assert not any(f.exists() for f in cached) and other.exists()
