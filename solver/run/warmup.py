"""Compile (or load from the on-disk cache) every kernel variant the app, CLI and tests use.

A fresh checkout has an empty Numba cache, and a first solve compiles the traversal for its
kind of storage and scratch (``python benchmarks/compile.py`` prints each kernel's seconds).
``python -m solver.warmup`` (or ``python -m solver warmup``) does
that once, up front: each group below runs in its own process (Numba's cache re-reads its
index before every save, so processes add their own signatures without losing each other's).

Groups, in the order a new user needs them: ``opening`` (what the app's opening preset's first
solve runs: ``srp-river`` with the Solve page's defaults — dcfr-tuned, automatic storage
(float64 on a spot this small), partial pruning, one thread — its exploitability checks, EVs
and Explore's first view), then one group per kind of storage, so that no two processes
compile the same signature of the walk's driver: ``float32`` (big hold'em spots: the float32
walk and its float64 checks, serial and split over two threads), ``float64`` (Kuhn, Leduc,
rivers and split turns: every rule family, pruning, the samplers, analysis with equities)
and ``compressed`` (16-bit storage), and ``parts`` (kernels the tests call on their own, and
pruning steps only a longer solve reaches). ``jobs`` run at a time, in that order
(:func:`warm_all`; the app runs ``opening`` first and alone: :mod:`app.kernels`). The test
command fails a run that compiles a kernel signature none of them did
(``--fail-on-compile``, tests/conftest.py).

**Is it warm?** A successful warm-up writes a stamp (a hash of the solver's sources, Numba's
and Python's versions) in Numba's cache directory, which :mod:`solver.jit` names by a hash of
the kernels' sources (:func:`stamp_path`); :func:`is_warm` compares
it, so the set-up scripts and the app skip the warm-up in a second. A group says it is
compiling (on stderr, and to :func:`run_group`'s ``on_compile``) only when Numba actually
starts compiling — loading from the cache is silent.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from solver.games.model import Game

GROUPS = ("opening", "float32", "float64", "compressed", "parts")
SOLVER = Path(__file__).resolve().parents[1]
COMPILING = "compiling"  # the line a group prints (stdout) when Numba starts compiling
NICE_ENV = "REGRET_LAB_WARMUP_NICE"  # a group's process adds this to its niceness (os.nice)


def sources_hash() -> str:
    """A hash of everything a warm cache depends on: the solver's Python sources (kernels and
    the modules they import), Numba's and Python's versions, the machine type."""
    import numba

    h = hashlib.sha256()
    for path in sorted(SOLVER.rglob("*.py")):
        h.update(str(path.relative_to(SOLVER)).encode())
        h.update(path.read_bytes())
    h.update(f"{numba.__version__} {sys.version} {platform.machine()}".encode())
    return h.hexdigest()


def stamp_path() -> Path:
    """Where a finished warm-up leaves its stamp: in Numba's cache directory — the one
    :mod:`solver.jit` keys on the kernels' sources (``solver/__pycache__/numba-<hash>``), or
    the user's ``NUMBA_CACHE_DIR`` — so a new cache directory (edited kernels) or a cleared
    one starts without a stamp."""
    from solver import jit  # sets NUMBA_CACHE_DIR to the source-keyed directory

    return Path(os.environ.get("NUMBA_CACHE_DIR") or jit.CACHE_DIR) / "regret-lab-warmup.stamp"


def is_warm() -> bool:
    """Whether a warm-up finished for the solver's current sources (see the module doc)."""
    try:
        return stamp_path().read_text().strip() == sources_hash()
    except OSError:
        return False


def mark_warm() -> None:
    try:
        path = stamp_path()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(sources_hash())
    except OSError:  # a read-only tree: the next start checks again
        pass


def when_compiling(callback: Callable[[], None]) -> None:
    """Call ``callback`` once, when Numba first starts compiling in this process (not when it
    loads a kernel from its cache)."""
    from numba.core import event

    fired = False

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            nonlocal fired
            if not fired:
                fired = True
                callback()

        def on_end(self, ev: event.Event) -> None:
            pass

    event.register("numba:compile", Listener())


def _exercise(game: object, runs: list[tuple[str, dict]]) -> None:
    import numpy as np

    from solver.algorithms import SolveOptions, make_solver
    from solver.cfr.bestresponse import expected_values
    from solver.cfr.pruning.bounds import compatible_mass
    from solver.games.model import Game
    from solver.study.analysis import analyze, compatible

    assert isinstance(game, Game)
    for name, kw in runs:
        eng = make_solver(game, name, None, SolveOptions(**kw))
        # Total RBP: past its first checks (every 10) so catch-ups run and compile too
        eng.iterate(40 if kw.get("pruning") == "total" else 2)
        eng.best_response_values()
        eng.memory_bytes  # noqa: B018  (with pruning: the entries it still holds, a kernel)
        sigma = eng.average_strategy()
        expected_values(eng.game, sigma)
    g = eng.game  # the last run's (a sampler's game deals every card)
    node = int(g.decision_nodes()[0])
    analyze(g, sigma, node, compat=compatible(g), with_equity=True)
    # interval RBP's catch-up, whenever one comes (its kernel takes the game's own types)
    compatible_mass(g, node, 0, np.zeros(g.num_hands[1]))


def _toy() -> None:
    from solver.games import make_game

    rules = ("cfr", "cfr+", "dcfr", "pcfr+", "apcfr+", "dcfr-nh", "lcfr")
    full: list[tuple[str, dict]] = [(r, {}) for r in rules]
    extra: list[tuple[str, dict]] = [
        ("cfr", {"pruning": "none"}),
        ("cfr", {"pruning": "interval"}),
        ("cfr", {"pruning": "total"}),
        ("cfr+", {"pruning": "total"}),
        ("cfr", {"pruning": "total", "rbp_free_opponent": True}),
        ("cfr+", {"pruning": "total", "rbp_free_opponent": True}),
        ("mccfr-cs", {}),
        ("mccfr-es", {}),
        ("mccfr-os", {}),
        ("dmccfr", {}),
    ]
    for name in ("kuhn", "leduc"):
        _exercise(make_game(name), full + extra)
    _three_players()


def _three_players() -> None:
    """Three-player Kuhn through the engine (full-width rules, locks, its checks), external
    sampling's own kernels and a three-way river spot: ``solve --game kuhn3|leduc3``,
    ``solve --players 3`` and their tests."""
    from solver.cfr.multi_engine import MultiEngine
    from solver.cfr.rules import make_rule
    from solver.cfr.sampling.multi_es import MultiESEngine
    from solver.games.multiway import multi_game

    mg = multi_game("kuhn3")
    for rule in ("cfr", "cfr+", "dcfr", "pcfr+", "lcfr"):
        eng = MultiEngine(mg, make_rule(rule))
        eng.iterate(2)
        eng.measure()
    eng.lock_players((0, 1), eng.average_profile())
    eng.iterate(1)
    es = MultiESEngine(mg, 1)
    es.iterate(2)
    es.measure()
    # the toy games' terminal called alone (its Python entry, for analysis and the tests)
    import numpy as np

    from solver.cfr.multi_build import toy3_tables
    from solver.cfr.toy3_terminal import toy3_values

    node = int(np.flatnonzero(mg.terminal_row >= 0)[0])
    toy3_values(toy3_tables(mg), node, int(mg.board[node]), 0, np.ones((3, mg.num_hands)))
    # a three-way river spot: the terminal by the strength-order sweep (solve --players 3)
    from solver.cfr.holdem3_engine import River3Engine
    from solver.games.holdem3 import River3Spec, checked

    setup, _tree, _est = checked(
        River3Spec(
            "Ks7d2c9h3s",
            "AA, KK",
            "QQ, AK",
            "JJ, KQs",
            pot=60,
            stack=200,
            bets="50%",
            raises="a",
            raise_cap=1,
        )
    )
    river = River3Engine(setup, make_rule("dcfr"))
    river.iterate(2)
    river.measure()


def _opening() -> None:
    """The app's opening preset solved as the Solve page starts it, checked, its EVs, and
    Explore's first view of it (the root's analysis, each action's EVs, the hands ranked by
    strength), given the average as a job hands it over: read-only."""
    from solver.algorithms import SolveOptions, make_solver
    from solver.files.presets import load_preset
    from solver.study.analysis import analyze, compatible
    from solver.study.views import action_evs, strength_order

    eng = make_solver(
        load_preset("srp-river").build(), "dcfr-tuned", None, SolveOptions(precision="auto")
    )
    eng.iterate(2)
    eng.best_response_values()
    eng.expected_values()
    g = eng.game
    sigma = eng.average_strategy().copy()
    sigma.flags.writeable = False
    root = int(g.decision_nodes()[0])
    analyze(g, sigma, root, compat=compatible(g))
    action_evs(g, sigma, root)
    strength_order(g, root, 0)


def spot(board: str) -> Game:
    from solver.games.holdem import HoldemSpec, build_holdem

    return build_holdem(
        HoldemSpec(board=board, pot=200, stack=300, oop_range="AA, T9s, 87s",
                   ip_range="QQ, AKs, KQs", bets="50%, a", raises="a")
    )  # fmt: skip


def _storage_runs(precision: str) -> list[tuple[str, dict]]:
    """Every rule family and pruning on a river spot with ``precision`` storage."""
    kw = {"precision": precision}
    runs: list[tuple[str, dict]] = [
        (r, kw) for r in ("cfr", "cfr+", "dcfr", "dcfr-tuned", "pcfr+", "apcfr+", "dcfr-nh", "lcfr")
    ]  # fmt: skip
    runs += [(r, {"pruning": "total", **kw}) for r in ("cfr", "cfr+")]
    runs += [("cfr", {"pruning": "interval", **kw})]
    runs += [(r, {"pruning": "total", "rbp_free_opponent": True, **kw}) for r in ("cfr", "cfr+")]
    return runs


def _turn_runs(precision: str) -> list[tuple[str, dict]]:
    """Passes split over two threads (and one) on a turn spot with ``precision`` storage."""
    rules = ("cfr", "cfr+", "dcfr", "dcfr-tuned", "pcfr+", "lcfr")
    return [(r, {"threads": t, "precision": precision}) for t in (1, 2) for r in rules]


def _float32() -> None:
    """Float32 storage (big hold'em spots under "auto"): the float32 walk's CFR passes and
    their float64 checks, serial and split."""
    _exercise(spot("Td9d6hQc2s"), _storage_runs("float32"))
    _exercise(spot("Td9d6hQc"), _turn_runs("float32"))


def _float64() -> None:
    """Float64 storage beyond the opening's: every rule on Kuhn and Leduc, pruning, the
    samplers, hold'em rivers and split turns, analysis with equities."""
    _toy()
    samplers: list[tuple[str, dict]] = [(r, {}) for r in ("mccfr-es", "mccfr-os", "dmccfr")]
    _exercise(spot("Td9d6hQc2s"), _storage_runs("float64") + samplers)
    _exercise(spot("Td9d6hQc"), [*_turn_runs("float64"), ("mccfr-cs", {})])


def _compressed() -> None:
    """16-bit storage, walked in float64, serial and split."""
    runs = [
        (r, {"precision": "compressed"}) for r in ("cfr", "cfr+", "dcfr", "dcfr-tuned", "pcfr+")
    ]
    _exercise(spot("Td9d6hQc2s"), runs)
    _exercise(spot("Td9d6hQc"), _turn_runs("compressed"))


def _parts() -> None:
    """Kernels the tests call on their own beside the walk's driver (a hand-strength batch,
    fold and showdown values, one block's update and regret matching in both precisions,
    the samplers' draws, the preflop equity table's board counter) and the pruning steps a
    longer solve reaches (interval RBP's catch-ups, Total RBP's release of strategy sums):
    their signatures, on tiny inputs."""
    import numpy as np

    from solver.cfr.engine import Engine
    from solver.cfr.layout import make_scratch
    from solver.cfr.options import SolveOptions
    from solver.cfr.rules import make_rule
    from solver.cfr.sampling.draws import deal_table, sample_deals, uniforms
    from solver.cfr.sampling.walk import make_work
    from solver.cfr.terminal import fold_values, showdown_values
    from solver.cfr.update import strategy_rows, update_block
    from solver.games import make_game
    from solver.poker.handeval import rank_batch

    rank_batch(np.array([[0, 5, 10, 15, 20, 25, 30]]))
    from solver.poker.preflop_equity import accumulate  # the preflop equity table's builder

    wins = np.zeros((1326, 1326), dtype=np.int32)
    accumulate(np.array([[0, 5, 10, 15, 20]]), np.ones(1), wins, np.zeros_like(wins[:1]))
    g = spot("Td9d6hQc2s")
    sc = make_scratch(g)
    reach = np.ones((1, sc.reach.shape[1]))
    out = np.zeros((1, sc.reach.shape[1]))
    fold_values(g.hands, g.boards, 0, 0, 1.0, reach, 0, out, 0, sc.card_sum)
    showdown_values(g.hands, g.boards, 0, 0, 1.0, reach, 0, out, 0, sc.card_sum, sc.card_sum2)
    pairs: list[tuple[type[np.floating], type[np.floating]]] = [
        (np.float32, np.float32), (np.float32, np.float64), (np.float64, np.float64)
    ]  # fmt: skip
    for rtype, dtype in pairs:
        r = np.ones(4, dtype=rtype)
        strategy_rows(r, 0, 2, 2, np.zeros((1, 4), dtype=dtype), 0,
                      np.zeros((1, 2), dtype=dtype), 0)  # fmt: skip
    for precision in ("float32", "float64"):
        e = Engine(g, make_rule("dcfr-tuned"), SolveOptions(precision=precision))
        co = e.coefficients(0, 1)[0]
        dts = (np.float32, np.float64) if precision == "float32" else (np.float64,)
        for dt in dts:
            av = np.ones((2, 3), dtype=dt)
            update_block(e.storage, co, 0, 0, 0, 2, 3, av, av[0].copy())
    leduc = make_game("leduc")
    for pruning in ("interval", "total"):
        e = Engine(leduc, make_rule("cfr"), SolveOptions(pruning=pruning))
        e.iterate(300)
        if e.rbp is not None and pruning == "total":
            e.rbp.threshold = 0.3
            e.rbp.check(e.iteration, e.storage)
    state = np.array([1], dtype=np.uint64)
    uniforms(state, 4)
    sample_deals(g.hands, deal_table(g), state, make_work(g).buf, 4)


RUNNERS: dict[str, Callable[[], None]] = {
    "opening": _opening,
    "float32": _float32,
    "float64": _float64,
    "compressed": _compressed,
    "parts": _parts,
}


def run_group(name: str, on_compile: Callable[[], None] | None = None) -> None:
    """Exercise one group's kernels in this process; ``on_compile`` is called once if Numba
    has to compile (a cold cache) rather than load."""
    if on_compile is not None:
        when_compiling(on_compile)
    RUNNERS[name]()


def group_command(name: str) -> list[str]:
    """The command that runs one group in its own process (it prints :data:`COMPILING` on
    stdout when it starts compiling)."""
    return [sys.executable, "-m", "solver.run.warmup", "--group", name]


def warm_all(jobs: int = 2, quiet: bool = False) -> float:
    """Run every group, ``jobs`` processes at a time in :data:`GROUPS` order — ``opening``
    beside ``float32`` (another kind of storage), ``float64`` only once a slot is free, which
    ``opening`` (float64 too) frees first, so no two processes compile one driver signature —
    and leave the stamp; returns the wall seconds. Says it is compiling (stderr) only
    when a group actually compiles."""
    t0 = time.perf_counter()
    failed: list[str] = []
    compiled = False
    pending = list(GROUPS)
    running: list[tuple[str, subprocess.Popen[str]]] = []
    while pending or running:
        while pending and len(running) < max(1, jobs):
            g = pending.pop(0)
            proc = subprocess.Popen(group_command(g), stdout=subprocess.PIPE, text=True)
            running.append((g, proc))
        done = [r for r in running if r[1].poll() is not None]
        if not done:  # the first to finish frees its slot (not the first started)
            time.sleep(0.05)
            continue
        g, proc = done[0]
        running.remove(done[0])
        out, _ = proc.communicate()
        if COMPILING in out:
            compiled = True
        if proc.returncode != 0:
            failed.append(g)
    if failed:
        raise RuntimeError(f"warm-up failed for: {', '.join(failed)}")
    mark_warm()
    seconds = time.perf_counter() - t0
    if compiled and not quiet:
        print(f"warmup: kernels ready ({seconds:.0f} s)", file=sys.stderr)
    return seconds


def exit_with_parent(poll_s: float = 1.0, parent: int | None = None) -> None:
    """End this process (exit status 1) within ``poll_s`` seconds of its parent's end.

    A group's process is a child of the app's server or of a warm-up driver; when that one
    is killed (a server stopped with Ctrl-C twice, or SIGKILL) the orphan would otherwise go
    on compiling for minutes on a machine the user believes idle. A daemon thread watches
    the parent's pid (an orphan is re-parented, so its parent pid changes). ``parent``: the
    pid the parent passed, which also catches a parent gone before this process got here."""
    if parent is None:
        parent = os.getppid()

    def watch() -> None:
        while os.getppid() == parent:
            time.sleep(poll_s)
        os._exit(1)

    threading.Thread(target=watch, name="exit-with-parent", daemon=True).start()


def main(argv: list[str] | None = None) -> int:
    """``python -m solver.warmup [--check] [--group G] [--jobs N]``: ``--check`` exits 0
    when the cache is warm (1 otherwise) without compiling anything."""
    parser = argparse.ArgumentParser(prog="python -m solver.warmup", description=__doc__)
    parser.add_argument("--check", action="store_true", help="exit 0 if warm, 1 if not")
    parser.add_argument("--group", choices=GROUPS, help="run one group in this process")
    parser.add_argument("--jobs", type=int, default=2, help="groups compiling at once")
    args = parser.parse_args(argv)
    if args.check:
        return 0 if is_warm() else 1
    if args.group is not None:
        exit_with_parent()
        with contextlib.suppress(ValueError, OSError):  # yield to a solve in the app's server
            os.nice(max(0, int(os.environ.get(NICE_ENV, "0"))))

        def announce() -> None:
            print(COMPILING, flush=True)
            print(
                f"warmup: compiling the solver's kernels ({args.group}; first run after an "
                "install or an edit of them: BENCHMARKS.md, 'Compile time', says how long)",
                file=sys.stderr,
                flush=True,
            )

        run_group(args.group, announce)
        return 0
    if not is_warm():
        warm_all(jobs=max(1, args.jobs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
