"""Lifecycle of background jobs (solves and races): which jobs run, who owns them, and when
they end and give their memory back. No Streamlit here.

* :func:`track` counts a started job among :func:`live_jobs`; :func:`stop_all` stops them
  (test teardown, and at interpreter exit through an ``atexit`` hook).
* :class:`JobRegistry` records which browser sessions watch which jobs. A job may carry a
  *token* (a random id the app puts in the page's URL): a new session that presents the token
  takes the job over and watches it too (:meth:`JobRegistry.attach`: a page reload keeps its
  solve, a second tab on the same URL shows it). The reaper (:meth:`JobRegistry.reap`) stops
  a job once every session watching it has been gone for a grace period; once its thread has
  ended it calls its ``release()`` (a job drops its solver and game arrays) and returns freed
  heap memory to the operating system (:func:`trim_memory`).
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import gc
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any, Generic, Protocol, Self, TypeVar

# Job states.
READY = "ready"  # created, not started
RUNNING = "running"
PAUSED = "paused"
DONE = "done"  # reached the target or the iteration limit
STOPPED = "stopped"  # stopped by its owner, its session ending, or process exit
FAILED = "failed"  # the thread raised; the snapshot's ``error`` says what
FINISHED = (DONE, STOPPED, FAILED)


class Job(Protocol):
    """What the registry, the reaper and :func:`stop_all` need from a background job."""

    @property
    def alive(self) -> bool:
        """Whether its thread (or any of its threads) still runs."""
        ...

    def stop(self, reason: str = "stop") -> None:
        """Ask it to end soon (non-blocking)."""
        ...

    def join(self, timeout: float | None = None) -> bool:
        """Wait for its threads; True when they have ended (or never started)."""
        ...


_LIVE: weakref.WeakSet[Job] = weakref.WeakSet()
_LIVE_LOCK = threading.Lock()


def track(job: Job) -> None:
    """Count ``job`` among the live jobs (:func:`live_jobs`, :func:`stop_all`, ``atexit``)."""
    with _LIVE_LOCK:
        _LIVE.add(job)


class _HasState(Protocol):
    @property
    def state(self) -> str: ...


P = TypeVar("P", bound=_HasState)


class ThreadOwner(Generic[P]):
    """What a job that runs in one background thread (``_thread``) and publishes immutable
    snapshots (``progress``) answers about it."""

    _thread: threading.Thread | None = None

    @property
    def progress(self) -> P:
        raise NotImplementedError

    def wait_for(self, predicate: Callable[[P], bool], timeout: float = 60.0) -> P:
        """Block until ``predicate(progress)`` holds (polling every few ms); for tests and
        scripts. Raises TimeoutError."""
        deadline = time.monotonic() + timeout
        while True:
            p = self.progress
            if predicate(p):
                return p
            if time.monotonic() > deadline:
                raise TimeoutError(f"{type(self).__name__} still {p.state} after {timeout} s")
            time.sleep(0.005)

    def join(self, timeout: float | None = None) -> bool:
        """Wait for the thread to end; True when it has (or never started)."""
        t = self._thread
        if t is None:
            return True
        t.join(timeout)
        return not t.is_alive()

    @property
    def alive(self) -> bool:
        t = self._thread
        return t is not None and t.is_alive()


class StudyThread(ThreadOwner[P]):
    """A study job on a thread of its own (the sizes and risk-curve jobs): started and
    tracked, stopped with a reason (``stopped_by``; ``_stop`` is what its work polls), and
    its progress — a frozen dataclass with ``elapsed_s`` and ``finished`` — published whole
    under a lock (:meth:`_publish`) and read with the time so far. Subclasses write
    :meth:`_run`."""

    thread_name = "study"

    def __init__(self, first: P) -> None:
        self.stopped_by = ""
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._progress = first
        self._started = time.monotonic()

    def start(self) -> Self:
        track(self)
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name=self.thread_name, daemon=True)
        self._thread.start()
        return self

    def stop(self, reason: str = "stop") -> None:
        if not self._stop.is_set():
            self.stopped_by = reason
        self._stop.set()

    @property
    def progress(self) -> P:
        return self.snapshot()

    def snapshot(self) -> P:
        with self._lock:
            p = self._progress
        if p.finished:  # type: ignore[attr-defined]
            return p
        return replace(p, elapsed_s=time.monotonic() - self._started)  # type: ignore[type-var]

    def _publish(self, **changes: object) -> None:
        with self._lock:
            elapsed = time.monotonic() - self._started
            self._progress = replace(self._progress, **changes, elapsed_s=elapsed)  # type: ignore[type-var]

    def _run(self) -> None:
        raise NotImplementedError


_LIBC: Any = None


def trim_memory() -> bool:
    """Collect garbage and ask glibc to give freed heap pages back to the operating system
    (``malloc_trim(0)``: freed arrays below glibc's mmap threshold otherwise stay in the
    process's heap). False where there is no glibc."""
    global _LIBC
    gc.collect()
    if _LIBC is None:
        name = ctypes.util.find_library("c")
        try:
            _LIBC = ctypes.CDLL(name) if name else False
        except OSError:
            _LIBC = False
    if not _LIBC or not hasattr(_LIBC, "malloc_trim"):
        return False
    return bool(_LIBC.malloc_trim(0))


def _release(job: Job) -> None:
    release = getattr(job, "release", None)
    if callable(release):
        release()


@dataclass
class _Kept:
    """A job the registry keeps: the sessions watching it, the one that owns it (started it
    or took it over last), and its token with its context (a new session presenting the
    token takes it over)."""

    job: Job
    owner: str
    watchers: list[str]
    token: str | None = None
    context: dict[str, Any] = field(default_factory=dict)


class JobRegistry:
    """Thread-safe record of the jobs browser sessions watch, the tokens that let a reloaded
    page (or a second tab on the same URL) take a job over, and the reaper that ends (and
    releases) the jobs no live session watches any more.

    A job is watched by the session that started it and by every session that took it over
    with its token. A session gone for the grace period stops watching; a job that then has
    no watcher left is stopped if it runs, and released once its thread has ended. A job
    watched by several tabs thus ends only after the last one is gone (a reload of that last
    one within the grace period still takes it back). Finished jobs are kept too while
    watched: a reload may come back for the results."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._kept: list[_Kept] = []
        self._gone: dict[str, float] = {}  # watching session → when it was first seen gone
        self._stopping: list[Job] = []  # stopped by the reaper, to release once ended

    def _find(self, job: Job) -> _Kept | None:
        return next((k for k in self._kept if k.job is job), None)

    def add(
        self, owner: str, job: Job, token: str | None = None, context: dict | None = None
    ) -> None:
        """Register ``job`` under ``owner`` (which watches it); with ``token``, a later
        :meth:`attach` with the same token hands it (and ``context``, e.g. what the page needs
        to show it) over. The owner stops watching its finished jobs of the same kind (a
        session shows one solve and one race: a new one replaces the last); those no other
        session watches are forgotten."""
        with self._lock:
            for k in list(self._kept):
                if k.job is job or type(k.job) is not type(job) or k.job.alive:
                    continue
                if owner in k.watchers:
                    k.watchers.remove(owner)
                    if not k.watchers:
                        self._kept.remove(k)
                    elif k.owner == owner:
                        k.owner = k.watchers[-1]
            kept = self._find(job)
            if kept is None:
                kept = _Kept(job, owner, [])
                self._kept.append(kept)
            if owner not in kept.watchers:
                kept.watchers.append(owner)
            kept.owner = owner
            if token is not None:
                kept.token, kept.context = token, dict(context or {})

    def attach(self, token: str, owner: str) -> tuple[Job, dict[str, Any]] | None:
        """Hand the job registered with ``token`` to ``owner`` (a reloaded page's or a second
        tab's new session), which watches it from now on beside the sessions that already
        do, and return it with its context; None when no such job is kept any more."""
        with self._lock:
            kept = next((k for k in self._kept if k.token == token), None)
            if kept is None:
                return None
            if owner not in kept.watchers:
                kept.watchers.append(owner)
            kept.owner = owner
            return kept.job, dict(kept.context)

    def jobs(self, owner: str) -> list[Job]:
        """Every job kept for ``owner`` (running or finished): those it started or took over
        last."""
        with self._lock:
            return [k.job for k in self._kept if k.owner == owner]

    def watchers(self, job: Job) -> list[str]:
        """The sessions watching ``job`` (none once it is forgotten)."""
        with self._lock:
            kept = self._find(job)
            return list(kept.watchers) if kept else []

    def running(self) -> list[Job]:
        """The running jobs, each once however many sessions watch it."""
        with self._lock:
            return [k.job for k in self._kept if k.job.alive]

    def reap(
        self, is_active: Callable[[str], bool], grace_s: float, now: float | None = None
    ) -> list[Job]:
        """Drop the watchers that ``is_active`` has reported gone for at least ``grace_s``
        seconds; stop the running jobs left with no watcher and forget them (and their
        tokens); release every such job whose thread has ended (the others on a later call,
        once ended). Returns the jobs stopped now."""
        now = time.monotonic() if now is None else now
        stopped: list[Job] = []
        released = 0
        with self._lock:
            sessions = {w for k in self._kept for w in k.watchers}
            expired: set[str] = set()
            for s in sessions:
                if is_active(s):
                    self._gone.pop(s, None)
                elif now - self._gone.setdefault(s, now) >= grace_s:
                    expired.add(s)
            # forget sessions that watch nothing any more (or are expired)
            self._gone = {s: t for s, t in self._gone.items() if s in sessions and s not in expired}
            for k in list(self._kept):
                if not expired.intersection(k.watchers):
                    continue
                k.watchers = [w for w in k.watchers if w not in expired]
                if k.watchers:  # another tab still watches it: it goes on, owned by that one
                    if k.owner in expired:
                        k.owner = k.watchers[-1]
                    continue
                if k.job.alive:
                    k.job.stop("session")
                    stopped.append(k.job)
                self._stopping.append(k.job)
                self._kept.remove(k)
            still: list[Job] = []
            for j in self._stopping:
                if j.alive:
                    still.append(j)
                else:
                    _release(j)
                    released += 1
            self._stopping = still
        if released:
            trim_memory()
        return stopped

    def start_reaper(
        self, is_active: Callable[[str], bool], grace_s: float = 10.0, every_s: float = 1.0
    ) -> threading.Thread:
        """A daemon thread calling :meth:`reap` every ``every_s`` seconds."""

        def loop() -> None:
            while True:
                time.sleep(every_s)
                try:
                    self.reap(is_active, grace_s)
                except Exception:  # keep reaping whatever one check does
                    continue

        t = threading.Thread(target=loop, name="solve-job-reaper", daemon=True)
        t.start()
        return t


def live_jobs() -> list[Job]:
    """Every job (solve or race) whose thread is still running (in this process)."""
    with _LIVE_LOCK:
        return [j for j in _LIVE if j.alive]


def stop_all(reason: str = "exit", timeout: float = 5.0) -> None:
    """Stop every live job and wait for the threads (process exit, test teardown)."""
    jobs = live_jobs()
    for j in jobs:
        j.stop(reason)
    for j in jobs:
        j.join(timeout)


atexit.register(stop_all)
