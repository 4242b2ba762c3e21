"""Hypothesis strategies and runners for what issue 34 found trusted: batch databases (cell
types, schema, encodings, flipped and cut bytes) read by ``report`` with its options, flop
lists and filters, race entries and targets, and crafted files (zip directory bombs,
``/dev/zero``, oversized specs and presets) — each answered by one of the project's errors."""

from __future__ import annotations

import contextlib
import functools
import io
import sqlite3
import struct
import tempfile
import zipfile
from pathlib import Path
from typing import Any

from fuzz_hostile_db import hostile_file, run_hostile
from fuzz_inputs import ODD_NUMBERS, odd_text
from hypothesis import strategies as st

# ----- batch databases ---------------------------------------------------------------------

ODD_CELLS: list[Any] = [
    *[v for v in ODD_NUMBERS if isinstance(v, (int, float, str, bytes)) or v is None],
    b"\xff\xfe\x00", "abc", "{}", "[]", '{"ev": 5}', '{"ev": [1, "x"]}', "null", "NaN",
    '{"ev": [Infinity, 1]}', "[" * 5000, '"' + "x" * 100_000 + '"', "\ud800".encode("utf-8",
    "surrogatepass"), 2**62, -(2**62), 1e308,
]  # fmt: skip
"""Values a crafted database may hold in any cell."""


@functools.cache
def base_database() -> bytes:
    """A real finished batch database (three flops of a tiny spot, two of them done with
    per-class summaries; written by the project itself), as bytes."""
    from solver.batch.spec import BatchSpec
    from solver.batch.store import BatchStore
    from solver.games.holdem import HoldemSpec
    from solver.poker.flops import parse_flop

    template = HoldemSpec(board="", pot=100, stack=100, oop_range="AA, KK, T9s",
                          ip_range="QQ, AKs, KQs", bets="a", raises="a")  # fmt: skip
    spec = BatchSpec(template, flops="Ks9s5s, AsKh7d, 8s8h5d", target_pct=2.0, name="fuzz")

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "base.db"
        summary = {
            "ev": [60.0, 40.0], "equity": [0.6, 0.4], "oop_mix": {"k": 0.25, "b:100": 0.75},
            "ip_mix": {"k": {"k": 0.5, "b:100": 0.5}, "b:100": {"f": 0.3, "c": 0.7}},
        }  # fmt: skip
        with BatchStore.create_or_open(db, spec) as store:
            store.record(parse_flop("Ks9s5s"), 0, summary, seconds=1.0)
            store.record(parse_flop("AsKh7d"), 1, summary, seconds=2.0)
        with contextlib.closing(sqlite3.connect(db)) as con:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return db.read_bytes()


def _schema(data: bytes) -> list[tuple[str, list[str]]]:
    """(table, columns) of the database in ``data``."""
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "x.db"
        db.write_bytes(data)
        with contextlib.closing(sqlite3.connect(db)) as con:
            tables = [
                r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type='table'")
            ]
            return [(t, [r[1] for r in con.execute(f"PRAGMA table_info('{t}')")]) for t in tables]


def _tampered(ops: list[Any]) -> bytes:
    """The base database with ``ops`` applied: ``("cell", table, column, value)`` sets a
    column in every row of a table; ``("drop", table, column, _)`` rebuilds a table
    without a column; ``("flip", offset, byte, _)`` and ``("cut", offset, _, _)`` work on the
    file's bytes."""
    data = base_database()
    schema = _schema(data)
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "x.db"
        db.write_bytes(data)
        with contextlib.closing(sqlite3.connect(db)) as con:
            for kind, a, b, value in ops:
                if kind not in ("cell", "drop") or not schema:
                    continue
                table, columns = schema[a % len(schema)]
                column = columns[b % len(columns)]
                if kind == "cell":
                    with contextlib.suppress(sqlite3.Error, OverflowError):  # (ints > 64 bits)
                        con.execute(f"UPDATE '{table}' SET '{column}' = ?", (value,))
                else:
                    keep = ", ".join(f"'{c}'" for c in columns if c != column) or "1"
                    with contextlib.suppress(sqlite3.Error):
                        con.execute(f"CREATE TABLE tmp_copy AS SELECT {keep} FROM '{table}'")
                        con.execute(f"DROP TABLE '{table}'")
                        con.execute(f"ALTER TABLE tmp_copy RENAME TO '{table}'")
            con.commit()
        out = bytearray(db.read_bytes())
    for kind, a, b, _ in ops:
        if kind == "flip" and out:
            out[a % len(out)] = b % 256
        elif kind == "cut":
            del out[a % max(len(out), 1) :]
    return bytes(out)


def batch_database() -> st.SearchStrategy[tuple[bytes, list[str]]]:
    """A tampered database and the ``report`` options to read it with."""
    op = st.one_of(
        st.tuples(st.just("cell"), st.integers(0, 50), st.integers(0, 50),
                  st.one_of(st.sampled_from(ODD_CELLS), st.text(max_size=20))),
        st.tuples(st.just("drop"), st.integers(0, 50), st.integers(0, 50), st.none()),
        st.tuples(st.just("flip"), st.integers(0, 2**20), st.integers(0, 255), st.none()),
        st.tuples(st.just("cut"), st.integers(0, 2**20), st.none(), st.none()),
    )  # fmt: skip
    options = st.lists(
        st.sampled_from(["--json", "--group", "suits", "pairing", "--group", "colour", "--csv"]),
        max_size=3,
    )
    return st.tuples(st.lists(op, max_size=3).map(_tampered), options)


def run_report(args: tuple[bytes, list[str]]) -> None:
    """``python -m solver report FILE [options]`` in-process on the crafted database."""
    from fuzz_targets import run_cli

    data, options = args
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "crafted.db"
        db.write_bytes(data)
        argv = ["report", str(db)]
        for opt in options:
            argv += [opt, str(Path(tmp) / "out.csv")] if opt == "--csv" else [opt]
        run_cli(argv)


# ----- flop lists and filters, race entries and targets ------------------------------------

FLOP_TEXTS = ["25", "49", "95", "184", "all", "1755", "AhKd7c, Qs8s3d", "AhAd", "7", "", "²"]
FILTER_VALUES: list[Any] = [
    {}, {"suits": ["monotone"]}, {"high": ["A", "K"]}, {"suits": ["x"]}, {"colour": ["red"]},
    {"suits": "monotone"}, {"pairing": []}, [], "suits=monotone", [5], {"suits": [5]}, None,
]  # fmt: skip


def flop_selection() -> st.SearchStrategy[tuple[Any, Any]]:
    flops = st.one_of(
        st.sampled_from(FLOP_TEXTS), odd_text(), st.sampled_from(ODD_NUMBERS),
        st.lists(st.sampled_from(["Td", "9d", "6h", "AhKd7c"]), max_size=3),
    )  # fmt: skip
    filters = st.one_of(st.sampled_from(FILTER_VALUES), st.sampled_from(ODD_NUMBERS))
    return st.tuples(flops, filters)


def run_select(args: tuple[Any, Any]) -> None:
    from solver.batch.spec import parse_filters
    from solver.poker.flops import select

    flops, filters = args
    select(flops, filters)
    if isinstance(filters, list):
        parse_filters(filters)


ENTRY_TEXTS = ["cfr", "cfr+", "dcfr:alpha=1.5", "dcfr:alpha=1e400", "cfr+:delay=100", "nope",
               "dcfr:alpha=x", "mccfr-es", "pcfr+:;", ":", ""]  # fmt: skip
TARGET_TEXTS = ["1%", "0.5%,0.1%", "10", "x", "-1%", "1e400%", "nan", "", "1%,", "%"]


def race_input() -> st.SearchStrategy[tuple[Any, Any, Any]]:
    entries = st.one_of(
        st.lists(st.one_of(st.sampled_from(ENTRY_TEXTS), odd_text(12),
                           st.sampled_from(ODD_NUMBERS)), max_size=4),
        st.sampled_from(ENTRY_TEXTS), st.sampled_from(ODD_NUMBERS),
    )  # fmt: skip
    targets = st.one_of(st.sampled_from(TARGET_TEXTS), odd_text(12), st.sampled_from(ODD_NUMBERS))
    pot = st.one_of(st.sampled_from([None, 100, 0.5]), st.sampled_from(ODD_NUMBERS))
    good = st.tuples(
        st.lists(st.sampled_from(["cfr", "cfr+", "dcfr:alpha=1.5", "mccfr-es"]), min_size=1,
                 max_size=3),
        st.sampled_from(["1%", "0.5%,0.1%", "10"]),
        st.just(100),
    )  # fmt: skip
    return st.one_of(good, st.tuples(entries, targets, pot))


def run_race_input(args: tuple[Any, Any, Any]) -> None:
    from solver.run.race import parse_entries, parse_targets

    entries, targets, pot = args
    parse_entries(entries)
    parse_targets(targets, pot)


# ----- crafted files -----------------------------------------------------------------------


def _directory_bomb(entries: int, claimed: int) -> bytes:
    """A zip whose end record claims ``claimed`` members over a directory of ``entries``."""
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_STORED) as z:
        for i in range(entries):
            z.writestr(f"a{i:06d}.npy", b"")
    data = bytearray(buf.getvalue())
    at = bytes(data).rfind(b"PK\x05\x06")
    data[at + 8 : at + 12] = struct.pack("<HH", claimed % 65536, claimed % 65536)
    return bytes(data)


def crafted_file() -> st.SearchStrategy[tuple[str, Any]]:
    """(how it is read, what): saves that are directory bombs, specs and presets that never
    end or are far over their caps, and issue 45's hostile databases and saved solves
    (:mod:`fuzz_hostile_db`)."""
    return st.one_of(
        st.tuples(st.just("save"), st.builds(_directory_bomb, st.integers(0, 40_000),
                                             st.integers(0, 300))),
        st.tuples(st.just("spec file"), st.sampled_from(["/dev/zero", "/dev/urandom", "/dev/null",
                                                         "/proc/self/mem", "/", "/etc/shadow"])),
        st.tuples(st.just("spec text"), st.integers(1, 30).map(lambda mb: " " * (mb * 2**20))),
        st.tuples(st.just("preset bytes"), st.integers(1, 30).map(lambda mb: b"#" * (mb * 2**20))),
        st.tuples(st.just("locks file"), st.sampled_from(["/dev/zero", "/dev/urandom", "/"])),
        st.tuples(st.just("hostile"), hostile_file()),  # issue 45: schemas, FIFOs, links, saves
    )  # fmt: skip


def run_crafted(args: tuple[str, Any]) -> None:
    from fuzz_targets import run_cli

    from solver.files.export import load_solve
    from solver.files.presets import parse_preset_bytes

    how, what = args
    if how == "save":
        load_solve(what)
    elif how == "spec file":
        run_cli(["batch", "--spec", what, "--db", "/nonexistent/never.db"])
    elif how == "spec text":
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "spec.json"
            path.write_text(what)
            run_cli(["batch", "--spec", str(path), "--db", str(Path(tmp) / "b.db")])
    elif how == "preset bytes":
        parse_preset_bytes(what, source="upload.toml")
    elif how == "hostile":
        run_hostile(what)
    else:
        run_cli(["solve", "--game", "kuhn", "--iterations", "1", "--locks", what])
