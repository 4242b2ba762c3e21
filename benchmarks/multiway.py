"""Three-player games: how close each rule gets, and how fast (issue 49's goals).

One command::

    .venv/bin/python benchmarks/multiway.py [--games kuhn3,leduc3]
        [--rules cfr,cfr+,lcfr,dcfr,pcfr+] [--seconds 10] [--checks 10,30,100,300,1000,3000]

For each game and full-width rule, a solve by :class:`~solver.cfr.multi_engine.MultiEngine`
(one thread, float64) runs until the next check would pass ``--seconds`` of solving time or
the last check is reached; at each check the average profile's NashConv and largest Nash
distance (chips, % of the pot: the antes, 3 chips) are measured by the engine's own
best-response passes, which are left out of the solving time. The first iterations of each
game run once before timing, so compilation is not counted.

Printed per game: a table of rule × check (iterations, seconds, NashConv, largest distance
% pot), then whether NashConv ≤ ``--goal`` (1e-3 chips) was reached within ``--seconds``.
CFR carries no guarantee with three players: a rule whose NashConv levels off is reported
as it is. Timings drift on shared machines; compare rules within one run.
"""

from __future__ import annotations

import argparse
import json
import time
from dataclasses import asdict, dataclass

from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.games.multiway import ANTE, multi_game


@dataclass(frozen=True)
class Check:
    """One check of one solve (chips per game; seconds of solving, checks excluded)."""

    game: str
    rule: str
    iterations: int
    seconds: float
    nash_conv: float
    max_distance: float
    max_distance_pct_pot: float


def run(game: str, rule: str, checks: list[int], seconds: float) -> list[Check]:
    """The checks of one solve of ``game`` by ``rule`` (module docstring)."""
    mg = multi_game(game)
    pot = ANTE * mg.num_players
    engine = MultiEngine(mg, make_rule(rule))
    out: list[Check] = []
    spent = 0.0
    per_iteration = 0.0
    for target in checks:
        todo = target - engine.iteration
        if per_iteration and spent + todo * per_iteration > seconds:
            break
        t0 = time.perf_counter()
        engine.iterate(todo)
        spent += time.perf_counter() - t0
        per_iteration = spent / engine.iteration
        report = engine.measure()
        worst = float(max(report.nash_distance))
        pct = 100.0 * worst / pot
        out.append(Check(game, rule, engine.iteration, spent, float(report.nash_conv), worst, pct))
    return out


def _warm(games: list[str], rules: list[str]) -> None:
    for game in games:
        for rule in rules:
            engine = MultiEngine(multi_game(game), make_rule(rule))
            engine.iterate(2)
            engine.measure()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", default="kuhn3,leduc3")
    parser.add_argument("--rules", default="cfr,cfr+,lcfr,dcfr,pcfr+")
    parser.add_argument("--seconds", type=float, default=10.0)
    parser.add_argument("--checks", default="10,30,100,300,1000,3000,10000")
    parser.add_argument("--goal", type=float, default=1e-3, help="NashConv goal (chips)")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    games = [g.strip() for g in args.games.split(",") if g.strip()]
    rules = [r.strip() for r in args.rules.split(",") if r.strip()]
    checks = sorted({int(c) for c in args.checks.split(",")})
    _warm(games, rules)
    for game in games:
        rows = [c for rule in rules for c in run(game, rule, checks, args.seconds)]
        if args.json:
            for c in rows:
                print(json.dumps(asdict(c)))
            continue
        print(f"## {game}: NashConv (chips) by rule, within {args.seconds:g} s of solving\n")
        print("| rule | iterations | seconds | NashConv | largest distance, % pot |")
        print("|---|---:|---:|---:|---:|")
        for c in rows:
            print(f"| {c.rule} | {c.iterations:,} | {c.seconds:.2f} | {c.nash_conv:.2e} | "
                  f"{c.max_distance_pct_pot:.3g} |")  # fmt: skip
        for rule in rules:
            mine = [c for c in rows if c.rule == rule]
            hit = next((c for c in mine if c.nash_conv <= args.goal), None)
            last = mine[-1] if mine else None
            if hit is not None:
                print(f"\n{rule}: NashConv ≤ {args.goal:g} at {hit.iterations:,} iterations, "
                      f"{hit.seconds:.2f} s")  # fmt: skip
            elif last is not None:
                print(f"\n{rule}: not reached; {last.nash_conv:.2e} at "
                      f"{last.iterations:,} iterations, {last.seconds:.2f} s")  # fmt: skip
        print()


if __name__ == "__main__":
    main()
