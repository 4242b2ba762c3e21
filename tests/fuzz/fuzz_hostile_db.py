"""Hypothesis strategy and runner for issue 45's crafted files: batch databases whose schema
runs code (views — endless, or yielding a 900 MB ``zeroblob`` —, triggers, computed columns,
virtual tables, expression and partial indexes) read by ``report`` (with ``--json`` or at a
line) and ``drill --batch``; saved solves a database names that are FIFOs, devices, behind a
symbolic ``.solves`` folder or link, or hold another flop's or game's solve; and ``drill
--load`` of a FIFO, a device or a folder. Every one must end in one ``error:`` line, exit 2.

A FIFO that blocked its reader would hang the run: a thread opens its other end after
:data:`UNBLOCK_S` (past the tests' hang bound), so a regression ends as a *slow* input."""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from fuzz_harness import HANG_S
from hypothesis import strategies as st

UNBLOCK_S = HANG_S + 5.0
FOREVER = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
SCHEMA_EDITS: dict[str, tuple[str, ...]] = {
    "endless meta view": (
        "DROP TABLE meta",
        "CREATE VIEW meta (key, value) AS " + FOREVER + "SELECT 'k' || x, 'v' FROM c "
        "ORDER BY x DESC",
    ),
    "endless flops view": (
        "ALTER TABLE flops RENAME TO kept",
        "CREATE VIEW flops AS SELECT * FROM kept WHERE (" + FOREVER + "SELECT count(*) FROM c)",
    ),
    "endless trees view": (
        "DROP TABLE trees",
        "CREATE VIEW trees (flop, version, data) AS " + FOREVER + "SELECT 'Ks9s5s', 1, x "
        "FROM c ORDER BY x DESC",
    ),
    "zeroblob meta view": (
        "DROP TABLE meta",
        "CREATE VIEW meta (key, value) AS SELECT 'format', zeroblob(900000000)",
    ),
    "zeroblob flops view": (
        "ALTER TABLE flops RENAME TO kept",
        "CREATE VIEW flops AS SELECT flop, position, weight, suits, pairing, high, connect, "
        "status, error, zeroblob(900000000) AS summary, seconds, solve_file, finished_at "
        "FROM kept",
    ),
    "lease view": ("DROP TABLE lease", "CREATE VIEW lease AS SELECT 1 AS id"),
    "trigger on lease": (
        "CREATE TRIGGER hold BEFORE INSERT ON lease BEGIN SELECT RAISE(IGNORE); END",
    ),
    "endless trigger on flops": (
        "CREATE TRIGGER spin AFTER INSERT ON flops BEGIN SELECT count(*) FROM ("
        + FOREVER
        + "SELECT x FROM c); END",
    ),
    "computed column in flops": (
        "ALTER TABLE flops ADD COLUMN extra BLOB GENERATED ALWAYS AS (zeroblob(position)) VIRTUAL",
    ),
    "computed column in meta": (
        "ALTER TABLE meta ADD COLUMN loud TEXT GENERATED ALWAYS AS (upper(value)) VIRTUAL",
    ),
    "virtual trees table": (
        "DROP TABLE trees",
        "CREATE VIRTUAL TABLE trees USING fts5(flop, version, data)",
    ),
    "expression index": ("CREATE INDEX shout ON flops (upper(flop))",),
    "partial index": ("CREATE INDEX some ON flops (flop) WHERE status = 'done'",),
}
READS = {
    "report": ["report"],
    "report --json": ["report", "--json"],
    "report at a line": ["report", "--line", "k"],
    "drill --batch": ["drill", "--hands", "2", "--flop", "Ks9s5s", "--batch"],
}
SOLVE_FILES = (
    "fifo", "device link", "symbolic .solves folder", "symbolic file", "kuhn save",
    "river save", "folder",
)  # fmt: skip
LOADS = ("fifo", "/dev/zero", "/dev/urandom", "folder")


def hostile_file() -> st.SearchStrategy[tuple[str, str, str]]:
    """(what, which, how it is read): a schema edit and a reading command, a saved solve's
    kind, or a ``drill --load`` target."""
    return st.one_of(
        st.tuples(st.just("schema"), st.sampled_from(sorted(SCHEMA_EDITS)),
                  st.sampled_from(sorted(READS))),
        st.tuples(st.just("solve file"), st.sampled_from(SOLVE_FILES), st.just("drill --batch")),
        st.tuples(st.just("load"), st.sampled_from(LOADS), st.just("drill --load")),
    )  # fmt: skip


@contextlib.contextmanager
def _unblocking(fifo: Path) -> Iterator[None]:
    """Open ``fifo``'s writing end after :data:`UNBLOCK_S` unless the block ended first."""
    done = threading.Event()

    def unblock() -> None:
        if not done.wait(UNBLOCK_S):
            with contextlib.suppress(OSError):
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

    thread = threading.Thread(target=unblock, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def _database(folder: Path, edits: tuple[str, ...] = (), solve_file: str = "") -> Path:
    """The fuzz suite's base database in ``folder``, edited with plain ``sqlite3``."""
    from fuzz_files import base_database

    db = folder / "crafted.db"
    db.write_bytes(base_database())
    with contextlib.closing(sqlite3.connect(db)) as con:
        if solve_file:
            con.execute("UPDATE flops SET solve_file = ? WHERE flop = 'Ks9s5s'", (solve_file,))
        for sql in edits:
            con.execute(sql)
        con.commit()
    return db


def _solve_file(folder: Path, kind: str) -> tuple[Path, Path | None]:
    """A database whose Ks9s5s row names a saved solve of ``kind``; the FIFO, if any."""
    from fuzz_saves import base_saves

    db = _database(folder, solve_file="crafted.db.solves/Ks9s5s.npz")
    solves = folder / "crafted.db.solves"
    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "Ks9s5s.npz").write_bytes(base_saves()[-1])
    if kind == "symbolic .solves folder":
        solves.symlink_to(elsewhere)
        return db, None
    solves.mkdir()
    target = solves / "Ks9s5s.npz"
    if kind == "fifo":
        os.mkfifo(target)
        return db, target
    if kind == "device link":
        target.symlink_to("/dev/zero")
    elif kind == "symbolic file":
        target.symlink_to(elsewhere / "Ks9s5s.npz")
    elif kind == "folder":
        target.mkdir()
    else:  # a real save of another game: Kuhn, or a hold'em river spot on another board
        target.write_bytes(base_saves()[1 if kind == "kuhn save" else -1])
    return db, None


def run_hostile(args: tuple[str, str, str]) -> None:
    """Run one :func:`hostile_file` input through the CLI in-process (``fuzz_targets.
    run_cli``: exit 2 with one ``error:`` line is a refusal)."""
    from fuzz_targets import run_cli

    what, which, how = args
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        fifo: Path | None = None
        if what == "schema":
            argv: list[Any] = [*READS[how], str(_database(folder, SCHEMA_EDITS[which]))]
        elif what == "solve file":
            db, fifo = _solve_file(folder, which)
            argv = [*READS[how], str(db)]
        else:
            target = folder / "save.npz"
            if which == "fifo":
                os.mkfifo(target)
                fifo = target
            elif which == "folder":
                target.mkdir()
            else:
                target = Path(which)
            argv = ["drill", "--load", str(target)]
        with _unblocking(fifo) if fifo else contextlib.nullcontext():
            run_cli(argv)
