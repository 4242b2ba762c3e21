"""Algorithm races: up to six algorithms solving the same game side by side, with fair CPU
sharing, reproducible exploitability curves, and who reaches each target first.

No Streamlit here. The pieces:

* :class:`Entry` — one algorithm with its parameters, parsed from ``NAME[:param=value;...]``
  (``cfr+:delay=100``, ``dcfr:alpha=1.5;beta=0.5;gamma=2``; case-insensitive) by
  :func:`parse_entry`; :func:`build_engine` is the one place an entry becomes a solver.
* :class:`RaceJob` — the race in background threads. Worker threads (default
  ``min(2, number of algorithms)``) repeatedly take the algorithm that has used the *least*
  CPU time so far (:func:`pick_lane`) and run one chunk of about ``chunk_s`` seconds of its
  iterations. Each algorithm's own CPU seconds are measured with :func:`time.thread_time`
  around its chunks (the kernels release the GIL, so a worker's thread time is the time its
  kernel ran), which makes curves comparable in seconds as well as in iterations whatever
  else the machine does. Exploitability is measured at a fixed schedule of iterations
  (:func:`check_schedule`), so every curve equals a solo run of the same algorithm checked at
  the same iterations; check time is not counted in the algorithm's CPU time.
* :class:`RaceProgress` — the immutable snapshot a job publishes under its lock (the threading
  contract of :mod:`solver.jobs`: only the worker holding an algorithm touches its engine;
  readers only ever see snapshots).
* :func:`standings` and :func:`winners` — iterations and CPU seconds to each target (first
  check at or below it), final exploitability, and the winner per target; :func:`table_rows`,
  :func:`markdown_table` and :func:`race_csv` render them.
* :data:`DEMOS` — the ready-made races of the app, the CLI and ``benchmarks/race.py``.

Lifecycle: a started race counts among :func:`solver.jobs.live_jobs` (so ``stop_all``, the
``atexit`` hook and the app's session reaper end it) until its threads are gone.
"""

from __future__ import annotations

import csv
import io
import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from solver.algorithms import (
    ALGORITHMS,
    AlgorithmRule,
    check_options,
    check_pruning,
    default_pruning,
    make_algorithm,
    make_solver,
)
from solver.cfr.options import finite
from solver.cfr.protocol import Solver
from solver.games.model import Game
from solver.jobs import (
    DONE,
    FAILED,
    FINISHED,
    PAUSED,
    READY,
    RUNNING,
    STOPPED,
    ThreadOwner,
    track,
)
from solver.presets import load_preset
from solver.quoting import brief

MAX_ALGORITHMS = 6
MAX_TARGETS = 6
DEFAULT_ITERATIONS = 1000
DEFAULT_CHUNK_S = 0.075  # seconds of one algorithm's work per chunk (stop latency)
# Renard R10 mantissas: ten checks per decade
_R10 = (1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0)


class EntryError(ValueError):
    """An algorithm entry that cannot be used; the message quotes the bad part."""


class TargetError(ValueError):
    """A target list that cannot be used; the message quotes the bad item."""


# ----- algorithm entries --------------------------------------------------------------------
def _num(v: float) -> str:
    return f"{v:g}"


@dataclass(frozen=True)
class Entry:
    """One racer: a registered algorithm ``name`` (:data:`solver.algorithms.ALGORITHMS`:
    full-width rules and Monte Carlo CFR) with the parameters that differ from its defaults
    (``params``, in the algorithm's order), its ``pruning`` ("" = the algorithm's default),
    the ``seed`` of a sampling algorithm, and a display ``label``.

    Build with :meth:`of` or :func:`parse_entry` (they validate and normalise, so two entries
    describing the same algorithm are equal). ``text`` is the canonical
    ``NAME[:param=value;...;pruning=MODE;seed=N]`` form, the key under which results are
    reported."""

    name: str
    params: tuple[tuple[str, float], ...] = ()
    label: str = ""
    pruning: str = ""
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.label:
            parts = [f"{k}={_num(v)}" for k, v in self.params]
            if self.pruning:
                parts.append(f"{self.pruning} pruning")
            if self.seed:
                parts.append(f"seed {self.seed}")
            label = f"{self.name} ({', '.join(parts)})" if parts else self.name
            object.__setattr__(self, "label", label)

    @classmethod
    def of(
        cls,
        name: str,
        params: dict[str, float] | None = None,
        source: str = "",
        pruning: str | None = None,
        seed: int = 0,
    ) -> Entry:
        """A validated entry: ``name`` (any case), ``params`` (defaults may be included;
        they are dropped), ``pruning`` (None or the algorithm's default: dropped) and
        ``seed`` (kept for sampling algorithms only). Raises :class:`EntryError` quoting
        ``source`` (or the name)."""
        where = repr(source or name)
        key = name.strip().lower()
        if key not in ALGORITHMS:
            raise EntryError(f"{where}: unknown algorithm {key!r} (known: {', '.join(ALGORITHMS)})")
        given = {k.strip().lower(): v for k, v in (params or {}).items()}
        errors = check_options(key, given, pruning=pruning, seed=seed)
        if errors:
            raise EntryError(f"{where}: {next(iter(errors.values()))}")
        rule = make_algorithm(key, **{k: float(v) for k, v in given.items()})
        mode = check_pruning(key, pruning)
        info = ALGORITHMS[key]
        defaults = info.defaults
        full = rule.params()
        kept = tuple(
            (k, full[k])
            for k in defaults
            if k in given and not _same(full[k], defaults[k])  # a default adds nothing
        )
        shown = "" if mode == default_pruning(key) else mode
        return cls(key, kept, pruning=shown, seed=seed if info.sampling else 0)

    @property
    def text(self) -> str:
        """``NAME`` or ``NAME:param=value;...`` (parseable by :func:`parse_entry`)."""
        parts = [f"{k}={_num(v)}" for k, v in self.params]
        if self.pruning:
            parts.append(f"pruning={self.pruning}")
        if self.seed:
            parts.append(f"seed={self.seed}")
        return self.name + (":" + ";".join(parts) if parts else "")

    def rule(self) -> AlgorithmRule:
        """The rule object this entry runs."""
        return make_algorithm(self.name, **dict(self.params))

    def all_params(self) -> dict[str, float]:
        """Every parameter of the algorithm, defaults included."""
        return self.rule().params()


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def parse_entry(text: str) -> Entry:
    """``NAME[:param=value;param=value]`` → :class:`Entry` (case-insensitive; values are
    numbers, ``inf``/``-inf`` allowed; besides the algorithm's own parameters,
    ``pruning=none|partial|interval|total`` and, for sampling algorithms, ``seed=N``).
    Errors quote the entry and name the bad part."""
    if not isinstance(text, str):
        raise EntryError(
            f"an algorithm entry must be text (NAME[:param=value;...]), got {brief(text)}"
        )
    raw = text.strip()
    if not raw:
        raise EntryError("empty algorithm entry (expected NAME or NAME:param=value;...)")
    head, sep, rest = raw.partition(":")
    name = head.strip().lower()
    if name not in ALGORITHMS:
        raise EntryError(f"{raw!r}: unknown algorithm {name!r} (known: {', '.join(ALGORITHMS)})")
    allowed = ALGORITHMS[name].defaults
    params: dict[str, float] = {}
    pruning: str | None = None
    seed = 0
    if sep and not rest.strip():
        raise EntryError(f"{raw!r}: nothing after ':' (expected param=value;...)")
    seen: set[str] = set()
    for item in rest.split(";") if sep else []:
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or not key:
            raise EntryError(f"{raw!r}: {item.strip()!r} is not param=value")
        if key in seen:
            raise EntryError(f"{raw!r}: parameter {key!r} given twice")
        seen.add(key)
        if key == "pruning":
            pruning = value.strip().lower()
            continue
        if key == "seed":
            if not ALGORITHMS[name].sampling:
                raise EntryError(f"{raw!r}: seed is for sampling algorithms, not {name}")
            try:
                seed = int(value.strip())
            except ValueError:
                raise EntryError(
                    f"{raw!r}: seed: {value.strip()!r} is not a whole number"
                ) from None
            continue
        if key not in allowed:
            opts = ", ".join(
                [*allowed, "pruning"] + (["seed"] if ALGORITHMS[name].sampling else [])
            )
            raise EntryError(f"{raw!r}: {name} has no parameter {key!r} (parameters: {opts})")
        try:
            number = float(value)
        except ValueError:
            raise EntryError(f"{raw!r}: {key}: {value.strip()!r} is not a number") from None
        if math.isnan(number):
            raise EntryError(f"{raw!r}: {key}: {value.strip()!r} is not a number")
        if math.isinf(number) and "inf" not in value.lower():  # 1e400: past the float range
            raise EntryError(
                f"{raw!r}: {key}: {value.strip()!r} is past the float range (±1.8e308); "
                "write inf or -inf where the parameter takes an infinite value"
            )
        params[key] = number
    return Entry.of(name, params, source=raw, pruning=pruning, seed=seed)


def parse_entries(items: str | Sequence[str]) -> tuple[Entry, ...]:
    """A comma-separated list (or a sequence) of entries: 1 to :data:`MAX_ALGORITHMS`, no
    algorithm twice. An entry that is not text is refused (:class:`EntryError` naming it)."""
    if not isinstance(items, str) and not isinstance(items, Sequence):
        raise EntryError(
            f"algorithm entries must be text (cfr,cfr+) or a sequence of texts, got {brief(items)}"
        )
    parts = items.split(",") if isinstance(items, str) else list(items)
    for i, part in enumerate(parts, start=1):
        if not isinstance(part, str):
            raise EntryError(f"entry {i} must be text (NAME[:param=value;...]), got {brief(part)}")
    if not any(p.strip() for p in parts):
        raise EntryError("no algorithm given (e.g. cfr,cfr+,dcfr)")
    out: list[Entry] = []
    for i, part in enumerate(parts, start=1):
        if not part.strip():
            raise EntryError(f"entry {i} is empty (entries are separated by commas)")
        out.append(parse_entry(part))
    return check_entries(out)


def check_entries(entries: Sequence[Entry]) -> tuple[Entry, ...]:
    """``entries`` if there are 1 to :data:`MAX_ALGORITHMS` of them, none twice."""
    if not entries:
        raise EntryError("no algorithm given")
    if len(entries) > MAX_ALGORITHMS:
        raise EntryError(f"at most {MAX_ALGORITHMS} algorithms, got {len(entries)}")
    seen: set[str] = set()
    for e in entries:
        if e.text in seen:
            raise EntryError(f"{e.text!r} listed twice")
        seen.add(e.text)
    return tuple(entries)


def build_engine(game: Game, entry: Entry) -> Solver:
    """The solver for ``entry`` on ``game``: the one place a race builds one (one solver
    thread per engine — the race's workers are the parallelism; storage precision "auto")."""
    return make_solver(
        game,
        entry.name,
        dict(entry.params),
        threads=1,
        precision="auto",
        pruning=entry.pruning or None,
        seed=entry.seed,
    )


# ----- targets ------------------------------------------------------------------------------
@dataclass(frozen=True)
class Target:
    """An exploitability to reach: ``chips``, and how it was given (``0.001``, ``0.3%``)."""

    chips: float
    label: str


def game_pot(game: Game) -> float | None:
    """The starting pot (chips) of a hold'em game, None for a toy game: what
    :func:`parse_targets` needs to read ``%`` targets."""
    return game.starting_pot if game.is_holdem else None


def parse_targets(text: str, pot: float | None) -> tuple[Target, ...]:
    """A comma list of exploitabilities: chips (``0.01, 1e-3``) or, when ``pot`` (the
    starting pot of a hold'em game, chips) is given, percentages of it (``1%, 0.3%``).
    Sorted from the easiest (largest) to the hardest; duplicates merged. ``text`` that is not
    text, or a ``pot`` that is not a finite number > 0: :class:`TargetError` naming it."""
    if not isinstance(text, str):
        raise TargetError(f"targets must be text (e.g. '0.01, 0.001'), got {brief(text)}")
    if pot is not None and (not finite(pot) or not pot > 0):
        raise TargetError(
            f"pot must be a finite number of chips > 0 (None: a toy game), got {brief(pot)}"
        )
    items = [t.strip() for t in text.split(",")]
    if not any(items):
        raise TargetError("no target given (e.g. 0.01, 0.001)")
    out: dict[float, Target] = {}
    for item in items:
        if not item:
            raise TargetError("an empty target (targets are separated by commas)")
        pct = item.endswith("%")
        number = item[:-1].strip() if pct else item
        try:
            value = float(number)
        except ValueError:
            raise TargetError(f"{item!r} is not a number") from None
        if not value > 0 or math.isinf(value):
            raise TargetError(f"{item!r}: must be a positive number")
        if pct:
            if pot is None:
                raise TargetError(f"{item!r}: a percentage of the pot needs a hold'em game")
            target = Target(value / 100.0 * pot, f"{_num(value)}%")
            if not 0 < target.chips < math.inf:  # past the float range, or below it
                raise TargetError(f"{item!r}: {target.chips:g} chips is not a usable target")
        else:
            target = Target(value, _num(value))
        out.setdefault(target.chips, target)
    if len(out) > MAX_TARGETS:
        raise TargetError(f"at most {MAX_TARGETS} targets, got {len(out)}")
    return tuple(sorted(out.values(), key=lambda t: -t.chips))


DEFAULT_TARGETS_HOLDEM = "1%, 0.3%, 0.1%"
DEFAULT_TARGETS_TOY = "0.01, 0.001, 0.0001"


def default_targets(pot: float | None) -> tuple[Target, ...]:
    """1 %, 0.3 % and 0.1 % of the pot for hold'em (``pot`` given); 0.01, 0.001 and 0.0001
    chips for the toy games."""
    return parse_targets(DEFAULT_TARGETS_TOY if pot is None else DEFAULT_TARGETS_HOLDEM, pot)


# ----- the schedule and the scheduler (pure) ------------------------------------------------
def check_schedule(max_iterations: int) -> tuple[int, ...]:
    """Iterations at which exploitability is measured: the Renard R10 series rounded half up
    to whole iterations (1, 2, 3, 4, 5, 6, 8, 10, 13, 16, 20, 25, 32, 40, 50, 63, 80, 100,
    125, …: ten per decade; consecutive checks at most 30 % apart, 28 % from 100 on, which
    bounds how far an "iterations to target" can be past the true crossing) up to
    ``max_iterations``, plus ``max_iterations`` itself."""
    if max_iterations < 1:
        raise ValueError("max_iterations must be ≥ 1")
    out: set[int] = {max_iterations}
    k = 0
    while 10**k <= max_iterations:
        for m in _R10:
            v = int(m * 10**k + 0.5)
            if v <= max_iterations:
                out.add(v)
        k += 1
    return tuple(sorted(out))


def pick_lane(cpu_s: Sequence[float], runnable: Sequence[bool]) -> int | None:
    """Index of the runnable algorithm that has used the least CPU time so far (the lowest
    index among equals); None when none is runnable."""
    best: int | None = None
    for i, (c, ok) in enumerate(zip(cpu_s, runnable, strict=True)):
        if ok and (best is None or c < cpu_s[best]):
            best = i
    return best


def chunk_size(s_per_iteration: float, chunk_s: float, iteration: int, next_check: int) -> int:
    """Iterations for the next chunk: about ``chunk_s`` seconds at ``s_per_iteration`` (one
    iteration while it is unknown, i.e. 0), never past the next check."""
    room = next_check - iteration
    if room < 1:
        raise ValueError("the next check is not ahead")
    n = 1 if s_per_iteration <= 0 else max(1, int(chunk_s / s_per_iteration))
    return min(n, room)


# ----- snapshots ----------------------------------------------------------------------------
@dataclass(frozen=True)
class RacePoint:
    """One exploitability check of one algorithm's average strategy."""

    iteration: int
    cpu_s: float  # this algorithm's own CPU seconds in its iterations so far (checks excluded)
    wall_s: float  # race wall time at the check (pauses excluded), seconds
    nodes_touched: int  # nodes its iterations visited so far
    exploitability: float  # chips, (BR₀ + BR₁) / 2
    memory_bytes: int = 0  # what its solver holds at the check (falls while Total RBP prunes)


@dataclass(frozen=True)
class Lane:
    """One algorithm in a race snapshot."""

    entry: Entry
    state: str = READY  # READY, RUNNING, DONE, STOPPED or FAILED (see solver.jobs)
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
    return next((p for p in points if p.exploitability <= chips), None)


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


def markdown_table(progress: RaceProgress) -> str:
    """:func:`table_rows` as a markdown table (— where a target was not reached)."""
    rows = table_rows(progress)
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
            params = ";".join(f"{k}={_num(v)}" for k, v in lane.entry.all_params().items())
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


# ----- the race job -------------------------------------------------------------------------
class _Run:
    """One algorithm's mutable state. ``engine`` is touched only by the worker that set
    ``busy`` (or by the coordinator once the workers are gone); the other fields change under
    the race's lock."""

    def __init__(self, entry: Entry, engine: Solver) -> None:
        self.entry = entry
        self.engine = engine
        self.busy = False
        self.finished = False
        self.state = READY
        self.iteration = 0
        self.cpu_s = 0.0
        self.s_per_iteration = 0.0  # CPU seconds per iteration, smoothed
        self.nodes_touched = 0
        self.next_check = 0  # index into the schedule
        self.points: tuple[RacePoint, ...] = ()
        self.stopped_by = ""
        self.error = ""

    def lane(self) -> Lane:
        return Lane(
            self.entry,
            self.state,
            self.iteration,
            self.cpu_s,
            self.nodes_touched,
            self.points,
            self.stopped_by,
            self.error,
        )


class RaceJob(ThreadOwner[RaceProgress]):
    """Race ``entries`` on ``game`` in background threads (see the module docstring).

    ``max_iterations`` per algorithm; ``targets`` (chips, with labels) are what the results
    table reports; with ``stop_at_target`` an algorithm stops as soon as a check finds it at
    or below the hardest target (the race ends when every algorithm has stopped). ``workers``
    threads share the CPU (default ``min(2, len(entries))``). ``warm_up`` first runs a
    throwaway engine of each algorithm kind for one iteration and one check, untimed, so
    loading the compiled kernels is not charged to whichever algorithm runs first.
    Engines are built here (errors surface to the caller).
    """

    def __init__(
        self,
        game: Game,
        entries: Sequence[Entry],
        *,
        max_iterations: int = DEFAULT_ITERATIONS,
        targets: Sequence[Target] = (),
        stop_at_target: bool = True,
        workers: int | None = None,
        chunk_s: float = DEFAULT_CHUNK_S,
        warm_up: bool = True,
        engine_factory: Callable[[Game, Entry], Solver] = build_engine,
    ) -> None:
        entries = check_entries(entries)
        if max_iterations < 1:
            raise ValueError("max_iterations must be ≥ 1")
        if len(targets) > MAX_TARGETS:
            raise ValueError(f"at most {MAX_TARGETS} targets")
        if workers is not None and workers < 1:
            raise ValueError("workers must be ≥ 1")
        if not chunk_s > 0:
            raise ValueError("chunk_s must be > 0")
        self.game = game
        self.entries = entries
        self.max_iterations = int(max_iterations)
        self.targets = tuple(sorted(targets, key=lambda t: -t.chips))
        self.stop_at_target = stop_at_target and bool(targets)
        self.workers = min(workers if workers is not None else 2, len(entries))
        self.chunk_s = chunk_s
        self.warm_up = warm_up
        self.schedule = check_schedule(self.max_iterations)
        self._factory = engine_factory
        self._runs = [_Run(e, engine_factory(game, e)) for e in entries]
        self._lock = threading.Lock()
        self._cond = threading.Condition(self._lock)
        self._stop = threading.Event()
        self._run = threading.Event()  # set = running, clear = paused
        self._run.set()
        self._stop_reason = "stop"
        self._state = READY
        self._started_at: float | None = None  # perf_counter when the timed race began
        self._paused_s = 0.0
        self._pause_from: float | None = None
        self._error = ""
        self._stopped_by = ""
        self._thread: threading.Thread | None = None
        self._progress = RaceProgress()
        with self._lock:
            self._publish()

    # ----- control (any thread) ------------------------------------------------------------
    def start(self) -> RaceJob:
        """Start the race (once)."""
        with self._lock:
            if self._thread is not None:
                raise RuntimeError("race already started")
            self._thread = threading.Thread(target=self._main, name="race", daemon=True)
            self._state = RUNNING
            self._publish()
        track(self)
        self._thread.start()
        return self

    def pause(self) -> None:
        """Pause after the chunks in flight (each at most ~``chunk_s``)."""
        with self._lock:
            if self._state != RUNNING:
                return
            self._run.clear()
            self._pause_from = time.perf_counter()
            self._state = PAUSED
            self._publish()

    def resume(self) -> None:
        with self._lock:
            if self._state != PAUSED:
                return
            if self._pause_from is not None and self._started_at is not None:
                self._paused_s += time.perf_counter() - max(self._pause_from, self._started_at)
            self._pause_from = None
            self._state = RUNNING
            self._run.set()
            self._publish()

    def stop(self, reason: str = "stop") -> None:
        """Ask every thread to end after its current chunk (non-blocking)."""
        self._stop_reason = reason
        self._stop.set()
        self._run.set()
        with self._cond:
            self._cond.notify_all()

    @property
    def progress(self) -> RaceProgress:
        with self._lock:
            return self._progress

    # ----- internals (hold the lock where noted) -------------------------------------------
    def _wall(self) -> float:
        """Timed seconds so far, pauses excluded (lock held)."""
        if self._started_at is None:
            return 0.0
        now = time.perf_counter()
        paused = self._paused_s
        if self._pause_from is not None:
            paused += now - max(self._pause_from, self._started_at)
        return max(now - self._started_at - paused, 0.0)

    def _publish(self) -> None:
        """A new snapshot (lock held)."""
        self._progress = RaceProgress(
            state=self._state,
            lanes=tuple(r.lane() for r in self._runs),
            targets=self.targets,
            max_iterations=self.max_iterations,
            wall_s=self._wall(),
            workers=self.workers,
            stopped_by=self._stopped_by,
            error=self._error,
            starting_pot=self.game.starting_pot if self.game.is_holdem else 0.0,
            big_blind=self.game.big_blind if self.game.is_holdem else None,
        )

    def _warm(self) -> None:
        """Load the kernels every kind of engine of this race calls (untimed)."""
        seen: set[type] = set()
        for run in self._runs:
            kind = type(run.engine)
            if kind in seen or self._stop.is_set():
                continue
            seen.add(kind)
            spare = self._factory(self.game, run.entry)
            spare.iterate(1)
            spare.best_response_values()

    def _check(self, run: _Run, cpu_s: float) -> RacePoint:
        """Measure ``run``'s average strategy now (its worker or the coordinator only);
        ``cpu_s``: its CPU seconds so far."""
        eng = run.engine
        b0, b1 = eng.best_response_values()
        with self._lock:
            wall = self._wall()
        return RacePoint(
            eng.iteration, cpu_s, wall, eng.nodes_touched, 0.5 * (b0 + b1), eng.memory_bytes
        )

    def _step(self, run: _Run) -> None:
        """One chunk of ``run``'s iterations, and its check when one is due (worker thread
        holding ``run``)."""
        eng = run.engine
        due = self.schedule[run.next_check]
        n = chunk_size(run.s_per_iteration, self.chunk_s, eng.iteration, due)
        t0 = time.thread_time()
        eng.iterate(n)
        dt = time.thread_time() - t0
        point = None
        finished, why = False, ""
        cpu = run.cpu_s + dt
        if eng.iteration == due:
            point = self._check(run, cpu)
            if eng.iteration >= self.max_iterations:
                finished, why = True, "iterations"
            elif self.stop_at_target and point.exploitability <= self.targets[-1].chips:
                finished, why = True, "target"
        rate = dt / n
        with self._lock:
            run.cpu_s = cpu
            run.s_per_iteration = (
                rate if run.s_per_iteration <= 0 else 0.5 * run.s_per_iteration + 0.5 * rate
            )
            run.iteration = eng.iteration
            run.nodes_touched = eng.nodes_touched
            if point is not None:
                run.points = (*run.points, point)
                run.next_check += 1
            if finished:
                run.finished, run.state, run.stopped_by = True, DONE, why

    def _worker(self) -> None:
        runs = self._runs
        while not self._stop.is_set():
            if not self._run.is_set():
                self._run.wait(0.05)
                continue
            with self._cond:
                idx = pick_lane(
                    [r.cpu_s for r in runs], [not r.busy and not r.finished for r in runs]
                )
                if idx is None:
                    if all(r.finished for r in runs):
                        self._cond.notify_all()
                        return
                    self._cond.wait(0.05)  # the others are held by another worker
                    continue
                run = runs[idx]
                run.busy = True
                if run.state == READY:
                    run.state = RUNNING
                    self._publish()
            try:
                self._step(run)
            except Exception as exc:  # this algorithm ends; the others race on
                with self._lock:
                    run.finished, run.state = True, FAILED
                    run.error = f"{type(exc).__name__}: {exc}"
            finally:
                with self._cond:
                    run.busy = False
                    self._publish()
                    self._cond.notify_all()

    def _main(self) -> None:
        threads: list[threading.Thread] = []
        try:
            if self.warm_up:
                self._warm()
            with self._lock:
                self._started_at = time.perf_counter()
                if self._pause_from is not None:
                    self._pause_from = self._started_at
                self._publish()
            threads = [
                threading.Thread(target=self._worker, name=f"race-worker-{i}", daemon=True)
                for i in range(self.workers)
            ]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            stopped = self._stop.is_set() and not all(r.finished for r in self._runs)
            reason = self._stop_reason if stopped else ""
            if reason == "stop":  # the owner stopped it: measure where each one got to
                for run in self._runs:
                    last = run.points[-1].iteration if run.points else 0
                    if not run.finished and run.engine.iteration > last:
                        point = self._check(run, run.cpu_s)
                        with self._lock:
                            run.points = (*run.points, point)
            with self._lock:
                for run in self._runs:
                    if not run.finished:
                        run.finished, run.state, run.stopped_by = True, STOPPED, reason
                errors = [f"{r.entry.label}: {r.error}" for r in self._runs if r.error]
                self._error = "; ".join(errors)
                if self._pause_from is not None:  # stopped while paused
                    self._paused_s += time.perf_counter() - self._pause_from
                    self._pause_from = None
                if all(r.state == FAILED for r in self._runs):
                    self._state = FAILED
                else:
                    self._state = STOPPED if stopped else DONE
                self._stopped_by = reason or "finished"
                self._publish()
        except Exception as exc:  # the owner reads it from the snapshot
            self._stop.set()
            self._run.set()
            for t in threads:
                t.join()
            with self._lock:
                self._state = FAILED
                self._error = f"{type(exc).__name__}: {exc}"
                self._publish()


# ----- ready-made demos ---------------------------------------------------------------------
@dataclass(frozen=True)
class Demo:
    """A one-click race: ``preset`` (a key in ``presets/``), algorithm entries, iterations,
    targets (as :func:`parse_targets` reads them), whether each algorithm stops at the
    hardest target, and a caption saying what to look for (measured: BENCHMARKS.md)."""

    key: str
    title: str
    preset: str
    algorithms: tuple[str, ...]
    iterations: int
    targets: str
    stop_at_target: bool
    caption: str

    def entries(self) -> tuple[Entry, ...]:
        return parse_entries(list(self.algorithms))

    def game(self) -> Game:
        return load_preset(self.preset).build()


DEMOS: tuple[Demo, ...] = (
    Demo(
        key="cfr-vs-cfr+",
        title="CFR vs CFR+",
        preset="leduc",
        algorithms=("cfr", "cfr+"),
        iterations=30_000,
        targets="0.01, 0.003, 0.001",
        stop_at_target=True,
        caption=(
            "Leduc. CFR+ (regrets floored at zero, linearly weighted average) against vanilla "
            "CFR, each stopping at 0.001 chips: watch CFR+ reach every target in an order of "
            "magnitude fewer iterations and CPU seconds (the measured gaps: BENCHMARKS.md, "
            "'CFR vs CFR+')."
        ),
    ),
    Demo(
        key="libratus-endgame",
        title="CFR+ vs LCFR vs DCFR on a Libratus endgame",
        preset="libratus-3-river",
        algorithms=("cfr+", "lcfr", "dcfr"),
        iterations=12_500,
        targets="1%, 0.1%, 0.01%, 0.003%",
        stop_at_target=False,
        caption=(
            "Libratus endgame 3: a river with a small pot (500) and deep stacks (20,000), in "
            "% of the pot. LCFR is strongest early; DCFR stays at or below CFR+ and overtakes "
            "LCFR late, first to the tightest target (the checks where it happens: "
            "BENCHMARKS.md, 'CFR+ vs LCFR vs DCFR on a Libratus endgame')."
        ),
    ),
    Demo(
        key="predictive",
        title="PCFR+ vs APCFR+ vs SAPCFR+ on Leduc",
        preset="leduc",
        algorithms=("cfr+", "pcfr+", "apcfr+", "sapcfr+"),
        iterations=20_000,
        targets="1e-4, 1e-5, 1e-6",
        stop_at_target=False,
        caption=(
            "Leduc, with plain CFR+ as the reference. The prediction hurts PCFR+ here; "
            "scaling it down — per infoset (APCFR+) or by a fixed 1/3 (SAPCFR+) — fixes it: "
            "both stay level with CFR+ at first, then pull well below it (by how much: "
            "BENCHMARKS.md, 'PCFR+ vs APCFR+ vs SAPCFR+ on Leduc')."
        ),
    ),
    Demo(
        key="averaging-delay",
        title="CFR+ averaging delay 0 vs 100",
        preset="leduc",
        algorithms=("cfr+", "cfr+:delay=100"),
        iterations=5_000,
        targets="0.01, 0.001, 0.0001",
        stop_at_target=False,
        caption=(
            "Leduc. CFR+ whose average skips the first 100 iterations: uniform until then, it "
            "catches up quickly and then stays below plain CFR+ (BENCHMARKS.md, 'CFR+ "
            "averaging delay 0 vs 100')."
        ),
    ),
    Demo(
        key="mccfr",
        title="MCCFR vs full-width CFR on Leduc, by nodes touched",
        preset="leduc",
        algorithms=("cfr", "mccfr-cs", "mccfr-es", "dmccfr"),
        iterations=1_000_000,
        targets="0.3, 0.1, 0.03",
        stop_at_target=True,
        caption=(
            "Leduc, read by nodes touched as each engine counts them: the full-width engine "
            "walks a node once for all hands together, the samplers once per dealt pair, so a "
            "node is not the same work. Chance sampling needs a few times CFR's nodes; "
            "external sampling and discounted MCCFR, which play the full game (every card "
            "dealt), need far more (the counts: BENCHMARKS.md, 'MCCFR vs full-width CFR on "
            "Leduc, by nodes touched')."
        ),
    ),
    Demo(
        key="pruning",
        title="CFR pruning: none, partial, interval RBP, Total RBP",
        preset="leduc",
        algorithms=("cfr", "cfr:pruning=none", "cfr:pruning=interval", "cfr:pruning=total"),
        iterations=10_000,
        targets="0.03, 0.01, 0.003",
        stop_at_target=True,
        caption=(
            "Leduc, vanilla CFR four ways, read by nodes touched. Partial pruning (the "
            "default: skip what the opponent never reaches) gives exactly the numbers of no "
            "pruning with fewer nodes; interval RBP skips a little more; Total RBP's checks "
            "cost more nodes than it saves on a game this small (BENCHMARKS.md, 'CFR pruning: "
            "none, partial, interval RBP, Total RBP'; docs/pruning.md)."
        ),
    ),
)


def demo(key: str) -> Demo:
    """The demo called ``key``."""
    for d in DEMOS:
        if d.key == key:
            return d
    raise KeyError(f"unknown demo {key!r} (known: {', '.join(d.key for d in DEMOS)})")
