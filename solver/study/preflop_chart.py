"""The heads-up push/fold chart by stack: solve push/fold at each of a list of stacks and read,
per hand class, the largest stack at which shoving (SB) or calling (BB) is still a best
response — the classic Nash push/fold chart (HoldemResources publishes one; docs/preflop.md).

A hand "plays" at a stack when the EV of shoving (calling) is within ``tolerance`` bb of the EV
of folding, against the other player's solved strategy (:func:`solver.study.views.action_evs`): a
hand indifferent at equilibrium counts as played, whatever mix the solve settled on.

``python -m solver.study.preflop_chart --stacks 1:20:0.5`` prints both charts as 13 × 13 grids.

Every argument is checked before the first solve: a bad one is a
:class:`~solver.games.spec.SpecError` naming it (``stacks``, ``sb``, ``ante``, ``target``,
``max_iterations``, ``who``, ``tolerance``, ``label``; :func:`stack_grid`'s ``first``,
``last``, ``step``), and the module's command line answers it with one ``error: --flag: …``
line and exit code 2, as ``python -m solver`` does.
"""

from __future__ import annotations

import argparse
import itertools
import math
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import NoReturn

import numpy as np
import numpy.typing as npt

from solver.games.preflop import MAX_STACK_BB, MIN_STACK_BB, PreflopSpec, validate
from solver.games.spec import SpecError, _number
from solver.poker.ranges import CLASS_LABELS, COMBO_CELL
from solver.quoting import brief

Array = npt.NDArray[np.float64]
WHO = ("SB", "BB")
MAX_STACKS = 200
"""Most stacks in one chart (each is a solve)."""
MAX_ITERATIONS = 1_000_000
"""Most iterations per stack."""


@dataclass(frozen=True)
class StackChart:
    """Per stack (S,) and hand class (169, :data:`solver.poker.ranges.CLASS_LABELS` order): the
    solved frequency and the EV margin (bb) of shoving (SB) and of calling a shove (BB)."""

    stacks: tuple[float, ...]  # bb, ascending
    push: Array  # (S, 169): SB's shove frequency
    call: Array  # (S, 169): BB's call frequency
    push_margin: Array  # (S, 169): EV(shove) − EV(fold), bb
    call_margin: Array  # (S, 169): EV(call) − EV(fold) facing the shove, bb
    exploitability: Array  # (S,) bb

    def largest(self, who: str, tolerance: float = 1e-4) -> Array:
        """(169,): the largest stack at which each class shoves (``who="SB"``) or calls
        (``"BB"``) as a best response (margin ≥ −``tolerance``); NaN where it never does."""
        _check_who(who)
        tolerance = _number("tolerance", tolerance, positive=False)
        margin = self.push_margin if who == "SB" else self.call_margin
        plays = margin >= -tolerance
        out = np.full(len(CLASS_LABELS), np.nan)
        for s in range(len(self.stacks)):
            out[plays[s]] = self.stacks[s]
        return out

    def threshold(self, label: str, who: str, tolerance: float = 1e-4) -> float | None:
        """:meth:`largest` for one class label (``"T3s"``); None where it never plays."""
        if not isinstance(label, str) or label not in CLASS_LABELS:
            raise SpecError("label", f"must be a hand class such as 'T3s', got {brief(label)}")
        x = float(self.largest(who, tolerance)[CLASS_LABELS.index(label)])
        return None if np.isnan(x) else x


def _check_who(who: object) -> None:
    if not isinstance(who, str) or who not in WHO:
        raise SpecError("who", f"must be SB or BB, got {brief(who)}")


def check_stacks(stacks: Iterable[object], sb: object = 0.5, ante: object = 0.0) -> list[float]:
    """``stacks`` (bb) as the sorted distinct floats a chart solves, each checked with the
    blinds and ante as :func:`solver.games.preflop.validate` checks a spec (the stack
    covers the big blind and the ante); :class:`SpecError` naming ``stacks``, ``sb`` or
    ``ante``. At most :data:`MAX_STACKS`, counted before more are read."""
    if isinstance(stacks, (str, bytes)) or not isinstance(stacks, Iterable):
        raise SpecError("stacks", f"must be a list of stacks in bb, got {brief(stacks)}")
    given = list(itertools.islice(stacks, MAX_STACKS + 1))
    if len(given) > MAX_STACKS:
        raise SpecError("stacks", f"more than {MAX_STACKS} stacks (each is a solve)")
    values = [
        _number("stacks", x, minimum=MIN_STACK_BB, maximum=MAX_STACK_BB, unit=" bb") for x in given
    ]
    order = sorted(set(values))
    if not order:
        raise SpecError("stacks", "give at least one stack")
    for stack in order:
        try:
            spec = PreflopSpec(stack_bb=stack, tree="push-fold", sb=sb, bb=1.0, ante=ante)  # type: ignore[arg-type]
            validate(spec)  # checks sb and ante whatever their type
        except SpecError as exc:
            field = "stacks" if exc.field == "stack_bb" else exc.field
            raise SpecError(field, exc.message) from None
    return order


def stack_grid(first: object, last: object, step: object) -> list[float]:
    """Stacks from ``first`` to ``last`` (bb, ``last`` included when on the grid) every
    ``step`` bb, rounded to 1e-6; empty when ``last`` < ``first``. :class:`SpecError` naming
    ``first``, ``last`` or ``step`` for a bound that is not a positive number, or a grid of
    more than :data:`MAX_STACKS` stacks — counted before any is made."""
    a = _number("first", first)
    b = _number("last", last)
    d = _number("step", step)
    span = (b - a) / d
    if not math.isfinite(span) or span + 1 > MAX_STACKS + 0.5:
        count = (
            "too many"
            if not math.isfinite(span)
            else f"{span + 1:,.0f}"
            if span < 1e9
            else f"{span + 1:.1e}"
        )
        raise SpecError(
            "step", f"{count} stacks from {a:g} to {b:g}; at most {MAX_STACKS} in one chart"
        )
    n = round(span) + 1
    out = [round(a + i * d, 6) for i in range(max(n, 1))]
    return [x for x in out if x <= b + 1e-9]


def _per_class(values: Array) -> Array:
    """(1326,) per combo → (169,) class means."""
    sums = np.bincount(COMBO_CELL, weights=values, minlength=len(CLASS_LABELS))
    return sums / np.bincount(COMBO_CELL, minlength=len(CLASS_LABELS))


def push_fold_chart(
    stacks: Iterable[float],
    sb: float = 0.5,
    ante: float = 0.0,
    target: float = 1e-6,
    max_iterations: int = 5000,
    algorithm: str = "dcfr-tuned",
    progress: Callable[[float, float], None] | None = None,
) -> StackChart:
    """Solve full-range push/fold at each stack (bb, 1 to 50; ``sb`` and ``ante`` in bb) to
    ``target`` bb of exploitability (at most ``max_iterations``) and collect the chart.
    ``progress(stack, fraction done)`` after each stack. Every argument is checked before
    the first solve (:func:`check_stacks`; :class:`SpecError` naming the argument)."""
    from solver.api import solve
    from solver.games.preflop import build_preflop
    from solver.study.views import action_evs

    order = check_stacks(stacks, sb, ante)
    target = _number("target", target)
    if isinstance(max_iterations, bool) or not isinstance(max_iterations, (int, np.integer)):
        raise SpecError("max_iterations", f"must be a whole number, got {brief(max_iterations)}")
    if not 1 <= max_iterations <= MAX_ITERATIONS:
        raise SpecError("max_iterations", f"must be 1 to {MAX_ITERATIONS:,}, got {max_iterations}")
    if not isinstance(algorithm, str):
        raise SpecError("algorithm", f"must be an algorithm's name, got {brief(algorithm)}")
    if progress is not None and not callable(progress):
        raise SpecError("progress", f"must be a function or None, got {brief(progress)}")
    rows: list[tuple[Array, Array, Array, Array, float]] = []
    for k, stack in enumerate(order):
        game = build_preflop(stack_bb=stack, tree="push-fold", sb=sb, bb=1.0, ante=ante)
        result = solve(game, algorithm, iterations=int(max_iterations),
                       target_exploitability=target, check_every=50)  # fmt: skip
        sigma = result.average_strategy()
        bb_node = int(game.children(0)[-1])
        ev_sb = action_evs(game, sigma, 0)
        ev_bb = action_evs(game, sigma, bb_node)
        rows.append((
            _per_class(result.node_strategy(0)[1]),
            _per_class(result.node_strategy(bb_node)[1]),
            _per_class(ev_sb[1] - ev_sb[0]),
            _per_class(ev_bb[1] - ev_bb[0]),
            result.exploitability,
        ))  # fmt: skip
        if progress is not None:
            progress(stack, (k + 1) / len(order))
    return StackChart(
        tuple(order),
        np.array([r[0] for r in rows]),
        np.array([r[1] for r in rows]),
        np.array([r[2] for r in rows]),
        np.array([r[3] for r in rows]),
        np.array([r[4] for r in rows]),
    )


def format_grid(values: Array, top: float) -> str:
    """A 13 × 13 text grid of per-class stacks (:data:`CLASS_LABELS` order): ``top+`` for the
    largest stack solved, ``-`` for never."""
    lines = []
    for row in range(13):
        cells = []
        for col in range(13):
            k = row * 13 + col
            v = values[k]
            text = "-" if np.isnan(v) else f"{top:g}+" if v >= top else f"{v:g}"
            cells.append(f"{CLASS_LABELS[k]:>4} {text:<5}")
        lines.append(" ".join(cells))
    return "\n".join(lines)


def _stacks(text: str) -> list[float]:
    """``"1:20:0.5"`` (first:last:step) or ``"5, 7.5, 10"``; :class:`SpecError` naming
    ``stacks`` (or the grid's ``first``, ``last``, ``step``)."""
    if len(text) > 10_000:
        raise SpecError("stacks", "longer than 10,000 characters")
    if ":" in text:
        parts = text.split(":")
        if len(parts) != 3:
            raise SpecError("stacks", f"first:last:step has three parts, got {brief(text)}")
        return stack_grid(*(p.strip() for p in parts))
    items = text.replace(",", " ").split()
    if len(items) > MAX_STACKS:
        raise SpecError("stacks", f"more than {MAX_STACKS} stacks (each is a solve)")
    return [_number("stacks", x, minimum=MIN_STACK_BB, maximum=MAX_STACK_BB, unit=" bb")
            for x in items]  # fmt: skip


class _UsageError(Exception):
    """A command-line mistake: one ``error:`` line, exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


FLAGS = {"stacks": "--stacks", "first": "--stacks", "last": "--stacks", "step": "--stacks",
         "ante": "--ante"}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    """``python -m solver.study.preflop_chart [--stacks S] [--ante A]``: 0, or 2 with one
    ``error: --flag: …`` line for bad input (checked before the first solve)."""
    parser = _Parser(prog="python -m solver.study.preflop_chart")
    parser.add_argument("--stacks", default="1:20:0.5", help="first:last:step or a list (bb)")
    parser.add_argument("--ante", default="0", help="ante per player (bb)")

    def say(stack: float, done: float) -> None:
        print(f"\rsolved {stack:g} bb ({100 * done:.0f} %)", end="", file=sys.stderr, flush=True)

    try:
        args = parser.parse_args(argv)
        ante = _number("ante", args.ante, positive=False)
        stacks = check_stacks(_stacks(args.stacks), ante=ante)
        chart = push_fold_chart(stacks, ante=ante, progress=say)
    except _UsageError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except SpecError as exc:
        flag = FLAGS.get(exc.field, exc.field)
        where = f"{flag}: {exc.field}" if exc.field in ("first", "last", "step") else flag
        print(f"error: {where}: {exc.message}", file=sys.stderr)
        return 2
    print(file=sys.stderr)
    top = chart.stacks[-1]
    for who, title in (("SB", "SB shoves up to (bb)"), ("BB", "BB calls up to (bb)")):
        print(f"{title}:\n{format_grid(chart.largest(who), top)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
