"""A river (no chance node to cut) split over threads at its decision nodes
(:func:`solver.cfr.parallel.make_parallel`): the cut covers every line once, the serial
walk's numbers come out bit for bit — tasks the opponent never reaches included — and a
thread that joins a chunk late takes part in the rest of it."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pytest
from conftest import bounded

import solver.cfr.parallel as parallel
from solver import Engine, make_rule
from solver.cfr.options import SolveOptions
from solver.cfr.parallel import (
    DONE,
    GO,
    MIN_SPLIT_COST,
    RIVER_GRAIN,
    SYNC,
    make_parallel,
    run_split_iterations,
    split_iterations,
    subtree_costs,
)
from solver.cfr.tasks import Q_END, Q_START, QUEUE
from solver.games import make_game
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import CHANCE, DECISION, Game

# a river under MIN_SPLIT_COST hand-cells (the tests lower the bar, :func:`low_bar`), with
# bets and raises deep enough that some lines go unreached as the regrets settle
RIVER = HoldemSpec(
    board="Td9d6hQc2s", pot=200, stack=900,
    oop_range="66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs",
    ip_range="QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+",
    bets="50%, 100%, a", raises="100%, a",
)  # fmt: skip


@pytest.fixture(scope="module")
def river() -> Game:
    return build_holdem(RIVER)


@pytest.fixture
def low_bar(monkeypatch: pytest.MonkeyPatch) -> None:
    """Engines split rivers of any size (compiling and running a river past the bar would
    only make the tests slower: the walk does not know the difference), and finer: more cut
    nodes, deeper ones among them, which the opponent stops reaching as the regrets settle."""
    monkeypatch.setattr(parallel, "MIN_SPLIT_COST", 0.0)
    monkeypatch.setattr(parallel, "RIVER_GRAIN", 4)


def _same(a: Engine, b: Engine) -> None:
    np.testing.assert_array_equal(a.storage.regrets, b.storage.regrets)
    np.testing.assert_array_equal(a.storage.cumulative, b.storage.cumulative)
    assert a.nodes_touched == b.nodes_touched


def _lines_cross_the_cut_once(g: Game, cut: set[int]) -> None:
    """Every path from the root to a terminal passes exactly one cut node."""
    stack = [(0, 0)]
    while stack:
        n, seen = stack.pop()
        seen += n in cut
        assert seen <= 1
        kids = list(g.children(n))
        if not kids:
            assert seen == 1, f"terminal {n} is below no cut node"
        stack.extend((c, seen) for c in kids)


def test_a_river_is_cut_at_its_decision_nodes(river: Game) -> None:
    cost = subtree_costs(river.tree, river.hands, river.parents)
    assert not np.any(river.tree.kind == CHANCE)
    par = make_parallel(river, 2, min_cost=0)
    assert par.threads == 2 and not par.split_checks
    lv = par.leaves
    cut = set(np.flatnonzero(lv.slot >= 0).tolist())
    assert cut == set(par.task_node.tolist())  # each cut node is its own task
    assert 0 not in cut
    _lines_cross_the_cut_once(river, cut)
    limit = cost[0] / (RIVER_GRAIN * 2)
    for n in cut:  # only terminals may stay bigger than the grain
        assert cost[n] <= limit or river.tree.kind[n] != DECISION
    c = lv.claimed
    for b in range(0, c.size, QUEUE):  # each thread's queue biggest first
        order_cost = cost[par.task_node[lv.order[c[b + Q_START] : c[b + Q_END]]]]
        assert np.all(np.diff(order_cost) <= 0)
    # a turn keeps its chance cut and splits its checks too
    turn = build_holdem(HoldemSpec(board="Td9d6hQc", pot=100, stack=200, oop_range="AA,KQs",
                                   ip_range="QQ,J9s", bets="a", raises=""))  # fmt: skip
    assert make_parallel(turn, 2).split_checks


def test_small_games_stay_serial_unless_asked(river: Game) -> None:
    kuhn = make_game("kuhn")
    assert make_parallel(kuhn, 2).threads == 1  # a few dozen hand-cells: not worth it
    assert make_parallel(kuhn, 2, min_cost=0).threads == 2
    cost = subtree_costs(river.tree, river.hands, river.parents)[0]
    assert cost < MIN_SPLIT_COST and make_parallel(river, 2).threads == 1
    assert make_parallel(river, 1, min_cost=0).threads == 1
    # more sizes: past the bar, split by default
    wide = build_holdem(replace(RIVER, bets="33%, 50%, 75%, 100%, 150%, a",
                                raises="50%, 100%, a"))  # fmt: skip
    assert subtree_costs(wide.tree, wide.hands, wide.parents)[0] >= MIN_SPLIT_COST
    par = make_parallel(wide, 2)
    assert par.threads == 2 and not par.split_checks


@pytest.mark.parametrize(
    ("rule", "precision"),
    [("dcfr-tuned", "float32"), ("pcfr+", "float32"), ("cfr+", "float64"), ("dcfr", "compressed")],
)
@pytest.mark.cores(2)
def test_a_split_river_gives_the_serial_numbers_bit_for_bit(
    river: Game, rule: str, precision: str, low_bar: None
) -> None:
    serial = Engine(river, make_rule(rule), options=SolveOptions(threads=1, precision=precision))
    split = Engine(river, make_rule(rule), options=SolveOptions(threads=2, precision=precision))
    assert split.parallel.threads == 2
    unreached = 0
    lv = split.parallel.leaves
    cut = int(lv.slot_start.shape[0] - 1)
    for k in (1, 3, 10, 10, 16):
        serial.iterate(k)
        split.iterate(k)
        _same(serial, split)
        # the last pass's collected reach: a cut node the opponent never reaches is a task
        # skipped (values 0, its zero update left to the upper walk)
        unreached += int(np.sum(lv.reach[:cut].sum(axis=1) == 0.0))
    assert split.best_response_values() == serial.best_response_values()
    np.testing.assert_array_equal(serial.average_strategy(), split.average_strategy())
    if rule == "pcfr+":
        assert unreached > 0  # the skipped-task path ran


@pytest.mark.cores(2)
def test_kuhn_split_at_its_decision_nodes_matches_the_serial_walk(low_bar: None) -> None:
    g = make_game("kuhn")
    for rule in ("cfr", "dcfr"):
        serial = Engine(g, make_rule(rule), options=SolveOptions(threads=1))
        split = Engine(g, make_rule(rule), options=SolveOptions(threads=2))
        assert split.parallel.threads == 2
        for k in (1, 9, 40):
            serial.iterate(k)
            split.iterate(k)
            _same(serial, split)
        assert split.best_response_values() == serial.best_response_values()


@pytest.mark.cores(2)
def test_a_thread_joining_late_takes_part_in_the_rest_of_the_chunk(
    river: Game, monkeypatch: pytest.MonkeyPatch, low_bar: None
) -> None:
    """The worker starts only once thread 0 has published pass 3: it joins at pass 3 or 4
    (the first pass thread 0 has not finished its tasks of), thread 0 counts it from there,
    and the numbers are still the serial walk's."""
    serial = Engine(river, make_rule("dcfr-tuned"), options=SolveOptions(threads=1))
    split = Engine(river, make_rule("dcfr-tuned"), options=SolveOptions(threads=2))
    par = split.parallel
    real = run_split_iterations
    touched: dict[int, int] = {}
    k = 8

    def late(tid: int, *args: Any) -> int:
        while tid == 1 and par.sync[GO] < 3:
            pass
        touched[tid] = int(real(tid, *args))
        return touched[tid]

    monkeypatch.setattr(parallel, "run_split_iterations", late)
    t = np.arange(1, k + 1, dtype=np.float64)
    coefs = np.ascontiguousarray(split.rule.coefficients(t))

    def chunk() -> None:
        n = split_iterations(river, split.storage, split._no_rbp, split._locks, coefs,
                             np.zeros((k, 4)), split.flags(0), split.scratch, par)  # fmt: skip
        split.nodes_touched += n
        split.iteration += k

    assert bounded(chunk) is None
    at = int(par.sync[SYNC + 1])
    passes = 2 * k
    assert 3 <= at <= passes or at == -passes  # (-passes: it came after the last pass)
    assert par.sync[DONE] == passes + (passes - at + 1 if at > 0 else 0)
    serial.iterate(k)
    _same(serial, split)
    assert set(touched) == {0, 1}
