"""``python -m solver race``: several algorithms on one game, sharing the CPU fairly
(:mod:`solver.run.race`), with a table and the winners per target, or JSON lines
(docs/cli.md). Bad input: one line naming the flag, exit code 2.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable

from solver.api import exploitability_pct_pot
from solver.cfr.registry import ALGORITHMS
from solver.cli.args import UsageError
from solver.cli.args import int_arg as _int_arg
from solver.cli.args import json_line as _json_line
from solver.cli.args import params_json as _params_json
from solver.cli.multi import is_multi
from solver.cli.race_multi import cmd_race_multi
from solver.games import Game
from solver.games.model import auto_precision
from solver.run import prefetch
from solver.run.race import (
    EntryError,
    RaceJob,
    RacePoint,
    RaceProgress,
    TargetError,
    default_targets,
    game_pot,
    markdown_table,
    parse_entries,
    parse_targets,
    standings,
    winner_lines,
    winners,
)

DEFAULT_RACE = "cfr,cfr+,dcfr,pcfr+,sapcfr+"


def _point_json(p: RacePoint, algorithm: str, game: Game) -> dict[str, object]:
    out: dict[str, object] = {
        "algorithm": algorithm,
        "iteration": p.iteration,
        "cpu_s": round(p.cpu_s, 6),
        "elapsed_s": round(p.wall_s, 6),
        "nodes_touched": p.nodes_touched,
        "memory_bytes": p.memory_bytes,
        "exploitability": p.exploitability,
    }
    if game.is_holdem:
        out["exploitability_pct_pot"] = exploitability_pct_pot(game, p.exploitability)
    if game.has_rake:  # not zero-sum: half the sum of both players' gains
        out["exploitability_kind"] = "nashconv/2"
    return out


def _race_summary(progress: RaceProgress, game: Game) -> list[dict[str, object]]:
    """The final JSON lines: one per algorithm, then the winners."""
    out: list[dict[str, object]] = []
    for lane, s in zip(progress.lanes, standings(progress), strict=True):
        line: dict[str, object] = {
            "final": True,
            "algorithm": lane.entry.text,
            "label": lane.entry.label,
            "params": _params_json(lane.entry.all_params()),
            "options": lane.entry.options.to_dict(),
            "iteration": s.iteration,
            "cpu_s": round(s.cpu_s, 6),
            "nodes_touched": s.nodes_touched,
            "exploitability": s.exploitability,
            "stopped_by": lane.stopped_by,
            "targets": {
                t.label: None if h is None else {"iteration": h.iteration, "cpu_s": h.cpu_s}
                for t, h in zip(progress.targets, s.hits, strict=True)
            },
        }
        if game.is_holdem and s.exploitability is not None:
            line["exploitability_pct_pot"] = exploitability_pct_pot(game, s.exploitability)
        out.append(line)
    out.append(
        {
            "winners": {
                w.target.label: {"cpu_s": w.cpu, "iterations": list(w.iterations)}
                for w in winners(progress)
            }
        }
    )
    return out


def cmd_race(
    args: argparse.Namespace,
    game_from_args: Callable[[argparse.Namespace], Game],
    helper: prefetch.Helper,
) -> int:
    """Run ``race`` (parsed ``args``; the game from ``game_from_args``, as ``solve`` reads
    it): progress lines with ``--json``, else the table and the winners; exit code 0.
    Three-player games race on NashConv (:mod:`solver.cli.race_multi`)."""
    if is_multi(args):
        return cmd_race_multi(args)
    try:
        entries = parse_entries(args.algorithms)
    except EntryError as exc:
        raise UsageError(f"--algorithms: {exc}") from None
    iterations = _int_arg("--iterations", args.iterations, 1)
    workers = _int_arg("--threads", args.threads, 1)
    assert iterations is not None
    game = game_from_args(args)
    try:
        pot = game_pot(game)
        targets = default_targets(pot) if args.targets is None else parse_targets(args.targets, pot)
    except TargetError as exc:
        raise UsageError(f"--targets: {exc}") from None
    sampled = all(ALGORITHMS[e.name].sampling for e in entries)
    helper.use(auto_precision(game.is_holdem, game.action_size), sampled=sampled)
    job = RaceJob(
        game,
        entries,
        max_iterations=iterations,
        targets=targets,
        stop_at_target=not args.full,
        workers=workers,
    )
    seen = [0] * len(entries)
    job.start()
    try:
        while True:
            ended = not job.alive
            progress = job.progress
            if args.json:
                fresh = [
                    (p, lane.entry.text)
                    for k, lane in enumerate(progress.lanes)
                    for p in lane.points[seen[k] :]
                ]
                for p, text in sorted(fresh, key=lambda x: x[0].wall_s):
                    print(_json_line(_point_json(p, text, game)), flush=True)
                seen = [len(lane.points) for lane in progress.lanes]
            if ended:
                break
            time.sleep(0.02)
    except KeyboardInterrupt:
        job.stop()
        job.join()
        raise
    if progress.error:
        print(f"error: {progress.error}", file=sys.stderr)
    if args.json:
        for line in _race_summary(progress, game):
            print(_json_line(line), flush=True)
    else:
        unit = "% of the pot" if game.is_holdem else "chips"
        print(
            f"# {game.name}: {len(entries)} algorithms, up to {iterations:,} iterations each, "
            f"{job.workers} worker thread(s); targets {', '.join(t.label for t in targets)} "
            f"({unit}); race wall time {progress.wall_s:.2f} s"
        )
        print()
        print(markdown_table(progress))
        print()
        for sentence in winner_lines(progress):
            print(f"- {sentence}")
    return 1 if progress.error else 0
