"""The one place that holds the Numba options for every kernel.

Every kernel the solve thread calls releases the GIL (``nogil``) so a UI stays responsive while
it runs, and is cached on disk (``cache``) so a warm start costs a fraction of a second.
``fastmath`` stays off: the engine must match a float64 reference to 1e-10.
``inline_kernel`` marks the small helpers called once per tree node. They are not forced
inline (``inline="always"``): with the pruning and sampling paths in the traversal, forcing
it measured slower (T1: LCFR 43 against 36 ms per iteration; Leduc mixed) and compiled ~50 %
longer. ``fastmath`` flags without ``nnan``/``ninf`` (reassociation, contraction) gave
nothing either (same times within 3 %), so the options stay the same for every kernel.
"""

from __future__ import annotations

import os

# Parallel kernels from several threads at once (two app sessions solving) abort the process
# with Numba's default "workqueue" layer; "threadsafe" picks OpenMP or TBB (PLATFORM.md).
os.environ.setdefault("NUMBA_THREADING_LAYER", "threadsafe")

from numba import njit

kernel = njit(cache=True, nogil=True, fastmath=False)
inline_kernel = njit(cache=True, nogil=True, fastmath=False)
# The helpers the walk calls at every node, inlined into it at Numba's IR level: a call
# boundary costs an atomic reference-count increment and decrement for every array argument
# (and for every array in a NamedTuple argument), which on Leduc's six hands cost more than
# the node's arithmetic.
node_kernel = njit(cache=True, nogil=True, fastmath=False, inline="always")
