"""The one place that holds the Numba options for every kernel.

Every kernel the solve thread calls releases the GIL (``nogil``) so a UI stays responsive while
it runs, and is cached on disk (``cache``) so a warm start costs a fraction of a second.
``fastmath`` stays off: the engine must match a float64 reference to 1e-10.
"""

from __future__ import annotations

JIT_OPTIONS: dict[str, bool] = {"nogil": True, "cache": True, "fastmath": False}
