"""Fuzz: saved solves (flipped bytes, truncations, hostile metadata, wrong or pickled arrays,
zip bombs), batch spec files, the Python API's arguments (every solver option included),
``SolveJob`` and command lines (in-process for the bulk, a sample in real subprocesses)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from forked_cli import ForkedCli
from fuzz_harness import HANG_S
from fuzz_saves import UNPICKLED
from fuzz_targets import entries, run_examples

ENTRIES = {e.target.name: e for e in entries()}
CI_EXAMPLES = {
    "saved solves": 70,
    "batch specs": 40,
    "api: solve": 60,
    "api: SolveJob": 20,
    "api: locks": 40,
    "cli: --locks file": 25,
    "cli (in-process)": 50,
}
ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("name", sorted(CI_EXAMPLES))
def test_only_the_projects_errors_escape(name: str) -> None:
    counts = run_examples(ENTRIES[name], CI_EXAMPLES[name])
    assert counts["escaped"] == counts["slow"] == counts["heavy"] == 0
    assert counts["accepted"] > 0 and counts["refused"] > 0, counts
    assert UNPICKLED == []  # no pickled object in any file was ever loaded


# Command lines from the reports, run as users run them: one `error:` line on
# stderr, exit code 2, no traceback, well within the hang bound.
NINES = "9" * 400
RIVER = ["--board", "Td9d6hQc2s", "--pot", "200", "--stack", "900", "--oop-range", "AA",
         "--ip-range", "KK"]  # fmt: skip
COMMANDS = [
    ["tree", *RIVER, "--bets", f"{NINES}%"],
    ["tree", *RIVER, "--raises", f"{NINES}x"],
    ["tree", *RIVER, "--bets", f"{NINES}e"],
    ["tree", *RIVER, "--size", f"river.oop.bets={NINES}c"],
    ["tree", *RIVER[:2], "--pot", "1e308", "--stack", "1e308", *RIVER[6:]],
    [
        "tree",
        *RIVER[:4],
        "--stack",
        "1000000000000",
        *RIVER[6:],
        "--raises",
        "50%, 100%, a",
        "--raise-cap",
        "100",
    ],
    [
        "tree",
        *RIVER[:4],
        "--stack",
        "1e300",
        *RIVER[6:],
        "--bets",
        "100c",
        "--raises",
        "2x",
        "--raise-cap",
        "5000",
    ],
    [
        "tree",
        "--board",
        "Td9d6h",
        "--pot",
        "500",
        "--stack",
        "9750",
        "--oop-range",
        "22+,A2+",
        "--ip-range",
        "22+,A2+",
        "--bets",
        "25%,33%,50%,75%,100%,150%,a",
        "--raises",
        "50%,100%,200%,a",
        "--raise-cap",
        "4",
    ],
    ["solve", *RIVER[:6], "--oop-range", "\u212aK", "--ip-range", "QQ"],
    ["solve", "--game", "kuhn", "--threads", "100000"],
    ["solve", "--game", "kuhn", "--iterations", "1.5"],
    ["solve", "--preset", "../presets/kuhn"],
]


@pytest.fixture(scope="module")
def forked() -> Iterator[ForkedCli]:
    """One interpreter that forks a real ``python -m solver`` process per command line
    (tests/forked_cli.py): the start-up's imports once, not once per command."""
    with ForkedCli() as cli:
        yield cli


@pytest.mark.parametrize("argv", COMMANDS, ids=[" ".join(c)[:60] for c in COMMANDS])
def test_reported_command_lines_are_one_line_refusals(forked: ForkedCli, argv: list[str]) -> None:
    assert forked.preamble == ""  # a fresh interpreter's start-up writes nothing either
    out = forked.run(argv, timeout=HANG_S + 30)  # a fresh start-up included, as before
    lines = out.stderr.strip().splitlines()
    assert out.returncode == 2, out.stderr
    assert len(lines) == 1 and lines[0].startswith("error: "), out.stderr
    assert "Traceback" not in out.stderr and "internal error" not in out.stderr
