"""What a race shows: the immutable snapshot a :class:`~solver.run.race.job.RaceJob` publishes
(:class:`RaceProgress`, one :class:`Lane` per algorithm, one :class:`RacePoint` per check),
and the results read from it — :func:`standings`, :func:`winners`, and the tables
(:func:`table_rows`, :func:`markdown_table`, :func:`race_csv`, :func:`points_csv`)."""

from __future__ import annotations

import csv
import io
from collections.abc import Sequence
from dataclasses import dataclass, field

from solver.cfr.checks import Check
from solver.run.jobs import FINISHED, READY
from solver.run.race.entries import Entry, number_text
from solver.run.race.targets import Target


# ----- snapshots ----------------------------------------------------------------------------
@dataclass(frozen=True)
class RacePoint(Check):
    """One exploitability check of one algorithm's average strategy: the one record of a
    check (:class:`solver.cfr.checks.Check`; ``elapsed_s`` is the race's wall time at the
    check, pauses excluded) with the algorithm's own CPU seconds in its iterations so far
    (``cpu_s``, checks excluded; a keyword)."""

    cpu_s: float = field(kw_only=True)

    @property
    def wall_s(self) -> float:
        """The race's wall time at the check, seconds (:attr:`elapsed_s`)."""
        return self.elapsed_s

    @property
    def metric(self) -> float:
        """What targets are compared with (chips): the exploitability; on a three-player
        race (:class:`~solver.run.race.multi.MultiRacePoint`) NashConv."""
        return self.exploitability


@dataclass(frozen=True)
class Lane:
    """One algorithm in a race snapshot."""

    entry: Entry
    state: str = READY  # READY, RUNNING, DONE, STOPPED or FAILED (see solver.run.jobs)
    iteration: int = 0
    cpu_s: float = 0.0  # CPU seconds in iterations (checks excluded)
    nodes_touched: int = 0
    points: tuple[RacePoint, ...] = field(default=(), repr=False)
    stopped_by: str = ""  # "target", "iterations", "stop", "session", "exit" or ""
    error: str = ""

    @property
    def exploitability(self) -> float | None:
        """Chips at the last check (None before the first)."""
        return self.points[-1].exploitability if self.points else None


@dataclass(frozen=True)
class RaceProgress:
    """An immutable snapshot of a race; tuples only (append-only between snapshots)."""

    state: str = READY
    lanes: tuple[Lane, ...] = ()
    targets: tuple[Target, ...] = ()
    max_iterations: int = 0
    wall_s: float = 0.0  # since the race started (warm-up and pauses excluded), seconds
    workers: int = 1
    stopped_by: str = ""
    error: str = ""
    starting_pot: float = 0.0  # chips (hold'em games; 0 for toy games)
    big_blind: float | None = None  # chips (hold'em games)

    @property
    def finished(self) -> bool:
        return self.state in FINISHED


# ----- results ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Standing:
    """One algorithm's result so far: where it is and when it reached each target."""

    entry: Entry
    iteration: int
    cpu_s: float
    nodes_touched: int
    exploitability: float | None  # chips at the last check
    hits: tuple[RacePoint | None, ...]  # per target: first check at or below it, or None


@dataclass(frozen=True)
class Winner:
    """Who reached ``target`` first: in CPU seconds (one entry text, or None if nobody did)
    and in iterations (every entry text tied at the fewest; checks are at fixed iterations,
    so ties happen)."""

    target: Target
    cpu: str | None
    iterations: tuple[str, ...]


def first_hit(points: Sequence[RacePoint], chips: float) -> RacePoint | None:
    """The first check at or below ``chips``."""
    return next((p for p in points if p.metric <= chips), None)


def standings(progress: RaceProgress) -> tuple[Standing, ...]:
    """Per algorithm, in the race's order."""
    return tuple(
        Standing(
            lane.entry,
            lane.iteration,
            lane.cpu_s,
            lane.nodes_touched,
            lane.exploitability,
            tuple(first_hit(lane.points, t.chips) for t in progress.targets),
        )
        for lane in progress.lanes
    )


def winners(progress: RaceProgress) -> tuple[Winner, ...]:
    """Per target: fewest CPU seconds (ties: the earlier entry) and fewest iterations."""
    rows = standings(progress)
    out = []
    for k, target in enumerate(progress.targets):
        hits = [(s.entry.text, s.hits[k]) for s in rows if s.hits[k] is not None]
        if not hits:
            out.append(Winner(target, None, ()))
            continue
        cpu = min(hits, key=lambda h: h[1].cpu_s)[0]  # type: ignore[union-attr]
        fewest = min(h[1].iteration for h in hits)  # type: ignore[union-attr]
        its = tuple(t for t, h in hits if h.iteration == fewest)  # type: ignore[union-attr]
        out.append(Winner(target, cpu, its))
    return tuple(out)


def table_rows(progress: RaceProgress) -> list[dict[str, object]]:
    """The race table as records (None where a target was not reached): algorithm label,
    ``iterations to T`` and ``CPU s to T`` per target, then the algorithm's iterations, CPU
    seconds, nodes touched and final exploitability in chips (and % pot for hold'em)."""
    out: list[dict[str, object]] = []
    for s in standings(progress):
        row: dict[str, object] = {"algorithm": s.entry.label}
        for t, hit in zip(progress.targets, s.hits, strict=True):
            row[f"iterations to {t.label}"] = None if hit is None else hit.iteration
            row[f"CPU s to {t.label}"] = None if hit is None else hit.cpu_s
        row["iterations"] = s.iteration
        row["CPU s"] = s.cpu_s
        row["nodes touched"] = s.nodes_touched
        row["exploitability (chips)"] = s.exploitability
        if progress.starting_pot:
            row["exploitability (% pot)"] = (
                None
                if s.exploitability is None
                else 100.0 * s.exploitability / progress.starting_pot
            )
        out.append(row)
    return out


def winner_rows(progress: RaceProgress) -> list[dict[str, str]]:
    """Per target, as text: the fastest algorithm with its CPU seconds, and the one(s) with
    the fewest iterations with that count ("not reached" when nobody got there)."""
    labels = {lane.entry.text: lane.entry.label for lane in progress.lanes}
    rows = {s.entry.text: s for s in standings(progress)}
    out = []
    for k, w in enumerate(winners(progress)):
        if w.cpu is None:
            out.append(
                {"target": w.target.label, "fastest (CPU s)": "not reached",
                 "fewest iterations": "not reached"}
            )  # fmt: skip
            continue
        hit = rows[w.cpu].hits[k]
        fewest = rows[w.iterations[0]].hits[k]
        assert hit is not None and fewest is not None
        names = ", ".join(labels[t] for t in w.iterations)
        out.append(
            {
                "target": w.target.label,
                "fastest (CPU s)": f"{labels[w.cpu]} ({hit.cpu_s:.3f} s)",
                "fewest iterations": f"{names} ({fewest.iteration:,})",
            }
        )
    return out


def winner_lines(progress: RaceProgress) -> list[str]:
    """One sentence per target: fastest in CPU seconds and fewest iterations."""
    lines = []
    for r in winner_rows(progress):
        if r["fastest (CPU s)"] == "not reached":
            lines.append(f"{r['target']}: not reached")
            continue
        fastest = r["fastest (CPU s)"].replace(" s)", " CPU s)")
        fewest = r["fewest iterations"]
        lines.append(f"{r['target']}: fastest {fastest}; fewest iterations {fewest}")
    return lines


def cell_text(key: str, value: object) -> str:
    """A table cell as text: — for None, CPU seconds to 3 decimals, other floats to 4
    significant digits, whole numbers with thousands separators."""
    if value is None:
        return "—"
    if isinstance(value, float):
        if key.startswith("CPU s"):
            return f"{value:.3f}"
        return f"{value:.4g}"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def markdown_table(progress: RaceProgress, rows: list[dict[str, object]] | None = None) -> str:
    """:func:`table_rows` (or ``rows``) as a markdown table (— where a target was not
    reached)."""
    rows = table_rows(progress) if rows is None else rows
    if not rows:
        return ""
    keys = list(rows[0])
    lines = [
        "| " + " | ".join(keys) + " |",
        "|---|" + "---:|" * (len(keys) - 1),
    ]
    lines += ["| " + " | ".join(cell_text(k, r[k]) for k in keys) + " |" for r in rows]
    return "\n".join(lines)


def race_csv(progress: RaceProgress) -> bytes:
    """The race table as CSV bytes (UTF-8): :func:`table_rows` with the entry text and its
    full parameters added, numbers unrounded, empty cells where a target was not reached."""
    rows = table_rows(progress)
    buf = io.StringIO()
    if rows:
        keys = ["algorithm", "entry", "params", *list(rows[0])[1:]]
        w = csv.DictWriter(buf, fieldnames=keys, lineterminator="\n")
        w.writeheader()
        for lane, row in zip(progress.lanes, rows, strict=True):
            params = ";".join(f"{k}={number_text(v)}" for k, v in lane.entry.all_params().items())
            out = {**row, "entry": lane.entry.text, "params": params}
            w.writerow({k: "" if out[k] is None else out[k] for k in keys})
    return buf.getvalue().encode("utf-8")


def points_csv(progress: RaceProgress) -> bytes:
    """Every check of every algorithm as CSV bytes: algorithm (entry text), iteration, cpu_s,
    wall_s, nodes_touched, exploitability (chips)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(["algorithm", "iteration", "cpu_s", "wall_s", "nodes_touched", "exploitability"])
    for lane in progress.lanes:
        for p in lane.points:
            w.writerow(
                [lane.entry.text, p.iteration, p.cpu_s, p.wall_s, p.nodes_touched,
                 p.exploitability]
            )  # fmt: skip
    return buf.getvalue().encode("utf-8")
