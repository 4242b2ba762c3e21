"""The warm-up's stamp (is the kernel cache warm for these sources?), its compile detector, and
the time-per-iteration calibration (hand-cells, the kept cost per hand-cell)."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

import pytest
from numba import njit

from solver.files.presets import load_preset
from solver.games.holdem import estimate, validate
from solver.run import calibration, warmup


@pytest.fixture
def cache_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    return tmp_path


def test_stamp_follows_the_sources(
    cache_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "kernels.py").write_text("x = 1\n")
    monkeypatch.setattr(warmup, "SOLVER", src)
    assert warmup.stamp_path() == cache_dir / "regret-lab-warmup.stamp"
    assert not warmup.is_warm()
    warmup.mark_warm()
    assert warmup.is_warm()
    (src / "kernels.py").write_text("x = 2\n")  # a changed source: compile (or load) again
    assert not warmup.is_warm()


def test_stamp_lives_in_the_source_keyed_cache() -> None:
    from solver import jit

    if str(jit.cache_dir()) != jit.CACHE_DIR:
        pytest.skip("NUMBA_CACHE_DIR chosen by the user")
    # edited kernels get a new cache directory, and with it no stamp: the warm-up runs again
    assert warmup.stamp_path().parent == jit.cache_dir()


def test_check_exits_nonzero_on_a_cold_cache(cache_dir: Path) -> None:
    cmd = [sys.executable, "-m", "solver.warmup", "--check"]  # the command scripts use
    assert subprocess.run(cmd, check=False).returncode == 1


def test_compile_detector_fires_on_compiling_only() -> None:
    seen: list[int] = []
    warmup.when_compiling(lambda: seen.append(1))

    @njit(cache=False)
    def add(a: int) -> int:
        return a + 1

    assert add(1) == 2 and seen == [1]  # compiled: reported once
    assert add(2) == 3 and seen == [1]  # already there: nothing


def test_hand_cells_of_an_estimate_match_the_built_game() -> None:
    spec = load_preset("srp-turn").holdem
    assert spec is not None
    game = load_preset("srp-turn").build()
    est = estimate(validate(spec))
    assert calibration.cells_of_estimate(est) == calibration.cells_of_game(game) > 1_000_000


def test_the_kept_cost_per_hand_cell(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    cost = calibration.load()
    assert not cost.measured and cost.ns_per_cell == calibration.DEFAULT_NS_PER_CELL
    assert calibration.record(10, 1.0).measured is False  # a tiny tree teaches nothing
    first = calibration.record(2_000_000, 0.010)  # 10 ms over 2M cells: 5 ns each
    assert first.measured and first.ns_per_cell == pytest.approx(5.0)
    assert first.seconds(1_000_000, threads=2) == pytest.approx(
        first.seconds(1_000_000) / calibration.TWO_THREAD_SPEEDUP
    )  # no two-thread solve timed yet: the assumed speed-up
    second = calibration.record(2_000_000, 0.030, threads=2)  # 2 threads kept on their own
    assert second.ns_per_cell == pytest.approx(5.0)
    assert calibration.load() == second
    assert second.seconds(1_000_000) == pytest.approx(second.ns_per_cell * 1e-3)
    assert second.seconds(1_000_000, threads=2) == pytest.approx(0.015)  # as measured
    (tmp_path / "regret-lab" / "calibration.json").write_text("not json")
    assert not calibration.load().measured  # a broken file: the default again


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat")  # a zombie (ended, not yet reaped by init) counts as gone
    return not (stat.exists() and stat.read_text().split(") ")[-1].startswith("Z"))


def test_a_group_process_ends_with_its_parent() -> None:
    """A warm-up group's process outlives nothing: the server (its parent) killed, it ends
    within seconds instead of compiling on for minutes."""
    child = (
        "import sys, time; from solver.run.warmup import exit_with_parent; "
        "exit_with_parent(0.1); print('ready', flush=True); time.sleep(120)"
    )
    # the parent: a shell that starts the child in the background, says its pid and waits
    parent = subprocess.Popen(
        ["bash", "-c", f'{sys.executable} -c "{child}" & echo $!; wait'],
        stdout=subprocess.PIPE,
        text=True,
        cwd=Path(__file__).resolve().parents[1],
    )
    assert parent.stdout is not None
    pid = int(parent.stdout.readline())
    assert parent.stdout.readline().strip() == "ready"  # the watch is running
    assert _alive(pid)
    parent.kill()  # SIGKILL: the parent cannot pass anything on
    parent.wait()
    deadline = time.monotonic() + 30.0
    while _alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _alive(pid)


def test_a_test_that_compiles_a_kernel_fails_under_fail_on_compile(tmp_path: Path) -> None:
    """The suite's own check (tests/conftest.py, ``--fail-on-compile``): a test during which
    a solver kernel compiled fails, naming the kernel, and the tests beside it do not — with
    the run split over two processes as scripts/test.sh runs it."""
    probe = tmp_path / "test_probe.py"
    probe.write_text(
        "import numpy as np\n"
        "from solver.cfr.update import regret\n\n"
        "def test_compiles():\n"
        "    regret(np.float32(1.0), np.float32(0.5))\n\n"
        "def test_quiet():\n"
        "    pass\n"
    )
    root = Path(__file__).resolve().parents[1]
    # an empty cache of its own: the probe's signature compiles there, every run
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    cmd = [sys.executable, "-m", "pytest", "-p", "tests.conftest", "-p", "no:cacheprovider",
           "--fail-on-compile", "-n", "2", "-q", "-rA", str(probe)]  # fmt: skip
    r = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True, timeout=300)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out
    assert "ERROR " in out and "test_probe.py::test_compiles" in out, out
    assert "solver.cfr.update.regret(float32, float32)" in out, out
    assert "PASSED " in out and "test_probe.py::test_quiet" in out, out
