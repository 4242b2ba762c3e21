"""A solve's exploitability check as one record, on the engine's floor so that every floor
above reads it: :class:`Check` — what a background job keeps (``solver.run.jobs.Point`` is
this record), what a save file's history holds (:mod:`solver.files.export`) and what the
app's figures draw (:mod:`app.components.figures`). The API's
:class:`~solver.api.Checkpoint` (adds both best responses) and a race's
:class:`~solver.run.race.report.RacePoint` (adds the algorithm's CPU seconds) are this
record with one field more."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Check:
    """One exploitability measurement of the average strategy."""

    iteration: int
    elapsed_s: float  # solve time so far (pauses excluded; a race's: its wall time), seconds
    exploitability: float  # chips, NashConv/2: (BR₀ + BR₁) / 2 unraked
    nodes_touched: int = 0  # nodes visited by the solve's passes so far
    memory_bytes: int = 0  # bytes the solve holds (regrets, sums, buffers; see Engine)
