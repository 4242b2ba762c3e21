"""A batch's results in one SQLite file (stdlib ``sqlite3``, WAL mode).

Schema (version 1)::

    meta(key TEXT PRIMARY KEY, value TEXT)
        format = "regret-lab-batch", version = "1", spec = BatchSpec JSON,
        fingerprint = BatchSpec.fingerprint(), created = ISO time
    flops(flop TEXT PRIMARY KEY,        -- canonical flop, e.g. "AsKh7d"
          position INTEGER,             -- order in the batch's flop set
          weight REAL, suits TEXT, pairing TEXT, high TEXT, connect TEXT,
          status TEXT,                  -- "done" or "failed"
          error TEXT,                   -- why it failed ("" when done)
          summary TEXT,                 -- JSON summary of the solve (see solver.batch.task)
          seconds REAL,                 -- task wall time
          solve_file TEXT,              -- saved solve (.npz) next to the database, or ""
          finished_at TEXT)

One row per flop, written by the driver as each task finishes (one writer; WAL lets the app
read while a batch writes). A flop is written once: a re-run skips ``done`` flops and tries
``failed`` ones again. Opening a database made for another spec, or a file that is not a
batch database, raises :class:`~solver.batch.spec.BatchError` (field ``db``) before anything
is written.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from solver.batch.spec import BatchError, BatchSpec
from solver.flops import Flop

FORMAT = "regret-lab-batch"
VERSION = "1"

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS flops (
    flop TEXT PRIMARY KEY,
    position INTEGER NOT NULL,
    weight REAL NOT NULL,
    suits TEXT NOT NULL,
    pairing TEXT NOT NULL,
    high TEXT NOT NULL,
    connect TEXT NOT NULL,
    status TEXT NOT NULL,
    error TEXT NOT NULL DEFAULT '',
    summary TEXT NOT NULL DEFAULT '{}',
    seconds REAL NOT NULL DEFAULT 0,
    solve_file TEXT NOT NULL DEFAULT '',
    finished_at TEXT NOT NULL
);
"""


@dataclass(frozen=True)
class FlopRow:
    """One finished flop as stored."""

    flop: str
    position: int
    weight: float
    suits: str
    pairing: str
    high: str
    connect: str
    status: str
    error: str
    summary: dict[str, Any]
    seconds: float
    solve_file: str
    finished_at: str

    @property
    def done(self) -> bool:
        return self.status == "done"


def _connect(path: Path) -> sqlite3.Connection:
    con = sqlite3.connect(str(path), timeout=30.0, check_same_thread=False)
    return con


def _read_meta(con: sqlite3.Connection, path: Path) -> dict[str, str]:
    try:
        rows = con.execute("SELECT key, value FROM meta").fetchall()
    except sqlite3.DatabaseError as exc:
        raise BatchError("db", f"{path}: not a batch database ({exc})") from None
    meta = {str(k): str(v) for k, v in rows}
    if meta.get("format") != FORMAT:
        raise BatchError("db", f"{path}: not a Regret Lab batch database")
    if meta.get("version") != VERSION:
        raise BatchError(
            "db", f"{path}: batch database version {meta.get('version')!r} (this is {VERSION})"
        )
    return meta


class BatchStore:
    """An open batch database. Use :meth:`create_or_open` (driver) or :meth:`open` (reports)."""

    def __init__(self, path: Path, con: sqlite3.Connection, spec: BatchSpec) -> None:
        self.path = path
        self._con = con
        self.spec = spec

    # ----- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path) -> BatchStore:
        """An existing batch database (read and write)."""
        p = Path(path)
        if not p.is_file():
            raise BatchError("db", f"{p}: no such file")
        with open(p, "rb") as fh:
            head = fh.read(16)
        if head and not head.startswith(b"SQLite format 3"):
            raise BatchError("db", f"{p}: not a batch database (not an SQLite file)")
        con = _connect(p)
        try:
            meta = _read_meta(con, p)
            spec = BatchSpec.from_json(meta["spec"])
        except (BatchError, KeyError, json.JSONDecodeError) as exc:
            con.close()
            if isinstance(exc, BatchError) and exc.field == "db":
                raise
            raise BatchError("db", f"{p}: corrupt batch metadata ({exc})") from None
        return cls(p, con, spec)

    @classmethod
    def create_or_open(cls, path: str | Path, spec: BatchSpec) -> BatchStore:
        """Open the database for ``spec``, creating it if the file does not exist. A file
        that holds another spec's batch (or is no batch database) is refused untouched."""
        p = Path(path)
        if p.exists():
            store = cls.open(p)
            if store.spec.fingerprint() != spec.fingerprint():
                theirs, ours = store.spec.identity(), spec.identity()
                diff = sorted(k for k in ours if ours[k] != theirs.get(k))
                store.close()
                raise BatchError(
                    "db",
                    f"{p} holds a batch of another spec (differs in {', '.join(diff)}): "
                    "give another --db file, or the same settings to resume it",
                )
            return store
        if not p.parent.is_dir():
            raise BatchError("db", f"{p}: folder {p.parent} does not exist")
        con = _connect(p)
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.executescript(_SCHEMA)
            with con:
                con.executemany(
                    "INSERT INTO meta (key, value) VALUES (?, ?)",
                    [
                        ("format", FORMAT),
                        ("version", VERSION),
                        ("spec", spec.to_json()),
                        ("fingerprint", spec.fingerprint()),
                        ("created", time.strftime("%Y-%m-%dT%H:%M:%S")),
                    ],
                )
        except sqlite3.DatabaseError as exc:
            con.close()
            raise BatchError("db", f"{p}: cannot create the database ({exc})") from None
        return cls(p, con, spec)

    def close(self) -> None:
        self._con.close()

    def __enter__(self) -> BatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._con:
            yield self._con

    # ----- writing ---------------------------------------------------------------------------
    def record(
        self,
        flop: Flop,
        position: int,
        summary: dict[str, Any] | None,
        error: str = "",
        seconds: float = 0.0,
        solve_file: str = "",
    ) -> FlopRow:
        """Write one finished flop (``summary`` None with an ``error`` for a failure)."""
        status = "failed" if summary is None else "done"
        row = (
            flop.text,
            position,
            flop.weight,
            flop.suits,
            flop.pairing,
            flop.high,
            flop.connect,
            status,
            error,
            json.dumps(summary or {}),
            float(seconds),
            solve_file,
            time.strftime("%Y-%m-%dT%H:%M:%S"),
        )
        with self._tx() as con:
            con.execute("INSERT OR REPLACE INTO flops VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)", row)
        return _row(row)

    # ----- reading ---------------------------------------------------------------------------
    def rows(self, status: str | None = None) -> list[FlopRow]:
        """Finished flops in the batch's order (``status`` "done"/"failed" to filter)."""
        sql = "SELECT * FROM flops"
        args: tuple[str, ...] = ()
        if status is not None:
            sql += " WHERE status = ?"
            args = (status,)
        try:
            rows = self._con.execute(sql + " ORDER BY position", args).fetchall()
        except sqlite3.DatabaseError as exc:
            raise BatchError("db", f"{self.path}: cannot read the results ({exc})") from None
        return [_row(r) for r in rows]

    def done_flops(self) -> set[str]:
        return {r.flop for r in self.rows("done")}

    def solve_dir(self) -> Path:
        """Where saved solves of this batch go: ``<db name>.solves/`` beside the database."""
        return solve_dir_of(self.path)


# A saved solve's size cap when a database names it (load_solve's own, checked before reading)
MAX_SOLVE_FILE_BYTES = 2_000_000_000


def solve_dir_of(db: Path) -> Path:
    """``<db name>.solves/`` beside the database: the only folder its solve files may name."""
    return db.with_name(db.name + ".solves")


def read_solve_file(db: Path, solve_file: str, max_bytes: int = MAX_SOLVE_FILE_BYTES) -> bytes:
    """The bytes of the saved solve a database row names (``solve_file``, relative to the
    database's folder, as :mod:`solver.batch.driver` writes it), read only from inside the
    database's own ``<db>.solves/`` folder: an absolute path, a ``..`` step, a symlink that
    leads out, anything but a regular file or a file over ``max_bytes`` (checked before
    reading) is refused with :class:`BatchError` (field ``solve_file``). The message never
    says whether a path outside that folder exists."""
    name = str(solve_file)
    rel = Path(name)
    if not name or "\0" in name or rel.is_absolute() or ".." in rel.parts:
        raise BatchError("solve_file", f"{name[:80]!r} is not a file in the batch's .solves folder")
    root = solve_dir_of(db)
    try:  # where it leads first, existence after: nothing said about outside the folder
        base = root.resolve()
        target = (db.parent / rel).resolve()
    except (OSError, RuntimeError):
        raise BatchError("solve_file", f"{name[:80]!r}: no such saved solve") from None
    if base not in target.parents:
        raise BatchError("solve_file", f"{name[:80]!r} is not a file in the batch's .solves folder")
    if not target.exists():
        raise BatchError("solve_file", f"{name[:80]!r}: no such saved solve")
    try:
        fd = os.open(target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0))
    except OSError:
        raise BatchError("solve_file", f"{name[:80]!r}: cannot be read") from None
    with os.fdopen(fd, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise BatchError("solve_file", f"{name[:80]!r} is not a regular file")
        if info.st_size > max_bytes:
            raise BatchError("solve_file", f"{name[:80]!r} is larger than {max_bytes:,} bytes")
        data = f.read(max_bytes + 1)
    if len(data) > max_bytes:  # grew while being read
        raise BatchError("solve_file", f"{name[:80]!r} is larger than {max_bytes:,} bytes")
    return data


def _row(r: tuple[Any, ...]) -> FlopRow:
    try:
        summary = json.loads(r[9]) if r[9] else {}
    except json.JSONDecodeError:
        summary = {}
    return FlopRow(
        str(r[0]),
        int(r[1]),
        float(r[2]),
        str(r[3]),
        str(r[4]),
        str(r[5]),
        str(r[6]),
        str(r[7]),
        str(r[8]),
        summary if isinstance(summary, dict) else {},
        float(r[10]),
        str(r[11]),
        str(r[12]),
    )
