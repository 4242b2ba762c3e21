"""The batch driver: flops to Dask, results to SQLite as they finish.

:func:`run_batch` opens (or creates) the database, skips the flops it already holds, and
gives every other flop to a Dask cluster as one task (:func:`solver.batch.task.solve_flop`),
biggest flops first so the tail is short. Each result is written to SQLite the moment it
arrives; a flop whose solve fails is recorded with its error; a task whose worker dies is
run again by Dask's scheduler (``distributed.scheduler.allowed-failures``); stopping the
driver (:class:`threading.Event` ``stop``, Ctrl-C) cancels what is pending and loses nothing
finished.

The cluster: by default an embedded ``LocalCluster(n_workers=workers, threads_per_worker=1,
processes=True)`` — each worker a process importing the ``solver`` package this process
imports, running one solve at a time with ``spec.threads`` solver threads (keep
``workers × threads`` ≤ cores; checked). With ``scheduler="tcp://HOST:8786"`` the same tasks
go to an existing cluster (dask-scheduler / dask-worker, dask-jobqueue, Kubernetes) whose
workers have the same ``solver`` installed.

One writer: the driver holds the database's writer lease (:meth:`BatchStore.acquire_lease`)
from before it reads which flops are done until it closes the file, so a second batch on the
same database is refused naming this one (a dead one's lease is taken over), and a batch that
lost its lease stops instead of replacing another's rows.

Kernels: before the first task the driver compiles (or loads) the solve kernels into Numba's
on-disk cache in this process, so local workers load them instead of compiling at once
(:func:`solver.batch.task.warm`). A remote cluster warms each host's cache on its first task
unless the hosts share the cache (docs/batch.md).
"""

from __future__ import annotations

import logging
import os
import re
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from solver.batch.spec import BatchCost, BatchError, BatchSpec, by_size, check
from solver.batch.store import BatchStore, FlopRow
from solver.batch.task import solve_flop, warm
from solver.poker.flops import Flop

CONNECT_TIMEOUT_S = 10.0
_ADDRESS = re.compile(r"^(tcp|tls|inproc|ucx|ws|wss)://[^\s/]+(:\d+)?$|^[A-Za-z0-9_.\-\[\]:]+:\d+$")


@dataclass(frozen=True)
class BatchEvent:
    """One flop finished (``kind`` "done", "failed" or "skipped") with its stored row."""

    kind: str
    row: FlopRow


@dataclass(frozen=True)
class BatchProgress:
    """A snapshot of a batch: counts over the batch's flops; rates over this run."""

    state: str = "ready"  # ready, starting, running, done, stopped, failed
    total: int = 0
    done: int = 0  # finished (solved or failed) including those found in the database
    skipped: int = 0  # found finished in the database
    failed: int = 0
    solved_now: int = 0  # solved or failed in this run
    elapsed_s: float = 0.0  # since the first task went out
    flops_per_min: float = 0.0
    eta_s: float | None = None
    error: str = ""
    message: str = ""  # what the driver is doing (starting the cluster, warming kernels...)
    last_event: BatchEvent | None = field(default=None, repr=False)  # the flop just finished

    @property
    def finished(self) -> bool:
        return self.state in ("done", "stopped", "failed")


def check_scheduler(address: str) -> str:
    """``address`` trimmed, or :class:`BatchError` (field ``scheduler``) when malformed."""
    text = address.strip()
    if not _ADDRESS.match(text):
        raise BatchError(
            "scheduler", f"{address!r} is not a scheduler address (e.g. tcp://10.0.0.5:8786)"
        )
    return text


def check_workers(
    workers: int,
    threads: int,
    cores: int | None = None,
    names: tuple[str, str] = ("--workers", "--threads-per-solve"),
) -> None:
    """:class:`BatchError` (field ``workers``) unless ``workers`` local processes of
    ``threads`` each fit this machine's cores; ``names`` are how the caller's user knows the
    two settings (the CLI's flags, the page's fields)."""
    cores = cores or os.cpu_count() or 1
    if workers < 1:
        raise BatchError("workers", f"must be ≥ 1, got {workers}")
    if workers * threads > cores:
        raise BatchError(
            "workers",
            f"{workers} workers × {threads} threads per solve = {workers * threads} > "
            f"{cores} cores: lower {names[0]} or {names[1]}",
        )


class _Client:
    """A Dask client and (for an embedded cluster) its LocalCluster, closed together."""

    def __init__(self, scheduler: str | None, workers: int, timeout: float) -> None:
        from distributed import Client, LocalCluster

        self.cluster: Any = None
        if scheduler is None:
            self.cluster = LocalCluster(
                n_workers=workers,
                threads_per_worker=1,
                processes=True,
                dashboard_address=None,
                silence_logs=logging.ERROR,
                scheduler_port=0,
            )
            self.client = Client(self.cluster, timeout=timeout)
        else:
            try:
                self.client = Client(scheduler, timeout=timeout)
            except (OSError, TimeoutError) as exc:
                raise BatchError(
                    "scheduler", f"no Dask scheduler answers at {scheduler} ({exc})"
                ) from None

    def close(self) -> None:
        try:
            self.client.close()
        finally:
            if self.cluster is not None:
                self.cluster.close()


def run_batch(
    spec: BatchSpec,
    db: str | Path,
    workers: int = 2,
    scheduler: str | None = None,
    on_event: Callable[[BatchEvent], None] | None = None,
    on_progress: Callable[[BatchProgress], None] | None = None,
    stop: threading.Event | None = None,
    connect_timeout: float = CONNECT_TIMEOUT_S,
) -> BatchProgress:
    """Run (or resume) the batch ``spec`` into database ``db``; see the module doc.

    ``on_event`` gets each flop as it finishes (skipped flops first), ``on_progress`` a
    :class:`BatchProgress` after each. Returns the last progress (state ``done`` or
    ``stopped``). Bad input raises :class:`BatchError` before anything is written."""
    flops = check(spec)
    if scheduler is not None:
        scheduler = check_scheduler(scheduler)
    else:
        check_workers(workers, spec.threads)
    stop = stop or threading.Event()
    path = Path(db)
    # an existing file is checked, its lease taken (another batch writing it: refused) and its
    # finished flops read before anything starts; a new one is created only once the cluster
    # answers, so bad input leaves no file behind
    store: BatchStore | None = None
    client: _Client | None = None
    took_over = ""
    try:
        if path.exists():
            store = BatchStore.create_or_open(path, spec)
            took_over = _take_lease(store)
        elif not path.parent.is_dir():
            raise BatchError("db", f"{path}: folder {path.parent} does not exist")
        positions = {f.text: i for i, f in enumerate(flops)}
        rows_by_flop = {r.flop: r for r in store.rows("done")} if store else {}
        progress = BatchProgress(state="starting", total=len(flops))
        if took_over:
            _emit(on_progress, _with(progress, message=took_over))
        progress = _skip(flops, rows_by_flop, progress, on_event)
        todo = [f for f in flops if f.text not in rows_by_flop]
        _emit(on_progress, progress)
        if not todo or stop.is_set():
            return _finish(progress, "stopped" if todo else "done", on_progress)
        _emit(on_progress, _with(progress, message="starting the Dask cluster"))
        client = _Client(scheduler, workers, connect_timeout)
        if store is None:
            store = BatchStore.create_or_open(path, spec)
            took_over = _take_lease(store)
            if took_over:
                _emit(on_progress, _with(progress, message=took_over))
            # another batch may have made the file, and finished flops, since we looked
            late = {r.flop: r for r in store.rows("done") if r.flop in positions}
            progress = _skip([f for f in todo if f.text in late], late, progress, on_event)
            todo = [f for f in todo if f.text not in late]
            if not todo:
                return _finish(progress, "done", on_progress)
        if stop.is_set():
            return _finish(progress, "stopped", on_progress)
        _emit(on_progress, _with(progress, message="compiling or loading the solver's kernels"))
        if scheduler is None:
            warm(spec)
        else:  # one warm-up on the cluster first, so not every worker compiles at once
            client.client.submit(_warm_task, spec.to_json(), pure=False).result()
        order = by_size(spec, todo)
        spec_json = spec.to_json()
        run = uuid.uuid4().hex[:8]
        futures = {
            client.client.submit(solve_flop, spec_json, f.text, key=f"flop-{f.text}-{run}"): f
            for f in order
        }
        started = time.perf_counter()
        progress = _with(progress, state="running", message=f"solving {len(todo)} flops")
        _emit(on_progress, progress)
        progress = _with(progress, message="")
        progress = _collect(
            futures, store, positions, progress, started, stop, on_event, on_progress
        )
        return _finish(progress, "stopped" if stop.is_set() else "done", on_progress)
    finally:
        if client is not None:
            client.close()
        if store is not None:
            store.close()


def _take_lease(store: BatchStore) -> str:
    """Take the database's writer lease (BatchError naming a live holder); what to say when
    a dead batch's lease was taken over, else ""."""
    dead = store.acquire_lease()
    if dead is None:
        return ""
    return f"taking over {store.path} from a batch that is gone ({dead.describe()})"


def _skip(
    flops: list[Flop] | tuple[Flop, ...],
    rows: dict[str, FlopRow],
    progress: BatchProgress,
    on_event: Callable[[BatchEvent], None] | None,
) -> BatchProgress:
    """Count (and announce) the ``flops`` found finished in the database (``rows``)."""
    for f in flops:
        if f.text in rows:
            event = BatchEvent("skipped", rows[f.text])
            progress = _advance(progress, event, counted_now=False)
            if on_event:
                on_event(event)
    return progress


def _warm_task(spec_json: str) -> float:
    return warm(BatchSpec.from_json(spec_json))


def _collect(
    futures: dict[Any, Flop],
    store: BatchStore,
    positions: dict[str, int],
    progress: BatchProgress,
    started: float,
    stop: threading.Event,
    on_event: Callable[[BatchEvent], None] | None,
    on_progress: Callable[[BatchProgress], None] | None,
) -> BatchProgress:
    from distributed import as_completed

    pending = dict(futures)
    ac = as_completed(list(futures))
    while pending and not stop.is_set():
        ready = ac.next_batch(block=False)
        if not ready:  # nothing finished: look at the stop flag again soon
            time.sleep(0.1)
            progress = _with(progress, elapsed_s=time.perf_counter() - started)
            continue
        for fut in ready:
            flop = pending.pop(fut)
            try:
                out = fut.result()
            except Exception as exc:  # the task could not run (e.g. killed worker, too often)
                if fut.status in ("pending", "lost"):
                    # it had finished, but its worker died before the result was fetched: the
                    # scheduler computes it again elsewhere, so wait for that run
                    pending[fut] = flop
                    ac.add(fut)
                    continue
                out = {"flop": flop.text, "error": f"{type(exc).__name__}: {exc}", "seconds": 0}
            fut.release()  # its result is in the database now
            row = _store(store, flop, positions[flop.text], out)
            event = BatchEvent("done" if row.done else "failed", row)
            progress = _advance(progress, event, counted_now=True)
            elapsed = time.perf_counter() - started
            rate = progress.solved_now / elapsed * 60.0 if elapsed > 0 else 0.0
            left = progress.total - progress.done
            eta = left / rate * 60.0 if rate > 0 else None
            progress = _with(progress, elapsed_s=elapsed, flops_per_min=rate, eta_s=eta)
            if on_event:
                on_event(event)
            _emit(on_progress, progress)
    for fut in pending:
        fut.cancel()
    return progress


def _store(store: BatchStore, flop: Flop, position: int, out: dict[str, Any]) -> FlopRow:
    if "error" in out:
        return store.record(flop, position, None, str(out["error"]), float(out["seconds"]))
    solve_file = ""
    blob = out.get("solve")
    if blob:
        folder = store.solve_dir()
        folder.mkdir(exist_ok=True)
        path = folder / f"{flop.text}.npz"
        path.write_bytes(blob)
        solve_file = str(path.relative_to(store.path.parent))
    seconds = float(out["seconds"])
    try:
        tree = out.get("tree")
        return store.record(flop, position, out["summary"], "", seconds, solve_file, tree)
    except BatchError as exc:  # a summary the reports could not read: the flop failed
        if exc.field != "summary":
            raise
        return store.record(flop, position, None, f"summary refused ({exc.message})", seconds)


def _with(p: BatchProgress, **changes: Any) -> BatchProgress:
    from dataclasses import replace

    return replace(p, **changes)


def _advance(p: BatchProgress, event: BatchEvent, counted_now: bool) -> BatchProgress:
    return _with(
        p,
        done=p.done + 1,
        skipped=p.skipped + (event.kind == "skipped"),
        failed=p.failed + (event.kind == "failed"),
        solved_now=p.solved_now + counted_now,
        last_event=event,
    )


def _finish(
    p: BatchProgress, state: str, on_progress: Callable[[BatchProgress], None] | None
) -> BatchProgress:
    out = _with(p, state=state, eta_s=0.0 if state == "done" else None, message="")
    _emit(on_progress, out)
    return out


def _emit(cb: Callable[[BatchProgress], None] | None, p: BatchProgress) -> None:
    if cb is not None:
        cb(p)


def target_seconds(spec: BatchSpec, cost: BatchCost) -> float | None:
    """About how long the whole batch takes to its target (seconds): every flop counted as
    the biggest (``cost``: :func:`solver.batch.spec.batch_cost`), solved for the iterations a
    DCFR-family solve typically needs to ``spec.target_pct`` % pot
    (:func:`solver.run.calibration.iterations_to`, at most the cap) and summarised,
    ``cost.workers`` at once. None without a target (the batch runs to the cap:
    ``cost.max_seconds``). Good to a factor of about two, like the Solve page's estimate."""
    from solver.run.calibration import iterations_to

    if spec.target_pct is None:
        return None
    n = iterations_to(spec.target_pct, True, spec.max_iterations)
    rounds = -(-cost.flops // max(cost.workers, 1))
    return rounds * (n * cost.seconds_per_iteration + cost.summary_seconds)
