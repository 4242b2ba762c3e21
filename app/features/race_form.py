"""The Compare page's form, read from the session: the game a race would run on
(:class:`GameChoice`, its memory check), the algorithm rows (their widget keys, read as race
entries), the targets (in the game's units), and the callbacks that add and remove rows and
launch, pause, resume and stop the session's race (:func:`launch` registers it with
:func:`app.runtime.start`, so it ends like a solve).

Targets read as the Solve page's units: chips for a toy game, chips or % of the pot for a
hold'em spot, and for a preflop game big blinds, or mbb/hand with an ``mbb`` suffix
(:func:`preflop_targets`)."""

from __future__ import annotations

import functools
import json
import math
from collections.abc import Sequence
from dataclasses import asdict, dataclass

import streamlit as st

from app import spec as S
from app import state
from app.components.fields import Number
from app.jobs import stop_job
from app.runtime import start
from app.settings import SEED, read_params
from solver.algorithms import ALGORITHMS
from solver.cfr.options import check_options, sentence
from solver.games.holdem import HoldemSpec
from solver.run.jobs import RUNNING
from solver.run.race import (
    DEFAULT_TARGETS_HOLDEM,
    DEFAULT_TARGETS_TOY,
    MAX_ALGORITHMS,
    Entry,
    EntryError,
    RaceJob,
    Target,
    TargetError,
    check_entries,
    default_targets,
    parse_targets,
)
from solver.run.race.entries import number_text
from solver.run.race.targets import MAX_TARGETS

DEFAULT_GAME = "preset:leduc"
DEFAULT_ROWS = ("cfr+", "dcfr")
DEFAULT_ITERATIONS = 2000
DEFAULT_TARGETS_PREFLOP = "10 mbb, 1 mbb, 0.1 mbb"
ITERATIONS = Number("Iterations per algorithm", 1, 1e8, whole=True)
WORKERS = Number("Worker threads", 1, MAX_ALGORITHMS, whole=True)


# ----- the game -------------------------------------------------------------------------------
@dataclass(frozen=True)
class GameChoice:
    """The game a race would run on: ``source`` is None while it cannot be built."""

    label: str
    source: dict | None
    pot: float | None  # hold'em starting pot in chips; None for toy and preflop games
    error: str = ""
    spec: HoldemSpec | None = None  # hold'em games: for the memory estimate
    preflop: bool = False  # a preflop game: chips are bb, targets in bb or mbb/hand


@functools.lru_cache(maxsize=32)
def _engine_mb(spec_json: str) -> float | None:
    checked = S.check(HoldemSpec(**json.loads(spec_json)))
    return None if checked.estimate is None else float(checked.estimate.memory_mb)


def memory_error(choice: GameChoice, algorithms: int) -> str:
    """A message when ``algorithms`` engines of a hold'em game would need more than the spec's
    ``max_memory_mb`` together (each engine holds its own regrets and sums); "" otherwise."""
    if choice.spec is None:
        return ""
    per = _engine_mb(json.dumps(asdict(choice.spec), sort_keys=True))
    if per is None or per * algorithms <= choice.spec.max_memory_mb:
        return ""
    return (
        f"Memory: {algorithms} algorithms × {per:,.0f} MB = {per * algorithms:,.0f} MB, over the "
        f"{choice.spec.max_memory_mb:,.0f} MB allowed (max_memory_mb): race fewer algorithms "
        "or a smaller spot."
    )


# ----- the rows -------------------------------------------------------------------------------
def algo_key(row: int) -> str:
    return f"{state.COMPARE_ALGO}{row}"


def param_key(row: int, algo: str, name: str) -> str:
    return f"{state.COMPARE_PARAM}{row}_{algo}_{name}"


def pruning_key(row: int) -> str:
    return f"{state.COMPARE_PRUNING}{row}"


def seed_key(row: int) -> str:
    return f"{state.COMPARE_SEED}{row}"


def row_pruning(row: int, algo: str) -> str:
    """The row's pruning mode, or the algorithm's default when the row holds none of its
    modes (e.g. after switching algorithm)."""
    modes = ALGORITHMS[algo].prunings
    value = state.get(pruning_key(row))
    return value if value in modes else modes[0]


def rows() -> int:
    """How many algorithm rows the form has (1 to :data:`MAX_ALGORITHMS`)."""
    n = state.get(state.COMPARE_ROWS)
    return n if isinstance(n, int) and 1 <= n <= MAX_ALGORITHMS else len(DEFAULT_ROWS)


def unused_algorithm(row: int, names: Sequence[str]) -> str:
    """The default algorithm of a new row: the default rows' first, then the first of
    ``names`` no row above uses."""
    if row < len(DEFAULT_ROWS):
        return DEFAULT_ROWS[row]
    used = {state.get(algo_key(i)) for i in range(row)}
    return next((a for a in names if a not in used), "cfr")


def row_entries(count: int) -> tuple[tuple[Entry, ...], list[str]]:
    """The first ``count`` rows as race entries, and one message per bad row (or for the
    whole list)."""
    entries: list[Entry] = []
    errors: list[str] = []
    for i in range(count):
        algo = str(state.get(algo_key(i)))
        seed = 0
        if ALGORITHMS[algo].sampling:
            value, bad = SEED.parse(state.get(seed_key(i), "0"))
            if bad:
                errors.append(f"Algorithm {i + 1}: {bad}")
                continue
            seed = int(value or 0)
        params, bad = read_params(algo, functools.partial(param_key, i, algo))
        pruning = row_pruning(i, algo)
        checked = check_options(algo, params, pruning=pruning, seed=seed)
        if bad or checked:
            field, message = ("", bad) if bad else next(iter(checked.items()))
            shown = message if bad or field in params else sentence(message)
            errors.append(f"Algorithm {i + 1}: {shown}")
            continue
        try:
            entries.append(Entry.of(algo, params, pruning=pruning, seed=seed))
        except EntryError as exc:
            errors.append(f"Algorithm {i + 1}: {exc}")
    if not errors:
        try:
            check_entries(entries)
        except EntryError as exc:
            errors.append(f"Algorithms: {exc}")
    return tuple(entries), errors


# ----- the targets ----------------------------------------------------------------------------
def preflop_targets(text: str) -> tuple[Target, ...]:
    """A preflop race's targets: a comma list of big blinds (``0.01``, ``0.01 bb``) or
    mbb/hand (``1 mbb`` = 0.001 bb), as :class:`Target` in chips (= bb) labelled with their
    unit; sorted from the easiest; duplicates merged. A bad item: :class:`TargetError`."""
    items = [t.strip() for t in text.split(",")]
    if not any(items):
        raise TargetError("no target given (e.g. 1 mbb, 0.1 mbb)")
    out: dict[float, Target] = {}
    for item in items:
        if not item:
            raise TargetError("an empty target (targets are separated by commas)")
        low = item.lower().removesuffix("/hand").strip()
        unit, factor = ("mbb", 1e-3) if low.endswith("mbb") else ("bb", 1.0)
        number = low.removesuffix(unit).strip()
        if number.endswith("%"):
            raise TargetError(f"{item!r}: a preflop target is in bb or mbb, not % of the pot")
        try:
            value = float(number)
        except ValueError:
            raise TargetError(f"{item!r} is not a number") from None
        if not value > 0 or math.isinf(value):
            raise TargetError(f"{item!r}: must be a positive number")
        out.setdefault(value * factor, Target(value * factor, f"{number_text(value)} {unit}"))
    if len(out) > MAX_TARGETS:
        raise TargetError(f"at most {MAX_TARGETS} targets, got {len(out)}")
    return tuple(sorted(out.values(), key=lambda t: -t.chips))


def default_targets_text(choice: GameChoice) -> str:
    """What an empty targets field means for the game (shown as its placeholder)."""
    if choice.preflop:
        return DEFAULT_TARGETS_PREFLOP
    return DEFAULT_TARGETS_TOY if choice.pot is None else DEFAULT_TARGETS_HOLDEM


def chosen_targets(choice: GameChoice) -> tuple[tuple[Target, ...], str]:
    """The targets field read in the game's units (empty = the defaults for the game), and
    its error if any."""
    text = str(state.get(state.COMPARE_TARGETS) or "").strip()
    try:
        if choice.preflop:
            return preflop_targets(text or DEFAULT_TARGETS_PREFLOP), ""
        return (parse_targets(text, choice.pot) if text else default_targets(choice.pot)), ""
    except TargetError as exc:
        return (), f"Targets: {exc}"


# ----- callbacks ------------------------------------------------------------------------------
def add_row(names: Sequence[str]) -> None:
    """One more row (up to :data:`MAX_ALGORITHMS`) with an algorithm no row above uses."""
    count = rows()
    if count < MAX_ALGORITHMS:
        state.put(algo_key(count), unused_algorithm(count, names))
        state.put(state.COMPARE_ROWS, count + 1)


def remove_row(row: int) -> None:
    """Drop one row; the rows below move up with their algorithms and parameters."""
    count = rows()
    if count <= 1:
        return
    ss = st.session_state
    for j in range(row, count - 1):
        ss[algo_key(j)] = ss.get(algo_key(j + 1))
        ss[pruning_key(j)] = ss.get(pruning_key(j + 1))
        ss[seed_key(j)] = ss.get(seed_key(j + 1), 0)
        src = f"{state.COMPARE_PARAM}{j + 1}_"
        for key in [k for k in ss if str(k).startswith(src)]:
            ss[f"{state.COMPARE_PARAM}{j}_{str(key)[len(src) :]}"] = ss[key]
    last = count - 1
    for key in [k for k in ss if str(k).startswith(f"{state.COMPARE_PARAM}{last}_")]:
        del ss[key]
    ss.pop(algo_key(last), None)
    ss.pop(pruning_key(last), None)
    ss.pop(seed_key(last), None)
    state.put(state.COMPARE_ROWS, count - 1)


def launch(
    choice: GameChoice,
    entries: tuple[Entry, ...],
    targets: tuple[Target, ...],
    demo_key: str | None,
) -> None:
    """Stop the session's race, if any, and start a new one on ``choice`` (or put why not in
    :data:`state.RACE_ERROR`)."""
    state.put(state.RACE_ERROR, None)
    stop_job(state.race())
    if choice.source is None:
        state.put(state.RACE_ERROR, f"Cannot start: {choice.error}")
        return
    iterations, bad = ITERATIONS.parse(state.get(state.COMPARE_ITERATIONS))
    workers, bad_workers = WORKERS.parse(state.get(state.COMPARE_WORKERS))
    if bad or bad_workers:
        state.put(state.RACE_ERROR, f"Cannot start: {bad or bad_workers}")
        return
    try:
        game = S.build_game(choice.source)
        job = RaceJob(
            game,
            entries,
            max_iterations=int(iterations or DEFAULT_ITERATIONS),
            targets=targets,
            stop_at_target=bool(state.get(state.COMPARE_STOP_AT_TARGET)),
            workers=int(workers or 2),
        )
    except (ValueError, MemoryError) as exc:
        state.put(state.RACE_ERROR, f"Cannot start: {exc}")
        return
    state.put(state.RACE, job)
    state.put(state.RACE_GAME, choice.label)
    state.put(state.RACE_DEMO, demo_key)
    state.put(state.RACE_LAST_STATE, RUNNING)
    state.put(state.RACE_SCROLL, True)
    start(job)


def pause() -> None:
    job = state.race()
    if job is not None:
        job.pause()


def resume() -> None:
    job = state.race()
    if job is not None:
        job.resume()


def stop() -> None:
    stop_job(state.race())
