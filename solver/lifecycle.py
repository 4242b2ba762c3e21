"""Lifecycle of background jobs (solves and races): which jobs run, who owns them, and when
they end and give their memory back. No Streamlit here.

* :func:`track` counts a started job among :func:`live_jobs`; :func:`stop_all` stops them
  (test teardown, and at interpreter exit through an ``atexit`` hook).
* :class:`JobRegistry` maps an owner (a browser session id) to its jobs. A job may carry a
  *token* (a random id the app puts in the page's URL): a new session that presents the token
  takes the job over (:meth:`JobRegistry.attach`: a page reload keeps its solve). The reaper
  (:meth:`JobRegistry.reap`) stops the jobs of owners gone for longer than a grace period;
  once their threads have ended it calls their ``release()`` (a job drops its solver and
  game arrays) and returns freed heap memory to the operating system (:func:`trim_memory`).
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
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

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
class _Entry:
    jobs: list[Job] = field(default_factory=list)
    gone_since: float | None = None


@dataclass
class _Ticket:
    """A job that a new session may take over by presenting its token."""

    owner: str
    job: Job
    context: dict[str, Any]


class JobRegistry:
    """Thread-safe map owner id → jobs, the tokens that let a reloaded page take its job
    back, and the reaper that ends (and releases) the jobs whose owner is gone.

    An owner keeps its jobs (finished ones too: a reload may come back for the results)
    until it has been gone for the grace period; then its running jobs are stopped, and
    every job of it is released once its thread has ended."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owners: dict[str, _Entry] = {}
        self._tickets: dict[str, _Ticket] = {}
        self._stopping: list[Job] = []  # stopped by the reaper, to release once ended

    def add(
        self, owner: str, job: Job, token: str | None = None, context: dict | None = None
    ) -> None:
        """Register ``job`` under ``owner``; with ``token``, a later :meth:`attach` with the
        same token hands it (and ``context``, e.g. what the page needs to show it) over. The
        owner's finished jobs of the same kind are forgotten (a session shows one solve and
        one race: a new one replaces the last)."""
        with self._lock:
            entry = self._owners.setdefault(owner, _Entry())
            old = [j for j in entry.jobs if type(j) is type(job) and not j.alive]
            entry.jobs = [j for j in entry.jobs if j not in old] + [job]
            for t in [t for t, k in self._tickets.items() if k.job in old]:
                del self._tickets[t]
            if token is not None:
                self._tickets[token] = _Ticket(owner, job, dict(context or {}))

    def attach(self, token: str, owner: str) -> tuple[Job, dict[str, Any]] | None:
        """Move the job registered with ``token`` to ``owner`` (a reloaded page's new
        session) and return it with its context; None when no such job is kept any more."""
        with self._lock:
            ticket = self._tickets.get(token)
            if ticket is None:
                return None
            if ticket.owner != owner:
                old = self._owners.get(ticket.owner)
                if old is not None and ticket.job in old.jobs:
                    old.jobs.remove(ticket.job)
                self._owners.setdefault(owner, _Entry()).jobs.append(ticket.job)
                ticket.owner = owner
            return ticket.job, dict(ticket.context)

    def jobs(self, owner: str) -> list[Job]:
        """Every job kept for ``owner`` (running or finished)."""
        with self._lock:
            entry = self._owners.get(owner)
            return list(entry.jobs) if entry else []

    def running(self) -> list[Job]:
        with self._lock:
            return [j for e in self._owners.values() for j in e.jobs if j.alive]

    def reap(
        self, is_active: Callable[[str], bool], grace_s: float, now: float | None = None
    ) -> list[Job]:
        """Stop the running jobs of owners that ``is_active`` has reported gone for at least
        ``grace_s`` seconds and forget those owners (and their tokens); release every job
        of theirs whose thread has ended (the others on a later call, once ended). Returns
        the jobs stopped now."""
        now = time.monotonic() if now is None else now
        stopped: list[Job] = []
        released = 0
        with self._lock:
            for owner in list(self._owners):
                entry = self._owners[owner]
                if is_active(owner):
                    entry.gone_since = None
                    continue
                if entry.gone_since is None:
                    entry.gone_since = now
                if now - entry.gone_since < grace_s:
                    continue
                for j in entry.jobs:
                    if j.alive:
                        j.stop("session")
                        stopped.append(j)
                    self._stopping.append(j)
                del self._owners[owner]
                for token in [t for t, k in self._tickets.items() if k.owner == owner]:
                    del self._tickets[token]
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
