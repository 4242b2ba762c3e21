"""Borrowed views: arrays (and tuples of arrays) without reference counting, for the walk.

Numba counts references to every array: each time an array is bound to a variable — an
argument of a called or inlined helper — it calls ``NRT_incref`` and, when the variable
dies, ``NRT_decref``: an atomic add on the array's memory record. The walk passes its arrays
to a few inlined helpers at every node, and Numba's reference-count pruning cannot pair the
increments and decrements across the helpers' loops, so a T1 iteration made ~10⁵ atomic
adds — each a full memory barrier on x86 — that took ~10 % of its time.

:func:`borrow` returns the same array (same data, shape and strides) with no memory record:
Numba's increment and decrement return at once on a null record. The caller must keep the
original alive for as long as the borrowed view is used, and a borrowed view must never be
returned to Python or stored in a container that outlives the call: the walk borrows its
arguments, which the caller holds for the whole pass.
"""

from __future__ import annotations

from typing import Any, Protocol, TypeVar, cast

from llvmlite import ir
from numba import types
from numba.extending import intrinsic


def _strip(context: Any, builder: Any, ty: types.Type, value: Any) -> Any:
    """``value`` of type ``ty`` with every array's memory record and parent object null."""
    if isinstance(ty, types.Array):
        ary = context.make_array(ty)(context, builder, value=value)
        ary.meminfo = ir.Constant(ary.meminfo.type, None)
        ary.parent = ir.Constant(ary.parent.type, None)
        return ary._getvalue()
    if isinstance(ty, types.BaseTuple):
        out = value
        for i, member in enumerate(getattr(ty, "types", ())):
            item = builder.extract_value(value, i)
            out = builder.insert_value(out, _strip(context, builder, member, item), i)
        return out
    return value


def _has_arrays(ty: types.Type) -> bool:
    if isinstance(ty, types.Array):
        return True
    members = getattr(ty, "types", ())  # a BaseTuple's member types
    return isinstance(ty, types.BaseTuple) and any(_has_arrays(t) for t in members)


T = TypeVar("T")


class _Borrow(Protocol):
    def __call__(self, x: T) -> T: ...


@intrinsic
def _borrow(typingctx: Any, x: types.Type) -> Any:
    """``borrow(x)``: ``x`` — an array, or a (named) tuple holding arrays — with no reference
    counting on any of its arrays (see the module's docstring for when that is safe)."""
    if not _has_arrays(x):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return _strip(context, builder, sig.args[0], args[0])

    return x(x), codegen


# what kernels call (an identity to type checkers)
borrow = cast(_Borrow, _borrow)
