"""Where an iteration's time goes: each phase of the walk replayed alone, timed, against its floor.

One command (issue 50, "Measure first", item 2)::

    .venv/bin/python benchmarks/phases.py [--spots T1,F1s] [--warmup 4] [--iterations 6]
        [--reps 5] [--threads 2] [--triad-mb 768] [--json]

Per-node timestamps inside the walk would distort it, so the phases are isolated instead:
for each spot, a solve of ``dcfr-tuned`` (the default storage, one thread) runs
``--warmup`` iterations; its storage is copied, and benchmark-only kernels
(``phase_kernels.py``) replay each phase's own helpers — the same inlined ``node_kernel``
helpers the walk calls, on the walk's scratch rows, one row per depth — over every node of
that kind in the tree, both traversers, best of ``--reps``:

=================  =====================================================================
trav: values       the traverser's node values from its children's (``action_values_up``,
                   ``mixed_values``: RM of the regrets, the strategy not stored)
trav: update       the rule's regret update (``update_node``)
opp: σ + reach     the opponent's strategy (``strategy_rows``) and its reach into each
                   child (the walk's ``opponent_child``)
opp: values        the children's values summed (``values_sum_up``)
average sums       the strategy sums (``add_sums``), on the iterations the average takes
                   (1 / ``average_every`` of them: counted so)
chance: reach      the reach into each card dealt (``chance_child``)
chance: values     each card's values added, suit-isomorphic images mapped
                   (``add_chance_rows``)
fold               ``fold_rows`` (and a raked terminal's rake term)
showdown           ``showdown_2card``
runout             ``runout_rows`` (all-in before the river)
=================  =====================================================================

The vectors are realistic, not exact: each depth's reach row holds the opponent's reach at
the root (its range weights times the deal's normaliser), each value row a spread of values
the size of the pot, so the arithmetic runs on numbers of the right size; the storage is the
solve's (a copy: the update and sums replays write to it). The replays' values are the walk's
(``tests/test_phases.py`` composes them, node by node, into a pass that equals
:func:`~solver.cfr.drive.run_pass` bit for bit on a small turn), so they do the real work.

Printed per phase: ms per iteration, its share of a real iteration (``--iterations`` timed
after the warm-up, checks left out), the residual (real − Σ phases: the walk's traversal,
stack and branches, and what partial pruning saves: the real walk skips subtrees the
opponent never reaches, the replays walk every node — the nodes-touched share says how
many), each node kind's bytes from :mod:`benchmarks.floor`'s model (:func:`group_bytes`:
storage, tree fields and tables — floor.py's tables read once a pass, shared out by the
kinds' reads per visit; vectors stay in L1 — so the kinds' bytes add up to floor.py's floor)
and its floor time at the machine's DRAM bandwidth (a triad of ``--triad-mb``) and at the
bandwidth of a triad the size of the spot's footprint, and ours / floor per kind; the kind
furthest from its floor is named.
With ``--threads 2`` (default) a two-thread solve's per-thread split
(:attr:`~solver.cfr.engine.Engine.thread_times`: collecting, tasks, waiting, finishing)
follows, per iteration: the serial upper tree, the merge (each cut node's children's values
summed: inside the tasks) and the waits. Timings mean nothing on a loaded machine.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the solver package, when run as a script
sys.path.insert(0, str(HERE))

import floor  # noqa: E402
from phase_kernels import (  # noqa: E402
    average_sums,
    chance_reach,
    chance_values,
    depths,
    opp_reach,
    opp_values,
    terminals,
    trav_update,
    trav_values,
)

from solver.cfr.layout import Storage  # noqa: E402
from solver.cfr.rules import DERIVE  # noqa: E402
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN, Game  # noqa: E402

I64 = npt.NDArray[np.int64]
Array = npt.NDArray[np.float64]

PHASES = (
    "trav: values", "trav: update", "opp: σ + reach", "opp: values", "average sums",
    "chance: reach", "chance: values", "fold", "showdown", "runout",
)  # fmt: skip


# ----- the phases of a spot ------------------------------------------------------------------
class Replay:
    """``game``'s node lists by phase and a scratch to replay them on (the walk's, ``dtype``)."""

    def __init__(self, game: Game, dtype: type[np.floating]) -> None:
        from solver.cfr.layout import game_arrays, make_scratch

        t = game.tree
        self.game = game
        self.g = game_arrays(game)
        self.depth = depths(np.ascontiguousarray(game.parents, dtype=np.int64))
        self.sc = make_scratch(game, dtype)
        ids = np.arange(game.num_nodes, dtype=np.int64)
        self.chance = ids[t.kind == CHANCE]
        self.folds = ids[t.kind == FIXED]
        self.shows = ids[t.kind == SHOWDOWN]
        self.runouts = ids[t.kind == RUNOUT]
        self.decision = [ids[(t.kind == DECISION) & (t.player == p)] for p in range(2)]
        self._none = np.zeros((1, 1), dtype=dtype)

    def fill(self, reach: Array, values: Array) -> None:
        """Every depth's reach row ← ``reach`` (H,), value and action-value rows ← ``values``."""
        sc = self.sc
        sc.reach[:, : reach.shape[0]] = reach
        sc.value[:, : values.shape[0]] = values
        sc.action_value[:, :, : values.shape[0]] = values
        sc.reach_row[:] = np.arange(sc.reach_row.shape[0])

    def run(self, phase: str, st: Storage, co: Array, trav: int, REn: Array | None = None,
            VAn: Array | None = None, nodes: I64 | None = None) -> int:  # fmt: skip
        """Replay ``phase`` for traverser ``trav`` over its nodes (or ``nodes``); with
        ``REn``/``VAn`` given, on each node's own inputs, its outputs kept there (exact)."""
        g, dep, sc = self.g, self.depth, self.sc
        exact = REn is not None
        re = self._none if REn is None else REn
        va = self._none if VAn is None else VAn
        mine, theirs = self.decision[trav], self.decision[1 - trav]
        pick = {
            "trav: values": mine, "trav: update": mine, "opp: σ + reach": theirs,
            "opp: values": theirs, "average sums": theirs, "chance: reach": self.chance,
            "chance: values": self.chance, "fold": self.folds, "showdown": self.shows,
            "runout": self.runouts,
        }  # fmt: skip
        ns = pick[phase] if nodes is None else nodes
        if phase == "trav: values":
            return int(trav_values(g, st, trav, ns, dep, sc, re, va, exact))
        if phase == "trav: update":
            return int(trav_update(g, st, co, trav, ns, dep, sc, va, exact))
        if phase == "opp: σ + reach":
            return int(opp_reach(g, st, trav, ns, dep, sc, re, exact))
        if phase == "opp: values":
            return int(opp_values(g, trav, ns, dep, sc, va, exact))
        if phase == "average sums":
            return int(average_sums(g, st, co, trav, ns, dep, sc, re, exact))
        if phase == "chance: reach":
            return int(chance_reach(g, trav, ns, dep, sc, re, exact))
        if phase == "chance: values":
            return int(chance_values(g, trav, ns, dep, sc, va, exact))
        return int(terminals(g, trav, ns, dep, sc, re, va, exact))


def compose_pass(rp: Replay, st: Storage, co: Array, trav: int) -> Array:
    """One CFR pass for ``trav`` (no pruning) put together from the replays node by node:
    the reach top-down (parents first), the terminals, then the values bottom-up with each
    node's update and sums. Updates ``st``; returns the root's values (H[trav],). For the
    test that the replays are the walk's work (small games: (N, H) arrays)."""
    from solver.cfr.walk import root_reach

    if co[DERIVE] == 0.0:
        raise ValueError("the replays cover rules that play RM of their regrets (dcfr-tuned)")
    game = rp.game
    t = game.tree
    n, h = game.num_nodes, rp.sc.reach.shape[1]
    dtype = rp.sc.reach.dtype
    REn = np.zeros((n, h), dtype=dtype)
    VAn = np.zeros((n, h), dtype=dtype)
    root = np.zeros(h)
    root_reach(game.hands, 1 - trav, root)
    REn[0] = root
    for v in range(n):
        one = np.array([v], dtype=np.int64)
        if t.kind[v] == CHANCE:
            rp.run("chance: reach", st, co, trav, REn, VAn, one)
        elif t.kind[v] == DECISION and t.player[v] != trav:
            rp.run("opp: σ + reach", st, co, trav, REn, VAn, one)
        elif t.kind[v] == DECISION:
            for c in game.children(v):
                REn[c] = REn[v]
    for phase in ("fold", "showdown", "runout"):
        rp.run(phase, st, co, trav, REn, VAn)
    for v in range(n - 1, -1, -1):
        one = np.array([v], dtype=np.int64)
        if t.kind[v] == CHANCE:
            rp.run("chance: values", st, co, trav, REn, VAn, one)
        elif t.kind[v] == DECISION and t.player[v] != trav:
            rp.run("opp: values", st, co, trav, REn, VAn, one)
            rp.run("average sums", st, co, trav, REn, VAn, one)
        elif t.kind[v] == DECISION:
            # the mix reads the regrets before the update, which reads the mix's values
            rp.run("trav: values", st, co, trav, REn, VAn, one)
            rp.run("trav: update", st, co, trav, REn, VAn, one)
    return np.asarray(VAn[0, : game.hands.num_hands[trav]], dtype=np.float64)


# ----- the command --------------------------------------------------------------------------
# the floor's byte groups: each phase's node kind in floor.py's model and the categories that
# must come from memory (vectors are one row per depth, in L1: not counted)
GROUPS = {
    "traverser's nodes": (("trav: values", "trav: update"), "decision (traverser)",
                          ("regrets", "scales", "tree", "tables")),
    "opponent's nodes": (("opp: σ + reach", "opp: values"), "decision (opponent)",
                         ("regrets", "tree", "tables")),
    "average sums": (("average sums",), "decision (opponent)", ("sums", "scales")),
    "chance nodes": (("chance: reach", "chance: values"), "chance", ("tree", "tables")),
    "fold": (("fold",), "fold", ("tree", "tables")),
    "showdown": (("showdown",), "showdown", ("tree", "tables")),
    "runout": (("runout",), "runout", ("tree", "tables")),
}  # fmt: skip


def _copy(st: Storage) -> Storage:
    return Storage._make(a.copy() if isinstance(a, np.ndarray) else a for a in st)


def group_bytes(model: floor.ByteModel) -> dict[str, float]:
    """Per group of :data:`GROUPS`, the bytes an iteration must move from memory: its node
    kind's storage and tree fields, and floor.py's tables read once a pass shared out by the
    kinds' reads per visit (a board's rows are reused from cache within its subtree). They
    add up to ``model.floor_bytes``."""
    tables = model.total("tables")
    out = {}
    for name, (_, kind, cats) in GROUPS.items():
        nbytes = sum(model.kinds[kind][c] for c in cats if c != "tables")
        if "tables" in cats and tables > 0.0:
            nbytes += model.tables_unique * model.kinds[kind]["tables"] / tables
        out[name] = nbytes
    return out


def time_phases(game: Game, eng: Any, reps: int) -> dict[str, float]:
    """ms per iteration of each phase (both traversers, best of ``reps`` each) replayed
    over ``eng``'s storage (a copy) with its rule's row of an iteration the average takes;
    the average sums counted 1 / ``average_every``."""
    from solver.cfr.rules import AVG_WEIGHT
    from solver.cfr.walk import root_reach

    rows = eng.coefficients(eng.schedule_start + eng.iteration, floor.RULE_AVERAGE_EVERY)
    co = np.ascontiguousarray(rows[int(np.argmax(rows[:, AVG_WEIGHT] > 0.0))])
    st = _copy(eng.storage)
    rp = Replay(game, eng.walk_dtype)
    h = rp.sc.reach.shape[1]
    ms = dict.fromkeys(PHASES, 0.0)
    for trav in (0, 1):
        reach = np.zeros(h)
        root_reach(game.hands, 1 - trav, reach)
        values = np.linspace(-100.0, 100.0, h)  # chips: the spots' pot is 200
        for phase in PHASES:
            rp.fill(reach, values)
            rp.run(phase, st, co, trav)  # compiled or loaded outside the timing
            best = float("inf")
            for _ in range(reps):
                t0 = time.perf_counter_ns()
                rp.run(phase, st, co, trav)
                best = min(best, (time.perf_counter_ns() - t0) * 1e-6)
            ms[phase] += best
    ms["average sums"] /= floor.RULE_AVERAGE_EVERY
    return ms


def real_iteration(game: Game, threads: int, warmup: int, iterations: int) -> dict[str, Any]:
    """ms per iteration of ``dcfr-tuned`` on ``threads`` threads (default storage and
    pruning, no checks), the nodes touched / the full walk's, and per thread its split
    (:attr:`~solver.cfr.engine.Engine.thread_times`) in ms per iteration; and the engine."""
    from solver import Engine, SolveOptions
    from solver.cfr.rules import make_rule

    eng = Engine(game, make_rule(floor.RULE), options=SolveOptions(threads=threads))
    eng.iterate(warmup)
    eng.parallel.times[:] = 0
    n0 = eng.nodes_touched
    t0 = time.perf_counter_ns()
    eng.iterate(iterations)
    ms = (time.perf_counter_ns() - t0) * 1e-6 / iterations
    walked = (eng.nodes_touched - n0) / (2.0 * game.num_nodes * iterations)
    per = [{k: (v * 1e3 / iterations if k not in ("passes", "idle") else v)
            for k, v in row.items()} for row in eng.thread_times]  # fmt: skip
    return {"ms": ms, "walked": walked, "threads": per, "engine": eng}


def _positive(text: str) -> int:
    n = int(text)
    if n < 1:
        raise argparse.ArgumentTypeError(f"must be ≥ 1, got {n}")
    return n


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spots", default="T1,F1s", help="R1, T1, F1s, F3")
    parser.add_argument("--warmup", type=_positive, default=4)
    parser.add_argument("--iterations", type=_positive, default=6)
    parser.add_argument("--reps", type=_positive, default=5)
    parser.add_argument("--threads", type=int, default=2,
                        help="also split a solve over this many threads (1: not)")  # fmt: skip
    parser.add_argument("--triad-mb", type=float, default=768.0)
    parser.add_argument("--no-footprint", action="store_true")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.spots = [s.strip() for s in args.spots.split(",") if s.strip()]
    if not args.spots:
        parser.error("--spots: at least one spot expected")
    bad = floor.unknown_spot(args.spots)
    if bad:
        parser.error(bad)
    cores = os.cpu_count() or 1
    if not 1 <= args.threads <= cores:
        parser.error(f"--threads: between 1 and this machine's {cores} cores, got {args.threads}")
    if not args.triad_mb > 0.0 or args.triad_mb * 1e6 > 0.5 * floor.available_bytes():
        parser.error(f"--triad-mb: above 0 and under half the free memory, got {args.triad_mb:g}")
    return args


def spot_report(spot: str, args: argparse.Namespace, dram: float) -> dict[str, Any]:
    """One spot's phases, floor and threads (``dram`` the DRAM bandwidth, bytes/s)."""
    game = floor.build_spot(spot)
    real = real_iteration(game, 1, args.warmup, args.iterations)
    eng = real.pop("engine")
    ms = time_phases(game, eng, args.reps)
    model = floor.iteration_bytes(game, eng.precision, floor.RULE_AVERAGE_EVERY)
    bw = {"memory": dram}
    footprint = floor.storage_bytes(game, eng.precision) + model.total("tree") / 2
    if not args.no_footprint and footprint < 4 * floor.l3_bytes():
        tr = floor.measure_triad(footprint / 1e6, 1, max(args.reps, 3))
        bw["footprint"] = tr.gbs_write_allocate * 1e9
    groups = {}
    per_group = group_bytes(model)
    for name, (phases, _, _) in GROUPS.items():
        nbytes = per_group[name]
        g_ms = sum(ms[p] for p in phases)
        floors = {k: nbytes / v * 1e3 for k, v in bw.items()}
        groups[name] = {
            "ms": g_ms,
            "bytes": nbytes,
            "floor_ms": floors,
            "ratio": {k: (g_ms / f if f > 0 else None) for k, f in floors.items()},
        }
    out: dict[str, Any] = {"spot": spot, "nodes": game.num_nodes, "precision": eng.precision,
                           "real_ms": real["ms"], "walked": real["walked"], "phases_ms": ms,
                           "residual_ms": real["ms"] - sum(ms.values()), "groups": groups,
                           "bandwidth": bw}  # fmt: skip
    del eng
    if args.threads > 1:
        out["split"] = real_iteration(game, args.threads, args.warmup, args.iterations)
        out["split"].pop("engine")
    return out


def _print(r: dict[str, Any]) -> None:
    real = r["real_ms"]
    print(
        f"\n## {r['spot']}: {r['nodes']:,} nodes, {r['precision']} storage, one thread: "
        f"{real:.2f} ms an iteration, {100 * r['walked']:.0f} % of the nodes touched"
    )
    print("\n| phase | ms / iteration | share of the iteration |\n|---|---:|---:|")
    for p, v in r["phases_ms"].items():
        print(f"| {p} | {v:.3f} | {100 * v / real:.1f} % |")
    total = sum(r["phases_ms"].values())
    print(f"| Σ phases | {total:.3f} | {100 * total / real:.1f} % |")
    print(
        f"| residual (traversal, stack, pruning's savings) | {r['residual_ms']:.3f} | "
        f"{100 * r['residual_ms'] / real:.1f} % |"
    )
    keys = list(r["bandwidth"])
    head = " | ".join(f"floor ms ({k}) | ours / floor ({k})" for k in keys)
    print(
        f"\n| node kind | ms / iteration | MB / iteration | {head} |\n"
        f"|---|---:|---:|{'---:|---:|' * len(keys)}"
    )
    worst = ("", 0.0)
    for name, g in r["groups"].items():
        cells = []
        for k in keys:
            f, q = g["floor_ms"][k], g["ratio"][k]
            cells.append(f"{f:.3f} | {'-' if q is None else f'{q:.1f}'}")
            if k == keys[-1] and q is not None and q > worst[1]:
                worst = (name, q)
        print(f"| {name} | {g['ms']:.3f} | {g['bytes'] / 1e6:.1f} | {' | '.join(cells)} |")
    if worst[0]:
        print(
            f"\nFurthest from its floor ({keys[-1]} bandwidth): {worst[0]}, "
            f"{worst[1]:.1f}× its floor."
        )
    sp = r.get("split")
    if sp:
        print(f"\n{len(sp['threads'])} threads: {sp['ms']:.2f} ms an iteration "
              f"({real / sp['ms']:.2f}× one thread's)\n\n| thread | collect (serial upper tree) "
              "| tasks (incl. the merge) | wait | finish (serial upper tree) | idle share |\n"
              "|---:|---:|---:|---:|---:|---:|")  # fmt: skip
        for t, row in enumerate(sp["threads"]):
            print(
                f"| {t} | {row['collect']:.3f} | {row['tasks']:.3f} | {row['wait']:.3f} | "
                f"{row['finish']:.3f} | {100 * row['idle']:.1f} % |"
            )


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    dram = floor.measure_triad(args.triad_mb, 1, args.reps).gbs_write_allocate * 1e9
    reports = []
    for spot in args.spots:
        print(f"# {spot} …", file=sys.stderr, flush=True)
        reports.append(spot_report(spot, args, dram))
    if args.json:
        print(json.dumps({"dram_bytes_per_s": dram, "spots": reports}))
        return 0
    print(f"# {platform.machine()}, {os.cpu_count()} cores, numba {numba.__version__}; rule "
          f"{floor.RULE}; DRAM triad {dram / 1e9:.2f} GB/s (write-allocate counted); "
          f"replays best of {args.reps}")  # fmt: skip
    for r in reports:
        _print(r)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
