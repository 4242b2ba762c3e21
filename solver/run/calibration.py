"""How long one iteration of a tree will take, before it is built: the tree's *hand-cells*
times a cost per hand-cell measured on this machine.

A full-width iteration walks every node for both players with a vector of hands: each action
of a decision node updates one regret and one strategy sum per hand of the player to act,
and each terminal node evaluates both players' hands. So the work of one iteration is close
to proportional to

    hand-cells = storage entries (Σ over decision nodes of actions × hands of the actor)
                 + terminal nodes × (hands of player 0 + hands of player 1).

:func:`measure` times a small turn spot (the warm-up's) and divides by its hand-cells;
:func:`record` folds in what real solves measured (so the figure follows this machine); the
result is kept in ``$XDG_CACHE_HOME/regret-lab/calibration.json``. On the development machine
the cost per hand-cell was 4.4–7.4 ns across the SRP and Libratus river and turn presets
(one thread, dcfr-tuned, float32): an estimate good to a factor of about two, which is what
it is for — telling a 0.01-second river from a 5-second flop before pressing Solve.
"""

from __future__ import annotations

import json
import math
import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from solver.games.holdem import Estimate
from solver.games.model import FIXED, Game

DEFAULT_NS_PER_CELL = 7.0
"""The cost per hand-cell assumed before anything was measured on this machine (the
development machine's figure for turn spots, one thread)."""
TWO_THREAD_SPEEDUP = 1.5
"""How much faster a pass runs on two threads than on one, assumed for estimates until a
two-thread solve on this machine has been timed (:func:`record` keeps each thread count's
own figure; ``python benchmarks/versus_native.py --threads 1,2`` measures it too)."""
_LOCK = threading.Lock()

EXPONENT = 0.6
"""Iterations to a target ∝ target ** -EXPONENT (DCFR on the SRP turn and river presets: 150
→ 270 from 0.3 to 0.1 % pot, BENCHMARKS.md "Against the native solver"; Leduc: ×4 per
tenth, docs/algorithms.md)."""
HOLDEM_REF = (0.3, 150)  # (% pot, iterations): dcfr-tuned on the SRP turn
TOY_REF = (0.001, 400)  # (chips, iterations): dcfr on Leduc


def iterations_to(target: float, holdem: bool, max_iterations: int) -> int:
    """Iterations a DCFR-family solve typically needs to reach ``target`` (% pot on hold'em,
    chips on the toy games), at most ``max_iterations``; ``max_iterations`` without a target
    (``target`` ≤ 0). Good to a factor of about two; other algorithms usually take longer."""
    if target <= 0:
        return max_iterations
    at, count = HOLDEM_REF if holdem else TOY_REF
    return max(1, min(max_iterations, math.ceil(count * (at / target) ** EXPONENT)))


def cache_file() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "regret-lab" / "calibration.json"


def cells_of_estimate(est: Estimate) -> int:
    """Hand-cells of a hold'em tree from its size estimate (before it is built)."""
    return int(est.storage_entries + est.terminal_nodes * (est.hands[0] + est.hands[1]))


def cells_of_game(game: Game) -> int:
    """Hand-cells of a built game (any game: toy or hold'em)."""
    terminals = int(np.count_nonzero(game.tree.kind >= FIXED))  # folds, showdowns, runouts
    h0, h1 = game.num_hands
    return int(game.action_size + terminals * (h0 + h1))


@dataclass(frozen=True)
class Cost:
    """Nanoseconds per hand-cell on one thread, where the figure comes from, and the wall
    time per hand-cell measured on this machine at other thread counts (``threaded``:
    (threads, ns) pairs, from real solves; :func:`record`)."""

    ns_per_cell: float
    measured: bool  # False: the default, nothing measured on this machine yet
    threaded: tuple[tuple[int, float], ...] = ()

    def speedup(self, threads: int) -> float:
        """How much faster an iteration runs on ``threads`` threads than on one: the ratio
        measured here when both figures are, else the assumed :data:`TWO_THREAD_SPEEDUP`
        (scaled by threads / 2)."""
        if threads <= 1:
            return 1.0
        ns = dict(self.threaded).get(threads)
        if ns is not None and self.measured:
            return self.ns_per_cell / ns
        return TWO_THREAD_SPEEDUP * threads / 2.0

    def seconds(self, cells: int, threads: int = 1) -> float:
        """Estimated seconds of one iteration over ``cells`` hand-cells on ``threads``
        threads: the figure measured at that thread count when there is one, else the
        one-thread figure over :meth:`speedup`."""
        ns = dict(self.threaded).get(threads) if threads > 1 else None
        if ns is not None:
            return cells * ns * 1e-9
        return cells * self.ns_per_cell * 1e-9 / self.speedup(threads)


def _read() -> dict:
    try:
        data = json.loads(cache_file().read_text())
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) else {}


def _threaded(data: dict) -> tuple[tuple[int, float], ...]:
    """The (threads, ns per hand-cell) pairs of a kept file's ``"threads"`` entry, checked."""
    out = []
    raw = data.get("threads")
    for key, value in raw.items() if isinstance(raw, dict) else ():
        try:
            t, ns = int(key), float(value[0])
        except (ValueError, TypeError, IndexError, KeyError):
            continue
        if t > 1 and ns > 0 and np.isfinite(ns):
            out.append((t, ns))
    return tuple(sorted(out))


def load() -> Cost:
    """The cost kept on this machine (the default one-thread figure when none is kept)."""
    data = _read()
    threaded = _threaded(data)
    try:
        ns = float(data["ns_per_cell"])
        if ns > 0 and np.isfinite(ns):
            return Cost(ns, True, threaded)
    except (ValueError, KeyError, TypeError):
        pass
    return Cost(DEFAULT_NS_PER_CELL, False, threaded)


def _save(data: dict) -> None:
    path = cache_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data))
        tmp.replace(path)
    except OSError:  # a read-only home: the estimate just stays the default
        pass


def _mean(old: float | None, n: int, new: float) -> float:
    """A running mean over the last solves: weight 1/4 each once there are four."""
    if old is None:
        return new
    weight = 1.0 / min(n + 1, 4)
    return (1.0 - weight) * old + weight * new


def record(cells: int, seconds_per_iteration: float, threads: int = 1) -> Cost:
    """Fold a measured iteration time (``threads`` threads, one solve) into the kept cost of
    that thread count: one thread's cost per hand-cell, or the wall time per hand-cell on
    ``threads`` threads (so a two-thread estimate uses the speed-up measured here, not an
    assumed one). A running mean over the last solves (weight 1/4 each once there are
    four). Ignores tiny trees, whose time is overhead rather than work."""
    if cells < 100_000 or not seconds_per_iteration > 0:
        return load()
    ns = seconds_per_iteration / cells * 1e9
    with _LOCK:
        data = _read()
        if threads <= 1:
            try:
                old: float | None = float(data["ns_per_cell"])
                n = int(data.get("samples", 1))
            except (ValueError, KeyError, TypeError):
                old, n = None, 0
            data["ns_per_cell"] = _mean(old, n, ns)
            data["samples"] = n + 1
        else:
            raw = data.get("threads")
            per = dict(raw) if isinstance(raw, dict) else {}
            old = dict(_threaded(data)).get(threads)
            try:
                n = int(per[str(threads)][1]) if old is not None else 0
            except (ValueError, KeyError, TypeError, IndexError):
                n = 0
            per[str(threads)] = [_mean(old, n, ns), n + 1]
            data["threads"] = per
        _save(data)
    return load()


def measure(seconds: float = 1.0) -> Cost:
    """Time the ``srp-turn`` preset for about ``seconds`` (dcfr-tuned, one thread) and keep
    its cost per hand-cell. Needs the kernels compiled (they load from Numba's cache)."""
    from solver.algorithms import make_solver
    from solver.files.presets import load_preset

    game = load_preset("srp-turn").build()
    eng = make_solver(game, "dcfr-tuned")
    eng.iterate(2)  # loads the kernels; not timed
    n = 0
    t0 = time.perf_counter()
    while True:
        eng.iterate(1)
        n += 1
        dt = time.perf_counter() - t0
        if dt >= seconds:
            break
    ns = dt / n / cells_of_game(game) * 1e9
    with _LOCK:
        data = _read()
        data.update(ns_per_cell=ns, samples=1)
        _save(data)
    return load()
