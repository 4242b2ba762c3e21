"""Compile time of every kernel: what a fresh install, a developer's edit and CI pay.

Runs the warm-up's groups (:mod:`solver.run.warmup`) from an empty Numba cache (a temporary
directory, unless ``--cache DIR``), each group in its own process as the warm-up does,
``--jobs`` at a time, and records every compilation Numba starts (its ``numba:compile``
events): the kernel, the signature, the seconds spent in it less the seconds of the kernels
it compiled on the way (a callee compiles inside its first caller), and the bytes of machine
code it left in the cache. Prints one table (kernel, signatures, seconds, MB) and the wall
time of each group and of the whole warm-up::

    python benchmarks/compile.py                 # every group, 2 processes at a time
    python benchmarks/compile.py --groups opening --jobs 1
    python benchmarks/compile.py --json out.json # the raw events too

Seconds are CPU-bound but not CPU seconds: two groups compiling at once on a 2-core machine
each run at about full speed, a third would not. Compare figures from one session only.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.run.warmup import GROUPS  # noqa: E402


def _record_group(group: str, out: Path) -> None:
    """Run one warm-up group in this process and write its compile events to ``out``."""
    from numba.core import event

    from solver.run import warmup

    stack: list[dict] = []
    done: list[dict] = []

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            d = ev.data
            disp = d["dispatcher"]
            py = disp.py_func
            stack.append(
                {
                    "kernel": f"{py.__module__}.{py.__qualname__}",
                    "signature": ", ".join(str(a) for a in d["args"]),
                    "start": time.perf_counter(),
                    "children": 0.0,
                }
            )

        def on_end(self, ev: event.Event) -> None:
            rec = stack.pop()
            inclusive = time.perf_counter() - rec.pop("start")
            rec["seconds"] = inclusive - rec.pop("children")
            rec["inclusive"] = inclusive
            if stack:
                stack[-1]["children"] += inclusive
            done.append(rec)

    event.register("numba:compile", Listener())
    t0 = time.perf_counter()
    warmup.run_group(group)
    out.write_text(json.dumps({"group": group, "wall": time.perf_counter() - t0, "events": done}))


def _sizes(cache: Path) -> dict[str, int]:
    """Bytes of cached machine code per kernel (``module.function``), from the ``.nbc`` files
    Numba writes (``<module>.<function>-<line>.py<ver>.<n>.nbc``)."""
    sizes: dict[str, int] = defaultdict(int)
    for p in cache.rglob("*.nbc"):
        folder = p.parent.name.rsplit("_", 1)[0]  # cfr_<hash of the folder's path>
        stem = p.name.split("-")[0]  # walk.walk
        sizes[f"{folder}.{stem}"] += p.stat().st_size
    return sizes


def _size(sizes: dict[str, int], kernel: str) -> int:
    """``kernel``'s bytes: ``solver.cfr.walk.walk`` is ``cfr.walk.walk`` in :func:`_sizes`."""
    return sizes.get(".".join(kernel.split(".")[-3:]), 0)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--groups", default=",".join(GROUPS), help="comma-separated groups")
    parser.add_argument("--jobs", type=int, default=2, help="groups compiling at once")
    parser.add_argument("--cache", help="Numba cache directory (default: a fresh temp one)")
    parser.add_argument("--json", help="write the raw events here")
    parser.add_argument("--record", nargs=2, metavar=("GROUP", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.record:
        _record_group(args.record[0], Path(args.record[1]))
        return 0
    groups = [g for g in args.groups.split(",") if g]
    bad = [g for g in groups if g not in GROUPS]
    if bad:
        parser.error(f"--groups: unknown group(s) {', '.join(bad)} (known: {', '.join(GROUPS)})")
    tmp = Path(tempfile.mkdtemp(prefix="regret-compile-"))
    cache = Path(args.cache) if args.cache else tmp / "cache"
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache))
    env.setdefault("NUMBA_THREADING_LAYER", "threadsafe")
    results: list[dict] = []
    t0 = time.perf_counter()
    # as the warm-up runs them: the opening group first and alone, then the rest
    batches = [[g for g in groups if g == GROUPS[0]], [g for g in groups if g != GROUPS[0]]]
    for batch in batches:
        pending = list(batch)
        running: list[tuple[str, Path, subprocess.Popen[bytes]]] = []
        while pending or running:
            while pending and len(running) < max(1, args.jobs):
                g = pending.pop(0)
                out = tmp / f"{g}.json"
                cmd = [sys.executable, __file__, "--record", g, str(out)]
                running.append((g, out, subprocess.Popen(cmd, env=env, cwd=ROOT)))
            finished = [r for r in running if r[2].poll() is not None]
            if not finished:  # the first to finish frees its slot, as the warm-up does
                time.sleep(0.05)
                continue
            g, out, proc = finished[0]
            running.remove(finished[0])
            if proc.returncode != 0:
                print(f"group {g} failed (exit {proc.returncode})", file=sys.stderr)
                return 1
            results.append(json.loads(out.read_text()))
    total = time.perf_counter() - t0
    sizes = _sizes(cache)
    per: dict[str, dict] = defaultdict(lambda: {"signatures": 0, "seconds": 0.0})
    for r in results:
        for e in r["events"]:
            per[e["kernel"]]["signatures"] += 1
            per[e["kernel"]]["seconds"] += e["seconds"]
    rows = sorted(per.items(), key=lambda kv: -kv[1]["seconds"])
    print("| kernel | signatures | seconds | MB |\n|---|---:|---:|---:|")
    for name, v in rows:
        mb = _size(sizes, name) / 1e6
        print(f"| `{name}` | {v['signatures']} | {v['seconds']:.1f} | {mb:.1f} |")
    nsig = sum(v["signatures"] for v in per.values())
    secs = sum(v["seconds"] for v in per.values())
    print(f"| **all {len(per)} kernels** | {nsig} | {secs:.1f} | {sum(sizes.values()) / 1e6:.1f} |")
    print()
    print("| group | wall s |\n|---|---:|")
    for r in results:
        print(f"| {r['group']} | {r['wall']:.1f} |")
    print(f"| **warm-up, {args.jobs} at a time** | {total:.1f} |")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
