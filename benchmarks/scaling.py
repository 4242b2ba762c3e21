"""Scaling: iterations per second at 1 and 2 threads, each thread's idle share, and a
projection to 8 and 16 cores from the measured serial part and the tasks' sizes.

One command (issue 50, "Measure first", item 3)::

    .venv/bin/python benchmarks/scaling.py [--spots T1,F1s,F3] [--threads 1,2]
        [--warmup 4] [--iterations 10] [--rounds 3] [--project 8,16] [--breakdown] [--json]

Per spot (:mod:`benchmarks.floor`'s: T1, F1s and F3, F1s's flop with three bet sizes),
``dcfr-tuned`` with the default storage and pruning, no checks: each thread count runs
``--warmup`` iterations, then ``--iterations`` timed, ``--rounds`` times interleaved
(1, 2, 1, 2 …; the median is printed). A split solve keeps each thread's time
(:attr:`~solver.cfr.engine.Engine.thread_times`): thread 0 collects the reach at the cut
and finishes the upper tree (the serial part), every thread runs tasks, and waits — thread
0 for the other threads' last tasks, the others for thread 0's upper-tree steps and the
next pass. The idle share is a thread's waiting / its wall time.

**The projection** (a model, printed with its inputs). A pass on ``p`` threads takes the
serial upper tree ``S`` (thread 0's collect + finish per pass, measured at the largest
thread count run) plus the tasks' makespan: the tasks, sized by their subtrees' work in
hand-cells (:func:`~solver.cfr.parallel.subtree_costs`, a runout one hands × hands
product), are claimed biggest first by whichever thread is free (the engine's order), so
the makespan is list scheduling's on ``p`` threads, scaled so that the tasks' total is
the measured task time per pass (all threads' together). Assumed: a thread's task speed
stays what it was at the measured thread count (memory bandwidth per core holds: the
floor's triad says how far it does on this machine), the synchronisation stays what it
cost there (its measured per-pass remainder, ``sync``), no other load. The bounds: Amdahl's
``1 / (s + (1 − s)/p)`` with ``s`` = S / one thread's pass, and ``pass / (S + largest
task)``, which no number of threads beats. Timings mean nothing on a loaded machine.

**The breakdown** (``--breakdown``): where the largest thread count's pass loses against one
thread's pass / p, in ms per pass, from three measurements besides the timed runs. (1) Each
task's time alone and each slot's summation (the finishing thread's sum of a chance node's
children), one thread, best of a few, the call's own overhead taken off
(:func:`task_times`); the claim order replayed with those times (:func:`schedule`: every
thread claims the next task when it is free and sums a slot when it finishes the slot's last
task) gives the *tail*: the schedule's makespan less a perfect split of the same work. (2)
Every thread's CPU time in the tasks step (``time.thread_time``: time the thread was not
running is not counted, so other load's preemptions drop out — not a hypervisor's stolen
time, nor others' cache use) with one thread and with p
threads sharing the claim list, passes stepped from Python with each thread pinned to its
own core (:func:`task_cpu`): the extra CPU / p is the *side-by-side* slowdown (shared cache
and memory, false sharing, the claims' atomics). (3) The serial upper tree ``S`` from the
thread times: ``S (1 − 1/p)`` is not divided. What is left of the measured pass — the
hand-offs at the counters, a thread starting or yielding late, other load — is the *rest*.
"""

from __future__ import annotations

import argparse
import functools
import heapq
import json
import os
import statistics
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the solver package, when run as a script
sys.path.insert(0, str(HERE))

import floor  # noqa: E402
import numba  # noqa: E402

from solver.cfr.borrow import by_ref  # noqa: E402
from solver.cfr.tasks import task_done  # noqa: E402
from solver.games.model import Game  # noqa: E402


def task_costs(game: Game, threads: int) -> npt.NDArray[np.float64]:
    """(K,) each task's work in hand-cells when ``game``'s passes split over ``threads``
    threads, biggest first: the order the projection's threads claim them in (one shared
    list; the engine's threads claim from a queue each, then from the others', which ends
    as close)."""
    from solver.cfr.parallel import make_parallel
    from solver.cfr.parallel import task_costs as costs_of

    par = make_parallel(game, max(threads, 2))
    if par.task_node.size == 0:
        return np.zeros(0)
    return np.sort(costs_of(game, par.task_node))[::-1].copy()


def makespan(costs: npt.NDArray[np.float64], p: int) -> float:
    """The tasks ``costs`` (in claim order) run by ``p`` threads, each claiming the next
    when it is free: when the last one finishes."""
    if costs.size == 0:
        return 0.0
    free = [0.0] * p
    for c in costs:
        t = heapq.heappop(free)
        heapq.heappush(free, t + float(c))
    return max(free)


def schedule(
    times: npt.NDArray[np.float64], order: npt.NDArray[np.int32],
    task_slot: npt.NDArray[np.int32], slot_sum: npt.NDArray[np.float64], p: int,
    queues: list[tuple[int, int]] | None = None,
) -> tuple[float, float]:  # fmt: skip
    """The split pass's tasks step replayed: ``p`` threads each claim the next task when
    free — thread t from queue t mod Q first, then from the next queues in turn, queue q
    being ``order[a:b]`` for ``queues[q]`` = (a, b) (default: one queue, all of ``order``);
    task k takes ``times[k]``, and the thread that finishes the last task of slot s
    (``task_slot``: each task's slot) then spends ``slot_sum[s]`` summing it. Returns (when
    the last thread is done, when the first one runs out of tasks), in ``times``' units."""
    qs = queues if queues else [(0, int(order.shape[0]))]
    head = [a for a, _ in qs]
    left = np.bincount(task_slot, minlength=slot_sum.shape[0]).astype(np.int64)
    heap = [(0.0, t, -1) for t in range(p)]  # (free at, thread, the task it finishes then)
    ends = [0.0] * p
    while heap:
        at, t, k = heapq.heappop(heap)
        if k >= 0:
            s = int(task_slot[k])
            left[s] -= 1
            if left[s] == 0:
                at += float(slot_sum[s])
        for j in range(len(qs)):
            q = (t + j) % len(qs)
            if head[q] < qs[q][1]:
                nxt = int(order[head[q]])
                head[q] += 1
                heapq.heappush(heap, (at + float(times[nxt]), t, nxt))
                break
        else:
            ends[t] = at
    return max(ends), min(ends)


def _engine_parts(game: Game, warmup: int) -> tuple[Any, ...]:
    """A two-thread engine after ``warmup`` iterations and what a Python-stepped pass needs:
    (engine, game arrays, solve state)."""
    from solver import Engine, SolveOptions
    from solver.cfr.layout import game_arrays
    from solver.cfr.rules import make_rule
    from solver.cfr.walk import SolveState

    eng = Engine(game, make_rule(floor.RULE), options=SolveOptions(threads=2))
    eng.iterate(warmup)
    state = SolveState(eng.storage, eng._no_rbp, eng._locks)
    return eng, game_arrays(game), state


def _pass_rows(eng: Any, k: int) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
    """The rule's row and chance draws of the engine's ``k``-th next iteration."""
    co = np.array(eng.coefficients(eng.schedule_start + eng.iteration + k, 1)[0])
    return co, np.zeros(4)


def _best(f: Callable[[], None], n: int) -> float:
    """The shortest of ``n`` calls of ``f``, ms."""
    out = float("inf")
    for _ in range(n):
        t0 = time.perf_counter_ns()
        f()
        out = min(out, time.perf_counter_ns() - t0)
    return out * 1e-6


@numba.njit
def _task_done(tables: Any, k: np.int64, trav: np.int64, nt: np.int64) -> None:
    """task_done as the walk calls it: the tables by reference."""
    task_done(by_ref(tables), k, trav, nt)


def task_times(game: Game, warmup: int, reps: int = 5) -> dict[str, npt.NDArray[Any]]:
    """Each split task's time alone and each slot's summation, one thread, for both
    players' passes after ``warmup`` iterations: ``task_ms`` (2, K) and ``sum_ms`` (2, L),
    best of ``reps``, less an empty call's time; ``order`` (K,) the claim order,
    ``task_slot`` (K,), ``cost`` (K,) the hand-cells the order is sorted by."""
    from solver.cfr.drive import run_pass
    from solver.cfr.layout import LEAF_COLLECT, LEAF_TASKS, SlotTables
    from solver.cfr.parallel import task_costs as costs_of
    from solver.cfr.tasks import Q_END, Q_START, QUEUE

    eng, g, state = _engine_parts(game, warmup)
    lv = eng.parallel.leaves
    n_tasks, n_slots = lv.task_node.size, lv.slot_start.size - 1
    task_ms, sum_ms = np.zeros((2, n_tasks)), np.zeros((2, n_slots))
    sigma, sc = eng.storage.strategy, eng.scratch

    one_queue = np.zeros(QUEUE, dtype=np.int64)  # a queue of the one task in ``order``
    one_queue[Q_END] = 1

    def one(fl: Any, co: Any, u: Any, lvk: Any) -> None:
        lvk.claimed[:] = one_queue if lvk.order.size else 0
        run_pass(g, state, 0, sigma, co, u, fl, sc, lvk)

    def done(trav: int, k: int, s: int, before: int) -> None:
        lv.slot_done[s] = before
        tables = SlotTables(game.tree, game.hands, game.boards, lv)
        _task_done(tables, np.int64(k), np.int64(trav), np.int64(game.hands.num_hands[trav]))

    for trav in (0, 1):
        co, u = _pass_rows(eng, 0)
        fl = eng.flags(trav)
        run_pass(g, state, 0, sigma, co, u, fl._replace(leaf=LEAF_COLLECT), sc, lv)
        ft = fl._replace(leaf=LEAF_TASKS)
        empty = lv._replace(order=np.zeros(0, np.int32), claimed=np.zeros(QUEUE, np.int64))
        base = _best(functools.partial(one, ft, co, u, empty), 10 * reps)
        for k in range(n_tasks):
            lvk = lv._replace(order=np.array([k], np.int32), claimed=one_queue.copy())
            task_ms[trav, k] = max(_best(functools.partial(one, ft, co, u, lvk), reps) - base, 0.0)
        base = _best(functools.partial(done, trav, 0, 0, 0), 10 * reps)  # a count, no sum
        for s in range(n_slots):
            k0, k1 = int(lv.slot_start[s]), int(lv.slot_start[s + 1])
            f = functools.partial(done, trav, k1 - 1, s, k1 - k0 - 1)  # the slot's last task
            sum_ms[trav, s] = max(_best(f, reps) - base, 0.0)
    c = lv.claimed
    queues = np.array([(c[b + Q_START], c[b + Q_END]) for b in range(0, c.size, QUEUE)])
    return {"task_ms": task_ms, "sum_ms": sum_ms, "order": np.array(lv.order),
            "task_slot": np.array(lv.task_slot), "cost": costs_of(game, lv.task_node),
            "queues": queues}  # fmt: skip


def task_cpu(game: Game, threads: int, warmup: int, passes: int) -> list[float]:
    """Each thread's CPU time in the tasks step, ms per pass, ``threads`` threads (1 or 2)
    claiming from one list, passes stepped from Python (collect, tasks, finish; as
    :func:`~solver.cfr.parallel.parallel_pass`), thread t pinned to the t-th core this
    process may use (when there are that many). CPU time (``time.thread_time_ns``) leaves
    out the time a thread waited for a core."""
    from solver.cfr.drive import run_pass
    from solver.cfr.layout import LEAF_COLLECT, LEAF_TASKS, LEAF_USE

    if threads not in (1, 2):
        raise ValueError("task_cpu: 1 or 2 threads")
    eng, g, state = _engine_parts(game, warmup)
    par, sc, sigma = eng.parallel, eng.scratch, eng.storage.strategy
    lv = par.leaves
    mine = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else []
    cores = mine if len(mine) >= threads else []
    spent = np.zeros(threads, dtype=np.int64)

    def tasks(t: int, fl: Any, co: Any, u: Any) -> None:
        if cores:
            os.sched_setaffinity(0, {cores[t]})  # this thread only (Linux: 0 = the caller)
        t0 = time.thread_time_ns()
        run_pass(g, state, t, sigma, co, u, fl, sc if t == 0 else par.scratches[t], lv)
        spent[t] += time.thread_time_ns() - t0

    try:
        for i in range(passes + 4):  # the first 4: warming the caches, not counted
            if i == 4:
                spent[:] = 0
            trav = i % 2
            co, u = _pass_rows(eng, i // 2)
            fl = eng.flags(trav)
            run_pass(g, state, 0, sigma, co, u, fl._replace(leaf=LEAF_COLLECT), sc, lv)
            ft = fl._replace(leaf=LEAF_TASKS)
            others = [threading.Thread(target=tasks, args=(t, ft, co, u))
                      for t in range(1, threads)]  # fmt: skip
            for th in others:
                th.start()
            tasks(0, ft, co, u)
            for th in others:
                th.join()
            run_pass(g, state, 0, sigma, co, u, fl._replace(leaf=LEAF_USE), sc, lv)
    finally:
        if cores:
            os.sched_setaffinity(0, mine)
    return [float(x) * 1e-6 / passes for x in spent]


def breakdown(game: Game, args: argparse.Namespace, measured: dict[str, Any]) -> dict[str, Any]:
    """Where the largest thread count's pass goes (module docstring), ms per pass:
    ``ideal`` one thread's pass / p, then ``serial``, ``tail``, ``side_by_side`` and
    ``rest`` adding up to the measured pass; with their inputs."""
    top = max(args.threads)
    one = measured["threads"][1]["ms"] / 2.0
    pass_ms = measured["threads"][top]["ms"] / 2.0
    rows = measured["threads"][top]["per_thread"]
    serial = (rows[0]["collect"] + rows[0]["finish"]) / 2.0
    tt = task_times(game, args.warmup)
    tails, work = [], []
    queues = [(int(a), int(b)) for a, b in tt["queues"]]
    for trav in (0, 1):
        end, _ = schedule(tt["task_ms"][trav], tt["order"], tt["task_slot"], tt["sum_ms"][trav],
                          top, queues)  # fmt: skip
        total = float(tt["task_ms"][trav].sum() + tt["sum_ms"][trav].sum())
        tails.append(end - total / top)
        work.append(total)

    def shared_tail(key: npt.NDArray[np.float64], t: int) -> float:
        """The tail with one list shared by every thread, sorted by ``key`` biggest first."""
        order = np.argsort(-key, kind="stable").astype(np.int32)
        end, _ = schedule(tt["task_ms"][t], order, tt["task_slot"], tt["sum_ms"][t], top)
        return end - work[t] / top

    by_real = [shared_tail(tt["task_ms"][t], t) for t in (0, 1)]
    by_cost = [shared_tail(tt["cost"], t) for t in (0, 1)]
    cpu1, cpu2 = [], []
    for _ in range(args.rounds):  # interleaved
        cpu1.append(sum(task_cpu(game, 1, args.warmup, 2 * args.iterations)))
        cpu2.append(sum(task_cpu(game, min(top, 2), args.warmup, 2 * args.iterations)))
    c1, c2 = statistics.median(cpu1), statistics.median(cpu2)
    side = (c2 - c1) / top
    tail = statistics.fmean(tails)
    ideal = one / top
    corr = [float(np.corrcoef(tt["cost"], tt["task_ms"][t])[0, 1]) for t in (0, 1)]
    return {
        "ideal_ms": ideal, "pass_ms": pass_ms, "serial_ms": serial * (1.0 - 1.0 / top),
        "tail_ms": tail, "tail_by_measured_order_ms": statistics.fmean(by_real),
        "tail_shared_list_ms": statistics.fmean(by_cost),
        "side_by_side_ms": side, "rest_ms": pass_ms - ideal - serial * (1.0 - 1.0 / top)
        - tail - side, "task_alone_ms": statistics.fmean(work),
        "slot_sums_ms": float(tt["sum_ms"].sum()) / 2.0, "cpu_one_ms": c1, "cpu_two_ms": c2,
        "cpu_ratio": c2 / c1 if c1 > 0 else 0.0, "cost_corr": corr,
        "largest_task_ms": float(tt["task_ms"].max()),
    }  # fmt: skip


def project(
    one_pass_ms: float, serial_ms: float, tasks_ms: float, sync_ms: float,
    costs: npt.NDArray[np.float64], ps: list[int],
) -> dict[int, dict[str, float]]:  # fmt: skip
    """Per thread count p: the projected pass (ms) and speed-up over one thread's pass, the
    Amdahl bound and the largest task's bound (module docstring). ``tasks_ms``: every
    thread's task time per pass together; ``serial_ms``: the upper tree's; ``sync_ms``:
    what a pass cost beyond both at the measured thread count."""
    total = float(costs.sum())
    scale = tasks_ms / total if total > 0 else 0.0
    s = serial_ms / one_pass_ms if one_pass_ms > 0 else 0.0
    largest = float(costs.max()) * scale if costs.size else 0.0
    out = {}
    for p in ps:
        t = serial_ms + makespan(costs, p) * scale + sync_ms
        out[p] = {
            "pass_ms": t,
            "speedup": one_pass_ms / t if t > 0 else 0.0,
            "amdahl": 1.0 / (s + (1.0 - s) / p) if s < 1.0 else 1.0,
            "task_bound": one_pass_ms / (serial_ms + largest) if serial_ms + largest > 0 else 0.0,
        }
    return out


def run(game: Game, threads: int, warmup: int, iterations: int) -> dict[str, Any]:
    """One timed run: ms per iteration and, split, each thread's ms per iteration by what
    it did (and its idle share)."""
    import time

    from solver import Engine, SolveOptions
    from solver.cfr.rules import make_rule

    eng = Engine(game, make_rule(floor.RULE), options=SolveOptions(threads=threads))
    eng.iterate(warmup)
    eng.parallel.times[:] = 0
    t0 = time.perf_counter_ns()
    eng.iterate(iterations)
    ms = (time.perf_counter_ns() - t0) * 1e-6 / iterations
    rows = [
        {k: (v * 1e3 / iterations if k not in ("passes", "idle") else v) for k, v in r.items()}
        for r in eng.thread_times
    ]
    return {"ms": ms, "threads": rows if threads > 1 else []}


def _ints(text: str, name: str, parser: argparse.ArgumentParser, hi: int | None) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        parser.error(f"{name}: whole numbers separated by commas, got {text!r}")
    if not out or any(n < 1 or (hi is not None and n > hi) for n in out):
        top = f" and this machine's {hi} cores" if hi is not None else ""
        parser.error(f"{name}: each between 1{top}, got {text!r}")
    return out


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spots", default="T1,F1s,F3", help="R1, T1, F1s, F3")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--warmup", type=int, default=4)
    parser.add_argument("--iterations", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--project", default="8,16", help="thread counts to project to")
    parser.add_argument(
        "--breakdown",
        action="store_true",
        help="where the largest thread count's pass goes (module docstring)",
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.spots = [s.strip() for s in args.spots.split(",") if s.strip()]
    if not args.spots:
        parser.error("--spots: at least one spot expected")
    bad = floor.unknown_spot(args.spots)
    if bad:
        parser.error(bad)
    args.threads = _ints(args.threads, "--threads", parser, os.cpu_count() or 1)
    if 1 not in args.threads:
        parser.error("--threads: 1 is needed (the projection's baseline)")
    args.project = _ints(args.project, "--project", parser, None)
    for name in ("warmup", "iterations", "rounds"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}: must be ≥ 1, got {getattr(args, name)}")
    if args.iterations % 2 or args.warmup % 2:
        parser.error("--iterations and --warmup: even numbers (dcfr-tuned's average takes "
                     "every second iteration)")  # fmt: skip
    return args


def spot_report(spot: str, args: argparse.Namespace) -> dict[str, Any]:
    game = floor.build_spot(spot)
    runs: dict[int, list[dict[str, Any]]] = {n: [] for n in args.threads}
    for _ in range(args.rounds):
        for n in args.threads:
            runs[n].append(run(game, n, args.warmup, args.iterations))
    out: dict[str, Any] = {"spot": spot, "nodes": game.num_nodes, "threads": {}}
    for n, rs in runs.items():
        mid = sorted(rs, key=lambda r: r["ms"])[len(rs) // 2]  # the median run, whole
        out["threads"][n] = {"ms": statistics.median(r["ms"] for r in rs),
                             "per_thread": mid["threads"]}  # fmt: skip
    top = max(args.threads)
    one = out["threads"][1]["ms"] / 2.0  # a pass: half an iteration
    costs = task_costs(game, top)
    out["tasks"] = {
        "count": int(costs.size),
        "largest_share": float(costs.max() / costs.sum()) if costs.size else 0.0,
    }
    rows = out["threads"][top]["per_thread"]
    if top > 1 and rows:
        serial = (rows[0]["collect"] + rows[0]["finish"]) / 2.0
        tasks = sum(r["tasks"] for r in rows) / 2.0
        measured = out["threads"][top]["ms"] / 2.0
        sync = max(measured - serial - makespan(costs, top) * (tasks / costs.sum()), 0.0)
        out["model"] = {"serial_ms": serial, "tasks_ms": tasks, "sync_ms": sync,
                        "one_pass_ms": one, "measured_pass_ms": measured}  # fmt: skip
        out["projection"] = project(one, serial, tasks, sync, costs, [top, *args.project])
        if args.breakdown:
            out["breakdown"] = breakdown(game, args, out)
    return out


def _print(r: dict[str, Any]) -> None:
    print(f"\n## {r['spot']}: {r['nodes']:,} nodes, {r['tasks']['count']} tasks a pass "
          f"(the largest {100 * r['tasks']['largest_share']:.1f} % of the work)")  # fmt: skip
    one = r["threads"][1]["ms"]
    print("\n| threads | ms / iteration | iterations / s | speed-up | idle share per thread |\n"
          "|---:|---:|---:|---:|---|")  # fmt: skip
    for n, t in r["threads"].items():
        idle = ", ".join(f"{100 * x['idle']:.1f} %" for x in t["per_thread"]) or "-"
        print(f"| {n} | {t['ms']:.2f} | {1e3 / t['ms']:.1f} | {one / t['ms']:.2f}× | {idle} |")
    for n, t in r["threads"].items():
        if t["per_thread"]:
            print(f"\n{n} threads, ms per iteration:\n\n| thread | collect | tasks | wait | "
                  "finish |\n|---:|---:|---:|---:|---:|")  # fmt: skip
            for i, x in enumerate(t["per_thread"]):
                print(f"| {i} | {x['collect']:.3f} | {x['tasks']:.3f} | {x['wait']:.3f} | "
                      f"{x['finish']:.3f} |")  # fmt: skip
    m = r.get("model")
    if m:
        print(f"\nProjection inputs per pass: one thread {m['one_pass_ms']:.3f} ms; serial "
              f"upper tree S = {m['serial_ms']:.3f} ms; all threads' tasks "
              f"{m['tasks_ms']:.3f} ms; synchronisation left over {m['sync_ms']:.3f} ms "
              f"(measured pass {m['measured_pass_ms']:.3f} ms)")  # fmt: skip
        print("\n| threads | projected ms / pass | speed-up | Amdahl bound | largest-task "
              "bound |\n|---:|---:|---:|---:|---:|")  # fmt: skip
        for p, x in r["projection"].items():
            print(f"| {p} | {x['pass_ms']:.3f} | {x['speedup']:.2f}× | {x['amdahl']:.2f}× | "
                  f"{x['task_bound']:.2f}× |")  # fmt: skip
    b = r.get("breakdown")
    if b:
        top = max(r["threads"])
        print(f"\nWhere a {top}-thread pass goes, ms per pass (one thread's pass / {top} = "
              f"{b['ideal_ms']:.3f}, measured {b['pass_ms']:.3f}):\n\n| part | ms / pass |\n"
              "|---|---:|")  # fmt: skip
        for name, key in (("serial upper tree, undivided", "serial_ms"),
                          ("schedule tail (tasks' times alone, claim order)", "tail_ms"),
                          ("tasks slower side by side (CPU time)", "side_by_side_ms"),
                          ("rest: hand-offs, late starts, other load", "rest_ms")):  # fmt: skip
            print(f"| {name} | {b[key]:.3f} |")
        print(f"\nInputs: tasks alone {b['task_alone_ms']:.3f} ms a pass (largest "
              f"{b['largest_task_ms']:.3f}), slot sums {b['slot_sums_ms']:.3f}; tail with one list "
              f"shared by the threads, biggest first by hand-cells "
              f"{b['tail_shared_list_ms']:.3f}, by measured time "
              f"{b['tail_by_measured_order_ms']:.3f}; hand-cells vs time "
              f"correlation {b['cost_corr'][0]:.2f} / {b['cost_corr'][1]:.2f}; tasks' CPU per "
              f"pass, one thread {b['cpu_one_ms']:.3f} ms, {top} threads together "
              f"{b['cpu_two_ms']:.3f} ms ({b['cpu_ratio']:.3f}×)")  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    reports = []
    for spot in args.spots:
        print(f"# {spot} …", file=sys.stderr, flush=True)
        reports.append(spot_report(spot, args))
    if args.json:
        print(json.dumps({"spots": reports}))
        return 0
    print(f"# {os.cpu_count()} cores; rule {floor.RULE}; median of {args.rounds} rounds of "
          f"{args.iterations} iterations after {args.warmup}")  # fmt: skip
    for r in reports:
        _print(r)
    print("\nAssumed in the projection: task speed per thread and the synchronisation's cost "
          "as measured at the largest thread count run; tasks claimed biggest first by the "
          "next free thread; no other load.")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
