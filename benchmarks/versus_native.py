"""Ours against the native reference solver, side by side on this machine.

The native solver (b-inary/postflop-solver, release build, its default DCFR, f32 storage;
AGPL-3.0 — run, never copied) is in ``../shared/peer/`` as ``bench-1t`` (one thread) and
``bench-mt`` (rayon, ``RAYON_NUM_THREADS``). Both sides solve the same spots (R1, T1, F1s:
:mod:`benchmarks.holdem`'s specs, which the peer README fixes), check the exploitability every
10 iterations, and count seconds from the first iteration to each target, checks included.
Ours runs with its hold'em defaults (``dcfr-tuned``, storage "auto").

Runs are interleaved — native, ours, native, ours … — for ``--rounds`` rounds, each run in a
fresh process (its own peak memory), so the machine's drift hits both sides alike: read the
ratios. Per spot, threads and target the table prints the iterations, the median seconds and
the min–max spread of each side and the ratio of the medians ours / native; then the solver
state each side reports (ours: ``Engine.memory_bytes``; native: its ``mem_bytes``) and each
process's peak RSS.

Run: ``.venv/bin/python benchmarks/versus_native.py [--spots R1,T1,F1s] [--threads 1,2]
[--rounds 3] [--peer ../shared/peer]``. Without the peer's executables the native side is
skipped with a line saying so, and ours still runs.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
TARGETS = ("0.5", "0.3", "0.1")


def _run(cmd: list[str], env: dict[str, str] | None = None) -> tuple[str, float]:
    """stdout of ``cmd`` and its peak RSS (MB), from the child's own rusage."""
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    assert proc.stdout is not None
    out = proc.stdout.read().decode()
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} exited with {proc.returncode}")
    return out, usage.ru_maxrss / 1024.0


def native(peer: Path, spot: str, threads: int) -> dict:
    """One native run: {target: (iterations, wall seconds)}, solver MB and peak MB."""
    env = dict(os.environ)
    if threads == 1:
        cmd = [str(peer / "bench-1t"), spot]
    else:
        cmd = [str(peer / "bench-mt"), spot]
        env["RAYON_NUM_THREADS"] = str(threads)
    out, peak = _run(cmd, env)
    found: dict[str, tuple[int, float]] = {}
    solver_mb = 0.0
    for line in out.splitlines():
        ev = json.loads(line)
        if ev.get("event") == "config":
            solver_mb = ev["mem_bytes"] / 1e6
        elif ev.get("event") == "target":
            found[f"{ev['target_pct']:g}"] = (int(ev["iter"]), float(ev["wall_s"]))
    return {"found": found, "solver_mb": solver_mb, "peak_mb": peak}


def ours(spot: str, threads: int, max_seconds: float) -> dict:
    """One run of ours (benchmarks/holdem.py's single-run mode, in a fresh process)."""
    cmd = [
        sys.executable, str(HERE / "holdem.py"), "--one", f"{spot}|dcfr-tuned|{threads}",
        "--every", "10", "--max-seconds", str(max_seconds),
    ]  # fmt: skip
    out, peak = _run(cmd)
    res = json.loads(out.strip().splitlines()[-1])
    found = {}
    for t in TARGETS:
        hit = res["found"].get(str(float(t)))
        if hit is not None:
            found[t] = (int(hit[0]), float(hit[2]))  # iterations, wall seconds (checks in)
    return {"found": found, "solver_mb": res["solver_mb"], "peak_mb": peak}


def _cell(runs: list[dict], target: str) -> tuple[str, float | None]:
    hits = [r["found"][target] for r in runs if target in r["found"]]
    if len(hits) < len(runs) or not hits:
        return "not reached", None
    secs = [h[1] for h in hits]
    med = statistics.median(secs)
    iters = sorted({h[0] for h in hits})
    it = "/".join(str(i) for i in iters)
    return f"{it} it, {med:.3g} s ({min(secs):.3g}–{max(secs):.3g})", med


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spots", default="R1,T1")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--peer", default=str(HERE.parent.parent / "shared" / "peer"))
    parser.add_argument("--max-seconds", type=float, default=900.0)
    args = parser.parse_args()
    peer = Path(args.peer)
    have_peer = (peer / "bench-1t").is_file() and (peer / "bench-mt").is_file()
    commit = subprocess.run(
        ["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"], capture_output=True, text=True
    ).stdout.strip()
    print(f"# {platform.machine()}, {os.cpu_count()} cores, python "
          f"{platform.python_version()}, commit {commit or '?'}; {args.rounds} rounds, "
          "interleaved native/ours")  # fmt: skip
    if not have_peer:
        print(f"# native side skipped: no bench-1t/bench-mt in {peer}")
    # warm our Numba cache once, outside the timed runs
    subprocess.run(
        [sys.executable, "-m", "solver", "solve", "--preset", "srp-river", "--iterations", "2"],
        check=True,
        capture_output=True,
    )
    print("| spot | threads | target % pot | native | ours | ours / native |")
    print("|---|---:|---:|---|---|---:|")
    memory: list[str] = []
    for spot in args.spots.split(","):
        for threads in (int(t) for t in args.threads.split(",")):
            nat: list[dict] = []
            our: list[dict] = []
            for _ in range(args.rounds):
                if have_peer:
                    nat.append(native(peer, spot, threads))
                our.append(ours(spot, threads, args.max_seconds))
            for t in TARGETS:
                ours_text, ours_med = _cell(our, t)
                nat_text, nat_med = _cell(nat, t) if have_peer else ("skipped", None)
                ratio = f"{ours_med / nat_med:.2f}" if ours_med and nat_med else "-"
                print(f"| {spot} | {threads} | {t} | {nat_text} | {ours_text} | {ratio} |",
                      flush=True)  # fmt: skip
            nat_mem = "skipped"
            if nat:
                nat_mem = f"{nat[0]['solver_mb']:.1f} MB solver, "
                nat_mem += f"{max(r['peak_mb'] for r in nat):.0f} MB peak"
            memory.append(
                f"| {spot} | {threads} | {nat_mem} | {our[0]['solver_mb']:.1f} MB solver, "
                f"{max(r['peak_mb'] for r in our):.0f} MB peak |"
            )
    print()
    print("| spot | threads | native memory | ours memory |")
    print("|---|---:|---|---|")
    print("\n".join(memory))


if __name__ == "__main__":
    main()
