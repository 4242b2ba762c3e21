"""What an exploitability check costs on one and two threads, and what a split pass costs
beyond the serial walk.

One command (issue 50, "Where the time goes")::

    .venv/bin/python benchmarks/checks.py [--spots T1,F1s] [--rounds 8]

Per spot (:mod:`benchmarks.holdem`'s T1, F1s; ``dcfr-tuned``, default storage): an engine
on one thread and one on two, each after a few iterations, time ``--rounds`` times (median
printed) a chunk of 10 iterations and a check (:meth:`~solver.cfr.engine.Engine.
best_response_values`: both players' best responses, in float64). On two threads a check's
two passes run one per thread (:func:`solver.cfr.bestresponse.best_response_values`).

The split form's cost: one best-response pass split as a parallel pass is split (the reach
collected at the cut, every task, the upper tree finished), but every step on this thread
(:func:`split_on_one_thread`), against the serial pass — the same numbers, more work: the
upper tree walked twice, and per task a claim and its reach and values copied through the
slots. Timings mean nothing on a loaded machine.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from holdem import IP, OOP, SPOTS

from solver import Engine, SolveOptions, make_rule
from solver.cfr.bestresponse import _profile, root_player_values
from solver.cfr.drive import run_pass
from solver.cfr.layout import (
    LEAF_COLLECT,
    LEAF_TASKS,
    LEAF_USE,
    MODE_BR,
    NO_DRAWS,
    game_arrays,
    pass_flags,
)
from solver.cfr.parallel import make_parallel
from solver.cfr.pruning.state import no_rbp
from solver.cfr.rules import NUM_COEFFICIENTS
from solver.cfr.walk import AVERAGE, SolveState
from solver.games.model import Game


def split_on_one_thread(engine: Engine, player: int) -> tuple[np.ndarray, float, float]:
    """``player``'s best-response values at the root from a pass split as on two threads but
    walked by this thread alone: (values, seconds of the tasks, seconds of the collecting and
    finishing walks)."""
    game = engine.game
    par = make_parallel(game, 2)
    if not par.split_checks:
        raise ValueError("a spot with chance nodes below the root (a turn or a flop)")
    sigma, st = _profile(game, AVERAGE, engine.storage)
    state = SolveState(st, no_rbp(), engine.locks)  # type: ignore[arg-type]
    fl = pass_flags(player, MODE_BR)
    sc = engine._eval_scratch
    g, co, lv = game_arrays(game), np.zeros(NUM_COEFFICIENTS), par.leaves
    t0 = time.perf_counter()
    run_pass(g, state, 0, sigma, co, NO_DRAWS, fl._replace(leaf=LEAF_COLLECT), sc, lv)
    t1 = time.perf_counter()
    run_pass(g, state, 0, sigma, co, NO_DRAWS, fl._replace(leaf=LEAF_TASKS), sc, lv)
    t2 = time.perf_counter()
    run_pass(g, state, 0, sigma, co, NO_DRAWS, fl._replace(leaf=LEAF_USE), sc, lv)
    t3 = time.perf_counter()
    values = sc.value[0, : game.num_hands[player]].copy()
    return values, t2 - t1, (t1 - t0) + (t3 - t2)


def serial_pass(engine: Engine, player: int) -> tuple[np.ndarray, float]:
    """``player``'s best-response values from the serial walk, and its seconds."""
    t0 = time.perf_counter()
    v = root_player_values(engine.game, AVERAGE, player, True, engine._eval_scratch, None,
                           engine._locks, engine.storage)  # fmt: skip
    return v, time.perf_counter() - t0


def measure(game: Game, rounds: int) -> dict[str, float]:
    """The spot's figures, ms (medians of ``rounds``); raises if the split form's values
    differ from the serial pass's."""
    engines = {}
    for threads in (1, 2):
        e = Engine(game, make_rule("dcfr-tuned"), options=SolveOptions(threads=threads))
        e.iterate(10)
        e.best_response_values()
        engines[threads] = e
    keys = ("it1", "check1", "it2", "check2", "serial", "tasks", "upper")
    out: dict[str, list[float]] = {k: [] for k in keys}
    for _ in range(rounds):
        for threads, e in engines.items():
            t = time.perf_counter()
            e.iterate(10)
            out[f"it{threads}"].append((time.perf_counter() - t) / 10)
            t = time.perf_counter()
            e.best_response_values()
            out[f"check{threads}"].append(time.perf_counter() - t)
        e1 = engines[1]
        for p in (0, 1):
            want, s = serial_pass(e1, p)
            got, tasks, upper = split_on_one_thread(e1, p)
            if not np.array_equal(got, want):
                raise AssertionError("the split pass's values differ from the serial pass's")
            out["serial"].append(s)
            out["tasks"].append(tasks)
            out["upper"].append(upper)
    return {k: 1e3 * statistics.median(v) for k, v in out.items()}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--spots", default="T1,F1s")
    parser.add_argument("--rounds", type=int, default=8)
    args = parser.parse_args(argv)
    from solver.games.holdem import HoldemSpec, build_holdem

    print(
        "| spot | 1 thread: iteration / check ms | 2 threads: iteration / check ms | check "
        "2 / 1 | serial pass ms | split on one thread: tasks + upper ms | split / serial |"
    )
    print("|---|---|---|---:|---:|---|---:|")
    for spot in args.spots.split(","):
        s = SPOTS[spot]
        spec = HoldemSpec(board=s["board"], pot=200, stack=900, oop_range=OOP, ip_range=IP,
                          bets=s["bets"], raises=s["raises"])  # fmt: skip
        game = build_holdem(spec)
        m = measure(game, args.rounds)
        split = m["tasks"] + m["upper"]
        row = (f"| {spot} | {m['it1']:.2f} / {m['check1']:.2f} | {m['it2']:.2f} / "
               f"{m['check2']:.2f} | {m['check2'] / m['check1']:.2f} | {m['serial']:.2f} | "
               f"{m['tasks']:.2f} + {m['upper']:.2f} | {split / m['serial']:.2f} |")  # fmt: skip
        print(row, flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
