"""``python -m solver solve --game kuhn3|leduc3`` (docs/multiway.md): JSON lines with each
player's Nash distance (chips and % of the 3-chip pot), NashConv and EV, measured by the
independent evaluator; ``--target`` on the largest distance; heads-up-only flags refused by
name with exit code 2."""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pytest
from cli_helpers import run

from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.games.multiway import multi_game


def lines(out: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in out.splitlines()]


def test_kuhn3_json_lines_carry_each_players_nash_distance() -> None:
    out = run("solve", "--game", "kuhn3", "--algorithm", "cfr+", "--iterations", "60",
              "--every", "20", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    recs = lines(out.stdout)
    assert [r["iteration"] for r in recs] == [0, 20, 40, 60, 60]
    final = recs[-1]
    assert final["final"] is True and final["players"] == 3 and final["pot"] == 3.0
    assert final["stopped_by"] == "iterations" and "exploitability" not in final
    # the same solve in-process: the line's numbers are its average profile's, as the
    # independent evaluator measures them
    eng = MultiEngine(multi_game("kuhn3"), make_rule("cfr+"))
    eng.iterate(60)
    rep = eng.report()
    dist = np.array(final["nash_distance"])
    np.testing.assert_allclose(dist, rep.nash_distance, rtol=0, atol=1e-12)
    np.testing.assert_allclose(final["nash_distance_pct_pot"], 100 * dist / 3.0, rtol=1e-15)
    assert final["nash_conv"] == pytest.approx(dist.sum(), abs=1e-15)
    np.testing.assert_allclose(final["ev"], rep.value, rtol=0, atol=1e-12)
    assert abs(sum(final["ev"])) < 1e-12  # (no rake: zero-sum)
    # the first line is the uniform profile's (NashConv 2.0625, OpenSpiel's)
    assert recs[0]["nash_conv"] == pytest.approx(2.0625, abs=1e-12)


def test_target_applies_to_the_largest_nash_distance() -> None:
    out = run("solve", "--game", "kuhn3", "--algorithm", "cfr+", "--target", "0.1%",
              "--every", "10", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    recs = lines(out.stdout)
    final = recs[-1]
    assert final["stopped_by"] == "target"
    assert max(final["nash_distance"]) <= 0.003  # 0.1 % of the 3-chip pot
    # the check before it had not reached it (the solve stops at the first that does)
    assert max(recs[-3]["nash_distance"]) > 0.003
    assert final["nash_conv"] > max(final["nash_distance"])  # not the sum: the largest


def test_leduc3_solves_from_the_cli() -> None:
    out = run("solve", "--game", "leduc3", "--algorithm", "cfr", "--iterations", "4",
              "--every", "2")  # fmt: skip
    assert out.returncode == 0, out.stderr
    text = out.stdout.splitlines()
    assert text[0].startswith("iter        0") and "NashConv 12.6112" in text[0]
    assert text[-1].startswith("done: 4 iterations") and "player 2" in text[-1]


def test_external_sampling_from_the_cli_repeats_with_its_seed() -> None:
    args = ("solve", "--game", "kuhn3", "--algorithm", "mccfr-es", "--iterations", "500",
            "--every", "500", "--seed", "4", "--json")  # fmt: skip
    first, again = run(*args), run(*args)
    assert first.returncode == 0, first.stderr
    final = lines(first.stdout)[-1]
    assert final["algorithm"] == "mccfr-es" and final["iteration"] == 500
    assert final["nash_conv"] < 2.0625  # (uniform's)
    assert lines(again.stdout)[-1]["nash_distance"] == final["nash_distance"]


@pytest.mark.parametrize(
    ("flags", "named"),
    [
        (["--threads", "2"], "--threads"),
        (["--pruning", "total"], "--pruning"),
        (["--precision", "float32"], "--precision"),
        (["--algorithm", "mccfr-os"], "--algorithm"),
        (["--seed", "3"], "--seed"),
        (["--algorithm", "mccfr-es", "--param", "epsilon=0.5"], "--param"),
        (["--pot", "10"], "--pot"),
        (["--stack-bb", "10"], "--stack-bb"),
        (["--rbp-free-opponent"], "--rbp-free-opponent"),
        (["--param", "gamma=-1"], "--param"),
        (["--target", "-1"], "--target"),
        (["--iterations", "x"], "--iterations"),
    ],
)
def test_heads_up_only_and_bad_flags_are_refused_by_name(flags: list[str], named: str) -> None:
    out = run("solve", "--game", "kuhn3", *flags)
    assert out.returncode == 2
    assert out.stderr.startswith(f"error: {named}") and "Traceback" not in out.stderr
    assert out.stdout == ""


def test_other_commands_say_three_players_are_solves() -> None:
    out = run("tree", "--game", "leduc3")
    assert out.returncode == 2
    assert out.stderr.strip() == "error: --game: leduc3 (three players) is for the solve command"
