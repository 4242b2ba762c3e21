"""Algorithm races: the app's one-click demos and the CLI's default example, each as the
race table (iterations and CPU seconds to each target, final exploitability), the winners,
the nodes touched to each target, the exploitability at a few iterations, and how each
algorithm compares with the first one check by check.

Run: ``.venv/bin/python benchmarks/race.py [--demos cfr-vs-cfr+,predictive] [--no-cli]``.
Races run exactly as in the app (``solver.run.race.RaceJob``, two worker threads, CPU seconds
per algorithm from ``time.thread_time``); the curves do not depend on timing, the seconds do.
"""

from __future__ import annotations

import argparse
import platform
import subprocess
import sys
import time

import numpy as np

from solver.run.race import (
    DEMOS,
    Demo,
    RaceJob,
    RaceProgress,
    game_pot,
    markdown_table,
    parse_targets,
    winner_lines,
)

CLI_EXAMPLE = [
    "race", "--game", "leduc", "--algorithms", "cfr,cfr+,dcfr,pcfr+,sapcfr+",
    "--iterations", "10000",
]  # fmt: skip


def at_iterations(progress: RaceProgress, scale: float, unit: str) -> str:
    """Exploitability (in ``unit``) of each algorithm at 10, 100, 1,000, … and the last."""
    last = progress.max_iterations
    marks = [10**k for k in range(1, 7) if 10**k < last] + [last]
    lines = [
        "| algorithm | " + " | ".join(f"at {m:,}" for m in marks) + " |",
        "|---|" + "---:|" * len(marks),
    ]
    for lane in progress.lanes:
        by_it = {p.iteration: p.exploitability for p in lane.points}
        cells = [f"{by_it[m] * scale:.3g}" if m in by_it else "—" for m in marks]
        lines.append(f"| {lane.entry.label} | " + " | ".join(cells) + " |")
    return f"Exploitability ({unit}) at given iterations:\n\n" + "\n".join(lines)


def nodes_to_targets(progress: RaceProgress) -> str:
    """Nodes touched at the first check at or below each target (— when not reached), and
    each algorithm's nodes per iteration over its run."""
    targets = progress.targets
    lines = [
        "| algorithm | " + " | ".join(f"nodes to {t.label}" for t in targets)
        + " | nodes per iteration |",
        "|---|" + "---:|" * (len(targets) + 1),
    ]  # fmt: skip
    for lane in progress.lanes:
        cells = []
        for t in targets:
            hit = next((q for q in lane.points if q.exploitability <= t.chips), None)
            cells.append("—" if hit is None else f"{hit.nodes_touched:,}")
        per = lane.nodes_touched / lane.iteration if lane.iteration else float("nan")
        lines.append(f"| {lane.entry.label} | " + " | ".join(cells) + f" | {per:.1f} |")
    return "Nodes touched to each target:\n\n" + "\n".join(lines)


def versus_first(progress: RaceProgress) -> list[str]:
    """For each algorithm after the first: at how many common checks it is at or below the
    first one, and the last iteration where it is above."""
    base = progress.lanes[0]
    ref = {p.iteration: p.exploitability for p in base.points}
    out = []
    for lane in progress.lanes[1:]:
        common = [(p.iteration, p.exploitability) for p in lane.points if p.iteration in ref]
        lower = [it for it, x in common if x <= ref[it]]
        above = [it for it, x in common if x > ref[it]]
        tail = f"; last above at iteration {above[-1]:,}" if above else ""
        ratio = ref[common[-1][0]] / common[-1][1] if common and common[-1][1] > 0 else np.nan
        out.append(
            f"{lane.entry.label} ≤ {base.entry.label} at {len(lower)} of {len(common)} checks"
            f"{tail}; at iteration {common[-1][0]:,} {base.entry.label} / {lane.entry.label}"
            f" = {ratio:.3g}"
        )
    return out


def run_demo(d: Demo) -> RaceProgress:
    game = d.game()
    job = RaceJob(
        game,
        d.entries(),
        max_iterations=d.iterations,
        targets=parse_targets(d.targets, game_pot(game)),
        stop_at_target=d.stop_at_target,
    ).start()
    p = job.wait_for(lambda q: q.finished, timeout=3600)
    job.join()
    holdem = game.is_holdem
    scale, unit = (100.0 / game.starting_pot, "% pot") if holdem else (1.0, "chips")
    print(f"### {d.title} (`{d.key}`)\n")
    print(
        f"{game.name}, {d.iterations:,} iterations per algorithm, targets {d.targets}, "
        f"{'each stops at the hardest target' if d.stop_at_target else 'all run to the end'}; "
        f"race wall time {p.wall_s:.1f} s with {p.workers} worker threads.\n"
    )
    print(markdown_table(p) + "\n")
    for line in winner_lines(p):
        print(f"- {line}")
    print()
    print(nodes_to_targets(p) + "\n")
    print(at_iterations(p, scale, unit) + "\n")
    for line in versus_first(p):
        print(f"- {line}")
    print(flush=True)
    return p


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--demos", default=",".join(d.key for d in DEMOS))
    parser.add_argument("--no-cli", action="store_true", help="skip the CLI example")
    args = parser.parse_args()
    print(f"# machine {platform.machine()}, python {platform.python_version()}\n")
    chosen = args.demos.split(",")
    for d in DEMOS:
        if d.key in chosen:
            run_demo(d)
    if not args.no_cli:
        print("### CLI example\n")
        print("`python -m solver " + " ".join(CLI_EXAMPLE) + "`\n")
        t0 = time.perf_counter()
        out = subprocess.run(
            [sys.executable, "-m", "solver", *CLI_EXAMPLE],
            check=True,
            capture_output=True,
            text=True,
        )
        print(out.stdout)
        print(f"(process wall time {time.perf_counter() - t0:.1f} s)")


if __name__ == "__main__":
    main()
