"""Tasks claimed with an atomic counter (:mod:`solver.cfr.atomic`): every task of a parallel
pass runs once, whichever thread claims it, and the numbers do not depend on who did."""

from __future__ import annotations

import threading

import numpy as np
import pytest
from numba import njit

from solver import Engine, make_rule
from solver.cfr.atomic import fetch_add
from solver.cfr.drive import run_pass
from solver.cfr.layout import (
    LEAF_COLLECT,
    LEAF_TASKS,
    LEAF_USE,
    NO_DRAWS,
    PassFlags,
    Scratch,
    game_arrays,
)
from solver.cfr.options import SolveOptions
from solver.cfr.tasks import Q_END, Q_HEAD, Q_START, QUEUE
from solver.cfr.walk import SolveState
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import RUNOUT


@njit(nogil=True)
def _claim(counter: np.ndarray, n: int, seen: np.ndarray) -> int:
    """Claim tickets until ``n`` are gone; mark each one claimed; return how many."""
    got = 0
    while True:
        i = fetch_add(counter, 0)
        if i >= n:
            return got
        seen[i] += 1
        got += 1


def test_two_threads_claim_every_ticket_exactly_once() -> None:
    n = 2_000_000
    counter = np.zeros(1, dtype=np.int64)
    seen = np.zeros(n, dtype=np.int64)
    _claim(counter, 0, seen)  # compile before the threads start (it claims one ticket)
    counter[0] = 0
    got = [0, 0]

    def run(t: int) -> None:
        got[t] = _claim(counter, n, seen)

    threads = [threading.Thread(target=run, args=(t,)) for t in range(2)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    # a plain load, add and store would hand some tickets to both threads (and lose counts)
    assert sum(got) == n
    assert np.all(seen == 1)
    assert counter[0] == n + 2  # each thread's last claim overshoots once


def test_fetch_add_refuses_what_is_not_an_int64_vector() -> None:
    @njit
    def bad(x: np.ndarray) -> int:
        return fetch_add(x, 0)

    with pytest.raises(Exception, match=r"fetch_add"):
        bad(np.zeros(2))


def _step(e: Engine, leaf: int, start: int, sc: Scratch, fl: PassFlags, co: np.ndarray) -> int:
    """One step of a parallel pass of ``e`` (:mod:`solver.cfr.parallel`), run here."""
    g = e.game
    st = e.storage
    f = fl._replace(leaf=leaf)
    u = NO_DRAWS
    lv = e.parallel.leaves
    state = SolveState(st, e._no_rbp, e._locks)
    return int(run_pass(game_arrays(g), state, start, st.strategy, co, u, f, sc, lv))


@pytest.mark.cores(2)
def test_one_thread_claiming_every_task_gives_the_serial_numbers() -> None:
    """The second thread of a pass claims every task before the first starts (as when the
    first is descheduled): the same regrets and sums as the serial walk, bit for bit."""
    spec = HoldemSpec(
        board="Ks7h2d9c", pot=100, stack=300, oop_range="AA,KQs,T8s,76s,QJo",
        ip_range="QQ-99,AK,J9s",
    )  # fmt: skip
    g = build_holdem(spec)
    serial = Engine(g, make_rule("dcfr"), options=SolveOptions(threads=1))
    split = Engine(g, make_rule("dcfr"), options=SolveOptions(threads=2))
    par = split.parallel
    lv = par.leaves
    assert par.threads == 2 and lv.order.size > 1
    runout = g.tree.kind[lv.task_node] == RUNOUT
    assert runout.any() and not runout.all()  # the turn's all-in runouts are tasks too
    for it in range(1, 6):
        serial.iterate(1)
        co = split.rule.coefficients(np.array([float(it)]))[0]
        for trav in range(2):
            fl = split.flags(trav)
            _step(split, LEAF_COLLECT, 0, split.scratch, fl, co)
            heads = lv.claimed[Q_HEAD::QUEUE]
            assert (heads == 0).all()
            # thread 1 claims its own queue's tasks, then thread 0's
            assert _step(split, LEAF_TASKS, 1, par.scratches[1], fl, co) > 0
            assert _step(split, LEAF_TASKS, 0, par.scratches[0], fl, co) == 0  # none left
            # each queue claimed to its end, none past it (an empty queue is not counted on)
            np.testing.assert_array_equal(
                heads, lv.claimed[Q_END::QUEUE] - lv.claimed[Q_START::QUEUE]
            )
            # every slot's tasks counted done, so its values were summed by the tasks' step
            np.testing.assert_array_equal(lv.slot_done, np.diff(lv.slot_start))
            _step(split, LEAF_USE, 0, split.scratch, fl, co)
        split.iteration += 1
    np.testing.assert_array_equal(serial.storage.regrets, split.storage.regrets)
    np.testing.assert_array_equal(serial.storage.cumulative, split.storage.cumulative)
