"""Background solves: a :class:`SolveJob` runs a solver (:func:`solver.algorithms.make_solver`)
in a thread and publishes immutable :class:`Progress` snapshots that any other thread may read.

No Streamlit here. The threading contract:

* only the job thread touches the solver while the job is alive; the kernels release the GIL
  (``nogil``), so a UI thread keeps answering while a chunk runs;
* iterations run in chunks sized to about ``chunk_s`` seconds (at least one iteration), so Stop
  and Pause take effect within one chunk;
* exploitability is measured at fixed iterations — every ``check_every`` (10, as the CLI's
  ``--every``), and at the end — so the same solve stops at the same iteration with the same
  numbers whatever the machine's load;
* between chunks the job thread copies what a live view needs — the watched node's average
  strategy and both players' reach there, computed from the strategy sums of that node and of
  the nodes on its path only — into fresh read-only arrays and publishes them in a new
  :class:`Progress` under a lock. The whole tree's average strategy is copied only when a
  reader asks for it (:meth:`SolveJob.average_strategy`: the Explore page). Readers never
  see an array a kernel is writing;
* once the solve has ended (reached its target or limit, or stopped), a second thread makes
  its node table (:mod:`solver.study.node_table`: every upper node's values in one pass over
  the tree), which Explore serves each node from (:meth:`SolveJob.node_table`).

Lifecycle (owners, tokens, the reaper, ``atexit``): :mod:`solver.run.lifecycle`; the snapshots
and the checks' trend: :mod:`solver.run.progress`; the watched node's arrays from the sums:
:mod:`solver.run.watched`; making a job off the page's thread: :mod:`solver.run.starter`. Their
names are re-exported here.
"""

from __future__ import annotations

import threading
import time
from dataclasses import replace

import numpy as np
import numpy.typing as npt

from solver.algorithms import AlgorithmRule, SolveOptions, Solver, make_solver
from solver.cfr.bestresponse import measure as measure_exploitability
from solver.cfr.options import finite
from solver.games.model import DECISION, Game
from solver.quoting import brief
from solver.run.lifecycle import (
    DONE,
    FAILED,
    FINISHED,
    PAUSED,
    READY,
    RUNNING,
    STOPPED,
    Job,
    JobRegistry,
    ThreadOwner,
    live_jobs,
    stop_all,
    track,
    trim_memory,
)
from solver.run.progress import (
    CHECK_EVERY,
    TREND_POINTS,
    TREND_WINDOW,
    History,
    Point,
    Progress,
    estimate_eta,
    next_check,
)
from solver.run.starter import JobStarter
from solver.run.watched import block_average, reach_at
from solver.study import node_table as node_tables

Array = npt.NDArray[np.float64]


def _frozen(a: Array) -> Array:
    a.flags.writeable = False
    return a


def _check_number(name: str, value: object, what: str, *, positive: bool) -> None:
    """TypeError naming ``name`` unless ``value`` is a number (not a bool); ValueError unless
    it is finite and > 0 (``positive``) or ≥ 0. ``what`` says what it is, for messages."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(
        value, (int, float, np.integer, np.floating)
    ):
        raise TypeError(f"{name} must be a number of {what}, got {brief(value)}")
    if not finite(value) or not (value > 0 if positive else value >= 0):
        raise ValueError(f"{name} must be a finite number of {what}, got {brief(value)}")


class JobReleased(RuntimeError):
    """The job's solver and game were released (its session ended): nothing left to read."""


class SolveJob(ThreadOwner[Progress]):
    """One solve of ``game`` with ``rule`` in a background thread.

    ``target`` is an exploitability in chips (None: run to ``max_iterations``), measured every
    ``check_every`` iterations (at each multiple of it) and when the solve ends; a solve stops
    at the first check at or below its target. Pass ``engine`` to resume a solve (its
    iteration count and sums carry on, ``history`` its earlier checks); otherwise one is made
    by :func:`solver.algorithms.make_solver` from ``rule`` (any algorithm: a full-width rule or
    Monte Carlo CFR) with ``options`` (threads, storage precision, pruning, sampling seed, RBP
    settings, locks: one :class:`~solver.cfr.options.SolveOptions`, checked there once).
    ``watch`` is the decision node whose average strategy and reach each snapshot
    carries. With ``ready``, the thread waits for that event before its first iteration (the
    app's background warm-up compiling the kernels it needs: ``Progress.waiting`` says so;
    the wait is not counted as solve time). With ``node_table`` (the default) a solve that
    ends (not one its session's end stopped) then builds its node table in a thread of its
    own (:meth:`node_table`; ``Progress.table`` says where it is).

    ``target`` is a finite number > 0, ``max_iterations`` a whole number ≥ 0 (an ``int`` or
    numpy integer), ``chunk_s`` a finite number of seconds ≥ 0: a value of the wrong type
    raises TypeError, one out of range ValueError, each naming the argument.
    """

    def __init__(
        self,
        game: Game,
        rule: AlgorithmRule,
        *,
        target: float | None = None,
        max_iterations: int = 1_000_000,
        check_every: int = CHECK_EVERY,
        chunk_s: float = 0.1,
        watch: int = 0,
        engine: Solver | None = None,
        history: tuple[Point, ...] = (),
        ready: threading.Event | None = None,
        options: SolveOptions | None = None,
        node_table: bool = True,
    ) -> None:
        if target is not None:
            _check_number("target", target, "chips > 0 (None: no target)", positive=True)
        if isinstance(max_iterations, (bool, np.bool_)) or not isinstance(
            max_iterations, (int, np.integer)
        ):
            raise TypeError(f"max_iterations must be a whole number, got {brief(max_iterations)}")
        if max_iterations < 0:
            raise ValueError(f"max_iterations must be ≥ 0, got {brief(max_iterations)}")
        if isinstance(check_every, bool) or not isinstance(check_every, int) or check_every < 1:
            raise ValueError(f"check_every must be a whole number ≥ 1, got {check_every!r}")
        _check_number("chunk_s", chunk_s, "seconds ≥ 0", positive=False)
        self.rule = rule
        self._engine: Solver | None = (
            engine if engine is not None else make_solver(game, rule, None, options)
        )
        # the solver's own game: a sampled solve plays every card (Game.without_isomorphism)
        self._game: Game | None = self._engine.game
        self.target = target
        self.max_iterations = max_iterations
        self.check_every = check_every
        self.chunk_s = chunk_s
        self._ready = ready
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._run = threading.Event()  # set = running, clear = paused
        self._run.set()
        self._stop_reason = "stop"
        self._watch = self._checked_watch(watch)
        self._avg_wanted = threading.Event()  # a reader waits for the whole average
        self._avg_ready = threading.Condition(self._lock)
        self._avg: tuple[int, Array] | None = None  # (iteration, read-only average)
        self._avg_base: Array | None = None  # the same numbers writable (the kernels')
        self._make_table = node_table
        self._table: node_tables.NodeTable | None = None
        self._table_thread: threading.Thread | None = None
        self._table_cancel = threading.Event()
        self._table_done = threading.Event()  # set once no table is coming (or it is in)
        eng = self._engine
        self._progress = Progress(
            iteration=eng.iteration,
            nodes_touched=eng.nodes_touched,
            memory_bytes=eng.memory_bytes,
            history=History(list(history)),
            exploitability=history[-1].exploitability if history else None,
            elapsed_s=history[-1].elapsed_s if history else 0.0,
            watched_node=self._watch,
            starting_pot=game.starting_pot if game.is_holdem else 0.0,
            big_blind=game.big_blind if game.is_holdem else None,
        )
        self._thread: threading.Thread | None = None

    # ----- what it holds ---------------------------------------------------------------------
    @property
    def engine(self) -> Solver:
        """The solver (only the job thread may touch it while the job is alive)."""
        if self._engine is None:
            raise JobReleased("this solve was released when its session ended")
        return self._engine

    @property
    def game(self) -> Game:
        if self._game is None:
            raise JobReleased("this solve was released when its session ended")
        return self._game

    @property
    def released(self) -> bool:
        """Whether :meth:`release` gave its solver and game back."""
        return self._engine is None

    def release(self) -> None:
        """Drop the solver, the game and every array this job holds, so their memory can be
        given back (the reaper calls it once the job of a gone session has ended). Only the
        last snapshot's numbers stay. Refused while the thread runs."""
        if self.alive:
            raise RuntimeError("stop the job before releasing it")
        self._table_cancel.set()  # a table still being built stops at its next node
        self._table_done.set()
        with self._lock:
            self._engine = None
            self._game = None
            self._avg = None
            self._avg_base = None
            self._table = None
            self._progress = replace(
                self._progress, watched_strategy=None, watched_reach=None, history=History()
            )

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
        """Watch another decision node: its average strategy and reach are copied between
        chunks (and right away when the job is not running)."""
        node = self._checked_watch(node)
        with self._lock:
            self._watch = node
            idle = not self.alive
        if idle:  # no kernel can be writing: copy here
            self._publish_watch()

    def _checked_watch(self, node: int) -> int:
        if isinstance(node, (bool, np.bool_)) or not isinstance(node, (int, np.integer)):
            raise TypeError(f"watch must be a node index (a whole number), got {brief(node)}")
        if not 0 <= node < self.game.num_nodes or self.game.tree.kind[node] != DECISION:
            raise ValueError(f"watch: node {brief(node)} is not a decision node")
        return int(node)

    @property
    def progress(self) -> Progress:
        with self._lock:
            return self._progress

    def average_strategy(self, timeout: float = 60.0) -> tuple[Array, int]:
        """The whole average strategy, (action_size,) read-only, and the iteration it is of.
        While the thread runs, it copies the average between two chunks (or while paused)
        and this waits for it; afterwards it is computed here. Kept until the solve moves
        on, so asking again at the same iteration costs nothing. Raises TimeoutError."""
        deadline = time.monotonic() + timeout
        with self._lock:
            while True:
                eng = self.engine
                if self._avg is not None and self._avg[0] == eng.iteration:
                    return self._avg[1], self._avg[0]
                if self._thread is None or not self._thread.is_alive():
                    break
                self._avg_wanted.set()
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError("the solve did not copy its average strategy in time")
                self._avg_ready.wait(min(left, 0.05))
        self._copy_average()  # no thread: nothing is writing
        with self._lock:
            assert self._avg is not None
            return self._avg[1], self._avg[0]

    def node_table(self, timeout: float = 0.0) -> node_tables.NodeTable | None:
        """The node table of the solve's last iteration (:mod:`solver.study.node_table`), or
        None: none was made (the solve is still running, failed, or was made without one).
        While it is being built this waits up to ``timeout`` seconds for it."""
        if timeout > 0 and self.progress.finished:
            self._table_done.wait(timeout)
        with self._lock:
            table = self._table
            eng = self._engine
        if table is None or eng is None or table.iteration != eng.iteration:
            return None
        return table

    @property
    def building_table(self) -> bool:
        """Whether the node table is being built now (the solve has finished, its table not
        yet in: :meth:`node_table` with a timeout waits for it)."""
        return self.progress.finished and not self._table_done.is_set()

    def _start_table(self) -> None:
        """After the solve (job thread): copy the average and build the node table in a
        thread of its own, so the job's state reads finished at once."""
        with self._lock:
            avg, eng = self._avg, self._engine
            fresh = avg is not None and eng is not None and avg[0] == eng.iteration
            fresh = fresh and self._avg_base is not None
        if not fresh:  # (a reader may have had it copied at this iteration already)
            self._copy_average()
        with self._lock:
            base, game = self._avg_base, self._game
            eng = self._engine
        if base is None or game is None or eng is None:
            self._table_done.set()
            return
        iteration, threads = eng.iteration, max(1, int(getattr(eng, "threads", 1)))
        cancel = self._table_cancel
        self._update(table="building")

        def run() -> None:
            try:
                table = node_tables.build(game, base, iteration, threads, cancel)
            except node_tables.Cancelled:
                self._update(table="")
            except Exception as exc:  # Explore then analyses node by node, as before
                self._update(table=f"failed: {type(exc).__name__}: {exc}")
            else:
                with self._lock:
                    if not cancel.is_set():
                        self._table = table
                self._update(table="ready", table_s=table.seconds, table_bytes=table.nbytes)
            finally:
                self._table_done.set()

        self._table_thread = threading.Thread(target=run, name="node-table", daemon=True)
        self._table_thread.start()

    # ----- the job thread --------------------------------------------------------------------
    def _update(self, **changes: object) -> None:
        with self._lock:
            self._progress = replace(self._progress, **changes)  # type: ignore[arg-type]

    def _copy_average(self) -> None:
        eng = self.engine
        base = np.require(eng.average_strategy(), np.float64, ("C", "W"))
        avg = base.view()  # readers get a read-only view; the node table walks the base
        avg.flags.writeable = False
        with self._lock:
            self._avg = (eng.iteration, avg)
            self._avg_base = base
            self._avg_wanted.clear()
            self._avg_ready.notify_all()

    def _serve(self) -> None:
        """Between chunks: answer a reader waiting for the whole average."""
        if self._avg_wanted.is_set():
            self._copy_average()

    def _publish_watch(self) -> None:
        with self._lock:
            node = self._watch
        eng = self.engine
        sums = eng.storage.cumulative
        locks = None if eng.lockset is None else eng.lockset.locks
        strat = _frozen(block_average(self.game, sums, node, locks))
        r0, r1 = reach_at(self.game, sums, node, locks)
        self._update(
            watched_node=node,
            watched_strategy=strat,
            watched_reach=(_frozen(r0), _frozen(r1)),
            watched_iteration=eng.iteration,
        )

    def _measure(self, elapsed: float) -> float:
        eng = self.engine
        expl, br = measure_exploitability(eng)  # NashConv/2 (raked: Σ BR_p − u_p, halved)
        point = Point(eng.iteration, elapsed, expl, eng.nodes_touched, eng.memory_bytes)
        hist = self.progress.history
        if not hist or hist[-1].iteration != eng.iteration:
            hist = hist.appended(point)
        self._update(exploitability=expl, best_response=br, history=hist)
        return expl

    def _pause_here(self) -> None:
        """Wait while paused, keeping the watched node and average requests served."""
        self._publish_watch()
        while not self._run.wait(0.05):
            if self.progress.watched_node != self._watch:
                self._publish_watch()
            self._serve()

    def _wait_ready(self) -> None:
        ready = self._ready
        if ready is None or ready.is_set():
            return
        self._update(waiting=True)
        while not ready.wait(0.1) and not self._stop.is_set():
            self._serve()
        self._update(waiting=False)

    def _main(self) -> None:
        try:
            self._wait_ready()
            if self._stop.is_set():  # stopped before it could start
                self._update(state=STOPPED, stopped_by=self._stop_reason)
                return
            eng = self.engine
            elapsed = self._progress.elapsed_s
            self._update(phase="first check")
            self._publish_watch()
            started = time.perf_counter()
            expl = self._measure(elapsed)
            self._update(phase="first iterations")
            per_iter = 0.0  # seconds per iteration, smoothed
            watched_at = started
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
                    self._update(state=PAUSED, elapsed_s=elapsed)
                    self._pause_here()
                    started = time.perf_counter()
                    if self._stop.is_set():
                        continue
                    self._update(state=RUNNING)
                due = min(next_check(eng.iteration, self.check_every), self.max_iterations)
                n = 1 if per_iter <= 0 else max(1, int(self.chunk_s / per_iter))
                n = min(n, due - eng.iteration)
                t0 = time.perf_counter()
                eng.iterate(n)
                dt = time.perf_counter() - t0
                per_iter = dt / n if per_iter <= 0 else 0.5 * per_iter + 0.5 * dt / n
                if eng.iteration >= due:
                    expl = self._measure(elapsed + time.perf_counter() - started)
                now = time.perf_counter()
                if now - watched_at >= 0.2 or eng.iteration >= due:
                    self._publish_watch()  # a live view redraws about once a second
                    watched_at = now
                self._serve()
                self._update(
                    iteration=eng.iteration,
                    nodes_touched=eng.nodes_touched,
                    memory_bytes=eng.memory_bytes,
                    elapsed_s=elapsed + time.perf_counter() - started,
                    iterations_per_s=1.0 / per_iter if per_iter > 0 else 0.0,
                    phase="",
                )
            elapsed += time.perf_counter() - started
            hist = self.progress.history
            if not hist or hist[-1].iteration != eng.iteration:
                self._measure(elapsed)
            self._publish_watch()
            state = DONE if stopped_by in ("target", "iterations") else STOPPED
            self._update(
                state=state,
                stopped_by=stopped_by,
                iteration=eng.iteration,
                nodes_touched=eng.nodes_touched,
                elapsed_s=elapsed,
                phase="",
            )
            if self._make_table and stopped_by not in ("session", "exit"):
                self._start_table()
        except Exception as exc:  # the owner reads it from the snapshot
            self._update(state=FAILED, error=f"{type(exc).__name__}: {exc}")
        finally:
            if self._table_thread is None:  # no table is coming
                self._table_done.set()
            with self._lock:
                self._avg_wanted.clear()
                self._avg_ready.notify_all()


__all__ = [
    "CHECK_EVERY",
    "DONE",
    "FAILED",
    "FINISHED",
    "PAUSED",
    "READY",
    "RUNNING",
    "STOPPED",
    "TREND_POINTS",
    "TREND_WINDOW",
    "History",
    "Job",
    "JobRegistry",
    "JobReleased",
    "JobStarter",
    "Point",
    "Progress",
    "SolveJob",
    "ThreadOwner",
    "block_average",
    "estimate_eta",
    "live_jobs",
    "next_check",
    "reach_at",
    "stop_all",
    "track",
    "trim_memory",
]
