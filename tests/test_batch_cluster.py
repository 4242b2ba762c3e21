"""Batches on a real Dask ``LocalCluster`` (worker processes importing this checkout's
``solver``): the database matches the same flops solved one by one in process, number for
number, its tree summaries byte for byte and its saved solves strategy for strategy; a
stopped batch resumes with only the rest solved; a worker killed mid-task leaves the batch
complete with every flop once; a scheduler that does not answer is a clear error that leaves
no file behind. The driver's own embedded cluster is exercised by the CLI test
(tests/test_batch_cli.py)."""

from __future__ import annotations

import os
import signal
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import closing
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from batch_helpers import solved_flop, tiny_spec
from distributed import Client, LocalCluster

from solver.batch.driver import BatchEvent, BatchProgress, check_workers, run_batch
from solver.batch.spec import BatchError
from solver.batch.store import BatchStore, read_solve_file
from solver.files.export import load_solve

# eight flops of under a second each to solve and summarise (AsKh7d or Qs7s3h: 2-3 s)
EIGHT = "Ks9s5s, 5s5h5d, 2s2h2d, Js9s5s, Ts9s6h, 8s8h5d, QsJs9h, Ts9h6d"

# per-flop numbers that depend on the machine, not on the solve
TIMINGS = ("solve_seconds",)


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as c:
        yield c


def _numbers(summary: dict) -> dict:
    return {k: v for k, v in summary.items() if k not in TIMINGS}


def test_cluster_matches_in_process_solves(cluster: LocalCluster, tmp_path: Path) -> None:
    spec = tiny_spec(save_solves=True)
    db = tmp_path / "b.db"
    events: list[BatchEvent] = []
    progress: list[BatchProgress] = []
    final = run_batch(
        spec, db, scheduler=cluster.scheduler_address, on_event=events.append,
        on_progress=progress.append,
    )  # fmt: skip
    assert final.state == "done" and final.done == final.total == 3 and final.failed == 0
    assert sorted(e.row.flop for e in events) == sorted(f.text for f in spec.flop_set())
    assert [p.done for p in progress if p.state == "running" and p.last_event][-1] == 3
    with BatchStore.open(db) as store:
        rows = {r.flop: r for r in store.rows()}
    assert set(rows) == {"Ks9s5s", "KsJh8d", "8s8h5d"}
    with closing(sqlite3.connect(db)) as con:  # the stored bytes
        trees = dict(con.execute("SELECT flop, data FROM trees").fetchall())
    assert set(trees) == set(rows)
    for flop, row in rows.items():
        here = solved_flop(spec, flop)  # solve_flop in this process (once per test run)
        assert _numbers(row.summary) == _numbers(here["summary"]), flop
        assert row.weight == next(f.weight for f in spec.flop_set() if f.text == flop)
        assert row.status == "done" and row.seconds > 0
        sigma = load_solve(here["solve"]).engine.average_strategy()
        saved = load_solve(read_solve_file(db, row.solve_file))
        assert np.array_equal(saved.engine.average_strategy(), sigma), flop
        assert trees[flop] == here["tree"], flop


def test_stop_then_resume_solves_only_the_rest(cluster: LocalCluster, tmp_path: Path) -> None:
    spec = tiny_spec(flops=EIGHT)
    db = tmp_path / "b.db"
    stop = threading.Event()
    first: list[BatchEvent] = []

    def on_event(e: BatchEvent) -> None:
        first.append(e)
        if len(first) >= 3:
            stop.set()

    p1 = run_batch(spec, db, scheduler=cluster.scheduler_address, on_event=on_event, stop=stop)
    assert p1.state == "stopped"
    with BatchStore.open(db) as store:
        kept = store.done_flops()
    assert len(kept) == len(first) and 3 <= len(kept) < 8  # nothing finished was lost
    second: list[BatchEvent] = []
    p2 = run_batch(spec, db, scheduler=cluster.scheduler_address, on_event=second.append)
    assert p2.state == "done" and p2.done == 8 and p2.skipped == len(kept)
    assert {e.row.flop for e in second if e.kind == "skipped"} == kept
    solved_again = [e.row.flop for e in second if e.kind == "done"]
    assert not set(solved_again) & kept and len(solved_again) == 8 - len(kept)
    with BatchStore.open(db) as store:
        assert len(store.rows("done")) == 8


def test_killed_worker_is_retried(cluster: LocalCluster, tmp_path: Path) -> None:
    # six unpaired flops of a fixed 150 iterations, 0.7-1 s each (the tasks are long enough
    # for the kill to land mid-solve; none so long that solving it again drags the test)
    flops = "KsJh8d, Ts9h6d, Ts9h8d, 7s6h3d, 9s6s5s, Ks9s5s, 8s8h5d, 5s5h5d"
    spec = tiny_spec(flops=flops, filters={"pairing": ["unpaired"]}, target_pct=None,
                     max_iterations=150, check_every=50)  # fmt: skip
    n = len(spec.flop_set())
    db = tmp_path / "b.db"
    done: list[BatchEvent] = []
    result: list[BatchProgress] = []
    runner = threading.Thread(
        target=lambda: result.append(
            run_batch(spec, db, scheduler=cluster.scheduler_address, on_event=done.append)
        )
    )
    runner.start()
    killed = None
    with Client(cluster.scheduler_address) as client:
        deadline = time.monotonic() + 120
        while killed is None and time.monotonic() < deadline and runner.is_alive():
            busy = {w: keys for w, keys in client.processing().items() if any(
                str(k).startswith("flop-") for k in keys)}  # fmt: skip
            if busy and len(done) >= 1:
                worker = sorted(busy)[0]
                pid = client.run(os.getpid, workers=[worker])[worker]
                os.kill(pid, signal.SIGKILL)
                killed = (worker, busy[worker])
            time.sleep(0.05)
        runner.join(timeout=300)
    assert killed is not None, "no task was running to kill"
    assert not runner.is_alive() and result[0].state == "done"
    assert result[0].failed == 0 and result[0].done == n
    with BatchStore.open(db) as store:
        rows = store.rows()
    assert sorted(r.flop for r in rows) == sorted(f.text for f in spec.flop_set())
    assert all(r.status == "done" for r in rows)  # every flop once, none failed
    assert len(done) == n


def test_unreachable_scheduler_leaves_nothing(tmp_path: Path) -> None:
    db = tmp_path / "b.db"
    with pytest.raises(BatchError) as err:
        run_batch(tiny_spec(), db, scheduler="tcp://127.0.0.1:9", connect_timeout=1.0)
    assert err.value.field == "scheduler" and "127.0.0.1:9" in err.value.message
    assert not db.exists()
    with pytest.raises(BatchError) as err:
        run_batch(tiny_spec(), db, scheduler="not an address")
    assert err.value.field == "scheduler"
    with pytest.raises(BatchError) as err:
        check_workers(2, 2, cores=2)  # 4 solver threads on 2 cores
    assert err.value.field == "workers" and "4 > 2 cores" in err.value.message
    check_workers(2, 1, cores=2)
    if (os.cpu_count() or 1) < 4:
        with pytest.raises(BatchError):
            run_batch(replace(tiny_spec(), threads=2), db, workers=2)
    assert not db.exists()
