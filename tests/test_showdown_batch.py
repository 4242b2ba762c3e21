"""benchmarks/showdown_batch.py: its batched showdown kernel (the T showdowns below one river
card evaluated together, hand-major) gives each terminal the bits of
:func:`~solver.cfr.terminal.showdown_2card` on that terminal's reach row, for every variant
(run-time count, fixed widths with padding, auto), batch sizes 1, 3 and 8, both traversers;
and the command refuses a bad spot with an ``error:`` line. In float64 only: its bits show a
changed summing order that float32's rounding can hide, and each precision is a compilation
of its own."""

from __future__ import annotations

import functools
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest
from conftest import task_turn

from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import SHOWDOWN, Game

BENCH = Path(__file__).resolve().parent.parent / "benchmarks"


@functools.cache
def bench() -> ModuleType:
    # by its name, as the script imports itself: Numba's cache records a kernel's module
    sys.path.insert(0, str(BENCH))
    import showdown_batch

    return showdown_batch


@functools.cache
def river() -> Game:
    """A river (one board for every showdown) with wide ranges and a few bet sizes."""
    return build_holdem(HoldemSpec(board="Kh9s7d4c2h", pot=200, stack=900,
                                   oop_range="22+,A2+,K2+,Q2+,J2+",
                                   ip_range="T2+,92+,82+,A2s+,K2s+", bets="50%, a",
                                   raises="a"))  # fmt: skip


def _reach(rng: np.random.Generator, g: Game, trav: int, rows: int, dtype: type) -> np.ndarray:
    """(rows, H) opponent reach: magnitudes from 1e-9 to 1 (so the order of the additions
    shows in the bits) and a fifth of the hands 0."""
    out: np.ndarray = np.zeros((rows, g.boards.valid.shape[2]), dtype=dtype)
    n = g.hands.num_hands[1 - trav]
    x = (
        rng.random((rows, n))
        * 10.0 ** rng.integers(-9, 1, (rows, n))
        * (rng.random((rows, n)) < 0.8)
    )
    out[:, :n] = x
    return out


def _check(g: Game, groups: list[np.ndarray], dtype: type, seed: int) -> None:
    sb = bench()
    b = sb.Bench(g, dtype)
    gr = sb.Groups(g, groups)
    rstart = np.ascontiguousarray(gr.gstart[:-1])
    rng = np.random.default_rng(seed)
    for trav in (0, 1):
        reach = _reach(rng, g, trav, gr.count, dtype)
        want = np.full((gr.count, b.h), np.nan, dtype=dtype)
        b.single(gr, trav, rstart, reach, want)
        nt = b.nh[trav]
        assert np.isfinite(want[:, :nt]).all() and np.abs(want[:, :nt]).max() > 0.0
        for width in sb.LABELS:
            got = np.full((gr.count, b.h), np.nan, dtype=dtype)
            b.batch(gr, trav, rstart, reach, got, width)
            for i in range(gr.count):
                assert np.array_equal(got[i, :nt], want[i, :nt]), (sb.LABELS[width], trav, i)


@pytest.mark.parametrize("dtype", [np.float64])  # (see the module docstring)
@pytest.mark.parametrize("size", [1, 3, 8])
def test_batched_showdowns_on_a_river_are_showdown_2card_bits(dtype: type, size: int) -> None:
    g = river()
    shows = np.flatnonzero(g.tree.kind == SHOWDOWN)
    assert len(shows) >= 3 and len(set(g.tree.payoff[shows].tolist())) >= 3
    # four groups of ``size`` showdowns (cycling through the river's, amounts differing)
    groups = [shows[(np.arange(size) + k) % len(shows)] for k in range(4)]
    _check(g, groups, dtype, seed=size)


@pytest.mark.parametrize("dtype", [np.float64])  # (see the module docstring)
def test_batched_showdowns_below_each_river_card_of_a_turn_bit_for_bit(dtype: type) -> None:
    """The real groups of a turn (one per river card, several boards), as the walk meets
    them: each group's rows start where the last one's end."""
    g = task_turn()
    groups = bench().river_groups(g)
    boards = {int(g.tree.board[x[0]]) for x in groups}
    assert len(groups) > 10 and len(boards) > 10
    _check(g, groups, dtype, seed=5)


def test_the_command_refuses_an_unknown_spot(capsys: pytest.CaptureFixture[str]) -> None:
    assert bench().main(["--spots", "T1,Z9"]) == 2
    assert capsys.readouterr().err.startswith("error: --spots: unknown spot 'Z9'")
