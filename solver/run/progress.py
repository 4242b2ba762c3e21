"""A solve job's snapshots and what is read from them: the checks so far (:class:`History` of
:data:`Point`), the immutable :class:`Progress` a :class:`solver.run.jobs.SolveJob` publishes,
when the next check falls (:func:`next_check`) and the time to a target from the checks'
trend (:func:`estimate_eta`). No threads here; :mod:`solver.run.jobs` re-exports every name.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import overload

import numpy as np
import numpy.typing as npt

from solver.cfr.checks import Check
from solver.run.lifecycle import FINISHED, READY

Array = npt.NDArray[np.float64]

CHECK_EVERY = 10
"""Iterations between exploitability checks by default (the CLI's ``--every``)."""


Point = Check
"""One exploitability measurement of a job's average strategy: the one record of a check,
:class:`solver.cfr.checks.Check` (its old name here, kept)."""


class History(Sequence[Point]):
    """The checks of a solve so far: an append-only list shared by every snapshot, each
    snapshot seeing the first ``n`` entries. Appending is O(1) — a long solve checked every
    10 iterations makes tens of thousands of checks, and copying a tuple at each one cost
    more than the solve. Reads (indexing, slices as tuples, iteration, ``len``) see only the
    snapshot's entries, so a snapshot never changes."""

    __slots__ = ("_items", "_n")

    def __init__(self, items: list[Point] | None = None, n: int | None = None) -> None:
        self._items = items if items is not None else []
        self._n = len(self._items) if n is None else n

    def appended(self, point: Point) -> History:
        """A history one check longer (this one unchanged). Only the newest view appends:
        the job thread's."""
        if len(self._items) != self._n:  # an older view: copy (never happens in a job)
            return History([*self._items[: self._n], point])
        self._items.append(point)
        return History(self._items, self._n + 1)

    def __len__(self) -> int:
        return self._n

    @overload
    def __getitem__(self, i: int) -> Point: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Point, ...]: ...

    def __getitem__(self, i: int | slice) -> Point | tuple[Point, ...]:
        if isinstance(i, slice):
            return tuple(self._items[: self._n][i])
        if i < 0:
            i += self._n
        if not 0 <= i < self._n:
            raise IndexError("history index out of range")
        return self._items[i]

    def __iter__(self) -> Iterator[Point]:
        return iter(self._items[: self._n])

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (History, tuple, list)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"History({self._n} checks)"


@dataclass(frozen=True)
class Progress:
    """An immutable snapshot of a job. Arrays in it are read-only copies owned by the
    snapshot; ``history`` is a :class:`History` (append-only between snapshots)."""

    state: str = READY
    iteration: int = 0
    elapsed_s: float = 0.0  # time spent solving and measuring (pauses excluded), seconds
    iterations_per_s: float = 0.0  # over the last chunks (0 before the first one ends)
    nodes_touched: int = 0
    memory_bytes: int = 0  # what the solve holds now (falls while Total RBP prunes)
    exploitability: float | None = None  # chips, at the last check
    best_response: tuple[float, float] | None = None  # (BR₀, BR₁) chips at the last check
    history: History = field(default_factory=History, repr=False)
    watched_node: int = 0
    watched_strategy: Array | None = field(
        default=None, repr=False
    )  # (num_actions, num_hands) average at watched_node
    watched_reach: tuple[Array, Array] | None = field(
        default=None, repr=False
    )  # ((H₀,), (H₁,)) each player's reach at watched_node under the average strategy
    watched_iteration: int = 0  # iteration at which the watched arrays were copied
    stopped_by: str = ""  # "target", "iterations", "stop", "session", "exit" or ""
    error: str = ""
    waiting: bool = False  # started, but waiting for its kernels (``ready``) before solving
    # what the thread does before its first chunk ends: "first check" (measuring the start),
    # "first iterations", then "" (also while waiting: ``waiting`` says that)
    phase: str = ""
    # the node table after the solve: "" (none), "building", "ready" or "failed: …"
    table: str = ""
    table_s: float = 0.0  # seconds the table's pass took
    table_bytes: int = 0  # bytes it keeps
    starting_pot: float = 0.0  # chips (hold'em subgames; 0 for toy games)
    big_blind: float | None = None  # chips, for mbb/hand

    @property
    def finished(self) -> bool:
        return self.state in FINISHED

    @property
    def seconds_per_iteration(self) -> float | None:
        """Seconds one iteration takes lately (None before the first chunk ends)."""
        return 1.0 / self.iterations_per_s if self.iterations_per_s > 0 else None

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


TREND_POINTS = 5
"""Checks a time-to-target trend needs (log-log fit over the recent ones)."""
TREND_WINDOW = 12
"""How many of the latest checks the trend is fitted to."""


def estimate_eta(history: Sequence[Point], target: float | None) -> float | None:
    """Seconds until ``target`` (chips) by a power-law fit of exploitability against solve
    time: a least-squares line through the latest :data:`TREND_WINDOW` checks in log-log
    (at least :data:`TREND_POINTS` with time > 0 and exploitability > 0, spread in time).
    0 once the last check is at or below the target; None while no falling trend can be
    fitted (too few checks, or exploitability not falling). May be huge: the page shows
    "> 1 day" past a day."""
    if target is None:
        return None
    pts = [p for p in history[-TREND_WINDOW:] if p.elapsed_s > 0 and p.exploitability > 0]
    if pts and pts[-1].exploitability <= target:
        return 0.0
    if len(pts) < TREND_POINTS:
        return None
    x = np.log([p.elapsed_s for p in pts])
    y = np.log([p.exploitability for p in pts])
    if np.ptp(x) <= 1e-9:
        return None
    slope, icept = (float(v) for v in np.polyfit(x, y, 1))
    if not slope < -1e-3:
        return None
    log_t = (math.log(target) - icept) / slope
    now = pts[-1].elapsed_s
    if log_t > math.log(now) + 50.0:  # beyond any clock: e^50 times the time so far
        return math.inf
    return max(math.exp(log_t) - now, 0.0)


def next_check(iteration: int, every: int) -> int:
    """The first iteration after ``iteration`` at which a solve checking every ``every``
    iterations measures: the next multiple of ``every``."""
    return (iteration // every + 1) * every
