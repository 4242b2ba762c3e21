"""Opening an SQLite file the program may not have written (an upload, a copy, a file another
batch made) so that reading it runs no code it holds and ends in bounded time and memory.

SQLite runs what a file's schema says while it is read or written: a *view* is a query run
each time it is read (an endless recursive one keeps a core busy for ever, outside Python's
reach), a *trigger* runs statements on every write, a *generated column* computes its cells
on every read, a *virtual table* hands reading to a module, an index on an expression
evaluates it on every write. A batch database holds none of these, so
:func:`check_schema` refuses a file that does (reading only ``sqlite_master``, before any
statement touches a user table). What is left runs only on a write and holds no query (a
``CHECK`` constraint: SQLite allows no subquery there), under the bounds below.

Every statement on a :func:`connect` connection is bounded besides: a progress handler
stops it past :data:`STEPS` virtual-machine steps or :data:`SECONDS` of running (counted
from its first step, so waiting for a lock is not counted), and SQLite's own length limit
keeps any one value under :data:`MAX_VALUE_BYTES` (a ``zeroblob(900000000)`` fails as it
is made, not after). A stopped statement raises :class:`BudgetError` (an
``sqlite3.OperationalError``: every reader's ``except sqlite3.DatabaseError`` turns it into
its own :class:`~solver.batch.spec.BatchError` naming the file), whose message says which
budget ran out.
"""

from __future__ import annotations

import contextlib
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, Literal

from solver.batch.spec import BatchError
from solver.quoting import brief

STEPS = 50_000_000
"""Most SQLite virtual-machine steps one statement may take. A batch's largest read (every
row of 1,755 flops, or one flop's tree summary) takes well under a million."""
SECONDS = 20.0
"""Most seconds one statement may run (from its first step), for steps that are slow."""
EVERY = 1_000
"""Steps between two calls of the progress handler."""
MAX_VALUE_BYTES = 32 * 2**20
"""Longest string or blob SQLite makes or reads on a bounded connection (bytes): above every
cap of a batch database's cells (a tree summary: 16 MB)."""
MAX_SCHEMA_OBJECTS = 64
"""Most tables and indexes a batch database's schema may list (it has 4 tables)."""


class BudgetError(sqlite3.OperationalError):
    """A statement stopped by its budget (:data:`STEPS`, :data:`SECONDS`) or by the value
    length limit; the message says which."""


class _Budget:
    """The progress handler's count for the statement running now."""

    def __init__(self, steps: int, seconds: float) -> None:
        self.steps = int(steps)
        self.seconds = float(seconds)
        self.reset()

    def reset(self) -> None:
        self.done = 0
        self.first = 0.0  # monotonic time of the statement's first handler call
        self.tripped = ""

    def __call__(self) -> int:
        self.done += EVERY
        now = time.monotonic()
        if not self.first:
            self.first = now
        if self.done > self.steps:
            self.tripped = f"more than {self.steps:,} steps"
        elif now - self.first > self.seconds:
            self.tripped = f"more than {self.seconds:g} s"
        return 1 if self.tripped else 0  # nonzero: SQLite stops the statement


class BoundedCursor(sqlite3.Cursor):
    """A cursor whose statements run under the connection's budget (module doc)."""

    @contextlib.contextmanager
    def _bounded(self, start: bool) -> Iterator[None]:
        budget: _Budget = self.connection.budget  # type: ignore[attr-defined]
        if start:
            budget.reset()
        try:
            yield
        except sqlite3.OperationalError:
            if budget.tripped:
                raise BudgetError(
                    f"a statement ran past its budget ({budget.tripped}); a batch database "
                    "is read in bounded time"
                ) from None
            raise
        except sqlite3.DataError as exc:
            if "too big" in str(exc):
                raise BudgetError(
                    f"a value longer than {MAX_VALUE_BYTES:,} bytes (a batch database's "
                    "cells are far shorter)"
                ) from None
            raise

    def execute(self, sql: str, parameters: Any = (), /) -> BoundedCursor:
        with self._bounded(True):
            super().execute(sql, parameters)
        return self

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> BoundedCursor:
        with self._bounded(True):
            super().executemany(sql, seq_of_parameters)
        return self

    def fetchone(self) -> Any:
        with self._bounded(False):
            return super().fetchone()

    def fetchmany(self, size: int | None = None) -> list[Any]:
        with self._bounded(False):
            return super().fetchmany() if size is None else super().fetchmany(size)

    def fetchall(self) -> list[Any]:
        with self._bounded(False):
            return super().fetchall()

    def __next__(self) -> Any:
        with self._bounded(False):
            return super().__next__()


class BoundedConnection(sqlite3.Connection):
    """A connection made by :func:`connect`: its cursors are :class:`BoundedCursor`."""

    budget: _Budget

    def cursor(self, factory: Any = None) -> Any:
        return super().cursor(factory or BoundedCursor)

    def execute(self, sql: str, parameters: Any = (), /) -> Any:
        return self.cursor().execute(sql, parameters)  # (sqlite3's own skips cursor())

    def executemany(self, sql: str, seq_of_parameters: Any, /) -> Any:
        return self.cursor().executemany(sql, seq_of_parameters)

    def executescript(self, sql_script: str, /) -> Any:
        raise NotImplementedError("a bounded connection runs one statement at a time")


def connect(
    path: str | Path,
    *,
    steps: int | None = None,
    seconds: float | None = None,
    timeout: float = 30.0,
    isolation_level: Literal["DEFERRED", "EXCLUSIVE", "IMMEDIATE"] | None = "DEFERRED",
) -> BoundedConnection:
    """An SQLite connection to ``path`` whose every statement is bounded (module doc);
    ``steps`` and ``seconds`` default to :data:`STEPS` and :data:`SECONDS`; ``timeout``:
    seconds to wait for another connection's lock (not counted in ``seconds``)."""
    con = sqlite3.connect(
        str(path),
        timeout=timeout,
        isolation_level=isolation_level,
        check_same_thread=False,
        factory=BoundedConnection,
    )
    assert isinstance(con, BoundedConnection)
    con.budget = _Budget(STEPS if steps is None else steps, SECONDS if seconds is None else seconds)
    con.set_progress_handler(con.budget, EVERY)
    con.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, MAX_VALUE_BYTES)
    return con


def check_schema(con: sqlite3.Connection, path: Path) -> None:
    """Refuse (:class:`BatchError`, field ``db``, naming the file and the object) a schema
    that would run code when read or written: a view, a trigger, a virtual table, a
    generated (computed) column, an index the program does not make (its expressions run on
    every write), or more than :data:`MAX_SCHEMA_OBJECTS` objects. Reads ``sqlite_master``
    and the tables' column lists only; a file SQLite cannot read is refused as not a batch
    database."""
    try:
        listed = con.execute(
            "SELECT type, name, tbl_name, substr(coalesce(sql, ''), 1, 200), sql IS NULL "
            "FROM sqlite_master LIMIT ?",
            (MAX_SCHEMA_OBJECTS + 1,),
        ).fetchall()
    except sqlite3.DatabaseError as exc:
        raise BatchError("db", f"{path}: not a batch database ({exc})") from None
    if len(listed) > MAX_SCHEMA_OBJECTS:
        raise BatchError(
            "db", f"{path}: its schema lists more than {MAX_SCHEMA_OBJECTS} objects "
            "(a batch database has 4 tables)"
        )  # fmt: skip
    tables = []
    for kind, name, table, sql, no_sql in listed:
        what = brief(str(name))
        if kind == "view":
            raise BatchError(
                "db", f"{path}: {what} is a view (a query run whenever it is read), not a "
                "table; a batch database has no views"
            )  # fmt: skip
        if kind == "trigger":
            raise BatchError(
                "db", f"{path}: it holds a trigger ({what} on {brief(str(table))}: statements "
                "run whenever the table is written); a batch database has none"
            )  # fmt: skip
        if kind == "index" and not no_sql:  # (SQLite's own, for a key, have no SQL)
            raise BatchError(
                "db", f"{path}: it holds an index the program does not make ({what}; an "
                "index's expressions run whenever its table is written)"
            )  # fmt: skip
        if kind == "table":
            if str(sql).lstrip().upper().startswith("CREATE VIRTUAL"):
                raise BatchError(
                    "db", f"{path}: {what} is a virtual table (read by a module's code); a "
                    "batch database's tables are plain tables"
                )  # fmt: skip
            tables.append(str(name))
    for name in tables:
        try:
            columns = con.execute(
                "SELECT name, hidden FROM pragma_table_xinfo(?)", (name,)
            ).fetchall()
        except sqlite3.DatabaseError as exc:
            raise BatchError("db", f"{path}: not a batch database ({exc})") from None
        for column, hidden in columns:
            if hidden:  # 2, 3: generated (virtual, stored); 1: a virtual table's hidden
                raise BatchError(
                    "db", f"{path}: column {brief(str(column))} of table {brief(name)} is "
                    "computed (a generated column's expression runs whenever it is read); a "
                    "batch database stores every cell"
                )  # fmt: skip
