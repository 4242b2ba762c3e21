"""AppTest: the Compare page races algorithms live (full-width rules and Monte Carlo CFR, with
pruning modes and seeds), shows the overlaid curves, the table with winners, starts demos in
one click, reports bad input next to the form, and builds its download files (checked
directly: AppTest does not run download callables)."""

from __future__ import annotations

import csv
import io
import json
import shutil
from collections.abc import Iterator
from typing import Any

import pytest
from app_helpers import no_threads_left, page, poll
from streamlit.testing.v1 import AppTest

from app import state
from app.screens.compare import (
    GameChoice,
    display_rows,
    export_bytes,
    memory_error,
    progress_figure,
)
from solver.run.race import DEMOS, RaceJob, check_schedule, parse_entries, parse_targets


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def _race(at: AppTest) -> RaceJob:
    job = at.session_state[state.RACE]
    assert isinstance(job, RaceJob)
    return job


def _flat(node: object) -> Iterator[Any]:
    """Every element under ``node`` in page order."""
    kids = getattr(node, "children", None)
    if isinstance(kids, dict):
        for k in sorted(kids):
            yield from _flat(kids[k])
    else:
        yield node


def test_opens_with_demos_and_two_rows() -> None:
    at = page("compare")
    at.run()
    assert not at.exception
    assert at.title[0].value == "Compare"
    assert [at.button(key=f"btn_demo_{i}").proto.label for i in range(len(DEMOS))] == [
        d.title for d in DEMOS
    ]
    assert {d.caption for d in DEMOS} <= {c.value for c in at.caption}
    assert at.selectbox(key=state.COMPARE_GAME).value == "preset:leduc"
    assert at.selectbox(key="cmp_algo_0").value == "cfr+"
    assert at.selectbox(key="cmp_algo_1").value == "dcfr"
    assert not at.button(key="btn_race_start").disabled
    assert at.button(key="btn_race_stop").disabled
    assert "press **Start**" in at.info[0].value


def test_tiny_leduc_race_runs_to_its_table() -> None:
    at = page("compare")
    at.run()
    at.text_input(key=state.COMPARE_ITERATIONS).set_value("300")
    at.text_input(key=state.COMPARE_TARGETS).set_value("0.05, 0.01")
    at.selectbox(key="cmp_algo_1").set_value("cfr").run()
    at.button(key="btn_race_start").click().run()
    assert not at.exception
    job = _race(at)
    assert [e.text for e in job.entries] == ["cfr+", "cfr"]
    poll(at, lambda: job.progress.finished)
    at.run()
    p = job.progress
    assert p.state == "done" and not job.alive
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in chart["data"]] == ["cfr+", "cfr"]
    schedule = list(check_schedule(300))
    for trace, lane in zip(chart["data"], p.lanes, strict=True):
        its = [pt.iteration for pt in lane.points]
        assert trace["x"] == its == schedule[: len(its)]
        assert trace["y"] == [pt.exploitability for pt in lane.points]
    # CFR+ stopped at the hardest target (0.01 chips at 160 iterations), CFR ran to the end
    assert p.lanes[0].iteration == 160 and p.lanes[1].iteration == 300
    assert chart["layout"]["xaxis"]["type"] == "log" and chart["layout"]["yaxis"]["type"] == "log"
    table = at.dataframe[0].value
    assert list(table["algorithm"]) == ["cfr+", "cfr"]
    assert list(table["iterations"]) == ["160", "300"]
    assert list(table["state"]) == ["done (target)", "done (iterations)"]
    assert table["exploitability (chips)"][0] == format(p.lanes[0].exploitability, ".4g")
    text = next(m.value for m in at.markdown if "**Winners**" in m.value)
    lines = text.splitlines()[-2:]
    assert lines[0].startswith("- **0.05**: fastest **cfr+ (")
    # CFR+ gets to 0.01 first, by CPU seconds and by iterations
    assert lines[1].startswith("- **0.01**: fastest **cfr+ (")
    assert lines[1].endswith("; fewest iterations cfr+ (160)")
    assert not at.button(key="btn_race_start").disabled
    assert at.button(key="btn_race_stop").disabled
    # the x axis switch redraws the same curves against CPU seconds
    at.radio(key=state.COMPARE_X).set_value("seconds").run()
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert chart["data"][0]["x"] == [pt.cpu_s for pt in p.lanes[0].points]
    assert "CPU seconds" in chart["layout"]["xaxis"]["title"]["text"]


def test_demo_starts_in_one_click_and_stops() -> None:
    at = page("compare")
    at.run()
    d = DEMOS[3]  # CFR+ with and without an averaging delay, on Leduc
    at.button(key="btn_demo_3").click().run()
    assert not at.exception
    job = _race(at)
    # the results show under the demos, where the click was, not below the whole form
    flat = list(_flat(at.main))
    chart = next(i for i, e in enumerate(flat) if e.type == "plotly_chart")
    heads = {str(e.value): i for i, e in enumerate(flat) if e.type == "subheader"}
    form, demos = heads["Your race"], heads["Demos"]
    assert demos < chart < form
    assert [e.text for e in job.entries] == list(d.algorithms)
    assert job.max_iterations == d.iterations and job.stop_at_target == d.stop_at_target
    assert [t.label for t in job.targets] == ["0.01", "0.001", "0.0001"]
    # the form now shows the demo, so it can be tweaked and raced again
    assert at.selectbox(key="cmp_algo_1").value == "cfr+"
    assert at.text_input(key="cmp_param_1_cfr+_delay").value == "100"
    assert at.text_input(key=state.COMPARE_TARGETS).value == d.targets
    assert at.button(key="btn_race_start").disabled
    assert any(c.value == d.caption for c in at.caption)
    at.button(key="btn_race_stop").click().run()
    assert not job.alive and job.progress.state in ("stopped", "done")


def test_bad_input_is_shown_and_blocks_start() -> None:
    at = page("compare")
    at.run()
    at.text_input(key="cmp_param_0_cfr+_delay").set_value("-3").run()
    assert any("Algorithm 1" in e.value and "delay must be ≥ 0" in e.value for e in at.error)
    assert at.button(key="btn_race_start").disabled
    at.text_input(key="cmp_param_0_cfr+_delay").set_value("0")
    at.selectbox(key="cmp_algo_1").set_value("cfr+").run()
    assert any("'cfr+' listed twice" in e.value for e in at.error)
    at.selectbox(key="cmp_algo_1").set_value("lcfr")
    at.text_input(key=state.COMPARE_TARGETS).set_value("1%").run()
    assert any("percentage of the pot needs a hold'em game" in e.value for e in at.error)
    assert at.button(key="btn_race_start").disabled
    at.text_input(key=state.COMPARE_TARGETS).set_value("0.01, abc").run()
    assert any("Targets: 'abc' is not a number" in e.value for e in at.error)
    at.text_input(key=state.COMPARE_TARGETS).set_value("").run()
    assert not at.error and not at.button(key="btn_race_start").disabled


def test_bad_numbers_are_named_and_kept() -> None:
    at = page("compare")
    at.run()
    at.text_input(key=state.COMPARE_ITERATIONS).set_value("lots").run()
    assert [e.value for e in at.error] == ["Iterations per algorithm: 'lots' is not a number."]
    assert at.text_input(key=state.COMPARE_ITERATIONS).value == "lots"
    assert at.button(key="btn_race_start").disabled
    at.text_input(key=state.COMPARE_ITERATIONS).set_value("2000")
    at.text_input(key=state.COMPARE_WORKERS).set_value("9").run()
    assert [e.value for e in at.error] == ["Worker threads: must be from 1 to 6, got 9."]
    assert at.button(key="btn_race_start").disabled


def test_rows_are_added_and_removed() -> None:
    at = page("compare")
    at.run()
    at.button(key="btn_race_add").click().run()
    assert at.session_state[state.COMPARE_ROWS] == 3
    assert at.selectbox(key="cmp_algo_2").value == "cfr"  # the first algorithm not in use
    at.selectbox(key="cmp_algo_1").set_value("dcfr").run()
    at.text_input(key="cmp_param_1_dcfr_alpha").set_value("2.5").run()
    at.button(key="btn_race_remove_0").click().run()  # the rows below move up
    assert at.session_state[state.COMPARE_ROWS] == 2
    assert [at.selectbox(key=f"cmp_algo_{i}").value for i in range(2)] == ["dcfr", "cfr"]
    assert at.text_input(key="cmp_param_0_dcfr_alpha").value == "2.5"
    for _ in range(4):
        at.button(key="btn_race_add").click().run()
    assert at.session_state[state.COMPARE_ROWS] == 6
    assert at.button(key="btn_race_add").disabled


def test_invalid_current_setup_is_reported() -> None:
    at = page("compare", **{state.COMPARE_GAME: state.CURRENT_SETUP})
    at.run()
    at.session_state[state.BOARD] = "Td 9d 6h Qc Td"
    at.run()
    assert any("The set-up has errors" in e.value for e in at.error)
    assert at.button(key="btn_race_start").disabled


def test_races_that_need_too_much_memory_are_refused() -> None:
    from dataclasses import replace

    from solver.files.presets import load_preset
    from solver.games.holdem import estimate, validate

    spec = load_preset("srp-river").holdem
    assert spec is not None
    one = float(estimate(validate(spec)).memory_mb)  # one engine's regrets and sums
    tight = replace(spec, max_memory_mb=3.0 * one)
    choice = GameChoice("SRP river", {"kind": "holdem"}, float(spec.pot), spec=tight)
    assert memory_error(choice, 3) == ""
    msg = memory_error(choice, 4)
    assert msg.startswith("Memory: 4 algorithms ×") and "max_memory_mb" in msg
    assert memory_error(GameChoice("Leduc", {"kind": "toy"}, None), 6) == ""


def test_holdem_race_in_percent_of_the_pot() -> None:
    at = page("compare", **{state.COMPARE_GAME: "preset:libratus-3-river"})
    at.run()
    at.text_input(key=state.COMPARE_ITERATIONS).set_value("20")
    at.button(key="btn_race_start").click().run()
    job = _race(at)
    assert [t.label for t in job.targets] == ["1%", "0.3%", "0.1%"]
    poll(at, lambda: job.progress.finished)
    at.run()
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert chart["layout"]["yaxis"]["title"]["text"] == "exploitability (% pot)"
    lane = job.progress.lanes[0]
    assert chart["data"][0]["y"][-1] == pytest.approx(100 * lane.points[-1].exploitability / 500)
    assert "exploitability (% pot)" in at.dataframe[0].value.columns


def _finished_race() -> RaceJob:
    from conftest import game

    g = game("kuhn")
    job = RaceJob(g, parse_entries("cfr,cfr+:delay=2"), max_iterations=100,
                  targets=parse_targets("0.01, 0.001", None))  # fmt: skip
    job.start().wait_for(lambda q: q.finished)
    job.join(10)
    return job


def test_download_files() -> None:
    p = _finished_race().progress
    table = list(csv.DictReader(io.StringIO(export_bytes(p, "csv").decode())))
    assert [r["entry"] for r in table] == ["cfr", "cfr+:delay=2"]
    assert [r["algorithm"] for r in table] == ["cfr", "cfr+ (delay=2)"]
    assert table[1]["iterations"] == "100"
    points = list(csv.DictReader(io.StringIO(export_bytes(p, "points").decode())))
    assert len(points) == sum(len(lane.points) for lane in p.lanes)
    html = export_bytes(p, "html", title="Kuhn: exploitability").decode()
    assert html.lower().startswith("<!doctype html>")
    assert "cfr+ (delay=2)" in html and "Kuhn: exploitability" in html
    fig = progress_figure(p, "nodes")
    assert list(fig.data[0].x) == [pt.nodes_touched for pt in p.lanes[0].points]
    rows = display_rows(p)
    assert rows[1]["algorithm"] == "cfr+ (delay=2)" and rows[1]["state"] == "done (iterations)"
    with pytest.raises(ValueError):
        export_bytes(p, "gif")
    if shutil.which("chromium") is None:
        pytest.skip("kaleido needs chromium for SVG")
    svg = export_bytes(p, "svg").decode()
    assert "<svg" in svg and "cfr+ (delay=2)" in svg


# ----- Monte Carlo CFR and pruning in races ---------------------------------------------------
def test_row_options_follow_the_algorithm() -> None:
    at = page("compare")
    at.run()
    options = at.selectbox(key="cmp_algo_0").options
    assert {"mccfr-cs", "mccfr-es", "mccfr-os", "dmccfr"} <= set(options)
    assert options.index("dcfr") < options.index("mccfr-cs")  # full-width first
    at.selectbox(key="cmp_algo_0").set_value("cfr").run()
    assert at.selectbox(key="cmp_pruning_0").options == [
        "partial (exact)", "none", "interval RBP", "Total RBP",
    ]  # fmt: skip
    assert at.selectbox(key="cmp_pruning_1").options == ["partial (exact)", "none"]  # dcfr
    assert all(n.key != "cmp_seed_0" for n in at.text_input)
    at.selectbox(key="cmp_algo_1").set_value("mccfr-es").run()
    assert at.text_input(key="cmp_seed_1").value == "0"
    assert all(b.key != "cmp_pruning_1" for b in at.selectbox)  # "none" is its only mode
    at.selectbox(key="cmp_algo_1").set_value("mccfr-cs").run()
    assert at.text_input(key="cmp_seed_1").value == "0"
    assert at.selectbox(key="cmp_pruning_1").options == ["partial (exact)", "none"]
    at.text_input(key="cmp_seed_1").set_value("-2").run()
    bad = "Algorithm 2: Seed: must be from 0 to 4,294,967,295, got -2."
    assert any(e.value == bad for e in at.error)
    assert at.button(key="btn_race_start").disabled
    assert at.text_input(key="cmp_seed_1").value == "-2"  # kept as typed
    at.text_input(key="cmp_seed_1").set_value("4").run()
    assert not at.error and not at.button(key="btn_race_start").disabled


def test_race_mixes_pruning_and_sampling_on_kuhn() -> None:
    at = page("compare", **{state.COMPARE_GAME: "preset:kuhn"})
    at.run()
    at.button(key="btn_race_add").click().run()
    at.selectbox(key="cmp_algo_0").set_value("cfr")
    at.selectbox(key="cmp_algo_1").set_value("cfr")
    at.selectbox(key="cmp_algo_2").set_value("mccfr-es").run()
    at.selectbox(key="cmp_pruning_1").set_value("total")
    at.text_input(key="cmp_seed_2").set_value("1")
    at.text_input(key=state.COMPARE_ITERATIONS).set_value("300").run()
    assert not at.error
    at.button(key="btn_race_start").click().run()
    assert not at.exception
    job = _race(at)
    assert [e.text for e in job.entries] == ["cfr", "cfr:pruning=total", "mccfr-es:seed=1"]
    poll(at, lambda: job.progress.finished)
    at.run()
    p = job.progress
    assert p.state == "done" and not p.error
    assert [lane.iteration for lane in p.lanes] == [300, 300, 300]
    table = at.dataframe[0].value
    assert list(table["algorithm"]) == ["cfr", "cfr (total pruning)", "mccfr-es (seed 1)"]
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert [t["name"] for t in chart["data"]] == list(table["algorithm"])
    at.radio(key=state.COMPARE_X).set_value("nodes").run()
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    for trace, lane in zip(chart["data"], p.lanes, strict=True):
        assert trace["x"] == [pt.nodes_touched for pt in lane.points]


def test_pruning_demo_fills_the_rows_and_reads_by_nodes() -> None:
    at = page("compare")
    at.run()
    i = next(k for k, d in enumerate(DEMOS) if d.key == "pruning")
    at.button(key=f"btn_demo_{i}").click().run()
    assert not at.exception
    job = _race(at)
    assert [e.label for e in job.entries] == [
        "cfr", "cfr (none pruning)", "cfr (interval pruning)", "cfr (total pruning)",
    ]  # fmt: skip
    assert [at.selectbox(key=f"cmp_pruning_{r}").value for r in range(4)] == [
        "partial", "none", "interval", "total",
    ]  # fmt: skip
    assert at.radio(key=state.COMPARE_X).value == "nodes"
    at.button(key="btn_race_stop").click().run()
    assert not job.alive
    # a demo with sampling algorithms fills the seeds too (seed 0: not in the labels)
    i = next(k for k, d in enumerate(DEMOS) if d.key == "mccfr")
    at.button(key=f"btn_demo_{i}").click().run()
    job = _race(at)
    assert [e.text for e in job.entries] == ["cfr", "mccfr-cs", "mccfr-es", "dmccfr"]
    assert at.text_input(key="cmp_seed_2").value == "0"
    at.button(key="btn_race_stop").click().run()
    assert not job.alive


def test_removing_a_row_moves_pruning_and_seed_up() -> None:
    at = page("compare")
    at.run()
    at.button(key="btn_race_add").click().run()
    at.selectbox(key="cmp_algo_1").set_value("cfr").run()
    at.selectbox(key="cmp_pruning_1").set_value("interval")
    at.selectbox(key="cmp_algo_2").set_value("mccfr-os").run()
    at.text_input(key="cmp_seed_2").set_value("9").run()
    at.button(key="btn_race_remove_0").click().run()
    assert [at.selectbox(key=f"cmp_algo_{r}").value for r in range(2)] == ["cfr", "mccfr-os"]
    assert at.selectbox(key="cmp_pruning_0").value == "interval"
    assert at.text_input(key="cmp_seed_1").value == "9"


def test_a_demo_blocked_by_a_setting_of_your_race_says_so_by_the_demo() -> None:
    """Workers is a setting of "Your race" that a demo keeps: a bad one blocks the demo, and
    the message shows by the demo clicked (it showed below the whole form)."""
    at = page("compare", **{state.COMPARE_WORKERS: "lots"})
    at.run()
    at.button(key="btn_demo_3").click().run()
    assert not at.exception
    flat = list(_flat(at.main))
    heads = {str(e.value): i for i, e in enumerate(flat) if e.type == "subheader"}
    errors = [(i, e.value) for i, e in enumerate(flat) if e.type == "error"]
    by_demo = [v for i, v in errors if heads["Demos"] < i < heads["Your race"]]
    assert by_demo == [
        "Cannot start: Worker threads: 'lots' is not a number (in Your race, below)."
    ]
    at.text_input(key=state.COMPARE_WORKERS).set_value("2").run()
    at.button(key="btn_demo_3").click().run()
    assert not [e for e in _flat(at.main) if e.type == "error"]
    at.button(key="btn_race_stop").click().run()


def test_preflop_race_reads_in_bb_and_mbb_per_hand() -> None:
    """A preflop game's chips are big blinds: the targets are read in bb (or mbb), the curves
    drawn in mbb/hand and the table and CSV give bb and mbb/hand — not % of the blinds."""
    at = page("compare", **{state.COMPARE_GAME: "preset:preflop-pushfold-10bb"})
    at.run()
    field = at.text_input(key=state.COMPARE_TARGETS)
    assert field.label == "Targets (bb, or mbb/hand as '1 mbb')"
    assert field.placeholder == "default: 10 mbb, 1 mbb, 0.1 mbb"
    field.set_value("0.5%").run()
    assert [e.value for e in at.error] == [
        "Targets: '0.5%': a preflop target is in bb or mbb, not % of the pot"
    ]
    at.text_input(key=state.COMPARE_TARGETS).set_value("0.01, 1 mbb")
    at.text_input(key=state.COMPARE_ITERATIONS).set_value("40").run()
    at.button(key="btn_race_start").click().run()
    assert not at.exception
    job = _race(at)
    assert [(t.label, t.chips) for t in job.targets] == [("0.01 bb", 0.01), ("1 mbb", 0.001)]
    poll(at, lambda: job.progress.finished)
    at.run()
    p = job.progress
    chart = json.loads(at.get("plotly_chart")[0].proto.spec)
    assert chart["layout"]["yaxis"]["title"]["text"] == "exploitability (mbb/hand)"
    lane = p.lanes[0]
    assert chart["data"][0]["y"][-1] == pytest.approx(1000 * lane.points[-1].exploitability)
    assert sorted(s["y0"] for s in chart["layout"]["shapes"]) == pytest.approx([1.0, 10.0])
    table = at.dataframe[0].value
    assert "iterations to 1 mbb" in table.columns
    assert not [c for c in table.columns if "% pot" in c or "chips" in c]
    mbb = 1000 * float(lane.exploitability or 0.0)
    assert table["exploitability (mbb/hand)"][0] == format(mbb, ".4g")
    assert table["exploitability (bb)"][0] == format(lane.exploitability, ".4g")
    rows = list(csv.DictReader(io.StringIO(export_bytes(p, "csv", preflop=True).decode())))
    assert float(rows[0]["exploitability (mbb/hand)"]) == pytest.approx(mbb)
    assert "exploitability (% pot)" not in rows[0]
    points = export_bytes(p, "points", preflop=True).decode().splitlines()
    assert points[0].endswith(",nodes_touched,exploitability_bb")
