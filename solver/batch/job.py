"""A batch in the background for the app: :class:`BatchJob` runs ``python -m solver batch
--spec FILE --json`` as a child process (that process owns the Dask client and, by default,
its LocalCluster) and turns its JSON lines into immutable
:class:`~solver.batch.driver.BatchProgress` snapshots for the page to poll. No Streamlit here.

Why a child process and not a thread: Dask's ``LocalCluster`` starts its workers with
``multiprocessing``'s *spawn*, which re-runs the parent's ``__main__`` in every worker. In a
Streamlit server (and under AppTest) ``__main__`` is the app's page script, so workers would
run the app. A ``python -m solver`` process has a package ``__main__`` that spawn skips, and a
crash in the cluster cannot take the server down.

It is a :class:`solver.run.jobs.Job`: tracked (stopped at interpreter exit) and stoppable by the
session registry. :meth:`stop` sends the child SIGINT: the driver cancels what is pending,
closes the cluster and exits; finished flops are already in the database (solves in progress
are dropped and run again on resume). A child that does not end within ``kill_after_s`` is
killed.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

from solver.batch.driver import BatchProgress
from solver.batch.spec import BatchSpec
from solver.run.jobs import ThreadOwner, track


class BatchJob(ThreadOwner[BatchProgress]):
    """Run ``spec`` into ``db`` on ``workers`` local workers or at ``scheduler``; the spec is
    written next to the database (``<db>.spec.json``) for the child process."""

    def __init__(
        self,
        spec: BatchSpec,
        db: str | Path,
        workers: int = 2,
        scheduler: str | None = None,
        connect_timeout: float = 10.0,
        kill_after_s: float = 30.0,
    ) -> None:
        self.spec = spec
        self.db = Path(db).resolve()
        self.workers = workers
        self.scheduler = scheduler or None
        self.connect_timeout = connect_timeout
        self.kill_after_s = kill_after_s
        self._lock = threading.Lock()
        self._stop = threading.Event()
        self._progress = BatchProgress(total=len(spec.flop_set()))
        self._thread: threading.Thread | None = None
        self._proc: subprocess.Popen[str] | None = None
        self._stderr: list[str] = []

    @property
    def progress(self) -> BatchProgress:
        with self._lock:
            return self._progress

    def _update(self, **changes: object) -> None:
        with self._lock:
            self._progress = replace(self._progress, **changes)  # type: ignore[arg-type]

    def command(self, spec_file: Path) -> list[str]:
        cmd = [sys.executable, "-m", "solver", "batch", "--spec", str(spec_file)]
        cmd += ["--db", str(self.db), "--json", "--workers", str(self.workers)]
        cmd += ["--connect-timeout", str(self.connect_timeout)]
        if self.scheduler:
            cmd += ["--scheduler", self.scheduler]
        return cmd

    def start(self) -> BatchJob:
        with self._lock:
            if self._thread is not None:
                raise RuntimeError("batch already started")
            self._thread = threading.Thread(target=self._main, name="batch-job", daemon=True)
            self._progress = replace(self._progress, state="starting", message="starting")
        track(self)
        self._thread.start()
        return self

    def stop(self, reason: str = "stop") -> None:
        """Ask the child to stop (SIGINT); non-blocking."""
        self._stop.set()
        proc = self._proc
        if proc is not None and proc.poll() is None:
            with contextlib.suppress(OSError):  # it has just ended
                proc.send_signal(signal.SIGINT)

    def _main(self) -> None:
        spec_file = self.db.with_name(self.db.name + ".spec.json")
        try:
            spec_file.write_text(self.spec.to_json(), encoding="utf-8")
            env = {**os.environ, "NUMBA_THREADING_LAYER": "threadsafe", "PYTHONUNBUFFERED": "1"}
            root = Path(__file__).resolve().parents[2]
            self._proc = subprocess.Popen(
                self.command(spec_file),
                cwd=root,
                env=env,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
                start_new_session=True,  # a Ctrl-C at the server's terminal is not the batch's
            )
            if self._stop.is_set():
                self.stop()
            readers = [
                threading.Thread(target=self._read_stderr, daemon=True),
                threading.Thread(target=self._read_stdout, daemon=True),
            ]
            for r in readers:
                r.start()
            self._wait()
            for r in readers:
                r.join(5.0)
            # gone before the job says it finished: a caller that sees "done" sees no spec file
            spec_file.unlink(missing_ok=True)
            self._finish()
        except Exception as exc:  # the page shows it
            self._update(state="failed", error=f"{type(exc).__name__}: {exc}", message="")
        finally:
            spec_file.unlink(missing_ok=True)

    def _wait(self) -> None:
        """Until the child ends; killed when it outlives a stop by ``kill_after_s``."""
        proc = self._proc
        assert proc is not None
        stopped_at: float | None = None
        while proc.poll() is None:
            if self._stop.is_set() and stopped_at is None:
                stopped_at = time.monotonic()
            if stopped_at is not None and time.monotonic() - stopped_at > self.kill_after_s:
                proc.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=0.2)

    def _read_stderr(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stderr is not None
        for line in proc.stderr:
            line = line.rstrip()
            self._stderr.append(line)
            if line.startswith("batch: ") and "flops/min" not in line:
                message = line[len("batch: ") :]
                changes: dict[str, object] = {"message": message}
                if message.startswith("solving"):
                    changes.update(state="running", message="")
                    self._running_since = time.perf_counter()
                self._update(**changes)

    _running_since: float | None = None

    def _read_stdout(self) -> None:
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        for line in proc.stdout:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue
            if not isinstance(rec, dict) or rec.get("final"):
                continue
            p = self.progress
            skipped = bool(rec.get("skipped"))
            failed = rec.get("status") == "failed"
            now_solved = p.solved_now + (not skipped)
            since = self._running_since
            elapsed = time.perf_counter() - since if since is not None else 0.0
            rate = now_solved / elapsed * 60.0 if elapsed > 0 and now_solved else 0.0
            left = p.total - p.done - 1
            self._update(
                done=p.done + 1,
                skipped=p.skipped + skipped,
                failed=p.failed + failed,
                solved_now=now_solved,
                elapsed_s=elapsed,
                flops_per_min=rate,
                eta_s=left / rate * 60.0 if rate > 0 else None,
            )

    def _finish(self) -> None:
        proc = self._proc
        assert proc is not None
        code = proc.returncode
        errors = [x[len("error: ") :] for x in self._stderr if x.startswith("error: ")]
        p = self.progress
        if code in (0, 1) and (not self._stop.is_set() or p.done == p.total):
            self._update(state="done", eta_s=0.0, message="")
        elif self._stop.is_set():
            self._update(state="stopped", eta_s=None, message="")
        else:
            tail = errors[-1] if errors else "\n".join(self._stderr[-5:])
            self._update(state="failed", error=tail or f"exit code {code}", message="")
