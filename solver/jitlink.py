"""Kernels called by address: compiled once, on their own, never again inside a caller.

Numba links a callee's optimised LLVM IR into every kernel that calls it and optimises and
compiles the whole module again, so a big callee's machine code is made once on its own and
once more per caller. In the walk's driver (:func:`solver.cfr.drive.drive`, compiled alone
on one core while a cold first solve waits) the callees LLVM does not inline were about a
quarter of the module's optimisation and code generation. A kernel made with
:data:`solver.jit.called_kernel` is instead left a declaration in its callers' modules
(:func:`_externalize`, before LLVM optimises them), and the caller's machine code calls the
callee's own, already compiled, by its symbol.

The symbol must be resolved wherever a caller's machine code is loaded, also from Numba's
on-disk cache in a new process, where nothing has loaded the callee yet: the caller's
library keeps a *reload hook* (Numba runs a library's ``_reload_init`` callables before it
loads the cached object code, :meth:`numba.core.compiler.CompileResult._rebuild`) that
compiles or loads each callee signature it calls and maps the symbol the caller was built
against to the callee's address (:func:`bind`: a callee loaded from a cache entry another
process wrote may carry another name for the same code).

The hook is installed on Numba's code library class once; if Numba's internals are not as
expected (another version) nothing is installed and callees are linked as Numba does.
"""

from __future__ import annotations

import functools
import importlib
import re
from collections.abc import Callable
from typing import Any

# llvm function name → (module, qualname, argument types) of every called_kernel signature
# compiled or loaded in this process (filled lazily from the dispatchers)
_DISPATCHERS: list[Any] = []
_DEFINE = re.compile(r'^define (?:[a-z_]+ )*?[^@]*@"?([^"(]+)"?\(')


def register(disp: Any) -> None:
    """Call ``disp`` (a Numba dispatcher of a module-level function) by address from every
    kernel that calls it."""
    _DISPATCHERS.append(disp)


def _signatures() -> dict[str, tuple[str, str, tuple]]:
    """The llvm name of each compiled signature of the registered kernels → its kernel's
    module, name and argument types."""
    out: dict[str, tuple[str, str, tuple]] = {}
    for disp in _DISPATCHERS:
        py = disp.py_func
        for args, cres in list(disp.overloads.items()):
            out[cres.fndesc.llvm_func_name] = (py.__module__, py.__qualname__, tuple(args))
    return out


def bind(entries: tuple[tuple[str, str, tuple, str], ...]) -> None:
    """For each ``(module, qualname, argument types, symbol)``: compile (or load from the
    cache) that signature of the kernel and make ``symbol`` resolve to its address."""
    import llvmlite.binding as ll

    for module, qualname, args, symbol in entries:
        disp = getattr(importlib.import_module(module), qualname)
        disp.compile(args)
        cres = disp.overloads[args]
        address = cres.library.get_pointer_to_function(cres.fndesc.llvm_func_name)
        if not address:
            raise RuntimeError(f"kernel {module}.{qualname}{args}: no machine code to call")
        ll.add_symbol(symbol, address)


def _declare(line: str) -> str:
    """A ``define … {`` line as a declaration (no linkage, no attribute groups)."""
    head = line[: line.rfind("{")]
    head = re.sub(r"^define (?:linkonce_odr |weak_odr |internal |private )?", "declare ", head)
    return re.sub(r" #\d+", "", head)


def _externalize(library: Any, own: set[str]) -> None:
    """Turn the definitions in ``library``'s linked module of registered kernels other than
    its own into declarations, and give the library the reload hook that binds them."""
    import llvmlite.binding as ll

    module = library._final_module
    called = _signatures()
    names = [
        f.name
        for f in module.functions
        if not f.is_declaration and f.name in called and f.name not in own
    ]
    if not names:
        return
    drop = set(names)
    out: list[str] = []
    skip = False
    for line in str(module).splitlines():
        if skip:
            skip = line != "}"
            continue
        if line.startswith("define "):
            m = _DEFINE.match(line)
            if m and m.group(1) in drop:
                out.append(_declare(line))
                skip = True
                continue
        out.append(line)
    new = ll.parse_assembly("\n".join(out))
    new.name = module.name
    new.verify()
    library._final_module = new
    entries = tuple(sorted(((*called[n], n) for n in names), key=lambda e: e[3]))
    bind(entries)  # (already loaded in this process: makes sure, as a cached load will)
    library._reload_init.add(functools.partial(bind, entries))


def install() -> bool:
    """Hook Numba's CPU code library so that every library leaves the registered kernels it
    links in as declarations (:func:`_externalize`). Returns whether it is installed."""
    try:
        from numba.core import codegen

        cls = codegen.CPUCodeLibrary
        finalize: Callable[..., Any] = cls.finalize
        optimize: Callable[..., Any] = cls._optimize_final_module
        assert hasattr(cls, "_get_module_for_linking")
    except (ImportError, AttributeError, AssertionError):
        return False
    if getattr(finalize, "by_address", False):
        return True

    def finalize_by_address(self: Any) -> None:
        module = getattr(self, "_final_module", None)
        if module is not None and isinstance(getattr(self, "_reload_init", None), set):
            self._own_functions = {f.name for f in module.functions if not f.is_declaration}
        finalize(self)

    def optimize_by_address(self: Any) -> None:
        own = getattr(self, "_own_functions", None)
        if own is not None and _DISPATCHERS:
            _externalize(self, own)
        optimize(self)

    finalize_by_address.by_address = True  # type: ignore[attr-defined]
    cls.finalize = finalize_by_address  # type: ignore[method-assign]
    cls._optimize_final_module = optimize_by_address  # type: ignore[method-assign]
    return True
