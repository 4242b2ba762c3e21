"""Hostile batch databases: a real database (made by ``BatchStore`` and filled with
``record``) tampered with through ``sqlite3`` — wrong types in the flops table, a column
gone, invalid UTF-8, summaries of the wrong shape, NaN and infinities, huge or deeply nested
JSON, a stored spec that is not one. ``python -m solver report`` ends each in one line
(``error: FILE: …`` naming the file and what is wrong, exit code 2, no traceback) and the
Reports page in one error box (no exception). A merely failed flop still reads as before."""

from __future__ import annotations

import json
import math
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from app_helpers import no_threads_left, page
from batch_helpers import PAGE_SPOT, tiny_spec

from app import files
from app.screens import reports as R
from solver.batch import store as S
from solver.batch.driver import _store
from solver.batch.report import table_rows
from solver.batch.spec import BatchError
from solver.batch.store import BatchStore
from solver.cli import main
from solver.poker.flops import parse_flop

GOOD: dict[str, Any] = {
    "pot": 100.0,
    "ev": [60.0, 40.0],
    "equity": [0.6, 0.4],
    "eqr": [1.0, 1.0],
    "oop_mix": {"k": 0.25, "b:100": 0.75},
    "ip_mix": {"k": {"k": 0.5, "b:100": 0.5}},
    "actions": {"oop": ["k", "b:100"], "ip vs k": ["k", "b:100"]},
    "classes": {
        "oop": [{"class": "overpair", "kind": "made", "combos": 6.0, "mix": [0.2, 0.8]}],
        "ip vs k": [{"class": "high_card", "kind": "made", "combos": 3.0, "mix": None}],
    },
    "exploitability_pct_pot": 1.5,
    "iterations": 100,
    "stopped_by": "target",
    "memory_bytes": 1000,
}


def _summary(**changes: Any) -> str:
    return json.dumps({**GOOD, **changes})


def _spec(**changes: Any) -> str:
    """The stored spec JSON with top-level (or ``template`` key) changes."""
    data = json.loads(tiny_spec().to_json())
    template = changes.pop("template", {})
    data.update(changes)
    data["template"].update(template)
    return json.dumps(data)


def make_db(path: Path, sql: str = "", args: tuple[Any, ...] = ()) -> Path:
    """A batch database of the tiny spec (Ks9s5s and KsJh8d done, 8s8h5d failed); with
    ``sql``, its flops table re-made without constraints (so NULLs and any types fit) and
    ``sql`` run on it."""
    with BatchStore.create_or_open(path, tiny_spec()) as store:
        store.record(parse_flop("Ks9s5s"), 0, GOOD, seconds=1.0)
        store.record(parse_flop("KsJh8d"), 1, GOOD, seconds=2.0)
        store.record(parse_flop("8s8h5d"), 2, None, "ValueError: boom", 0.5)
    if not sql:
        return path
    con = sqlite3.connect(path)
    con.executescript(
        "CREATE TABLE f2 AS SELECT * FROM flops; DROP TABLE flops; ALTER TABLE f2 RENAME TO flops;"
    )
    con.execute(sql, args)
    con.commit()
    con.close()
    return path


def _on(flop: str, sql: str) -> str:
    return f"{sql} WHERE flop = '{flop}'"


def _deep(n: int) -> str:
    return '{"x": ' + "[" * n + "]" * n + "}"


# (id, SQL, its arguments, words the message holds). Every one crashed, read as if fine, or
# did not name the flop and column before the checks in BatchStore.rows/open.
CASES: list[tuple[str, str, tuple[Any, ...], str]] = [
    ("position-text", _on("Ks9s5s", "UPDATE flops SET position = 'abc'"), (),
     "flop Ks9s5s, column position: is 'abc', not a whole number"),
    ("position-real", _on("KsJh8d", "UPDATE flops SET position = 1.5"), (),
     "flop KsJh8d, column position: is 1.5, not a whole number"),
    ("weight-null", _on("Ks9s5s", "UPDATE flops SET weight = ?"), (math.nan,),
     "flop Ks9s5s, column weight: is NULL"),  # (sqlite stores a NaN as NULL)
    ("weight-text", _on("Ks9s5s", "UPDATE flops SET weight = 'heavy'"), (),
     "column weight: is 'heavy', not a number"),
    ("weight-negative", _on("KsJh8d", "UPDATE flops SET weight = -4"), (),
     "flop KsJh8d, column weight: is -4.0, not a flop weight"),
    ("weight-zero", _on("KsJh8d", "UPDATE flops SET weight = 0"), (),
     "column weight: is 0.0, not a flop weight"),
    ("weight-infinite", _on("Ks9s5s", "UPDATE flops SET weight = 1e999"), (),
     "column weight: is inf, not a finite number"),
    ("seconds-blob", _on("KsJh8d", "UPDATE flops SET seconds = x'00ff'"), (),
     "flop KsJh8d, column seconds:"),
    ("flop-not-utf8", _on("KsJh8d", "UPDATE flops SET flop = CAST(x'ff' AS TEXT)"), (),
     "column flop: is not UTF-8 text"),
    ("suits-not-utf8", _on("Ks9s5s", "UPDATE flops SET suits = CAST(x'c3' AS TEXT)"), (),
     "flop Ks9s5s, column suits: is not UTF-8 text"),
    ("error-blob", _on("8s8h5d", "UPDATE flops SET error = x'fffe00'"), (),
     "flop 8s8h5d, column error: is not UTF-8 text"),
    ("suits-unknown", _on("Ks9s5s", "UPDATE flops SET suits = 'tartan'"), (),
     "flop Ks9s5s, column suits: is 'tartan', not one of monotone, two-tone, rainbow"),
    ("status-unknown", _on("Ks9s5s", "UPDATE flops SET status = 'maybe'"), (),
     "column status: is 'maybe', not one of done, failed"),
    ("flop-long", _on("Ks9s5s", "UPDATE flops SET flop = ?"), ("K" * 5000,),
     "column flop: is longer than 16 bytes"),
    ("error-huge", _on("8s8h5d", "UPDATE flops SET error = ?"), ("e" * 100_000,),
     "flop 8s8h5d, column error: is longer than 65,536 bytes"),
    ("column-missing", "ALTER TABLE flops DROP COLUMN seconds", (),
     "the flops table has no column seconds"),
    ("table-missing", "DROP TABLE flops", (), "no flops table"),
    ("flop-twice", "INSERT INTO flops SELECT * FROM flops WHERE flop = 'KsJh8d'", (),
     "flop KsJh8d is stored twice"),
    ("ev-number", _on("KsJh8d", "UPDATE flops SET summary = ?"), (_summary(ev=5),),
     "flop KsJh8d, column summary: ev is 5, not a list of 2 numbers"),
    ("ev-short", _on("KsJh8d", "UPDATE flops SET summary = ?"), (_summary(ev=[1.0]),),
     "column summary: ev is [1.0], not a list of 2"),
    ("ev-text", _on("KsJh8d", "UPDATE flops SET summary = ?"), (_summary(ev=["a", "b"]),),
     "column summary: ev[0] is 'a', not a finite number"),
    ("equity-bool", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(equity=[True, 0.4]),), "column summary: equity[0] is True"),
    ("iterations-text", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(iterations="many"),), "column summary: iterations is 'many'"),
    ("mix-text", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(oop_mix={"k": "often"}),), "column summary: oop_mix['k'] is 'often'"),
    ("mix-list", _on("KsJh8d", "UPDATE flops SET summary = ?"), (_summary(oop_mix=[0.5]),),
     "column summary: oop_mix is [0.5], not an object"),
    ("ip-mix-junk", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(ip_mix={"k": [1, [2, {"x": None}]]}),), "column summary: ip_mix['k'] is [1,"),
    ("actions-junk", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(actions={"oop": "k, b"}),), "column summary: actions['oop'] is 'k, b'"),
    ("classes-junk", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(classes=[1, 2]),), "column summary: classes is [1, 2], not an object"),
    ("class-no-combos", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(classes={"oop": [{"class": "overpair", "kind": "made", "mix": [0.5, 0.5]}]}),),
     "column summary: classes['oop'][0] has no 'combos'"),
    ("class-combos-text", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(classes={"oop": [{"class": "a", "kind": "made", "combos": "6"}]}),),
     "classes['oop'][0].combos is '6', not a finite number"),
    ("class-mix-length", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(classes={"oop": [{"class": "a", "kind": "made", "combos": 1, "mix": [1.0]}]}),),
     "classes['oop'][0].mix is [1.0], not a list of 2 frequencies"),
    ("class-not-object", _on("KsJh8d", "UPDATE flops SET summary = ?"),
     (_summary(classes={"oop": ["overpair"]}),), "classes['oop'][0] is 'overpair'"),
    ("nan", _on("Ks9s5s", "UPDATE flops SET summary = ?"),
     (_summary().replace("60.0", "NaN"),), "flop Ks9s5s, column summary: holds NaN"),
    ("infinity", _on("Ks9s5s", "UPDATE flops SET summary = ?"),
     (_summary().replace("0.75", "Infinity"),), "column summary: holds Infinity"),
    ("minus-infinity", _on("Ks9s5s", "UPDATE flops SET summary = ?"),
     (_summary().replace("60.0", "-Infinity"),), "column summary: holds -Infinity"),
    ("overflow", _on("Ks9s5s", "UPDATE flops SET summary = ?"),
     (_summary().replace("60.0", "1e999"),), "column summary: ev[0] is inf"),
    ("huge-int", _on("Ks9s5s", "UPDATE flops SET summary = ?"),
     (_summary().replace("100,", "1" + "0" * 400 + ","),),
     "column summary: iterations is"),
    ("not-json", _on("Ks9s5s", "UPDATE flops SET summary = ?"), ('{"ev": [1,',),
     "column summary: is not JSON"),
    ("not-object", _on("Ks9s5s", "UPDATE flops SET summary = ?"), ("[1, 2]",),
     "column summary: is [1, 2], not a JSON object"),
    ("summary-null", _on("Ks9s5s", "UPDATE flops SET summary = NULL"), (),
     "column summary: is NULL"),
    ("summary-not-utf8", _on("Ks9s5s", "UPDATE flops SET summary = x'7bff7d'"), (),
     "column summary: is not UTF-8 text"),
    ("deep", _on("Ks9s5s", "UPDATE flops SET summary = ?"), (_deep(100_000),),
     "column summary: is JSON nested too deeply"),
    ("huge", _on("Ks9s5s", "UPDATE flops SET summary = ?"),
     ('{"x": "' + "a" * 3_000_000 + '"}',), "column summary: is longer than 1,000,000 bytes"),
    ("many-actions", _on("Ks9s5s", "UPDATE flops SET summary = ?"),
     (_summary(oop_mix={f"b:{i}": 0.0 for i in range(5000)}),),
     "column summary: oop_mix is {"),
    ("long-action", _on("Ks9s5s", "UPDATE flops SET summary = ?"),
     (_summary(oop_mix={"b" * 5000: 1.0}),), "column summary: oop_mix key is 'bbbb"),
    ("spec-flops", "UPDATE meta SET value = ? WHERE key = 'spec'", (_spec(flops="50"),),
     "corrupt batch metadata (flops: no subset of 50 flops"),
    ("spec-pot", "UPDATE meta SET value = ? WHERE key = 'spec'", (_spec(template={"pot": "x"}),),
     "corrupt batch metadata (pot: 'x' is not a number"),
    ("spec-pot-nan", "UPDATE meta SET value = ? WHERE key = 'spec'",
     (_spec(template={"pot": math.inf}),), "corrupt batch metadata (pot: inf is not a number"),
    ("spec-huge", "UPDATE meta SET value = ? WHERE key = 'spec'",
     (_spec(name="n" * 2_000_000),), "its 'spec' is larger than 1,000,000 bytes"),
]  # fmt: skip


@pytest.mark.parametrize(
    ("sql", "args", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_report_names_the_file_and_the_problem(
    sql: str, args: tuple[Any, ...], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = make_db(tmp_path / "hostile.db", sql, args)
    assert main(["report", str(db)]) == 2
    captured = capsys.readouterr()
    err = captured.err
    assert err.startswith(f"error: FILE: {db}") and words in err, err
    assert err.count("\n") == 1 and "Traceback" not in err and "internal error" not in err
    assert captured.out == ""
    assert main(["report", str(db), "--json"]) == 2  # the same before any line is printed
    assert words in capsys.readouterr().err


SPOT = PAGE_SPOT


@pytest.fixture
def batches(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv(files.BATCHES_ENV, str(tmp_path))  # the page's batch folder
    yield tmp_path
    no_threads_left()


@pytest.mark.parametrize(
    ("sql", "args", "words"), [c[1:] for c in CASES], ids=[c[0] for c in CASES]
)
def test_the_reports_page_shows_one_error(
    sql: str, args: tuple[Any, ...], words: str, batches: Path
) -> None:
    make_db(batches / "hostile.db", sql, args)
    at = page("reports", **SPOT)
    at.run()
    at.text_input(key=R.OPEN_PATH).set_value("hostile.db").run()
    at.button(key="reports_open").click().run()
    assert not at.exception
    errors = [e.value for e in at.error]
    assert len(errors) == 1 and "'hostile.db'" in errors[0] and words in errors[0], errors
    assert not at.dataframe  # no report of a half-read file


def test_a_failed_flop_and_nulls_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A failed row, a summary with nulls where a solve had no number (NaN written as null),
    and keys a reader does not use: read as before."""
    db = make_db(tmp_path / "ok.db")
    nan = {**GOOD, "eqr": [None, math.nan], "oop_mix": {"k": math.nan, "b:100": 1.0}}
    with BatchStore.open(db) as store:
        store.record(parse_flop("KsJh8d"), 1, {**nan, "hands": "anything", "extra": [[[]]]})
        rows = store.rows()
    assert [r.status for r in rows] == ["done", "done", "failed"]
    assert rows[1].summary["eqr"] == [None, None] and rows[1].summary["oop_mix"]["k"] is None
    table = table_rows(rows)
    assert math.isnan(table[1]["oop k"]) and table[1]["oop b:100"] == 1.0
    assert table[2]["error"] == "ValueError: boom"
    assert main(["report", str(db)]) == 0
    out = capsys.readouterr().out
    assert "failed: ValueError: boom" in out and "weighted" in out


def test_the_writer_refuses_what_the_reader_would(tmp_path: Path) -> None:
    """A summary the reader would refuse is not written: the driver records the flop as
    failed, naming why, and the batch goes on."""
    db = make_db(tmp_path / "w.db")
    with BatchStore.open(db) as store:
        with pytest.raises(BatchError) as err:
            store.record(parse_flop("KsJh8d"), 1, {**GOOD, "ev": "lots"})
        assert err.value.field == "summary" and "ev is 'lots'" in err.value.message
        row = _store(store, parse_flop("KsJh8d"), 1, {"summary": {"ev": 5}, "seconds": 1.0})
        assert row.status == "failed" and "summary refused" in row.error and "ev is 5" in row.error
        assert [r.status for r in store.rows()] == ["done", "failed", "failed"]


def test_too_many_action_columns_over_the_flops(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each summary under the caps, together wider than the report table may be."""
    db = make_db(tmp_path / "wide.db")
    with BatchStore.open(db) as store:
        store.record(parse_flop("KsJh8d"), 1, {**GOOD, "oop_mix": {"k": 0.5, "b:33": 0.5}})
        assert len(store.rows()) == 3  # 5 action columns over the flops
    monkeypatch.setattr(S, "MAX_MIX_COLUMNS", 4)
    with BatchStore.open(db) as store, pytest.raises(BatchError) as err:
        store.rows()
    assert str(db) in err.value.message and "more than 4 actions" in err.value.message
