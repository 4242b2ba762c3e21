"""Races: entry parsing, the check schedule, the CPU-sharing scheduler, curves equal to solo
runs, targets and winners, the rendered tables, and no thread left behind."""

from __future__ import annotations

import csv
import functools
import io
import itertools
import math
import threading

import pytest
from conftest import game

from solver import Engine, Game
from solver.algorithms import make_solver
from solver.cfr.options import SolveOptions
from solver.games.holdem import HoldemSpec, build_holdem
from solver.run.jobs import DONE, FAILED, PAUSED, RUNNING, STOPPED, JobRegistry, live_jobs, stop_all
from solver.run.race import (
    DEMOS,
    MAX_ALGORITHMS,
    Entry,
    EntryError,
    Lane,
    RaceJob,
    RacePoint,
    RaceProgress,
    Target,
    TargetError,
    build_engine,
    check_schedule,
    chunk_size,
    default_targets,
    game_pot,
    markdown_table,
    parse_entries,
    parse_entry,
    parse_targets,
    pick_lane,
    points_csv,
    race_csv,
    standings,
    table_rows,
    winner_lines,
    winners,
)


@pytest.fixture(autouse=True)
def _no_threads_left():
    yield
    stop_all("test")
    assert live_jobs() == []
    assert not [t for t in threading.enumerate() if t.name.startswith("race")]


@functools.cache
def tiny_river() -> Game:
    """A 21-node hold'em river spot (float32 storage, % pot targets)."""
    return build_holdem(
        HoldemSpec(
            board="Td9d6hQc2s", pot=100, stack=200, oop_range="AA,KK,QQ,JJ",
            ip_range="TT,99,AK,AQ", bets="50%, a", raises="a",
        )
    )  # fmt: skip


# ----- entries ------------------------------------------------------------------------------
def test_entries_parse_case_insensitive_and_normalised() -> None:
    e = parse_entry(" DCFR:Alpha=1.5; beta=0.5 ;gamma=3 ")
    assert e.name == "dcfr"
    assert e.params == (("beta", 0.5), ("gamma", 3.0))  # alpha=1.5 is the default
    assert e.text == "dcfr:beta=0.5;gamma=3"
    assert e.label == "dcfr (beta=0.5, gamma=3)"
    assert e.all_params() == {"alpha": 1.5, "beta": 0.5, "gamma": 3.0, "average_every": 1.0}
    assert e.rule() == parse_entry("dcfr:gamma=3;beta=0.5").rule()
    assert parse_entry(e.text) == e
    assert parse_entry("cfr+:delay=0") == parse_entry("cfr+") == Entry.of("CFR+", {"delay": 0})
    assert parse_entry("cfr+:delay=100").label == "cfr+ (delay=100)"
    assert parse_entry("dcfr:beta=-inf").all_params()["beta"] == -math.inf
    assert parse_entry("dcfr:beta=-inf").text == "dcfr:beta=-inf"
    assert [x.text for x in parse_entries("cfr, cfr+ ,dcfr:alpha=2")] == [
        "cfr",
        "cfr+",
        "dcfr:alpha=2",
    ]


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "empty algorithm entry"),
        ("xcfr", "unknown algorithm 'xcfr'"),
        ("dcfr:", "nothing after ':'"),
        ("dcfr:alpha", "'alpha' is not param=value"),
        ("dcfr:=2", "'=2' is not param=value"),
        (
            "dcfr:zeta=1",
            "dcfr has no parameter 'zeta' (parameters: alpha, beta, gamma, average_every, pruning)",
        ),
        ("cfr:delay=1", "cfr has no parameter 'delay' (parameters: pruning)"),
        ("dcfr:alpha=x", "alpha: 'x' is not a number"),
        ("dcfr:alpha=nan", "alpha: 'nan' is not a number"),
        ("dcfr:alpha=1;ALPHA=2", "parameter 'alpha' given twice"),
        ("cfr+:delay=-3", "delay must be ≥ 0"),
    ],
)
def test_bad_entries_name_the_bad_part(text: str, needle: str) -> None:
    with pytest.raises(EntryError) as err:
        parse_entry(text)
    assert needle in str(err.value)
    if text:
        assert repr(text) in str(err.value)  # the entry itself is quoted


def test_bad_entry_lists() -> None:
    with pytest.raises(EntryError, match="at most 6 algorithms, got 7"):
        parse_entries("cfr,cfr+,lcfr,dcfr,pcfr+,apcfr+,sapcfr+")
    with pytest.raises(EntryError, match="'cfr\\+' listed twice"):
        parse_entries("cfr+,CFR+:delay=0")
    with pytest.raises(EntryError, match="entry 2 is empty"):
        parse_entries("cfr,,dcfr")
    with pytest.raises(EntryError, match="no algorithm given"):
        parse_entries(" ")
    assert len(parse_entries(["cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "sapcfr+"])) == 6
    assert MAX_ALGORITHMS == 6


def test_build_engine_runs_the_entry_rule() -> None:
    e = parse_entry("cfr+:delay=7")
    eng = build_engine(game("kuhn"), e)
    assert isinstance(eng, Engine) and eng.rule == e.rule() and eng.threads == 1
    assert eng.iterate(3) > 0 and eng.iteration == 3


# ----- targets ------------------------------------------------------------------------------
def test_targets_parse_sort_and_convert_percentages() -> None:
    assert game_pot(game("leduc")) is None and game_pot(tiny_river()) == 100.0
    ts = parse_targets("1e-3, 0.01,0.001", None)
    assert ts == (Target(0.01, "0.01"), Target(0.001, "0.001"))
    assert [t.label for t in default_targets(None)] == ["0.01", "0.001", "0.0001"]
    ts = parse_targets("0.3%, 1%, 2", 100.0)
    assert [t.label for t in ts] == ["2", "1%", "0.3%"]
    assert [t.chips for t in ts] == pytest.approx([2.0, 1.0, 0.3])
    assert [t.label for t in default_targets(500.0)] == ["1%", "0.3%", "0.1%"]
    assert default_targets(500.0)[0].chips == pytest.approx(5.0)


@pytest.mark.parametrize(
    ("text", "needle"),
    [
        ("", "no target given"),
        ("0.01,,0.001", "an empty target"),
        ("abc", "'abc' is not a number"),
        ("-1", "'-1': must be a positive number"),
        ("0", "'0': must be a positive number"),
        ("inf", "'inf': must be a positive number"),
        ("1%", "'1%': a percentage of the pot needs a hold'em game"),
        ("1,2,3,4,5,6,7", "at most 6 targets, got 7"),
    ],
)
def test_bad_targets(text: str, needle: str) -> None:
    with pytest.raises(TargetError) as err:
        parse_targets(text, None)
    assert needle in str(err.value)


# ----- schedule and scheduler ---------------------------------------------------------------
def test_check_schedule_is_fixed_and_log_spaced() -> None:
    s = check_schedule(1000)
    assert s[:18] == (1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 32, 40, 50, 63, 80, 100)
    assert s[-4:] == (500, 630, 800, 1000)
    assert check_schedule(7) == (1, 2, 3, 4, 5, 6, 7)
    assert check_schedule(1) == (1,)
    long = check_schedule(123_456)
    assert long[-1] == 123_456 and list(long) == sorted(set(long))
    ratios = [b / a for a, b in itertools.pairwise(long) if a >= 10]
    assert max(ratios) <= 1.3  # bounds an "iterations to target"'s overshoot
    assert max(b / a for a, b in itertools.pairwise(long) if a >= 100) <= 1.28
    with pytest.raises(ValueError):
        check_schedule(0)


def test_pick_lane_takes_the_least_cpu_among_runnable() -> None:
    assert pick_lane([0.3, 0.1, 0.2], [True, True, True]) == 1
    assert pick_lane([0.3, 0.1, 0.2], [True, False, True]) == 2
    assert pick_lane([0.2, 0.1, 0.1], [True, True, True]) == 1  # ties: the lower index
    assert pick_lane([0.0, 0.0], [False, False]) is None
    assert pick_lane([], []) is None


def test_scheduler_shares_cpu_fairly_whatever_the_chunk_costs() -> None:
    """Simulated: two workers, chunks of very different costs per algorithm. Whoever has used
    the least CPU goes next, so the totals never drift apart by more than one chunk."""
    cost = [0.07, 0.01, 0.05, 0.033]
    cpu = [0.0] * 4
    busy = [False] * 4
    in_flight: list[tuple[float, int]] = []  # (finish time, lane) per worker
    now = 0.0
    for _ in range(2):
        i = pick_lane(cpu, [not b for b in busy])
        assert i is not None
        busy[i] = True
        in_flight.append((now + cost[i], i))
    for _ in range(2000):
        in_flight.sort()
        now, done = in_flight.pop(0)
        cpu[done] += cost[done]
        busy[done] = False
        i = pick_lane(cpu, [not b for b in busy])
        assert i is not None
        busy[i] = True
        in_flight.append((now + cost[i], i))
        assert max(cpu) - min(cpu) <= 2 * max(cost) + 1e-12
    assert max(cpu) - min(cpu) <= max(cost) + 1e-12


def test_chunk_size() -> None:
    assert chunk_size(0.0, 0.075, 10, 100) == 1  # rate unknown: one iteration
    assert chunk_size(0.001, 0.075, 0, 1000) == 75
    assert chunk_size(0.001, 0.075, 990, 1000) == 10  # never past the next check
    assert chunk_size(1.0, 0.075, 0, 1000) == 1  # slow iterations: still one
    with pytest.raises(ValueError):
        chunk_size(0.001, 0.075, 10, 10)


# ----- the race -----------------------------------------------------------------------------
def solo_curve(g: Game, entry: Entry, iterations: list[int]) -> list[tuple[float, int]]:
    eng = make_solver(
        g, entry.name, dict(entry.params), options=SolveOptions(pruning=entry.pruning or None)
    )
    out = []
    for it in iterations:
        eng.iterate(it - eng.iteration)
        b0, b1 = eng.best_response_values()
        out.append((0.5 * (b0 + b1), eng.nodes_touched))
    return out


@pytest.mark.parametrize("which", ["leduc", "river"])
def test_race_curves_equal_solo_runs(which: str) -> None:
    g = game("leduc") if which == "leduc" else tiny_river()
    entries = parse_entries("cfr,cfr+:delay=5,apcfr+" if which == "leduc" else "dcfr,pcfr+")
    # tiny chunks: many chunk boundaries that do not line up with the checks
    job = RaceJob(g, entries, max_iterations=300, workers=2, chunk_s=0.0005).start()
    p = job.wait_for(lambda q: q.finished, timeout=60)
    assert job.join(10) and not job.alive
    assert p.state == DONE and p.error == ""
    for lane in p.lanes:
        assert lane.state == DONE and lane.stopped_by == "iterations" and lane.iteration == 300
        its = [pt.iteration for pt in lane.points]
        assert tuple(its) == check_schedule(300)
        solo = solo_curve(g, lane.entry, its)
        assert [(pt.exploitability, pt.nodes_touched) for pt in lane.points] == solo  # exact
        cpu = [pt.cpu_s for pt in lane.points]
        assert cpu == sorted(cpu) and cpu[-1] == lane.cpu_s > 0
        assert lane.nodes_touched == lane.points[-1].nodes_touched
        walls = [pt.wall_s for pt in lane.points]
        assert walls == sorted(walls) and walls[-1] <= p.wall_s
    if which == "river":
        assert p.starting_pot == 100.0 and p.big_blind is not None


def test_each_algorithm_stops_at_the_hardest_target() -> None:
    g = game("kuhn")
    targets = parse_targets("0.01, 0.003", None)
    job = RaceJob(g, parse_entries("cfr,cfr+"), max_iterations=5000, targets=targets)
    p = job.start().wait_for(lambda q: q.finished, timeout=60)
    job.join(10)
    for lane in p.lanes:
        assert lane.stopped_by == "target" and lane.state == DONE
        assert lane.points[-1].exploitability <= 0.003 < lane.points[-2].exploitability
        assert lane.iteration == lane.points[-1].iteration < 5000
    # run to the end instead
    job = RaceJob(
        g, parse_entries("cfr+"), max_iterations=200, targets=targets, stop_at_target=False
    )
    p = job.start().wait_for(lambda q: q.finished, timeout=60)
    job.join(10)
    assert p.lanes[0].iteration == 200 and p.lanes[0].stopped_by == "iterations"


def test_pause_resume_stop_and_no_thread_left() -> None:
    g = game("leduc")
    job = RaceJob(g, parse_entries("cfr,dcfr,pcfr+"), max_iterations=10**8, workers=2)
    assert not job.alive and job.join(0.1)  # never started
    job.start()
    assert live_jobs() == [job]
    job.wait_for(lambda q: all(len(lane.points) >= 5 for lane in q.lanes))
    job.pause()
    assert job.progress.state == PAUSED
    job.resume()
    assert job.progress.state == RUNNING
    job.stop()
    assert job.join(30)
    p = job.progress
    assert p.state == STOPPED and p.stopped_by == "stop"
    for lane in p.lanes:
        # stopped by its owner: measured where it got to
        assert lane.state == STOPPED and lane.stopped_by == "stop"
        assert lane.points[-1].iteration == lane.iteration
    assert live_jobs() == []
    assert not [t for t in threading.enumerate() if t.name.startswith("race")]
    with pytest.raises(RuntimeError):
        job.start()


def test_stop_all_and_the_registry_reaper_end_races() -> None:
    g = game("leduc")
    a = RaceJob(g, parse_entries("cfr,cfr+"), max_iterations=10**8).start()
    b = RaceJob(g, parse_entries("lcfr"), max_iterations=10**8).start()
    reg = JobRegistry()
    reg.add("gone", b)
    assert set(live_jobs()) == {a, b}
    assert reg.reap(lambda s: False, grace_s=0.0, now=1.0) == [b]
    assert b.join(30) and b.progress.stopped_by == "session"
    stop_all("test")
    assert not a.alive and a.progress.stopped_by == "test"
    assert all(lane.stopped_by == "test" for lane in a.progress.lanes)


class _Breaks(Engine):
    """An engine that fails at iteration 20 (the others must race on)."""

    def iterate(self, n: int = 1) -> int:
        if self.iteration + n > 20:
            raise FloatingPointError("boom")
        return super().iterate(n)


def test_a_failing_algorithm_is_reported_and_the_others_finish() -> None:
    def factory(g: Game, e: Entry) -> Engine:
        eng = build_engine(g, e)
        assert isinstance(eng, Engine)
        return _Breaks(g, eng.rule) if e.name == "cfr" else eng

    job = RaceJob(game("kuhn"), parse_entries("cfr,cfr+"), max_iterations=100,
                  engine_factory=factory)  # fmt: skip
    p = job.start().wait_for(lambda q: q.finished, timeout=60)
    job.join(10)
    bad, good = p.lanes
    assert bad.state == FAILED and "FloatingPointError: boom" in bad.error
    assert bad.iteration <= 20
    assert good.state == DONE and good.iteration == 100
    assert p.state == DONE and p.error.startswith("cfr: FloatingPointError")


def test_bad_race_arguments() -> None:
    g = game("kuhn")
    es = parse_entries("cfr")
    with pytest.raises(ValueError, match="max_iterations"):
        RaceJob(g, es, max_iterations=0)
    with pytest.raises(ValueError, match="workers"):
        RaceJob(g, es, workers=0)
    with pytest.raises(EntryError, match="no algorithm"):
        RaceJob(g, ())
    assert RaceJob(g, parse_entries("cfr,cfr+,dcfr")).workers == 2
    assert RaceJob(g, es, workers=4).workers == 1  # never more workers than algorithms


# ----- results ------------------------------------------------------------------------------
def _pt(it: int, cpu: float, x: float) -> RacePoint:
    return RacePoint(it, cpu * 2, x, it * 10, cpu_s=cpu)


def _progress(holdem: bool = False) -> RaceProgress:
    a, b, c = parse_entries("cfr,cfr+,dcfr")
    lanes = (
        # fewest iterations to 0.1 but slow per iteration
        Lane(a, DONE, 20, 2.0, 200, (_pt(5, 0.5, 0.5), _pt(10, 1.0, 0.09), _pt(20, 2.0, 0.05))),
        Lane(b, DONE, 40, 0.8, 400, (_pt(10, 0.2, 0.2), _pt(20, 0.4, 0.08), _pt(40, 0.8, 0.009))),
        Lane(c, DONE, 40, 0.9, 400, (_pt(10, 0.2, 0.1), _pt(40, 0.9, 0.02))),
    )
    targets = (Target(0.1, "0.1"), Target(0.01, "0.01"), Target(0.001, "0.001"))
    return RaceProgress(DONE, lanes, targets, 40, 3.0, starting_pot=50.0 if holdem else 0.0)


def test_standings_and_winners() -> None:
    p = _progress()
    s = standings(p)
    assert [h.iteration if h else None for h in s[0].hits] == [10, None, None]
    assert [h.iteration if h else None for h in s[1].hits] == [20, 40, None]
    assert [h.iteration if h else None for h in s[2].hits] == [10, None, None]  # at, not below
    assert s[1].exploitability == 0.009 and s[1].cpu_s == 0.8
    w = winners(p)
    assert w[0].cpu == "dcfr" and w[0].iterations == ("cfr", "dcfr")  # ties reported
    assert w[1].cpu == "cfr+" and w[1].iterations == ("cfr+",)
    assert w[2].cpu is None and w[2].iterations == ()
    lines = winner_lines(p)
    assert lines[0] == "0.1: fastest dcfr (0.200 CPU s); fewest iterations cfr, dcfr (10)"
    assert lines[2] == "0.001: not reached"


def test_table_markdown_and_csv() -> None:
    p = _progress(holdem=True)
    rows = table_rows(p)
    assert list(rows[0])[:3] == ["algorithm", "iterations to 0.1", "CPU s to 0.1"]
    assert rows[1]["iterations to 0.01"] == 40 and rows[0]["iterations to 0.01"] is None
    assert rows[1]["exploitability (% pot)"] == pytest.approx(100 * 0.009 / 50)
    md = markdown_table(p).splitlines()
    assert md[0].startswith("| algorithm | iterations to 0.1 | CPU s to 0.1 |")
    assert md[3].startswith("| cfr+ | 20 | 0.400 | 40 | 0.800 | — | — | 40 | 0.800 |")
    table = list(csv.DictReader(io.StringIO(race_csv(p).decode("utf-8"))))
    assert [r["entry"] for r in table] == ["cfr", "cfr+", "dcfr"]
    assert table[2]["params"] == "alpha=1.5;beta=0;gamma=2;average_every=1"
    assert table[1]["CPU s to 0.01"] == "0.8" and table[0]["CPU s to 0.01"] == ""
    assert float(table[1]["exploitability (chips)"]) == 0.009
    pts = list(csv.DictReader(io.StringIO(points_csv(p).decode("utf-8"))))
    assert len(pts) == 8 and pts[0] == {
        "algorithm": "cfr",
        "iteration": "5",
        "cpu_s": "0.5",
        "wall_s": "1.0",
        "nodes_touched": "50",
        "exploitability": "0.5",
    }


def test_demos_are_well_formed() -> None:
    from solver.files.presets import load_preset

    assert len(DEMOS) == 6 and len({d.key for d in DEMOS}) == 6
    for d in DEMOS:
        preset = load_preset(d.preset)
        assert 2 <= len(d.entries()) <= MAX_ALGORITHMS
        assert d.iterations >= 1000 and len(d.caption) > 40
        pot = None if preset.holdem is None else float(preset.holdem.pot)
        assert len(parse_targets(d.targets, pot)) >= 2
        assert (pot is not None) == d.targets.rstrip().endswith("%")
    assert DEMOS[1].preset == "libratus-3-river"
    assert [e.text for e in DEMOS[3].entries()] == ["cfr+", "cfr+:delay=100"]
    assert [e.text for e in DEMOS[4].entries()] == ["cfr", "mccfr-cs", "mccfr-es", "dmccfr"]
    assert [e.label for e in DEMOS[5].entries()] == [
        "cfr", "cfr (none pruning)", "cfr (interval pruning)", "cfr (total pruning)",
    ]  # fmt: skip
