"""AppTest: the Reports page sets up a tiny batch from the current spot, runs it on a real
LocalCluster in a background job, shows progress and the report as it fills (table, charts,
aggregates), refuses bad input naming the field, opens a database, and opens a flop's saved
solve in Explore. (The report at any line, the line picker: tests/test_app_reports_lines.py.)"""

from __future__ import annotations

import contextlib
import json
import re
import signal
import time
from pathlib import Path

import pytest
from batch_helpers import PAGE_SPOT, reports_page, tiny_spec
from streamlit.testing.v1 import AppTest

from app import files, state
from app.components.fields import duration
from app.features import batch_run
from app.screens import reports as R
from solver.batch.driver import target_seconds
from solver.batch.store import BatchStore
from solver.poker.flops import parse_flop

SPOT = PAGE_SPOT


@pytest.fixture(autouse=True)
def _teardown(reports_folder: Path) -> None:
    """Each test's own batch folder (tests/conftest.py's ``reports_folder``)."""


def _page(tmp_path: Path, **extra: object) -> AppTest:
    return reports_page(**extra)


def test_batch_runs_and_the_report_fills(tmp_path: Path) -> None:
    # a rainbow, a monotone and a paired flop, each solved in under a second
    at = _page(tmp_path, **{R.FLOPS: "list", R.FLOP_LIST: "KhTd9c, Ks9s5s, 8s8h5d",
                            R.TARGET: 2.0, R.ITERATIONS: 200,
                            R.DB_PATH: "coach/monday/r.db"})  # a folder made for it  # fmt: skip
    assert "Start a batch" in at.info[-1].value
    # what it will cost, said before Start
    said = next(i.value for i in at.info if i.value.startswith("**Before you start:** 3 flops"))
    assert "to summarise its tree for reports at any line" in said  # the per-node summary
    cost = at.session_state[batch_run.COST][1]  # solver.batch.spec.batch_cost (test_batch.py)
    assert cost.summary_seconds > 0 and cost.max_seconds > cost.summary_seconds
    assert f"then about {duration(cost.summary_seconds)} to summarise" in said
    assert f"grows by up to {cost.disk_mb:,.1f} MB of tree summaries" in said
    # a time to the target, not only the worst case (solver.batch.driver.target_seconds)
    to_target = target_seconds(tiny_spec(target_pct=2.0, max_iterations=200), cost)
    assert to_target is not None and 0 < to_target <= cost.max_seconds
    assert f"To 2 % of the pot, summarised, the batch takes about {duration(to_target)}" in said
    assert f"at most {duration(cost.max_seconds)} if every flop runs to the iteration" in said
    at.button(key="reports_start").click().run()
    assert not at.exception and not at.error
    job = at.session_state[R.JOB]
    # the page as the report fills, redrawn once a second (a redraw every few ms would take
    # a core from the batch's workers)
    deadline = time.monotonic() + 120
    while not job.progress.finished:
        assert time.monotonic() < deadline, "the batch did not finish in 120 s"
        with contextlib.suppress(TimeoutError):
            job.wait_for(lambda p: p.finished, timeout=1.0)
        at.run()
        assert not at.exception
    at.run()  # the run after the job finished
    assert job.progress.state == "done", job.progress.error
    assert not at.exception
    bar = at.get("progress")[0]
    assert "3 / 3 flops" in bar.proto.text
    table = at.dataframe[0].value
    assert sorted(table["flop"]) == ["8s8h5d", "Ks9s5s", "KsTh9d"]
    with BatchStore.open(tmp_path / "coach" / "monday" / "r.db") as store:
        rows = {r.flop: r for r in store.rows()}
    for _, rec in table.iterrows():  # the page shows the database's numbers
        assert rec["oop_ev"] == pytest.approx(rows[rec["flop"]].summary["ev"][0])
    # ... under titles in words with their units (the records keep their keys for exports)
    shown = json.loads(at.dataframe[0].proto.columns)
    assert shown["oop_ev"]["label"] == "OOP EV (chips)" and shown["oop_ev"]["type_config"]
    assert shown["oop b:100"]["label"] == "OOP: All-in 100"
    assert shown["ip vs k: b:100"]["label"] == "IP vs check: All-in 100"
    assert shown["oop_equity"]["type_config"]["format"] == "percent"
    assert shown["oop_ev"]["type_config"]["format"] == "%.2f"
    metrics = {m.label: m.value for m in at.metric}
    total = sum(r.weight for r in rows.values())
    oop_ev = sum(r.weight * r.summary["ev"][0] for r in rows.values()) / total
    assert metrics["OOP EV (weighted)"] == f"{oop_ev:.2f}"
    charts = [json.loads(c.proto.spec) for c in at.get("plotly_chart")]
    bars = charts[0]["data"]
    assert {b["name"] for b in bars} == {"Check", "All-in 100"}  # as Explore names it
    assert len(bars[0]["x"]) == 3
    heat = charts[2]["data"][0]
    assert heat["type"] == "heatmap" and "K-high" in heat["y"]
    classes = charts[4]["data"]  # OOP's mix per hand class, aggregated over the flops
    assert [b["name"] for b in classes] == ["Check", "All-in 100"]
    assert at.selectbox(key=R.CLASS_NODE).options[:2] == ["OOP's first action", "IP vs check"]
    assert all(re.search(r"\(\d[\d,]*(\.[1-9])? combos\)$", y) for y in classes[0]["y"])
    assert any(y.startswith("Overpair") for y in classes[0]["y"])
    for i in range(len(classes[0]["y"])):
        assert classes[0]["x"][i] + classes[1]["x"][i] == pytest.approx(100.0)
    # the group table: one row per suit class
    groups = at.dataframe[1].value  # the whole set, then one row per suit class
    assert groups["suits"].tolist()[:1] == ["all flops"]
    assert set(groups["suits"].tolist()[1:]) == {"rainbow", "monotone"}
    assert groups["oop_ev"].tolist()[0] == pytest.approx(oop_ev)
    # a flop's saved solve opens in Explore
    assert at.selectbox(key=R.OPEN_FLOP).value in rows
    at.selectbox(key=R.OPEN_FLOP).set_value("Ks9s5s")
    at.button(key="reports_explore").click().run()
    loaded = at.session_state[state.LOADED]
    assert loaded is not None and loaded.holdem.board == "Ks9s5s"


def test_bad_input_names_the_field(tmp_path: Path) -> None:
    at = _page(tmp_path, **{R.FLOPS: "list", R.FLOP_LIST: "AhKd"})
    at.button(key="reports_start").click().run()
    assert "flops" in at.error[0].value and "whole flops" in at.error[0].value
    at.text_input(key=R.FLOP_LIST).set_value("AhKd7c").run()
    at.multiselect(key=R.FILTER + "suits").set_value(["monotone"]).run()
    at.button(key="reports_start").click().run()
    assert "filter" in at.error[0].value
    at.multiselect(key=R.FILTER + "suits").set_value([]).run()
    assert not at.error  # the Start error was about the inputs as they were
    # workers and scheduler: checked as typed, named as the page names them
    at.text_input(key=R.WORKERS).set_value("100").run()
    assert at.error[0].value.startswith("Workers: 100 workers × 1 threads")
    assert "lower Workers or Threads per solve" in at.error[0].value
    assert at.button(key="reports_start").disabled
    at.text_input(key=R.WORKERS).set_value("1").run()
    at.text_input(key=R.SCHEDULER).set_value("nowhere").run()
    assert [e.value for e in at.error] == [
        "Scheduler: 'nowhere' is not a scheduler address (e.g. tcp://10.0.0.5:8786)"
    ]
    assert at.button(key="reports_start").disabled
    assert not (tmp_path / "r.db").exists() and R.JOB not in at.session_state


def test_bad_numbers_are_named_kept_and_block_start(tmp_path: Path) -> None:
    at = _page(tmp_path)
    at.text_input(key=R.WORKERS).set_value("lots").run()
    assert [e.value for e in at.error] == ["Workers: 'lots' is not a number."]
    assert at.text_input(key=R.WORKERS).value == "lots"
    assert at.button(key="reports_start").disabled
    at.text_input(key=R.WORKERS).set_value("1")
    at.text_input(key=R.TARGET).set_value("1e12").run()
    assert [e.value for e in at.error] == ["Target (% pot): must be from 0.01 to 100, got 1e12."]
    assert at.button(key="reports_start").disabled
    at.text_input(key=R.TARGET).set_value("2.5").run()
    assert not at.error and not at.button(key="reports_start").disabled


def test_open_a_database_and_refuse_junk(tmp_path: Path) -> None:
    spec = tiny_spec()
    db = tmp_path / "old.db"
    with BatchStore.create_or_open(db, spec) as store:
        store.record(parse_flop("Ks9s5s"), 0, {"ev": [60.0, 40.0], "equity": [0.6, 0.4],
                     "oop_mix": {"k": 0.25, "b:100": 0.75}}, seconds=1.0)  # fmt: skip
    junk = tmp_path / "junk.db"
    junk.write_text("junk")
    at = _page(tmp_path)
    at.text_input(key=R.OPEN_PATH).set_value("junk.db").run()
    at.button(key="reports_open").click().run()
    assert "not a batch database" in at.error[0].value
    assert str(tmp_path) not in at.error[0].value  # named as the page names it
    at.text_input(key=R.OPEN_PATH).set_value("old.db").run()
    at.button(key="reports_open").click().run()
    assert not at.exception and not at.error
    assert list(at.dataframe[0].value["flop"]) == ["Ks9s5s"]
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["OOP bets"] == "75.0%"
    assert "not saved" in " ".join(c.value for c in at.caption)


@pytest.mark.cores(2)  # two batch workers
def test_batch_job_stops_and_resumes(tmp_path: Path) -> None:
    """The app's background job: Stop keeps every finished flop; a new job on the same
    database solves only the rest."""
    from solver.batch.job import BatchJob

    # six flops of a fraction of a second each (the A- and Q-high ones take seconds: their
    # tree summaries stay large), so Stop lands with flops still to solve
    spec = tiny_spec(flops="Js9s5s, Ks9s5s, KsJh8d, 8s8h5d, Ts9s6h, 7s6h3d",
                     target_pct=None, max_iterations=100, check_every=50)  # fmt: skip
    db = tmp_path / "j.db"
    # a server started in the background of a shell ignores SIGINT, and so would the child:
    # the batch command restores it, so Stop still works
    old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        job = BatchJob(spec, db, workers=2).start()
        deadline = time.monotonic() + 30
        while job._proc is None and time.monotonic() < deadline:
            time.sleep(0.01)
    finally:
        signal.signal(signal.SIGINT, old)
    job.wait_for(lambda p: p.done >= 2 or p.finished, timeout=120)
    stopped_at = time.monotonic()
    job.stop()
    assert job.join(60)
    assert time.monotonic() - stopped_at < job.kill_after_s  # ended by the signal, not killed
    p = job.progress
    assert p.state in ("stopped", "done"), p.error
    with BatchStore.open(db) as store:
        kept = store.done_flops()
    assert len(kept) >= 2
    again = BatchJob(spec, db, workers=2).start()
    q = again.wait_for(lambda p: p.finished, timeout=120)
    assert q.state == "done" and q.done == 6 and q.skipped == len(kept), q.error
    with BatchStore.open(db) as store:
        assert len(store.rows("done")) == 6
    assert not db.with_name(db.name + ".spec.json").exists()


def test_export_data(tmp_path: Path) -> None:
    """What the download buttons build: the table as CSV and JSON, charts as HTML and PNG."""
    import csv
    import io

    from app.components import batch_figures as BF
    from app.components.images import html_bytes, image_bytes
    from solver.batch.report import json_safe, to_csv

    spec = tiny_spec()
    db = tmp_path / "e.db"
    with BatchStore.create_or_open(db, spec) as store:
        for i, (flop, ev) in enumerate((("Ks9s5s", 60.0), ("KsJh8d", 55.0))):
            summary = {"ev": [ev, 100 - ev], "equity": [0.6, 0.4], "eqr": [1.0, 1.0],
                       "oop_mix": {"k": 0.5, "b:100": 0.5}}  # fmt: skip
            store.record(parse_flop(flop), i, summary, seconds=1.0)
        rows = store.rows()
    recs = R.records(rows)
    table = list(csv.DictReader(io.StringIO(to_csv(recs))))
    assert [r["flop"] for r in table] == ["Ks9s5s", "KsJh8d"]
    assert float(table[0]["oop_bet"]) == 0.5 and float(table[1]["oop_ev"]) == 55.0
    assert json.loads(json.dumps(json_safe(recs)))[1]["oop_ev"] == 55.0
    cols = [c for c in recs[0] if c.startswith("oop ")]
    fig = BF.mix_bars(recs, cols, "oop ", "t")
    assert b"plotly" in html_bytes(fig)[:5000].lower()
    assert image_bytes(fig, "png").startswith(b"\x89PNG")
    heat = BF.heatmap(recs, "oop_bet", "t")
    assert [list(r) for r in heat.data[0].z] == [[50.0, 50.0]]  # K-high: rainbow, monotone
    assert list(heat.data[0].x) == ["rainbow", "monotone"]


def test_paths_outside_the_batch_folder_are_refused_alike(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Open and Start read a name inside the batch folder only: an absolute path, ``..``, a
    symbolic link out, or a file of another kind is refused with one message — the same
    whether anything exists there — and nothing outside is read, created or named."""
    folder = tmp_path / "batches"
    folder.mkdir()
    monkeypatch.setenv(files.BATCHES_ENV, str(folder))
    outside = tmp_path / "outside"
    outside.mkdir()
    real = outside / "real.db"
    with BatchStore.create_or_open(real, tiny_spec()):
        pass
    (folder / "link.db").symlink_to(real)
    at = _page(tmp_path)
    refusals = {}
    for name in (str(real), str(outside / "absent.db"), "../outside/real.db",
                 "../outside/absent.db", "link.db", "~/x.db", "/etc/passwd"):  # fmt: skip
        at.text_input(key=R.OPEN_PATH).set_value(name).run()
        at.button(key="reports_open").click().run()
        assert not at.exception
        refusals[name] = at.error[0].value
    first = next(iter(refusals.values()))
    assert len(set(refusals.values())) == 1, refusals
    assert "inside the batch folder" in first and str(tmp_path) not in first
    assert R.DB not in at.session_state  # no report opened
    at.text_input(key=R.OPEN_PATH).set_value("notes.txt").run()
    at.button(key="reports_open").click().run()
    assert "ends in .db or .sqlite" in at.error[0].value
    at.text_input(key=R.OPEN_PATH).set_value("missing.db").run()
    at.button(key="reports_open").click().run()
    assert "no database 'missing.db' in the batch folder" in at.error[0].value
    # a new batch's database: the same rule, and nothing is created outside
    at.text_input(key=R.DB_PATH).set_value(str(outside / "new.db")).run()
    at.button(key="reports_start").click().run()
    assert not at.exception
    assert at.error[0].value.startswith("Cannot start: Database file: name a database inside")
    assert not (outside / "new.db").exists() and R.JOB not in at.session_state
