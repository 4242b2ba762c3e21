"""A chunk of iterations split over threads in one kernel call per thread
(:func:`solver.cfr.parallel.split_iterations`): the serial walk's numbers bit for bit whether
the other thread takes part or not, a thread that starts late never holds thread 0 up, and a
thread that raises stops the others instead of leaving them waiting."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from conftest import bounded, task_turn
from numba import njit

import solver.cfr.parallel as parallel
from solver import Engine, make_rule
from solver.cfr.atomic import claim, cpu_pause, load_acquire, sched_yield, store_release
from solver.cfr.layout import game_arrays
from solver.cfr.options import SolveOptions
from solver.cfr.parallel import (
    ABORT,
    DONE,
    GO,
    SYNC,
    run_split_iterations,
    split_iterations,
)
from solver.cfr.walk import SolveState
from solver.games.model import Game


@pytest.fixture(scope="module")
def game() -> Game:
    return task_turn()


def _chunk(e: Engine, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The rule's rows and the (zero) draws of ``e``'s next ``k`` iterations."""
    t = np.arange(e.iteration + 1, e.iteration + k + 1, dtype=np.float64)
    return np.ascontiguousarray(e.rule.coefficients(t)), np.zeros((k, 4))


def _same(a: Engine, b: Engine) -> None:
    np.testing.assert_array_equal(a.storage.regrets, b.storage.regrets)
    np.testing.assert_array_equal(a.storage.cumulative, b.storage.cumulative)


def test_atomic_load_store_and_claim() -> None:
    @njit
    def run(a: np.ndarray) -> tuple[int, bool, bool, int]:
        store_release(a, 0, 7)
        first = claim(a, 1, 2)
        second = claim(a, 1, 3)  # taken: stays 2
        return load_acquire(a, 0), first, second, a[1]

    a = np.zeros(2, dtype=np.int64)
    assert run(a) == (7, True, False, 2)

    @njit(nogil=True)
    def wait_a_little(n: int) -> int:  # what a waiting thread calls: the hint, then yields
        got = 0
        for _ in range(n):
            cpu_pause()
            got += sched_yield()
        return got

    assert wait_a_little(3) == 0  # sched_yield returns 0 on success

    @njit
    def bad(x: np.ndarray) -> int:
        return load_acquire(x, 0)

    with pytest.raises(Exception, match=r"load_acquire"):
        bad(np.zeros(2))


@pytest.mark.parametrize("rule", ["dcfr-tuned", "pcfr+"])
@pytest.mark.cores(2)
def test_a_split_chunk_gives_the_serial_numbers_bit_for_bit(game: Game, rule: str) -> None:
    serial = Engine(game, make_rule(rule), options=SolveOptions(threads=1))
    split = Engine(game, make_rule(rule), options=SolveOptions(threads=2))
    par = split.parallel
    assert par.threads == 2 and par.sync.shape == (SYNC + 2,)
    for k in (1, 4, 10):
        serial.iterate(k)
        split.iterate(k)
        _same(serial, split)
        assert split.nodes_touched == serial.nodes_touched
        # the worker took part from the pass it joined at (> 0) or in none (-2k: thread 0
        # finished every pass without it); thread 0 counted every pass
        at = int(par.sync[SYNC + 1])
        assert 1 <= at <= 2 * k or at == -2 * k
        assert par.sync[GO] == 2 * k
        assert par.sync[DONE] == 2 * k + (2 * k - at + 1 if at > 0 else 0)
        assert par.sync[ABORT] == 0
    assert split.best_response_values() == serial.best_response_values()


@pytest.mark.cores(2)
def test_both_threads_taking_part_give_the_serial_numbers_bit_for_bit(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Thread 0 starts only once the other has (so it cannot go on alone): every pass
    waits on both, and the numbers are the serial walk's."""
    serial = Engine(game, make_rule("dcfr-tuned"), options=SolveOptions(threads=1))
    split = Engine(game, make_rule("dcfr-tuned"), options=SolveOptions(threads=2))
    par = split.parallel
    real = run_split_iterations
    touched: dict[int, int] = {}

    def after_the_worker(tid: int, *args: Any) -> int:
        while tid == 0 and par.sync[SYNC + 1] <= 0:
            pass
        touched[tid] = int(real(tid, *args))
        return touched[tid]

    monkeypatch.setattr(parallel, "run_split_iterations", after_the_worker)
    for k in (1, 5):
        coefs, draws = _chunk(split, k)

        def chunk(coefs: np.ndarray = coefs, draws: np.ndarray = draws, k: int = k) -> None:
            n = split_iterations(game, split.storage, split._no_rbp, split._locks, coefs,
                                 draws, split.flags(0), split.scratch, par)  # fmt: skip
            split.nodes_touched += n
            split.iteration += k

        assert bounded(chunk) is None
        assert par.sync[SYNC + 1] == 1 and par.sync[DONE] == 2 * k * 2
        serial.iterate(k)
        _same(serial, split)
        assert split.nodes_touched == serial.nodes_touched
        assert set(touched) == {0, 1}


@pytest.mark.cores(2)
def test_thread_zero_goes_on_alone_when_the_other_never_starts(game: Game) -> None:
    serial = Engine(game, make_rule("dcfr"), options=SolveOptions(threads=1))
    split = Engine(game, make_rule("dcfr"), options=SolveOptions(threads=2))
    par = split.parallel
    g = game
    coefs, draws = _chunk(split, 3)
    par.sync[:] = 0
    state = SolveState(split.storage, split._no_rbp, split._locks)
    args = (game_arrays(g), state, coefs, draws, split.flags(0), split.scratch)
    touched = run_split_iterations(0, 2, *args, par.scratches[0], par.leaves, par.sync)
    assert par.sync[SYNC + 1] == -6  # thread 0 finished every pass without it
    assert par.sync[DONE] == 6
    serial.iterate(3)
    _same(serial, split)
    assert touched == serial.nodes_touched
    # the thread arriving after that finds itself skipped and touches nothing
    before = split.storage.regrets.copy()
    assert run_split_iterations(1, 2, *args, par.scratches[1], par.leaves, par.sync) == 0
    np.testing.assert_array_equal(split.storage.regrets, before)


def _next_chunk(game: Game, e: Engine, k: int) -> Any:
    """A call running ``e``'s next ``k`` iterations through :func:`split_iterations`."""
    coefs, draws = _chunk(e, k)

    def chunk() -> None:
        split_iterations(game, e.storage, e._no_rbp, e._locks, coefs, draws, e.flags(0),
                         e.scratch, e.parallel)  # fmt: skip

    return chunk


@pytest.mark.cores(2)
def test_thread_zero_raising_stops_the_waiting_thread(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    split = Engine(game, make_rule("dcfr"), options=SolveOptions(threads=2))
    par = split.parallel
    real = run_split_iterations
    worker: dict[str, int] = {}

    def fake(tid: int, *args: Any) -> int:
        if tid == 0:  # let the other thread start and wait for a pass, then fail
            while par.sync[SYNC + 1] <= 0:
                pass
            raise RuntimeError("thread 0 failed")
        worker["touched"] = int(real(tid, *args))
        return worker["touched"]

    monkeypatch.setattr(parallel, "run_split_iterations", fake)
    err = bounded(_next_chunk(game, split, 2))
    assert isinstance(err, RuntimeError) and "thread 0 failed" in str(err)
    assert par.sync[ABORT] == 1
    assert worker == {"touched": 0}  # it stopped waiting for the first pass


@pytest.mark.cores(2)
def test_a_worker_raising_stops_thread_zero(game: Game, monkeypatch: pytest.MonkeyPatch) -> None:
    split = Engine(game, make_rule("dcfr"), options=SolveOptions(threads=2))
    par = split.parallel
    real = run_split_iterations

    def fake(tid: int, *args: Any) -> int:
        if tid == 1:  # it joins pass 1, so thread 0 waits for its tasks; then it fails
            par.sync[SYNC + 1] = 1
            while par.sync[GO] < 1:
                pass
            raise RuntimeError("worker failed")
        while par.sync[SYNC + 1] <= 0:  # thread 0 starts once the worker has joined
            pass
        return int(real(tid, *args))

    monkeypatch.setattr(parallel, "run_split_iterations", fake)
    err = bounded(_next_chunk(game, split, 2))
    assert isinstance(err, RuntimeError) and "worker failed" in str(err)
    assert par.sync[ABORT] == 1
    assert par.sync[GO] == 1  # thread 0 stopped in the first pass instead of waiting on


@pytest.mark.cores(2)
def test_split_iterations_refuses_bad_shapes(game: Game) -> None:
    split = Engine(game, make_rule("dcfr"), options=SolveOptions(threads=2))
    coefs, draws = _chunk(split, 2)
    with pytest.raises(ValueError, match="draws"):
        split_iterations(game, split.storage, split._no_rbp, split._locks, coefs, draws[:1],
                         split.flags(0), split.scratch, split.parallel)  # fmt: skip
    one = Engine(game, make_rule("dcfr"), options=SolveOptions(threads=1))
    with pytest.raises(ValueError, match="two threads"):
        split_iterations(game, one.storage, one._no_rbp, one._locks, coefs, draws,
                         one.flags(0), one.scratch, one.parallel)  # fmt: skip


@pytest.mark.cores(2)
def test_a_check_on_two_threads_runs_its_passes_side_by_side(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two threads: the check's two best-response passes run one per thread, unsplit (no
    split pass is made); three: each pass split over them. The serial numbers either way."""
    from solver.cfr import bestresponse
    from solver.cfr.walk import AVERAGE

    serial = Engine(game, make_rule("dcfr-tuned"), options=SolveOptions(threads=1))
    serial.iterate(6)
    want = serial.best_response_values()
    split: list[int] = []
    real = bestresponse.parallel_pass

    def counting(*args: Any) -> int:
        split.append(1)
        return real(*args)

    monkeypatch.setattr(bestresponse, "parallel_pass", counting)
    two = Engine(game, make_rule("dcfr-tuned"), options=SolveOptions(threads=2))
    two.iterate(6)
    assert two.check_parallel.split_checks and two.check_parallel.threads == 2
    assert two.best_response_values() == want and split == []
    three = parallel.make_parallel(game, 3)
    got = bestresponse.best_response_values(game, AVERAGE, None, three, storage=serial.storage)
    assert got == want and len(split) == 2


@pytest.mark.cores(2)
def test_a_check_that_raises_leaves_no_pass_running(
    game: Game, monkeypatch: pytest.MonkeyPatch
) -> None:
    """If one side-by-side pass raises, the call returns only after the other pass has
    ended: the next check takes the same scratch."""
    import time

    from solver.cfr import bestresponse

    ended: list[int] = []

    def pass_(g: Game, sigma: Any, player: int, *rest: Any) -> np.ndarray:
        if player == 0:
            raise RuntimeError("pass 0 failed")
        time.sleep(0.3)
        ended.append(player)
        return np.zeros(1)

    monkeypatch.setattr(bestresponse, "root_player_values", pass_)
    two = Engine(game, make_rule("dcfr-tuned"), options=SolveOptions(threads=2))
    with pytest.raises(RuntimeError, match="pass 0 failed"):
        two.best_response_values()
    assert ended == [1]
