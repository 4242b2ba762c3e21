"""The CLI contract scripts rely on: commands, flags, JSON fields, exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from solver.cfr.rules import RULES


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solver", *args], capture_output=True, text=True, timeout=300
    )


def test_games_and_algorithms_lists() -> None:
    out = run("games")
    assert out.returncode == 0
    assert [line.split()[0] for line in out.stdout.splitlines()] == ["kuhn", "leduc", "leduc5"]
    out = run("algorithms")
    assert out.returncode == 0
    names = [line.split()[0] for line in out.stdout.splitlines()]
    assert names == list(RULES)
    for expected in ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+", "apcfr+", "sapcfr+", "pdcfr+"):
        assert expected in names
    for expected in ("apdcfr+", "lcfr+", "olcfr", "dcfr-nh"):
        assert expected in names


def test_solve_json_lines() -> None:
    out = run("solve", "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "200")
    assert out.returncode == 0, out.stderr
    out = run(
        "solve", "--game", "leduc", "--algorithm", "dcfr", "--iterations", "100", "--every", "25",
        "--param", "alpha=1.5", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    checkpoints, final = lines[:-1], lines[-1]
    assert [c["iteration"] for c in checkpoints] == [0, 25, 50, 75, 100]
    for c in checkpoints:
        assert {"iteration", "elapsed_s", "exploitability"} <= set(c)
    assert final["final"] is True
    assert final["iteration"] == 100
    assert final["exploitability"] == checkpoints[-1]["exploitability"]
    assert len(final["ev"]) == 2
    assert final["ev"][0] == pytest.approx(-0.0856, abs=0.01)
    assert final["ev"][0] + final["ev"][1] == pytest.approx(0.0, abs=1e-12)


def test_target_stops_early_and_zero_iterations_reports_uniform() -> None:
    out = run("solve", "--game", "kuhn", "--algorithm", "dcfr", "--target", "0.001", "--json")
    final = json.loads(out.stdout.splitlines()[-1])
    assert final["exploitability"] <= 0.001
    assert final["stopped_by"] == "target"
    out = run("solve", "--game", "kuhn", "--algorithm", "cfr", "--iterations", "0", "--json")
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert lines[-1]["iteration"] == 0
    assert 2 * lines[-1]["exploitability"] == pytest.approx(11 / 12)
    assert lines[-1]["ev"] == pytest.approx([0.125, -0.125])


@pytest.mark.parametrize(
    "args",
    [
        ("solve", "--game", "chess", "--algorithm", "cfr"),
        ("solve", "--game", "kuhn", "--algorithm", "xcfr"),
        ("solve", "--game", "kuhn", "--algorithm", "cfr", "--iterations", "ten"),
        ("solve", "--game", "kuhn", "--algorithm", "cfr", "--iterations", "-5"),
        ("solve", "--game", "kuhn", "--algorithm", "cfr", "--target", "-1"),
        ("solve", "--game", "kuhn", "--algorithm", "cfr", "--target", "abc"),
        ("solve", "--game", "kuhn", "--algorithm", "cfr", "--every", "0"),
        ("solve", "--game", "kuhn", "--algorithm", "dcfr", "--param", "alpha=x"),
        ("solve", "--game", "kuhn", "--algorithm", "dcfr", "--param", "alpha"),
        ("solve", "--game", "kuhn", "--algorithm", "dcfr", "--param", "zeta=1"),
        ("solve", "--game", "kuhn", "--algorithm", "cfr+", "--param", "delay=-3"),
        ("solve", "--bogus"),
        ("frobnicate",),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: tuple[str, ...]) -> None:
    out = run(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1, out.stderr
    assert lines[0].startswith("error: ")
    assert "Traceback" not in out.stderr
