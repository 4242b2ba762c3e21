"""AppTest: the Solve page (the app's default page) drives a background solve and shows its
numbers; buttons follow the job's state; every algorithm (full-width and Monte Carlo CFR) with
its pruning, seed and RBP settings, the memory metric and curve, curves by nodes touched; bad
values (numbers too) get a message naming their field and keep what was typed; settings
follow the game; the page shows one game at a time; checks fall at fixed iterations.

The teardown stops any thread a test left running (AppTest never ends a session, so the
app's own session reaper cannot be seen here: the browser tests close real sessions)."""

from __future__ import annotations

import json
import os
import re

import pytest
from app_helpers import app, no_threads_left, poll
from streamlit.testing.v1 import AppTest

from app import state
from app.components.figures import human_bytes
from solver import exploitability
from solver.algorithms import ALGORITHMS


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def test_opens_on_a_preset_with_solve_enabled() -> None:
    at = app()
    at.run()
    assert not at.exception
    assert at.title[0].value == "Solve"
    assert "SRP river" in at.markdown[0].value
    assert not at.button(key="btn_solve").disabled
    assert at.button(key="btn_pause").disabled and at.button(key="btn_stop").disabled
    # hold'em preset: the hold'em default, DCFR(1.5, 0.1, 4) averaging every 2nd iteration
    assert at.selectbox(key=state.ALGORITHM).value == "dcfr-tuned"
    # above the fold: algorithm, target, limit, threads, Solve; the internals under Advanced,
    # folded away
    assert [n.label for n in at.text_input][:3] == ["Target", "Max iterations", "Threads"]
    advanced = at.expander[0]
    assert advanced.label.startswith("Advanced") and not advanced.proto.expanded
    assert [n.label for n in advanced.text_input][:4] == ["alpha", "beta", "gamma", "average_every"]
    assert [n.value for n in advanced.text_input][:4] == ["1.5", "0.1", "4", "2"]
    assert [n.label for n in advanced.selectbox] == ["Pruning", "Storage"]
    assert advanced.text_input[-1].key == state.CHECK_EVERY
    assert at.text_input(key=state.TARGET).value == "0.3"
    assert at.radio(key=state.TARGET_UNIT).value == "% pot"
    # the estimate before solving: time to the target, not per iteration
    line = at.markdown[0].value
    assert re.search(r"· (≈ [\d.]+ s|under a second) to 0\.3 % pot$", line), line


def _header(at: AppTest) -> str:
    return next(e.proto.body for e in at.get("html") if "spot-header" in e.proto.body)


def test_spot_header_says_the_spot_before_and_while_solving() -> None:
    """Solve's header: the board as cards, pot, stack and SPR in chips and bb, the preset's
    names for the players; a toy game's names and no board."""
    at = app()
    at.run()
    header = _header(at)
    assert "<b>BB</b> vs <b>BTN</b>" in header
    assert "Pot <b>200 (20 bb)</b>" in header and "Effective stack <b>900 (90 bb)</b>" in header
    assert "SPR <b>4.5</b>" in header and "<b>BB to act first</b>" in header  # one row
    assert ">T♦</span>" in header and ">2♠</span>" in header
    _to(at, "preset:leduc")
    header = _header(at)
    assert "<b>player 0</b> vs <b>player 1</b>" in header and "no board card yet" in header
    assert "Pot" not in header
    assert not at.exception


def test_toy_game_defaults_to_the_papers_dcfr() -> None:
    at = app(**{state.SOURCE: "preset:leduc"})
    at.run()
    assert not at.exception
    assert at.selectbox(key=state.ALGORITHM).value == "dcfr"
    assert [n.value for n in at.expander[0].text_input][:3] == ["1.5", "0", "2"]
    assert at.text_input(key=state.TARGET).value == "0.001"
    assert at.radio(key=state.TARGET_UNIT).value == "chips"


def test_tiny_leduc_solve_shows_its_numbers() -> None:
    at = app(**{state.SOURCE: "preset:leduc"})
    at.run()
    at.text_input(key=state.MAX_ITERATIONS).set_value("300")
    at.text_input(key=state.TARGET).set_value("0")
    at.text_input(key=state.CHECK_EVERY).set_value("25")
    at.selectbox(key=state.ALGORITHM).set_value("cfr+").run()
    at.button(key="btn_solve").click().run()
    assert not at.exception
    job = at.session_state[state.JOB]
    poll(at, lambda: job.progress.finished)
    at.run()
    p = job.progress
    assert p.iteration == 300 and p.state == "done"
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Iteration"] == "300"
    assert metrics["Time to target"] == "no target"
    assert metrics["Exploitability (chips)"] == format(p.exploitability, ".4g")
    assert p.exploitability == pytest.approx(
        exploitability(job.game, job.engine.average_strategy()), rel=1e-12
    )
    curve = json.loads(at.get("plotly_chart")[0].proto.spec)  # finished: interactive
    assert curve["data"][0]["x"] == [pt.iteration for pt in p.history]
    assert [pt.iteration for pt in p.history] == list(range(0, 301, 25))  # fixed checks
    assert job.rule.name == "cfr+"
    # the live per-card table of the watched node (Leduc root, player 0's six cards)
    table = at.dataframe[0].value
    assert list(table["card"]) == job.game.hand_names[0]
    assert not at.button(key="btn_solve").disabled


def test_a_reached_target_says_so() -> None:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    at.selectbox(key=state.ALGORITHM).set_value("cfr+").run()
    at.text_input(key=state.TARGET).set_value("0.01")
    at.button(key="btn_solve").click().run()
    job = at.session_state[state.JOB]
    poll(at, lambda: job.progress.finished)
    at.run()
    p = job.progress
    assert p.stopped_by == "target" and p.iteration % 10 == 0
    done = f"**Done (target reached at iteration {p.iteration:,} in {p.elapsed_s:.3f} s)**"
    assert any(m.startswith(done) for m in (x.value for x in at.markdown))
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Time to target"] == "reached"
    # over before anyone saw it: the finished curve replays check by check (issue 33, 16)
    curve = json.loads(at.get("plotly_chart")[0].proto.spec)
    button = curve["layout"]["updatemenus"][0]["buttons"][0]
    assert button["label"] == "▶ Replay" and button["method"] == "animate"
    frames = curve["frames"]
    assert frames[-1]["data"][0]["x"] == curve["data"][0]["x"]  # the last frame: all of it
    sizes = [len(f["data"][0]["x"]) for f in frames]
    assert sizes == sorted(sizes) and sizes[0] < sizes[-1]
    assert any("too fast to watch: press **▶ Replay**" in c.value for c in at.caption)


def test_pause_resume_stop_buttons() -> None:
    at = app(**{state.SOURCE: "preset:leduc"})
    at.run()
    at.text_input(key=state.MAX_ITERATIONS).set_value("100,000,000")
    at.text_input(key=state.TARGET).set_value("0")
    at.button(key="btn_solve").click().run()
    job = at.session_state[state.JOB]
    assert at.button(key="btn_solve").disabled and not at.button(key="btn_stop").disabled
    at.button(key="btn_pause").click().run()
    assert job.progress.state == "paused"
    at.button(key="btn_resume").click().run()
    assert job.progress.state == "running"
    at.button(key="btn_stop").click().run()
    assert job.progress.state == "stopped" and not job.alive
    assert not at.button(key="btn_solve").disabled


def test_invalid_setup_disables_solve() -> None:
    at = app()
    at.run()
    at.session_state[state.BOARD] = "Td 9d 6h Qc Td"
    at.run()
    assert at.button(key="btn_solve").disabled
    assert any("Board: " in e.value for e in at.error)


def test_bad_parameter_is_shown_and_blocks_solve() -> None:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    at.selectbox(key=state.ALGORITHM).set_value("cfr+").run()
    at.text_input(key=f"{state.PARAM_PREFIX}cfr+_delay").set_value("-3").run()
    assert any("delay" in e.value for e in at.error)
    assert at.button(key="btn_solve").disabled
    at.text_input(key=f"{state.PARAM_PREFIX}cfr+_delay").set_value("soon").run()
    assert [e.value for e in at.error] == ["delay: 'soon' is not a number."]
    assert at.text_input(key=f"{state.PARAM_PREFIX}cfr+_delay").value == "soon"


def test_long_histories_are_thinned_for_the_curve() -> None:
    from app.components.figures import curve_figure, thin
    from solver.run.jobs import Point

    pts = [Point(i, 0.01 * i, 1.0 / (i + 1)) for i in range(10_000)]
    kept = thin(pts)
    assert len(kept) <= 1501 and kept[0] == pts[0] and kept[-1] == pts[-1]
    fig = curve_figure(pts)
    assert len(fig.data[0].x) == len(kept)


# ----- Monte Carlo CFR and pruning --------------------------------------------------------------
def _chart(at: AppTest, key: str) -> dict:
    """The plotly JSON of the chart drawn with ``key``."""
    for chart in at.get("plotly_chart"):
        if chart.proto.id.endswith(key) or key in chart.proto.id:
            return json.loads(chart.proto.spec)
    raise AssertionError(f"no chart {key!r}")


def test_picker_lists_every_algorithm_full_width_first() -> None:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    options = at.selectbox(key=state.ALGORITHM).options
    assert sorted(options) == sorted(ALGORITHMS)
    kinds = [ALGORITHMS[n].kind for n in options]
    assert kinds == sorted(kinds)  # "full-width" < "sampling": every full-width one first
    assert {"mccfr-cs", "mccfr-es", "mccfr-os", "dmccfr"} <= set(options)
    at.selectbox(key=state.ALGORITHM).set_value("mccfr-os").run()
    assert (at.selectbox(key=state.ALGORITHM).help or "").startswith(
        "**sampling** · Outcome-sampling"
    )
    assert at.expander[0].text_input[0].label == "epsilon"


def test_sampling_algorithm_shows_seed_and_runs_on_one_thread() -> None:
    threads = min(2, os.cpu_count() or 1)
    at = app(**{state.SOURCE: "preset:kuhn", state.THREADS: str(threads)})
    at.run()
    assert all(n.key != state.SEED for n in at.text_input)
    at.selectbox(key=state.ALGORITHM).set_value("mccfr-es").run()
    assert not at.exception
    seed = at.text_input(key=state.SEED)
    assert seed.value == "0" and not seed.disabled
    one = at.text_input(key=state.THREADS_ONE)
    assert one.value == "1" and one.disabled
    assert any("1 thread: sampling algorithms run on one thread" in c.value for c in at.caption)
    assert at.selectbox(key=state.PRUNING).options == ["none"]
    seed.set_value("7")
    at.text_input(key=state.MAX_ITERATIONS).set_value("200")
    at.text_input(key=state.TARGET).set_value("0")
    at.button(key="btn_solve").click().run()
    job = at.session_state[state.JOB]
    poll(at, lambda: job.progress.finished)
    at.run()
    assert job.progress.state == "done" and job.progress.iteration == 200
    assert job.rule.name == "mccfr-es" and job.engine.seed == 7 and job.engine.threads == 1
    assert any("mccfr-es · seed 7" in m.value for m in at.markdown)
    # back to a full-width rule: the Threads field kept its value
    at.selectbox(key=state.ALGORITHM).set_value("dcfr").run()
    assert at.text_input(key=state.THREADS).value == str(threads)
    assert all(n.key != state.SEED for n in at.text_input)


def test_pruning_choices_follow_the_algorithm() -> None:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    assert at.selectbox(key=state.PRUNING).value == "partial"
    assert at.selectbox(key=state.PRUNING).options == ["partial (exact)", "none"]  # dcfr
    at.selectbox(key=state.ALGORITHM).set_value("cfr").run()
    pruning = at.selectbox(key=state.PRUNING)
    assert pruning.options == ["partial (exact)", "none", "interval RBP", "Total RBP"]
    assert "Total RBP" in (pruning.help or "")
    pruning.set_value("interval").run()
    assert at.text_input(key=state.RBP_CHECK_EVERY).value == "10"
    assert all(n.key != state.RBP_THRESHOLD for n in at.text_input)  # Total RBP's only
    assert all(c.key != state.RBP_FREE_OPPONENT for c in at.checkbox)  # Total RBP's only
    assert at.text_input(key=state.THREADS_ONE).disabled
    at.selectbox(key=state.PRUNING).set_value("total").run()
    assert at.text_input(key=state.RBP_THRESHOLD).value == "0"
    assert at.checkbox(key=state.RBP_FREE_OPPONENT).value is False  # off by default
    at.selectbox(key=state.PRECISION).set_value("compressed").run()
    assert any("Total RBP needs float32 or float64 storage" in e.value for e in at.error)
    assert at.button(key="btn_solve").disabled
    at.selectbox(key=state.PRECISION).set_value("float32").run()
    assert not at.error and not at.button(key="btn_solve").disabled
    at.selectbox(key=state.ALGORITHM).set_value("cfr+").run()  # Total RBP, not interval
    assert at.selectbox(key=state.PRUNING).options == ["partial (exact)", "none", "Total RBP"]
    assert at.selectbox(key=state.PRUNING).value == "total"
    at.selectbox(key=state.ALGORITHM).set_value("dcfr").run()  # neither: back to partial
    assert at.selectbox(key=state.PRUNING).value == "partial"
    assert all(n.key != state.RBP_CHECK_EVERY for n in at.text_input)


@pytest.mark.parametrize("free_opponent", [False, True])
def test_total_pruning_solve_shows_memory_and_curves_by_nodes(free_opponent: bool) -> None:
    threads = min(2, os.cpu_count() or 1)
    at = app(**{state.SOURCE: "preset:leduc", state.THREADS: str(threads)})
    at.run()
    at.selectbox(key=state.ALGORITHM).set_value("cfr").run()
    at.selectbox(key=state.PRUNING).set_value("total").run()
    at.text_input(key=state.RBP_CHECK_EVERY).set_value("5")
    if free_opponent:
        at.checkbox(key=state.RBP_FREE_OPPONENT).check().run()
    at.text_input(key=state.MAX_ITERATIONS).set_value("300")
    at.text_input(key=state.TARGET).set_value("0")
    at.button(key="btn_solve").click().run()
    assert not at.exception
    job = at.session_state[state.JOB]
    poll(at, lambda: job.progress.finished)
    at.run()
    p = job.progress
    assert p.state == "done" and p.iteration == 300
    assert job.engine.pruning == "total" and job.engine.threads == 1
    assert job.engine.rbp.check_every == 5
    assert job.engine.rbp.free_opponent == free_opponent
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["Memory"] == human_bytes(p.memory_bytes)
    assert p.memory_bytes == job.engine.memory_bytes > 0
    memory = _chart(at, "live_memory")
    pts = [q for q in p.history if q.memory_bytes > 0]
    assert len(memory["data"][0]["y"]) == len(pts) >= 2
    assert memory["data"][0]["x"] == [q.iteration for q in pts]
    unit = memory["layout"]["yaxis"]["title"]["text"]
    assert unit == "memory held (KB)"  # Leduc: tens of KB
    assert memory["data"][0]["customdata"] == [q.memory_bytes for q in pts]
    assert pts[-1].memory_bytes < pts[0].memory_bytes  # Total RBP released regrets
    assert any("**Memory held** at each check" in m.value for m in at.markdown)
    # the x axis "nodes touched" redraws both curves against the nodes touched so far
    at.radio(key=state.X_AXIS).set_value("nodes touched").run()
    curve = _chart(at, "live_curve")
    assert curve["data"][0]["x"] == [q.nodes_touched for q in p.history]
    assert curve["layout"]["xaxis"]["title"]["text"] == "nodes touched"
    assert _chart(at, "live_memory")["data"][0]["x"] == [q.nodes_touched for q in pts]
    assert p.history[-1].nodes_touched == p.nodes_touched > 0


def test_no_memory_curve_without_regret_based_pruning() -> None:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    at.text_input(key=state.MAX_ITERATIONS).set_value("50")
    at.button(key="btn_solve").click().run()
    job = at.session_state[state.JOB]
    poll(at, lambda: job.progress.finished)
    at.run()
    assert len(at.get("plotly_chart")) == 1  # the exploitability curve only
    assert {m.label: m.value for m in at.metric}["Memory"] == human_bytes(job.engine.memory_bytes)


def test_bad_seed_and_rbp_values_are_shown_next_to_their_fields() -> None:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    at.text_input(key=state.MAX_ITERATIONS).set_value("1234")
    at.selectbox(key=state.ALGORITHM).set_value("mccfr-os").run()
    at.text_input(key=f"{state.PARAM_PREFIX}mccfr-os_epsilon").set_value("2").run()
    assert any("epsilon must be in (0, 1]" in e.value for e in at.error)
    assert at.button(key="btn_solve").disabled
    at.text_input(key=f"{state.PARAM_PREFIX}mccfr-os_epsilon").set_value("0.5")
    at.text_input(key=state.SEED).set_value("-1").run()
    assert [e.value for e in at.error] == ["Seed: must be from 0 to 4,294,967,295, got -1."]
    assert at.button(key="btn_solve").disabled
    assert at.text_input(key=state.SEED).value == "-1"  # what was typed stays
    at.text_input(key=state.SEED).set_value("3").run()
    assert not at.error and not at.button(key="btn_solve").disabled
    at.selectbox(key=state.ALGORITHM).set_value("cfr").run()
    at.selectbox(key=state.PRUNING).set_value("total").run()
    at.text_input(key=state.RBP_CHECK_EVERY).set_value("0")
    at.text_input(key=state.RBP_THRESHOLD).set_value("-0.5").run()
    errors = [e.value for e in at.error]
    assert "RBP: check every (iterations): must be from 1 to 1,000,000, got 0." in errors
    assert any(e.startswith("RBP: threshold C: must be from 0") for e in errors)
    assert at.button(key="btn_solve").disabled
    # nothing typed is lost: the other fields and the sampler's settings are still there
    assert at.text_input(key=state.MAX_ITERATIONS).value == "1234"
    at.selectbox(key=state.ALGORITHM).set_value("mccfr-os").run()
    assert at.text_input(key=f"{state.PARAM_PREFIX}mccfr-os_epsilon").value == "0.5"
    assert at.text_input(key=state.SEED).value == "3"
    assert not at.error


@pytest.mark.parametrize(
    ("key", "typed", "message"),
    [
        (state.TARGET, "abc", "Target: 'abc' is not a number (0 = no target)."),
        (state.TARGET, "-1", "Target: must be from 0 to 1,000,000,000, got -1 (0 = no target)."),
        (
            state.MAX_ITERATIONS,
            "1e12",
            "Max iterations: must be from 1 to 1,000,000,000, got 1e12.",
        ),
        (state.MAX_ITERATIONS, "2.5", "Max iterations: must be a whole number, got 2.5."),
        (state.CHECK_EVERY, "0", "Check every: must be from 1 to 1,000,000, got 0."),
    ],
)
def test_bad_numbers_are_named_kept_and_block_solve(key: str, typed: str, message: str) -> None:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    at.text_input(key=key).set_value(typed).run()
    assert [e.value for e in at.error] == [message]
    assert at.text_input(key=key).value == typed
    assert at.button(key="btn_solve").disabled


def test_threads_beyond_the_cores_are_refused() -> None:
    at = app(**{state.SOURCE: "preset:leduc"})
    at.run()
    at.text_input(key=state.THREADS).set_value("0").run()
    cores = os.cpu_count() or 1
    assert [e.value for e in at.error] == [f"Threads: must be from 1 to {cores}, got 0."]
    assert at.button(key="btn_solve").disabled


# ----- settings that follow the game, one game at a time ---------------------------------------
def _to(at: AppTest, source: str) -> None:
    """Pick ``source`` as Set up's game selectbox does (it reloads the form from it)."""
    at.session_state[state.SOURCE] = source
    at.session_state[state.LOADED_FROM] = None
    at.run()


def test_settings_follow_the_game_unless_set_for_it() -> None:
    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    assert at.text_input(key=state.TARGET).value == "0.001"
    at.selectbox(key=state.ALGORITHM).set_value("cfr+").run()
    _to(at, "preset:libratus-3-river")  # hold'em after a toy game: its own defaults
    assert at.text_input(key=state.TARGET).value == "0.3"
    assert at.radio(key=state.TARGET_UNIT).value == "% pot"
    assert at.selectbox(key=state.ALGORITHM).value == "dcfr-tuned"
    at.text_input(key=state.TARGET).set_value("0.05").run()  # the user sets it for this game
    _to(at, "preset:leduc")
    assert at.text_input(key=state.TARGET).value == "0.001"
    assert at.radio(key=state.TARGET_UNIT).value == "chips"
    assert at.selectbox(key=state.ALGORITHM).value == "dcfr"
    _to(at, "preset:libratus-3-river")  # back: what the user set for it comes back
    assert at.text_input(key=state.TARGET).value == "0.05"
    assert at.selectbox(key=state.ALGORITHM).value == "dcfr-tuned"
    _to(at, "preset:kuhn")
    assert at.selectbox(key=state.ALGORITHM).value == "cfr+"
    assert not at.exception


def test_a_running_solve_keeps_the_page_on_its_game() -> None:
    at = app(**{state.SOURCE: "preset:leduc"})
    at.run()
    at.text_input(key=state.TARGET).set_value("0")
    at.text_input(key=state.MAX_ITERATIONS).set_value("100000000").run()
    at.button(key="btn_solve").click().run()
    job = at.session_state[state.JOB]
    _to(at, "preset:srp-river")  # Set up picks another game while it runs
    assert at.markdown[0].value.startswith("**Game:** Leduc")  # still the solve's game
    assert any("Set up now holds **SRP river" in i.value for i in at.info)
    assert at.selectbox(key=state.ALGORITHM).value == "dcfr"  # the solve's settings
    assert at.radio(key=state.TARGET_UNIT).value == "chips"
    assert at.button(key="btn_solve").disabled and not at.button(key="btn_stop").disabled
    at.button(key="btn_stop").click().run()
    assert not job.alive
    at.run()
    assert at.markdown[0].value.startswith("**Game:** SRP river")  # now the new game
    assert at.selectbox(key=state.ALGORITHM).value == "dcfr-tuned"
    assert at.radio(key=state.TARGET_UNIT).value == "% pot"
    assert not at.button(key="btn_solve").disabled
    assert any("Your last solve (Leduc" in c.value for c in at.caption)


def test_time_and_speed_texts() -> None:
    from app.features.live import fmt_speed, fmt_time
    from solver.run.jobs import Progress

    assert fmt_time(None) == "—" and fmt_time(float("inf")) == "> 1 day"
    assert fmt_time(2 * 86_400.0) == "> 1 day" and fmt_time(4.25) == "4.2 s"
    assert fmt_time(3 * 3600.0) == "3.0 h" and fmt_time(125.0) == "2 min 5 s"
    assert fmt_speed(Progress()) == "—"
    assert fmt_speed(Progress(iterations_per_s=0.25)) == "4.0 s/it"
    assert fmt_speed(Progress(iterations_per_s=11725.0)) == "11.7k it/s"  # fits 1280 px
    assert fmt_speed(Progress(iterations_per_s=1234.0)) == "1,234 it/s"
    assert fmt_speed(Progress(iterations_per_s=2.5)) == "2.5 it/s"


def test_memory_figure_and_units() -> None:
    from app.components.figures import byte_unit, memory_figure
    from solver.run.jobs import Point

    assert human_bytes(512) == "512 bytes" and human_bytes(36960) == "36.09 KB"
    assert byte_unit(3 * 2**30) == ("GB", 2**30)
    pts = [Point(i, 0.1 * i, 1.0, 100 * i, 2**20 - 1000 * (i + 1)) for i in range(5)]
    pts.append(Point(5, 0.5, 1.0, 500, 0))  # no memory figure (an old save): left out
    fig = memory_figure(pts, "seconds")
    assert list(fig.data[0].x) == [p.elapsed_s for p in pts[:5]]
    assert list(fig.data[0].y) == [p.memory_bytes / 2**10 for p in pts[:5]]
    assert fig.layout.yaxis.title.text == "memory held (KB)"
    with pytest.raises(ValueError, match="unknown x axis"):
        memory_figure(pts, "minutes")


def test_advanced_opens_itself_on_a_bad_value() -> None:
    """The folded settings cannot hide a mistake: a bad parameter or check interval opens
    Advanced with its message, and Solve waits."""
    from app import settings as cfgmod

    at = app()
    at.run()
    assert not at.expander[0].proto.expanded
    at.text_input(key=state.CHECK_EVERY).set_value("0").run()
    assert at.expander[0].proto.expanded
    assert [e.value for e in at.expander[0].error] == [
        "Check every: must be from 1 to 1,000,000, got 0."
    ]
    assert at.button(key="btn_solve").disabled
    at.text_input(key=state.CHECK_EVERY).set_value("10").run()
    at.text_input(key=cfgmod.param_key("dcfr-tuned", "alpha")).set_value("x").run()
    assert at.expander[0].proto.expanded and at.expander[0].error
    assert at.button(key="btn_solve").disabled
