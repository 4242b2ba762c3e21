"""Per-iteration time of two source trees, side by side in one session (an A/B of a change).

Each run is a fresh process with ``PYTHONPATH`` set to one tree: it builds a spot of
:mod:`benchmarks.holdem` (T1 by default), runs a few iterations (compiling or loading that
tree's kernels), then times ``--iterations`` iterations of ``dcfr-tuned`` with the default
storage, checks left out. Runs alternate A, B, A, B … for ``--rounds`` rounds so the
machine's drift hits both alike; the table gives the median milliseconds per iteration, the
min–max spread and B / A::

    git worktree add /tmp/base HEAD
    python benchmarks/iteration_ab.py /tmp/base . --spots T1,F1s --threads 1,2
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def _one(spot: str, threads: int, iterations: int) -> None:
    import time

    sys.path.insert(0, str(HERE))
    from holdem import IP, OOP, SPOTS

    from solver import Engine, SolveOptions, make_rule
    from solver.games.holdem import HoldemSpec, build_holdem

    s = SPOTS[spot]
    game = build_holdem(HoldemSpec(board=s["board"], pot=200, stack=900, oop_range=OOP,
                                   ip_range=IP, bets=s["bets"], raises=s["raises"]))  # fmt: skip
    eng = Engine(
        game, make_rule("dcfr-tuned"), options=SolveOptions(threads=threads, precision="auto")
    )
    eng.iterate(4)
    t0 = time.perf_counter()
    eng.iterate(iterations)
    ms = (time.perf_counter() - t0) * 1e3 / iterations
    print(json.dumps({"ms": ms}))


def _run(tree: str, spot: str, threads: int, iterations: int) -> float:
    env = dict(os.environ, PYTHONPATH=str(Path(tree).resolve()))
    cmd = [sys.executable, __file__, "--one", spot, str(threads), str(iterations)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True).stdout
    return float(json.loads(out.strip().splitlines()[-1])["ms"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("a", nargs="?", help="source tree A (the baseline)")
    parser.add_argument("b", nargs="?", help="source tree B (the change)")
    parser.add_argument("--spots", default="T1")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--iterations", type=int, default=20)
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.one:
        _one(args.one[0], int(args.one[1]), int(args.one[2]))
        return 0
    if not args.a or not args.b:
        parser.error("two source trees expected")
    print(f"A = {args.a}, B = {args.b}; {args.rounds} rounds interleaved, "
          f"{args.iterations} iterations a run")  # fmt: skip
    print("| spot | threads | A ms/it | B ms/it | B / A |\n|---|---:|---|---|---:|")
    for spot in args.spots.split(","):
        for threads in (int(t) for t in args.threads.split(",")):
            _run(args.a, spot, threads, 1)  # compile or load each tree's kernels first
            _run(args.b, spot, threads, 1)
            a: list[float] = []
            b: list[float] = []
            for _ in range(args.rounds):
                a.append(_run(args.a, spot, threads, args.iterations))
                b.append(_run(args.b, spot, threads, args.iterations))
            ma, mb = statistics.median(a), statistics.median(b)
            cells = f"{ma:.2f} ({min(a):.2f}–{max(a):.2f}) | {mb:.2f} ({min(b):.2f}–{max(b):.2f})"
            print(f"| {spot} | {threads} | {cells} | {mb / ma:.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
