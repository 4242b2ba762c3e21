"""How the fuzz suite judges one input: run it, time it, measure the memory it allocated, and
sort the outcome into accepted / refused / escaped / slow / heavy.

*Refused* means the call raised one of the project's own errors, with a message, from a
``raise`` statement of the ``solver`` package (the innermost frame is a line of the package
that raises): a class of the package (SpecError, SizeError, RangeError, CardError,
PresetError, ExportError, OptionError, BatchError, ...) or a plain ValueError / TypeError /
KeyError of an argument check. ``int('abc')`` or a comparison failing inside the package
is not a refusal but an *escape*, as is anything else — an AttributeError, an
OverflowError, a RecursionError, numpy's own ValueError. Each target may narrow what counts
as refused (a preset file may only be answered with PresetError).

*Slow*: the input took longer than the limit (:data:`SLOW_S` for the benchmark; the tests
use :data:`HANG_S`, which only a hang can reach on a busy 2-core machine). *Heavy*: a
refusal whose Python allocations (tracemalloc, numpy's arrays included) peaked above
:data:`REFUSAL_MEMORY_MB`.

Shared by ``tests/fuzz/test_*.py`` (a few hundred examples in CI) and ``benchmarks/fuzz.py``
(≥ 10,000).
"""

from __future__ import annotations

import linecache
import re
import sys
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import solver

SOLVER_DIR = Path(solver.__file__).resolve().parent
SLOW_S = 5.0
"""The benchmark's "few seconds": an input taking longer counts as slow."""
HANG_S = 30.0
"""The tests' bound per input: far above any input here (milliseconds to a second), so only
a hang or an unbounded loop reaches it on a busy machine."""
REFUSAL_MEMORY_MB = 200.0
"""Most Python memory a refusal may allocate while deciding (MB, tracemalloc peak)."""

OUTCOMES = ("accepted", "refused", "escaped", "slow", "heavy")


class Refusal(Exception):
    """How a target that does not raise says the program refused (the CLI's exit code 2
    with one ``error:`` line)."""


@dataclass(frozen=True)
class Result:
    outcome: str  # one of OUTCOMES
    seconds: float
    peak_mb: float
    detail: str  # the exception's type and message, or ""


@dataclass
class Target:
    """One thing fuzzed: ``call`` runs an input (its return value is ignored); ``allowed``
    are the exception types that count as a refusal (checked for origin, see module
    docstring)."""

    name: str
    call: Callable[[Any], object]
    allowed: tuple[type[BaseException], ...] = (ValueError, TypeError, KeyError)
    counts: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    worst: dict[str, str] = field(default_factory=dict)  # outcome → one example
    slowest: float = 0.0  # seconds of the slowest input run so far
    peak_mb: float = 0.0  # the most a refusal allocated so far (MB, tracemalloc)


_RAISE = re.compile(r"(^|[:;]\s*|\belse\s+)raise\b")


def ours(exc: BaseException, allowed: tuple[type[BaseException], ...]) -> bool:
    """Whether ``exc`` is a refusal by the project: an allowed type with a message, raised
    by a ``raise`` statement on a line of ``solver`` (the innermost frame's)."""
    if not isinstance(exc, allowed):
        return False
    if isinstance(exc, Refusal):
        return True
    if not str(exc).strip():
        return False
    tb = exc.__traceback__
    last = None
    while tb is not None:
        last = tb
        tb = tb.tb_next
    if last is None:
        return False
    path = last.tb_frame.f_code.co_filename
    if not Path(path).resolve().is_relative_to(SOLVER_DIR):
        return False
    return bool(_RAISE.search(linecache.getline(path, last.tb_lineno).strip()))


def shown(value: Any, limit: int = 300) -> str:
    """``repr(value)`` cut to ``limit`` characters, even for an integer past Python's 4,300
    printable digits (the inputs hold some)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return repr(value)[:limit]
    finally:
        sys.set_int_max_str_digits(old)


def _call(target: Target, value: Any) -> tuple[str, str]:
    """(outcome, detail) of one call: accepted, refused or escaped."""
    try:
        target.call(value)
    except BaseException as exc:  # sorting every exception is the point
        if isinstance(exc, (KeyboardInterrupt, SystemExit)):
            raise
        detail = f"{type(exc).__name__}: {str(exc)[:300]}"
        return ("refused" if ours(exc, target.allowed) else "escaped"), detail
    return "accepted", ""


def _peak_mb(target: Target, value: Any) -> float:
    """Peak Python allocation (MB, numpy's arrays included) of the call, under tracemalloc."""
    tracemalloc.start()
    try:
        _call(target, value)
        return tracemalloc.get_traced_memory()[1] / 2**20
    finally:
        tracemalloc.stop()


def run(target: Target, value: Any, *, slow_s: float = SLOW_S, memory: bool = True) -> Result:
    """Run one input and classify it (see the module docstring); counts it on ``target``.

    The time is measured on a plain run; a refusal is then run again under tracemalloc for
    its memory (tracemalloc slows object-heavy code several times over, so it never times)."""
    started = time.perf_counter()
    outcome, detail = _call(target, value)
    seconds = time.perf_counter() - started
    peak_mb = _peak_mb(target, value) if memory and outcome == "refused" else 0.0
    if outcome != "escaped" and seconds > slow_s:
        outcome = "slow"
    elif outcome == "refused" and peak_mb > REFUSAL_MEMORY_MB:
        outcome = "heavy"
    target.counts[outcome] += 1
    target.slowest = max(target.slowest, seconds)
    target.peak_mb = max(target.peak_mb, peak_mb)
    if outcome not in target.worst:
        target.worst[outcome] = f"{detail or 'ok'} ({seconds:.2f} s, {peak_mb:.0f} MB) " + shown(
            value
        )
    return Result(outcome, seconds, peak_mb, detail)


def check(target: Target, value: Any) -> None:
    """The tests' assertion for one input: refused or accepted, never escaped, hung or heavy."""
    r = run(target, value, slow_s=HANG_S)
    assert r.outcome in ("accepted", "refused"), (
        f"{target.name}: {r.outcome} ({r.detail}; {r.seconds:.1f} s, {r.peak_mb:.0f} MB) "
        f"on {shown(value, 500)}"
    )
