"""Reading pickled Numba argument types that may be hostile (a prefetch plan's steps,
:mod:`solver.run.prefetch`): the pickle's opcodes are measured before anything is built, and
the unpickler names only Numba's type classes and a few of the solver's NamedTuple classes.

What is refused (:class:`TypesError`, a ValueError saying what):

* a blob longer than :data:`MAX_BYTES`, or of more than :data:`MAX_OPS` opcodes;
* one whose objects, written out in full, would hold more than :data:`MAX_NODES` parts or
  nest deeper than :data:`MAX_DEPTH` (measured on the opcodes: a pickle reuses an object by
  reference, so a few hundred bytes can describe nested tuples whose ``hash`` never ends),
  or that changes a container after using it (a cycle);
* a global other than Numba's type classes (:data:`NUMBA_TYPES`), its two reconstructors,
  and the NamedTuple classes of the modules the caller allows — checked on the names,
  before any module is imported (only modules already imported, or the caller's, are);
* a result that is not a tuple of Numba types, or a tuple type longer than
  :data:`MAX_TUPLE`.
"""

from __future__ import annotations

import io
import pickle
import pickletools
import sys
from collections.abc import Collection
from typing import Any

MAX_BYTES = 64 * 1024
"""Longest blob read (a plan's steps take up to about 6 kB)."""
MAX_OPS = 20_000
"""Most opcodes in a blob (a plan's take up to about 1,300)."""
MAX_NODES = 50_000
"""Most parts the objects may have written out in full (a plan's: about 6,300)."""
MAX_DEPTH = 64
"""Deepest nesting (a plan's: 21, the three-player tables nested in the game's arrays)."""
MAX_TUPLE = 256
"""Longest Numba tuple type (a kernel's arguments hold a few dozen)."""

NUMBA_TYPES = frozenset(
    {
        ("numba.core.types.scalars", "Integer"),
        ("numba.core.types.scalars", "Float"),
        ("numba.core.types.scalars", "Boolean"),
        ("numba.core.types.scalars", "Complex"),
        ("numba.core.types.npytypes", "Array"),
        ("numba.core.types.containers", "NamedTuple"),
        ("numba.core.types.containers", "NamedUniTuple"),
        ("numba.core.types.containers", "Tuple"),
        ("numba.core.types.containers", "UniTuple"),
        ("numba.core.types.misc", "NoneType"),
        ("numba.core.types.misc", "CPointer"),  # a tuple passed by reference (cfr/borrow.py)
        ("numba.core.types.misc", "Omitted"),
    }
)
"""The Numba type classes a kernel's arguments are made of."""
RECONSTRUCTORS = frozenset(
    {
        ("copyreg", "_reconstructor"),
        ("builtins", "object"),
        ("numba.core.types.abstract", "_type_reconstructor"),
    }
)


class TypesError(ValueError):
    """Pickled types refused: the message says why."""


_INPLACE = {"APPEND": 1, "APPENDS": None, "SETITEM": 2, "SETITEMS": None, "BUILD": 1}
_INPLACE["ADDITEMS"] = None
_PUTS = ("PUT", "BINPUT", "LONG_BINPUT")
_GETS = ("GET", "BINGET", "LONG_BINGET")


class _Node:
    """An object the pickle builds: its parts written out in full, and its nesting."""

    __slots__ = ("depth", "size", "used")

    def __init__(self, size: int, depth: int) -> None:
        self.size, self.depth, self.used = size, depth, False


def measure(blob: bytes) -> tuple[int, int]:
    """The largest object ``blob`` builds, written out in full: (parts, depth). Reads the
    opcodes only (nothing is built or imported); :class:`TypesError` past the limits."""
    if len(blob) > MAX_BYTES:
        raise TypesError(f"{len(blob)} bytes of pickled types (at most {MAX_BYTES})")
    mark = _Node(0, 0)
    stack: list[_Node] = []
    memo: dict[int, _Node] = {}
    most = (0, 0)

    def to_mark() -> list[_Node]:
        out = []
        while (x := stack.pop()) is not mark:
            out.append(x)
        return out

    def grow(node: _Node, parts: list[_Node]) -> None:
        nonlocal most
        for p in parts:
            p.used = True
            node.size += p.size
            node.depth = max(node.depth, p.depth + 1)
        if node.size > MAX_NODES or node.depth > MAX_DEPTH:
            raise TypesError(
                f"pickled types too large written out (over {MAX_NODES} parts or "
                f"{MAX_DEPTH} levels)"
            )
        most = max(most, (node.size, node.depth))

    try:
        for n_ops, (op, arg, _pos) in enumerate(pickletools.genops(blob)):
            if n_ops >= MAX_OPS:
                raise TypesError(f"more than {MAX_OPS} pickle opcodes")
            name = op.name
            if name in ("PROTO", "FRAME", "STOP"):
                continue
            if name == "MARK":
                stack.append(mark)
            elif name in _PUTS:
                memo[int(arg or 0)] = stack[-1]
            elif name == "MEMOIZE":
                memo[len(memo)] = stack[-1]
            elif name in _GETS:
                stack.append(memo[int(arg or 0)])
            elif name == "POP":
                stack.pop()
            elif name == "POP_MARK":
                to_mark()
            elif name == "DUP":
                stack.append(stack[-1])
            elif name in _INPLACE:
                k = _INPLACE[name]
                parts = to_mark() if k is None else [stack.pop() for _ in range(k)]
                if stack[-1].used or any(p is stack[-1] for p in parts):  # a cycle
                    raise TypesError("pickled types change an object after using it")
                grow(stack[-1], parts)
            else:
                parts = []
                for entry in reversed(op.stack_before):
                    if entry is pickletools.stackslice:
                        parts += to_mark()
                    elif entry is not pickletools.markobject:
                        parts.append(stack.pop())
                node = _Node(1, 1)
                grow(node, parts)
                if op.stack_after:
                    stack.append(node)
    except TypesError:
        raise
    except (ValueError, IndexError, KeyError, EOFError) as exc:
        raise TypesError(f"not a pickle: {exc}") from None
    return most


class _TypesOnly(pickle.Unpickler):
    """Unpickles Numba types and nothing else: their classes and reconstructors, and the
    NamedTuple classes of ``modules`` — a blob cannot call or import anything else."""

    def __init__(self, file: io.BytesIO, modules: Collection[str]) -> None:
        super().__init__(file)
        self.modules = modules

    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in NUMBA_TYPES or (module, name) in RECONSTRUCTORS:
            if module not in sys.modules and module != "copyreg":
                import numba.core.types  # noqa: F401  (imports every module named above)
            return getattr(sys.modules[module], name)
        if module in self.modules and name.isidentifier():
            found = getattr(sys.modules.get(module) or _import(module), name, None)
            if (
                isinstance(found, type)
                and issubclass(found, tuple)
                and hasattr(found, "_fields")
                and found.__module__ == module
            ):
                return found
        raise TypesError(f"not a Numba type: {module}.{name}")


def _import(module: str) -> Any:
    import importlib

    return importlib.import_module(module)


def load_types(blob: bytes, modules: Collection[str] = ()) -> tuple[Any, ...]:
    """The tuple of Numba types pickled in ``blob``, whose NamedTuple classes may come from
    ``modules`` (names checked before any import). :class:`TypesError` when refused."""
    measure(blob)
    try:
        loaded = _TypesOnly(io.BytesIO(blob), modules).load()
    except TypesError:
        raise
    except Exception as exc:  # a type's constructor refusing its arguments, a bad opcode
        raise TypesError(f"pickled types do not load: {type(exc).__name__}: {exc}") from None
    from numba.core import types

    if not isinstance(loaded, tuple):
        raise TypesError(f"pickled types are a {type(loaded).__name__}, not a tuple")
    for t in loaded:
        _check(t, types)
    return loaded


def _check(t: Any, types: Any, depth: int = 0) -> None:
    if not isinstance(t, types.Type):
        raise TypesError(f"not a Numba type: {type(t).__name__}")
    if depth > MAX_DEPTH:
        raise TypesError(f"Numba types nested over {MAX_DEPTH} levels")
    if isinstance(t, types.BaseTuple):
        if len(t) > MAX_TUPLE:
            raise TypesError(f"a tuple type of {len(t)} members (at most {MAX_TUPLE})")
        for member in t:
            _check(member, types, depth + 1)
    elif isinstance(t, (types.Array, types.CPointer)):
        _check(t.dtype, types, depth + 1)
