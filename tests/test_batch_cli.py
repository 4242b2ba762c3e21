"""``python -m solver batch`` and ``report``: the JSON-lines contract (field names), resume
with ``"skipped": true``, the report's table, aggregate and CSV, and bad input as one line
naming the flag with exit code 2. The real run, a process of its own, starts the driver's own
LocalCluster; the commands after it run in this process (tests/cli_helpers.py)."""

from __future__ import annotations

import csv
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run

from solver.cli import main

ROOT = Path(__file__).resolve().parent.parent
SPOT = ["--pot", "100", "--stack", "100", "--oop-range", "AA, KK, T9s", "--ip-range",
        "QQ, AKs, KQs", "--bets", "a", "--raises", "a"]  # fmt: skip
# a rainbow, a monotone and a paired flop, each solved in under a second
FLOPS = ["--flops", "KhTd9c, Ks9s5s, 8s8h5d", "--target", "2%", "--iterations", "200"]
FLOP_FIELDS = {"flop", "weight", "ev", "equity", "oop_mix", "ip_mix", "exploitability_pct_pot",
               "iterations", "seconds"}  # fmt: skip


def _run(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "NUMBA_THREADING_LAYER": "threadsafe"}
    return subprocess.run(
        [sys.executable, "-m", "solver", *args],
        cwd=ROOT, capture_output=True, text=True, timeout=300, env=env,
    )  # fmt: skip


@pytest.mark.cores(2)  # two batch workers
def test_batch_json_lines_resume_and_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "b.db"
    out = _run("batch", *SPOT, *FLOPS, "--workers", "2", "--db", str(db), "--json")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    flops, final = lines[:-1], lines[-1]
    assert final["final"] is True and final["flops_done"] == 3 and final["state"] == "done"
    assert sorted(x["flop"] for x in flops) == ["8s8h5d", "Ks9s5s", "KsTh9d"]
    for x in flops:
        assert set(x) >= FLOP_FIELDS and "skipped" not in x
        assert x["ev"][0] + x["ev"][1] == pytest.approx(100.0, abs=1e-2)  # float32 sums
        assert sum(x["oop_mix"].values()) == pytest.approx(1.0)
        assert x["exploitability_pct_pot"] <= 2.0
    assert "flops/min" in out.stderr and "ETA" in out.stderr  # progress on stderr
    weights = {x["flop"]: x["weight"] for x in flops}
    assert weights == {"KsTh9d": 24.0, "Ks9s5s": 4.0, "8s8h5d": 12.0}
    agg = final["aggregate"]["values"]["oop_ev"]
    assert agg == pytest.approx(sum(x["weight"] * x["ev"][0] for x in flops) / 40.0)

    again = run("batch", *SPOT, *FLOPS, "--db", str(db), "--json")
    assert again.returncode == 0, again.stderr
    relines = [json.loads(x) for x in again.stdout.splitlines()]
    assert all(x["skipped"] is True for x in relines[:-1]) and len(relines) == 4
    assert (
        [x["ev"] for x in relines[:-1]]
        == [  # nothing solved again: the stored numbers
            next(y["ev"] for y in flops if y["flop"] == x["flop"]) for x in relines[:-1]
        ]
    )
    assert "starting the Dask cluster" not in again.stderr

    csv_path = tmp_path / "t.csv"
    rep = run("report", str(db), "--json", "--csv", str(csv_path))
    assert rep.returncode == 0, rep.stderr
    replines = [json.loads(x) for x in rep.stdout.splitlines()]
    assert replines[-1]["final"] is True
    assert replines[-1]["aggregate"]["values"]["oop_ev"] == pytest.approx(agg)
    assert {x["flop"] for x in replines[:-1]} == set(weights)
    with open(csv_path, newline="") as fh:
        table = list(csv.DictReader(fh))
    assert {r["flop"] for r in table} == set(weights) and "oop k" in table[0]
    text = run("report", str(db), "--group", "suits")
    assert text.returncode == 0 and "weighted" in text.stdout and "suits=rainbow" in text.stdout
    # the same database with another target: refused, untouched
    before = db.read_bytes()
    assert main(["batch", *SPOT, *FLOPS, "--target", "5%", "--db", str(db)]) == 2
    assert "another spec (differs in target_pct)" in capsys.readouterr().err
    assert db.read_bytes() == before


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--flops", "50"], "--flops: no subset of 50 flops"),
        (["--filter", "suits=monotone", "--filter", "pairing=trips"], "--filter: no flop"),
        (["--filter", "colour=red"], "--filter:"),
        (["--target", "lots"], "--target:"),
        (["--workers", "0"], "--workers: must be ≥ 1"),
        (["--scheduler", "tcp://127.0.0.1:9", "--connect-timeout", "1"], "--scheduler: no Dask"),
        (["--board", "AhKd7c"], "--board: a batch takes its boards from --flops"),
        (["--oop-range", "AA, AsKs"], "--oop-range: is not suit-symmetric"),
        (["--flops", "²"], "--flops: '²': expected whole flops"),  # ('²'.isdigit() is True)
        (["--algorithm", "nope"], "--algorithm: unknown algorithm 'nope'"),
        (["--connect-timeout", "inf"], "--connect-timeout: must be seconds from 0 to 3,600"),
        (["--connect-timeout", "nan"], "--connect-timeout: must be seconds"),
    ],
)
def test_bad_batch_input(
    args: list[str], words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    db = tmp_path / "b.db"
    argv = ["batch", *SPOT, "--db", str(db), *args]
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and words in err and "Traceback" not in err
    assert not db.exists()


@pytest.mark.cores(2)  # two batch workers
def test_bad_report_and_foreign_database(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"not a database at all")
    assert main(["report", str(junk)]) == 2
    assert "not a batch database" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "missing.db")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["batch", *SPOT, "--db", str(junk)]) == 2
    assert "--db: " in capsys.readouterr().err
    assert junk.read_bytes() == b"not a database at all"
    assert main(["batch", "--preset", "leduc", "--db", str(tmp_path / "x.db")]) == 2
    assert "--preset" in capsys.readouterr().err


def test_an_algorithm_name_in_capitals_is_the_same_batch(tmp_path: Path) -> None:
    """``--algorithm DCFR`` is ``dcfr`` (as ``solve --algorithm`` takes it), one spec."""
    import argparse

    from solver.batch.cli import spec_from_args
    from solver.batch.spec import check

    args = argparse.Namespace(
        spec=None, game=None, board=None, preset="srp-flop", pot=None, oop_range=None,
        flops="25", filter=[], target="1%", iterations="10", every="10",
        threads_per_solve="1", save_solves=False, algorithm=" DCFR",
    )  # fmt: skip
    spec = spec_from_args(args, None)  # type: ignore[arg-type]
    assert spec.algorithm == "dcfr"
    check(spec, estimate_memory=False)


@pytest.mark.parametrize(
    ("content", "words"),
    [
        (b'{"template": {}}', "template: missing field(s) pot, stack, oop_range, ip_range"),
        (b'{"template": {"pot": 1}, "flops": "49"}', "missing field(s) stack"),
        (b"\xff\xfe not utf-8", "not a batch spec"),
        (b"[" * 100_000, "not a batch spec"),
        (b" " * 1_000_001, "larger than 1,000,000 bytes"),
    ],
)
def test_a_hostile_spec_file_is_one_line(
    content: bytes, words: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = tmp_path / "spec.json"
    spec.write_bytes(content)
    assert main(["batch", "--spec", str(spec), "--db", str(tmp_path / "b.db")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: --spec: ") and words in err and "Traceback" not in err, err
    assert not (tmp_path / "b.db").exists()


def test_an_endless_spec_file_is_refused_after_the_cap(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """/dev/zero as a spec: read up to the cap, then refused (it grew without end before)."""
    assert main(["batch", "--spec", "/dev/zero", "--db", str(tmp_path / "b.db")]) == 2
    assert "/dev/zero: larger than 1,000,000 bytes" in capsys.readouterr().err
