"""Batch benchmarks (issue 19): scaling over workers, Dask's per-task overhead, the 49-flop
``srp-flop`` report, and how well each flop subset's aggregate matches all 1,755 flops.

Run (each prints a markdown table; the machine should be otherwise idle)::

    .venv/bin/python benchmarks/batch.py scaling [--flops 25] [--rounds 2] [--iterations 100]
    .venv/bin/python benchmarks/batch.py overhead [--tasks 200]
    .venv/bin/python benchmarks/batch.py srp [--flops 49] [--target 5%] [--db FILE]
    .venv/bin/python benchmarks/batch.py all --db FILE        # the small tree on 1,755 flops
    .venv/bin/python benchmarks/batch.py subsets --db FILE    # subsets against that database
    .venv/bin/python benchmarks/batch.py summary [--flops Td9d6h,AsKh7d] [--iterations 30]

``scaling`` runs the same batch (the small tree below, a fixed iteration count so every run
does the same work) with 1 and 2 workers, interleaved, each on a fresh database; flops per
minute count from the first task sent to the last result (cluster start-up and kernel loading
shown apart). ``overhead`` times no-op Dask tasks (one at a time: the round trip; all at once:
the throughput) and the batch's own overhead per flop (driver wall × workers − the tasks'
seconds, per flop). ``srp`` solves the ``srp-flop`` preset on a subset to a coarse target and
projects the wall time to 16 and 64 cores from the tasks' own seconds: between
``max(Σ/cores, longest task)`` (perfect packing) and ``Σ/cores + longest task`` (the bound for
biggest-first scheduling). ``subsets`` reads a database of all 1,755 flops (``all``) and
prints each subset's weighted aggregate against the full one, with the spread of random
subsets of the same size for comparison. ``summary`` measures a flop's tree summary against
its solve, the two figures a batch's estimate uses (``SUMMARY_ITERATIONS`` and
``SUMMARY_BYTES_PER_NODE`` in ``solver/batch/spec.py``): the summary's seconds in one-thread
iterations of the same tree, and its stored bytes per tree node.
"""

from __future__ import annotations

import argparse
import os
import platform
import random
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from solver.batch.driver import BatchProgress, run_batch  # noqa: E402
from solver.batch.report import aggregate  # noqa: E402
from solver.batch.spec import BatchError, BatchSpec, check  # noqa: E402
from solver.batch.store import BatchStore, FlopRow  # noqa: E402
from solver.files.presets import load_preset  # noqa: E402
from solver.games.holdem import HoldemSpec  # noqa: E402
from solver.poker.flops import SUBSET_SIZES, all_flops, subset  # noqa: E402

SMALL = HoldemSpec(
    board="",
    pot=100,
    stack=100,
    oop_range="66+, A8s+, A5s-A4s, AJo+, K9s+, KQo, QTs+, JTs, 98s, 87s",
    ip_range="QQ-22, AQs-A2s, ATo+, K9s+, KJo+, QTs+, JTs, T9s, 98s",
    bets="a",
    raises="a",
    name="small tree (SPR 1, check or all-in)",
)
"""The small tree: SRP-like ranges (~150 and ~200 combos), stack = pot, every bet all-in."""

METRICS = {
    "oop b:100": "OOP jams (%)",
    "ip vs k: b:100": "IP jams after a check (%)",
    "oop_ev": "OOP EV (chips)",
    "oop_equity": "OOP equity (%)",
}


def _git_commit() -> str:
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                             capture_output=True, text=True, check=True)  # fmt: skip
        return out.stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return "?"


def _header(what: str) -> None:
    print(
        f"# {what} — {time.strftime('%Y-%m-%d')}, commit {_git_commit()}, "
        f"{os.cpu_count()} cores, {platform.machine()}, Python {platform.python_version()}"
    )
    print()


def _run(spec: BatchSpec, workers: int) -> tuple[BatchProgress, float, list[FlopRow]]:
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "b.db"
        t0 = time.perf_counter()
        p = run_batch(spec, db, workers=workers)
        wall = time.perf_counter() - t0
        with BatchStore.open(db) as store:
            rows = store.rows()
    return p, wall, rows


def cmd_scaling(args: argparse.Namespace) -> None:
    spec = BatchSpec(SMALL, flops=str(args.flops), target_pct=None,
                     max_iterations=args.iterations, check_every=args.iterations)  # fmt: skip
    check(spec, estimate_memory=False)  # bad input: a message before the table starts
    _header(f"Batch scaling: {SMALL.name}, {args.flops} flops, {args.iterations} iterations")
    print("| round | workers | flops | solving s | flops/min | start-up s | Σ task s |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    rates: dict[int, list[float]] = {1: [], 2: []}
    for r in range(args.rounds):
        for workers in (1, 2) if r % 2 == 0 else (2, 1):
            p, wall, rows = _run(spec, workers)
            rate = p.done / p.elapsed_s * 60.0
            rates[workers].append(rate)
            tasks = sum(x.seconds for x in rows)
            print(f"| {r + 1} | {workers} | {p.done} | {p.elapsed_s:.1f} | {rate:.1f} | "
                  f"{wall - p.elapsed_s:.1f} | {tasks:.1f} |", flush=True)  # fmt: skip
    one = sum(rates[1]) / len(rates[1])
    two = sum(rates[2]) / len(rates[2])
    print()
    print(f"Scaling 2 workers / 1 worker: {two / one:.2f}× ({two:.1f} vs {one:.1f} flops/min)")


def _noop(x: int) -> int:
    return x


def cmd_overhead(args: argparse.Namespace) -> None:
    from distributed import Client, LocalCluster, wait

    _header("Dask per-task overhead (LocalCluster, 2 workers × 1 thread)")
    t0 = time.perf_counter()
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                      dashboard_address=None) as cluster, Client(cluster) as client:  # fmt: skip
        start = time.perf_counter() - t0
        client.submit(_noop, -1, pure=False).result()
        t = time.perf_counter()
        for i in range(args.tasks // 4):
            client.submit(_noop, i, pure=False).result()
        serial = (time.perf_counter() - t) / (args.tasks // 4)
        t = time.perf_counter()
        futs = [client.submit(_noop, i, pure=False) for i in range(args.tasks)]
        wait(futs)
        burst = (time.perf_counter() - t) / args.tasks
    print("| measure | ms |")
    print("|---|---:|")
    print(f"| LocalCluster start-up (2 workers) | {1000 * start:.0f} |")
    print(f"| no-op task, one at a time (round trip) | {1000 * serial:.2f} |")
    print(f"| no-op task, {args.tasks} at once (per task) | {1000 * burst:.2f} |")
    spec = BatchSpec(SMALL, flops="25", target_pct=None, max_iterations=50, check_every=50)
    p, _, rows = _run(spec, 2)
    tasks = sum(x.seconds for x in rows)
    per = (p.elapsed_s * 2 - tasks) / p.done
    print(f"| batch of 25 small-tree flops: driver overhead per flop (wall × 2 − Σ task s) / n "
          f"| {1000 * per:.0f} |")  # fmt: skip
    print(f"| … against the mean task | {1000 * tasks / p.done:.0f} |")


def cmd_srp(args: argparse.Namespace) -> None:
    preset = load_preset("srp-flop").holdem
    assert preset is not None
    target = float(args.target.rstrip("%"))
    spec = BatchSpec(replace(preset, board=""), flops=str(args.flops), target_pct=target,
                     max_iterations=args.iterations, name="srp-flop")  # fmt: skip
    check(spec, estimate_memory=False)
    db = Path(args.db) if args.db else Path(tempfile.mkdtemp()) / "srp.db"
    _header(f"srp-flop on {args.flops} flops, target {target}% pot, 2 workers")
    t0 = time.perf_counter()
    p = run_batch(spec, db, workers=2)
    wall = time.perf_counter() - t0
    with BatchStore.open(db) as store:
        rows = store.rows("done")
    secs = [r.seconds for r in rows]
    total, longest = sum(secs), max(secs)
    iters = [r.summary["iterations"] for r in rows]
    mem = max(r.summary["memory_bytes"] for r in rows) / 2**20
    agg = aggregate(rows)["values"]
    print("| measure | value |")
    print("|---|---:|")
    print(f"| flops solved (skipped: already in {db.name}) | {p.done - p.skipped} ({p.skipped}) |")
    print(f"| wall time, this machine (start-up included) | {wall / 60:.1f} min |")
    print(f"| Σ task seconds / mean / longest | {total:.0f} / {total / len(secs):.1f} / "
          f"{longest:.1f} s |")  # fmt: skip
    print(f"| iterations per flop: mean / max | {sum(iters) / len(iters):.0f} / {max(iters)} |")
    print(f"| solver memory, biggest flop | {mem:.0f} MB |")
    for cores in (16, 64):
        lo = max(total / cores, longest)
        hi = total / cores + longest
        span = f"{lo / 60:.1f}–{hi / 60:.1f} min"
        print(f"| projected wall, {cores} cores (1 worker each) | {span} |")
    print(f"| aggregate: OOP bets (any size) | "
          f"{100 * sum(v for k, v in agg.items() if k.startswith('oop b:')):.1f}% |")  # fmt: skip
    print(f"| aggregate: OOP EV / equity | {agg['oop_ev']:.1f} chips / "
          f"{100 * agg['oop_equity']:.1f}% |")  # fmt: skip


def cmd_summary(args: argparse.Namespace) -> None:
    from solver.algorithms import SolveOptions, make_solver
    from solver.batch.spec import SUMMARY_BYTES_PER_NODE, SUMMARY_ITERATIONS
    from solver.batch.summary import summarize_tree
    from solver.batch.treedata import encode
    from solver.games.holdem import build_holdem

    preset = load_preset("srp-flop").holdem
    assert preset is not None
    _header(f"srp-flop tree summaries after {args.iterations} iterations, one thread")
    print("| flop | tree nodes | nodes kept | iteration s | summary s | summary / iteration "
          "| on disk | bytes / tree node |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|")
    for flop in args.flops.split(","):
        game = build_holdem(replace(preset, board=flop.strip()))
        eng = make_solver(game, "dcfr-tuned", {}, options=SolveOptions(threads=1))
        eng.iterate(max(args.iterations - 5, 1))
        t0 = time.perf_counter()
        eng.iterate(5)
        per = (time.perf_counter() - t0) / 5
        sigma = eng.average_strategy()
        del eng
        t0 = time.perf_counter()
        ts = summarize_tree(game, sigma)
        took = time.perf_counter() - t0
        size = len(encode(ts))
        nodes = int(game.tree.kind.size)
        print(f"| {flop.strip()} | {nodes:,} | {len(ts.arrays['reach']):,} | {per:.3f} | "
              f"{took:.1f} | {took / per:.0f} | {size / 1e6:.2f} MB | {size / nodes:.1f} |",
              flush=True)  # fmt: skip
    print(f"\nThe estimate uses {SUMMARY_ITERATIONS} iterations and {SUMMARY_BYTES_PER_NODE} "
          "bytes per node.")  # fmt: skip


def cmd_all(args: argparse.Namespace) -> None:
    spec = BatchSpec(SMALL, flops="all", target_pct=1.0, max_iterations=1000, name="small")
    t0 = time.perf_counter()
    p = run_batch(spec, args.db, workers=2)
    print(f"{p.done} flops in {(time.perf_counter() - t0) / 60:.1f} min -> {args.db}")


def _values(rows: dict[str, FlopRow], flops: list, metric: str) -> float:
    picked = [replace(rows[f.text], weight=f.weight) for f in flops]
    v = aggregate(picked)["values"].get(metric, float("nan"))
    return 100 * v if metric != "oop_ev" else v


def cmd_subsets(args: argparse.Namespace) -> None:
    with BatchStore.open(args.db) as store:
        rows = {r.flop: r for r in store.rows("done")}
        tpl = store.spec.template
        name = f"pot {tpl.pot}, stack {tpl.stack}, bets {tpl.bets}"
    full = list(all_flops())
    missing = [f.text for f in full if f.text not in rows]
    if missing:
        sys.exit(f"{args.db} lacks {len(missing)} of the 1,755 flops (run 'all' first)")
    _header(f"Flop subsets against all 1,755 flops: {name}, target 1% pot")
    truth = {m: _values(rows, full, m) for m in METRICS}
    rng = random.Random(0)
    weights = [f.weight for f in full]
    head = " | ".join(f"{label}" for label in METRICS.values())
    print(f"| flops | {head} |")
    print("|---|" + "---:|" * len(METRICS))
    print("| all 1,755 | " + " | ".join(f"{truth[m]:.2f}" for m in METRICS) + " |")
    for n in SUBSET_SIZES:
        ours = subset(n)
        diffs = [_values(rows, list(ours), m) - truth[m] for m in METRICS]
        spread = []
        for m in METRICS:
            errs = []
            for _ in range(args.draws):
                # n random raw flops (a canonical flop drawn with its weight), equal weights
                picks = Counter(rng.choices(range(len(full)), weights=weights, k=n))
                draw = [replace(full[i], weight=float(c)) for i, c in picks.items()]
                errs.append(_values(rows, draw, m) - truth[m])
            spread.append((sum(e * e for e in errs) / len(errs)) ** 0.5)
        cells = " | ".join(
            f"{d:+.2f} (random ±{s:.2f})" for d, s in zip(diffs, spread, strict=True)
        )
        print(f"| {n} (ours − all) | {cells} |")
    print()
    sizes = "/".join(map(str, SUBSET_SIZES))
    print(f"Random: RMS error of {args.draws} draws of {sizes} random raw flops (each "
          "of the 22,100 equally likely), weighted equally.")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("scaling")
    s.add_argument("--flops", default="25")
    s.add_argument("--rounds", type=int, default=2)
    s.add_argument("--iterations", type=int, default=100)
    o = sub.add_parser("overhead")
    o.add_argument("--tasks", type=int, default=200)
    r = sub.add_parser("srp")
    r.add_argument("--flops", default="49")
    r.add_argument("--target", default="5%")
    r.add_argument("--iterations", type=int, default=1000)
    r.add_argument("--db", default=None)
    a = sub.add_parser("all")
    a.add_argument("--db", required=True)
    b = sub.add_parser("subsets")
    b.add_argument("--db", required=True)
    b.add_argument("--draws", type=int, default=200)
    m = sub.add_parser("summary")
    m.add_argument("--flops", default="Td9d6h,AsKh7d")
    m.add_argument("--iterations", type=int, default=30)
    args = parser.parse_args()
    if args.cmd == "srp":
        try:
            target = float(args.target.rstrip("%"))
        except ValueError:
            parser.error(f"--target: a % of the pot such as 5%, got {args.target!r}")
        if not 0 < target < 1e6:
            parser.error(f"--target: must be a positive % of the pot, got {args.target!r}")
    try:
        {"scaling": cmd_scaling, "overhead": cmd_overhead, "srp": cmd_srp, "all": cmd_all,
         "subsets": cmd_subsets, "summary": cmd_summary}[args.cmd](args)  # fmt: skip
    except BatchError as exc:  # e.g. --flops 12 (not a subset size): a message, no traceback
        parser.error(f"--{exc.field.replace('_', '-')}: {exc.message}")


if __name__ == "__main__":
    main()
