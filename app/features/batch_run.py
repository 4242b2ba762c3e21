"""The Reports page's batch in the session: its keys, the set-up fields read into a
:class:`~solver.batch.spec.BatchSpec`, starting and stopping the
:class:`~solver.batch.job.BatchJob`, opening a database (by name or upload) and reading its
rows, and the page's error line. No widgets are drawn here (the page draws them,
:mod:`app.screens.reports`); everything here reads and writes the session's state.

Session keys: ``rep_*`` (:data:`app.state.REPORTS_PREFIX`, widgets kept across pages with
``persist_state``) and ``reports_*`` (buttons, uploads, charts: not kept)."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from app import files, runtime, state
from app.components.fields import Number
from app.features.number_fields import read
from app.jobs import stop_job
from solver.algorithms import ALGORITHMS, default_algorithm
from solver.batch.driver import check_scheduler, check_workers
from solver.batch.job import BatchJob
from solver.batch.solvefiles import load_flop_save, read_solve_file
from solver.batch.spec import BatchError, BatchSpec, check
from solver.batch.store import BatchStore, FlopRow
from solver.files.export import LoadedSolve
from solver.poker.flops import CONNECTS, HIGH_CARDS, PAIRINGS, SUBSET_SIZES, SUIT_CLASSES

P = state.REPORTS_PREFIX
JOB = P + "job"  # the session's BatchJob (or None)
DB = P + "db"  # path of the database the report shows (str)
ERROR = P + "error"  # why the last start or open failed
ERROR_INPUTS = P + "error_inputs"  # the inputs it was about (inputs())
COST = P + "cost"  # ((spec fingerprint, threads, workers), BatchCost) last shown
LAST_STATE = P + "last_state"
FLOPS = P + "flops"
FLOP_LIST = P + "flop_list"
FILTER = P + "filter_"  # + suits / pairing / high / connect
TARGET = P + "target"
ITERATIONS = P + "iterations"
ALGORITHM = P + "algorithm"
WORKERS = P + "workers"
THREADS = P + "threads"
SCHEDULER = P + "scheduler"
DB_PATH = P + "db_path"
SAVE = P + "save"
OPEN_PATH = P + "open_path"
MAX_UPLOAD_STEM = 80  # characters of an upload's name kept in the file it is saved as

FLOP_SETS = [*(str(n) for n in SUBSET_SIZES), "all", "list"]
FILTER_VALUES = {
    "suits": SUIT_CLASSES,
    "pairing": PAIRINGS,
    "high": HIGH_CARDS,
    "connect": CONNECTS,
}
CORES = os.cpu_count() or 1
TARGET_FIELD = Number("Target (% pot)", 0.01, 100)
ITERATIONS_FIELD = Number("Iteration cap", 1, 1_000_000, whole=True)
WORKERS_FIELD = Number("Workers", 1, 256, whole=True)
THREADS_FIELD = Number("Threads per solve", 1, 256, whole=True)
NUMBER_FIELDS = {
    TARGET: TARGET_FIELD,
    ITERATIONS: ITERATIONS_FIELD,
    WORKERS: WORKERS_FIELD,
    THREADS: THREADS_FIELD,
}
ALGORITHM_NAMES = [n for n, info in ALGORITHMS.items() if not info.sampling]
DEFAULTS: dict[str, Any] = {
    FLOPS: "49",
    TARGET: "1",
    ITERATIONS: "1000",
    ALGORITHM: default_algorithm(True),
    SAVE: True,
    WORKERS: str(min(2, CORES)),
    THREADS: "1",
}
WORKER_NAMES = ("Workers", "Threads per solve")  # the flags' names as the page says them


def inputs() -> tuple[object, ...]:
    """The page's inputs as typed: an error stays shown until one of them changes."""
    keys = (FLOPS, FLOP_LIST, TARGET, ITERATIONS, ALGORITHM, WORKERS, THREADS, SCHEDULER,
            DB_PATH, OPEN_PATH, *(FILTER + k for k in FILTER_VALUES))  # fmt: skip
    return tuple(repr(state.get(k)) for k in keys)


def fail(message: str | None) -> None:
    """Show ``message`` (None: clear) under the page's inputs as they are now (paths named
    relative to the batch folder, never the server's own)."""
    state.put(ERROR, files.without_paths(message) if message else None)
    state.put(ERROR_INPUTS, inputs())


def error() -> str | None:
    """The error to show: the last one, while the inputs it was about are unchanged."""
    err = state.get(ERROR)
    return str(err) if err and state.get(ERROR_INPUTS) == inputs() else None


def batch_job() -> BatchJob | None:
    j = state.get(JOB)
    return j if isinstance(j, BatchJob) else None


def set_defaults() -> None:
    for key, value in DEFAULTS.items():
        if state.get(key) is None:
            state.put(key, value)


def slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "batch"


def number(key: str) -> float:
    """A number field's value; a bad one raises :class:`BatchError` naming the field (Start
    is disabled then, but a click may race the rerun)."""
    spec = NUMBER_FIELDS[key]
    value, bad = read(spec, key, float(DEFAULTS[key]))
    if bad or value is None:
        raise BatchError(spec.label, bad.removeprefix(f"{spec.label}: "))
    return value


def spec_from_widgets(template: Any, label: str) -> BatchSpec:
    """The batch the set-up widgets describe (not yet checked)."""
    flops = str(state.get(FLOPS) or "49")
    if flops == "list":
        flops = str(state.get(FLOP_LIST) or "").strip()
        if not flops:
            raise BatchError("flops", "type the flops of your list")
    filters = {k: list(state.get(FILTER + k) or []) for k in FILTER_VALUES}
    return BatchSpec(
        template=template,
        flops=flops,
        filters={k: v for k, v in filters.items() if v},
        algorithm=str(state.get(ALGORITHM) or default_algorithm(True)),
        target_pct=float(number(TARGET)),
        max_iterations=int(number(ITERATIONS)),
        threads=int(number(THREADS)),
        save_solves=bool(state.get(SAVE, True)),
        name=label,
    )


def start(template: Any, label: str) -> None:
    """Start button: check the batch, name its database, stop any older batch, and start
    the new one in the background (registered with the session, so it ends with it)."""
    fail(None)
    try:
        spec = spec_from_widgets(template, label)
        check(spec)
        scheduler = str(state.get(SCHEDULER) or "").strip() or None
        workers = int(number(WORKERS))
        if scheduler is not None:
            scheduler = check_scheduler(scheduler)
        else:
            check_workers(workers, spec.threads, names=WORKER_NAMES)
        name = str(state.get(DB_PATH) or "").strip()
        if not name:
            name = f"{slug(label)}-{spec.flops[:12]}-{spec.fingerprint()}.db"
            name = re.sub(r"[, ]+", "-", name)
        path = str(files.in_batch_folder(name))
        Path(path).parent.mkdir(parents=True, exist_ok=True)  # (inside the batch folder)
        if Path(path).exists():
            BatchStore.create_or_open(path, spec).close()  # another spec's file: refused now
    except BatchError as exc:
        fail(f"Cannot start: {exc.field}: {exc.message}")
        return
    stop_job(batch_job(), 60.0)
    job = BatchJob(spec, path, workers=workers, scheduler=scheduler)
    state.put(JOB, job)
    state.put(DB, path)
    state.put(LAST_STATE, "starting")
    runtime.registry().add(runtime.session_id(), job)
    job.start()


def stop() -> None:
    stop_job(batch_job(), 60.0)


def open_path() -> None:
    """Open button: the database named in the open field, inside the batch folder."""
    fail(None)
    state.put(state.REPORTS_UPLOAD_NOTE, None)
    try:
        path = files.in_batch_folder(str(state.get(OPEN_PATH) or ""))
    except BatchError as exc:
        fail(f"Cannot open: {exc.field}: {exc.message}")
        return
    if not path.is_file():
        fail(f"Cannot open: no database {files.relative_name(path)!r} in "
             f"{files.folder_label()}.")  # fmt: skip
        return
    open_db(str(path))


def on_upload() -> None:
    """The uploader's on_change: the file is written to the batch folder under a name no
    file has (``uploaded-<name>.db``, else ``uploaded-<name>-2.db``, …: an earlier upload or
    a database a batch writes is never replaced) and opened; the page says the name. A
    file the store refuses is not kept."""
    up = state.get(state.REPORTS_UPLOAD)
    state.put(state.REPORTS_UPLOAD_NOTE, None)
    if up is None:
        return
    fail(None)
    stem = f"uploaded-{slug(Path(str(up.name)).stem)[:MAX_UPLOAD_STEM]}"
    try:
        path = files.write_new(stem, ".db", up.getvalue())
    except BatchError as exc:
        fail(f"Cannot keep the upload: {exc.message}")
        return
    shown = files.relative_name(path)
    if not open_db(str(path)):
        path.unlink(missing_ok=True)  # refused: not kept
        return
    taken = "" if path.name == f"{stem}.db" else f" ({stem}.db is another file's name)"
    state.put(
        state.REPORTS_UPLOAD_NOTE, f"Upload saved as {shown!r} in {files.folder_label()}{taken}."
    )


def upload_note() -> str | None:
    """The name the last upload was saved under, in words (None: nothing to say)."""
    note = state.get(state.REPORTS_UPLOAD_NOTE)
    return str(note) if note else None


def fail_open(flop: str, message: str | None) -> None:
    """Keep why ``flop``'s solve could not be opened (None: clear) for the report's open
    buttons, which draw it beside them (inside the report's fragment)."""
    state.put(state.REPORTS_OPEN_ERROR, (flop, files.without_paths(message)) if message else None)


def open_error(flop: object) -> str | None:
    """Why the picked ``flop``'s solve could not be opened, or None."""
    held = state.get(state.REPORTS_OPEN_ERROR)
    return str(held[1]) if isinstance(held, tuple) and held[0] == flop else None


def flop_solve(path: str | Path, flop: str, solve_file: str) -> LoadedSolve:
    """``flop``'s saved solve in the database ``path`` (the row's ``solve_file``): read only
    from the database's own ``.solves`` folder, and only when it holds the batch's spot on
    that flop (:mod:`solver.batch.solvefiles`); :class:`BatchError` otherwise."""
    data = read_solve_file(Path(path), solve_file)
    _, spec = load_rows(str(path))
    return load_flop_save(data, flop, spec)


def open_db(path: str) -> bool:
    """Show the database ``path`` (checked by the store first); False when refused."""
    fail(None)
    try:
        BatchStore.open(path).close()
    except BatchError as exc:
        fail(f"Cannot open {files.relative_name(path)!r}: {exc.message}")
        return False
    job = batch_job()
    if job is not None and job.alive and str(job.db) != path:
        fail("Stop the running batch before opening another database.")
        return False
    state.put(DB, path)
    state.put(state.REPORTS_OPEN_ERROR, None)  # (about another database's flop)
    return True


def load_rows(path: str) -> tuple[list[FlopRow], BatchSpec]:
    """The database's rows and spec, read again only when the file (or its WAL) changed."""
    p = Path(path)
    sig = tuple(
        (q.stat().st_mtime_ns, q.stat().st_size) if q.exists() else None
        for q in (p, p.with_name(p.name + "-wal"))
    )
    cached = state.get(state.REPORTS_ROWS_CACHE)
    if cached is not None and cached[0] == (path, sig):
        return cached[1], cached[2]
    with BatchStore.open(path) as store:
        rows = store.rows()
        spec = store.spec
    state.put(state.REPORTS_ROWS_CACHE, ((path, sig), rows, spec))
    return rows, spec
