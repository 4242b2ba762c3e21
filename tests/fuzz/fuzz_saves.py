"""Hypothesis strategies for saved solves (``.npz`` + JSON metadata): real saves of several
kinds, then flipped bytes, truncations, hostile metadata, wrong arrays, pickled objects,
zip bombs and zips with too many members."""

from __future__ import annotations

import functools
import io
import json
import math
import warnings
import zipfile
from dataclasses import asdict
from typing import Any

import numpy as np
from hypothesis import strategies as st

from solver.algorithms import make_solver
from solver.cfr.options import SolveOptions
from solver.files.export import game_source, save_solve
from solver.games import make_game
from solver.games.holdem import HoldemSpec, build_holdem

UNPICKLED: list[str] = []
"""What :class:`Trap` appended when something unpickled it: must stay empty."""


def _record(what: str) -> list[str]:
    UNPICKLED.append(what)
    return UNPICKLED


class Trap:
    """An object whose unpickling is recorded: an object array of these is a pickle that,
    if ever loaded, leaves a trace in :data:`UNPICKLED`."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return _record, ("a pickled object was loaded",)


RIVER = HoldemSpec(board="Td9d6hQc2s", pot=100, stack=200, oop_range="AA,KK", ip_range="QQ,AK",
                   bets="50%, a", raises="a")  # fmt: skip


@functools.cache
def base_saves() -> tuple[bytes, ...]:
    """Real saved solves: full-width, pruned (Total RBP), 16-bit, chance-sampled, sampled
    (scalar MCCFR), locked and a hold'em river spot."""
    out = []
    kinds: list[tuple[str, str, dict[str, Any], int]] = [
        ("leduc", "cfr+", {}, 3),
        ("kuhn", "dcfr", {"pruning": "none"}, 3),
        ("leduc", "cfr", {"pruning": "total"}, 20),
        ("leduc", "dcfr", {"precision": "compressed"}, 3),
        ("leduc", "mccfr-cs", {"seed": 7}, 10),
        ("kuhn", "mccfr-es", {"seed": 3}, 30),
        ("kuhn", "cfr", {"locks": {"k": {"k": 1.0}, "b:1": {"f": 1.0}}}, 3),
    ]
    for name, algorithm, options, iterations in kinds:
        g = make_game(name)
        e = make_solver(g, algorithm, options=SolveOptions(**options))
        e.iterate(iterations)
        out.append(save_solve(e, game_source(g)))
    g = build_holdem(RIVER)
    e = make_solver(g, "dcfr")
    e.iterate(3)
    out.append(save_solve(e, {"kind": "holdem", "spec": asdict(RIVER)}))
    return tuple(out)


def _members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return {name: z.read(name) for name in z.namelist()}


def _zip(members: dict[str, bytes] | list[tuple[str, bytes]]) -> bytes:
    buf = io.BytesIO()
    items = members.items() if isinstance(members, dict) else members
    with warnings.catch_warnings(), zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        warnings.simplefilter("ignore", UserWarning)  # a member twice is one of the inputs
        for name, payload in items:
            z.writestr(name, payload)
    return buf.getvalue()


def _npy(arr: np.ndarray) -> bytes:
    buf = io.BytesIO()
    np.lib.format.write_array(buf, arr, allow_pickle=True)
    return buf.getvalue()


def _declaring(shape: tuple[int, ...], dtype: str = "<f8", payload: bytes = b"") -> bytes:
    """A ``.npy`` member whose header declares ``shape`` over ``payload`` bytes of data."""
    header = {"descr": dtype, "fortran_order": False, "shape": shape}
    buf = io.BytesIO()
    np.lib.format.write_array_header_1_0(buf, header)
    return buf.getvalue() + payload


@functools.cache
def bomb_member() -> bytes:
    """64 MiB of zeros as an array with a plausible name: a few kilobytes deflated."""
    return _npy(np.zeros(8 * 2**20))


HOSTILE_JSON: list[Any] = [
    [], {}, [1], "x", -5, -1, 0, 1.5, 1e308, math.inf, -math.inf, math.nan, 10**30, True, None,
    "__BIGINT__", "__DEEP__", {"kind": "toy", "name": [1]}, {"kind": "holdem", "spec": []},
    [[1, "a", 2]], [[1, 2]], [[-1, 0.5, 0.1]], [[1, math.inf, 0.1]], {"check_every": 0},
    {"threshold": -1}, {"bit_generator": "PCG64"}, "cfr", "float16", "total", 2**64,
    {"k": {"k": 1.0}}, {"root": "solved"}, {"nope": {"k": 1}}, {"k": {"k": 10**30}}, "auto",
]  # fmt: skip
META_KEYS = [
    "format", "version", "algorithm", "params", "game", "iteration", "nodes_touched",
    "precision", "pruning", "seed", "history", "rbp", "rng_state", "storage", "action_size",
    "locks", "storage_choice",
]  # fmt: skip
SPEC_KEYS = ["max_memory_mb", "board", "pot", "stack", "bets", "raise_cap", "sizes", "colour"]
SPEC_VALUES: list[Any] = [1e12, 1e308, -1, "Td9d6h", "9" * 400 + "%", 50, 10**6, {"river": "x"}]


def _edit_meta(data: bytes, edits: list[tuple[str, Any]]) -> bytes:
    """``data`` with metadata edits: ``(key, value)`` sets (``game.spec.KEY`` reaches the
    hold'em spec; value ``"__DEL__"`` deletes), then JSON placeholders become raw text."""
    members = _members(data)
    meta = json.loads(str(np.load(io.BytesIO(members["meta.npy"]))))
    for key, value in edits:
        parts = key.split(".")
        node = meta
        for p in parts[:-1]:
            node = node.get(p) if isinstance(node, dict) else None
        if not isinstance(node, dict):
            continue
        if value == "__DEL__":
            node.pop(parts[-1], None)
        else:
            node[parts[-1]] = value
    text = json.dumps(meta)
    text = text.replace('"__BIGINT__"', "9" * 5000)
    text = text.replace('"__DEEP__"', "[" * 100_000 + "]" * 100_000)
    members["meta.npy"] = _npy(np.array(text))
    return _zip(members)


def _edit_array(data: bytes, which: int, how: str) -> bytes:
    """``data`` with one storage array replaced by something else (``how``)."""
    members = _members(data)
    names = sorted(n for n in members if n.startswith("storage_"))
    name = names[which % len(names)]
    arr = np.load(io.BytesIO(members[name]))
    if how == "shape":
        members[name] = _npy(np.zeros(arr.size + 7, dtype=arr.dtype))
    elif how == "dtype":
        members[name] = _npy(arr.astype(np.int32 if arr.dtype != np.int32 else np.float64))
    elif how == "nan":
        members[name] = _npy(np.full_like(arr, np.nan) if arr.dtype.kind == "f" else arr)
    elif how == "object":
        members[name] = _npy(np.array([Trap()] * max(arr.size, 1), dtype=object))
    elif how == "declared":
        members[name] = _declaring((2**40,), payload=b"\0" * 64)
    elif how == "fortran":
        members[name] = _npy(np.asfortranarray(np.zeros((2, max(arr.size, 1)))))
    elif how == "bomb":
        members[name] = bomb_member()
    elif how == "truncated":
        members[name] = members[name][: len(members[name]) // 2]
    elif how == "missing":
        del members[name]
    return _zip(members)


def _zip_level(data: bytes, how: str) -> bytes:
    members = list(_members(data).items())
    if how == "many":
        members += [(f"x{i}.npy", b"") for i in range(300)]
    elif how == "foreign":
        members.append(("readme.txt", b"hello"))
    elif how == "duplicate":
        members.append(members[0])
    elif how == "pickled-meta":
        members = [(n, p) for n, p in members if n != "meta.npy"]
        members.append(("meta.npy", _npy(np.array([Trap()], dtype=object))))
    return _zip(members)


def _flip(data: bytes, flips: list[tuple[float, int]]) -> bytes:
    b = bytearray(data)
    for where, bit in flips:
        b[min(int(where * len(b)), len(b) - 1)] ^= 1 << bit
    return bytes(b)


def saved_file() -> st.SearchStrategy[bytes]:
    """Saved solves: intact, flipped, truncated, edited metadata, replaced arrays, zips."""
    base = st.integers(0, 6).map(lambda i: base_saves()[i])
    key = st.one_of(
        st.sampled_from(META_KEYS),
        st.sampled_from(["rbp.check_every", "rbp.margin", "rbp.catchups", "game.kind"]),
        st.sampled_from(SPEC_KEYS).map(lambda k: f"game.spec.{k}"),
    )
    value = st.one_of(st.sampled_from(HOSTILE_JSON), st.sampled_from(SPEC_VALUES),
                      st.just("__DEL__"))  # fmt: skip
    how = st.sampled_from(
        ["shape", "dtype", "nan", "object", "declared", "fortran", "bomb", "truncated", "missing"]
    )
    return st.one_of(
        base,
        st.builds(
            _flip,
            base,
            st.lists(st.tuples(st.floats(0, 1), st.integers(0, 7)), min_size=1, max_size=4),
        ),
        st.builds(lambda d, f: d[: int(f * len(d))], base, st.floats(0, 1)),
        st.builds(_edit_meta, base, st.lists(st.tuples(key, value), min_size=1, max_size=3)),
        st.builds(_edit_meta, base, st.lists(st.tuples(key, value), min_size=1, max_size=3)),
        st.builds(_edit_array, base, st.integers(0, 20), how),
        st.builds(
            _zip_level, base, st.sampled_from(["many", "foreign", "duplicate", "pickled-meta"])
        ),
        st.binary(max_size=200).map(lambda b: b"PK" + b),
    )
