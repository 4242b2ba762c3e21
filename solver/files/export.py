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
import time
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.algorithms import ALGORITHMS, MCCFR_CS, SolveOptions, Solver, make_solver
from solver.cfr.checks import Check
from solver.cfr.engine import Engine
from solver.cfr.layout import Storage
from solver.cfr.sampling.walk import SampledStorage
from solver.files import saved_options
from solver.files.safe_npz import NpzError, NpzReader
from solver.games import GAMES, Game
from solver.games.holdem import (
    HoldemSpec,
    SpecError,
    betting_tree,
    build_holdem,
    estimate,
    validate,
)
from solver.games.model import DECISION, KIND_NAMES
from solver.games.preflop import PreflopSpec
from solver.games.source import (
    HoldemSource,
    PreflopSource,
    SourceError,
    ToySource,
    from_dict,
    preflop_from_spec,
    prune_sizes,
    removed_from_json,
)
from solver.games.spec import DEFAULT_MAX_MEMORY_MB
from solver.lockspec import LockError, lock_engine
from solver.quoting import brief
from solver.study.analysis import NodeAnalysis, analyze, compatible

Array = npt.NDArray[np.float64]

FORMAT = "regret-lab-solve"
VERSION = 1
MAX_TREE_EXPORT_NODES = 5000
"""Whole-tree exports cover at most this many decision nodes."""
MAX_SAVE_BYTES = 2_000_000_000
MAX_META_BYTES = 64 * 2**20
"""Largest metadata member read (bytes of numpy text, 4 a character): room for a
quarter-million history points."""
MAX_COUNT = 2**62
"""Largest iteration or node count a file may give."""
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


@dataclass(frozen=True)
class TreeExportCost:
    """What a whole-tree export will be, said before it is built: its rows (exact), its size
    as CSV and as JSON (bytes, from a few nodes' rows) and the seconds to build it here
    (from the time those nodes took)."""

    rows: int
    csv_bytes: float
    json_bytes: float
    seconds: float


def tree_export_cost(game: Game, sigma: Array, sample: int = 3) -> TreeExportCost:
    """:class:`TreeExportCost` of :func:`tree_rows` of ``game`` under ``sigma``: the rows
    counted node by node (one per hand the actor can hold there), bytes and seconds
    extrapolated from ``sample`` decision nodes spread over the tree."""
    nodes = game.decision_nodes()
    if nodes.size == 0:
        return TreeExportCost(0, 0.0, 0.0, 0.0)
    rows = sum(
        int(np.count_nonzero(game.valid_hands(int(n), int(game.tree.player[n])))) for n in nodes
    )
    picks = sorted({int(nodes[i]) for i in np.linspace(0, nodes.size - 1, sample).astype(int)})
    compat = compatible(game)
    started = time.perf_counter()
    got: list[dict[str, Any]] = []
    for n in picks:
        got.extend(node_rows(analyze(game, sigma, n, compat=compat, with_equity=True)))
    per_node = (time.perf_counter() - started) / len(picks)
    per_row_csv = len(rows_to_csv(got).encode()) / max(len(got), 1)
    per_row_json = len(json.dumps(got, indent=1).encode()) / max(len(got), 1)
    return TreeExportCost(rows, rows * per_row_csv, rows * per_row_json, per_node * nodes.size)


def tree_csv(game: Game, sigma: Array) -> str:
    return rows_to_csv(tree_rows(game, sigma))


def tree_json(game: Game, sigma: Array) -> str:
    return json.dumps({"game": game.name, "nodes": tree_rows(game, sigma)}, indent=1)


# ----- saved solves -----------------------------------------------------------------------


def game_source(
    game: Game,
    holdem: HoldemSpec | None = None,
    toy: str | None = None,
    preflop: PreflopSpec | None = None,
) -> dict:
    """The metadata that rebuilds a game (:meth:`GameSource.to_dict
    <solver.games.source.ToySource.to_dict>`): ``{"kind": "toy", "name": ...}``,
    ``{"kind": "holdem", "spec": {...HoldemSpec fields...}}`` or
    ``{"kind": "preflop", "spec": {...PreflopSpec fields...}}``."""
    if holdem is not None:
        return HoldemSource(holdem).to_dict()
    if preflop is not None:
        return PreflopSource(preflop).to_dict()
    name = toy or game.name
    if name not in GAMES:
        raise ExportError(f"cannot describe game {game.name!r} for saving")
    return ToySource(name).to_dict()


def preflop_source(spec: PreflopSpec) -> dict:
    """``{"kind": "preflop", "spec": {...}}`` of a preflop spec, JSON-ready (raise sizes and
    range weights as lists)."""
    return PreflopSource(spec).to_dict()


def preflop_spec(data: object) -> PreflopSpec:
    """The :class:`PreflopSpec` of a game source's ``spec`` object, every field checked
    (:func:`solver.games.preflop.validate`); :class:`ExportError` naming a bad field."""
    try:
        return preflop_from_spec(data).spec
    except SourceError as exc:
        raise ExportError(f"metadata: {exc}") from None


ISO_NOTE = (
    "; a flop whose turn gives two suits the same ranks after the flop told them apart "
    "deals more river cards since suit isomorphism was corrected: solve it again"
)
"""Said when a hold'em file's size differs from its game's: solves saved before issue 44
mirrored such river cards (docs/holdem.md, "Suit isomorphism")."""


def build_from_source(
    source: object,
    max_memory_mb: float = DEFAULT_MAX_MEMORY_MB,
    cells: int | None = None,
    full: bool = False,
) -> tuple[Game, HoldemSpec | None]:
    """Rebuild a game from :func:`game_source` metadata. A hold'em spec's own memory cap is
    lowered to ``max_memory_mb`` (the user's), never raised by the file. With ``cells`` (the
    length of the file's strategy sums) a hold'em tree is counted first and refused unless
    it has that many cells (``full``: counted with every card dealt, as the sampled
    algorithms play it), so a file never makes the loader build a game it does not fit.
    A hold'em source's ``removed`` (a simplified tree's sizes,
    :func:`solver.games.source.removed_from_json`) is checked, then counted and built."""
    if not isinstance(source, dict):
        raise ExportError("metadata: game must be an object")
    kind = source.get("kind")
    if kind == "toy":
        try:
            return from_dict(source).build(), None
        except SourceError as exc:
            raise ExportError(f"metadata: {exc}") from None
    if kind == "preflop":  # small (at most ~10⁵ cells): built, then its size checked
        try:
            game = from_dict(source).build()
        except SourceError as exc:
            raise ExportError(f"metadata: {exc}") from None
        if cells is not None and cells != game.action_size:
            raise ExportError(
                f"the file holds {cells:,} strategy sums, the game it names has "
                f"{game.action_size:,} (saved from another game or version)"
            )
        return game, None
    if kind != "holdem":
        raise ExportError(f"metadata: unknown game kind {brief(kind)}")
    spec_data = source.get("spec")
    if not isinstance(spec_data, dict) or not all(isinstance(k, str) for k in spec_data):
        raise ExportError("metadata: hold'em spec missing")
    saved = spec_data.get("max_memory_mb", DEFAULT_MAX_MEMORY_MB)
    if _real(saved) and saved > max_memory_mb:
        spec_data = {**spec_data, "max_memory_mb": max_memory_mb}
    try:  # sizes removed by a simplification (solver.study.sizes): none in older files
        removed = removed_from_json(source["removed"]) if "removed" in source else ()
    except SourceError as exc:
        raise ExportError(f"metadata: {exc}") from None
    prune = prune_sizes(removed) if removed else None
    try:
        spec = HoldemSpec(**spec_data)
        if cells is not None:
            setup = validate(replace(spec, isomorphism=False) if full else spec)
            tree = None
            if prune is not None:  # counted on the simplified card-free tree
                tree = betting_tree(setup)
                prune(tree)
            est = estimate(setup, tree)
            if est.storage_entries != cells:
                raise ExportError(
                    f"the file holds {cells:,} strategy sums, the game it names has "
                    f"{est.storage_entries:,} (saved from another game or version"
                    + (ISO_NOTE if spec.isomorphism and not full and not removed else "")
                    + ")"
                )
        return build_holdem(spec, prune), spec
    except TypeError as exc:
        raise ExportError(f"metadata: bad hold'em spec ({exc})") from None
    except SpecError as exc:
        where = "" if exc.field == "removed" else "hold'em spec "
        raise ExportError(f"metadata: {where}{exc.field}: {exc.message}") from None


def _real(value: object) -> bool:
    """A finite int or float (not a bool)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:  # an int past float's range
        return False


def save_solve(
    engine: Solver,
    source: dict,
    history: tuple[Check, ...] | list[Check] = (),
    extra: dict | None = None,
) -> bytes:
    """The solve as ``.npz`` bytes: storage arrays + ``meta`` (JSON text as a numpy string).

    Any solver of :func:`solver.algorithms.make_solver`: its algorithm, parameters, options
    whole (one ``options`` record, beside the keys older files carry them in:
    :mod:`solver.files.saved_options`), Total RBP's released-sums marks and counters, the
    sampling generator's state go into the file, so a loaded solve resumes exactly where it
    stopped."""
    meta: dict[str, Any] = {
        "format": FORMAT,
        "version": VERSION,
        "game": source,
        "algorithm": engine.rule.name,
        "params": engine.rule.params(),
        "iteration": engine.iteration,
        "schedule_start": int(engine.schedule_start),
        "nodes_touched": engine.nodes_touched,
        "action_size": engine.game.action_size,
        "precision": str(engine.precision),  # the storage now ("auto" may have promoted)
        "storage_choice": str(engine.storage_choice),
        "pruning": str(engine.pruning),
        "seed": int(engine.seed),
        "options": engine.options.to_dict(),  # every option whole (solver.files.saved_options)
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
    history: tuple[Check, ...]
    meta: dict


def load_solve(data: bytes, max_memory_mb: float = DEFAULT_MAX_MEMORY_MB) -> LoadedSolve:
    """Rebuild a solve saved by :func:`save_solve`; :class:`ExportError` for anything else.

    Hostile files are answered, not obeyed (:mod:`solver.files.safe_npz`): the metadata is read
    first (at most :data:`MAX_META_BYTES`) and checked field by field; the game is rebuilt
    under ``max_memory_mb`` (the user's cap: a file may lower it, never raise it); solver
    options (:mod:`solver.files.saved_options`: the ``options`` record and the keys older
    files carry, which must agree) go through :func:`solver.cfr.options.check_options`; then
    each array is read only if its header gives the shape and dtype the fresh solver has, so
    no file makes the loader hold more than the solve it describes."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise TypeError(f"data must be bytes, got {type(data).__name__}")
    if not _real(max_memory_mb) or max_memory_mb <= 0:
        raise ExportError(
            f"max_memory_mb: must be a positive number of MB, got {brief(max_memory_mb)}"
        )
    if len(data) > MAX_SAVE_BYTES:
        raise ExportError(f"file larger than {MAX_SAVE_BYTES:,} bytes")
    if bytes(data[:2]) != b"PK":
        raise ExportError("not a saved solve: expected a numpy .npz (zip) file")
    try:
        with NpzReader(data) as npz:
            return _load(npz, max_memory_mb)
    except NpzError as exc:
        raise ExportError(str(exc)) from None
    except RecursionError:  # a hold'em tree or JSON nested past Python's stack
        raise ExportError("metadata: nested too deeply") from None


def _load(npz: NpzReader, max_memory_mb: float) -> LoadedSolve:
    if "meta" not in npz.names:
        raise ExportError("not a Regret Lab solve: no metadata in the file")
    meta = _read_meta(npz)
    name = meta.get("algorithm")
    if not isinstance(name, str) or name not in ALGORITHMS:
        raise ExportError(f"metadata: unknown algorithm {brief(name)}")
    params = meta.get("params") or {}
    if not isinstance(params, dict):
        raise ExportError(f"metadata: params must be an object, got {brief(params)}")
    if "gamma" in params and "average_every" not in params and "beta" in params:
        # a DCFR solve saved before ``average_every`` existed averaged every iteration:
        # it resumes on the schedule it ran (dcfr-tuned's default is now 2)
        params = {**params, "average_every": 1.0}
    rbp_meta = meta.get("rbp") or {}
    if not isinstance(rbp_meta, dict):
        raise ExportError(f"metadata: rbp must be an object, got {brief(rbp_meta)}")
    info = ALGORITHMS[name]
    full = info.sampling and info.name != MCCFR_CS  # the sampled engines play every card
    shape = _storage_headers(npz, SampledStorage._fields if full else Storage._fields)
    cells = shape[0] if len(shape) == 1 else -1
    game, holdem = build_from_source(meta.get("game"), max_memory_mb, cells, full)
    try:  # every option through the one gate, make_solver (its messages name the field)
        got = SolveOptions.from_dict(saved_options.option_values(meta))
        engine = make_solver(game, name, params, got)
    except (TypeError, ValueError) as exc:
        raise ExportError(f"metadata: bad solver settings ({exc})") from None
    promoted = got.precision == "auto" and meta.get("precision") == "float64"
    if promoted and isinstance(engine, Engine):
        engine.promote()  # saved after the "auto" switch to float64 (Engine.PROMOTE_AT)
    engine.storage = type(engine.storage)(**_restored(engine.storage._asdict(), npz))
    if isinstance(engine, Engine):
        if engine.sampling:
            engine.rng_state = _rng_state(meta.get("rng_state"), engine.rng_state)
        if engine.rbp is not None:
            _restore_rbp(engine, npz, rbp_meta)
        _restore_locks(engine, meta.get("locks"))
    engine.iteration = _count(meta, "iteration")
    if isinstance(engine, Engine):  # files before it: 0, a schedule from the first iteration
        engine.schedule_start = _count(meta, "schedule_start")
    engine.nodes_touched = _count(meta, "nodes_touched")
    history = meta.get("history") or []
    if not isinstance(history, list):
        raise ExportError(f"metadata: history must be a list, got {brief(history)}")
    points = tuple(_point(row) for row in history)
    clash = saved_options.disagreement(meta)  # (after the older keys' own checks, as ever)
    if clash:
        raise ExportError(f"metadata: {clash}")
    return LoadedSolve(engine.game, holdem, engine, points, meta)


def _storage_headers(npz: NpzReader, names: tuple[str, ...]) -> tuple[int, ...]:
    """The shape of the file's strategy sums, once every storage array the solver will read
    is there and can hold what its header declares — checked before the game is built, so a
    small file naming a big game is refused in milliseconds. (Shapes and dtypes against
    the fresh solver's come after: :func:`_restored`.)"""
    for field in names:
        if f"storage_{field}" not in npz.names:
            raise ExportError(f"missing array {field!r}")
        npz.header(f"storage_{field}")
    shape, _ = npz.header("storage_cumulative")
    return shape


def _read_meta(npz: NpzReader) -> dict[str, Any]:
    """The metadata object, its format and version checked."""
    text = npz.read("meta", shape=(), kind="U", max_bytes=MAX_META_BYTES)
    try:
        meta = json.loads(str(text.item()))
    except ValueError:  # not JSON, or an integer past 4,300 digits
        raise ExportError("corrupt metadata: not JSON") from None
    if not isinstance(meta, dict) or meta.get("format") != FORMAT:
        raise ExportError("not a Regret Lab solve: unknown format")
    version = meta.get("version")
    if not isinstance(version, int) or isinstance(version, bool) or version != VERSION:
        raise ExportError(f"unsupported version {brief(version)} (this is {VERSION})")
    return meta


def _count(meta: dict[str, Any], key: str, value: object = None) -> int:
    """A whole number ≥ 0 of the metadata (iterations, nodes, counters)."""
    value = meta.get(key, 0) if value is None else value
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MAX_COUNT:
        raise ExportError(f"metadata: {key} must be a whole number ≥ 0, got {brief(value)}")
    return value


def _rng_state(saved: object, fresh: object) -> dict:
    """A sampling generator's saved state, checked against the fresh one's layout (same
    keys, same generator, whole numbers of at most 128 bits)."""

    def same(a: object, b: object) -> bool:
        if isinstance(b, dict):
            return isinstance(a, dict) and a.keys() == b.keys() and all(same(a[k], b[k]) for k in b)
        if isinstance(b, str):
            return a == b
        if isinstance(b, int) and not isinstance(b, bool):
            return isinstance(a, int) and not isinstance(a, bool) and 0 <= a < 2**128
        return False

    if not same(saved, fresh):
        raise ExportError("metadata: bad or missing sampling generator state")
    return saved  # type: ignore[return-value]


def _restore_locks(engine: Engine, locks: object) -> None:
    """The saved locks (``{line: mix}``, :mod:`solver.lockspec`) applied again, or an
    ExportError naming what is wrong with them."""
    if not locks:
        return
    if not isinstance(locks, dict):
        raise ExportError(f"metadata: locks must be an object, got {brief(locks)}")
    try:
        lock_engine(engine, locks)
    except (LockError, ValueError, TypeError) as exc:
        raise ExportError(f"metadata: bad locks ({exc})") from None


def _restore_rbp(engine: Engine, npz: NpzReader, rbp_meta: dict[str, Any]) -> None:
    """Regret-based pruning's saved state: its arrays, the released-sums marks and counters."""
    rbp = engine.rbp
    assert rbp is not None
    state = rbp.state
    rbp.state = state._replace(**_restored({k: getattr(state, k) for k in RBP_SAVED}, npz))
    freed = rbp.sums_freed
    rbp.sums_freed = npz.read(
        "rbp_sums_freed", shape=freed.shape, dtype=freed.dtype, max_bytes=freed.nbytes
    )
    margin = rbp_meta.get("margin", rbp.margin)
    if not _real(margin):
        raise ExportError(f"metadata: rbp margin must be a number, got {brief(margin)}")
    rbp.margin = float(margin)
    for key in ("catchups", "starts", "released"):
        setattr(rbp, key, _count(rbp_meta, key, rbp_meta.get(key, 0)))
    rbp.sync_blocked()  # where each player is kept out follows from the flags


def _restored(fresh: dict[str, Any], npz: NpzReader) -> dict[str, Any]:
    """The arrays ``storage_<name>`` of the file for every entry of ``fresh``, each read only
    if its header matches the fresh solver's (shape, dtype), then checked for finite
    numbers; scalars must be equal."""
    restored: dict[str, Any] = {}
    for k, v in fresh.items():
        key = f"storage_{k}"
        if key not in npz.names:
            raise ExportError(f"missing array {k!r}")
        if not isinstance(v, np.ndarray):  # a scalar setting of the storage
            want = np.asarray(v)
            arr = npz.read(key, shape=(), kind=want.dtype.kind, max_bytes=want.nbytes)
            if arr.item() != v:
                raise ExportError(f"{k!r} is {arr.item()!r}, the engine has {v!r}")
            restored[k] = v
            continue
        try:
            arr = npz.read(key, shape=v.shape, dtype=v.dtype, max_bytes=v.nbytes)
        except NpzError as exc:
            raise ExportError(f"{exc} (saved from another game or version)") from None
        if not np.all(np.isfinite(arr)):
            raise ExportError(f"array {k!r} holds non-finite numbers")
        restored[k] = arr
    return restored


def _point(row: object) -> Check:
    """A history row: (iteration, seconds, exploitability[, nodes touched, memory bytes])."""
    if not isinstance(row, list) or not 3 <= len(row) <= 5:
        raise ExportError(f"metadata: bad history row {brief(row)}")
    counts = [row[0], *row[3:]]
    if not all(isinstance(v, int) and not isinstance(v, bool) and v >= 0 for v in counts):
        raise ExportError(f"metadata: bad history row {brief(row)}")
    if not (_real(row[1]) and _real(row[2])):
        raise ExportError(f"metadata: bad history row {brief(row)}")
    return Check(row[0], float(row[1]), float(row[2]), *row[3:])


def decision_count(game: Game) -> int:
    return int(np.count_nonzero(game.tree.kind == DECISION))
