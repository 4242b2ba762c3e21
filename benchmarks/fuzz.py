"""Fuzz benchmark: ≥ 10,000 hostile inputs through every entry point of the fuzz suite
(``tests/fuzz/``), counted as tried / refused / accepted / escaped / slow (and heavy: a
refusal that allocated more than the bound while deciding), with the most memory a refusal
allocated. A refusal counts only when one of the project's own ``raise`` statements made it
(``tests/fuzz/fuzz_harness.py``).

Run: ``.venv/bin/python benchmarks/fuzz.py [--examples 10000] [--slow 5] [--only NAME,...]
[--no-memory] [--show]``. Deterministic (hypothesis ``derandomize``): the same inputs every
run. ``--show`` prints one example of each outcome per entry point (the first seen).
Prints a Markdown table; BENCHMARKS.md keeps the last one. Exit code 1 when any input
escaped, was slow or heavy.
"""

from __future__ import annotations

import argparse
import math
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "fuzz")]

import fuzz_harness  # noqa: E402
from fuzz_hostile_db import hostile_file, run_hostile  # noqa: E402
from fuzz_targets import Entry, entries, warm_up  # noqa: E402
from hypothesis import HealthCheck, Phase, given, settings  # noqa: E402


def _commit() -> str:
    try:
        out = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True
        )
        return out.stdout.strip() or "?"
    except OSError:
        return "?"


def _fuzz(entry: Entry, n: int, slow_s: float, memory: bool) -> None:
    """``n`` inputs of ``entry``'s strategy, each counted on its target."""

    @settings(
        max_examples=n,
        derandomize=True,
        database=None,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(entry.strategy)
    def body(value: object) -> None:
        fuzz_harness.run(entry.target, value, slow_s=slow_s, memory=memory)

    body()


def all_entries() -> list[Entry]:
    """The suite's entry points, and issue 45's crafted databases and saved solves on their
    own row (the crafted-files entry draws them too, among its other kinds): ~100 inputs
    over their 63 combinations of schema edit and command, saved solve and ``--load``."""
    hostile = fuzz_harness.Target(
        "crafted databases and saves", run_hostile, (fuzz_harness.Refusal,)
    )
    return [*entries(), Entry(hostile, hostile_file(), 0.01)]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--examples", type=int, default=10_000, help="inputs in all (default 10000)")
    p.add_argument("--slow", type=float, default=fuzz_harness.SLOW_S, help="seconds (default 5)")
    p.add_argument("--only", default=None, help="comma list of entry point names")
    p.add_argument("--no-memory", action="store_true", help="skip tracemalloc (faster)")
    p.add_argument("--show", action="store_true", help="print an example of each outcome")
    args = p.parse_args()
    chosen = all_entries()
    if args.only:
        wanted = {w.strip() for w in args.only.split(",")}
        chosen = [e for e in chosen if e.target.name in wanted]
    total_share = sum(e.share for e in chosen)
    warm_up()
    started = time.perf_counter()
    rows = []
    for entry in chosen:
        n = max(1, math.ceil(args.examples * entry.share / total_share))  # (≥ --examples)
        t0 = time.perf_counter()
        target = entry.target
        _fuzz(entry, n, args.slow, not args.no_memory)
        rows.append((target, time.perf_counter() - t0))
        c = target.counts
        print(f"# {target.name}: {sum(c.values())} inputs in {rows[-1][1]:.0f} s", file=sys.stderr)
    wall = time.perf_counter() - started
    print(f"# fuzz: {platform.node()}, {platform.processor() or platform.machine()}, "
          f"Python {platform.python_version()}, commit {_commit()}, {time.strftime('%Y-%m-%d')}; "
          f"slow = over {args.slow:g} s; heavy = a refusal allocating over "
          f"{fuzz_harness.REFUSAL_MEMORY_MB:.0f} MB; wall {wall:.0f} s")  # fmt: skip
    print()
    print("| entry point | tried | refused | accepted | escaped | slow | heavy | slowest input (s) "
          "| peak MB of a refusal | seconds |")  # fmt: skip
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    totals = dict.fromkeys(fuzz_harness.OUTCOMES, 0)
    for target, seconds in rows:
        c = target.counts
        for k in totals:
            totals[k] += c[k]
        print(f"| {target.name} | {sum(c.values()):,} | {c['refused']:,} | {c['accepted']:,} | "
              f"{c['escaped']} | {c['slow']} | {c['heavy']} | {target.slowest:.2f} | "
              f"{target.peak_mb:.1f} | {seconds:.0f} |")  # fmt: skip
    print(f"| **all** | **{sum(totals.values()):,}** | {totals['refused']:,} | "
          f"{totals['accepted']:,} | **{totals['escaped']}** | **{totals['slow']}** | "
          f"{totals['heavy']} | {max(t.slowest for t, _ in rows):.2f} | "
          f"{max(t.peak_mb for t, _ in rows):.1f} | {wall:.0f} |")  # fmt: skip
    if args.show:
        for target, _ in rows:
            for outcome, example in target.worst.items():
                print(f"\n[{target.name}] {outcome}: {example}")
    bad = totals["escaped"] + totals["slow"] + totals["heavy"]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
