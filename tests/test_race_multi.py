"""Races on three-player games (issue 49, docs/multiway.md): the race's metric is NashConv,
each check's equal to the evaluator's (solver/games/nashconv.py) on that rule's profile at
that iteration, and the CLI says so — never an exploitability."""

from __future__ import annotations

import json
import math
from collections.abc import Iterator

import pytest
from cli_helpers import run

from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.games.multiway import multi_game
from solver.games.nashconv import nash_report
from solver.run.jobs import DONE, stop_all
from solver.run.race import EntryError, Target, parse_entries
from solver.run.race.multi import MultiRaceJob, MultiRacePoint, multi_table_rows


@pytest.fixture(autouse=True)
def _no_jobs_left() -> Iterator[None]:
    yield
    stop_all("test")


def finished(job: MultiRaceJob) -> MultiRaceJob:
    job.start()
    assert job.join(120), "the race did not end"
    assert job.progress.state == DONE, job.progress.error
    return job


def test_each_checks_nash_conv_is_the_evaluators_on_that_profile() -> None:
    g = multi_game("kuhn3")
    job = finished(
        MultiRaceJob(g, parse_entries("cfr,cfr+"), max_iterations=300, stop_at_target=False)
    )
    for lane in job.progress.lanes:
        assert lane.iteration == 300 and lane.points[-1].iteration == 300
        solo = MultiEngine(g, make_rule(lane.entry.name))
        for p in lane.points:
            assert isinstance(p, MultiRacePoint)
            solo.iterate(p.iteration - solo.iteration)  # the same rule, solo, to that check
            rep = nash_report(g, solo.average_profile())
            assert p.nash_conv == pytest.approx(rep.nash_conv, abs=1e-9)
            assert p.nash_distance == pytest.approx(tuple(rep.nash_distance), abs=1e-9)
            assert p.metric == p.nash_conv and math.isnan(p.exploitability)
    rows = multi_table_rows(job.progress, 3.0)
    assert [r["NashConv (chips)"] for r in rows] == [
        lane.points[-1].metric for lane in job.progress.lanes
    ]
    assert not any("exploitability" in key for key in rows[0])


def test_a_rule_stops_at_the_first_check_with_nash_conv_at_the_target() -> None:
    g = multi_game("kuhn3")
    job = finished(
        MultiRaceJob(g, parse_entries("cfr+"), max_iterations=2000, targets=[Target(0.01, "0.01")])
    )
    lane = job.progress.lanes[0]
    assert lane.stopped_by == "target"
    assert lane.points[-1].metric <= 0.01 < lane.points[-2].metric


def test_entries_a_three_player_game_does_not_take() -> None:
    g = multi_game("kuhn3")
    with pytest.raises(EntryError, match="mccfr-os"):
        MultiRaceJob(g, parse_entries("cfr,mccfr-os"))
    with pytest.raises(EntryError, match="pruning"):
        MultiRaceJob(g, parse_entries("cfr:pruning=total"))


def test_cli_json_lines_carry_nash_conv_and_no_exploitability() -> None:
    out = run("race", "--game", "kuhn3", "--algorithms", "cfr,dcfr", "--iterations", "60",
              "--json", "--targets", "1%", "--full")  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    points = [x for x in lines if "iteration" in x and "final" not in x]
    finals = [x for x in lines if x.get("final")]
    assert len(finals) == 2 and "winners" in lines[-1]
    for x in points + finals:
        assert x["exploitability"] is None and x["metric"] == "nash_conv"
        assert len(x["nash_distance"]) == 3
        assert x["nash_conv"] == pytest.approx(sum(x["nash_distance"]), abs=1e-12)
        assert x["nash_conv_pct_pot"] == pytest.approx(100 * x["nash_conv"] / 3.0)
    assert {x["iteration"] for x in finals} == {60}
    assert finals[0]["players"] == 3 and finals[0]["targets"].keys() == {"1%"}


def test_cli_table_names_the_metric() -> None:
    out = run("race", "--game", "leduc3", "--algorithms", "cfr+", "--iterations", "2")
    assert out.returncode == 0, out.stderr
    assert "race metric NashConv" in out.stdout and "NashConv (chips)" in out.stdout
    assert "exploitability (chips)" not in out.stdout


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--board", "AsKd2c"], "--board"),
        (["--preset", "srp"], "--preset"),
        (["--algorithms", "mccfr-cs"], "--algorithms"),
        (["--targets", "x"], "--targets"),
        (["--iterations", "0"], "--iterations"),
    ],
)
def test_cli_refuses_by_flag(args: list[str], flag: str) -> None:
    out = run("race", "--game", "kuhn3", *args)
    assert out.returncode == 2
    assert out.stderr.startswith(f"error: {flag}") and "Traceback" not in out.stderr
