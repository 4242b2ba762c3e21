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
"""How much faster a pass runs on two threads than on one, assumed for estimates (measure it:
``python benchmarks/versus_native.py --threads 1,2``)."""
_LOCK = threading.Lock()


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
    """Seconds per hand-cell on one thread, and where the figure comes from."""

    ns_per_cell: float
    measured: bool  # False: the default, nothing measured on this machine yet

    def seconds(self, cells: int, threads: int = 1) -> float:
        """Estimated seconds of one iteration over ``cells`` hand-cells."""
        speedup = 1.0 if threads <= 1 else TWO_THREAD_SPEEDUP * threads / 2.0
        return cells * self.ns_per_cell * 1e-9 / speedup


def load() -> Cost:
    """The cost kept on this machine (the default when none is kept)."""
    try:
        data = json.loads(cache_file().read_text())
        ns = float(data["ns_per_cell"])
        if ns > 0 and np.isfinite(ns):
            return Cost(ns, True)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return Cost(DEFAULT_NS_PER_CELL, False)


def _save(ns: float, samples: int) -> None:
    path = cache_file()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps({"ns_per_cell": ns, "samples": samples}))
        tmp.replace(path)
    except OSError:  # a read-only home: the estimate just stays the default
        pass


def record(cells: int, seconds_per_iteration: float, threads: int = 1) -> Cost:
    """Fold a measured iteration time (``threads`` threads, one solve) into the kept cost:
    a running mean over the last solves (weight 1/4 each once there are four). Ignores
    tiny trees, whose time is overhead rather than work."""
    if cells < 100_000 or not seconds_per_iteration > 0:
        return load()
    speedup = 1.0 if threads <= 1 else TWO_THREAD_SPEEDUP * threads / 2.0
    ns = seconds_per_iteration * speedup / cells * 1e9
    with _LOCK:
        try:
            data = json.loads(cache_file().read_text())
            old, n = float(data["ns_per_cell"]), int(data.get("samples", 1))
        except (OSError, ValueError, KeyError, TypeError):
            old, n = ns, 0
        weight = 1.0 / min(n + 1, 4)
        new = (1.0 - weight) * old + weight * ns
        _save(new, n + 1)
    return Cost(new, True)


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
        _save(ns, 1)
    return Cost(ns, True)
