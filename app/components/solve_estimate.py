"""What a solve will cost before it starts, as one line: "≈ 4 s to 0.3 % pot" ("under a
second" below that: there the solve's fixed costs, checks and job start, outweigh the
iterations this counts).

Time = iterations to the target × seconds per iteration. Seconds per iteration come from the
tree's hand-cells times this machine's measured cost per hand-cell
(:mod:`solver.run.calibration`). Iterations to a target follow what DCFR took on the SRP presets
(BENCHMARKS.md, "Against the native solver": 90–150 iterations to 0.3 % pot on the river and
turn, 180–270 to 0.1 %) and on Leduc (docs/algorithms.md: 400 to 0.001 chips, four times as
many per tenth of the target): a power law, iterations ∝ target^-0.6. An estimate good to a
factor of about two for the DCFR family; other algorithms usually take longer.
"""

from __future__ import annotations

import math

from app.components.fields import duration

EXPONENT = 0.6
"""iterations ∝ target ** -EXPONENT (DCFR on SRP turns and rivers: 150 → 270 from 0.3 to
0.1 % pot; Leduc: ×4 per tenth)."""
HOLDEM_REF = (0.3, 150)  # (% pot, iterations): dcfr-tuned on the SRP turn
TOY_REF = (0.001, 400)  # (chips, iterations): dcfr on Leduc


def iterations_to(target: float, holdem: bool, max_iterations: int) -> int:
    """Iterations a DCFR-family solve typically needs to reach ``target`` (% pot on hold'em,
    chips on the toy games), at most ``max_iterations``; ``max_iterations`` without a target
    (``target`` ≤ 0)."""
    if target <= 0:
        return max_iterations
    at, count = HOLDEM_REF if holdem else TOY_REF
    return max(1, min(max_iterations, math.ceil(count * (at / target) ** EXPONENT)))


def estimate_line(
    seconds_per_iteration: float,
    target: float,
    unit: str,
    holdem: bool,
    max_iterations: int,
    pot: float | None = None,
) -> str:
    """The estimate as people read it: ``≈ 4 s to 0.3 % pot`` (``target`` in ``unit``, % pot
    or chips; a hold'em target in chips is compared in % of the starting ``pot``; ``target``
    ≤ 0: the time to ``max_iterations``)."""
    if target <= 0:
        n = max_iterations
        return f"≈ {duration(n * seconds_per_iteration)} for {n:,} iterations (no target)"
    typical = target
    if holdem and unit != "% pot":
        if not pot:
            return f"≈ {duration(seconds_per_iteration)} per iteration"
        typical = 100.0 * target / pot
    n = iterations_to(typical, holdem, max_iterations)
    seconds = n * seconds_per_iteration
    if seconds < 1.0:  # the iterations alone; below a second a solve's fixed costs rule
        return f"under a second to {target:g} {unit}"
    return f"≈ {duration(seconds)} to {target:g} {unit}"
