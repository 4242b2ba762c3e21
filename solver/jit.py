"""The one place that holds the Numba options for every kernel.

Every kernel the solve thread calls releases the GIL (``nogil``) so a UI stays responsive while
it runs, and is cached on disk (``cache``) so a warm start costs a fraction of a second.
``fastmath`` stays off: the engine must match a float64 reference to 1e-10.
``inline_kernel`` is for small helpers called once per tree node: inlining them into the
traversal measured ~15-20 % faster on Leduc.
"""

from __future__ import annotations

import os

# Parallel kernels from several threads at once (two app sessions solving) abort the process
# with Numba's default "workqueue" layer; "threadsafe" picks OpenMP or TBB (PLATFORM.md).
os.environ.setdefault("NUMBA_THREADING_LAYER", "threadsafe")

from numba import njit

kernel = njit(cache=True, nogil=True, fastmath=False)
inline_kernel = njit(cache=True, nogil=True, fastmath=False)
