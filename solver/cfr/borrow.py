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

from typing import Any, Generic, Protocol, TypeVar, cast

from llvmlite import ir
from numba import types
from numba.core import cgutils
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


# ----- by reference ---------------------------------------------------------------------------
# A kernel called by address (:func:`solver.jit.called_kernel`) takes its arguments as Numba
# flattens them: every array of a tuple is 7–11 words, so a call given the walk's tables
# passed hundreds of words (a task's claim 632) and cost more than its work. ``by_ref``
# keeps one copy in the caller's frame and passes its address; ``deref`` in the callee loads
# only the fields it reads (one load each: the unused ones are dead code).


class Ref(Generic[T]):
    """To type checkers: the address of a ``T`` in a kernel's frame (:func:`by_ref`)."""


def _load(builder: Any, ptr: Any, ty: Any) -> Any:
    """The value of LLVM type ``ty`` at ``ptr``, loaded scalar by scalar (a load of the
    whole aggregate would be one load of every field, used or not)."""
    if isinstance(ty, ir.BaseStructType):
        members = list(ty.elements)
    elif isinstance(ty, ir.ArrayType):
        members = [ty.element] * ty.count
    else:
        return builder.load(ptr)
    out = ir.Constant(ty, ir.Undefined)
    zero = ir.Constant(ir.IntType(32), 0)
    for i, member in enumerate(members):
        at = builder.gep(ptr, [zero, ir.Constant(ir.IntType(32), i)], inbounds=True)
        out = builder.insert_value(out, _load(builder, at, member), i)
    return out


@intrinsic
def _by_ref(typingctx: Any, x: types.Type) -> Any:
    """``by_ref(x)``: the address of a copy of tuple ``x`` in this kernel's frame (made once
    per call of the kernel: its entry block), valid until the kernel returns."""
    if not isinstance(x, types.BaseTuple):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ty = context.get_value_type(sig.args[0])
        slot = cgutils.alloca_once(builder, ty)
        builder.store(args[0], slot)
        return builder.bitcast(slot, context.get_value_type(sig.return_type))

    return types.CPointer(x)(x), codegen


@intrinsic
def _deref(typingctx: Any, p: types.Type) -> Any:
    """``deref(by_ref(x))``: ``x`` again, in the kernel the address was passed to, its
    arrays borrowed (:func:`borrow`)."""
    if not isinstance(p, types.CPointer) or not isinstance(p.dtype, types.BaseTuple):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ty = context.get_value_type(sig.return_type)
        value = _load(builder, builder.bitcast(args[0], ty.as_pointer()), ty)
        # borrowed (the caller holds the arrays): Numba would otherwise count the loaded
        # arrays as new references and release them when the callee returns
        return _strip(context, builder, sig.return_type, value)

    return p.dtype(p), codegen


class _ByRef(Protocol):
    def __call__(self, x: T) -> Ref[T]: ...


class _Deref(Protocol):
    def __call__(self, p: Ref[T]) -> T: ...


by_ref = cast(_ByRef, _by_ref)
deref = cast(_Deref, _deref)
