"""The heads-up push/fold chart by stack: solve push/fold at each of a list of stacks and read,
per hand class, the largest stack at which shoving (SB) or calling (BB) is still a best
response — the classic Nash push/fold chart (HoldemResources publishes one; docs/preflop.md).

A hand "plays" at a stack when the EV of shoving (calling) is within ``tolerance`` bb of the EV
of folding, against the other player's solved strategy (:func:`solver.study.views.action_evs`): a
hand indifferent at equilibrium counts as played, whatever mix the solve settled on.

``python -m solver.study.preflop_chart --stacks 1:20:0.5`` prints both charts as 13 × 13 grids.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.poker.ranges import CLASS_LABELS, COMBO_CELL

Array = npt.NDArray[np.float64]
WHO = ("SB", "BB")


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
        if who not in WHO:
            raise ValueError(f"who must be SB or BB, got {who!r}")
        margin = self.push_margin if who == "SB" else self.call_margin
        plays = margin >= -tolerance
        out = np.full(len(CLASS_LABELS), np.nan)
        for s in range(len(self.stacks)):
            out[plays[s]] = self.stacks[s]
        return out

    def threshold(self, label: str, who: str, tolerance: float = 1e-4) -> float | None:
        """:meth:`largest` for one class label (``"T3s"``); None where it never plays."""
        x = float(self.largest(who, tolerance)[CLASS_LABELS.index(label)])
        return None if np.isnan(x) else x


def _per_class(values: Array) -> Array:
    """(1326,) per combo → (169,) class means."""
    sums = np.bincount(COMBO_CELL, weights=values, minlength=len(CLASS_LABELS))
    return sums / np.bincount(COMBO_CELL, minlength=len(CLASS_LABELS))


def push_fold_chart(
    stacks: Sequence[float],
    sb: float = 0.5,
    ante: float = 0.0,
    target: float = 1e-6,
    max_iterations: int = 5000,
    algorithm: str = "dcfr-tuned",
    progress: Callable[[float, float], None] | None = None,
) -> StackChart:
    """Solve full-range push/fold at each stack (bb, 1 to 50; ``sb`` and ``ante`` in bb) to
    ``target`` bb of exploitability (at most ``max_iterations``) and collect the chart.
    ``progress(stack, fraction done)`` after each stack."""
    from solver.api import solve
    from solver.games.preflop import build_preflop
    from solver.study.views import action_evs

    order = sorted({float(s) for s in stacks})
    if not order:
        raise ValueError("stacks: give at least one stack")
    rows: list[tuple[Array, Array, Array, Array, float]] = []
    for k, stack in enumerate(order):
        game = build_preflop(stack_bb=stack, tree="push-fold", sb=sb, bb=1.0, ante=ante)
        result = solve(game, algorithm, iterations=max_iterations,
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
    """``"1:20:0.5"`` (first:last:step) or ``"5, 7.5, 10"``."""
    if ":" in text:
        first, last, step = (float(x) for x in text.split(":"))
        n = round((last - first) / step) + 1
        return [round(first + i * step, 6) for i in range(max(n, 1))]
    return [float(x) for x in text.replace(",", " ").split()]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m solver.study.preflop_chart")
    parser.add_argument("--stacks", default="1:20:0.5", help="first:last:step or a list (bb)")
    parser.add_argument("--ante", type=float, default=0.0, help="ante per player (bb)")
    args = parser.parse_args(argv)

    def say(stack: float, done: float) -> None:
        print(f"\rsolved {stack:g} bb ({100 * done:.0f} %)", end="", file=sys.stderr, flush=True)

    chart = push_fold_chart(_stacks(args.stacks), ante=args.ante, progress=say)
    print(file=sys.stderr)
    top = chart.stacks[-1]
    for who, title in (("SB", "SB shoves up to (bb)"), ("BB", "BB calls up to (bb)")):
        print(f"{title}:\n{format_grid(chart.largest(who), top)}\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
