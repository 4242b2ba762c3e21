"""Leduc speed table: per algorithm, ms per iteration and iterations/seconds to 1e-3 and 1e-4.

Run: ``.venv/bin/python benchmarks/leduc.py [--game leduc] [--max-iterations 20000]``.

Columns:
* ``ms/iter``: best of several timed chunks of 500 iterations (both alternating passes);
* ``iters to X`` / ``s to X``: first checkpoint (every ``--every`` iterations) at or below X
  chips; seconds are the time spent in iterations only (``solve``) and the wall time with the
  exploitability checks included (``wall``);
* ``first solve``: a fresh ``python -m solver solve --game leduc --iterations 1`` process with
  the Numba cache warm, from launch to exit.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time

import numpy as np

from solver import Engine, make_game, make_rule
from solver.api import measure
from solver.cfr.rules import RULES

TARGETS = (1e-3, 1e-4)


def ms_per_iteration(game_name: str, rule_name: str, chunk: int = 500, reps: int = 7) -> float:
    engine = Engine(make_game(game_name), make_rule(rule_name))
    engine.iterate(5)
    best = float("inf")
    for _ in range(reps):
        t0 = time.perf_counter()
        engine.iterate(chunk)
        best = min(best, (time.perf_counter() - t0) / chunk)
    return best * 1e3


def time_to_targets(
    game_name: str, rule_name: str, every: int, max_iterations: int
) -> dict[float, tuple[int, float, float] | None]:
    """For each target: (iterations, solve seconds, wall seconds) or None if not reached."""
    engine = Engine(make_game(game_name), make_rule(rule_name))
    found: dict[float, tuple[int, float, float] | None] = dict.fromkeys(TARGETS)
    solve_s = 0.0
    started = time.perf_counter()
    while engine.iteration < max_iterations and any(v is None for v in found.values()):
        t0 = time.perf_counter()
        engine.iterate(every)
        solve_s += time.perf_counter() - t0
        cp = measure(engine, started)
        for target in TARGETS:
            if found[target] is None and cp.exploitability <= target:
                found[target] = (engine.iteration, solve_s, time.perf_counter() - started)
    return found


def first_solve_seconds() -> float:
    cmd = [sys.executable, "-m", "solver", "solve", "--game", "leduc", "--iterations", "1"]
    subprocess.run(cmd, check=True, capture_output=True)  # make sure the cache is warm
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, capture_output=True)
    return time.perf_counter() - t0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--game", default="leduc")
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--max-iterations", type=int, default=20_000)
    parser.add_argument("--algorithms", default=",".join(RULES))
    args = parser.parse_args()
    print(f"# {args.game}: machine {platform.machine()} {platform.processor() or ''}".rstrip())
    print(f"# python {platform.python_version()}, numpy {np.__version__}")
    print(f"# first solve (warm cache, process launch to exit): {first_solve_seconds():.2f} s")
    head = "| algorithm | ms/iter | iters to 1e-3 | s to 1e-3 (solve / wall) |"
    head += " iters to 1e-4 | s to 1e-4 (solve / wall) |"
    print(head)
    print("|---|---:|---:|---:|---:|---:|")
    for name in args.algorithms.split(","):
        ms = ms_per_iteration(args.game, name)
        found = time_to_targets(args.game, name, args.every, args.max_iterations)
        cells = []
        for target in TARGETS:
            hit = found[target]
            if hit is None:
                cells += [f"> {args.max_iterations}", "-"]
            else:
                cells += [str(hit[0]), f"{hit[1]:.3f} / {hit[2]:.3f}"]
        print(f"| {name} | {ms:.4f} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
