"""How fast a solved flop's nodes open in Explore: the node table's one-time pass against the
time of an iteration, and the time to serve a node — its analysis (EV, equity, EQR, reach)
with the study view the page draws beside it (EV per action at a decision node, the runout
report at a chance node) — from the table, beside today's per-node analysis (a walk from the
node and an equity enumeration). Prints one table::

    python benchmarks/explore_speed.py [--preset srp-flop] [--threads 2] [--target 0.5]

Solves the preset as the app does (a background job, ``dcfr-tuned`` at the app's defaults, to
``--target`` % of the pot, on ``--threads`` threads), waits for its node table, then times
each node kind (warm caches: the kernels are compiled by the warm-up).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from solver.algorithms import make_algorithm  # noqa: E402
from solver.cfr.options import SolveOptions  # noqa: E402
from solver.files.presets import load_preset  # noqa: E402
from solver.games.model import CHANCE, DECISION, Game  # noqa: E402
from solver.run.jobs import SolveJob  # noqa: E402
from solver.study import analysis as A  # noqa: E402
from solver.study import node_table as NT  # noqa: E402
from solver.study import views as V  # noqa: E402


def timed(fn: Callable[[], object]) -> float:
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def sample_nodes(game: Game) -> dict[str, int]:
    """The root, the turn's chance node after check-check, the first turn decision node under
    it, a river chance node and a river decision node under it."""
    t = game.tree
    root = 0
    turn_chance = next(int(c) for c in game.children(game.find(("k",))) if t.kind[c] == CHANCE)
    turn = int(game.children(turn_chance)[0])
    kk = game.find((*game.history(turn), "k", "k"))
    river_chance = kk if t.kind[kk] == CHANCE else int(np.flatnonzero(t.kind == CHANCE)[-1])
    river = int(game.children(river_chance)[0])
    return {
        "root (flop)": root,
        "turn chance": turn_chance,
        "turn decision": turn,
        "river chance": river_chance,
        "river decision": river,
    }


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--preset", default="srp-flop")
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--target", type=float, default=0.5, help="% of the pot")
    ap.add_argument("--no-before", action="store_true", help="skip today's per-node path")
    args = ap.parse_args()

    t0 = time.perf_counter()
    game = load_preset(args.preset).build()
    build_s = time.perf_counter() - t0
    job = SolveJob(
        game,
        make_algorithm("dcfr-tuned"),
        target=args.target / 100.0 * game.starting_pot,
        options=SolveOptions(threads=args.threads),
    ).start()
    job.wait_for(lambda p: p.finished, timeout=7200)
    job.join(60)
    t1 = time.perf_counter()
    table = job.node_table(timeout=3600)
    waited = time.perf_counter() - t1
    p = job.progress
    assert table is not None, p.table
    avg, it = job.average_strategy()
    spi = p.seconds_per_iteration or float("nan")
    print(f"{args.preset}: {game.num_nodes:,} nodes, hands {game.num_hands}, "
          f"{args.threads} threads; build {build_s:.1f} s")  # fmt: skip
    print(f"solve: {it} iterations to {100 * (p.exploitability or 0) / game.starting_pot:.3f} "
          f"% pot in {p.elapsed_s:.1f} s; {spi:.3f} s per iteration (last chunks)")  # fmt: skip
    print(f"node table: pass {p.table_s:.2f} s (= {p.table_s / spi:.1f} iterations; "
          f"waited {waited:.2f} s after Done), {table.rows:,} rows, "
          f"{p.table_bytes / 2**20:.1f} MiB float32")  # fmt: skip
    compat = A.compatible(game)
    nodes = sample_nodes(game)
    print()
    print("| node | served from the table: analysis + view (s) | today's: analysis + view (s) |")
    print("|---|---:|---:|")
    for name, n in nodes.items():
        kind = int(game.tree.kind[n])

        def fast(n: int = n, kind: int = kind) -> None:
            NT.analyze_node(table, n, compat=compat)
            if kind == DECISION:
                NT.action_evs(table, n, compat)
            elif kind == CHANCE:
                NT.runout_report(table, n, compat)

        def slow(n: int = n, kind: int = kind) -> None:
            A.analyze(game, avg, n, compat=compat)
            if kind == DECISION:
                V.action_evs(game, avg, n, compat)
            elif kind == CHANCE:
                V.runout_report(game, avg, n)

        f = timed(fast)
        s = float("nan") if args.no_before else timed(slow)
        print(f"| {name} | {f:.3f} | {s:.2f} |")
    job.release()


if __name__ == "__main__":
    main()
