"""Making a solve job off the page's thread: a :class:`JobStarter` builds a
:class:`solver.run.jobs.SolveJob` (a flop's game and its solver take seconds) in a thread of
its own and says what it is doing meanwhile. :mod:`solver.run.jobs` re-exports it. Generic in
the job it makes (``JobStarter[SolveJob]``), so this module imports no job.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Generic, TypeVar

J = TypeVar("J")


class JobStarter(Generic[J]):
    """Makes a :class:`SolveJob` in a thread of its own — building a flop's game and
    allocating its solver take seconds, which a page should not wait for — and says what it
    is doing meanwhile (:attr:`phase`). ``make(say)`` builds the job, calling ``say(text)``
    as it goes; the job is not started. A ValueError or MemoryError it raises is kept as
    :attr:`error` (a message for the page); after :meth:`cancel` the job made is dropped."""

    def __init__(self, make: Callable[[Callable[[str], None]], J]) -> None:
        self._make: Callable[[Callable[[str], None]], J] | None = make
        self._lock = threading.Lock()
        self._phase = "starting"
        self._job: J | None = None
        self._error = ""
        self._cancelled = False
        self._started = time.monotonic()
        self._thread = threading.Thread(target=self._run, name="solve-starter", daemon=True)

    def start(self) -> JobStarter[J]:
        self._started = time.monotonic()
        self._thread.start()
        return self

    def _say(self, text: str) -> None:
        with self._lock:
            self._phase = text

    def _run(self) -> None:
        make, self._make = self._make, None
        assert make is not None
        try:
            job = make(self._say)
        except (ValueError, MemoryError) as exc:
            with self._lock:
                self._error = str(exc)
            return
        except Exception as exc:  # the page says it; the server's log has no more to add
            with self._lock:
                self._error = f"{type(exc).__name__}: {exc}"
            return
        with self._lock:
            if not self._cancelled:
                self._job = job

    @property
    def phase(self) -> str:
        with self._lock:
            return self._phase

    @property
    def seconds(self) -> float:
        """Seconds since it started."""
        return time.monotonic() - self._started

    @property
    def done(self) -> bool:
        return not self._thread.is_alive()

    @property
    def job(self) -> J | None:
        with self._lock:
            return self._job

    @property
    def error(self) -> str:
        with self._lock:
            return self._error

    def cancel(self) -> None:
        with self._lock:
            self._cancelled = True
            self._job = None

    def join(self, timeout: float | None = None) -> bool:
        self._thread.join(timeout)
        return not self._thread.is_alive()
