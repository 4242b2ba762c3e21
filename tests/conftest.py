"""Shared fixtures: built games are cached per test session (building Leduc-5 takes ~1 s)."""

from __future__ import annotations

import functools
import sys
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from solver import Game, make_game
from solver.cfr.engine import Engine
from solver.cfr.options import SolveOptions

# ----- kernels compiled during the run ----------------------------------------------------------
# The warm-up (python -m solver.warmup) must cover every kernel signature the suite uses: with
# ``--fail-on-compile`` (scripts/test.sh passes it after warming the cache) a run in which Numba
# compiled one of the solver's kernels in this process fails, naming them.
COMPILED: list[str] = []


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--fail-on-compile",
        action="store_true",
        help="fail the run if Numba compiles a solver kernel (the warm-up should have)",
    )


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "cores(n): needs n cores (default 2) for solver threads or batch workers; skipped "
        "on a machine with fewer (os.cpu_count, as the solver and the batch driver count)",
    )
    from numba.core import event

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            disp = ev.data["dispatcher"]
            name = f"{disp.py_func.__module__}.{disp.py_func.__qualname__}"
            if name.startswith("solver."):
                COMPILED.append(f"{name}({', '.join(str(a) for a in ev.data['args'])})")

        def on_end(self, ev: event.Event) -> None:
            pass

    event.register("numba:compile", Listener())


def pytest_runtest_setup(item: pytest.Item) -> None:
    # a test marked cores(n) is skipped on a machine with fewer cores (the solver refuses
    # more threads than cores, the batch driver more workers): the rest of the suite runs
    mark = item.get_closest_marker("cores")
    if mark is not None:
        from solver.cfr.parallel import max_threads

        needed = int(mark.args[0]) if mark.args else 2
        if max_threads() < needed:
            pytest.skip(f"needs {needed} cores; this machine has {max_threads()}")


def _uncovered(compiled: list[str]) -> str:
    lines = "\n".join(f"  {c[:300]}" for c in compiled)
    return (
        f"{len(compiled)} kernel signature(s) compiled: the warm-up (solver/run/warmup.py) "
        f"does not cover them:\n{lines}"
    )


@pytest.fixture(autouse=True)
def _compiles_nothing(request: pytest.FixtureRequest) -> Iterator[None]:
    """With ``--fail-on-compile``, a test during which a solver kernel compiled fails (in
    its teardown), naming the kernels: each test reports for itself, so the check holds
    with the suite split over processes (pytest-xdist) too."""
    before = len(COMPILED)
    yield
    if request.config.getoption("--fail-on-compile") and len(COMPILED) > before:
        pytest.fail(_uncovered(COMPILED[before:]), pytrace=False)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    # (what compiled outside any test: at collection, in a module's set-up)
    if COMPILED and session.config.getoption("--fail-on-compile"):
        sys.stderr.write(f"\n{_uncovered(COMPILED)}\n")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


# ----- the order modules start in --------------------------------------------------------------
# scripts/test.sh hands whole modules to its workers (``--dist loadscope``) in the order they
# are collected (``--no-loadscope-reorder``; xdist would otherwise start the modules with the
# most tests first, which left these long ones of few tests to the end: one worker ran a
# long module on its own while the other had nothing left). The listed modules first,
# longest first, then the rest in file order: by each module's time (setup, tests and
# teardown) in two whole runs of scripts/test.sh's command on a loaded 2-core machine
# (2026-11-29, after the sweep log and the forked command lines), the modules of 12 s or
# more there (about 8 s on a quiet machine); the short ones after them let the two workers
# end together (test_summary_reference.py, unlisted, had started last). The batch modules'
# databases share their flops' solves (tests/batch_helpers.py, under a lock): the first
# module to need a flop solves it, those after it mostly read it.
LONGEST_FIRST = (
    "browser/test_app_sessions.py",
    "test_batch_cluster.py",
    "browser/test_app_browser.py",
    "test_reference_match.py",
    "test_summary_reference.py",
    "test_app_reports.py",
    "test_isomorphic_cards.py",
    "browser/test_memory_release.py",
    "test_holdem.py",
    "fuzz/test_fuzz_files_and_calls.py",
    "test_prefetch.py",
    "test_pruning.py",
    "browser/test_reports_browser.py",
    "test_holdem3_turn_engine.py",
    "test_reference_selfcheck.py",
    "test_presets.py",
    "test_hostile_input.py",
    "test_batch_report_defs.py",
    "test_batch_hostile.py",
    "test_batch_cli.py",
    "test_node_table.py",
    "browser/test_locking_browser.py",
    "test_layers.py",
    "browser/test_paint_grids_browser.py",
    "browser/test_exploit_risk_browser.py",
    "browser/test_multiway_browser.py",
    "test_holdem3_locks.py",
    "browser/test_turn3_browser.py",
    "test_batch_lines.py",
    "test_warmup.py",
    "browser/test_paint_lock_browser.py",
    "test_holdem3_turn.py",
    "test_kernel_cache.py",
    "fuzz/test_fuzz_study.py",
    "test_app_preflop.py",
    "test_app_sizes_open.py",
    "browser/test_reports_compare_browser.py",
    "test_app_solve.py",
    "test_profiles.py",
    "test_app_locking.py",
    "test_multi_engine.py",
    "browser/test_runout_click_browser.py",
)
TESTS = Path(__file__).resolve().parent


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    rank = {name: i for i, name in enumerate(LONGEST_FIRST)}

    def key(item: pytest.Item) -> int:
        try:
            name = item.path.resolve().relative_to(TESTS).as_posix()
        except ValueError:  # (not under tests/)
            return len(rank)
        return rank.get(name, len(rank))

    items.sort(key=key)  # stable: each module's tests, and the modules not listed, keep order


@pytest.fixture(scope="session", autouse=True)
def _solved_flops_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The folder where tests/batch_helpers.py keeps each flop solved once: the session's
    base temp folder, shared by pytest-xdist's workers (each has its own under it)."""
    import os

    base = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        base = base.parent
    old = os.environ.get("REGRET_LAB_TEST_SOLVED_FLOPS")
    os.environ["REGRET_LAB_TEST_SOLVED_FLOPS"] = str(base / "solved-flops")
    yield
    if old is None:
        os.environ.pop("REGRET_LAB_TEST_SOLVED_FLOPS", None)
    else:
        os.environ["REGRET_LAB_TEST_SOLVED_FLOPS"] = old


@functools.cache
def game(name: str) -> Game:
    return make_game(name)


def locked_engine(g: Game, rule: str, locks: Any) -> Engine:
    """A full-width engine of ``g`` for ``rule`` locked from the start with ``locks`` as users
    write them (resolved above the engine by make_solver)."""
    from solver.algorithms import make_solver

    e = make_solver(g, rule, options=SolveOptions(locks=locks))
    assert isinstance(e, Engine)
    return e


@functools.cache
def full_game(name: str) -> Game:
    """``name`` without suit isomorphism: for arbitrary (suit-asymmetric) strategy profiles,
    which only the full tree represents."""
    from solver.games.toy import leduc, leduc5

    return {"leduc": lambda: leduc(False), "leduc5": lambda: leduc5(False)}.get(
        name, lambda: make_game(name)
    )()


def small_turn(oop_range: str, ip_range: str) -> Game:
    """A small hold'em turn spot with the given ranges: board Td9d6hQc, pot 100, stack 200,
    bets 50 % and all-in, raises all-in (one chance level: the river deal); big blind 100, the
    old default its lines were written with, so the 50 % bet is played as 100 (``b:100``)."""
    from solver.games.holdem import HoldemSpec, build_holdem

    spec = HoldemSpec(board="Td9d6hQc", pot=100, stack=200, oop_range=oop_range,
                      ip_range=ip_range, bets="50%, a", raises="a", big_blind=100)  # fmt: skip
    return build_holdem(spec)


@functools.cache
def task_turn() -> Game:
    """A turn whose split tasks are river cards and all-in runouts (board Ks7h2d9c, pot 100,
    stack 300, default sizes), small enough to compile and run fast; built once."""
    from solver.games.holdem import HoldemSpec, build_holdem

    return build_holdem(HoldemSpec(board="Ks7h2d9c", pot=100, stack=300,
                                   oop_range="AA,KQs,T8s,76s,QJo",
                                   ip_range="QQ-99,AK,J9s"))  # fmt: skip


@pytest.fixture(autouse=True)
def _keep_main() -> Iterator[None]:
    """Streamlit's AppTest leaves its page script as ``__main__``; a process spawned later
    (Dask's workers in test_batch_cluster.py) re-runs ``__main__`` and dies on it. Each test
    gets the ``__main__`` it started with back."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


def bounded(fn: Any, seconds: float = 120.0) -> BaseException | None:
    """Run ``fn`` in a daemon thread; the exception it raised (None if none). Fails if it
    has not returned after ``seconds`` (a thread left waiting would hang the suite)."""
    box: list[BaseException | None] = [None]

    def target() -> None:
        try:
            fn()
        except BaseException as exc:  # handed to the test
            box[0] = exc

    th = threading.Thread(target=target, daemon=True)
    th.start()
    th.join(seconds)
    assert not th.is_alive(), "a thread of the chunk is still waiting"
    return box[0]


@pytest.fixture
def reports_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """The Reports page's batch folder, each test's own; no job thread left after it."""
    from app_helpers import no_threads_left

    from app import files

    monkeypatch.setenv(files.BATCHES_ENV, str(tmp_path))
    yield tmp_path
    no_threads_left()
