"""Kernels called by address (``called_kernel``, :mod:`solver.jit`): a caller's module
declares them instead of compiling them again, and its machine code calls theirs, also when
the caller comes from Numba's cache in a new process."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import llvmlite.binding as ll
import numpy as np
import pytest

from solver import jit

ROOT = Path(__file__).resolve().parents[1]

BIG = textwrap.dedent(
    """
    import numpy as np
    from solver.jit import called_kernel, kernel, node_kernel

    @called_kernel
    def big(x, k):
        s = 0.0
        for i in range(x.shape[0]):
            s += x[i] * k + i
        return s
    """
)
MODULE = BIG + textwrap.dedent(
    """
    @kernel
    def caller(x):
        return big(x, 2.0) + big(x, 3.0)
    """
)


def _definitions(lib: object, name: str) -> bool:
    return any(
        f.name == name and not f.is_declaration
        for f in lib._final_module.functions  # type: ignore[attr-defined]
    )


def test_a_caller_declares_the_called_kernel_and_calls_its_machine_code(
    tmp_path: Path, monkeypatch: object
) -> None:
    (tmp_path / "jl_mod.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))  # type: ignore[attr-defined]
    import jl_mod

    x = np.arange(5.0)
    assert jl_mod.caller(x) == sum(v * 2.0 + i for i, v in enumerate(x)) + sum(
        v * 3.0 + i for i, v in enumerate(x)
    )
    (cres,) = jl_mod.caller.overloads.values()
    (callee,) = jl_mod.big.overloads.values()
    name = callee.fndesc.llvm_func_name
    assert _definitions(callee.library, name)  # compiled once, in its own library
    assert not _definitions(cres.library, name)  # the caller only declares it
    assert name in {f.name for f in cres.library._final_module.functions}
    assert any(getattr(f, "func", None) is jit.bind for f in cres.reload_init)


def test_bind_maps_a_symbol_to_the_kernels_address(tmp_path: Path, monkeypatch: object) -> None:
    (tmp_path / "jl_bind.py").write_text(MODULE)
    monkeypatch.syspath_prepend(str(tmp_path))  # type: ignore[attr-defined]
    import jl_bind

    jl_bind.caller(np.zeros(2))
    ((args, cres),) = jl_bind.big.overloads.items()
    symbol = "regret_lab_test_jitlink_alias"
    jit.bind((("jl_bind", "big", tuple(args), symbol),))
    want = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
    assert want and ll.address_of_symbol(symbol) == want


def test_a_cached_caller_loads_and_calls_in_a_new_process(tmp_path: Path) -> None:
    (tmp_path / "jl_cached.py").write_text(MODULE)
    script = textwrap.dedent(
        """
        import numpy as np
        import jl_cached
        x = np.arange(7.0)
        print(repr(jl_cached.caller(x)), jl_cached.caller.stats.cache_hits.most_common(1))
        """
    )
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]),
    )
    runs = [
        subprocess.run(
            [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
        )
        for _ in range(2)
    ]
    for r in runs:
        assert r.returncode == 0, r.stderr
    x = [float(v) for v in range(7)]
    want = repr(
        sum(v * 2.0 + i for i, v in enumerate(x)) + sum(v * 3.0 + i for i, v in enumerate(x))
    )
    assert runs[0].stdout.split()[0] == runs[1].stdout.split()[0] == want
    assert "[]" in runs[0].stdout  # compiled in the first process
    assert "1)]" in runs[1].stdout  # the caller came from the cache in the second


INLINED = BIG + textwrap.dedent(
    """
    @node_kernel
    def mid(x):
        return big(x, 2.0) + 1.0

    @kernel
    def outer(x):
        return mid(x) * 3.0
    """
)


def test_a_caller_of_an_inlined_kernel_from_the_cache_binds_its_callee(tmp_path: Path) -> None:
    """A node_kernel that calls a called_kernel, loaded from the cache and inlined into a
    caller compiled in that process: the caller, cached, loads in a third process with the
    callee's symbol bound (a library rebuilt from the cache keeps its reload hooks, which the
    caller inherits; without them the third process called an unbound symbol and died)."""
    (tmp_path / "jl_inl.py").write_text(INLINED)
    env = dict(
        os.environ,
        NUMBA_CACHE_DIR=str(tmp_path / "cache"),
        PYTHONPATH=os.pathsep.join([str(tmp_path), str(ROOT)]),
    )
    head = "import numpy as np, jl_inl; x = np.arange(6.0); "
    alone = "from numba import types; jl_inl.mid.compile((types.float64[::1],)); "
    steps = [
        head + alone + "print('ok')",  # the node_kernel alone, cached
        head + "print(repr(jl_inl.outer(x)), jl_inl.outer.stats.cache_hits.most_common(1))",
        head + "print(repr(jl_inl.outer(x)), jl_inl.outer.stats.cache_hits.most_common(1))",
    ]
    runs = [
        subprocess.run(
            [sys.executable, "-c", s], env=env, capture_output=True, text=True, timeout=300
        )
        for s in steps
    ]
    for r in runs:
        assert r.returncode == 0, (r.returncode, r.stderr[-2000:])
    mid = sum(v * 2.0 + i for i, v in enumerate(float(v) for v in range(6))) + 1.0
    assert runs[0].stdout.split()[0] == "ok"
    assert runs[1].stdout.split()[0] == runs[2].stdout.split()[0] == repr(mid * 3.0)
    assert "[]" in runs[1].stdout  # outer compiled in the second process, mid loaded
    assert "1)]" in runs[2].stdout  # and came from the cache in the third


NODE = textwrap.dedent(
    """
    from solver.jit import called_kernel, kernel, node_kernel, node_kernel_py

    @node_kernel
    def inlined_only(x):
        return x + 1.0

    @node_kernel_py
    def inlined_too(x):
        return x + 2.0

    @called_kernel
    def by_address_only(x):
        return x * 3.0

    @kernel
    def through_both(x):
        return by_address_only(inlined_only(x))
    """
)


def test_a_node_kernel_called_from_python_raises_instead_of_crashing(
    tmp_path: Path, monkeypatch: object
) -> None:
    """A node_kernel or called_kernel has no CPython wrapper (only kernels call it): a call
    from Python raises, naming the kernel, before anything compiles (Numba would call a null
    entry), and a kernel still calls it; node_kernel_py keeps the wrapper for the few that
    Python calls too."""
    (tmp_path / "jl_node.py").write_text(NODE)
    monkeypatch.syspath_prepend(str(tmp_path))  # type: ignore[attr-defined]
    import jl_node

    with pytest.raises(TypeError, match=r"jl_node\.inlined_only .*node_kernel_py"):
        jl_node.inlined_only(1.0)
    with pytest.raises(TypeError, match=r"jl_node\.by_address_only .*called_kernel_py"):
        jl_node.by_address_only(1.0)
    assert not jl_node.inlined_only.overloads  # refused before compiling
    assert not jl_node.by_address_only.overloads
    assert jl_node.inlined_too(1.0) == 3.0
    assert jl_node.through_both(1.0) == 6.0
