"""A three-player solve in the background (``kuhn3``, ``leduc3``, a three-way river or turn
spot's :class:`~solver.cfr.river3_view.River3Game`; docs/multiway.md):
:class:`MultiSolveJob`, the app's job for :class:`~solver.cfr.multi_engine.MultiEngine` (or
external sampling) beside the heads-up :class:`~solver.run.jobs.SolveJob`. No Streamlit here.

The threading contract is simpler than the heads-up job's, the games being small: the job
thread runs chunks of about ``chunk_s`` seconds holding ``_engine_lock``; a reader copying
the average profile (:meth:`MultiSolveJob.average_profile`) takes the same lock, so it waits
at most one chunk and never sees an array a kernel is writing. Checks — each player's Nash
distance, NashConv, EVs (:class:`~solver.cfr.multi_solve.MultiCheckpoint`) — fall at every
multiple of ``check_every`` and at the end, so a solve stops at the same iteration with the
same numbers whatever the machine's load. ``target`` applies to the largest Nash distance;
CFR carries no guarantee with three players, so ``max_iterations`` always bounds a solve.
Snapshots (:class:`MultiProgress`) are immutable, published under a lock.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from typing import Generic, TypeVar

import numpy as np
import numpy.typing as npt

from solver.cfr.multi_solve import (
    MultiCheckpoint,
    MultiSolver,
    ThreeGame,
    checkpoint,
    engine_memory,
    game_pot,
    lock_multi_engine,
    make_multi_engine,
)
from solver.cfr.options import finite
from solver.games.multi_locks import MultiLocks
from solver.quoting import brief
from solver.run.lifecycle import (
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
from solver.run.progress import next_check

Array = npt.NDArray[np.float64]

__all__ = ["MultiProgress", "MultiSolveJob"]

G = TypeVar("G", bound=ThreeGame)


@dataclass(frozen=True)
class MultiProgress:
    """An immutable snapshot of a three-player job: its checks so far (``history``, a
    tuple of :class:`MultiCheckpoint`) and where it is."""

    state: str = READY
    iteration: int = 0
    elapsed_s: float = 0.0  # solving and checking, pauses excluded, seconds
    iterations_per_s: float = 0.0
    nodes_touched: int = 0
    memory_bytes: int = 0
    history: tuple[MultiCheckpoint, ...] = ()
    stopped_by: str = ""  # "target", "iterations", "stop", "session", "exit" or ""
    error: str = ""

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    @property
    def last(self) -> MultiCheckpoint | None:
        return self.history[-1] if self.history else None


def _whole(name: str, value: object, minimum: int) -> int:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be a whole number, got {brief(value)}")
    if value < minimum:
        raise ValueError(f"{name} must be ≥ {minimum}, got {brief(value)}")
    return int(value)


class MultiSolveJob(ThreadOwner[MultiProgress], Generic[G]):
    """One solve of the three-player ``mgame`` (a toy game's MultiGame, or a river or turn
    spot's River3Game: full-width rules only) with ``algorithm`` (a full-width rule's
    name or ``mccfr-es``) and ``params`` (``seed`` for ``mccfr-es``) in a background thread, to
    ``max_iterations`` or the first check whose largest Nash distance is at most ``target``
    (chips; None: no target), with ``locks`` (lock text ``{line: mix}`` for any player — a
    river or turn spot's as :mod:`solver.games.holdem3_locks` reads it —, or resolved
    :class:`~solver.games.multi_locks.MultiLocks`; None: none). Bad arguments raise
    ValueError / TypeError naming them, as the engine's maker does
    (:func:`solver.cfr.multi_solve.make_multi_engine`; a bad lock: MultiLockError)."""

    def __init__(
        self,
        mgame: G,
        algorithm: str,
        params: Mapping[str, float] | None = None,
        *,
        seed: int = 0,
        target: float | None = None,
        max_iterations: int = 1000,
        check_every: int = 10,
        chunk_s: float = 0.1,
        locks: Mapping[str, object] | MultiLocks | None = None,
    ) -> None:
        if target is not None:
            if isinstance(target, bool) or not isinstance(target, (int, float, np.number)):
                raise TypeError(f"target must be a number of chips, got {brief(target)}")
            if not finite(target) or not target > 0:
                raise ValueError(f"target must be a finite number of chips > 0, got {target!r}")
        self.max_iterations = _whole("max_iterations", max_iterations, 0)
        self.check_every = _whole("check_every", check_every, 1)
        self.target = None if target is None else float(target)
        self.chunk_s = float(chunk_s)
        engine, self.algorithm, self.params = make_multi_engine(
            mgame, algorithm, params, _whole("seed", seed, 0)
        )
        self.locks = lock_multi_engine(engine, locks)
        self._engine: MultiSolver | None = engine
        self.mgame = mgame
        self.pot = game_pot(mgame)  # chips before anyone acts: what % pot divides by
        self._lock = threading.Lock()
        self._engine_lock = threading.Lock()
        self._stop = threading.Event()
        self._run = threading.Event()  # set = running, clear = paused
        self._run.set()
        self._stop_reason = "stop"
        self._progress = MultiProgress(memory_bytes=engine_memory(engine))
        self._thread: threading.Thread | None = None

    # ----- control (any thread) ------------------------------------------------------------
    @property
    def progress(self) -> MultiProgress:
        with self._lock:
            return self._progress

    @property
    def released(self) -> bool:
        return self._engine is None

    def start(self) -> MultiSolveJob:
        with self._lock:
            if self._thread is not None:
                raise RuntimeError("job already started")
            self._thread = threading.Thread(target=self._main, name="multi-solve", daemon=True)
            self._progress = replace(self._progress, state=RUNNING)
        track(self)
        self._thread.start()
        return self

    def pause(self) -> None:
        self._run.clear()

    def resume(self) -> None:
        self._run.set()

    def stop(self, reason: str = "stop") -> None:
        """Ask the thread to end after the current chunk (non-blocking)."""
        self._stop_reason = reason
        self._stop.set()
        self._run.set()

    def release(self) -> None:
        """Drop the engine (its session ended); the snapshots stay. Refused while running."""
        if self.alive:
            raise RuntimeError("stop the job before releasing it")
        with self._engine_lock:
            self._engine = None

    def average_profile(self) -> tuple[Array, int]:
        """A copy of the average profile ``(profile_size,)`` and the iteration it is of
        (waits for the chunk running, at most about ``chunk_s``). RuntimeError once
        released."""
        with self._engine_lock:
            eng = self._engine
            if eng is None:
                raise RuntimeError("this solve was released when its session ended")
            return np.array(eng.average_profile(), dtype=np.float64), eng.iteration

    # ----- the job thread --------------------------------------------------------------------
    def _update(self, **changes: object) -> None:
        with self._lock:
            self._progress = replace(self._progress, **changes)  # type: ignore[arg-type]

    def _check(self, eng: MultiSolver, elapsed: float) -> MultiCheckpoint:
        cp = checkpoint(eng, elapsed)
        hist = self.progress.history
        if not hist or hist[-1].iteration != cp.iteration:
            self._update(history=(*hist, cp))
        return cp

    def _reached(self, cp: MultiCheckpoint) -> bool:
        return self.target is not None and cp.max_distance <= self.target

    def _main(self) -> None:
        try:
            eng = self._engine
            assert eng is not None
            started = time.perf_counter()
            elapsed = 0.0
            with self._engine_lock:
                cp = self._check(eng, 0.0)
            per_iter = 0.0
            stopped_by = ""
            while True:
                if self._stop.is_set():
                    stopped_by = self._stop_reason
                    break
                if self._reached(cp):
                    stopped_by = "target"
                    break
                if eng.iteration >= self.max_iterations:
                    stopped_by = "iterations"
                    break
                if not self._run.is_set():
                    elapsed += time.perf_counter() - started
                    self._update(state=PAUSED, elapsed_s=elapsed)
                    self._run.wait()
                    started = time.perf_counter()
                    if not self._stop.is_set():
                        self._update(state=RUNNING)
                    continue
                due = min(next_check(eng.iteration, self.check_every), self.max_iterations)
                n = 1 if per_iter <= 0 else max(1, int(self.chunk_s / per_iter))
                n = min(n, due - eng.iteration)
                t0 = time.perf_counter()
                with self._engine_lock:
                    eng.iterate(n)
                    dt = time.perf_counter() - t0
                    if eng.iteration >= due:
                        cp = self._check(eng, elapsed + time.perf_counter() - started)
                per_iter = dt / n if per_iter <= 0 else 0.5 * per_iter + 0.5 * dt / n
                self._update(
                    iteration=eng.iteration,
                    nodes_touched=eng.nodes_touched,
                    elapsed_s=elapsed + time.perf_counter() - started,
                    iterations_per_s=1.0 / per_iter if per_iter > 0 else 0.0,
                )
            elapsed += time.perf_counter() - started
            with self._engine_lock:
                self._check(eng, elapsed)  # (a stopped solve: where it got to)
            self._update(
                state=DONE if stopped_by in ("target", "iterations") else STOPPED,
                stopped_by=stopped_by,
                iteration=eng.iteration,
                nodes_touched=eng.nodes_touched,
                elapsed_s=elapsed,
            )
        except Exception as exc:  # the owner reads it from the snapshot
            self._update(state=FAILED, error=f"{type(exc).__name__}: {exc}")
