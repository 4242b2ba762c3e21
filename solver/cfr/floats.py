"""The walk's working precision: scalars typed like the scratch arrays they meet.

A walk over float32 storage works in float32 scratch (the reach, values and strategies of a
pass: :func:`~solver.cfr.layout.make_scratch`) — eight vector lanes where float64 has four,
as native solvers do — and keeps float64 for what accumulates: terminal sums, the strategy
sums after :meth:`~solver.cfr.engine.Engine.promote`. In Numba a float32 times a Python
float (or a float64 coefficient) is a float64, so every constant and coefficient a loop
mixes with scratch values goes through :func:`like` first; for float64 scratch it is the
value itself, so those walks compute exactly what they did.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
from numba import types
from numba.extending import overload

# scratch arrays and values of either precision (type hints of the kernels that take them)
Floats = npt.NDArray[np.floating[Any]]


def _is32(t: types.Type) -> bool:
    t = t.dtype if isinstance(t, types.Array) else t
    return t == types.float32


def like(ref: object, x: float) -> Any:
    """``x`` as a float of ``ref``'s precision: float32 when ``ref`` is a float32 array or
    scalar, else float64."""
    dt = getattr(ref, "dtype", type(ref))
    return np.float32(x) if dt == np.float32 else np.float64(x)


def pick(ref: object, x64: float, x32: float) -> Any:
    """``x64`` as a float64, or ``x32`` as a float32 when ``ref`` is float32 (a constant
    whose size depends on the precision, such as a rounding tolerance)."""
    dt = getattr(ref, "dtype", type(ref))
    return np.float32(x32) if dt == np.float32 else np.float64(x64)


# Not ``inline="always"``: inlined at Numba's IR level inside the walk, these overloads
# miscompiled it (a split pass stored no reach at its cut nodes); as calls, LLVM inlines them.
@overload(like)
def _like(ref, x):  # type: ignore[no-untyped-def]
    if _is32(ref):
        return lambda ref, x: np.float32(x)
    return lambda ref, x: np.float64(x)


@overload(pick)
def _pick(ref, x64, x32):  # type: ignore[no-untyped-def]
    if _is32(ref):
        return lambda ref, x64, x32: np.float32(x32)
    return lambda ref, x64, x32: np.float64(x64)
