"""An atomic counter for the threads of a parallel pass: :func:`fetch_add`.

The threads of a pass (:mod:`solver.cfr.parallel`) take their tasks from one shared list,
biggest first, each claiming the next with an atomic add on a counter: a thread that runs
ahead (a smaller task, a core the other thread shares with the browser) takes more, and
none waits at the end for a list fixed beforehand. Which thread runs a task does not change
any number: every task writes only its own values and its own subtree's storage.
"""

from __future__ import annotations

from typing import Any, Protocol, cast

import numpy as np
import numpy.typing as npt
from llvmlite import ir
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic


class _FetchAdd(Protocol):
    def __call__(self, counter: npt.NDArray[np.int64], i: int) -> int: ...


@intrinsic
def _fetch_add(typingctx: Any, counter: types.Type, i: types.Type) -> Any:
    """``fetch_add(counter, i)``: adds 1 to ``counter[i]`` (a 1-D int64 array) atomically
    and returns the value it had. No bounds check: ``i`` must be a valid index."""
    if not (
        isinstance(counter, types.Array)
        and counter.ndim == 1
        and counter.dtype == types.int64
        and isinstance(i, types.Integer)
    ):
        return None

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        aty, ity = sig.args
        ary = context.make_array(aty)(context, builder, value=args[0])
        idx = context.cast(builder, args[1], ity, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, aty, ary, [idx], wraparound=False)
        return builder.atomic_rmw("add", ptr, ir.Constant(ir.IntType(64), 1), "seq_cst")

    return types.int64(counter, i), codegen


# what kernels call (typed for checkers; the intrinsic only works inside kernels)
fetch_add = cast(_FetchAdd, _fetch_add)
