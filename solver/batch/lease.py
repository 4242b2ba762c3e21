"""A batch database's writer lease (:mod:`solver.batch.store`'s module doc, "One writer"):
the holder's row in the ``lease`` table, taken in a ``BEGIN IMMEDIATE`` transaction, and the
thread that keeps its heartbeat."""

from __future__ import annotations

import contextlib
import math
import os
import socket
import sqlite3
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.batch import safe_sqlite
from solver.batch.spec import BatchError

LEASE_TABLE = """CREATE TABLE IF NOT EXISTS lease (
    id INTEGER PRIMARY KEY CHECK (id = 1),
    writer TEXT NOT NULL,
    host TEXT NOT NULL,
    pid INTEGER NOT NULL,
    started TEXT NOT NULL,
    heartbeat REAL NOT NULL
)"""


@dataclass(frozen=True)
class LeaseHolder:
    """Who holds (or held) a database's writer lease."""

    writer: str  # host/pid/start time/random: unique to one acquire
    host: str
    pid: int
    started: str  # local ISO time the lease was taken
    heartbeat: float  # Unix time of the holder's last beat

    def describe(self) -> str:
        return f"pid {self.pid} on {self.host[:100]}, since {self.started[:40]}"


def _process_gone(pid: int) -> bool:
    """Whether no process ``pid`` runs on this host (someone else's process runs)."""
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)  # signal 0: only asks whether the process exists
    except ProcessLookupError:
        return True
    except OverflowError:  # no pid is that big
        return True
    except OSError:  # EPERM: it exists, another user's
        return False
    return False


class WriterLease:
    """This process's hold on a database's writer lease (module doc), made by
    :meth:`BatchStore.acquire_lease`: its own connection (autocommit, explicit transactions)
    and a daemon thread that beats every ``heartbeat_s`` seconds until :meth:`release` — a
    thread, so a long cluster start or kernel compile in the driver does not look like
    death."""

    def __init__(self, path: Path, timeout_s: float, heartbeat_s: float) -> None:
        host, pid, now = socket.gethostname(), os.getpid(), time.time()
        started = time.strftime("%Y-%m-%dT%H:%M:%S", time.localtime(now))
        writer = f"{host}/{pid}/{started}/{uuid.uuid4().hex[:8]}"
        self.path = path
        self.timeout_s = float(timeout_s)
        self.heartbeat_s = float(heartbeat_s)
        self.holder = LeaseHolder(writer, host, pid, started, now)
        self.lost = False  # set by a beat that found the lease no longer ours
        self._held = False  # taken (release deletes the row only then)
        self._lock = threading.Lock()  # the connection: one user at a time
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self._con: sqlite3.Connection | None = safe_sqlite.connect(  # (every statement bounded)
            path, timeout=30.0, isolation_level=None
        )

    def dead(self, holder: LeaseHolder, now: float) -> bool:
        """Whether ``holder`` no longer writes: silent past the timeout (or a heartbeat from
        beyond it in the future), or its process gone on this host."""
        age = now - holder.heartbeat
        if not math.isfinite(age) or abs(age) > self.timeout_s:
            return True
        return holder.host == self.holder.host and _process_gone(holder.pid)

    def take(self) -> LeaseHolder | None:
        """Take the lease (and start beating), or raise :class:`BatchError` naming the live
        holder; returns the dead holder taken over, if any."""
        con = self._con
        assert con is not None
        try:
            con.execute("BEGIN IMMEDIATE")  # the write lock first: racers queue here
            try:
                con.execute(LEASE_TABLE)  # a database made before leases gets the table
                row = con.execute(
                    "SELECT writer, host, pid, started, heartbeat FROM lease WHERE id = 1"
                ).fetchone()
                old = _holder(row)
                now = time.time()
                if old is not None and not self.dead(old, now):
                    raise BatchError(
                        "db",
                        f"{self.path} is being written by another batch ({old.describe()}); "
                        "stop it or wait",
                    )
                h = self.holder
                con.execute(
                    "INSERT OR REPLACE INTO lease (id, writer, host, pid, started, heartbeat) "
                    "VALUES (1, ?, ?, ?, ?, ?)",
                    (h.writer, h.host, h.pid, h.started, now),
                )
                con.execute("COMMIT")
                self._held = True
            except BaseException:
                con.execute("ROLLBACK")
                raise
        except (BatchError, sqlite3.DatabaseError) as exc:
            self.release()
            if isinstance(exc, BatchError):
                raise
            raise BatchError("db", f"{self.path}: cannot take the writer lease ({exc})") from None
        self._thread = threading.Thread(target=self._beat_loop, name="batch-lease", daemon=True)
        self._thread.start()
        return old

    def _beat_loop(self) -> None:
        while not self._stop.wait(self.heartbeat_s):
            self.beat()

    def beat(self) -> bool:
        """Refresh the heartbeat; False once the lease is no longer ours (taken over)."""
        with self._lock:
            if self._con is None:
                return False
            try:
                cur = self._con.execute(
                    "UPDATE lease SET heartbeat = ? WHERE id = 1 AND writer = ?",
                    (time.time(), self.holder.writer),
                )
            except sqlite3.Error:  # busy past the timeout, or the file went: the next beat
                return not self.lost
            if cur.rowcount == 0:
                self.lost = True
            return not self.lost

    def lost_message(self) -> str:
        return (
            f"{self.path}: another batch took this batch's writer lease (this one was silent "
            f"for over {self.timeout_s:.0f} s); stopped so as not to overwrite its flops"
        )

    def release(self) -> None:
        """Stop beating and give the lease up (if still ours); closes the connection."""
        self._stop.set()
        if self._thread is not None and self._thread is not threading.current_thread():
            self._thread.join()
        with self._lock:
            con, self._con = self._con, None
            if con is None:
                return
            with contextlib.suppress(sqlite3.Error):  # (a lease taken over is not ours to end)
                if self._held:
                    con.execute(
                        "DELETE FROM lease WHERE id = 1 AND writer = ?", (self.holder.writer,)
                    )
            con.close()


def _holder(row: tuple[Any, ...] | None) -> LeaseHolder | None:
    """The lease row as a holder; None for no row or a malformed one (taken over)."""
    if row is None:
        return None
    writer, host, pid, started, beat = row
    if not (isinstance(writer, str) and isinstance(host, str) and isinstance(started, str)):
        return None
    if isinstance(pid, bool) or not isinstance(pid, int):
        return None
    if isinstance(beat, bool) or not isinstance(beat, (int, float)):
        return None
    return LeaseHolder(writer, host, pid, started, float(beat))
