"""A clock kernels can read: :func:`now_ns`, the monotonic clock in nanoseconds.

``clock_gettime(CLOCK_MONOTONIC)`` from the C library, called by name (so cached kernels
stay valid, as :func:`~solver.cfr.atomic.sched_yield`), its ``timespec`` on the kernel's
stack. It is the clock ``time.perf_counter_ns`` reads on Linux, so kernel and Python times
compare directly; a read is a vDSO call, tens of nanoseconds. A split chunk reads it a few
times per pass and thread (:func:`~solver.cfr.drive.drive`), never per node.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

CLOCK_MONOTONIC = 1  # Linux's clockid_t for the monotonic clock


@intrinsic
def _now_ns(typingctx: Any) -> Any:
    """``now_ns()``: the monotonic clock in nanoseconds (an int64)."""

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        i64 = ir.IntType(64)
        i32 = ir.IntType(32)
        spec = ir.LiteralStructType([i64, i64])  # struct timespec {tv_sec, tv_nsec} (LP64)
        ts = cgutils.alloca_once(builder, spec)
        fnty = ir.FunctionType(i32, [i32, spec.as_pointer()])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "clock_gettime")
        builder.call(fn, [ir.Constant(i32, CLOCK_MONOTONIC), ts])
        zero = ir.Constant(i32, 0)
        sec = builder.load(builder.gep(ts, [zero, zero]))
        nsec = builder.load(builder.gep(ts, [zero, ir.Constant(i32, 1)]))
        return builder.add(builder.mul(sec, ir.Constant(i64, 1_000_000_000)), nsec)

    return types.int64(), codegen


class _Now(Protocol):
    def __call__(self) -> int: ...


now_ns = cast(_Now, _now_ns)  # what kernels call (typed for checkers; kernels only)
