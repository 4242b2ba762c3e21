"""Atomic counters for the threads of a parallel pass: :func:`fetch_add`, and
:func:`load_acquire` / :func:`store_release` for the threads that run a chunk of iterations
in one kernel call each and wait on a counter for each other (:mod:`solver.cfr.parallel`).

The threads of a pass (:mod:`solver.cfr.parallel`) take their tasks from queues, one per
thread, biggest first, each claiming the next with an atomic add on its queue's counter and,
its own queue empty, on the others': a thread that runs ahead (a smaller task, a core the
other thread shares with the browser) takes more, and none waits at the end for a list fixed
beforehand. Which thread runs a task does not change
any number: every task writes only its own values and its own subtree's storage.
"""

from __future__ import annotations

import platform
from typing import Any, Protocol, cast

import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


class _FetchAdd(Protocol):
    def __call__(self, counter: npt.NDArray[np.int64], i: int) -> int: ...


class _Store(Protocol):
    def __call__(self, counter: npt.NDArray[np.int64], i: int, value: int) -> None: ...


def _counter_args(counter: types.Type, i: types.Type) -> bool:
    """Whether the intrinsic's arguments are a 1-D int64 array and an integer index."""
    return (
        isinstance(counter, types.Array)
        and counter.ndim == 1
        and counter.dtype == types.int64
        and isinstance(i, types.Integer)
    )


def _pointer(context: Any, builder: Any, sig: Any, args: Any) -> Any:
    """The address of ``counter[i]`` (no bounds check)."""
    aty, ity = sig.args[0], sig.args[1]
    ary = context.make_array(aty)(context, builder, value=args[0])
    idx = context.cast(builder, args[1], ity, types.intp)
    return cgutils.get_item_pointer(context, builder, aty, ary, [idx], wraparound=False)


@intrinsic
def _fetch_add(typingctx: Any, counter: types.Type, i: types.Type) -> Any:
    """``fetch_add(counter, i)``: adds 1 to ``counter[i]`` (a 1-D int64 array) atomically
    and returns the value it had. No bounds check: ``i`` must be a valid index."""
    if not _counter_args(counter, i):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ptr = _pointer(context, builder, sig, args)
        return builder.atomic_rmw("add", ptr, ir.Constant(ir.IntType(64), 1), "seq_cst")

    return types.int64(counter, i), codegen


@intrinsic
def _load_acquire(typingctx: Any, counter: types.Type, i: types.Type) -> Any:
    """``load_acquire(counter, i)``: ``counter[i]`` read atomically (acquire: what the
    thread that stored it wrote before is visible after). The compiler never hoists it out
    of a loop, so a thread can wait on it."""
    if not _counter_args(counter, i):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        return builder.load_atomic(_pointer(context, builder, sig, args), "acquire", 8)

    return types.int64(counter, i), codegen


@intrinsic
def _store_release(typingctx: Any, counter: types.Type, i: types.Type, v: types.Type) -> Any:
    """``store_release(counter, i, value)``: ``counter[i] = value`` atomically (release:
    everything this thread wrote before is visible to a thread that loads the value)."""
    if not (_counter_args(counter, i) and isinstance(v, types.Integer)):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        value = context.cast(builder, args[2], sig.args[2], types.int64)
        builder.store_atomic(value, _pointer(context, builder, sig, args), "release", 8)
        return context.get_dummy_value()

    return types.void(counter, i, v), codegen


def _cas(context: Any, builder: Any, sig: Any, args: Any, expected: Any, value: Any) -> Any:
    """``counter[i] = value`` if it holds ``expected`` (a compare-and-swap, sequentially
    consistent); whether it did."""
    ptr = _pointer(context, builder, sig, args)
    res = builder.cmpxchg(ptr, expected, value, "seq_cst", "seq_cst")
    return builder.extract_value(res, 1)


@intrinsic
def _claim(typingctx: Any, counter: types.Type, i: types.Type, v: types.Type) -> Any:
    """``claim(counter, i, value)``: ``counter[i] = value`` if it was 0, atomically (a
    compare-and-swap); returns whether it was (whether this thread got there first)."""
    if not (_counter_args(counter, i) and isinstance(v, types.Integer)):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        value = context.cast(builder, args[2], sig.args[2], types.int64)
        return _cas(context, builder, sig, args, ir.Constant(ir.IntType(64), 0), value)

    return types.boolean(counter, i, v), codegen


@intrinsic
def _swap_if(
    typingctx: Any, counter: types.Type, i: types.Type, old: types.Type, v: types.Type
) -> Any:
    """``swap_if(counter, i, old, value)``: ``counter[i] = value`` if it holds ``old``,
    atomically (a compare-and-swap); returns whether it did."""
    if not (_counter_args(counter, i) and isinstance(old, types.Integer)
            and isinstance(v, types.Integer)):  # fmt: skip
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        expected = context.cast(builder, args[2], sig.args[2], types.int64)
        value = context.cast(builder, args[3], sig.args[3], types.int64)
        return _cas(context, builder, sig, args, expected, value)

    return types.boolean(counter, i, old, v), codegen


class _Claim(Protocol):
    def __call__(self, counter: npt.NDArray[np.int64], i: int, value: int) -> bool: ...


class _SwapIf(Protocol):
    def __call__(self, counter: npt.NDArray[np.int64], i: int, old: int, value: int) -> bool: ...


_X86 = platform.machine().lower() in ("x86_64", "amd64", "i386", "i686")


@intrinsic
def _cpu_pause(typingctx: Any) -> Any:
    """``cpu_pause()``: the spin-wait hint (x86 ``pause``; nothing elsewhere): a waiting
    thread leaves the core's other hyperthread (another vCPU of a VM) its execution units
    and does not flood the memory bus with loads."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        if _X86:
            fnty = ir.FunctionType(ir.VoidType(), [])
            fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.x86.sse2.pause")
            builder.call(fn, [])
        return context.get_dummy_value()

    return types.void(), codegen


# ``sched_yield()`` from the C library, called by name (so cached kernels stay valid): a
# thread that has waited long gives its core to whatever else is runnable — the app's server,
# the browser — and comes straight back when nothing is
_sched_yield = types.ExternalFunction("sched_yield", types.int32())


class _Pause(Protocol):
    def __call__(self) -> None: ...


class _Yield(Protocol):
    def __call__(self) -> int: ...


# what kernels call (typed for checkers; the intrinsics only work inside kernels)
fetch_add = cast(_FetchAdd, _fetch_add)
load_acquire = cast(_FetchAdd, _load_acquire)
store_release = cast(_Store, _store_release)
claim = cast(_Claim, _claim)
swap_if = cast(_SwapIf, _swap_if)
cpu_pause = cast(_Pause, _cpu_pause)
sched_yield = cast(_Yield, _sched_yield)
