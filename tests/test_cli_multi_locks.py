"""``python -m solver solve --game kuhn3|leduc3 --locks FILE.json`` (issue 49 item 1;
docs/locking.md, docs/multiway.md): the heads-up locks file's format for any player; the
final JSON line repeats the locks and says per player which lines are locked; a bad file
or lock is one ``error: --locks: …`` line, exit code 2, nothing solved."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run
from multiway_helpers import lines, write

from solver.api import solve
from solver.cli.args import MAX_JSON_FILE_BYTES
from solver.games.multi_locks import uniform_locks
from solver.games.multiway import multi_game
from solver.games.nashconv import best_response_values, uniform_profile


def test_two_players_locked_to_uniform_from_a_file(tmp_path: Path) -> None:
    """Players 0 and 1 locked to uniform on every node: player 2's solve earns its
    best-response value against uniform (nashconv, OpenSpiel's) within 1e-4, the same
    numbers as the API's solve with the same locks; the final line names the locks."""
    g = multi_game("kuhn3")
    spec = uniform_locks(g, [0, 1])
    path = write(tmp_path, spec)
    out = run("solve", "--game", "kuhn3", "--algorithm", "cfr+", "--iterations", "1000",
              "--every", "1000", "--locks", path, "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    recs = lines(out.stdout)
    final = recs[-1]
    br = best_response_values(g, uniform_profile(g))[2]
    assert final["ev"][2] == pytest.approx(br, abs=1e-4)
    api = solve("kuhn3", "cfr+", iterations=1000, check_every=1000, locks=spec)
    np.testing.assert_allclose(final["ev"], api.ev, rtol=0, atol=1e-12)
    np.testing.assert_allclose(final["nash_distance"], api.nash_distance, rtol=0, atol=1e-12)
    assert final["locks"] == spec
    assert final["locked"] == api.locked and final["locked"][2] == []
    assert sorted(final["locked"][0] + final["locked"][1]) == sorted(spec)
    assert "locks" not in recs[0]  # (the check lines are as before)


def test_a_partial_lock_on_leduc3_and_the_text_output(tmp_path: Path) -> None:
    spec = {"c r": {"K": {"c": 1}, "*": {"f": 1}}}
    path = write(tmp_path, spec)
    out = run("solve", "--game", "leduc3", "--algorithm", "cfr", "--iterations", "2",
              "--locks", path, "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    final = lines(out.stdout)[-1]
    assert final["locks"] == spec and final["locked"] == [[], [], ["c r"]]
    text = run("solve", "--game", "leduc3", "--algorithm", "cfr", "--iterations", "2",
               "--locks", path)  # fmt: skip
    assert text.returncode == 0, text.stderr
    assert text.stdout.splitlines()[0] == "locked: player 2 at 'c r'"


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ("{not json", "is not JSON"),
        ('["k"]', 'must hold {"LINE": MIX, ...}'),
        ({"k x": {"k": 1}}, "lock 'k x': no such line in kuhn3: after 'k' come k, b"),
        ({"k b": {"f": 0.5, "c": 0.6}}, "lock 'k b': probabilities sum to 1.1, not 1"),
        ({"k b": {"Z": {"c": 1}}}, "lock 'k b', hand 'Z': no such hand"),
        ({"k b": {"k": 1}}, "lock 'k b': no action 'k' here (actions: f, c)"),
        ({"k": "solved"}, "lock 'k': 'solved' needs a solve"),
    ],
)
def test_bad_files_are_refused_naming_the_flag(tmp_path: Path, content: object, says: str) -> None:
    out = run("solve", "--game", "kuhn3", "--locks", write(tmp_path, content), "--json")
    assert out.returncode == 2
    assert out.stderr.startswith("error: --locks: ") and says in out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_files_that_are_not_small_regular_files_are_refused(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_text('{"k": {"k": 1}, "pad": "' + "x" * MAX_JSON_FILE_BYTES + '"}', "utf-8")
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)  # (a plain open would wait for a writer for ever)
    cases = [
        (str(big), f"is larger than {MAX_JSON_FILE_BYTES:,} bytes"),
        (str(fifo), "is a pipe, not a regular file"),
        (str(tmp_path), "is a folder, not a regular file"),
        (str(tmp_path / "missing.json"), "no such file"),
    ]
    for path, says in cases:
        out = run("solve", "--game", "kuhn3", "--locks", path)
        assert out.returncode == 2, path
        assert out.stderr.startswith(f"error: --locks: {path} ") and says in out.stderr
        assert out.stdout == ""


def test_external_sampling_takes_no_locks(tmp_path: Path) -> None:
    out = run("solve", "--game", "kuhn3", "--algorithm", "mccfr-es",
              "--locks", write(tmp_path, {"k": {"k": 1}}))  # fmt: skip
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.startswith("error: --locks: locks: not with mccfr-es")
