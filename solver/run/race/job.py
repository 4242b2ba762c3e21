"""The race in background threads: :class:`RaceJob`, and the pure pieces of its scheduler.

Worker threads (default ``min(2, number of algorithms)``) repeatedly take the algorithm that
has used the *least* CPU time so far (:func:`pick_lane`) and run one chunk of about
``chunk_s`` seconds of its iterations (:func:`chunk_size`). Each algorithm's own CPU seconds
are measured with :func:`time.thread_time` around its chunks (the kernels release the GIL, so
a worker's thread time is the time its kernel ran), which makes curves comparable in seconds
as well as in iterations whatever else the machine does. Exploitability is measured at a
fixed schedule of iterations (:func:`check_schedule`), so every curve equals a solo run of
the same algorithm checked at the same iterations; check time is not counted in the
algorithm's CPU time. Snapshots follow the threading contract of :mod:`solver.run.jobs`: only
the worker holding an algorithm touches its engine; readers only ever see snapshots.

A started race counts among :func:`solver.run.jobs.live_jobs` (so ``stop_all``, the ``atexit``
hook and the app's session reaper end it) until its threads are gone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence

from solver.cfr.bestresponse import measure as measure_exploitability
from solver.cfr.protocol import Solver
from solver.games.model import Game
from solver.run.jobs import (
    DONE,
    FAILED,
    PAUSED,
    READY,
    RUNNING,
    STOPPED,
    ThreadOwner,
    track,
)
from solver.run.race.entries import Entry, build_engine, check_entries
from solver.run.race.report import Lane, RacePoint, RaceProgress
from solver.run.race.targets import MAX_TARGETS, Target

DEFAULT_ITERATIONS = 1000
DEFAULT_CHUNK_S = 0.075  # seconds of one algorithm's work per chunk (stop latency)
# Renard R10 mantissas: ten checks per decade
_R10 = (1.0, 1.25, 1.6, 2.0, 2.5, 3.15, 4.0, 5.0, 6.3, 8.0)


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
        expl, _ = measure_exploitability(eng)
        with self._lock:
            wall = self._wall()
        return RacePoint(
            eng.iteration, wall, expl, eng.nodes_touched, eng.memory_bytes, cpu_s=cpu_s
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
            elif self.stop_at_target and point.metric <= self.targets[-1].chips:
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
