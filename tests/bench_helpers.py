"""A ``benchmarks/`` script imported by its tests (the folder is not a package)."""

from __future__ import annotations

import functools
import importlib.util
import sys
from pathlib import Path
from types import ModuleType

BENCHMARKS = Path(__file__).resolve().parent.parent / "benchmarks"


@functools.cache
def benchmark(name: str) -> ModuleType:
    """``benchmarks/<name>.py`` as module ``_bench_<name>``, loaded once."""
    spec = importlib.util.spec_from_file_location(f"_bench_{name}", BENCHMARKS / f"{name}.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # (its dataclasses look their module up by name)
    spec.loader.exec_module(mod)
    return mod
