"""One flop of a batch: build the template on the flop, solve it, summarise the root (and
the whole tree: :mod:`solver.batch.summary`).

:func:`solve_flop` is what a Dask worker runs (a module-level function, so workers import it
from the installed ``solver`` package); it never raises — a failure comes back as
``{"error": ...}`` so the driver records it and the batch goes on. :func:`summarize` is the
pure part, also used by tests on solves made in process.

The summary (JSON-able; chips unless said otherwise):

- ``ev``: [OOP, IP] expected values under the average strategies (pot share minus chips put
  in after the flop; they sum to the pot);
- ``equity``: [OOP, IP] range equity at the root (all-in equity over every turn and river,
  each pair of hands weighted by both range weights, card removal included; sums to 1);
- ``eqr``: [OOP, IP] equity realisation, ``ev / (equity × pot)``;
- ``oop_mix``: OOP's first action, ``{action label: frequency}`` (range-weighted);
- ``ip_mix``: IP's response to each OOP action, ``{OOP action: {IP action: frequency}}``;
- ``classes``: per hand class (:mod:`solver.poker.handclass`) at the root, for OOP and for IP facing
  each OOP action: ``{"oop": [{"class", "kind", "combos", "mix": [..]}...], "ip vs x": ...}``
  (mix in the order of the node's actions, ``actions`` gives them);
- ``exploitability`` (chips), ``exploitability_pct_pot``, ``iterations``, ``stopped_by``,
  ``solve_seconds``, ``memory_bytes``, ``pot``, ``hands`` [OOP, IP].
"""

from __future__ import annotations

import gc
import time
import traceback
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.api import SolveResult, exploitability_pct_pot, solve
from solver.batch.spec import BatchSpec
from solver.batch.summary import summarize_tree
from solver.batch.treedata import encode
from solver.games.holdem import build_holdem, runout_equity
from solver.games.model import DECISION, Game
from solver.poker.handclass import class_table
from solver.poker.handeval import rank_hands

Array = npt.NDArray[np.float64]


def root_equity(game: Game) -> tuple[float, float]:
    """Both players' range equity at the root of a hold'em subgame: the pot share each wins
    at showdown over every remaining board (ties split), each pair of compatible hands
    weighted by both range weights. Sums to 1."""
    board = np.array(game.meta["board"], dtype=np.int64)
    h0, h1 = game.num_hands
    c0 = game.hands.cards[0, :h0].astype(np.int64)
    c1 = game.hands.cards[1, :h1].astype(np.int64)
    w0 = game.hands.weights[0, :h0]
    w1 = game.hands.weights[1, :h1]
    clash = (c0[:, None, :, None] == c1[None, :, None, :]).any(axis=(2, 3))
    if board.shape[0] == 5:
        r0 = rank_hands(board, c0)
        r1 = rank_hands(board, c1)
        sign = np.sign(r0[:, None] - r1[None, :]).astype(np.float64)
    else:
        sign = np.zeros((h0, h1))
        runout_equity(board, c0, c1, sign)  # mean of sign(strength0 − strength1)
    pair = np.where(clash, 0.0, w0[:, None] * w1[None, :])
    mass = float(pair.sum())
    if mass <= 0:
        return float("nan"), float("nan")
    e0 = float((pair * (1.0 + sign) / 2.0).sum() / mass)
    return e0, 1.0 - e0


def _mix(strategy: Array, reach: Array) -> Array:
    total = float(reach.sum())
    if total <= 0:
        return np.full(strategy.shape[0], np.nan)
    return (strategy @ reach) / total


def summarize(game: Game, result: SolveResult, sigma: Array | None = None) -> dict[str, Any]:
    """The batch summary of a solved flop (see the module doc); ``sigma`` the average
    strategy when the caller has it (a srp-flop one is ~0.5 GB)."""
    sigma = result.average_strategy() if sigma is None else sigma
    board = [int(c) for c in np.asarray(game.meta["board"])]
    pot = float(game.starting_pot)
    ev = result.ev
    eq = root_equity(game)
    eqr = [ev[p] / (eq[p] * pot) if eq[p] > 0 else None for p in range(2)]
    w = [game.hands.weights[p, : game.num_hands[p]] for p in range(2)]
    cards = [game.hands.cards[p, : game.num_hands[p]] for p in range(2)]
    root = 0
    off, na, nh = game.block(root)
    s0 = np.asarray(sigma[off : off + na * nh]).reshape(na, nh)
    actions = game.action_labels(root)
    oop_mix = dict(zip(actions, (float(x) for x in _mix(s0, w[0])), strict=True))
    classes: dict[str, Any] = {"oop": _classes(board, cards[0], w[0], s0)}
    ip_mix: dict[str, dict[str, float]] = {}
    node_actions: dict[str, list[str]] = {"oop": actions}
    for a, child in zip(actions, game.children(root), strict=True):
        if game.tree.kind[child] != DECISION or game.tree.player[child] != 1:
            continue
        off, na, nh = game.block(child)
        s1 = np.asarray(sigma[off : off + na * nh]).reshape(na, nh)
        labels = game.action_labels(child)
        ip_mix[a] = dict(zip(labels, (float(x) for x in _mix(s1, w[1])), strict=True))
        classes[f"ip vs {a}"] = _classes(board, cards[1], w[1], s1)
        node_actions[f"ip vs {a}"] = labels
    last = result.history[-1]
    return {
        "pot": pot,
        "hands": list(game.num_hands),
        "ev": [float(ev[0]), float(ev[1])],
        "equity": [eq[0], eq[1]],
        "eqr": eqr,
        "oop_mix": oop_mix,
        "ip_mix": ip_mix,
        "actions": node_actions,
        "classes": classes,
        "exploitability": float(result.exploitability),
        "exploitability_pct_pot": float(exploitability_pct_pot(game, result.exploitability)),
        "iterations": int(result.iteration),
        "stopped_by": result.stopped_by,
        "solve_seconds": float(result.elapsed_s),
        "memory_bytes": int(last.memory_bytes),
    }


def _classes(board: list[int], cards: npt.ArrayLike, reach: Array, strategy: Array) -> list[dict]:
    return [
        {
            "class": r.key,
            "kind": r.kind,
            "combos": r.combos,
            "mix": list(r.mix) if r.mix is not None else None,
        }
        for r in class_table(board, cards, reach, strategy)
    ]


def run_flop(spec: BatchSpec, flop: str) -> tuple[Game, SolveResult]:
    """Build and solve the template on ``flop`` (in this process)."""
    game = build_holdem(spec.spot(flop))
    target = None
    if spec.target_pct is not None:
        target = spec.target_pct / 100.0 * game.starting_pot
    result = solve(
        game,
        spec.algorithm_name,
        iterations=spec.max_iterations,
        target_exploitability=target,
        check_every=spec.check_every,
        threads=spec.threads,
    )
    return game, result


def solve_flop(spec_json: str, flop: str) -> dict[str, Any]:
    """The Dask task: ``{"flop", "summary", "tree": the per-node summary's bytes
    (:mod:`solver.batch.summary`), "seconds", "solve": npz bytes or None}``, or
    ``{"flop", "error", "seconds"}`` when the flop could not be solved."""
    t0 = time.perf_counter()
    try:
        spec = BatchSpec.from_json(spec_json)
        game, result = run_flop(spec, flop)
        sigma = result.average_strategy()
        summary = summarize(game, result, sigma)
        blob = _saved(spec, flop, game, result) if spec.save_solves else None
        # the solver's arrays go before the tree summary's (a srp-flop flop: ~0.8 GB, then
        # up to ~0.6 GB), so summarising does not raise the worker's peak memory
        del result
        gc.collect()
        tree = encode(summarize_tree(game, sigma))
        del sigma
        return {
            "flop": flop,
            "summary": summary,
            "tree": tree,
            "seconds": time.perf_counter() - t0,
            "solve": blob,
        }
    except Exception as exc:  # recorded by the driver; the batch goes on
        last = traceback.extract_tb(exc.__traceback__)[-1:] if exc.__traceback__ else []
        where = f" (at {last[0].filename.rsplit('/', 1)[-1]}:{last[0].lineno})" if last else ""
        return {
            "flop": flop,
            "error": f"{type(exc).__name__}: {exc}{where}",
            "seconds": time.perf_counter() - t0,
        }


def _saved(spec: BatchSpec, flop: str, game: Game, result: SolveResult) -> bytes:
    from solver.files.export import game_source, save_solve
    from solver.run.jobs import Point

    points = [
        Point(c.iteration, c.elapsed_s, c.exploitability, c.nodes_touched, c.memory_bytes)
        for c in result.history
    ]
    return save_solve(result.engine, game_source(game, holdem=spec.spot(flop)), points)


def warm(spec: BatchSpec) -> float:
    """Compile (or load from Numba's on-disk cache) the kernels a batch's solves call, on a
    tiny spot with the template's settings; returns the seconds it took."""
    from dataclasses import replace

    t0 = time.perf_counter()
    tiny = replace(
        spec,
        template=replace(
            spec.template,
            oop_range="AA, KK",
            ip_range="QQ, JJ",
            oop_weights=None,
            ip_weights=None,
            bets="a",
            raises="a",
            donks=None,
            sizes={},
        ),
        target_pct=None,
        max_iterations=2,
        check_every=1,
    )
    game, result = run_flop(tiny, "2s3h4d")
    summarize(game, result)
    summarize_tree(game, result.average_strategy())
    return time.perf_counter() - t0
