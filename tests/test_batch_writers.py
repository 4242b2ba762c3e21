"""One writer per batch database: the writer lease. Taken and beaten while held, given up on
close; a live holder refuses a second writer naming it (pid, host, since when); a stale one
(silent past the timeout, or its process gone on this host) is taken over, and the old
holder's next write is refused rather than replacing the new one's rows; writers racing for
it (threads, processes) leave exactly one winner. A database from before the lease opens and
resumes; ``python -m solver batch`` and the app's BatchJob refuse a second batch in one line.
No Dask solve: every test finds its flops done or is refused before the cluster starts."""

from __future__ import annotations

import os
import socket
import sqlite3
import subprocess
import sys
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from batch_helpers import tiny_spec

from solver.batch.driver import BatchProgress, run_batch
from solver.batch.job import BatchJob
from solver.batch.spec import BatchError
from solver.batch.store import LEASE_TIMEOUT_S, BatchStore
from solver.cli import main
from solver.poker.flops import parse_flop

ROOT = Path(__file__).resolve().parent.parent
HOST = socket.gethostname()
SUMMARY = {"ev": [60.0, 40.0], "oop_mix": {"k": 0.5, "b:100": 0.5}}


def _db(tmp_path: Path, done: int = 0) -> Path:
    """A database of the tiny spec with its first ``done`` flops finished."""
    db = tmp_path / "b.db"
    spec = tiny_spec()
    with BatchStore.create_or_open(db, spec) as store:
        for i, flop in enumerate(spec.flop_set()[:done]):
            store.record(flop, i, SUMMARY, seconds=1.0)
    return db


def _lease_rows(db: Path) -> list[tuple]:
    con = sqlite3.connect(db)
    try:
        return con.execute("SELECT writer, host, pid, started, heartbeat FROM lease").fetchall()
    finally:
        con.close()


def _set(db: Path, sql: str, *args: object) -> None:
    con = sqlite3.connect(db)
    con.execute(sql, args)
    con.commit()
    con.close()


def _gone_pid() -> int:
    """The pid of a process that has ended (and been reaped)."""
    proc = subprocess.Popen([sys.executable, "-c", "pass"])
    proc.wait()
    return proc.pid


def test_lease_taken_beaten_and_released(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with BatchStore.open(db) as store:
        assert store.acquire_lease(heartbeat_s=0.05) is None
        [(writer, host, pid, started, beat)] = _lease_rows(db)
        assert (host, pid) == (HOST, os.getpid()) and writer.startswith(f"{HOST}/{pid}/")
        assert started[:4].isdigit() and abs(beat - time.time()) < 5
        deadline = time.monotonic() + 30.0  # a few beats of 0.05 s; a busy machine's margin
        while _lease_rows(db)[0][4] <= beat and time.monotonic() < deadline:
            time.sleep(0.02)
        assert _lease_rows(db)[0][4] > beat  # the heartbeat thread beats
        store.record(parse_flop("Ks9s5s"), 0, SUMMARY)  # writes while the lease is ours
    assert _lease_rows(db) == []  # closing gives it up
    with BatchStore.open(db) as other:
        assert other.acquire_lease() is None  # free again
        assert other.done_flops() == {"Ks9s5s"}
    assert not [t for t in threading.enumerate() if t.name == "batch-lease"]  # beats ended


def test_a_live_lease_refuses_a_second_writer_naming_it(tmp_path: Path) -> None:
    db = _db(tmp_path)
    first = BatchStore.open(db)
    first.acquire_lease()
    started = _lease_rows(db)[0][3]
    second = BatchStore.open(db)
    with pytest.raises(BatchError) as err:
        second.acquire_lease()
    assert err.value.field == "db"
    assert err.value.message == (
        f"{db} is being written by another batch (pid {os.getpid()} on {HOST}, since "
        f"{started}); stop it or wait"
    )
    second.close()
    assert len(_lease_rows(db)) == 1  # the refusal left the holder's lease alone
    first.record(parse_flop("Ks9s5s"), 0, SUMMARY)
    first.close()
    assert _lease_rows(db) == []


def test_a_stale_lease_is_taken_over_and_the_old_writer_stops(tmp_path: Path) -> None:
    db = _db(tmp_path)
    first = BatchStore.open(db)
    first.acquire_lease(heartbeat_s=3600)  # it will not beat again: as if hung or suspended
    _set(db, "UPDATE lease SET heartbeat = ?", time.time() - LEASE_TIMEOUT_S - 5)
    second = BatchStore.open(db)
    dead = second.acquire_lease()
    assert dead is not None and dead.pid == os.getpid()
    with pytest.raises(BatchError) as err:  # the old writer's next write: refused, not made
        first.record(parse_flop("Ks9s5s"), 0, SUMMARY)
    assert err.value.field == "db" and "another batch took this batch's writer lease" in str(
        err.value
    )
    assert second.rows() == []
    second.record(parse_flop("KsJh8d"), 1, SUMMARY)
    first.close()  # does not end the new holder's lease
    assert [r[2] for r in _lease_rows(db)] == [os.getpid()]
    assert second.lease is not None and second.lease.beat() is True
    assert first.lease is None
    second.close()
    with BatchStore.open(db) as store:
        assert store.done_flops() == {"KsJh8d"}


def test_a_lease_whose_process_is_gone_is_taken_over(tmp_path: Path) -> None:
    db = _db(tmp_path)
    with BatchStore.open(db) as store:
        store.acquire_lease()  # makes the table (a database before the lease lacks it)
    gone = _gone_pid()
    fresh = time.time()
    _set(db, "INSERT INTO lease VALUES (1, 'w', ?, ?, 'then', ?)", HOST, gone, fresh)
    with BatchStore.open(db) as store:
        dead = store.acquire_lease()
        assert dead is not None and (dead.pid, dead.host) == (gone, HOST)
    # another host's process cannot be looked at: only its heartbeat counts
    _set(db, "INSERT INTO lease VALUES (1, 'w', 'elsewhere', ?, 'then', ?)", gone, fresh)
    with BatchStore.open(db) as store, pytest.raises(BatchError, match=rf"pid {gone} on elsewhere"):
        store.acquire_lease()
    # a heartbeat from far in the future (a bad clock, a crafted row) does not hold it forever
    _set(db, "UPDATE lease SET heartbeat = ?", fresh + 10 * LEASE_TIMEOUT_S)
    with BatchStore.open(db) as store:
        assert store.acquire_lease() is not None


def test_racing_threads_one_wins(tmp_path: Path) -> None:
    db = _db(tmp_path)
    n = 8
    stores = [BatchStore.open(db) for _ in range(n)]
    gate = threading.Barrier(n)
    results: list[str] = [""] * n

    def race(i: int) -> None:
        gate.wait()
        try:
            stores[i].acquire_lease()
            results[i] = "won"
        except BatchError as exc:
            results[i] = exc.message

    threads = [threading.Thread(target=race, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert results.count("won") == 1, results
    assert all("is being written by another batch" in r for r in results if r != "won")
    for s in stores:
        s.close()
    assert _lease_rows(db) == []


RACER = textwrap.dedent(
    """
    import sys, time
    from pathlib import Path
    from solver.batch.spec import BatchError
    from solver.batch.store import BatchStore

    db, folder, i = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    store = BatchStore.open(db)
    (folder / f"ready-{i}").touch()
    while not (folder / "go").exists():
        time.sleep(0.001)
    try:
        store.acquire_lease()
        result = "won"
    except BatchError as exc:
        result = exc.message
    (folder / f"result-{i}").write_text(result)
    while result == "won" and not (folder / "release").exists():  # hold it until all tried
        time.sleep(0.01)
    store.close()
    """
)


def test_racing_processes_one_wins(tmp_path: Path) -> None:
    db = _db(tmp_path)
    n = 4
    env = {**os.environ, "NUMBA_THREADING_LAYER": "threadsafe"}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", RACER, str(db), str(tmp_path), str(i)], cwd=ROOT, env=env
        )
        for i in range(n)
    ]
    try:
        _until(lambda: all((tmp_path / f"ready-{i}").exists() for i in range(n)))
        (tmp_path / "go").touch()
        _until(lambda: all((tmp_path / f"result-{i}").exists() for i in range(n)))
        results = [(tmp_path / f"result-{i}").read_text() for i in range(n)]
        assert results.count("won") == 1, results
        pids = {p.pid for p in procs}
        losers = [r for r in results if r != "won"]
        assert all("is being written by another batch (pid " in r for r in losers)
        assert all(int(r.split("(pid ")[1].split()[0]) in pids for r in losers)
    finally:
        (tmp_path / "release").touch()
        for p in procs:
            p.wait(60)
    assert [p.returncode for p in procs] == [0] * n
    assert _lease_rows(db) == []


def _until(cond: Callable[[], bool], timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not cond():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)


def test_a_database_from_before_the_lease_resumes(tmp_path: Path) -> None:
    """No lease table (as databases made before it): the batch adds it, finds every flop
    done (no cluster needed) and ends with the lease given up."""
    db = _db(tmp_path, done=3)
    _set(db, "DROP TABLE lease")
    events: list[str] = []
    final = run_batch(tiny_spec(), db, workers=1, on_event=lambda e: events.append(e.kind))
    assert (final.state, final.skipped, final.total) == ("done", 3, 3)
    assert events == ["skipped"] * 3
    assert _lease_rows(db) == []


def test_resume_after_a_batch_died(tmp_path: Path) -> None:
    """A dead batch's lease (silent for long, on another host) is taken over, saying so."""
    db = _db(tmp_path, done=3)
    _set(db, "INSERT INTO lease VALUES (1, 'w', 'node7', 4242, '2026-01-01T00:00:00', 0)")
    messages: list[str] = []

    def on_progress(p: BatchProgress) -> None:
        if p.message:
            messages.append(p.message)

    final = run_batch(tiny_spec(), db, workers=1, on_progress=on_progress)
    assert final.state == "done" and final.skipped == 3
    assert any("taking over" in m and "pid 4242 on node7" in m for m in messages), messages
    assert _lease_rows(db) == []


def test_the_cli_refuses_a_second_batch(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    db = _db(tmp_path, done=1)
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(tiny_spec().to_json())
    holder = BatchStore.open(db)
    holder.acquire_lease()
    try:
        before = holder.rows()
        assert main(["batch", "--spec", str(spec_file), "--db", str(db), "--workers", "1"]) == 2
        err = capsys.readouterr().err
        assert err.startswith(f"error: --db: {db} is being written by another batch (pid ")
        assert f"(pid {os.getpid()} on {HOST}, since " in err and "stop it or wait" in err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert holder.rows() == before
    finally:
        holder.close()


def test_the_apps_batch_job_fails_naming_the_running_batch(tmp_path: Path) -> None:
    db = _db(tmp_path, done=1)
    holder = BatchStore.open(db)
    holder.acquire_lease()
    try:
        job = BatchJob(tiny_spec(), db, workers=1).start()
        p = job.wait_for(lambda q: q.finished, timeout=120)
        assert job.join(30)
        assert p.state == "failed"
        assert p.error.startswith("--db: ") and "is being written by another batch" in p.error
        assert f"(pid {os.getpid()} on {HOST}" in p.error
    finally:
        holder.close()
