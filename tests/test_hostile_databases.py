"""Issue 45's hostile files: batch databases whose schema runs code (views — endless ones and
ones yielding a 900 MB ``zeroblob`` —, triggers, computed columns, virtual tables, expression
indexes), every statement on such a file bounded; saved solves of another flop or game named
by a database row; files read before they were checked (``/dev/zero``, FIFOs, a symbolic
``.solves`` folder); and uploads (long names, symlink loops, a second upload of one name).

What could hang without its fix runs in a child process with a timeout, and what could block
on a FIFO has a guard that unblocks it (and the test then fails), so no test ever hangs."""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
import threading
import tracemalloc
from contextlib import closing
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from batch_helpers import TEMPLATE, tiny_spec
from cli_helpers import run

from solver.batch import safe_sqlite
from solver.batch.solvefiles import check_saved_game, read_solve_file
from solver.batch.spec import BatchError, BatchSpec
from solver.batch.store import BatchStore
from solver.poker.flops import parse_flop

ROOT = Path(__file__).resolve().parent.parent
SUMMARY = {"ev": [60.0, 40.0], "equity": [0.6, 0.4], "oop_mix": {"k": 0.25, "b:100": 0.75}}
COUNT_FOREVER = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) "
HANG_S = 120  # a child past this hung (each takes a few seconds, import included)


def make_db(path: Path, spec: BatchSpec | None = None) -> Path:
    """A batch database of the tiny spec (Ks9s5s, KsJh8d done; 8s8h5d failed), one file."""
    with BatchStore.create_or_open(path, spec or tiny_spec()) as store:
        store.record(parse_flop("Ks9s5s"), 0, SUMMARY, seconds=1.0)
        store.record(parse_flop("KsJh8d"), 1, SUMMARY, seconds=2.0)
        store.record(parse_flop("8s8h5d"), 2, None, "ValueError: boom", 0.5)
    with closing(sqlite3.connect(path)) as con:
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


def craft(path: Path, *sql: str) -> Path:
    """``path`` edited with plain ``sqlite3`` (what an attacker has)."""
    with closing(sqlite3.connect(path)) as con:
        for statement in sql:
            con.execute(statement)
        con.commit()
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return path


META_AS = "DROP TABLE meta", "CREATE VIEW meta (key, value) AS "
ENDLESS_META = (
    *META_AS[:1],
    META_AS[1] + COUNT_FOREVER + "SELECT 'k' || x, 'v' FROM c ORDER BY x DESC",
)
ENDLESS_FLOPS = (
    "ALTER TABLE flops RENAME TO real_flops",
    "CREATE VIEW flops AS SELECT * FROM real_flops WHERE (" + COUNT_FOREVER
    + "SELECT count(*) FROM c) > 0",
)  # fmt: skip
ZEROBLOB_META = (*META_AS[:1], META_AS[1] + "SELECT 'format', zeroblob(900000000)")
CRAFTS: dict[str, tuple[tuple[str, ...], str]] = {  # name: (statements, a word of the refusal)
    "endless meta view": (ENDLESS_META, "is a view"),
    "endless flops view": (ENDLESS_FLOPS, "is a view"),
    "zeroblob meta view": (ZEROBLOB_META, "is a view"),
    "trigger on lease": (
        ("CREATE TRIGGER hold BEFORE INSERT ON lease BEGIN SELECT RAISE(IGNORE); END",),
        "trigger",
    ),
    "trigger on flops": (
        (
            "CREATE TRIGGER spin AFTER UPDATE ON flops BEGIN "
            "SELECT count(*) FROM (" + COUNT_FOREVER + "SELECT x FROM c); END",
        ),
        "trigger",
    ),
    "computed column": (
        (
            "ALTER TABLE flops ADD COLUMN extra BLOB GENERATED ALWAYS AS (zeroblob(position)) "
            "VIRTUAL",
        ),
        "computed",
    ),
    "virtual table": (
        ("DROP TABLE trees", "CREATE VIRTUAL TABLE trees USING fts5(flop, version, data)"),
        "virtual table",
    ),
    "expression index": (("CREATE INDEX shout ON flops (upper(flop))",), "index"),
}
ENDLESS = {"endless meta view", "endless flops view", "trigger on flops"}


def in_child(code: str) -> str:
    """Run ``code`` in a fresh interpreter (the project's root as its folder); its stdout.
    A child that has not ended after :data:`HANG_S` is killed and the test fails: that is
    the hang the fix prevents."""
    try:
        out = subprocess.run(
            [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True,
            timeout=HANG_S, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail(f"hung: still running after {HANG_S} s")
    assert out.returncode == 0, out.stderr[-2000:]
    return out.stdout


@pytest.mark.parametrize("name", sorted(set(CRAFTS) - ENDLESS))
def test_a_schema_that_runs_code_is_refused_naming_it(tmp_path: Path, name: str) -> None:
    db = craft(make_db(tmp_path / "crafted.db"), *CRAFTS[name][0])
    with pytest.raises(BatchError) as err:
        BatchStore.open(db)
    assert err.value.field == "db" and str(db) in err.value.message
    assert CRAFTS[name][1] in err.value.message
    # the CLI's report and drill, and a resume of the batch (the same spec): one line, exit 2
    for argv in (["report", str(db)], ["drill", "--batch", str(db), "--flop", "Ks9s5s"]):
        out = run(*argv)
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert out.stderr.startswith("error: ") and CRAFTS[name][1] in out.stderr
    with pytest.raises(BatchError, match=CRAFTS[name][1]):
        BatchStore.create_or_open(db, tiny_spec())


def test_endless_schemas_are_refused_at_once(tmp_path: Path) -> None:
    """An endless view over ``meta`` or ``flops`` and a trigger that never ends: refused from
    the schema, before any statement reads them (in a child: without the check it spins)."""
    dbs = {}
    for name in sorted(ENDLESS):
        dbs[name] = str(craft(make_db(tmp_path / f"{name.replace(' ', '-')}.db"), *CRAFTS[name][0]))
    out = in_child(
        "import json, sys\n"
        "from solver.batch.store import BatchStore\n"
        "from solver.batch.spec import BatchError\n"
        f"dbs = {dbs!r}\n"
        "said = {}\n"
        "for name, db in dbs.items():\n"
        "    try:\n"
        "        BatchStore.open(db).close()\n"
        "        said[name] = 'opened'\n"
        "    except BatchError as exc:\n"
        "        said[name] = exc.message\n"
        "print(json.dumps(said))\n"
    )
    said = json.loads(out)
    for name in ENDLESS:
        assert CRAFTS[name][1] in said[name] and dbs[name] in said[name], said


def test_every_statement_on_a_database_is_bounded(tmp_path: Path) -> None:
    """Past the schema check (switched off here) an endless view is still stopped by the
    connection's step budget, as one BatchError naming the file; the writer lease's own
    connection is bounded too."""
    db = craft(make_db(tmp_path / "endless.db"), *ENDLESS_META)
    good = make_db(tmp_path / "good.db")
    out = in_child(
        "import json\n"
        "from pathlib import Path\n"
        "from solver.batch import safe_sqlite, store\n"
        "from solver.batch.lease import WriterLease\n"
        "from solver.batch.spec import BatchError\n"
        "safe_sqlite.STEPS = 2_000_000\n"
        "safe_sqlite.check_schema = lambda con, path: None\n"
        "said = {}\n"
        "try:\n"
        f"    store.BatchStore.open({str(db)!r})\n"
        "except BatchError as exc:\n"
        "    said['open'] = exc.message\n"
        f"lease = WriterLease(Path({str(good)!r}), 60.0, 5.0)\n"
        "try:\n"
        f"    lease._con.execute({COUNT_FOREVER + 'SELECT count(*) FROM c'!r}).fetchall()\n"
        "except safe_sqlite.BudgetError as exc:\n"
        "    said['lease'] = str(exc)\n"
        "lease.release()\n"
        "print(json.dumps(said))\n"
    )
    said = json.loads(out)
    assert str(db) in said["open"] and "more than 2,000,000 steps" in said["open"], said
    assert "more than 2,000,000 steps" in said["lease"], said


def test_the_guard_stops_an_endless_query_and_a_huge_value(tmp_path: Path) -> None:
    con = safe_sqlite.connect(tmp_path / "x.db", steps=1_000_000)
    with pytest.raises(safe_sqlite.BudgetError, match=r"more than 1,000,000 steps"):
        con.execute(COUNT_FOREVER + "SELECT count(*) FROM c").fetchall()
    assert con.execute("SELECT 41 + 1").fetchone() == (42,)  # the next statement: a new budget
    with pytest.raises(safe_sqlite.BudgetError, match="longer than"):
        con.execute("SELECT zeroblob(900000000)").fetchone()
    con.close()


MEASURE = """
import json, resource, sys
from solver.batch import safe_sqlite
from solver.batch.store import BatchStore
from solver.batch.spec import BatchError
if sys.argv[2] == "unchecked":  # the value limit alone (as if the view got past the schema)
    safe_sqlite.check_schema = lambda con, path: None
before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
try:
    BatchStore.open(sys.argv[1])
    said = "opened"
except BatchError as exc:
    said = exc.message
after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"said": said, "mb": (after - before) / 1024}))
"""


@pytest.mark.parametrize("how", ["checked", "unchecked"])
def test_a_zeroblob_view_is_refused_in_little_memory(tmp_path: Path, how: str) -> None:
    """A ``meta`` view yielding a 900 MB zeroblob: refused for being a view, and (schema
    check off) by the value limit as the blob is made — the process's peak memory grows by
    at most 200 MB either way (it grew by 1 GB before)."""
    db = craft(make_db(tmp_path / "zero.db"), *ZEROBLOB_META)
    try:
        out = subprocess.run(
            [sys.executable, "-c", MEASURE, str(db), how], cwd=ROOT, capture_output=True,
            text=True, timeout=HANG_S, env={**os.environ, "PYTHONPATH": str(ROOT)},
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        pytest.fail("hung")
    got = json.loads(out.stdout)
    assert got["said"] != "opened" and str(db) in got["said"], got
    assert ("is a view" if how == "checked" else "longer than") in got["said"], got
    assert got["mb"] <= 200, got


# ----- saved solves of another flop, spot or game -------------------------------------------


@pytest.fixture(scope="module")
def saves() -> dict[str, bytes]:
    """Saved solves: the tiny batch's spot on Ks9s5s (the right one), on KsJh8d, the same
    flop with another pot, and Kuhn."""
    from solver.api import solve
    from solver.batch.task import run_flop
    from solver.files.export import game_source, save_solve
    from solver.games import make_game

    spec = tiny_spec()
    out = {}
    for key, s, flop in [
        ("right", spec, "Ks9s5s"),
        ("other flop", spec, "KsJh8d"),
        ("other pot", replace(spec, template=replace(TEMPLATE, pot=120)), "Ks9s5s"),
    ]:
        game, result = run_flop(replace(s, max_iterations=20, target_pct=None), flop)
        out[key] = save_solve(result.engine, game_source(game, holdem=s.spot(flop)))
    kuhn = make_game("kuhn")
    out["kuhn"] = save_solve(solve(kuhn, "cfr", iterations=5).engine, game_source(kuhn))
    return out


def saved_db(tmp_path: Path, blob: bytes) -> Path:
    """The tiny batch's database whose Ks9s5s row names a saved solve holding ``blob``."""
    db = tmp_path / "s.db"
    solves = db.with_name(db.name + ".solves")
    solves.mkdir()
    (solves / "Ks9s5s.npz").write_bytes(blob)
    with BatchStore.create_or_open(db, tiny_spec()) as store:
        store.record(parse_flop("Ks9s5s"), 0, SUMMARY, seconds=1.0,
                     solve_file=f"{db.name}.solves/Ks9s5s.npz")  # fmt: skip
    return db


MISMATCH = {
    "other flop": "board 'KsJh8d', not Ks9s5s",
    "other pot": "differs in pot",
    "kuhn": "holds a 'toy' game 'kuhn'",
}


@pytest.mark.parametrize("key", sorted(MISMATCH))
def test_a_save_of_another_flop_or_game_is_refused(
    tmp_path: Path, saves: dict[str, bytes], key: str
) -> None:
    from app.features import batch_run as B

    db = saved_db(tmp_path, saves[key])
    out = run("drill", "--batch", str(db), "--flop", "Ks9s5s", "--hands", "2")
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert out.stderr.startswith("error: --flop: cannot open Ks9s5s's solve")
    assert MISMATCH[key] in out.stderr
    with pytest.raises(BatchError, match=MISMATCH[key]):  # the Reports page's loader
        B.flop_solve(db, "Ks9s5s", f"{db.name}.solves/Ks9s5s.npz")
    with pytest.raises(BatchError, match=MISMATCH[key]):  # before any game is built
        check_saved_game(saves[key], "Ks9s5s", tiny_spec())


def test_the_flops_own_save_still_drills(tmp_path: Path, saves: dict[str, bytes]) -> None:
    db = saved_db(tmp_path, saves["right"])
    out = run("drill", "--batch", str(db), "--flop", "Ks9s5s", "--hands", "2", "--json")
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout.splitlines()[-1])["decisions"] == 2


def test_a_refused_open_in_explore_is_drawn_beside_its_buttons(
    tmp_path: Path, saves: dict[str, bytes], monkeypatch: pytest.MonkeyPatch
) -> None:
    """The open buttons live in the report's fragment, which a click reruns alone: the
    refusal is drawn there, after the buttons (drawn at the page's top, it stayed unseen)."""
    from app_helpers import no_threads_left, page
    from batch_helpers import PAGE_SPOT

    from app import files, state
    from app.screens import reports as R

    monkeypatch.setenv(files.BATCHES_ENV, str(tmp_path))
    db = saved_db(tmp_path, saves["other flop"])
    at = page("reports", **PAGE_SPOT, **{R.DB: str(db)})
    at.run()
    assert not at.exception and not at.error
    at.button(key="reports_practice").click().run()
    assert not at.exception
    assert state.LOADED not in at.session_state or at.session_state[state.LOADED] is None
    order = [
        ("error", n.value) if n.type == "error" else n.key
        for n in _walk(at._tree)
        if getattr(n, "type", None) in ("error", "button")
    ]
    errors = [i for i, x in enumerate(order) if isinstance(x, tuple)]
    assert len(errors) == 1, order
    assert "board 'KsJh8d', not Ks9s5s" in order[errors[0]][1]
    assert errors[0] > order.index("reports_practice"), order
    no_threads_left()


def _walk(node: Any) -> list[Any]:
    """Elements of an AppTest tree in the order the page draws them."""
    out = [node]
    for child in getattr(node, "children", {}).values():
        out += _walk(child)
    return out


# ----- reads before checks ------------------------------------------------------------------


def test_drill_load_refuses_a_device_before_reading_it() -> None:
    tracemalloc.start()
    try:
        out = run("drill", "--load", "/dev/zero")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert out.returncode == 2 and out.stderr.startswith("error: --load: /dev/zero is a device")
    assert peak < 50 * 2**20  # (it read 2 GB of zeros before refusing)


class Unblock:
    """Opens ``fifo`` for writing after a while (unblocking a reader stuck on it), and
    records that it had to: the code under test must never need it."""

    def __init__(self, fifo: Path, after: float = 20.0) -> None:
        self.needed = False
        self._fifo = fifo
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(after,), daemon=True)
        self._thread.start()

    def _run(self, after: float) -> None:
        if not self._stop.wait(after):
            self.needed = True
            fd = os.open(self._fifo, os.O_WRONLY)
            os.close(fd)

    def done(self) -> bool:
        self._stop.set()
        self._thread.join()
        return not self.needed


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.npz"
    os.mkfifo(fifo)
    guard = Unblock(fifo)
    out = run("drill", "--load", str(fifo))
    assert guard.done(), "drill --load blocked on a FIFO"
    assert out.returncode == 2 and "is a pipe, not a regular file" in out.stderr
    db = tmp_path / "b.db"
    solves = db.with_name("b.db.solves")
    solves.mkdir()
    os.mkfifo(solves / "Ks9s5s.npz")
    guard = Unblock(solves / "Ks9s5s.npz")
    with pytest.raises(BatchError, match="is a pipe"):
        read_solve_file(db, "b.db.solves/Ks9s5s.npz")
    assert guard.done(), "read_solve_file blocked on a FIFO"


def test_a_symbolic_solves_folder_is_not_followed(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "Ks9s5s.npz").write_bytes(b"someone else's file")
    db = tmp_path / "b.db"
    db.with_name("b.db.solves").symlink_to(elsewhere)
    with pytest.raises(BatchError, match="symbolic link") as err:
        read_solve_file(db, "b.db.solves/Ks9s5s.npz")
    assert err.value.field == "solve_file" and "someone" not in str(err.value)
    # a real folder whose subfolder is a link: refused alike
    real = tmp_path / "c.db.solves"
    real.mkdir()
    (real / "sub").symlink_to(elsewhere)
    with pytest.raises(BatchError, match="symbolic link"):
        read_solve_file(tmp_path / "c.db", "c.db.solves/sub/Ks9s5s.npz")


# ----- uploads ------------------------------------------------------------------------------


class Upload:
    def __init__(self, name: str, data: bytes) -> None:
        self.name = name
        self._data = data

    def getvalue(self) -> bytes:
        return self._data


@pytest.fixture
def session(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    """The app's session state as a dict, the batch folder in ``tmp_path/batches``."""
    from app import files, state

    held: dict[str, object] = {}
    monkeypatch.setattr(state, "get", lambda key, default=None: held.get(key, default))
    monkeypatch.setattr(state, "put", lambda key, value: held.__setitem__(key, value))
    monkeypatch.setenv(files.BATCHES_ENV, str(tmp_path / "batches"))
    return held


def test_uploads_never_replace_a_file_and_say_their_name(
    tmp_path: Path, session: dict[str, object]
) -> None:
    from app import files, state
    from app.features import batch_run as B

    first = make_db(tmp_path / "first.db").read_bytes()
    second = make_db(tmp_path / "second.db", tiny_spec(name="second")).read_bytes()
    session[state.REPORTS_UPLOAD] = Upload("spot.db", first)
    B.on_upload()
    folder = files.batch_folder()
    assert session[B.DB] == str(folder / "uploaded-spot.db")
    assert B.upload_note() == "Upload saved as 'uploaded-spot.db' in the batch folder this " \
        "server was started with."  # fmt: skip
    session[state.REPORTS_UPLOAD] = Upload("spot.db", second)  # another user, the same name
    B.on_upload()
    assert (folder / "uploaded-spot.db").read_bytes() == first  # untouched
    assert session[B.DB] == str(folder / "uploaded-spot-2.db")
    assert "'uploaded-spot-2.db'" in str(B.upload_note())
    assert "uploaded-spot.db is another file's name" in str(B.upload_note())
    # a symbolic link at the name is not written through
    target = tmp_path / "target.db"
    target.write_bytes(b"keep")
    (folder / "uploaded-linked.db").symlink_to(target)
    session[state.REPORTS_UPLOAD] = Upload("linked.db", first)
    B.on_upload()
    assert target.read_bytes() == b"keep" and session[B.DB] == str(folder / "uploaded-linked-2.db")


def test_a_long_name_and_a_refused_upload(tmp_path: Path, session: dict[str, object]) -> None:
    from app import files, state
    from app.features import batch_run as B

    session[state.REPORTS_UPLOAD] = Upload(
        "x" * 300 + ".db", make_db(tmp_path / "a.db").read_bytes()
    )
    B.on_upload()  # (an OSError, file name too long, before)
    path = Path(str(session[B.DB]))
    assert path.parent == files.batch_folder() and len(path.name) <= 255
    view = craft(make_db(tmp_path / "v.db"), *ZEROBLOB_META).read_bytes()
    session[state.REPORTS_UPLOAD] = Upload("view.db", view)
    B.on_upload()
    assert "is a view" in str(B.error()) and session[B.DB] == str(path)  # the last one stays
    assert not list(files.batch_folder().glob("uploaded-view*"))  # a refused file is not kept


def test_a_symlink_loop_in_the_batch_folder_is_refused(session: dict[str, object]) -> None:
    from app import files
    from app.features import batch_run as B

    folder = files.batch_folder()
    (folder / "loop.db").symlink_to(folder / "loop.db")
    (folder / "a").symlink_to(folder / "b")
    (folder / "b").symlink_to(folder / "a")
    for name in ("loop.db", "a/x.db", "é" * 200 + ".db"):
        with pytest.raises(BatchError) as err:
            files.in_batch_folder(name)
        assert err.value.field == "Database file"
    assert files.relative_name(folder / "a" / "x.db") == "x.db"  # (a RuntimeError before)
    session[B.OPEN_PATH] = "loop.db"
    B.open_path()
    assert str(B.error()).startswith("Cannot open: Database file:")


def test_a_small_file_is_read_without_reserving_the_cap(tmp_path: Path) -> None:
    """Reading a 1 kB save under the 2 GB cap allocates about 1 kB (a read of the cap's
    size reserved 2 GB before: what a refusal of a mismatched save then weighed)."""
    from solver.files.safe_read import read_regular

    small = tmp_path / "small.npz"
    small.write_bytes(b"x" * 1000)
    tracemalloc.start()
    try:
        data = read_regular(small, 2_000_000_000)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert data == b"x" * 1000 and peak < 2**20
