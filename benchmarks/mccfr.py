"""Monte Carlo CFR against full-width CFR: exploitability per nodes touched and per second.

Run: ``.venv/bin/python benchmarks/mccfr.py [--spot river|turn] [--budgets 1e5,1e6,1e7]
[--seeds 3]``.

Spot "river" (default): board Td9d6hQc2s, pot 200, stack 900, bets 50%/all-in, raises
all-in, the HUNL issue's ranges — the hold'em river spot of the MCCFR comparison.
Spot "turn": the same on Td9d6hQc (chance sampling has a card to sample there).

For each algorithm, the exploitability (% of the pot) of the average strategy when the
nodes touched first pass each budget, and the seconds of solving it took. Units differ:
a full-width (vector) iteration touches each *public* node once and handles every hand
there, a sampled scalar walk touches a node per dealt pair — so the table gives seconds
as well, the unit users feel. Sampled rows are the mean over ``--seeds`` seeds.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from solver.algorithms import SolveOptions, make_solver
from solver.games.holdem import HoldemSpec, build_holdem

OOP = "66+,A8s+,A5s-A4s,AJo+,K9s+,KQo,QTs+,JTs,96s+,85s+,75s+,65s,54s"
IP = "QQ-22,AQs-A2s,ATo+,K5s+,KJo+,Q8s+,J8s+,T7s+,96s+,86s+,75s+,64s+,53s+"
BOARDS = {"river": "Td9d6hQc2s", "turn": "Td9d6hQc"}
ALGOS = ("cfr", "cfr+", "dcfr", "mccfr-cs", "mccfr-es", "mccfr-os", "dmccfr")


def run(spot: str, algorithm: str, budgets: list[float], seed: int) -> list[tuple[float, float]]:
    """(exploitability % pot, seconds) at each budget of nodes touched."""
    game = build_holdem(
        HoldemSpec(board=BOARDS[spot], pot=200, stack=900, oop_range=OOP, ip_range=IP,
                   bets="50%, a", raises="a")
    )  # fmt: skip
    eng = make_solver(game, algorithm, options=SolveOptions(seed=seed))
    eng.iterate(1)  # kernels loaded
    out: list[tuple[float, float]] = []
    spent = 0.0
    chunk = 1
    for budget in budgets:
        while eng.nodes_touched < budget:
            t0 = time.perf_counter()
            eng.iterate(chunk)
            spent += time.perf_counter() - t0
            if spent < 0.05:
                chunk *= 2
        expl = 0.5 * sum(eng.best_response_values())
        out.append((100.0 * expl / game.starting_pot, spent))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--spot", default="river", choices=sorted(BOARDS))
    parser.add_argument("--budgets", default="1e4,1e5,1e6,1e7")
    parser.add_argument("--seeds", type=int, default=3)
    parser.add_argument("--algorithms", default=",".join(ALGOS))
    args = parser.parse_args()
    budgets = [float(x) for x in args.budgets.split(",")]
    print(f"# machine {platform.machine()}, python {platform.python_version()}, spot {args.spot}")
    print("| algorithm | " + " | ".join(f"{b:.0e} nodes: % pot, s" for b in budgets) + " |")
    print("|---|" + "---:|" * len(budgets))
    for algorithm in args.algorithms.split(","):
        sampled = algorithm.startswith(("mccfr", "dmccfr"))
        seeds = range(args.seeds) if sampled else range(1)
        rows = np.array([run(args.spot, algorithm, budgets, s) for s in seeds])
        mean = rows.mean(axis=0)
        cells = [f"{x:.3g}, {t:.2f}" for x, t in mean]
        print(f"| {algorithm} | " + " | ".join(cells) + " |", flush=True)


if __name__ == "__main__":
    main()
