"""Scaling: iterations per second at 1 and 2 threads, each thread's idle share, and a
projection to 8 and 16 cores from the measured serial part and the tasks' sizes.

One command (issue 50, "Measure first", item 3)::

    .venv/bin/python benchmarks/scaling.py [--spots T1,F1s,F3] [--threads 1,2]
        [--warmup 4] [--iterations 10] [--rounds 3] [--project 8,16] [--json]

Per spot (:mod:`benchmarks.floor`'s: T1, F1s and F3, F1s's flop with three bet sizes),
``dcfr-tuned`` with the default storage and pruning, no checks: each thread count runs
``--warmup`` iterations, then ``--iterations`` timed, ``--rounds`` times interleaved
(1, 2, 1, 2 …; the median is printed). A split solve keeps each thread's time
(:attr:`~solver.cfr.engine.Engine.thread_times`): thread 0 collects the reach at the cut
and finishes the upper tree (the serial part), every thread runs tasks, and waits — thread
0 for the other threads' last tasks, the others for thread 0's upper-tree steps and the
next pass. The idle share is a thread's waiting / its wall time.

**The projection** (a model, printed with its inputs). A pass on ``p`` threads takes the
serial upper tree ``S`` (thread 0's collect + finish per pass, measured at the largest
thread count run) plus the tasks' makespan: the tasks, sized by their subtrees' work in
hand-cells (:func:`~solver.cfr.parallel.subtree_costs`, a runout one hands × hands
product), are claimed biggest first by whichever thread is free (the engine's order), so
the makespan is list scheduling's on ``p`` threads, scaled so that the tasks' total is
the measured task time per pass (all threads' together). Assumed: a thread's task speed
stays what it was at the measured thread count (memory bandwidth per core holds: the
floor's triad says how far it does on this machine), the synchronisation stays what it
cost there (its measured per-pass remainder, ``sync``), no other load. The bounds: Amdahl's
``1 / (s + (1 − s)/p)`` with ``s`` = S / one thread's pass, and ``pass / (S + largest
task)``, which no number of threads beats. Timings mean nothing on a loaded machine.
"""

from __future__ import annotations

import argparse
import heapq
import json
import os
import statistics
import sys
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the solver package, when run as a script
sys.path.insert(0, str(HERE))

import floor  # noqa: E402

from solver.games.model import RUNOUT, Game  # noqa: E402


def task_costs(game: Game, threads: int) -> npt.NDArray[np.float64]:
    """(K,) each task's work in hand-cells when ``game``'s passes split over ``threads``
    threads, in the order the threads claim them (biggest first)."""
    from solver.cfr.parallel import make_parallel, subtree_costs

    par = make_parallel(game, max(threads, 2))
    nodes = par.task_node
    if nodes.size == 0:
        return np.zeros(0)
    cost = subtree_costs(game.tree, game.hands, game.parents)[nodes].astype(np.float64)
    runout = game.tree.kind[nodes] == RUNOUT
    cost[runout] = float(game.hands.num_hands[0]) * float(game.hands.num_hands[1])
    return np.asarray(cost[par.leaves.order], dtype=np.float64)


def makespan(costs: npt.NDArray[np.float64], p: int) -> float:
    """The tasks ``costs`` (in claim order) run by ``p`` threads, each claiming the next
    when it is free: when the last one finishes."""
    if costs.size == 0:
        return 0.0
    free = [0.0] * p
    for c in costs:
        t = heapq.heappop(free)
        heapq.heappush(free, t + float(c))
    return max(free)


def project(
    one_pass_ms: float, serial_ms: float, tasks_ms: float, sync_ms: float,
    costs: npt.NDArray[np.float64], ps: list[int],
) -> dict[int, dict[str, float]]:  # fmt: skip
    """Per thread count p: the projected pass (ms) and speed-up over one thread's pass, the
    Amdahl bound and the largest task's bound (module docstring). ``tasks_ms``: every
    thread's task time per pass together; ``serial_ms``: the upper tree's; ``sync_ms``:
    what a pass cost beyond both at the measured thread count."""
    total = float(costs.sum())
    scale = tasks_ms / total if total > 0 else 0.0
    s = serial_ms / one_pass_ms if one_pass_ms > 0 else 0.0
    largest = float(costs.max()) * scale if costs.size else 0.0
    out = {}
    for p in ps:
        t = serial_ms + makespan(costs, p) * scale + sync_ms
        out[p] = {
            "pass_ms": t,
            "speedup": one_pass_ms / t if t > 0 else 0.0,
            "amdahl": 1.0 / (s + (1.0 - s) / p) if s < 1.0 else 1.0,
            "task_bound": one_pass_ms / (serial_ms + largest) if serial_ms + largest > 0 else 0.0,
        }
    return out


def run(game: Game, threads: int, warmup: int, iterations: int) -> dict[str, Any]:
    """One timed run: ms per iteration and, split, each thread's ms per iteration by what
    it did (and its idle share)."""
    import time

    from solver import Engine, SolveOptions
    from solver.cfr.rules import make_rule

    eng = Engine(game, make_rule(floor.RULE), options=SolveOptions(threads=threads))
    eng.iterate(warmup)
    eng.parallel.times[:] = 0
    t0 = time.perf_counter_ns()
    eng.iterate(iterations)
    ms = (time.perf_counter_ns() - t0) * 1e-6 / iterations
    rows = [
        {k: (v * 1e3 / iterations if k not in ("passes", "idle") else v) for k, v in r.items()}
        for r in eng.thread_times
    ]
    return {"ms": ms, "threads": rows if threads > 1 else []}


def _ints(text: str, name: str, parser: argparse.ArgumentParser, hi: int | None) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        parser.error(f"{name}: whole numbers separated by commas, got {text!r}")
    if not out or any(n < 1 or (hi is not None and n > hi) for n in out):
        top = f" and this machine's {hi} cores" if hi is not None else ""
        parser.error(f"{name}: each between 1{top}, got {text!r}")
    return out


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spots", default="T1,F1s,F3", help="R1, T1, F1s, F3")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--project", default="8,16", help="thread counts to project to")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.spots = [s.strip() for s in args.spots.split(",") if s.strip()]
    if not args.spots:
        parser.error("--spots: at least one spot expected")
    for s in args.spots:
        try:
            floor.spot_spec(s)
        except KeyError:
            parser.error(f"--spots: unknown spot {s!r} (R1, T1, F1s, F3)")
    args.threads = _ints(args.threads, "--threads", parser, os.cpu_count() or 1)
    if 1 not in args.threads:
        parser.error("--threads: 1 is needed (the projection's baseline)")
    args.project = _ints(args.project, "--project", parser, None)
    for name in ("warmup", "iterations", "rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}: must be ≥ 1, got {getattr(args, name)}")
    if args.iterations % 2 or args.warmup % 2:
        parser.error("--iterations and --warmup: even numbers (dcfr-tuned's average takes "
                     "every second iteration)")  # fmt: skip
    return args


def spot_report(spot: str, args: argparse.Namespace) -> dict[str, Any]:
    game = floor.build_spot(spot)
    runs: dict[int, list[dict[str, Any]]] = {n: [] for n in args.threads}
    for _ in range(args.rounds):
        for n in args.threads:
            runs[n].append(run(game, n, args.warmup, args.iterations))
    out: dict[str, Any] = {"spot": spot, "nodes": game.num_nodes, "threads": {}}
    for n, rs in runs.items():
        mid = sorted(rs, key=lambda r: r["ms"])[len(rs) // 2]  # the median run, whole
        out["threads"][n] = {"ms": statistics.median(r["ms"] for r in rs),
                             "per_thread": mid["threads"]}  # fmt: skip
    top = max(args.threads)
    one = out["threads"][1]["ms"] / 2.0  # a pass: half an iteration
    costs = task_costs(game, top)
    out["tasks"] = {
        "count": int(costs.size),
        "largest_share": float(costs.max() / costs.sum()) if costs.size else 0.0,
    }
    rows = out["threads"][top]["per_thread"]
    if top > 1 and rows:
        serial = (rows[0]["collect"] + rows[0]["finish"]) / 2.0
        tasks = sum(r["tasks"] for r in rows) / 2.0
        measured = out["threads"][top]["ms"] / 2.0
        sync = max(measured - serial - makespan(costs, top) * (tasks / costs.sum()), 0.0)
        out["model"] = {"serial_ms": serial, "tasks_ms": tasks, "sync_ms": sync,
                        "one_pass_ms": one, "measured_pass_ms": measured}  # fmt: skip
        out["projection"] = project(one, serial, tasks, sync, costs, [top, *args.project])
    return out


def _print(r: dict[str, Any]) -> None:
    print(f"\n## {r['spot']}: {r['nodes']:,} nodes, {r['tasks']['count']} tasks a pass "
          f"(the largest {100 * r['tasks']['largest_share']:.1f} % of the work)")  # fmt: skip
    one = r["threads"][1]["ms"]
    print("\n| threads | ms / iteration | iterations / s | speed-up | idle share per thread |\n"
          "|---:|---:|---:|---:|---|")  # fmt: skip
    for n, t in r["threads"].items():
        idle = ", ".join(f"{100 * x['idle']:.1f} %" for x in t["per_thread"]) or "-"
        print(f"| {n} | {t['ms']:.2f} | {1e3 / t['ms']:.1f} | {one / t['ms']:.2f}× | {idle} |")
    for n, t in r["threads"].items():
        if t["per_thread"]:
            print(f"\n{n} threads, ms per iteration:\n\n| thread | collect | tasks | wait | "
                  "finish |\n|---:|---:|---:|---:|---:|")  # fmt: skip
            for i, x in enumerate(t["per_thread"]):
                print(f"| {i} | {x['collect']:.3f} | {x['tasks']:.3f} | {x['wait']:.3f} | "
                      f"{x['finish']:.3f} |")  # fmt: skip
    m = r.get("model")
    if m:
        print(f"\nProjection inputs per pass: one thread {m['one_pass_ms']:.3f} ms; serial "
              f"upper tree S = {m['serial_ms']:.3f} ms; all threads' tasks "
              f"{m['tasks_ms']:.3f} ms; synchronisation left over {m['sync_ms']:.3f} ms "
              f"(measured pass {m['measured_pass_ms']:.3f} ms)")  # fmt: skip
        print("\n| threads | projected ms / pass | speed-up | Amdahl bound | largest-task "
              "bound |\n|---:|---:|---:|---:|---:|")  # fmt: skip
        for p, x in r["projection"].items():
            print(f"| {p} | {x['pass_ms']:.3f} | {x['speedup']:.2f}× | {x['amdahl']:.2f}× | "
                  f"{x['task_bound']:.2f}× |")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    reports = []
    for spot in args.spots:
        print(f"# {spot} …", file=sys.stderr, flush=True)
        reports.append(spot_report(spot, args))
    if args.json:
        print(json.dumps({"spots": reports}))
        return 0
    print(f"# {os.cpu_count()} cores; rule {floor.RULE}; median of {args.rounds} rounds of "
          f"{args.iterations} iterations after {args.warmup}")  # fmt: skip
    for r in reports:
        _print(r)
    print("\nAssumed in the projection: task speed per thread and the synchronisation's cost "
          "as measured at the largest thread count run; tasks claimed biggest first by the "
          "next free thread; no other load.")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
