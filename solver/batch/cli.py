"""``python -m solver batch`` and ``python -m solver report`` (registered by :mod:`solver.cli`).

``batch (--preset P | spot flags) --flops 49 [--filter KEY=V,…] [--target 1%]
[--iterations N] [--workers N] [--threads-per-solve K] [--scheduler ADDR] --db FILE
[--save-solves] [--json]`` solves every flop of the set (skipping those the database already
holds) and prints progress — done / total, flops per minute, ETA — on stderr with ``--json``
(on stdout without). With ``--json`` stdout has one JSON line per flop as it finishes
(``flop``, ``weight``, ``ev``, ``equity``, ``eqr``, ``oop_mix``, ``ip_mix``,
``exploitability_pct_pot``, ``iterations``, ``seconds``, the texture; ``"skipped": true`` for
a flop found finished in the database, ``"status": "failed"`` and ``error`` for one that
failed) and a last line with ``"final": true`` (counts, ``aggregate``, ``groups``).

``report FILE [--csv OUT] [--json] [--group KEY]`` prints the per-flop table and the weighted
aggregate; with ``--json`` one line per flop and a last line with ``"final": true`` holding
the aggregate; ``--csv`` writes the table. With ``--line LINE [--street turn|river]
[--compare DB2]`` the report is at that line of the trees (:mod:`solver.batch.linereport`).

Bad input prints one line (``error: FIELD: what``) on stderr and exits with code 2.
"""

from __future__ import annotations

import argparse
import json
import math
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from solver.batch.spec import DEFAULT_MAX_ITERATIONS, BatchError, BatchSpec, parse_filters
from solver.games.holdem import HoldemSpec

EXIT_USAGE = 2
MAX_SPEC_BYTES = 1_000_000  # a spec file (as presets: a spec is a few hundred bytes)
MAX_CONNECT_TIMEOUT_S = 3600


def add_commands(sub: Any, add_game_args: Callable[[argparse.ArgumentParser], None]) -> None:
    """Register ``batch`` and ``report`` on the CLI's subparsers."""
    b = sub.add_parser("batch", help="solve a spot on many flops (Dask), results in SQLite")
    add_game_args(b)
    b.add_argument(
        "--spec",
        default=None,
        help="a batch spec JSON file (template, flop set and solve settings, as the app and "
        "the database store it) instead of --preset/spot flags and the settings below",
    )
    b.add_argument(
        "--flops",
        default="49",
        help="flop set: 25, 49, 95, 184 (weighted subsets), all (1,755), or a list of flops "
        "('AhKd7c, Qs8s3d'); default 49",
    )
    b.add_argument(
        "--filter",
        action="append",
        default=[],
        help="KEY=VALUE[,VALUE] with KEY suits (monotone, two-tone, rainbow), pairing "
        "(unpaired, paired, trips), high (A..2) or connect (connected, semi, disconnected); "
        "repeat to combine",
    )
    b.add_argument(
        "--target",
        default="1%",
        help="exploitability target per flop: %% of the pot (1%%) or chips (default 1%%); "
        "'none' runs --iterations",
    )
    b.add_argument(
        "--iterations",
        default=str(DEFAULT_MAX_ITERATIONS),
        help=f"iteration cap per flop (default {DEFAULT_MAX_ITERATIONS})",
    )
    b.add_argument("--algorithm", default=None, help="algorithm (default dcfr-tuned)")
    b.add_argument("--every", default="10", help="measure exploitability every K iterations")
    b.add_argument("--workers", default="2", help="LocalCluster worker processes (default 2)")
    b.add_argument(
        "--threads-per-solve", default="1", help="solver threads in each worker (default 1)"
    )
    b.add_argument(
        "--scheduler", default=None, help="an existing Dask scheduler, e.g. tcp://HOST:8786"
    )
    b.add_argument("--db", required=True, help="the batch's SQLite file (created or resumed)")
    b.add_argument(
        "--save-solves",
        action="store_true",
        help="also save each flop's full solve (.npz) in FILE.solves/ (to open in Explore)",
    )
    b.add_argument(
        "--connect-timeout", default="10", help="seconds to wait for --scheduler (default 10)"
    )
    b.add_argument("--json", action="store_true", help="JSON lines output")
    r = sub.add_parser("report", help="per-flop table and weighted aggregate of a batch")
    r.add_argument("file", help="a batch database (from 'batch --db')")
    r.add_argument("--csv", default=None, help="write the per-flop table to this CSV file")
    r.add_argument(
        "--group",
        default=None,
        choices=("suits", "pairing", "high", "connect"),
        help="also print the aggregate per texture group",
    )
    r.add_argument("--json", action="store_true", help="JSON lines output")
    r.add_argument(
        "--line",
        default=None,
        help="report at this line of the trees: actions from the flop root and a card or "
        "'any' per street, e.g. 'k b:100 c any b:200' (docs/batch.md)",
    )
    r.add_argument(
        "--street",
        default=None,
        choices=("turn", "river"),
        help="with --line: group by that street's card (rank, relation to the board)",
    )
    r.add_argument("--compare", default=None, help="with --line: a second database to compare")


def _positive_int(name: str, raw: str, minimum: int = 1) -> int:
    try:
        value = int(raw)
    except ValueError:
        raise BatchError(name, f"{raw!r} is not a whole number") from None
    if value < minimum:
        raise BatchError(name, f"must be ≥ {minimum}, got {value}")
    return value


def _target_pct(raw: str, pot: float) -> float | None:
    text = raw.strip().lower()
    if text in ("none", "off", ""):
        return None
    pct = text.endswith("%")
    try:
        value = float(text.rstrip("%"))
    except ValueError:
        raise BatchError("target", f"{raw!r} is not a number (use 1% or chips)") from None
    if not (value > 0) or math.isinf(value):
        raise BatchError("target", f"must be positive, got {raw!r}")
    return value if pct else 100.0 * value / pot


@dataclass(frozen=True)
class SpotFlags:
    """What the batch commands borrow from the main command line (:mod:`solver.cli` passes
    them in, so this module does not import it back): ``read(args)`` builds a hold'em spec
    from the spot flags (ValueError saying which flag is wrong), ``flag(field)`` names the
    flag of a spec field."""

    read: Callable[[argparse.Namespace], HoldemSpec]
    flag: Callable[[str], str]


def spec_from_args(args: argparse.Namespace, spot: SpotFlags) -> BatchSpec:
    """The batch spec the flags describe; :class:`BatchError` naming the flag."""
    from solver.files.presets import PresetError, load_preset

    if args.spec is not None:
        given = (args.preset, args.pot, args.oop_range, getattr(args, "rake", None))
        if any(x is not None for x in given):
            raise BatchError("--spec", "give either --spec or --preset/spot flags, not both")
        try:
            with open(args.spec, "rb") as f:  # (at most the cap: /dev/zero ends here too)
                raw = f.read(MAX_SPEC_BYTES + 1)
        except OSError as exc:
            raise BatchError("--spec", f"cannot read {args.spec} ({exc.strerror})") from None
        if len(raw) > MAX_SPEC_BYTES:
            raise BatchError("--spec", f"{args.spec}: larger than {MAX_SPEC_BYTES:,} bytes")
        try:
            return BatchSpec.from_json(raw.decode("utf-8"))
        except (ValueError, BatchError) as exc:
            raise BatchError("--spec", f"{args.spec}: not a batch spec ({exc})") from None
    if args.game is not None:
        raise BatchError("--game", "a batch solves a hold'em spot: give --preset or spot flags")
    if args.board is not None:
        raise BatchError("--board", "a batch takes its boards from --flops")
    if args.preset is not None:
        try:
            template = load_preset(args.preset).holdem
        except PresetError as exc:
            raise BatchError("--preset", str(exc)) from None
        if template is None:
            raise BatchError("--preset", f"{args.preset!r} is not a hold'em spot")
        for flag, key in (("rake", "rake_pct"), ("rake_cap", "rake_cap")):  # over the file's
            if getattr(args, flag, None) is not None:
                template = replace(template, **{key: getattr(args, flag)})
        name = f"{args.preset} batch"
    else:
        args.board = "2s3h4d"  # stands in for each flop while the flags are read
        try:
            template = spot.read(args)
        except ValueError as exc:
            raise BatchError("spot", str(exc)) from None
        finally:
            args.board = None
        name = "custom spot batch"
    try:
        pot = float(template.pot)
    except (TypeError, ValueError):
        raise BatchError("--pot", f"{template.pot!r} is not a number") from None
    return BatchSpec(
        template=replace(template, board=""),
        flops=str(args.flops),
        filters=parse_filters(args.filter),
        algorithm=None if args.algorithm is None else str(args.algorithm).strip().lower(),
        target_pct=_target_pct(args.target, pot) if pot > 0 else None,
        max_iterations=_positive_int("--iterations", args.iterations),
        check_every=_positive_int("--every", args.every),
        threads=_positive_int("--threads-per-solve", args.threads_per_solve),
        save_solves=bool(args.save_solves),
        name=name,
    )


def _flag_of(field: str, from_preset: bool, spot: SpotFlags) -> str:
    """A BatchError field as the user wrote it: a flag, or a preset field."""
    flags = {
        "flops": "--flops",
        "filter": "--filter",
        "target": "--target",
        "iterations": "--iterations",
        "threads": "--threads-per-solve",
        "workers": "--workers",
        "scheduler": "--scheduler",
        "db": "--db",
        "algorithm": "--algorithm",
        "check_every": "--every",
    }
    if field in flags or field.startswith("--") or field == "spot":
        return flags.get(field, field)
    if from_preset and field not in ("rake_pct", "rake_cap"):  # (rake: the flag over it)
        return f"--preset: {field}"
    return spot.flag(field)


def cmd_batch(args: argparse.Namespace, spot: SpotFlags) -> int:
    from solver.batch.driver import BatchEvent, BatchProgress, run_batch
    from solver.batch.report import final_record, flop_record, format_eta, json_safe, text_table
    from solver.batch.store import BatchStore

    from_preset = args.preset is not None
    try:
        spec = spec_from_args(args, spot)
        workers = _positive_int("--workers", args.workers)
        timeout = float(args.connect_timeout)
        if not (math.isfinite(timeout) and 0 < timeout <= MAX_CONNECT_TIMEOUT_S):
            raise BatchError(
                "--connect-timeout",
                f"must be seconds from 0 to {MAX_CONNECT_TIMEOUT_S:,}, "
                f"got {args.connect_timeout!r}",
            )
    except BatchError as exc:
        return _usage(_flag_of(exc.field, from_preset, spot), exc.message)
    except ValueError:
        return _usage("--connect-timeout", f"{args.connect_timeout!r} is not a number")
    log = sys.stderr if args.json else sys.stdout

    def on_event(e: BatchEvent) -> None:
        if args.json:
            rec = flop_record(e.row)
            if e.kind == "skipped":
                rec["skipped"] = True
            print(json.dumps(json_safe(rec)), flush=True)

    def on_progress(p: BatchProgress) -> None:
        if p.message:
            print(f"batch: {p.message}", file=log, flush=True)
        elif p.state == "running" and p.last_event is not None:
            last = p.last_event
            what = "failed" if last.kind == "failed" else "done"
            print(
                f"batch: {p.done}/{p.total} flops ({last.row.flop} {what} in "
                f"{last.row.seconds:.1f} s) · {p.flops_per_min:.1f} flops/min · "
                f"ETA {format_eta(p.eta_s)}",
                file=log,
                flush=True,
            )

    # Ctrl-C and SIGTERM stop the batch cleanly (finished flops are in the database), even
    # when this process was started with SIGINT ignored (a background job of a shell)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _interrupt)
    try:
        final = run_batch(
            spec,
            args.db,
            workers=workers,
            scheduler=args.scheduler,
            on_event=on_event,
            on_progress=on_progress,
            connect_timeout=timeout,
        )
    except BatchError as exc:
        return _usage(_flag_of(exc.field, from_preset, spot), exc.message)
    with BatchStore.open(args.db) as store:
        rows = store.rows()
    if args.json:
        extra = {
            "total": final.total,
            "skipped": final.skipped,
            "state": final.state,
            "seconds": round(final.elapsed_s, 3),
            "flops_per_min": final.flops_per_min,
        }
        print(json.dumps(json_safe(final_record(rows, **extra))), flush=True)
    else:
        print(text_table(rows, limit=60))
        print(
            f"batch {final.state}: {final.done}/{final.total} flops ({final.skipped} already "
            f"in {args.db}, {final.failed} failed), {final.elapsed_s:.1f} s"
        )
    return 0 if final.failed == 0 else 1


def cmd_report(args: argparse.Namespace) -> int:
    from solver.batch.report import (
        aggregate_groups,
        final_record,
        flop_record,
        json_safe,
        table_rows,
        text_table,
        to_csv,
    )
    from solver.batch.store import BatchStore

    if args.line is not None:
        from solver.batch.linereport import cmd_line_report

        return cmd_line_report(args)
    if args.street is not None or args.compare is not None:
        return _usage("--street" if args.street else "--compare", "needs --line")
    try:
        with BatchStore.open(args.file) as store:
            rows = store.rows()
            spec = store.spec
    except BatchError as exc:
        return _usage("FILE", exc.message)
    if args.csv:
        try:
            Path(args.csv).write_text(to_csv(table_rows(rows)), encoding="utf-8")
        except OSError as exc:
            return _usage("--csv", f"cannot write {args.csv} ({exc.strerror})")
    if args.json:
        for r in rows:
            print(json.dumps(json_safe(flop_record(r))))
        extra = {"spec": spec.name, "fingerprint": spec.fingerprint()}
        print(json.dumps(json_safe(final_record(rows, **extra))))
        return 0
    total = len(spec.flop_set()) if rows else 0
    print(f"# {spec.name}: {len(rows)} of {total} flops finished ({args.file})")
    print(text_table(rows))
    if args.group:
        print()
        for g, agg in aggregate_groups(rows, args.group).items():
            v = agg["values"]
            mix = ", ".join(f"{k[4:]} {100 * x:.1f}%" for k, x in v.items() if k.startswith("oop "))
            print(
                f"{args.group}={g}: {agg['flops']} flops, weight {agg['weight']:.0f}, "
                f"OOP EV {v.get('oop_ev', math.nan):.2f}, OOP {mix}"
            )
    return 0


def _interrupt(signum: int, frame: object) -> None:
    raise KeyboardInterrupt


def _usage(field: str, message: str) -> int:
    print(f"error: {field}: {message}", file=sys.stderr)
    return EXIT_USAGE
