"""Compile (or load from the on-disk cache) every kernel variant the app, CLI and tests use.

A fresh checkout has an empty Numba cache, and a first solve compiles the traversal for its
storage types: ~40 s for Leduc, ~30 s more for a hold'em river, ~50 s more for parallel turn
passes (2-core machine). ``python -m solver warmup`` does that once, up front, on every core:
each group below runs in its own process (Numba's cache re-reads its index before every
save, so processes add their own signatures without losing each other's). With the cache
warm it returns in a few seconds.

Groups: ``toy`` (float64 storage: Kuhn, Leduc; every rule family, sampling, pruning, best
response, analysis), ``river`` (float32, float64 and 16-bit storage on a small river spot,
samplers, analysis with equities) and ``turn`` (parallel passes on a small turn spot).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable

GROUPS = ("toy", "river", "turn")


def _exercise(game: object, runs: list[tuple[str, dict]]) -> None:
    from solver.algorithms import make_solver
    from solver.analysis import analyze, compatible
    from solver.cfr.bestresponse import expected_values
    from solver.games.model import Game

    assert isinstance(game, Game)
    for name, kw in runs:
        eng = make_solver(game, name, **kw)
        # Total RBP: past its first checks (every 10) so catch-ups run and compile too
        eng.iterate(40 if kw.get("pruning") == "total" else 2)
        eng.best_response_values()
        sigma = eng.average_strategy()
        expected_values(eng.game, sigma)
    g = eng.game  # the last run's (a sampler's game deals every card)
    node = int(g.decision_nodes()[0])
    analyze(g, sigma, node, compat=compatible(g), with_equity=True)


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


def _spot(board: str) -> object:
    from solver.games.holdem import HoldemSpec, build_holdem

    return build_holdem(
        HoldemSpec(board=board, pot=200, stack=300, oop_range="AA, T9s, 87s",
                   ip_range="QQ, AKs, KQs", bets="50%, a", raises="a")
    )  # fmt: skip


def _river() -> None:
    game = _spot("Td9d6hQc2s")
    runs: list[tuple[str, dict]] = []
    for precision in ("float32", "float64", "compressed"):
        runs += [(r, {"precision": precision}) for r in ("cfr", "cfr+", "dcfr", "pcfr+")]
    for precision in ("float64", "float32"):
        runs += [(r, {"precision": precision}) for r in ("apcfr+", "dcfr-nh", "lcfr")]
        runs += [(r, {"pruning": "total", "precision": precision}) for r in ("cfr", "cfr+")]
        runs += [("cfr", {"pruning": "interval", "precision": precision})]
        runs += [
            (r, {"pruning": "total", "precision": precision, "rbp_free_opponent": True})
            for r in ("cfr", "cfr+")
        ]
    runs += [(r, {}) for r in ("mccfr-es", "mccfr-os", "dmccfr")]
    _exercise(game, runs)


def _turn() -> None:
    game = _spot("Td9d6hQc")
    runs: list[tuple[str, dict]] = []
    for threads in (1, 2):
        for precision in ("float64", "float32"):
            kw = {"threads": threads, "precision": precision}
            runs += [(r, kw) for r in ("cfr", "cfr+", "dcfr", "pcfr+", "lcfr")]
    runs += [("dcfr", {"threads": 2, "precision": "compressed"}), ("mccfr-cs", {})]
    _exercise(game, runs)


RUNNERS: dict[str, Callable[[], None]] = {"toy": _toy, "river": _river, "turn": _turn}


def run_group(name: str) -> None:
    """Exercise one group's kernels in this process."""
    RUNNERS[name]()


def warm_all(jobs: int = 2, quiet: bool = False) -> float:
    """Run every group, ``jobs`` processes at a time; returns the wall seconds."""
    t0 = time.perf_counter()
    pending = list(GROUPS)
    running: list[tuple[str, subprocess.Popen[bytes]]] = []
    failed: list[str] = []
    while pending or running:
        while pending and len(running) < max(1, jobs):
            g = pending.pop(0)
            cmd = [sys.executable, "-m", "solver", "warmup", "--group", g]
            running.append((g, subprocess.Popen(cmd)))
        g, proc = running.pop(0)
        if proc.wait() != 0:
            failed.append(g)
    if failed:
        raise RuntimeError(f"warm-up failed for: {', '.join(failed)}")
    seconds = time.perf_counter() - t0
    if not quiet:
        print(f"kernels ready ({seconds:.0f} s)", file=sys.stderr)
    return seconds
