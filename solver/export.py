"""Exports: strategies as CSV/JSON (one node or the whole tree, with EVs and equities), and
saved solves as a numpy ``.npz`` with JSON metadata inside (never pickle).

A saved solve holds the engine's storage arrays (regrets, strategy sums, ...), the iteration
count, the exploitability history, and JSON metadata naming the format, the game (a toy game
name or the full hold'em spec) and the algorithm with its parameters. Loading rebuilds the
game from the metadata, checks every array against the fresh engine's shapes, and restores
the state so the solve can be explored or resumed. Anything else gets a :class:`ExportError`
that says what is wrong.
"""

from __future__ import annotations

import csv
import io
import json
import math
import zipfile
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.algorithms import ALGORITHMS, Solver, make_algorithm, make_solver
from solver.analysis import NodeAnalysis, analyze, compatible
from solver.cfr.engine import Engine
from solver.cfr.locks import LockError
from solver.games import GAMES, Game, make_game
from solver.games.holdem import HoldemSpec, SpecError, build_holdem
from solver.games.model import DECISION, KIND_NAMES
from solver.jobs import Point

Array = npt.NDArray[np.float64]

FORMAT = "regret-lab-solve"
VERSION = 1
MAX_TREE_EXPORT_NODES = 5000
"""Whole-tree exports cover at most this many decision nodes."""
MAX_SAVE_BYTES = 2_000_000_000
# What a pruned solve saves of its regret-based pruning state (the rest is rebuilt), under the
# ``storage_<name>`` keys: files from before the state moved out of the storage load as they are.
RBP_SAVED = ("pruned", "vsum", "umax", "lmin", "pimax", "win_slot", "win", "free", "ctl")


class ExportError(ValueError):
    """A file that cannot be loaded, or an export too large; the message says why."""


def _num(x: float) -> float | None:
    """JSON-safe number: NaN/inf become None."""
    return None if not math.isfinite(x) else float(x)


def node_rows(analysis: NodeAnalysis, player: int | None = None) -> list[dict[str, Any]]:
    """One row per possible hand of ``player`` (default: the acting player, or both at a
    non-decision node): hand, reach, EV (chips), equity, EQR and, for the actor, the average
    strategy per action (columns named by action label)."""
    players = (
        [player] if player is not None else ([analysis.player] if analysis.player >= 0 else [0, 1])
    )
    rows = []
    for p in players:
        v = analysis.players[p]
        for h, name in enumerate(v.hand_names):
            if not v.valid[h]:
                continue
            row: dict[str, Any] = {
                "history": " ".join(analysis.history),
                "player": p,
                "hand": name,
                "reach": float(v.reach[h]),
                "ev": _num(float(v.ev[h])),
                "equity": _num(float(v.equity[h])),
                "eqr": _num(float(v.eqr[h])),
            }
            if p == analysis.player and analysis.strategy is not None:
                for a, label in enumerate(analysis.actions):
                    row[label] = float(analysis.strategy[a, h])
            rows.append(row)
    return rows


def rows_to_csv(rows: list[dict[str, Any]]) -> str:
    """CSV text of ``rows``; columns are the union of keys in first-seen order; empty cells
    for missing values and NaN."""
    cols: list[str] = []
    for r in rows:
        for k in r:
            if k not in cols:
                cols.append(k)
    out = io.StringIO()
    w = csv.DictWriter(out, fieldnames=cols, lineterminator="\n")
    w.writeheader()
    for r in rows:
        w.writerow({k: ("" if v is None else v) for k, v in r.items()})
    return out.getvalue()


def node_csv(analysis: NodeAnalysis) -> str:
    return rows_to_csv(node_rows(analysis))


def node_json(game: Game, analysis: NodeAnalysis) -> str:
    """The node as JSON: history, actor, actions, reach-weighted action frequencies and one
    record per hand (see :func:`node_rows`)."""
    data = {
        "game": game.name,
        "history": list(analysis.history),
        "kind": KIND_NAMES[analysis.kind],
        "player": analysis.player,
        "actions": analysis.actions,
        "frequencies": (
            None if analysis.frequencies is None else [float(x) for x in analysis.frequencies]
        ),
        "pot": analysis.pot,
        "units": {"ev": "chips", "equity": "share of pot at showdown", "reach": "probability"},
        "hands": node_rows(analysis),
    }
    return json.dumps(data, indent=1)


def tree_rows(game: Game, sigma: Array, with_equity: bool = True) -> list[dict[str, Any]]:
    """:func:`node_rows` of every decision node (in node order)."""
    nodes = game.decision_nodes()
    if nodes.size > MAX_TREE_EXPORT_NODES:
        raise ExportError(
            f"the tree has {nodes.size:,} decision nodes; whole-tree exports cover at most "
            f"{MAX_TREE_EXPORT_NODES:,} (export the current node instead)"
        )
    compat = compatible(game)
    rows: list[dict[str, Any]] = []
    for n in nodes:
        a = analyze(game, sigma, int(n), compat=compat, with_equity=with_equity)
        rows.extend(node_rows(a))
    return rows


def tree_csv(game: Game, sigma: Array) -> str:
    return rows_to_csv(tree_rows(game, sigma))


def tree_json(game: Game, sigma: Array) -> str:
    return json.dumps({"game": game.name, "nodes": tree_rows(game, sigma)}, indent=1)


# ----- saved solves -----------------------------------------------------------------------


def game_source(game: Game, holdem: HoldemSpec | None = None, toy: str | None = None) -> dict:
    """The metadata that rebuilds a game: ``{"kind": "toy", "name": ...}`` or
    ``{"kind": "holdem", "spec": {...HoldemSpec fields...}}``."""
    if holdem is not None:
        return {"kind": "holdem", "spec": asdict(holdem)}
    name = toy or game.name
    if name not in GAMES:
        raise ExportError(f"cannot describe game {game.name!r} for saving")
    return {"kind": "toy", "name": name}


def build_from_source(source: dict) -> tuple[Game, HoldemSpec | None]:
    """Rebuild a game from :func:`game_source` metadata."""
    if not isinstance(source, dict):
        raise ExportError("metadata: game must be an object")
    kind = source.get("kind")
    if kind == "toy":
        name = source.get("name")
        if name not in GAMES:
            raise ExportError(f"metadata: unknown game {name!r}")
        return make_game(str(name)), None
    if kind == "holdem":
        spec_data = source.get("spec")
        if not isinstance(spec_data, dict):
            raise ExportError("metadata: hold'em spec missing")
        try:
            spec = HoldemSpec(**spec_data)
            return build_holdem(spec), spec
        except TypeError as exc:
            raise ExportError(f"metadata: bad hold'em spec ({exc})") from None
        except SpecError as exc:
            raise ExportError(f"metadata: hold'em spec {exc.field}: {exc.message}") from None
    raise ExportError(f"metadata: unknown game kind {kind!r}")


def save_solve(
    engine: Solver,
    source: dict,
    history: tuple[Point, ...] | list[Point] = (),
    extra: dict | None = None,
) -> bytes:
    """The solve as ``.npz`` bytes: storage arrays + ``meta`` (JSON text as a numpy string).

    Any solver of :func:`solver.algorithms.make_solver`: its algorithm, parameters, pruning
    (with Total RBP's released-sums marks and counters), the sampling seed and generator
    state go into the file, so a loaded solve resumes exactly where it stopped."""
    meta: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "game": source,
        "algorithm": engine.rule.name,
        "params": engine.rule.params(),
        "iteration": engine.iteration,
        "nodes_touched": engine.nodes_touched,
        "action_size": engine.game.action_size,
        "precision": str(getattr(engine, "precision", "float64")),
        "storage_choice": str(getattr(engine, "storage_choice", "")),
        "pruning": str(getattr(engine, "pruning", "none")),
        "seed": int(getattr(engine, "seed", 0)),
        "history": [
            [p.iteration, p.elapsed_s, p.exploitability, p.nodes_touched, p.memory_bytes]
            for p in history
        ],
        "storage": list(engine.storage._fields),
        **(extra or {}),
    }
    arrays: dict[str, Any] = {
        f"storage_{k}": np.asarray(v) for k, v in engine.storage._asdict().items()
    }
    if isinstance(engine, Engine):
        if engine.sampling:
            meta["rng_state"] = engine.rng_state
        if engine.lockset is not None:
            meta["locks"] = engine.lockset.spec
        if engine.rbp is not None:
            rbp = engine.rbp
            # the pruning state under the keys files have always used for it
            for k in RBP_SAVED:
                arrays[f"storage_{k}"] = np.asarray(getattr(rbp.state, k))
            meta["storage"] = [*meta["storage"], *RBP_SAVED]
            arrays["rbp_sums_freed"] = rbp.sums_freed
            meta["rbp"] = {
                "check_every": rbp.check_every,
                "threshold": rbp.threshold,
                "free_opponent": rbp.free_opponent,
                "margin": rbp.margin,
                "catchups": rbp.catchups,
                "starts": rbp.starts,
                "released": rbp.released,
            }
    buf = io.BytesIO()
    arrays["meta"] = np.array(json.dumps(meta))
    np.savez_compressed(buf, allow_pickle=False, **arrays)
    return buf.getvalue()


@dataclass
class LoadedSolve:
    game: Game
    holdem: HoldemSpec | None
    engine: Solver
    history: tuple[Point, ...]
    meta: dict


def load_solve(data: bytes) -> LoadedSolve:
    """Rebuild a solve saved by :func:`save_solve`; :class:`ExportError` for anything else."""
    if len(data) > MAX_SAVE_BYTES:
        raise ExportError(f"file larger than {MAX_SAVE_BYTES:,} bytes")
    if not data.startswith(b"PK"):
        raise ExportError("not a saved solve: expected a numpy .npz (zip) file")
    try:
        with np.load(io.BytesIO(data), allow_pickle=False) as npz:
            files = {k: npz[k] for k in npz.files}
    except (zipfile.BadZipFile, ValueError, OSError, EOFError) as exc:
        raise ExportError(f"corrupt .npz file ({exc})") from None
    if "meta" not in files:
        raise ExportError("not a Regret Lab solve: no metadata in the file")
    try:
        meta = json.loads(str(files["meta"]))
    except (json.JSONDecodeError, TypeError):
        raise ExportError("corrupt metadata: not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ExportError("not a Regret Lab solve: unknown format")
    if meta.get("version") != VERSION:
        raise ExportError(f"unsupported version {meta.get('version')!r} (this is {VERSION})")
    name = meta.get("algorithm")
    if name not in ALGORITHMS:
        raise ExportError(f"metadata: unknown algorithm {name!r}")
    try:
        rule = make_algorithm(str(name), **dict(meta.get("params") or {}))
    except (TypeError, ValueError) as exc:
        raise ExportError(f"metadata: bad algorithm parameters ({exc})") from None
    game, holdem = build_from_source(meta.get("game"))  # type: ignore[arg-type]
    precision = meta.get("precision", "float64")
    auto = meta.get("storage_choice") == "auto" and precision in ("float32", "float64")
    rbp_meta = meta.get("rbp") or {}
    try:
        engine = make_solver(
            game,
            rule,
            precision="auto" if auto else str(precision),
            pruning=str(meta.get("pruning", "none")),
            seed=int(meta.get("seed", 0)),
            rbp_check_every=int(rbp_meta.get("check_every", 10)),
            rbp_threshold=float(rbp_meta.get("threshold", 0.0)),
            rbp_free_opponent=bool(rbp_meta.get("free_opponent", False)),
        )
    except (TypeError, ValueError) as exc:
        raise ExportError(f"metadata: bad solver settings ({exc})") from None
    if auto and isinstance(engine, Engine) and engine.precision != precision:
        engine.promote()  # saved after the "auto" switch to float64 (Engine.PROMOTE_AT)
    engine.storage = type(engine.storage)(**_restored(engine.storage._asdict(), files))
    if isinstance(engine, Engine):
        if engine.sampling:
            try:
                engine.rng_state = meta["rng_state"]
            except (KeyError, TypeError, ValueError):
                raise ExportError("metadata: bad or missing sampling generator state") from None
        if engine.rbp is not None:
            state = engine.rbp.state
            saved = _restored({k: getattr(state, k) for k in RBP_SAVED}, files)
            engine.rbp.state = state._replace(**saved)
            freed = files.get("rbp_sums_freed")
            if freed is None or freed.shape != engine.rbp.sums_freed.shape:
                raise ExportError("missing or foreign array 'rbp_sums_freed'")
            engine.rbp.sums_freed = np.ascontiguousarray(freed, dtype=np.int8)
            try:
                engine.rbp.margin = float(rbp_meta.get("margin", engine.rbp.margin))
                engine.rbp.catchups = int(rbp_meta.get("catchups", 0))
                engine.rbp.starts = int(rbp_meta.get("starts", 0))
                engine.rbp.released = int(rbp_meta.get("released", 0))
            except (TypeError, ValueError):
                raise ExportError("metadata: bad pruning counters") from None
            engine.rbp.sync_blocked()  # where each player is kept out follows from the flags
    if meta.get("locks") and isinstance(engine, Engine):
        try:
            engine.lock(meta["locks"])
        except (LockError, TypeError, AttributeError) as exc:
            raise ExportError(f"metadata: bad locks ({exc})") from None
    try:
        engine.iteration = int(meta.get("iteration", 0))
        engine.nodes_touched = int(meta.get("nodes_touched", 0))
        history = tuple(_point(row) for row in meta.get("history") or [])
    except (TypeError, ValueError):
        raise ExportError("metadata: bad iteration or history") from None
    return LoadedSolve(engine.game, holdem, engine, history, meta)


def _restored(fresh: dict[str, Any], files: dict[str, Any]) -> dict[str, Any]:
    """The arrays ``storage_<name>`` of ``files`` for every entry of ``fresh``, each checked
    against the fresh solver's (shape, dtype, finite numbers); scalars must be equal."""
    restored: dict[str, Any] = {}
    for k, v in fresh.items():
        key = f"storage_{k}"
        if key not in files:
            raise ExportError(f"missing array {k!r}")
        arr = files[key]
        if not isinstance(v, np.ndarray):  # a scalar setting of the storage
            if arr.shape != () or arr.item() != v:
                raise ExportError(f"{k!r} is {arr!r}, the engine has {v!r}")
            restored[k] = v
            continue
        if arr.shape != v.shape or arr.dtype != v.dtype:
            raise ExportError(
                f"array {k!r} has shape {arr.shape} {arr.dtype}, the game needs {v.shape} "
                f"{v.dtype} (saved from another game or version)"
            )
        if not np.all(np.isfinite(arr)):
            raise ExportError(f"array {k!r} holds non-finite numbers")
        restored[k] = np.ascontiguousarray(arr)
    return restored


def _point(row: list) -> Point:
    """A history row: (iteration, seconds, exploitability[, nodes touched, memory bytes])."""
    if not 3 <= len(row) <= 5:
        raise ValueError("history row")
    extra = [int(v) for v in row[3:]]
    return Point(int(row[0]), float(row[1]), float(row[2]), *extra)


def decision_count(game: Game) -> int:
    return int(np.count_nonzero(game.tree.kind == DECISION))
