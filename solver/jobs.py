"""Background solves: a :class:`SolveJob` runs an :class:`~solver.cfr.engine.Engine` in a thread
and publishes immutable :class:`Progress` snapshots that any other thread may read.

No Streamlit here. The threading contract:

* only the job thread touches the engine while the job is alive; the kernels release the GIL
  (``nogil``), so a UI thread keeps answering while a chunk runs;
* iterations run in chunks sized to about ``chunk_s`` seconds (at least one iteration), so Stop
  and Pause take effect within one chunk;
* between chunks the job thread copies what readers need — the watched node's average strategy
  and, at each exploitability check, the whole average strategy — into fresh read-only arrays
  and publishes them in a new :class:`Progress` under a lock. Readers never see an array the
  kernel is writing.

Lifecycle: :class:`JobRegistry` maps an owner (a browser session id) to its jobs;
:meth:`JobRegistry.reap` stops the jobs of owners gone for longer than a grace period, and
every job still running at interpreter exit is stopped by an ``atexit`` hook. Any object with
the small :class:`Job` interface takes part (solve jobs here, races in :mod:`solver.race`):
it calls :func:`track` when its thread starts.
"""

from __future__ import annotations

import atexit
import math
import threading
import time
import weakref
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Generic, Protocol, TypeVar, Unpack

import numpy as np
import numpy.typing as npt

from solver.algorithms import AlgorithmRule, Solver, SolverOptions, make_solver
from solver.games.model import DECISION, Game

Array = npt.NDArray[np.float64]

# Job states.
READY = "ready"  # created, not started
RUNNING = "running"
PAUSED = "paused"
DONE = "done"  # reached the target or the iteration limit
STOPPED = "stopped"  # stopped by its owner, its session ending, or process exit
FAILED = "failed"  # the thread raised; ``Progress.error`` says what
FINISHED = (DONE, STOPPED, FAILED)


@dataclass(frozen=True)
class Point:
    """One exploitability measurement of the average strategy."""

    iteration: int
    elapsed_s: float  # solve time so far (paused time excluded), seconds
    exploitability: float  # chips, (BR₀ + BR₁) / 2
    nodes_touched: int = 0  # nodes visited by the solve's passes so far
    memory_bytes: int = 0  # bytes the solve holds (regrets, sums, buffers; see Engine)


def _frozen(a: Array) -> Array:
    a.flags.writeable = False
    return a


@dataclass(frozen=True)
class Progress:
    """An immutable snapshot of a job. Arrays in it are read-only copies owned by the
    snapshot; ``history`` is a tuple (append-only between snapshots)."""

    state: str = READY
    iteration: int = 0
    elapsed_s: float = 0.0  # time spent solving and measuring (pauses excluded), seconds
    iterations_per_s: float = 0.0  # over the last chunks
    nodes_touched: int = 0
    memory_bytes: int = 0  # what the solve holds now (falls while Total RBP prunes)
    exploitability: float | None = None  # chips, at the last check
    best_response: tuple[float, float] | None = None  # (BR₀, BR₁) chips at the last check
    history: tuple[Point, ...] = field(default=(), repr=False)
    watched_node: int = 0
    watched_strategy: Array | None = field(
        default=None, repr=False
    )  # (num_actions, num_hands) average at watched_node
    watched_iteration: int = 0  # iteration at which watched_strategy was copied
    average: Array | None = field(
        default=None, repr=False
    )  # (action_size,) average strategy at the last check
    average_iteration: int = 0
    stopped_by: str = ""  # "target", "iterations", "stop", "session", "exit" or ""
    error: str = ""
    starting_pot: float = 0.0  # chips (hold'em subgames; 0 for toy games)
    big_blind: float | None = None  # chips, for mbb/hand

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    @property
    def pct_pot(self) -> float | None:
        """Exploitability as % of the starting pot (None without a pot)."""
        if self.exploitability is None or not self.starting_pot:
            return None
        return 100.0 * self.exploitability / self.starting_pot

    @property
    def mbb(self) -> float | None:
        """Exploitability in milli-big-blinds per hand (None without a big blind)."""
        if self.exploitability is None or not self.big_blind:
            return None
        return 1000.0 * self.exploitability / self.big_blind


def block_average(game: Game, cumulative: Array, node: int) -> Array:
    """Average strategy of one decision node from strategy sums: (num_actions, num_hands),
    each column normalised, uniform where a hand's sums are all zero. Returns a new array."""
    off, na, nh = game.block(node)
    s = np.array(cumulative[off : off + na * nh], dtype=np.float64).reshape(na, nh)
    tot = s.sum(axis=0)
    pos = tot > 0
    out = np.full((na, nh), 1.0 / na)
    out[:, pos] = s[:, pos] / tot[pos]
    return out


def estimate_eta(history: tuple[Point, ...], target: float | None) -> float | None:
    """Seconds until ``target`` (chips) by a power-law fit of exploitability vs time over the
    recent history (log-log line through the last points); None when it cannot be estimated."""
    if target is None or len(history) < 3:
        return None
    pts = [p for p in history[-20:] if p.elapsed_s > 0 and p.exploitability > 0]
    if len(pts) < 3:
        return None
    last = pts[-1]
    if last.exploitability <= target:
        return 0.0
    x = np.log([p.elapsed_s for p in pts])
    y = np.log([p.exploitability for p in pts])
    if np.ptp(x) <= 0:
        return None
    slope = float(np.polyfit(x, y, 1)[0])
    if slope >= -1e-6:
        return None
    t_target = math.exp(math.log(last.elapsed_s) + (math.log(target) - y[-1]) / slope)
    return max(t_target - last.elapsed_s, 0.0)


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


class SolveJob(ThreadOwner[Progress]):
    """One solve of ``game`` with ``rule`` in a background thread.

    ``target`` is an exploitability in chips (None: run to ``max_iterations``);
    exploitability is measured every ``check_every`` iterations, or when None, whenever at
    least ``min(check_s, 10 % of the solve time so far)`` seconds passed since the last check
    (and twice what the last check cost, so checks take at most a third of the time).
    Pass ``engine`` to resume a solve (its iteration count and sums carry on); otherwise
    one is made by :func:`solver.algorithms.make_solver` from ``rule`` (any algorithm: a
    full-width rule or Monte Carlo CFR) with ``options`` (threads, storage precision,
    pruning, sampling seed, RBP settings: :class:`solver.algorithms.SolverOptions`).
    """

    def __init__(
        self,
        game: Game,
        rule: AlgorithmRule,
        *,
        target: float | None = None,
        max_iterations: int = 1_000_000,
        check_every: int | None = None,
        check_s: float = 0.25,
        chunk_s: float = 0.1,
        watch: int = 0,
        engine: Solver | None = None,
        history: tuple[Point, ...] = (),
        **options: Unpack[SolverOptions],
    ) -> None:
        if target is not None and not target > 0:
            raise ValueError("target exploitability must be > 0")
        if max_iterations < 0:
            raise ValueError("max_iterations must be ≥ 0")
        if check_every is not None and check_every < 1:
            raise ValueError("check_every must be ≥ 1")
        self.rule = rule
        self.engine: Solver = engine if engine is not None else make_solver(game, rule, **options)
        # the solver's own game: a sampled solve plays every card (Game.without_isomorphism)
        self.game = self.engine.game
        self.target = target
        self.max_iterations = max_iterations
        self.check_every = check_every
        self.check_s = check_s
        self.chunk_s = chunk_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._run = threading.Event()  # set = running, clear = paused
        self._run.set()
        self._stop_reason = "stop"
        self._watch = self._checked_watch(watch)
        self._progress = Progress(
            iteration=self.engine.iteration,
            nodes_touched=self.engine.nodes_touched,
            memory_bytes=self.engine.memory_bytes,
            history=tuple(history),
            exploitability=history[-1].exploitability if history else None,
            elapsed_s=history[-1].elapsed_s if history else 0.0,
            watched_node=self._watch,
            starting_pot=game.starting_pot if game.is_holdem else 0.0,
            big_blind=game.big_blind if game.is_holdem else None,
        )
        self._thread: threading.Thread | None = None

    # ----- control (any thread) ------------------------------------------------------------
    def start(self) -> SolveJob:
        """Start the thread (once)."""
        with self._lock:
            if self._thread is not None:
                raise RuntimeError("job already started")
            self._thread = threading.Thread(target=self._main, name="solve-job", daemon=True)
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

    def watch(self, node: int) -> None:
        """Watch another decision node: its average strategy is copied between chunks (and
        right away when the job is not running)."""
        node = self._checked_watch(node)
        with self._lock:
            self._watch = node
            idle = not self.alive
        if idle:  # no kernel can be writing: copy here
            self._publish_watch()

    def _checked_watch(self, node: int) -> int:
        if not 0 <= node < self.game.num_nodes or self.game.tree.kind[node] != DECISION:
            raise ValueError(f"node {node} is not a decision node")
        return int(node)

    @property
    def progress(self) -> Progress:
        with self._lock:
            return self._progress

    # ----- the job thread --------------------------------------------------------------------
    def _update(self, **changes: object) -> None:
        with self._lock:
            self._progress = replace(self._progress, **changes)  # type: ignore[arg-type]

    def _publish_watch(self) -> None:
        with self._lock:
            node = self._watch
        strat = _frozen(block_average(self.game, self.engine.storage.cumulative, node))
        self._update(
            watched_node=node, watched_strategy=strat, watched_iteration=self.engine.iteration
        )

    def _measure(self, elapsed: float) -> float:
        eng = self.engine
        avg = eng.average_strategy()
        br = eng.best_response_values(avg)
        expl = 0.5 * (br[0] + br[1])
        p = self.progress
        point = Point(eng.iteration, elapsed, expl, eng.nodes_touched, eng.memory_bytes)
        hist = p.history
        if not hist or hist[-1].iteration != eng.iteration:
            hist = (*hist, point)
        self._update(
            exploitability=expl,
            best_response=br,
            history=hist,
            average=_frozen(avg),
            average_iteration=eng.iteration,
        )
        return expl

    def _main(self) -> None:
        eng = self.engine
        elapsed = self._progress.elapsed_s
        try:
            self._publish_watch()
            started = time.perf_counter()
            expl = self._measure(elapsed + time.perf_counter() - started)
            per_iter = 0.0  # seconds per iteration, smoothed
            check_cost = 0.0  # seconds the last exploitability check took
            last_check_iter = eng.iteration
            last_check_t = time.perf_counter()
            stopped_by = ""
            while True:
                if self._stop.is_set():
                    stopped_by = self._stop_reason
                    break
                if self.target is not None and expl <= self.target:
                    stopped_by = "target"
                    break
                if eng.iteration >= self.max_iterations:
                    stopped_by = "iterations"
                    break
                if not self._run.is_set():
                    elapsed += time.perf_counter() - started
                    self._publish_watch()
                    self._update(state=PAUSED, elapsed_s=elapsed)
                    while not self._run.wait(0.05):  # idle: keep serving watch changes
                        if self.progress.watched_node != self._watch:
                            self._publish_watch()
                    started = time.perf_counter()
                    last_check_t = started
                    if self._stop.is_set():
                        continue
                    self._update(state=RUNNING)
                n = 1 if per_iter <= 0 else max(1, int(self.chunk_s / per_iter))
                n = min(n, self.max_iterations - eng.iteration)
                if self.check_every is not None:
                    n = min(n, self.check_every - (eng.iteration - last_check_iter))
                t0 = time.perf_counter()
                eng.iterate(n)
                dt = time.perf_counter() - t0
                per_iter = dt / n if per_iter <= 0 else 0.5 * per_iter + 0.5 * dt / n
                self._publish_watch()
                now = time.perf_counter()
                if self.check_every is not None:
                    due = eng.iteration - last_check_iter >= self.check_every
                else:  # log-spaced early, then every check_s; ≤ 1/3 of the time measuring
                    spent = elapsed + now - started
                    gap = max(min(0.1 * spent, self.check_s), 0.02, 2.0 * check_cost)
                    due = now - last_check_t >= gap
                done = eng.iteration >= self.max_iterations
                if due or done:
                    expl = self._measure(elapsed + now - started)
                    last_check_iter = eng.iteration
                    last_check_t = time.perf_counter()
                    check_cost = last_check_t - now
                self._update(
                    iteration=eng.iteration,
                    nodes_touched=eng.nodes_touched,
                    memory_bytes=eng.memory_bytes,
                    elapsed_s=elapsed + time.perf_counter() - started,
                    iterations_per_s=1.0 / per_iter if per_iter > 0 else 0.0,
                )
            elapsed += time.perf_counter() - started
            if self.progress.average_iteration != eng.iteration:
                self._measure(elapsed)
            self._publish_watch()
            state = DONE if stopped_by in ("target", "iterations") else STOPPED
            self._update(
                state=state,
                stopped_by=stopped_by,
                iteration=eng.iteration,
                nodes_touched=eng.nodes_touched,
                elapsed_s=elapsed,
            )
        except Exception as exc:  # the owner reads it from the snapshot
            self._update(state=FAILED, error=f"{type(exc).__name__}: {exc}")


@dataclass
class _Entry:
    jobs: list[Job] = field(default_factory=list)
    gone_since: float | None = None


class JobRegistry:
    """Thread-safe map owner id → jobs, and the reaper that ends jobs whose owner is gone."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._owners: dict[str, _Entry] = {}

    def add(self, owner: str, job: Job) -> None:
        with self._lock:
            entry = self._owners.setdefault(owner, _Entry())
            entry.jobs = [j for j in entry.jobs if j.alive]
            entry.jobs.append(job)

    def jobs(self, owner: str) -> list[Job]:
        with self._lock:
            entry = self._owners.get(owner)
            return list(entry.jobs) if entry else []

    def running(self) -> list[Job]:
        with self._lock:
            return [j for e in self._owners.values() for j in e.jobs if j.alive]

    def reap(
        self, is_active: Callable[[str], bool], grace_s: float, now: float | None = None
    ) -> list[Job]:
        """Stop the jobs of owners that ``is_active`` has reported gone for at least
        ``grace_s`` seconds; forget owners with no live job. Returns the jobs stopped."""
        now = time.monotonic() if now is None else now
        stopped = []
        with self._lock:
            for owner in list(self._owners):
                entry = self._owners[owner]
                entry.jobs = [j for j in entry.jobs if j.alive]
                if not entry.jobs:
                    del self._owners[owner]
                    continue
                if is_active(owner):
                    entry.gone_since = None
                    continue
                if entry.gone_since is None:
                    entry.gone_since = now
                if now - entry.gone_since >= grace_s:
                    for j in entry.jobs:
                        j.stop("session")
                        stopped.append(j)
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
