"""The tree summarizer (solver/batch/summary.py, per-node arithmetic on arrays of nodes and
one kernel call per evaluation walk) against its naive predecessor kept in
tests/summary_reference.py: every field of the TreeSummary, on flops and a turn, with and
without suit isomorphism, with a rake, at the default cut and with every node kept.

Integer fields, labels and the header are equal exactly. Float fields are equal bit for bit
on these trees too; the test allows 1e-12 relative because the summarizer takes the
opponent's mass of a chunk of nodes in one gemm where the reference took a gemv per node,
and a BLAS may round those differently (a sum of at most H products of weights ≤ 1, 1e-16
relative per term; a changed weight or hand moves the numbers by ≥ 1e-4).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pytest
from summary_reference import summarize_tree_reference

from solver.batch.summary import summarize_tree
from solver.batch.treedata import TreeSummary
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import Game

Array = npt.NDArray[np.float64]

SPOT = HoldemSpec(
    board="9s8s2h",
    pot=200,
    stack=400,
    oop_range="AA,KK,QQ,AKs,AKo,KQs,T9s",
    ip_range="QQ,JJ,TT,AQs,AQo,KJs,98s,76s",
    bets="a",
    raises="",
)
SPECS = {
    "flop iso": SPOT,
    "flop full": replace(SPOT, board="7s7h2d", isomorphism=False),
    "flop rake": replace(SPOT, board="Kh7d2c", rake_pct=5.0, rake_cap=30.0),
    "turn": replace(SPOT, board="9s8s2hKd", bets="50%", raises="a"),
}
FLOATS = ("reach", "pot", "ev", "equity", "eqr", "mix", "cls_combos", "cls_mix")
REL = 1e-12


def random_sigma(game: Game, seed: int) -> Array:
    """A random strategy, every hand's mix its own (no symmetry): (action_size,)."""
    rng = np.random.default_rng(seed)
    sigma = np.zeros(game.action_size)
    for n in game.decision_nodes():
        off, na, nh = game.block(int(n))
        x = rng.random((na, nh)) + 0.02
        sigma[off : off + na * nh] = (x / x.sum(axis=0)).ravel()
    return sigma


def differences(got: TreeSummary, want: TreeSummary) -> list[str]:
    """Every field of ``got`` that is not ``want``'s (floats to :data:`REL` relative)."""
    out = []
    for name in ("labels", "classes", "mix_definition", "min_reach"):
        if getattr(got, name) != getattr(want, name):
            out.append(name)
    if sorted(got.arrays) != sorted(want.arrays):
        return [*out, f"arrays {sorted(got.arrays)} vs {sorted(want.arrays)}"]
    for name, w in want.arrays.items():
        g = got.arrays[name]
        if g.shape != w.shape:
            out.append(f"{name}: shape {g.shape} vs {w.shape}")
        elif name not in FLOATS:
            if g.dtype.kind != w.dtype.kind or not np.array_equal(g, w):
                out.append(name)
        elif not np.allclose(g, w, rtol=REL, atol=0.0, equal_nan=True):
            bad = ~np.isclose(g, w, rtol=REL, atol=0.0, equal_nan=True)
            out.append(f"{name}: {int(bad.sum())} differ, e.g. {g[bad][:3]} vs {w[bad][:3]}")
    return out


@pytest.mark.parametrize("cut", [0.0, 0.01])
@pytest.mark.parametrize("case", list(SPECS))
def test_every_field_equals_the_naive_summarizers(case: str, cut: float) -> None:
    game = build_holdem(SPECS[case])
    sigma = random_sigma(game, seed=len(case))
    got = summarize_tree(game, sigma, min_line_reach=cut)
    want = summarize_tree_reference(game, sigma, min_line_reach=cut)
    assert want.num_nodes > 20 and want["cls_node"].shape[0] > 20  # a real tree and classes
    if case == "flop iso":
        assert want["iso_node"].shape[0] > 0  # isomorphic cards listed
    assert differences(got, want) == []


def test_the_comparison_sees_a_changed_number() -> None:
    """:func:`differences` names a field moved by far less than any real change."""
    game = build_holdem(SPECS["turn"])
    ts = summarize_tree(game, random_sigma(game, 3))
    for name in ("ev", "cls_mix", "parent"):
        moved = {k: v.copy() for k, v in ts.arrays.items()}
        a = moved[name]
        j = int(np.flatnonzero(~np.isnan(a.ravel().astype(np.float64)))[-1])
        a.ravel()[j] = a.ravel()[j] * (1 + 1e-9) if a.dtype.kind == "f" else a.ravel()[j] - 1
        assert [d.split(":")[0] for d in differences(replace(ts, arrays=moved), ts)] == [name]


def test_the_eval_walk_gives_node_values_numbers() -> None:
    """:class:`EvalWalk`, the compiled overload called directly after the first call, gives
    :func:`node_values`'s values bit for bit at decision and chance nodes, both players,
    in any order of nodes (one scratch for all)."""
    from solver.batch.evalwalk import EvalWalk
    from solver.cfr.bestresponse import node_values
    from solver.cfr.drive import drive
    from solver.cfr.reach import chance_factor, path_reach
    from solver.games.model import CHANCE, DECISION

    game = build_holdem(SPECS["turn"])
    sigma = random_sigma(game, 5)
    walk = EvalWalk(game, sigma)
    t = game.tree
    rng = np.random.default_rng(2)
    chance, decision = np.flatnonzero(t.kind == CHANCE), np.flatnonzero(t.kind == DECISION)
    picks = np.concatenate([rng.choice(chance, 8), rng.choice(decision, 30)])
    for node in [0, *picks.tolist(), 0]:
        for p in (0, 1):
            opp = path_reach(game, sigma, node)[1 - p]
            got = walk.values(node, p, opp, chance_factor(game, node))
            assert np.array_equal(got, node_values(game, sigma, node, p)), (node, p)
    if hasattr(drive, "overloads"):  # Numba's JIT on: the dispatcher is bypassed
        assert all(e is not None and e is not drive for e in walk.entry)


@pytest.mark.parametrize("case", ["flop iso", "turn"])
def test_memoised_final_boards_are_analysis_final_boards(case: str) -> None:
    """The summarizer's memoised final boards equal :func:`final_boards`'s at every inner
    node, in any order of asking (weights bit for bit)."""
    from solver.batch.summary import _Summarizer
    from solver.games.model import CHANCE, DECISION
    from solver.study.analysis import final_boards

    game = build_holdem(SPECS[case])
    s = _Summarizer(game, random_sigma(game, 1), 0.0)
    t = game.tree
    inner = np.flatnonzero((t.kind == DECISION) | (t.kind == CHANCE))
    order = np.random.default_rng(4).permutation(inner)[:600]
    assert any(len(final_boards(game, int(n)) or []) > 1 for n in order)  # cards below
    for n in order:
        assert s.final_boards(int(n)) == final_boards(game, int(n)), n


@pytest.mark.parametrize("cells", [1, 5_000])
def test_chunks_of_any_size_give_the_same_summary(
    cells: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nodes summarised one per chunk, or in chunks splitting the tree anywhere: the
    reference's numbers."""
    from solver.batch import summary

    game = build_holdem(SPECS["turn"])
    sigma = random_sigma(game, 6)
    monkeypatch.setattr(summary, "CHUNK_CELLS", cells)
    got = summary.summarize_tree(game, sigma, min_line_reach=0.0)
    assert differences(got, summarize_tree_reference(game, sigma, min_line_reach=0.0)) == []
