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
    trees(flop TEXT PRIMARY KEY,        -- (since tree summaries; absent in older files)
          version INTEGER,              -- tree summary format (solver.batch.treedata)
          data BLOB)                    -- the flop's per-node summary, compressed
    lease(id INTEGER PRIMARY KEY,       -- one row (id 1) while a batch writes, else none
          writer TEXT,                  -- host/pid/start time/random: this lease's holder
          host TEXT, pid INTEGER, started TEXT,
          heartbeat REAL)               -- Unix time of the holder's last sign of life

One row per flop, written by the driver as each task finishes (WAL lets the app read while a
batch writes). A flop is written once: a re-run skips ``done`` flops and tries ``failed`` ones
again. Opening a database made for another spec, or a file that is not a batch database,
raises :class:`~solver.batch.spec.BatchError` (field ``db``) before anything is written.

**One writer.** A batch writes only while it holds the database's writer lease
(:meth:`BatchStore.acquire_lease`, taken in a ``BEGIN IMMEDIATE`` transaction so two batches
racing for it cannot both win). Its holder refreshes the heartbeat every
:data:`HEARTBEAT_S`; a lease whose heartbeat is older than :data:`LEASE_TIMEOUT_S`, or whose
process is gone on this host, is dead and is taken over. A second batch while the lease is
live is refused, naming the holder; a batch whose lease was taken over (it was silent too
long) stops at its next write instead of replacing the new writer's rows. Databases made
before the lease existed get the table when a batch next opens them to write.

**Reading is checked.** :meth:`BatchStore.rows` (what reports, the app and a resume read)
checks every cell the reports use — types, finite numbers, known texture and status values,
the summary's shape (lists of two, mixes of numbers, class rows with their combos and one
frequency per action), sizes (:data:`~solver.batch.rows.MAX_SUMMARY_BYTES` and the other
caps): :mod:`solver.batch.rows` — and turns the first problem into one :class:`BatchError`
(field ``db``) naming the file, the flop and the column. :meth:`BatchStore.open` checks
the stored spec the same way, and :meth:`BatchStore.tree` a flop's tree summary
(:func:`solver.batch.treedata.read_tree`).
Past these checks the report code may take every value as well-formed. A ``failed`` row's
summary is not read. Before any of it the schema is checked and every statement is bounded
in steps, time and value length (:mod:`solver.batch.safe_sqlite`: no views, triggers or
computed columns — nothing in a file runs code when it is read or written).
"""

from __future__ import annotations

import json
import math
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from solver.batch import safe_sqlite
from solver.batch.lease import LEASE_TABLE, LeaseHolder, WriterLease
from solver.batch.rows import (
    MAX_NODES,
    MAX_SUMMARY_BYTES,
    MAX_TEXT_BYTES,
    BadCell,
    check_summary,
    finite_or_null,
    mix_names,
    read_row,
)
from solver.batch.rows import FlopRow as FlopRow
from solver.batch.solvefiles import MAX_SOLVE_FILE_BYTES as MAX_SOLVE_FILE_BYTES
from solver.batch.solvefiles import read_solve_file as read_solve_file
from solver.batch.solvefiles import solve_dir_of
from solver.batch.spec import BatchError, BatchSpec
from solver.batch.treedata import VERSION as TREE_VERSION
from solver.batch.treedata import TreeDataError, TreeSummary, decode, read_tree
from solver.poker.flops import ALL, Flop
from solver.quoting import brief

FORMAT = "regret-lab-batch"
VERSION = "1"

# What a reader accepts (the caps of a row's cells: solver.batch.rows). A batch of every
# canonical flop has 1,755 rows: anything past these caps is refused before it is parsed.
MAX_ROWS = ALL
MAX_META_BYTES = 1_000_000  # a stored spec (as ``batch --spec`` caps its file)
MAX_ERROR_CHARS = 4_000  # a failure's message as written (cut there, well under the cap)
MAX_MIX_COLUMNS = 2_000  # distinct action columns over all rows: the report table's width

# The writer lease: its holder beats every HEARTBEAT_S seconds; silent for LEASE_TIMEOUT_S
# (a dozen missed beats: a loaded machine still beats) it counts as dead
HEARTBEAT_S = 5.0
LEASE_TIMEOUT_S = 60.0

COLUMNS = (
    "flop",
    "position",
    "weight",
    "suits",
    "pairing",
    "high",
    "connect",
    "status",
    "error",
    "summary",
    "seconds",
    "solve_file",
    "finished_at",
)
_NUMERIC = ("position", "weight", "seconds")

_TABLES = (
    "CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE IF NOT EXISTS flops (
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
)""",
    LEASE_TABLE,
    # per-node summaries of each done flop's whole tree (solver.batch.treedata); databases
    # made before it have none: their reports hold the two root decisions of the summary
    """CREATE TABLE IF NOT EXISTS trees (
    flop TEXT PRIMARY KEY,
    version INTEGER NOT NULL,
    data BLOB NOT NULL
)""",
)


def _cell(column: str) -> str:
    """The SELECT expression of a column as the reader takes it: a number column's number
    (anything else as at most 40 bytes, to name it), a text column's bytes (at most its cap
    + 1, decoded and checked in Python: invalid UTF-8 is named, not raised by sqlite3)."""
    if column in _NUMERIC:
        return (
            f"CASE WHEN typeof({column}) IN ('integer', 'real') THEN {column} "
            f"ELSE substr(CAST({column} AS BLOB), 1, 40) END"
        )
    cap = MAX_SUMMARY_BYTES if column == "summary" else MAX_TEXT_BYTES
    blob = f"CAST({column} AS BLOB)"
    return f"coalesce(substr({blob}, 1, {cap + 1}), {blob})"  # (substr of x'' is NULL)


_SELECT = "SELECT " + ", ".join(_cell(c) for c in COLUMNS) + " FROM flops"


def _read_meta(con: sqlite3.Connection, path: Path) -> dict[str, str]:
    try:
        rows = con.execute(
            "SELECT key, CASE WHEN length(CAST(value AS BLOB)) <= ? THEN value END, "
            "length(CAST(value AS BLOB)) FROM meta LIMIT 100",
            (MAX_META_BYTES,),
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        raise BatchError("db", f"{path}: not a batch database ({exc})") from None
    meta: dict[str, str] = {}
    for key, value, size in rows:
        if size is not None and size > MAX_META_BYTES:
            raise BatchError(
                "db", f"{path}: its {brief(str(key))} is larger than {MAX_META_BYTES:,} bytes"
            )
        meta[str(key)] = "" if value is None else str(value)
    if meta.get("format") != FORMAT:
        raise BatchError("db", f"{path}: not a Regret Lab batch database")
    if meta.get("version") != VERSION:
        raise BatchError(
            "db", f"{path}: batch database version {meta.get('version')!r} (this is {VERSION})"
        )
    return meta


def _check_spec(spec: BatchSpec) -> None:
    """What the reports use of a stored spec: its flop set and its pot (BatchError)."""
    spec.flop_set()
    try:
        pot = float(spec.template.pot)
    except (TypeError, ValueError, OverflowError):
        pot = math.nan
    if not math.isfinite(pot):
        raise BatchError("pot", f"{brief(spec.template.pot)} is not a number")


class BatchStore:
    """An open batch database. Use :meth:`create_or_open` (driver) or :meth:`open` (reports)."""

    def __init__(self, path: Path, con: sqlite3.Connection, spec: BatchSpec) -> None:
        self.path = path
        self._con = con
        self.spec = spec
        self._lease: WriterLease | None = None

    # ----- opening ---------------------------------------------------------------------------
    @classmethod
    def open(cls, path: str | Path) -> BatchStore:
        """An existing batch database (read and write); its spec checked (module doc)."""
        p = Path(path)
        if not p.is_file():
            raise BatchError("db", f"{p}: no such file")
        with open(p, "rb") as fh:
            head = fh.read(16)
        if head and not head.startswith(b"SQLite format 3"):
            raise BatchError("db", f"{p}: not a batch database (not an SQLite file)")
        con = safe_sqlite.connect(p)  # every statement bounded
        try:
            safe_sqlite.check_schema(con, p)  # before any statement reads a table of the file
            meta = _read_meta(con, p)
            spec = BatchSpec.from_json(meta["spec"])
            _check_spec(spec)
        except (BatchError, KeyError, ValueError, TypeError, RecursionError) as exc:
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
            return cls._same_spec(p, spec)
        if not p.parent.is_dir():
            raise BatchError("db", f"{p}: folder {p.parent} does not exist")
        con = safe_sqlite.connect(p)  # every statement bounded
        try:
            con.execute("PRAGMA journal_mode=WAL")
            con.isolation_level = None  # one explicit transaction: two creators, one writes
            con.execute("BEGIN IMMEDIATE")
            try:
                made = con.execute("SELECT 1 FROM sqlite_master WHERE name = 'meta'").fetchone()
                if made is None:
                    for sql in _TABLES:
                        con.execute(sql)
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
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise
            con.isolation_level = "DEFERRED"  # (the default, as "")
        except sqlite3.DatabaseError as exc:
            con.close()
            raise BatchError("db", f"{p}: cannot create the database ({exc})") from None
        if made is not None:  # another batch made the file since we looked: it is theirs
            con.close()
            return cls._same_spec(p, spec)
        return cls(p, con, spec)

    @classmethod
    def _same_spec(cls, p: Path, spec: BatchSpec) -> BatchStore:
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

    def close(self) -> None:
        self.release_lease()
        self._con.close()

    def __enter__(self) -> BatchStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @contextmanager
    def _tx(self) -> Iterator[sqlite3.Connection]:
        with self._con:
            yield self._con

    # ----- the writer lease ------------------------------------------------------------------
    def acquire_lease(
        self, timeout_s: float = LEASE_TIMEOUT_S, heartbeat_s: float = HEARTBEAT_S
    ) -> LeaseHolder | None:
        """Become the database's one writer (module doc) and keep beating until
        :meth:`release_lease` or :meth:`close`. Returns the dead holder taken over (None when
        the lease was free); a live holder raises :class:`BatchError` (field ``db``) naming
        it. While held, :meth:`record` writes only as long as the lease is still ours."""
        if self._lease is not None:
            return None
        lease = WriterLease(self.path, timeout_s, heartbeat_s)
        previous = lease.take()
        self._lease = lease
        return previous

    def release_lease(self) -> None:
        """Give the lease up (nothing when not held)."""
        lease, self._lease = self._lease, None
        if lease is not None:
            lease.release()

    @property
    def lease(self) -> WriterLease | None:
        return self._lease

    # ----- writing ---------------------------------------------------------------------------
    def record(
        self,
        flop: Flop,
        position: int,
        summary: dict[str, Any] | None,
        error: str = "",
        seconds: float = 0.0,
        solve_file: str = "",
        tree: bytes | None = None,
    ) -> FlopRow:
        """Write one finished flop (``summary`` None with an ``error`` for a failure). Only
        what the reader accepts is written: a summary it would refuse raises
        :class:`BatchError` (field ``summary``) and writes nothing; non-finite numbers are
        stored as null (missing). ``tree``: the flop's per-node summary
        (:func:`solver.batch.treedata.encode`), checked as a reader checks it and written in
        the same transaction. Under a lease that another batch has taken over, raises
        :class:`BatchError` (field ``db``) and writes nothing."""
        if tree is not None:
            try:
                decode(tree)
            except TreeDataError as bad:
                raise BatchError("summary", f"flop {flop.text}: tree {bad}") from None
        text = "{}"
        parsed: dict[str, Any] = {}
        if summary is not None:
            text = json.dumps(finite_or_null(summary), allow_nan=False)
            try:
                parsed = check_summary(text.encode("utf-8"))
            except BadCell as bad:
                raise BatchError("summary", f"flop {flop.text}: {bad.what}") from None
        row = FlopRow(
            flop.text,
            int(position),
            float(flop.weight),
            flop.suits,
            flop.pairing,
            flop.high,
            flop.connect,
            "failed" if summary is None else "done",
            str(error)[:MAX_ERROR_CHARS],
            parsed,
            float(seconds),
            solve_file,
            time.strftime("%Y-%m-%dT%H:%M:%S"),
        )
        values = tuple(text if c == "summary" else getattr(row, c) for c in COLUMNS)
        names, marks = ", ".join(COLUMNS), ", ".join("?" * len(COLUMNS))
        with self._tx() as con:
            if self._lease is None:
                con.execute(f"INSERT OR REPLACE INTO flops ({names}) VALUES ({marks})", values)
            else:  # one statement: the lease is checked under the write lock it writes with
                cur = con.execute(
                    f"INSERT OR REPLACE INTO flops ({names}) SELECT {marks} "
                    "WHERE EXISTS (SELECT 1 FROM lease WHERE id = 1 AND writer = ?)",
                    (*values, self._lease.holder.writer),
                )
                if cur.rowcount != 1:
                    raise BatchError("db", self._lease.lost_message())
            if tree is not None:
                con.execute(_TABLES[3])  # (a database made before tree summaries)
                con.execute(
                    "INSERT OR REPLACE INTO trees (flop, version, data) VALUES (?, ?, ?)",
                    (row.flop, TREE_VERSION, sqlite3.Binary(tree)),
                )
        return row

    def has_trees(self) -> bool:
        """Whether the database stores per-node tree summaries (made by a batch since they
        exist); older ones hold only the summary's two root decisions."""
        try:
            found = self._con.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'trees'"
            ).fetchone()
        except sqlite3.DatabaseError as exc:
            raise BatchError("db", f"{self.path}: cannot read the results ({exc})") from None
        return found is not None

    def tree(self, flop: str) -> TreeSummary | None:
        """The checked per-node summary of ``flop`` (None when none is stored); one that is
        not well-formed raises :class:`BatchError` (field ``db``) naming the file, the flop
        and the field (:func:`solver.batch.treedata.read_tree`)."""
        return read_tree(self._con, self.path, flop) if self.has_trees() else None

    # ----- reading ---------------------------------------------------------------------------
    def rows(self, status: str | None = None) -> list[FlopRow]:
        """Finished flops in the batch's order (``status`` "done"/"failed" to filter), each
        row checked (module doc): the first cell the reports could not use raises
        :class:`BatchError` (field ``db``) naming the file, the flop and the column."""
        where = f"{self.path}:"
        try:
            info = self._con.execute("PRAGMA table_info(flops)").fetchall()
            have = {str(r[1]) for r in info}
            missing = [c for c in COLUMNS if c not in have]
            if not info:
                raise BatchError("db", f"{where} no flops table (not a batch database)")
            if missing:
                raise BatchError(
                    "db", f"{where} the flops table has no column {', '.join(missing)}"
                )
            sql = _SELECT + (" WHERE status = ?" if status is not None else "")
            args: tuple[object, ...] = () if status is None else (status,)
            raw = self._con.execute(sql + " ORDER BY position LIMIT ?", (*args, MAX_ROWS + 1))
            found = raw.fetchall()
        except sqlite3.DatabaseError as exc:
            raise BatchError("db", f"{where} cannot read the results ({exc})") from None
        if len(found) > MAX_ROWS:
            raise BatchError("db", f"{where} more than {MAX_ROWS:,} flops (a batch has at most)")
        out: list[FlopRow] = []
        seen: set[str] = set()
        columns: set[str] = set()
        nodes: set[str] = set()
        for i, r in enumerate(found):
            try:
                row = read_row(r)
            except BadCell as bad:
                who = f"flop {bad.flop}" if bad.flop else f"row {i + 1}"
                raise BatchError("db", f"{where} {who}, column {bad.column}: {bad.what}") from None
            if row.flop in seen:
                raise BatchError("db", f"{where} flop {row.flop} is stored twice")
            seen.add(row.flop)
            columns.update(mix_names(row.summary))
            nodes.update(row.summary.get("classes") or {})
            if len(columns) > MAX_MIX_COLUMNS or len(nodes) > MAX_NODES:
                raise BatchError(
                    "db",
                    f"{where} the summaries name more than {MAX_MIX_COLUMNS:,} actions or "
                    f"{MAX_NODES} nodes over the flops (up to flop {row.flop})",
                )
            out.append(row)
        return out

    def done_flops(self) -> set[str]:
        return {r.flop for r in self.rows("done")}

    def solve_dir(self) -> Path:
        """Where saved solves of this batch go: ``<db name>.solves/`` beside the database."""
        return solve_dir_of(self.path)
