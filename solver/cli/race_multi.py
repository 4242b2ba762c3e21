"""``python -m solver race --game kuhn3|leduc3``: algorithms raced on a three-player game
(:mod:`solver.run.race.multi`), the race's metric being **NashConv** — the sum of the
players' Nash distances, in chips (docs/multiway.md) — never an exploitability.

Targets are NashConv in chips, or ``%`` of the pot (the antes: 3 chips). JSON lines carry the
heads-up race's fields with ``"exploitability": null`` and, beside it, ``nash_conv``,
``nash_conv_pct_pot``, ``nash_distance`` (per player, player 0 first) and
``nash_distance_pct_pot``. Flags for heads-up spots are refused naming the flag (exit 2).
"""

from __future__ import annotations

import argparse
import sys
import time

from solver.cli.args import UsageError, int_arg, json_line, params_json
from solver.games.multiway import MultiGame, multi_game
from solver.run.race import (
    EntryError,
    RaceProgress,
    TargetError,
    default_targets,
    markdown_table,
    parse_entries,
    parse_targets,
    standings,
    winner_lines,
    winners,
)
from solver.run.race.multi import (
    METRIC,
    MultiRaceJob,
    MultiRacePoint,
    multi_pot,
    multi_table_rows,
)

__all__ = ["cmd_race_multi"]

# the flags race takes on a three-player game (argparse's names)
_TAKEN = {"command", "game", "algorithms", "iterations", "targets", "threads", "full", "json"}


def _refuse_spot_flags(args: argparse.Namespace) -> None:
    for dest, value in vars(args).items():
        if dest not in _TAKEN and value not in (None, False, [], ""):
            flag = "--" + dest.replace("_", "-")
            raise UsageError(f"{flag}: not for three-player games ({args.game} takes no spot)")


def _nash_fields(p: MultiRacePoint, pot: float) -> dict[str, object]:
    return {
        "exploitability": None,  # a three-player game has none: the metric is NashConv
        "nash_conv": p.nash_conv,
        "nash_conv_pct_pot": 100.0 * p.nash_conv / pot,
        "nash_distance": list(p.nash_distance),
        "nash_distance_pct_pot": [100.0 * d / pot for d in p.nash_distance],
    }


def point_json(p: MultiRacePoint, algorithm: str, pot: float) -> dict[str, object]:
    """One check as its JSON line."""
    return {
        "algorithm": algorithm,
        "iteration": p.iteration,
        "cpu_s": round(p.cpu_s, 6),
        "elapsed_s": round(p.wall_s, 6),
        "nodes_touched": p.nodes_touched,
        "memory_bytes": p.memory_bytes,
        "metric": METRIC,
        **_nash_fields(p, pot),
    }


def race_summary(progress: RaceProgress, mgame: MultiGame) -> list[dict[str, object]]:
    """The final JSON lines: one per algorithm, then the winners."""
    pot = multi_pot(mgame)
    out: list[dict[str, object]] = []
    for lane, s in zip(progress.lanes, standings(progress), strict=True):
        line: dict[str, object] = {
            "final": True,
            "game": mgame.name,
            "players": mgame.num_players,
            "pot": pot,
            "metric": METRIC,
            "algorithm": lane.entry.text,
            "label": lane.entry.label,
            "params": params_json(lane.entry.all_params()),
            "iteration": s.iteration,
            "cpu_s": round(s.cpu_s, 6),
            "nodes_touched": s.nodes_touched,
            "exploitability": None,
            "nash_conv": None,
            "stopped_by": lane.stopped_by,
            "targets": {
                t.label: None if h is None else {"iteration": h.iteration, "cpu_s": h.cpu_s}
                for t, h in zip(progress.targets, s.hits, strict=True)
            },
        }
        last = lane.points[-1] if lane.points else None
        if isinstance(last, MultiRacePoint):
            line.update(_nash_fields(last, pot))
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


def cmd_race_multi(args: argparse.Namespace) -> int:
    """Run ``race`` on a three-player game: progress lines with ``--json``, else the table
    and the winners; exit code 0 (1 when an algorithm failed)."""
    _refuse_spot_flags(args)
    try:
        entries = parse_entries(args.algorithms)
    except EntryError as exc:
        raise UsageError(f"--algorithms: {exc}") from None
    iterations = int_arg("--iterations", args.iterations, 1)
    workers = int_arg("--threads", args.threads, 1)
    assert iterations is not None
    mgame = multi_game(args.game.strip().lower())
    pot = multi_pot(mgame)
    try:
        targets = (
            default_targets(None) if args.targets is None else parse_targets(args.targets, pot)
        )
    except TargetError as exc:
        raise UsageError(f"--targets: {exc}") from None
    try:
        job = MultiRaceJob(
            mgame,
            entries,
            max_iterations=iterations,
            targets=targets,
            stop_at_target=not args.full,
            workers=workers,
        )
    except EntryError as exc:
        raise UsageError(f"--algorithms: {exc}") from None
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
                    assert isinstance(p, MultiRacePoint)
                    print(json_line(point_json(p, text, pot)), flush=True)
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
        for line in race_summary(progress, mgame):
            print(json_line(line), flush=True)
    else:
        print(
            f"# {mgame.name} ({mgame.num_players} players): {len(entries)} algorithms, up to "
            f"{iterations:,} iterations each, {job.workers} worker thread(s); race metric "
            f"NashConv, the sum of the players' Nash distances (chips; not an "
            f"exploitability: docs/multiway.md); targets "
            f"{', '.join(t.label for t in targets)} (NashConv, chips; % of the {pot:g}-chip "
            f"pot where written so); race wall time {progress.wall_s:.2f} s"
        )
        print()
        print(markdown_table(progress, multi_table_rows(progress, pot)))
        print()
        for sentence in winner_lines(progress):
            print(f"- {sentence}")
    return 1 if progress.error else 0
