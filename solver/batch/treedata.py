"""A flop's per-node summary of the whole solved tree, as a batch stores it: the arrays of
:class:`TreeSummary` and their compressed, checked bytes (:func:`encode`, :func:`decode`).

The nodes are the decision and chance nodes a batch kept (:mod:`solver.batch.summary`:
reached with non-negligible probability), parents before children, node 0 the flop root.
A turn or river card is one node per card class under suit isomorphism: the canonical card
the tree deals, with ``mult`` (1 + the cards it stands for) and, in the ``iso_*`` arrays,
each of those cards with the suit map that takes it onto the canonical card's frame.

Arrays (``n`` nodes, ``A`` = the widest node's actions, ``m`` class rows, ``k`` iso cards;
chips unless said otherwise; NaN where a number is not defined):

==============  ===========  ===========================================================
``parent``      (n,) int32   index of the parent node, −1 for the root (parent < index)
``step``        (n,) int32   label id (``labels``) of the action or card (``d:Kh``) leading
                             here; −1 at the root
``kind``        (n,) int8    0 decision, 1 chance
``player``      (n,) int8    acting player at a decision node (0 OOP, 1 IP), else −1
``mult``        (n,) int8    cards the node stands for (1 unless a suit-isomorphic card)
``reach``       (n,) f32     probability of reaching the node given the flop (both ranges
                             and the cards dealt; one canonical card's share, not × mult)
``pot``         (n,) f32     chips in the pot at the node
``ev``          (n, 2) f32   each player's EV at the node (:func:`solver.study.views.range_summary`)
``equity``      (n, 2) q16   each player's equity at the node, [0, 1]
``eqr``         (n, 2) f32   each player's EQR at the node
``actions``     (n, A) int32 label ids of the node's actions, −1 padding
``mix``         (n, A) q16*  the actor's range-weighted mix (analysis.action_frequencies)
``cls_node``    (m,) int32   node of a class row (non-decreasing)
``cls_id``      (m,) int32   class id (``classes``)
``cls_combos``  (m,) f16     the actor's reach-weighted combos of the class at the node
``cls_mix``     (m, A) q16*  the class's mix in the node's action order (NaN padding)
``iso_node``    (k,) int32   node of the canonical card an isomorphic card maps to
``iso_card``    (k,) int32   the isomorphic card (0..51, ``rank * 4 + suit``)
``iso_smap``    (k, 4) int8  suit map into the canonical frame: suit s → iso_smap[s]
==============  ===========  ===========================================================

Bytes: ``MAGIC`` then zlib of (a 4-byte little-endian header length, a JSON header
``{"version", "labels", "classes", "mix", "min_reach", "arrays": [[name, dtype, shape], ...]}``,
the arrays' raw little-endian bytes in that order; ``mix`` and ``min_reach`` are the
summary's definitions, :class:`TreeSummary`'s, absent from summaries made before them).
Chips are stored as float32; shares in [0, 1] (``q16``) as whole numbers
``round(x × 65,534)`` (65,535 for NaN), exact to 1/65,534; class combos (weights only) as
float16: the class rows are most of the bytes (sizes in docs/batch.md).
The mixes (``q16*``) are stored by action (transposed) without each row's last action,
which :func:`decode` restores as 1 − the others (a mix sums to 1).
:func:`decode` returns float64 arrays with NaN where stored so. :func:`decode` checks the size
before and while decompressing, then every array's name, dtype and shape and every value's
range, and that a chance node's children are named by cards (``d:Kh``) and a decision's
are not, raising :class:`TreeDataError` naming the field.
"""

from __future__ import annotations

import json
import sqlite3
import struct
import zlib
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import numpy.typing as npt

MAGIC = b"RLTREE\x01"
VERSION = 1
MAX_TREE_BYTES = 16_000_000  # stored (compressed); a srp-flop flop is well under (docs)
MAX_RAW_BYTES = 96_000_000  # decompressed
MAX_HEADER_BYTES = 2_000_000
MAX_NODES = 2_000_000
MAX_LABELS = 20_000
MAX_LABEL = 100
MAX_ACTIONS = 64
MAX_CLASSES = 64
MIX_DEALT = "dealt"
"""Mix definition: each hand weighted by its reach × the opponent's reach over the hands it
does not block (card removal), the frequency as the hands are dealt (the trainer's)."""
MIX_OWN_RANGE = "own_range"
"""Mix definition of summaries made before ``mix`` was in the header: each hand weighted by
its own reach alone (Explore's aggregate frequencies; card removal against the opponent's
range ignored)."""
MIX_DEFINITIONS = (MIX_DEALT, MIX_OWN_RANGE)
DEFAULT_MIN_REACH = 0.01
"""The line-reach cut of summaries made before ``min_reach`` was in the header (the only cut
they were made with)."""
QSCALE = 65_534.0  # quantised shares: round(x * QSCALE), NaN stored as QNAN
QNAN = 65_535

# name: (dtype, shape with "n"/"m"/"k"/"A" placeholders)
FIELDS: dict[str, tuple[str, tuple[str | int, ...]]] = {
    "parent": ("<i4", ("n",)),
    "step": ("<i4", ("n",)),
    "kind": ("i1", ("n",)),
    "player": ("i1", ("n",)),
    "mult": ("i1", ("n",)),
    "reach": ("<f4", ("n",)),
    "pot": ("<f4", ("n",)),
    "ev": ("<f4", ("n", 2)),
    "equity": ("<u2", ("n", 2)),
    "eqr": ("<f4", ("n", 2)),
    "actions": ("<i4", ("n", "A")),
    "mix": ("<u2", ("A", "n")),
    "cls_node": ("<i4", ("m",)),
    "cls_id": ("<i4", ("m",)),
    "cls_combos": ("<f2", ("m",)),
    "cls_mix": ("<u2", ("A", "m")),
    "iso_node": ("<i4", ("k",)),
    "iso_card": ("<i4", ("k",)),
    "iso_smap": ("i1", ("k", 4)),
}


class TreeDataError(ValueError):
    """What is wrong with a stored tree summary: ``field`` (an array or header key) and
    ``what``."""

    def __init__(self, field: str, what: str) -> None:
        super().__init__(f"{field}: {what}")
        self.field = field
        self.what = what


@dataclass(frozen=True)
class TreeSummary:
    """A flop's per-node summary (module doc): ``labels`` (action and card labels the ids
    index), ``classes`` (hand-class keys, :mod:`solver.poker.handclass`), ``arrays`` by name,
    ``mix_definition`` (how ``mix`` and ``cls_mix`` weight the hands: :data:`MIX_DEALT` or
    :data:`MIX_OWN_RANGE`) and ``min_reach`` (the line-reach cut below which nodes are not
    kept, a probability)."""

    labels: list[str]
    classes: list[str]
    arrays: dict[str, npt.NDArray]
    mix_definition: str = MIX_OWN_RANGE
    min_reach: float = DEFAULT_MIN_REACH

    def __getitem__(self, name: str) -> npt.NDArray:
        return self.arrays[name]

    @property
    def num_nodes(self) -> int:
        return int(self.arrays["parent"].shape[0])

    def children(self) -> list[list[int]]:
        """Per node, its kept children in index order."""
        out: list[list[int]] = [[] for _ in range(self.num_nodes)]
        for i, p in enumerate(self.arrays["parent"][1:], start=1):
            out[int(p)].append(i)
        return out

    def node_actions(self, node: int) -> list[str]:
        return [self.labels[int(a)] for a in self.arrays["actions"][node] if a >= 0]

    def class_rows(self, node: int) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
        """(row indices, class ids) of ``node``'s class rows."""
        cn = self.arrays["cls_node"]
        lo, hi = np.searchsorted(cn, node, "left"), np.searchsorted(cn, node, "right")
        rows = np.arange(lo, hi)
        return rows, self.arrays["cls_id"][rows].astype(np.int64)


def encode(ts: TreeSummary) -> bytes:
    """The stored bytes of ``ts`` (module doc); arrays cast to their stored dtypes."""
    arrays = []
    specs = []
    counts = _action_counts(ts.arrays["actions"], ts.arrays["cls_node"])
    for name, (dtype, _shape) in FIELDS.items():
        a = ts.arrays[name]
        if name in counts:  # the last action's frequency is 1 − the others': not stored
            a = np.array(a, dtype=np.float64)
            na = counts[name]
            rows = np.flatnonzero(na > 0)
            a[rows, na[rows] - 1] = np.nan
            a = a.T  # by action: the unstored column and the padding in long runs
        if dtype == "<u2":  # a share in [0, 1] to 1/65,534; NaN as 65,535
            a = np.where(np.isnan(a), QNAN, np.round(np.clip(a, 0.0, 1.0) * QSCALE))
        a = np.ascontiguousarray(a, dtype=np.dtype(dtype))
        arrays.append(a.tobytes())
        specs.append([name, dtype, list(a.shape)])
    header = json.dumps(
        {
            "version": VERSION,
            "labels": ts.labels,
            "classes": ts.classes,
            "mix": ts.mix_definition,
            "min_reach": ts.min_reach,
            "arrays": specs,
        },
        separators=(",", ":"),
    ).encode("utf-8")
    payload = struct.pack("<I", len(header)) + header + b"".join(arrays)
    return MAGIC + zlib.compress(payload, 6)


def decode(blob: bytes) -> TreeSummary:
    """The checked :class:`TreeSummary` of stored bytes; :class:`TreeDataError` else."""
    if not isinstance(blob, (bytes, bytearray, memoryview)):
        raise TreeDataError("data", f"is {type(blob).__name__}, not bytes")
    data = bytes(blob)
    if len(data) > MAX_TREE_BYTES:
        raise TreeDataError("data", f"is larger than {MAX_TREE_BYTES:,} bytes")
    if not data.startswith(MAGIC):
        raise TreeDataError("data", "is not a tree summary (wrong magic or version)")
    d = zlib.decompressobj()
    try:
        payload = d.decompress(data[len(MAGIC) :], MAX_RAW_BYTES + 1)
    except zlib.error as exc:
        raise TreeDataError("data", f"does not decompress ({exc})") from None
    if len(payload) > MAX_RAW_BYTES or d.unconsumed_tail:
        raise TreeDataError("data", f"decompresses to more than {MAX_RAW_BYTES:,} bytes")
    if len(payload) < 4:
        raise TreeDataError("data", "is truncated")
    (hlen,) = struct.unpack("<I", payload[:4])
    if hlen > MAX_HEADER_BYTES or 4 + hlen > len(payload):
        raise TreeDataError("header", f"length {hlen:,} does not fit")
    try:
        header = json.loads(payload[4 : 4 + hlen].decode("utf-8"))
    except (ValueError, RecursionError):
        raise TreeDataError("header", "is not JSON") from None
    if not isinstance(header, dict) or header.get("version") != VERSION:
        raise TreeDataError("header", f"version is not {VERSION}")
    labels = _names("labels", header.get("labels"), MAX_LABELS)
    classes = _names("classes", header.get("classes"), MAX_CLASSES)
    mix_def = header.get("mix", MIX_OWN_RANGE)
    if mix_def not in MIX_DEFINITIONS:
        raise TreeDataError("mix", f"is {str(mix_def)[:40]!r}, not {' or '.join(MIX_DEFINITIONS)}")
    min_reach = header.get("min_reach", DEFAULT_MIN_REACH)
    if type(min_reach) not in (int, float) or not 0.0 <= min_reach <= 1.0:
        raise TreeDataError("min_reach", f"is {str(min_reach)[:40]!r}, not a probability")
    specs = header.get("arrays")
    if not isinstance(specs, list) or [
        s[0] if isinstance(s, list) and s else None for s in specs
    ] != list(FIELDS):
        raise TreeDataError("arrays", f"are not {', '.join(FIELDS)}")
    arrays: dict[str, npt.NDArray] = {}
    pos = 4 + hlen
    dims: dict[str, int] = {}
    for (name, dtype, shape), (want_dtype, want_shape) in zip(specs, FIELDS.values(), strict=True):
        if dtype != want_dtype:
            raise TreeDataError(name, f"has dtype {str(dtype)[:20]!r}, not {want_dtype}")
        if (
            not isinstance(shape, list)
            or len(shape) != len(want_shape)
            or not all(type(x) is int and 0 <= x <= MAX_NODES * MAX_ACTIONS for x in shape)
        ):
            raise TreeDataError(name, f"has shape {str(shape)[:40]}, not {want_shape}")
        for got, want in zip(shape, want_shape, strict=True):
            if isinstance(want, int):
                if got != want:
                    raise TreeDataError(name, f"has shape {shape}, not {want_shape}")
            elif dims.setdefault(want, got) != got:
                raise TreeDataError(name, f"has {got} {want}, the other arrays {dims[want]}")
        size = int(np.prod(shape, dtype=np.int64)) * np.dtype(want_dtype).itemsize
        if pos + size > len(payload):
            raise TreeDataError(name, "is truncated")
        arrays[name] = np.frombuffer(
            payload, dtype=want_dtype, count=int(np.prod(shape)), offset=pos
        ).reshape(shape)
        pos += size
    if pos != len(payload):
        raise TreeDataError("data", f"has {len(payload) - pos} bytes after the arrays")
    for name, (dtype, _shape) in FIELDS.items():
        a = arrays[name]
        if dtype == "<u2":
            arrays[name] = np.where(a == QNAN, np.nan, a / QSCALE)
        elif a.dtype.kind == "f":
            arrays[name] = a.astype(np.float64)
    cn, n = arrays["cls_node"], dims["n"]
    if np.any(cn < 0) or np.any(cn >= n):
        raise TreeDataError("cls_node", "holds a node out of range")
    for name, na in _action_counts(arrays["actions"], cn).items():
        a = arrays[name].T.copy()
        cols = np.arange(a.shape[1])[None, :]
        known = cols < (na - 1)[:, None]
        last = 1.0 - np.sum(np.where(known, a, 0.0), axis=1)  # (NaN rows stay NaN)
        last = np.where((last < 0) & (last > -1e-3), 0.0, last)  # rounding of the others
        rows = np.flatnonzero(na > 0)
        a[rows, na[rows] - 1] = last[rows]
        arrays[name] = a
    _check(arrays, dims, len(labels), len(classes))
    _check_cards(arrays, labels)
    return TreeSummary(labels, classes, arrays, str(mix_def), float(min_reach))


def _action_counts(actions: npt.NDArray, cls_node: npt.NDArray) -> dict[str, npt.NDArray]:
    """Actions per row of ``mix`` (per node) and of ``cls_mix`` (its node's)."""
    na = np.count_nonzero(np.asarray(actions) >= 0, axis=1)
    return {"mix": na, "cls_mix": na[np.asarray(cls_node, dtype=np.int64)]}


def _names(field: str, v: object, most: int) -> list[str]:
    if not isinstance(v, list) or len(v) > most:
        raise TreeDataError(field, f"is not a list of up to {most} names")
    for x in v:
        if type(x) is not str or len(x) > MAX_LABEL:
            raise TreeDataError(field, f"holds {str(x)[:40]!r}, not a name")
    return list(v)


def _check(a: dict[str, npt.NDArray], dims: dict[str, int], nl: int, nc: int) -> None:
    """Every value in range (module doc), first problem raised naming the array."""
    n, na = dims["n"], dims["A"]
    if not 1 <= n <= MAX_NODES:
        raise TreeDataError("parent", f"has {n} nodes, not 1 … {MAX_NODES:,}")
    if na > MAX_ACTIONS:
        raise TreeDataError("actions", f"has {na} columns, more than {MAX_ACTIONS}")
    idx = np.arange(n)
    par = a["parent"]
    if par[0] != -1 or np.any(par[1:] < 0) or np.any(par[1:] >= idx[1:]):
        raise TreeDataError("parent", "is not a tree in order (each parent before its child)")
    step = a["step"]
    if step[0] != -1 or np.any(step[1:] < 0) or np.any(step[1:] >= nl):
        raise TreeDataError("step", "holds a label id out of range")
    _within("kind", a["kind"], 0, 1)
    _within("player", a["player"], -1, 1)
    _within("mult", a["mult"], 1, 24)
    act = a["actions"]
    if np.any(act < -1) or np.any(act >= nl):
        raise TreeDataError("actions", "holds a label id out of range")
    if np.any((a["kind"] == 0) != (a["player"] >= 0)):
        raise TreeDataError("player", "does not match kind (decision nodes have a player)")
    for name in ("reach", "pot", "ev", "equity", "eqr", "mix", "cls_combos", "cls_mix"):
        if np.any(np.isinf(a[name])):
            raise TreeDataError(name, "holds an infinity")
    _within("reach", a["reach"], 0.0, 1.0 + 1e-3, nan=False)
    _within("equity", a["equity"], 0.0, 1.0 + 1e-3, nan=True)
    _within("mix", a["mix"], 0.0, 1.0 + 1e-3, nan=True)
    _within("cls_mix", a["cls_mix"], 0.0, 1.0 + 1e-3, nan=True)
    _within("cls_combos", a["cls_combos"], 0.0, 1e6, nan=False)
    _within("pot", a["pot"], 0.0, 1e12, nan=False)
    _within("ev", a["ev"], -1e12, 1e12, nan=True)
    _within("eqr", a["eqr"], -1e12, 1e12, nan=True)
    cn = a["cls_node"]
    if np.any(cn < 0) or np.any(cn >= n) or np.any(np.diff(cn) < 0):
        raise TreeDataError("cls_node", "is not a non-decreasing list of nodes")
    if np.any(a["kind"][cn] != 0):
        raise TreeDataError("cls_node", "names a node that is not a decision")
    _within("cls_id", a["cls_id"], 0, nc - 1)
    iso = a["iso_node"]
    if np.any(iso < 1) or np.any(iso >= n):
        raise TreeDataError("iso_node", "holds a node out of range")
    _within("iso_card", a["iso_card"], 0, 51)
    sm = np.sort(a["iso_smap"].astype(np.int64), axis=1)
    if sm.size and np.any(sm != np.arange(4)):
        raise TreeDataError("iso_smap", "holds a row that is not a permutation of the suits")


def _check_cards(a: dict[str, npt.NDArray], labels: list[str]) -> None:
    """Every child of a chance node is named by a card as the tree writes it (``d:Kh``), and
    no decision's child is: the reports read those labels as cards."""
    from solver.poker.cards import CardError, card_str, parse_card

    par = a["parent"][1:].astype(np.int64)
    steps = a["step"][1:].astype(np.int64)
    dealt = a["kind"][par] == 1
    for lid in np.unique(steps[dealt]):
        text = labels[int(lid)]
        try:
            ok = text.startswith("d:") and card_str(parse_card(text[2:])) == text[2:]
        except CardError:
            ok = False
        if not ok:
            raise TreeDataError("labels", f"hold {text[:40]!r} for a dealt card (not d:Kh …)")
    for lid in np.unique(steps[~dealt]):
        if labels[int(lid)].startswith("d:"):
            raise TreeDataError("labels", f"hold {labels[int(lid)][:40]!r} for an action")


def _within(name: str, x: npt.NDArray, lo: float, hi: float, nan: bool = False) -> None:
    v = np.asarray(x)
    bad = ~((v >= lo) & (v <= hi))
    if v.dtype.kind == "f" and nan:
        bad &= ~np.isnan(v)
    if np.any(bad):
        first = v.reshape(-1)[np.flatnonzero(bad.reshape(-1))[0]]
        raise TreeDataError(name, f"holds {float(first)!r}, not in {lo} … {hi}")


def read_tree(con: sqlite3.Connection, path: Path, flop: str) -> TreeSummary | None:
    """``flop``'s row of a database's ``trees`` table, checked: the version, the cell's type
    and size (in SQL, before the bytes are read), then :func:`decode`. None when the flop
    has no row; :class:`~solver.batch.spec.BatchError` (field ``db``) naming the file, the
    flop and the field for anything else."""
    from solver.batch.spec import BatchError
    from solver.quoting import brief

    where = f"{path}: flop {flop}, column trees.data"
    try:
        found = con.execute(
            "SELECT version, typeof(data), length(CAST(data AS BLOB)), "
            "CASE WHEN length(CAST(data AS BLOB)) <= ? THEN data END FROM trees WHERE flop = ?",
            (MAX_TREE_BYTES, flop),
        ).fetchone()
    except sqlite3.DatabaseError as exc:
        raise BatchError("db", f"{path}: cannot read the tree summaries ({exc})") from None
    if found is None:
        return None
    version, kind, size, data = found
    if version != VERSION:
        raise BatchError("db", f"{where}: format version {brief(version)}, not {VERSION}")
    if kind != "blob":
        raise BatchError("db", f"{where}: is {kind}, not bytes")
    if data is None:
        raise BatchError("db", f"{where}: is larger than {MAX_TREE_BYTES:,} bytes ({size:,})")
    try:
        return decode(data)
    except TreeDataError as bad:
        raise BatchError("db", f"{where}: {bad}") from None
