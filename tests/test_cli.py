"""The CLI contract scripts rely on: commands, flags, JSON fields, exit codes.

Commands run in this process (:func:`cli_helpers.run`); :func:`run_process` runs the real
``python -m solver`` where the process itself is what is checked."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from cli_helpers import run

from solver.cfr.rules import RULES


def run_process(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "solver", *args], capture_output=True, text=True, timeout=300
    )


def test_games_and_algorithms_lists() -> None:
    out = run_process("games")  # the real entry point, once
    assert out.returncode == 0
    assert [line.split()[0] for line in out.stdout.splitlines()] == ["kuhn", "leduc", "leduc5"]
    out = run("algorithms")
    assert out.returncode == 0
    names = [line.split()[0] for line in out.stdout.splitlines()]
    assert names == [*list(RULES), "mccfr-cs", "mccfr-es", "mccfr-os", "dmccfr"]
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
    out = run("solve", "--game", "kuhn", "--iterations", "5", "--json")  # the toy default
    assert json.loads(out.stdout.splitlines()[-1])["algorithm"] == "dcfr"
    assert 2 * lines[-1]["exploitability"] == pytest.approx(11 / 12)
    assert lines[-1]["ev"] == pytest.approx([0.125, -0.125])


def test_race_json_lines_contract() -> None:
    out = run(
        "race", "--game", "kuhn", "--algorithms", "cfr,CFR+:delay=2", "--iterations", "60",
        "--targets", "0.05,0.01", "--threads", "2", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    points = [x for x in lines if "final" not in x and "winners" not in x]
    finals = [x for x in lines if x.get("final")]
    assert lines[-1].keys() == {"winners"}
    assert len(points) + len(finals) + 1 == len(lines)
    assert lines.index(finals[0]) == len(points)  # checkpoints first, then the summaries
    for p in points:
        assert set(p) == {
            "algorithm", "iteration", "cpu_s", "elapsed_s", "nodes_touched", "memory_bytes",
            "exploitability",
        }  # fmt: skip
    assert [f["algorithm"] for f in finals] == ["cfr", "cfr+:delay=2"]
    assert [f["label"] for f in finals] == ["cfr", "cfr+ (delay=2)"]
    assert finals[1]["params"] == {"delay": 2.0}
    for f in finals:
        mine = [p for p in points if p["algorithm"] == f["algorithm"]]
        its = [p["iteration"] for p in mine]
        assert its == [1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 32, 40, 50, 60][: len(its)]
        assert f["iteration"] == its[-1] and f["exploitability"] == mine[-1]["exploitability"]
        assert f["cpu_s"] == mine[-1]["cpu_s"] > 0
        cpu = [p["cpu_s"] for p in mine]
        assert cpu == sorted(cpu)
        assert set(f["targets"]) == {"0.05", "0.01"}
        for label, hit in f["targets"].items():
            first = next((p for p in mine if p["exploitability"] <= float(label)), None)
            if first is None:
                assert hit is None
            else:
                assert hit["iteration"] == first["iteration"]
        assert f["stopped_by"] in ("iterations", "target")
    winners = lines[-1]["winners"]
    assert set(winners) == {"0.05", "0.01"}
    for label, w in winners.items():
        reached = [f for f in finals if f["targets"][label] is not None]
        if not reached:
            assert w == {"cpu_s": None, "iterations": []}
            continue
        fastest = min(reached, key=lambda f: f["targets"][label]["cpu_s"])
        assert w["cpu_s"] == fastest["algorithm"]
        fewest = min(f["targets"][label]["iteration"] for f in reached)
        assert w["iterations"] == [
            f["algorithm"] for f in reached if f["targets"][label]["iteration"] == fewest
        ]


def test_race_table_and_holdem_percent_targets() -> None:
    out = run("race", "--game", "leduc", "--algorithms", "cfr,cfr+", "--iterations", "200")
    assert out.returncode == 0, out.stderr
    text = out.stdout
    assert "| algorithm | iterations to 0.01 | CPU s to 0.01 |" in text
    assert "| cfr+ | 160 |" in text  # CFR+ reaches 0.01 chips at the check at 160
    assert "- 0.01: fastest cfr+ (" in text and "- 0.0001: not reached" in text
    out = run(
        "race", "--preset", "libratus-3-river", "--algorithms", "cfr+,dcfr", "--iterations",
        "8", "--targets", "50%,10%", "--json", "--full",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    finals = [x for x in lines if x.get("final")]
    assert [f["iteration"] for f in finals] == [8, 8]
    for f in finals:
        assert set(f["targets"]) == {"50%", "10%"}
        assert f["exploitability_pct_pot"] == pytest.approx(100 * f["exploitability"] / 500)
    assert all("exploitability_pct_pot" in x for x in lines if "iteration" in x)


@pytest.mark.parametrize(
    "args",
    [
        ("race", "--game", "kuhn", "--algorithms", "xcfr"),
        ("race", "--game", "kuhn", "--algorithms", "dcfr:zeta=1"),
        ("race", "--game", "kuhn", "--algorithms", "cfr+:delay=-1"),
        ("race", "--game", "kuhn", "--algorithms", "cfr,cfr"),
        ("race", "--game", "kuhn", "--algorithms", "cfr,cfr+,lcfr,dcfr,pcfr+,apcfr+,sapcfr+"),
        ("race", "--game", "kuhn", "--iterations", "0"),
        ("race", "--game", "kuhn", "--threads", "0"),
        ("race", "--game", "kuhn", "--targets", "1%"),
        ("race", "--game", "kuhn", "--targets", "abc"),
        ("race", "--game", "chess"),
        ("race",),
    ],
)
def test_race_bad_input_names_the_flag(args: tuple[str, ...]) -> None:
    out = run(*args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert "Traceback" not in out.stderr
    flag = next((a for a in args[1:] if a.startswith("--") and a != "--game"), None)
    if flag is not None and args[1:3] == ("--game", "kuhn"):
        assert lines[0].startswith(f"error: {flag}: ")


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


def test_pruning_and_sampling_flags() -> None:
    out = run(
        "solve", "--game", "leduc", "--algorithm", "cfr", "--pruning", "total",
        "--iterations", "60", "--every", "30", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    assert all(x["memory_bytes"] > 0 and x["nodes_touched"] >= 0 for x in lines)
    assert lines[-1]["pruning"] == "total"
    freed = run(
        "solve", "--game", "leduc", "--algorithm", "cfr", "--pruning", "total",
        "--rbp-free-opponent", "--iterations", "60", "--every", "30", "--json",
    )  # fmt: skip
    assert freed.returncode == 0, freed.stderr
    last = json.loads(freed.stdout.splitlines()[-1])
    assert 0 < last["memory_bytes"] < lines[-1]["memory_bytes"]  # the other's regrets freed
    runs = [
        run(
            "solve",
            "--game",
            "kuhn",
            "--algorithm",
            "mccfr-es",
            "--seed",
            seed,
            "--iterations",
            "500",
            "--json",
        )
        for seed in ("3", "3", "4")
    ]
    finals = [json.loads(r.stdout.splitlines()[-1]) for r in runs]
    assert finals[0]["exploitability"] == finals[1]["exploitability"]
    assert finals[0]["exploitability"] != finals[2]["exploitability"]
    assert finals[0]["seed"] == 3 and finals[0]["pruning"] == "none"


@pytest.mark.parametrize(
    ("args", "needle"),
    [
        (["--algorithm", "dcfr", "--pruning", "total"], "--pruning"),
        (["--algorithm", "cfr", "--pruning", "sometimes"], "--pruning"),
        (["--algorithm", "mccfr-es", "--seed", "-1"], "--seed"),
        (["--algorithm", "mccfr-es", "--threads", "2"], "--threads"),
        (["--algorithm", "mccfr-os", "--param", "epsilon=0"], "epsilon"),
        (["--algorithm", "cfr", "--pruning", "total", "--precision", "compressed"], "--precision"),
        (["--algorithm", "cfr", "--pruning", "total", "--rbp-threshold", "-1"], "number ≥ 0"),
        (
            ["--algorithm", "cfr", "--pruning", "partial", "--rbp-free-opponent"],
            "--rbp-free-opponent",
        ),
    ],
)
def test_bad_pruning_and_sampling_input(args: list[str], needle: str) -> None:
    out = run("solve", "--game", "kuhn", "--iterations", "5", *args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and needle in lines[0]


# A small river spot and a small turn spot (cards dealt at one chance level) for the hold'em
# side of the contract.
RIVER = (
    "--board", "Td9d6hQc2s", "--pot", "200", "--stack", "400",
    "--oop-range", "AA, KK, T9s, 87s", "--ip-range", "QQ, JJ, AKs, KQs",
    "--bets", "50%, a", "--raises", "a",
)  # fmt: skip
TURN = (
    "--board", "Td9d6hQc", "--pot", "200", "--stack", "300",
    "--oop-range", "AA, T9s", "--ip-range", "QQ, AKs", "--bets", "a", "--raises", "",
)  # fmt: skip


def _lines(out: subprocess.CompletedProcess[str]) -> list[dict]:
    assert out.returncode == 0, out.stderr
    return [json.loads(line) for line in out.stdout.splitlines()]


def test_holdem_spot_json_lines_units_and_targets() -> None:
    lines = _lines(run("solve", *RIVER, "--iterations", "40", "--every", "20", "--json"))
    assert [x["iteration"] for x in lines[:-1]] == [0, 20, 40]
    for x in lines:
        assert x["exploitability_pct_pot"] == pytest.approx(100 * x["exploitability"] / 200)
        assert x["exploitability_mbb"] == pytest.approx(1000 * x["exploitability"] / 10)  # bb 10
    final = lines[-1]
    assert final["final"] is True and final["iteration"] == 40
    assert final["algorithm"] == "dcfr-tuned"  # the hold'em default when none is named
    assert final["params"] == {"alpha": 1.5, "beta": 0.1, "gamma": 4.0, "average_every": 2.0}
    assert sum(final["ev"]) == pytest.approx(200.0)  # pot shares: the EVs sum to the pot
    uniform = _lines(run("solve", *RIVER, "--iterations", "0", "--json"))[-1]
    assert uniform["iteration"] == 0 and uniform["exploitability"] > final["exploitability"]
    pct = _lines(run("solve", *RIVER, "--target", "2%", "--every", "5", "--json"))[-1]
    assert pct["stopped_by"] == "target" and pct["exploitability_pct_pot"] <= 2.0
    chips = _lines(run("solve", *RIVER, "--target", "4", "--every", "5", "--json"))[-1]
    assert chips["stopped_by"] == "target" and chips["exploitability"] <= 4.0
    assert chips["iteration"] == pct["iteration"]  # 4 chips is 2 % of a 200 pot


@pytest.mark.cores(2)
def test_holdem_threads_preset_and_tree() -> None:
    one = _lines(run("solve", *TURN, "--iterations", "20", "--threads", "1", "--json"))[-1]
    two = _lines(run("solve", *TURN, "--iterations", "20", "--threads", "2", "--json"))[-1]
    assert one["exploitability"] == two["exploitability"]  # threads split work, not results
    preset = _lines(run("solve", "--preset", "libratus-3-river", "--iterations", "2", "--json"))
    assert preset[-1]["iteration"] == 2 and sum(preset[-1]["ev"]) == pytest.approx(500.0)
    tree = run("tree", *RIVER, "--json")
    assert tree.returncode == 0, tree.stderr
    info = json.loads(tree.stdout)
    assert info["nodes"] > info["decision_nodes"] > 0 and info["memory_bytes"] > 0
    # a memory budget given as a flag (text) is compared as a number
    within = _lines(run("solve", *RIVER, "--max-memory-mb", "10", "--iterations", "2", "--json"))
    assert within[-1]["memory_bytes"] <= info["memory_bytes"]
    toy = json.loads(run("tree", "--game", "leduc", "--json").stdout)
    solo = _lines(run("solve", "--game", "leduc", "--iterations", "1", "--json"))
    assert toy["memory_bytes"] == solo[-1]["memory_bytes"]  # what the default solve holds


@pytest.mark.parametrize(
    ("command", "change", "needle"),
    [
        ("solve", ("--pot", "-1"), "--pot"),
        ("solve", ("--stack", "0"), "--stack"),
        ("solve", ("--bets", "50%, 7q"), "--bets"),
        ("solve", ("--board", "Td9dTd"), "--board"),
        ("solve", ("--board", "Td9d"), "--board"),
        ("solve", ("--oop-range", "AA, KZs"), "--oop-range"),
        ("solve", ("--add-allin", "-1"), "--add-allin"),
        ("tree", ("--add-allin", "-1"), "--add-allin"),
        ("tree", ("--ip-range", "Td9d"), "--ip-range"),
        ("solve", ("--max-memory-mb", "0.001"), "--max-memory-mb: this tree needs"),
        ("tree", ("--max-memory-mb", "0.001"), "--max-memory-mb: this tree needs"),
        ("solve", ("--max-memory-mb", "lots"), "--max-memory-mb"),
    ],
)
def test_bad_spot_flags_name_the_flag(command: str, change: tuple[str, str], needle: str) -> None:
    args = list(RIVER)
    if change[0] in args:
        args[args.index(change[0]) + 1] = change[1]
    else:
        args += list(change)
    out = run(command, *args)
    assert out.returncode == 2
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: {needle}"), out.stderr


def test_warmup_group_runs() -> None:
    """``warmup`` (run by scripts/setup.sh) exercises a group's kernels; with the cache warm it
    only loads them."""
    out = run("warmup", "--group", "parts")
    assert out.returncode == 0, out.stderr
    out = run("warmup", "--group", "nonsense")
    assert out.returncode == 2


@pytest.mark.parametrize("flag", ["--locks", "--load"])
def test_a_path_with_control_characters_is_quoted_on_one_line(flag: str) -> None:
    # a vertical tab or an escape in a path must not split the error line or reach the
    # terminal raw (found by the fuzz suite on exploit --locks)
    path = "nope\x0bnext\x1b[31m.json"
    if flag == "--load":
        args = ["exploit", flag, path]
    else:
        args = ["solve", "--game", "kuhn", "--iterations", "2", flag, path]
    r = run(*args)
    assert r.returncode == 2
    assert len(r.stderr.splitlines()) == 1, r.stderr
    assert r.stderr.startswith(f"error: {flag}: ") and "\x1b" not in r.stderr
    assert repr(path) in r.stderr
