"""What a solve will cost before it starts, as one line: "≈ 4 s to 0.3 % pot" ("under a
second" below that: there the solve's fixed costs, checks and job start, outweigh the
iterations this counts).

Time = iterations to the target × seconds per iteration. Seconds per iteration come from the
tree's hand-cells times this machine's measured cost per hand-cell on the solve's threads
(:meth:`solver.run.calibration.Cost.seconds`: the two-thread speed-up measured here once a
two-thread solve has run, an assumed one before). Iterations to a target follow what DCFR
took on the SRP presets (BENCHMARKS.md, "Against the native solver": 90–150 iterations to
0.3 % pot on the river and turn, 180–270 to 0.1 %) and on Leduc (docs/algorithms.md: 400 to
0.001 chips, four times as many per tenth of the target): a power law, iterations ∝
target^-0.6 (:func:`solver.run.calibration.iterations_to`, which batches use too). An
estimate good to a factor of about two for the DCFR family; other algorithms usually take
longer.
"""

from __future__ import annotations

from app.components.fields import duration
from solver.run.calibration import EXPONENT, HOLDEM_REF, TOY_REF, iterations_to

__all__ = ["EXPONENT", "HOLDEM_REF", "TOY_REF", "estimate_line", "iterations_to"]


def estimate_line(
    seconds_per_iteration: float,
    target: float,
    unit: str,
    holdem: bool,
    max_iterations: int,
    pot: float | None = None,
    threads: int = 1,
) -> str:
    """The estimate as people read it: ``≈ 4 s to 0.3 % pot`` (``target`` in ``unit``, % pot
    or chips; a hold'em target in chips is compared in % of the starting ``pot``; ``target``
    ≤ 0: the time to ``max_iterations``); ``threads`` > 1 is said (``on 2 threads``), the
    seconds per iteration being that many threads' already."""
    on = f" on {threads} threads" if threads > 1 else ""
    if target <= 0:
        n = max_iterations
        return f"≈ {duration(n * seconds_per_iteration)} for {n:,} iterations{on} (no target)"
    typical = target
    if holdem and unit != "% pot":
        if not pot:
            return f"≈ {duration(seconds_per_iteration)} per iteration{on}"
        typical = 100.0 * target / pot
    n = iterations_to(typical, holdem, max_iterations)
    seconds = n * seconds_per_iteration
    if seconds < 1.0:  # the iterations alone; below a second a solve's fixed costs rule
        return f"under a second to {target:g} {unit}{on}"
    return f"≈ {duration(seconds)} to {target:g} {unit}{on}"
