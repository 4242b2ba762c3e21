"""Stopping the app's background jobs — a solve, a race, a batch, a stack chart — one way:
ask it to stop, then wait for its thread a bounded time (a job that takes longer ends on its
own; the page does not hang on it)."""

from __future__ import annotations

from typing import Protocol


class Stoppable(Protocol):
    def stop(self) -> None: ...

    def join(self, timeout: float | None = None) -> object: ...


def stop_job(job: Stoppable | None, wait_s: float = 30.0) -> None:
    """Stop ``job`` (none: nothing to do) and wait up to ``wait_s`` seconds for it to end."""
    if job is not None:
        job.stop()
        job.join(wait_s)
