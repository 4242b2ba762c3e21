"""OpenSpiel's C++ CFR and CFR+ on Leduc, measured here for the solver-core comparison.

Run: ``.venv/bin/python benchmarks/openspiel_leduc.py [--iterations 5000] [--every 500]``.

Uses ``pyspiel.CFRSolver`` / ``pyspiel.CFRPlusSolver`` (OpenSpiel's C++ solvers; OpenSpiel is
a test-only dependency) and ``pyspiel.exploitability`` (NashConv / 2, chips) of the average
policy. Prints ms per iteration (iterations only) and the exploitability at each checkpoint,
next to ours (``solver`` with the same rule, alternating updates) at the same iterations.
"""

from __future__ import annotations

import argparse
import platform
import time

import pyspiel

from solver import Engine, make_game, make_rule
from solver.api import measure


def openspiel_run(name: str, iterations: int, every: int) -> tuple[float, dict[int, float]]:
    game = pyspiel.load_game("leduc_poker")
    solver = pyspiel.CFRSolver(game) if name == "cfr" else pyspiel.CFRPlusSolver(game)
    spent = 0.0
    found: dict[int, float] = {}
    for t in range(1, iterations + 1):
        t0 = time.perf_counter()
        solver.evaluate_and_update_policy()
        spent += time.perf_counter() - t0
        if t % every == 0:
            found[t] = float(pyspiel.exploitability(game, solver.average_policy()))
    return 1e3 * spent / iterations, found


def ours(name: str, iterations: int, every: int) -> tuple[float, dict[int, float]]:
    engine = Engine(make_game("leduc"), make_rule(name))
    engine.iterate(1)
    engine = Engine(make_game("leduc"), make_rule(name))  # kernels loaded; start over
    spent = 0.0
    found: dict[int, float] = {}
    while engine.iteration < iterations:
        t0 = time.perf_counter()
        engine.iterate(every)
        spent += time.perf_counter() - t0
        found[engine.iteration] = measure(engine, time.perf_counter()).exploitability
    return 1e3 * spent / iterations, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--iterations", type=int, default=5000)
    parser.add_argument("--every", type=int, default=500)
    args = parser.parse_args()
    print(f"# machine {platform.machine()}, python {platform.python_version()}")
    print(f"# leduc, {args.iterations:,} iterations; exploitability in chips (NashConv / 2)\n")
    checks = list(range(args.every, args.iterations + 1, args.every))
    head = "| solver | rule | ms/iter | " + " | ".join(f"at {t:,}" for t in checks) + " |"
    print(head)
    print("|---|---|---:|" + "---:|" * len(checks))
    for name in ("cfr", "cfr+"):
        for label, fn in (("OpenSpiel C++", openspiel_run), ("Regret Lab", ours)):
            ms, found = fn(name, args.iterations, args.every)
            cells = " | ".join(f"{found[t]:.3g}" for t in checks)
            print(f"| {label} | {name} | {ms:.3f} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
