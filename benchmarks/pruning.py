"""Pruning tables: Total RBP's space over time (Leduc, Leduc-5), and the work pruning saves
(nodes touched and seconds to exploitability targets).

Run: ``.venv/bin/python benchmarks/pruning.py [--space-iterations 100,300,1000,3000]
[--leduc5-iterations 1000,3000,10000,30000] [--targets 0.01,0.003,0.001] [--rules cfr,cfr+]
[--check-every 10,100] [--only space,limit,release,work]``.

Tables:

* **space**: per game, rule and sums threshold C, at each iteration count: the regret and
  strategy-sum entries Total RBP still needs (% of the full arrays), the bytes the solver
  holds (``memory_bytes``: regrets + sums held + the pruning bookkeeping) and the
  exploitability (chips). Brown & Sandholm 2017 (the seed) report space falling to about
  half on Leduc and by 10× on Leduc-5 (CFR+, C = 0.1). "opponent freed" rows also free
  the other player's regrets where the pruning player never comes (``rbp_free_opponent``).
* **release**: what the sums threshold costs CFR — the run's average against the same
  run's average with every sum kept, with Total RBP's checks seeing the released average
  (as a solver that freed the sums must) or the full one.
* **work**: iterations, nodes touched and seconds (iterations and pruning work, measuring
  excluded) until the exploitability of the average first drops to each target, for
  pruning none / partial / interval / total (Total RBP at each check interval of
  ``--check-every``). Nodes touched include the pruning's own
  catch-up and check walks.
"""

from __future__ import annotations

import argparse
import platform
import time

import numpy as np

from solver import make_game
from solver.algorithms import SolveOptions, make_solver
from solver.cfr.engine import Engine
from solver.games.model import Game


def space_table(game_name: str, iterations: list[int], rules: list[str], checks: list[int]) -> None:
    """``checks``: Total RBP's check intervals; those other than 10 add a row (C = 0)."""
    g = make_game(game_name)
    print(f"\n### Total RBP space — {game_name} ({g.action_size:,} regret entries)\n")
    head = "| rule | C | " + " | ".join(
        f"{t:,} it: regrets / sums held, MB, expl" for t in iterations
    )
    print(head + " |")
    print("|---|---:|" + "---:|" * len(iterations))
    for rule in rules:
        configs = [(0.0, False, 10), (0.01, False, 10), (0.1, False, 10), (0.0, True, 10)]
        configs += [(0.0, False, k) for k in checks if k != 10]
        for c, free, every in configs:
            eng = make_solver(
                g,
                rule,
                options=SolveOptions(
                    pruning="total", rbp_threshold=c, rbp_free_opponent=free, rbp_check_every=every
                ),
            )
            assert isinstance(eng, Engine)
            cells = []
            for t in iterations:
                eng.iterate(t - eng.iteration)
                assert eng.rbp is not None
                r, s = eng.rbp.held_entries()
                expl = 0.5 * sum(eng.best_response_values())
                cells.append(
                    f"{100 * r / g.action_size:.0f}% / {100 * s / g.action_size:.0f}%, "
                    f"{eng.memory_bytes / 1e6:.3f}, {expl:.2g}"
                )
            label = f"{rule}, opponent freed" if free else rule
            if every != 10:
                label += f", checks every {every}"
            print(f"| {label} | {c:g} | " + " | ".join(cells) + " |", flush=True)
    full = make_solver(g, "cfr", options=SolveOptions(pruning="none"))
    print(f"\nWithout Total RBP the solver holds {full.memory_bytes / 1e6:.3f} MB.")


def limit_table(game_name: str, iterations: int, gaps: list[float]) -> None:
    """Where Total RBP's space can go: solve the game closely (DCFR), take each player's
    counterfactual best response to the other's average, and count the infoset cells of
    D(I, a) (the owner's cells below an action) for every action whose CBV is below the
    infoset's best by more than ``gap`` × the largest |CBV| there. Theorem 2 of the seed:
    exactly these are pruned for good once T is large enough; the rest stay."""
    from solver import make_rule
    from solver.games.model import DECISION

    g = make_game(game_name)
    solved = Engine(g, make_rule("dcfr"))
    solved.iterate(iterations)
    expl = 0.5 * sum(solved.best_response_values())
    probe = make_solver(g, "cfr", options=SolveOptions(pruning="total"))
    assert isinstance(probe, Engine) and probe.rbp is not None
    probe.storage = probe.storage._replace(cumulative=solved.storage.cumulative.copy())
    avg = probe.average_strategy()
    t = g.tree
    cbv = probe.rbp.root_values(probe.storage, avg)
    print(f"\n### Total RBP's limit — {game_name} (DCFR, {iterations:,} iterations: "
          f"exploitability {expl:.2g} chips)\n")  # fmt: skip
    print("| CBV gap (share of the infoset's largest CBV) | cells below a non-CBR action | "
          "regrets held at the limit | held with the other player's freed too |")  # fmt: skip
    print("|---:|---:|---:|---:|")
    for gap in gaps:
        dead_cells = 0
        deads = []
        for p in range(2):
            nh = int(g.num_hands[p])
            dead = np.zeros((g.num_nodes, nh), dtype=bool)
            deads.append(dead)
            for node in range(g.num_nodes):  # parents come first
                fc = int(t.first_child[node])
                if fc < 0:
                    continue
                na = int(t.num_children[node])
                own = t.kind[node] == DECISION and t.player[node] == p
                if own:
                    off = int(t.offset[node])
                    blk = cbv[p][off : off + na * nh].reshape(na, nh)
                    top = np.abs(blk).max(axis=0)
                    worse = (blk < blk.max(axis=0) - gap * top) & (top > 0)
                for k in range(na):
                    dead[fc + k] = dead[node] | worse[k] if own else dead[node]
                if own:
                    dead_cells += na * int(dead[node].sum())
        share = dead_cells / g.action_size
        # rbp_free_opponent's accounting: where every hand player p can hold (the board
        # allowing) is below a non-CBR action of p's, the other player's cells go too.
        freed = 0
        for q in range(2):
            nh = int(g.num_hands[q])
            for node in range(g.num_nodes):
                if t.kind[node] != DECISION or t.player[node] != q:
                    continue
                valid = g.boards.valid[t.board[node], 1 - q, : g.num_hands[1 - q]] > 0
                blocked = bool(valid.any()) and bool(deads[1 - q][node][valid].all())
                na = int(t.num_children[node])
                freed += na * (nh if blocked else int(deads[q][node].sum()))
        both = freed / g.action_size
        print(f"| {gap:g} | {100 * share:.1f} % | {100 * (1 - share):.1f} % | "
              f"{100 * (1 - both):.1f} % |", flush=True)  # fmt: skip


def work_table(
    game_name: str, targets: list[float], max_iterations: int, every: int, checks: list[int]
) -> None:
    """``checks``: Total RBP's check intervals to run (one row each; 10 is the default)."""
    g = make_game(game_name)
    print(f"\n### Work to a target — {game_name}\n")
    head = "| rule | pruning | " + " | ".join(f"to {t:g}: iterations, nodes, s" for t in targets)
    print(head + " |")
    print("|---|---|" + "---:|" * len(targets))
    for rule, modes in (("cfr", ("none", "partial", "interval", "total")),
                        ("cfr+", ("none", "partial", "total"))):  # fmt: skip
        runs = [(m, c) for m in modes for c in (checks if m == "total" else [10])]
        for mode, check_every in runs:
            # compile first: a kernel's first call in a process is not the rule's speed
            make_solver(
                g, rule, options=SolveOptions(pruning=mode, rbp_check_every=check_every)
            ).iterate(every)
            eng = make_solver(
                g, rule, options=SolveOptions(pruning=mode, rbp_check_every=check_every)
            )
            found: dict[float, str] = {}
            spent = 0.0
            while len(found) < len(targets) and eng.iteration < max_iterations:
                t0 = time.perf_counter()
                eng.iterate(every)
                spent += time.perf_counter() - t0
                expl = 0.5 * sum(eng.best_response_values())
                for tg in targets:
                    if tg not in found and expl <= tg:
                        found[tg] = f"{eng.iteration:,}, {eng.nodes_touched:,}, {spent:.2f}"
            cells = [found.get(t, f"> {max_iterations:,}") for t in targets]
            label = mode if check_every == 10 else f"{mode}, checks every {check_every}"
            print(f"| {rule} | {label} | " + " | ".join(cells) + " |", flush=True)


def release_cost_table(game_name: str, c: float, iterations: list[int]) -> None:
    """Where CFR's exploitability goes with a sums threshold C > 0: the run's average (sums
    released) against the same run's average with every sum kept (a twin of the sums that
    the release does not touch, built from the sums' increments between releases), and a
    second run whose checks and catch-ups see that full average instead of the released
    one (the release then costs only what it drops from the final average)."""
    g = make_game(game_name)
    print(f"\n### What the sums release costs CFR — {game_name}, C = {c:g}\n")
    head = " | ".join(f"{t:,} it: released avg / all sums kept" for t in iterations)
    print(f"| checks see | {head} |")
    print("|---|" + "---:|" * len(iterations))
    for full_checks in (False, True):
        cells = _release_run(g, c, iterations, full_checks)
        label = "every sum (twin)" if full_checks else "the released average"
        print(f"| {label} | " + " | ".join(cells) + " |", flush=True)


def _release_run(g: Game, c: float, iterations: list[int], full_checks: bool) -> list[str]:
    import solver.cfr.pruning.manager as pruning_module
    from solver.cfr.update import average_strategy

    original = pruning_module.release_sums
    original_average = pruning_module.RegretPruning.average
    eng = make_solver(g, "cfr", options=SolveOptions(pruning="total", rbp_threshold=c))
    assert isinstance(eng, Engine) and eng.rbp is not None
    twin = {"sums": np.zeros(g.action_size), "last": np.zeros(g.action_size)}

    def kept() -> np.ndarray:
        cum = np.asarray(eng.storage.cumulative, dtype=np.float64)
        return twin["sums"] + cum - twin["last"]

    def release(tree, hands, st, rb, dead, avg, p, limit, freed):
        twin["sums"] = kept()
        out = original(tree, hands, st, rb, dead, avg, p, limit, freed)
        twin["last"] = np.asarray(st.cumulative, dtype=np.float64).copy()
        return out

    def full_average(self: object, st: object) -> np.ndarray:
        out = np.empty(g.action_size)
        average_strategy(g.tree, g.hands, kept(), out)
        return out

    pruning_module.release_sums = release
    if full_checks:
        pruning_module.RegretPruning.average = full_average  # type: ignore[method-assign]
    cells = []
    try:
        for t in iterations:
            eng.iterate(t - eng.iteration)
            released = 0.5 * sum(eng.best_response_values())
            saved = eng.storage.cumulative
            eng.storage = eng.storage._replace(cumulative=kept().astype(saved.dtype))
            whole = 0.5 * sum(eng.best_response_values())
            eng.storage = eng.storage._replace(cumulative=saved)
            cells.append(f"{released:.2g} / {whole:.2g}")
    finally:
        pruning_module.release_sums = original
        pruning_module.RegretPruning.average = original_average  # type: ignore[method-assign]
    return cells


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--space-iterations", default="100,300,1000,3000,10000")
    parser.add_argument("--leduc5-iterations", default="1000,3000,10000,30000")
    parser.add_argument("--targets", default="0.01,0.003,0.001")
    parser.add_argument("--max-iterations", type=int, default=20000)
    parser.add_argument("--limit-gaps", default="1e-6,1e-4,0.01,0.1")
    parser.add_argument("--rules", default="cfr,cfr+", help="space tables: rules to run")
    parser.add_argument(
        "--check-every", default="10,100", help="Total RBP check intervals (space and work tables)"
    )
    parser.add_argument(
        "--only", default="space,limit,release,work", help="tables to print (comma list)"
    )
    args = parser.parse_args()
    only = set(args.only.split(","))
    rules = args.rules.split(",")
    print(f"# machine {platform.machine()}, python {platform.python_version()}")
    checks = [int(x) for x in args.check_every.split(",")]
    if "space" in only:
        space_table("leduc", [int(x) for x in args.space_iterations.split(",")], rules, checks)
        space_table("leduc5", [int(x) for x in args.leduc5_iterations.split(",")], rules, checks)
    if "limit" in only:
        gaps = [float(x) for x in args.limit_gaps.split(",")]
        limit_table("leduc", 20000, gaps)
        limit_table("leduc5", 5000, gaps)
    if "release" in only:
        release_cost_table("leduc", 0.1, [1000, 3000, 10000])
        release_cost_table("leduc5", 0.01, [1000, 3000])
    if "work" in only:
        targets = [float(x) for x in args.targets.split(",")]
        work_table("leduc", targets, args.max_iterations, 20, checks)
        work_table("leduc5", [0.1, 0.03, 0.01], 10000, 50, checks)


if __name__ == "__main__":
    main()
