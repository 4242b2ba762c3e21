"""Hold'em speed table: time and iterations to 1 %, 0.5 %, 0.3 % and 0.1 % of the pot.

Spots (the HUNL issue's fixed benchmark): board Td9d6h (+ Qc, + 2s), pot 200, stack 900,
the ranges below, every street and player betting 50 %, 100 %, all-in and raising 100 %,
all-in, no donk override, all thresholds 0. R1 = river, T1 = turn, F1s = flop with bets
50 %, all-in and raises all-in.

Run: ``.venv/bin/python benchmarks/holdem.py [--spots R1,T1] [--algorithms dcfr-tuned,dcfr]
[--threads 1,2] [--every 10] [--max-seconds 600]``. Each (spot, algorithm, threads) runs in a
fresh process so its peak memory (max RSS) is its own. Seconds count the iterations only
(``solve``) and with the exploitability checks (``wall``); the Numba cache is warmed first.
``solver MB`` is what the solve's arrays hold (regrets, strategy sums, scratch:
``Engine.memory_bytes``); ``peak MB`` is the process's max RSS, Python, NumPy, Numba and
LLVM included (~170 MB before any solve).
"""

from __future__ import annotations

import argparse
import json
import platform
import resource
import subprocess
import sys
import time

OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"
SPOTS = {
    "R1": {"board": "Td9d6hQc2s", "bets": "50%, 100%, a", "raises": "100%, a"},
    "T1": {"board": "Td9d6hQc", "bets": "50%, 100%, a", "raises": "100%, a"},
    "F1s": {"board": "Td9d6h", "bets": "50%, a", "raises": "a"},
}
TARGETS_PCT = (1.0, 0.5, 0.3, 0.1)


def run_one(
    spot: str, algorithm: str, threads: int, every: int, max_seconds: float, precision: str
) -> dict:
    """Solve one spot in this process; returns the measurements."""
    from solver import Engine, SolveOptions, make_rule
    from solver.api import measure
    from solver.games.holdem import HoldemSpec, build_holdem
    from solver.games.model import auto_precision

    sizes = SPOTS[spot]
    spec = HoldemSpec(
        board=sizes["board"], pot=200, stack=900, oop_range=OOP, ip_range=IP,
        bets=sizes["bets"], raises=sizes["raises"],
    )  # fmt: skip
    t0 = time.perf_counter()
    game = build_holdem(spec)
    build_s = time.perf_counter() - t0
    # load every kernel from the Numba cache before timing: tiny spots of the same types — a
    # turn (parallel passes with threads > 1) and a river (always serial: nothing to split) —
    # stored at the precision the spot's "auto" picks (the tiny ones alone would pick float64
    # and leave the float32 kernels to load inside the first timed iterations and check)
    warm_precision = (
        auto_precision(game.is_holdem, game.action_size) if precision == "auto" else precision
    )
    for board in ("Td9d6hQc", "Td9d6hQc2s"):
        warm = build_holdem(HoldemSpec(board=board, pot=200, stack=100, oop_range="AA,KK",
                                       ip_range="QQ,JJ", bets="a", raises=""))  # fmt: skip
        warm_engine = Engine(
            warm,
            make_rule(algorithm.partition(":")[0]),
            options=SolveOptions(threads=threads, precision=warm_precision),
        )
        warm_engine.iterate(1)
        measure(warm_engine, time.perf_counter())
    name, _, params = algorithm.partition(":")
    kw = {k: float(v) for k, v in (p.split("=") for p in params.split(";") if p)}
    engine = Engine(
        game, make_rule(name, **kw), options=SolveOptions(threads=threads, precision=precision)
    )
    found: dict[float, list[float] | None] = dict.fromkeys(TARGETS_PCT)
    solve_s = 0.0
    started = time.perf_counter()
    last = float("inf")
    while any(v is None for v in found.values()) and solve_s < max_seconds:
        t1 = time.perf_counter()
        engine.iterate(every)
        solve_s += time.perf_counter() - t1
        cp = measure(engine, started)
        last = 100.0 * cp.exploitability / 200.0
        for target in TARGETS_PCT:
            if found[target] is None and last <= target:
                found[target] = [engine.iteration, solve_s, time.perf_counter() - started]
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0
    return {
        "spot": spot,
        "algorithm": algorithm,
        "threads": threads,
        "nodes": game.num_nodes,
        "build_s": build_s,
        "ms_per_iter": 1e3 * solve_s / max(engine.iteration, 1),
        "found": {str(k): v for k, v in found.items()},
        "final_pct": last,
        "iterations": engine.iteration,
        "peak_mb": peak,
        "solver_mb": engine.memory_bytes / 1e6,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spots", default="R1,T1")
    parser.add_argument("--algorithms", default="dcfr-tuned,dcfr")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--every", type=int, default=10)
    parser.add_argument("--max-seconds", type=float, default=600.0)
    parser.add_argument(
        "--precision", default="auto", help="storage: auto (default), float32, float64, compressed"
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        spot, algorithm, threads = args.one.split("|")
        out = run_one(spot, algorithm, int(threads), args.every, args.max_seconds, args.precision)
        print(json.dumps(out))
        return
    # warm the Numba cache once
    subprocess.run(
        [sys.executable, "-m", "solver", "solve", "--preset", "srp-river", "--iterations", "2"],
        check=True,
        capture_output=True,
    )
    print(f"# machine {platform.machine()}, python {platform.python_version()}")
    print(f"# storage {args.precision}")
    head = "| spot | algorithm | threads | ms/iter |"
    head += "".join(f" {t}% pot (iters, s solve / wall) |" for t in TARGETS_PCT)
    print(head + " solver MB | peak MB |")
    print("|---|---|---:|---:|" + "---:|" * len(TARGETS_PCT) + "---:|---:|")
    for spot in args.spots.split(","):
        for algorithm in args.algorithms.split(","):
            for threads in args.threads.split(","):
                cmd = [
                    sys.executable, __file__, "--one", f"{spot}|{algorithm}|{threads}",
                    "--every", str(args.every), "--max-seconds", str(args.max_seconds),
                    "--precision", args.precision,
                ]  # fmt: skip
                res = json.loads(subprocess.run(cmd, check=True, capture_output=True).stdout)
                cells = []
                for t in TARGETS_PCT:
                    hit = res["found"][str(t)]
                    cells.append("-" if hit is None else f"{hit[0]}, {hit[1]:.3f} / {hit[2]:.3f}")
                print(
                    f"| {spot} | {algorithm} | {threads} | {res['ms_per_iter']:.2f} | "
                    + " | ".join(cells)
                    + f" | {res.get('solver_mb', 0.0):.1f} | {res['peak_mb']:.0f} |",
                    flush=True,
                )


if __name__ == "__main__":
    main()
