"""The one place that holds the Numba options for every kernel, and where their cache lives.

Every kernel the solve thread calls releases the GIL (``nogil``) so a UI stays responsive while
it runs, and is cached on disk (``cache``) so a warm start costs a fraction of a second.
``fastmath`` stays off: the engine must match a float64 reference to 1e-10.
The helpers the walk calls at every node are ``node_kernel`` (below: why LLVM, not Numba,
inlines them). ``fastmath`` flags without ``nnan``/``ninf`` (reassociation, contraction) gave
nothing either (same times within 3 %), so the options stay the same for every kernel.

**The cache is keyed on the source, module by module.** Numba keys a cached kernel on its
own file: a kernel that calls a kernel of another module (or reads a constant from one) keeps
the old machine code when only that other module changes (Numba's documentation, "Cache
invalidation"; numba issue 1833). So each module's kernels are cached in a directory named
by a hash of the module's *import closure* — its own source and, transitively, the
``solver`` modules it imports (:func:`closure`), this one included — and an edit starts a
fresh directory for exactly the modules that depend on the edited file: an edit to the
hand evaluator leaves the walk's compiled code alone, an edit to the regret update
recompiles the walk and its driver (:func:`module_cache_dir`, a cache locator Numba asks
first). Unless the user set ``NUMBA_CACHE_DIR``: then that directory is used as it is, and
keeping it fresh is the user's business. A module's older directories are removed once they
have been unused for a while (:func:`_clean_old`).
"""

from __future__ import annotations

import ast
import contextlib
import functools
import hashlib
import importlib
import itertools
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TypeVar, cast

PACKAGE_ROOT = Path(__file__).resolve().parent
CACHE_PREFIX = "numba-"
# An older cache directory is removed only when nothing has written to it for this long: a
# process still running the old sources (an app started before the edit) may yet save there.
STALE_AFTER_S = 600.0
KEEP_OLD = 2  # and the most recent few older directories are kept whatever their age


def _module_of(path: Path, root: Path) -> str:
    rel = path.relative_to(root.parent).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def _imports(
    path: Path,
    module: str,
    package: str,
    modules: set[str] | None = None,
    source: bytes | None = None,
) -> set[str]:
    """The ``package`` modules ``path`` (module ``module``; its bytes ``source``, if already
    read) imports, anywhere in the file."""
    tree = ast.parse(path.read_bytes() if source is None else source, filename=str(path))
    out: set[str] = set()
    is_pkg = path.name == "__init__.py"
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            out.update(a.name for a in node.names if a.name.split(".")[0] == package)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = module.split(".")
                if not is_pkg:
                    base = base[:-1]
                base = base[: len(base) - (node.level - 1)]
                name = ".".join([*base, node.module] if node.module else base)
            else:
                name = node.module or ""
            if name.split(".")[0] != package:
                continue
            subs = {f"{name}.{a.name}" for a in node.names}  # `from pkg import module`
            out.update(subs)
            # a package's __init__ only when a name comes from it, not for its modules
            if modules is None or not subs <= modules:
                out.add(name)
    return out


GRAPH_MEMO = "imports.json"  # under cache_root: the last import graph and its sources' hash


def _graph(root: Path) -> tuple[dict[str, Path], dict[str, set[str]]]:
    """Every module under ``root`` (name → file) and the package modules each imports.

    Parsing every module is most of a bare ``import solver`` and every process that loads a
    kernel needs the graph, so it is kept beside the cache keyed by a hash of every file's
    name and bytes (:data:`GRAPH_MEMO`); any edit re-parses."""
    package = root.name
    files = {_module_of(p, root): p for p in root.rglob("*.py")}
    sources = {m: p.read_bytes() for m, p in files.items()}
    h = hashlib.sha256()
    for m in sorted(sources):
        h.update(m.encode() + b"\0" + sources[m] + b"\0")
    key = h.hexdigest()
    deps = _read_graph(root, key, set(files))
    if deps is None:
        names = set(files)
        deps = {m: _imports(p, m, package, names, sources[m]) for m, p in files.items()}
        _write_graph(root, key, deps)
    return files, deps


def _read_graph(root: Path, key: str, modules: set[str]) -> dict[str, set[str]] | None:
    """The memo's graph if it was made from these sources, else None (missing, stale,
    unreadable or not the shape written)."""
    try:
        data = json.loads((cache_root(root) / GRAPH_MEMO).read_text())
        if data["key"] != key or set(data["deps"]) != modules:
            return None
        raw = data["deps"]
        if not all(
            isinstance(d, list) and all(isinstance(x, str) for x in d) for d in raw.values()
        ):
            return None
        return {m: set(d) for m, d in raw.items()}
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return None


def _write_graph(root: Path, key: str, deps: dict[str, set[str]]) -> None:
    """Save the memo atomically (a reader sees the old file or the new one); never raises."""
    try:
        base = cache_root(root)
        base.mkdir(parents=True, exist_ok=True)
        text = json.dumps({"key": key, "deps": {m: sorted(d) for m, d in sorted(deps.items())}})
        fd, tmp = tempfile.mkstemp(dir=base, prefix=".imports-")
        with os.fdopen(fd, "w") as f:
            f.write(text)
        os.chmod(tmp, 0o644)  # (mkstemp's 0600: the cache's other files are readable)
        os.replace(tmp, base / GRAPH_MEMO)
    except OSError:
        pass


def _closure_of(start: list[str], files: dict[str, Path], deps: dict[str, set[str]]) -> set[str]:
    seen: set[str] = set()
    todo = list(start)
    while todo:
        m = todo.pop()
        if m in seen or m not in files:
            continue
        seen.add(m)
        todo.extend(deps[m])
    return seen


def closure(
    module: str,
    root: Path = PACKAGE_ROOT,
    graph: tuple[dict[str, Path], dict[str, set[str]]] | None = None,
) -> list[Path]:
    """The source files a kernel of ``module`` (``solver.cfr.walk``) can depend on: its own,
    the package modules it imports, transitively, and this module. Sorted. (A kernel sees
    only the globals of its own module, which its imports fill: a parent package's
    ``__init__`` or a module that merely imports kernels cannot change what they compile
    to.)"""
    files, deps = graph or _graph(root)
    me = f"{root.name}.jit"
    return sorted(files[m] for m in _closure_of([module, me], files, deps))


def kernel_sources(root: Path = PACKAGE_ROOT) -> list[Path]:
    """The union of :func:`closure` over every module that defines kernels (imports this
    one): every source whose contents compiled kernels can depend on. Sorted."""
    files, deps = _graph(root)
    me = f"{root.name}.jit"
    users = [m for m, d in deps.items() if me in d]
    return sorted(files[m] for m in _closure_of([*users, me], files, deps))


def _hash_files(paths: list[Path], root: Path) -> str:
    h = hashlib.sha256()
    for p in paths:
        h.update(p.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


def source_hash(root: Path = PACKAGE_ROOT) -> str:
    """A hash of :func:`kernel_sources` (their paths relative to ``root`` and contents)."""
    return _hash_files(kernel_sources(root), root)


def module_hash(
    module: str,
    root: Path = PACKAGE_ROOT,
    graph: tuple[dict[str, Path], dict[str, set[str]]] | None = None,
) -> str:
    """A hash of ``module``'s :func:`closure` (``graph``: :func:`_graph` of ``root``, if
    already read)."""
    return _hash_files(closure(module, root, graph), root)


def _writable_base(root: Path) -> Path:
    """Where this checkout's cache directories live: the package's own ``__pycache__``, or a
    per-checkout folder under the user's cache when the package is read-only."""
    base = root / "__pycache__"
    try:
        base.mkdir(exist_ok=True)
        with tempfile.NamedTemporaryFile(dir=base, prefix=".probe-"):
            return base
    except OSError:
        tag = hashlib.sha256(str(root).encode()).hexdigest()[:12]
        home = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
        return home / "regret-lab" / f"{root.name}-{tag}"


def cache_root(root: Path = PACKAGE_ROOT) -> Path:
    """Where this checkout's kernel cache lives: one directory per module and closure hash
    below it (:func:`module_cache_dir`)."""
    return _writable_base(root) / "kernels"


def module_cache_dir(
    module: str,
    root: Path = PACKAGE_ROOT,
    graph: tuple[dict[str, Path], dict[str, set[str]]] | None = None,
) -> Path:
    """The cache directory of ``module``'s kernels for the current sources:
    ``<cache root>/<module>-<closure hash>``."""
    return cache_root(root) / f"{module}-{module_hash(module, root, graph)}"


def cache_dir(root: Path = PACKAGE_ROOT) -> Path:
    """Where the cache's bookkeeping lives (the warm-up's stamp): :func:`cache_root`."""
    return cache_root(root)


def _last_used(path: Path) -> float:
    newest = path.stat().st_mtime
    for p in path.rglob("*"):
        newest = max(newest, p.stat().st_mtime)
    return newest


def _clean_old(current: Path, now: float | None = None, prefix: str = CACHE_PREFIX) -> list[Path]:
    """Remove the directories beside ``current`` whose names start with ``prefix`` (a
    module's older closure hashes) that have been unused for :data:`STALE_AFTER_S`,
    keeping the :data:`KEEP_OLD` most recent. Returns those removed; never raises (another
    process may be cleaning too)."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        old = [p for p in current.parent.glob(f"{prefix}*") if p != current and p.is_dir()]
        dated = sorted(((_last_used(p), p) for p in old), reverse=True)
    except OSError:
        return removed
    for used, p in dated[KEEP_OLD:]:
        if now - used < STALE_AFTER_S:
            continue
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
    return removed


_MODULE_DIRS: dict[str, Path] = {}
_GRAPH: list[tuple[dict[str, Path], dict[str, set[str]]]] = []  # the package's, read once


def _module_dir(py_file: str) -> Path | None:
    """The cache directory for the kernels of ``py_file`` if it is one of the package's
    modules (made, and its module's stale older directories cleaned, on first use)."""
    try:
        path = Path(py_file).resolve()
        path.relative_to(PACKAGE_ROOT)
    except (OSError, ValueError):
        return None
    module = _module_of(path, PACKAGE_ROOT)
    found = _MODULE_DIRS.get(module)
    if found is None:
        if not _GRAPH:
            _GRAPH.append(_graph(PACKAGE_ROOT))
        found = module_cache_dir(module, PACKAGE_ROOT, _GRAPH[0])
        found.mkdir(parents=True, exist_ok=True)
        _clean_old(found, prefix=f"{module}-")
        _MODULE_DIRS[module] = found
    return found


def _install_locator() -> None:
    """Put a cache locator in front of Numba's own that files each package module's kernels
    under :func:`module_cache_dir`."""
    from numba.core import caching

    class ClosureKeyedLocator(caching.UserProvidedCacheLocator):
        def __init__(self, py_func: object, py_file: str) -> None:
            self._py_file = py_file
            self._lineno = py_func.__code__.co_firstlineno  # type: ignore[attr-defined]
            found = _module_dir(py_file)
            assert found is not None
            self._cache_path = str(found)

        @classmethod
        def from_function(cls, py_func: object, py_file: str) -> object:
            if _module_dir(py_file) is None:
                return None
            return super(caching.UserProvidedCacheLocator, cls).from_function(py_func, py_file)

    classes = caching.CacheImpl._locator_classes
    if not any(c.__name__ == ClosureKeyedLocator.__name__ for c in classes):
        classes.insert(0, ClosureKeyedLocator)


@contextlib.contextmanager
def _exclusive(path: str) -> Iterator[None]:
    """An exclusive lock on ``path`` (made if missing) across processes, for the block."""
    try:
        import fcntl
    except ImportError:  # (not a POSIX system: no lock)
        yield
        return
    with open(path, "a+b") as f:
        fcntl.flock(f, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(f, fcntl.LOCK_UN)


def _lock_cache_saves() -> None:
    """Make Numba's saving of a cached kernel safe against other processes saving the same
    kernel at once (the warm-up's parallel groups, the app's warm-up beside a solve, Dask's
    workers). Numba reads the kernel's index, adds its signature and writes the index back
    with no lock: of two processes saving two signatures together, one's is lost (and both
    may pick the same data file name). Here the read-modify-write holds a lock beside the
    index, and the data file is written before the index names it."""
    from numba.core import caching

    cls = caching.IndexDataCacheFile
    if getattr(cls.save, "locked", False):
        return

    def save(self: Any, key: object, data: object) -> None:
        with _exclusive(self._index_path + ".lock"):
            overloads = self._load_index()
            name = overloads.get(key)
            if name is None:
                taken = set(overloads.values())
                name = next(n for i in itertools.count(1) if (n := self._data_name(i)) not in taken)
            self._save_data(name, data)
            overloads[key] = name
            self._save_index(overloads)

    save.locked = True  # type: ignore[attr-defined]
    cls.save = save  # type: ignore[method-assign]


def _configure_cache() -> str:
    """Point Numba at the closure-keyed cache (unless the user chose a directory); returns
    the directory that holds the cache's bookkeeping."""
    _lock_cache_saves()
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        return user
    root = cache_root()
    root.mkdir(parents=True, exist_ok=True)
    # the directories of the earlier layout (one hash over every kernel source)
    for old in root.parent.glob(f"{CACHE_PREFIX}*"):
        if time.time() - _last_used(old) > STALE_AFTER_S:
            shutil.rmtree(old, ignore_errors=True)
    _install_locator()
    return str(root)


# ----- kernels called by address ---------------------------------------------------------------
# Big callees compiled once, on their own, never again inside a caller. Numba links a callee's
# optimised LLVM IR into every kernel that calls it and LLVM optimises and compiles the whole
# module again, so a big callee's machine code is made once on its own and once more per
# caller; in the walk's driver (compiled alone on one core while a cold first solve waits)
# the callees LLVM does not inline were about a quarter of its LLVM work. A ``called_kernel``
# is instead left a declaration in its callers' modules (:func:`_externalize`, before LLVM
# optimises them), and the caller's machine code calls the callee's own by its symbol. The
# symbol must resolve wherever the caller's code is loaded, also from Numba's cache in a new
# process where nothing loaded the callee yet: the caller's library keeps a reload hook
# (Numba runs a library's ``_reload_init`` callables before it loads the cached object code,
# ``CompileResult._rebuild``) that compiles or loads each callee signature and maps the
# symbol the caller was built against to its address (:func:`bind`: a callee loaded from an
# entry another process wrote may carry another name for the same code). If Numba's
# internals are not as expected, nothing is installed and callees are linked as Numba does.

_BY_ADDRESS: list[Any] = []  # every called_kernel's dispatcher
_DEFINE = re.compile(r'^define (?:[a-z_]+ )*?[^@]*@"?([^"(]+)"?\(')


def _register(disp: Any) -> None:
    """Call ``disp`` (a Numba dispatcher of a module-level function) by address from every
    kernel that calls it."""
    _BY_ADDRESS.append(disp)


def _signatures() -> dict[str, tuple[str, str, tuple]]:
    """The llvm name of each compiled signature of the registered kernels → its kernel's
    module, name and argument types."""
    out: dict[str, tuple[str, str, tuple]] = {}
    for disp in _BY_ADDRESS:
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


def _install_by_address() -> bool:
    """Hook Numba's CPU code library so that every library leaves the registered kernels it
    links in as declarations (:func:`_externalize`), and a library loaded from the cache
    keeps its reload hooks. Returns whether it is installed."""
    try:
        from numba.core import codegen, compiler

        cls = codegen.CPUCodeLibrary
        finalize: Callable[..., Any] = cls.finalize
        optimize: Callable[..., Any] = cls._optimize_final_module
        assert hasattr(cls, "_get_module_for_linking")
        rebuild: Callable[..., Any] = compiler.CompileResult.__dict__["_rebuild"].__func__
    except (ImportError, AttributeError, AssertionError, KeyError):
        return False
    if getattr(finalize, "by_address", False):
        return True

    # A caller inherits the reload hooks of the libraries it links (Numba's finalize), but a
    # library rebuilt from the cache starts with none (Numba keeps them on the compile
    # result). A node_kernel that calls a called_kernel declares the callee; loaded from the
    # cache and inlined into a caller compiled now, it would leave that caller's cached code
    # with a symbol no hook binds in the next process. So the rebuilt library gets them back.
    def rebuild_keeping_hooks(klass: Any, target_context: Any, *payload: Any) -> Any:
        cres = rebuild(klass, target_context, *payload)
        hooks = getattr(cres, "reload_init", None)
        if hooks and isinstance(getattr(cres.library, "_reload_init", None), set):
            cres.library._reload_init.update(hooks)
        return cres

    def finalize_by_address(self: Any) -> None:
        module = getattr(self, "_final_module", None)
        if module is not None and isinstance(getattr(self, "_reload_init", None), set):
            self._own_functions = {f.name for f in module.functions if not f.is_declaration}
        finalize(self)

    def optimize_by_address(self: Any) -> None:
        own = getattr(self, "_own_functions", None)
        if own is not None and _BY_ADDRESS:
            _externalize(self, own)
        optimize(self)

    finalize_by_address.by_address = True  # type: ignore[attr-defined]
    cls.finalize = finalize_by_address  # type: ignore[method-assign]
    cls._optimize_final_module = optimize_by_address  # type: ignore[method-assign]
    compiler.CompileResult._rebuild = classmethod(rebuild_keeping_hooks)  # type: ignore[assignment,method-assign]
    return True


CACHE_DIR = _configure_cache()

# Parallel kernels from several threads at once (two app sessions solving) abort the process
# with Numba's default "workqueue" layer; "threadsafe" picks OpenMP or TBB (Numba's
# documentation, "The Threading Layers").
os.environ.setdefault("NUMBA_THREADING_LAYER", "threadsafe")

from numba import njit, types  # noqa: E402

_install_by_address()

F = TypeVar("F", bound=Callable[..., Any])


_KERNELS_ONLY: dict[type, type] = {}


def _kernels_only_class(base: type) -> type:
    """A subclass of Numba's dispatcher class ``base`` for kernels compiled without a CPython
    wrapper: Numba would call a null entry from Python (a segmentation fault), so the call
    raises instead. Kernels still call it (their calls are typed and linked, never made
    through ``__call__``)."""

    def __call__(self: Any, *args: Any, **kws: Any) -> Any:
        py = self.py_func
        raise TypeError(
            f"{py.__module__}.{py.__qualname__} is compiled only for kernels to call "
            "(solver.jit: node_kernel, called_kernel): call it from a kernel, or declare it "
            "with the kind's _py variant (node_kernel_py, called_kernel_py)"
        )

    if base not in _KERNELS_ONLY:
        _KERNELS_ONLY[base] = type("KernelsOnly" + base.__name__, (base,), {"__call__": __call__})
    return _KERNELS_ONLY[base]


def _typed_by_kind(options: dict[str, Any], by_address: bool = False) -> Callable[[F], F]:
    """``njit(**options)`` whose kernels compile for the kinds of their arguments, never for
    a constant's value: a call from another kernel with a literal (``f(x, 0)``) would
    otherwise compile a second signature (``Literal[int](0)`` beside ``int64``) of the
    callee and of everything it calls with it."""
    decorate = njit(**options)
    kernels_only = bool(options.get("no_cpython_wrapper"))

    def wrap(fn: F) -> F:
        disp = decorate(fn)
        if kernels_only:
            disp.__class__ = _kernels_only_class(type(disp))
        resolve = disp.get_call_template

        def get_call_template(args: tuple, kws: dict) -> Any:
            args = tuple(types.unliteral(a) for a in args)
            return resolve(args, {k: types.unliteral(v) for k, v in kws.items()})

        disp.get_call_template = get_call_template
        if by_address:
            _register(disp)
        return cast(F, disp)

    return wrap


# No kernel is used as a C function pointer (callees by address take the internal entry:
# :func:`bind`), so none gets the C-callable wrapper Numba would optimise and compile for it.
_OPTIONS: dict[str, Any] = {
    "cache": True, "nogil": True, "fastmath": False, "no_cfunc_wrapper": True
}  # fmt: skip
kernel = _typed_by_kind(_OPTIONS)
# The helpers the walk calls at every node: kernels of their own, typed once per signature,
# that LLVM always inlines into the walk (``forceinline``). Inlining them at Numba's IR level
# instead ran the walk's type inference over every copy (~3x the walk's compile time), and
# leaving the inlining to LLVM's judgement measured 8-15 % slower per T1 iteration. Only
# kernels call them, so they get no CPython wrapper either (each was a standalone function
# unboxing every array of its tuples, optimised and compiled for nothing: BENCHMARKS.md,
# "Compile time"); a call from Python raises (:func:`_kernels_only_class`). The few Python
# calls (tests, the warm-up's ``parts``) are ``node_kernel_py``'s.
node_kernel = _typed_by_kind({**_OPTIONS, "forceinline": True, "no_cpython_wrapper": True})
node_kernel_py = _typed_by_kind({**_OPTIONS, "forceinline": True})
# Big helpers called at a few places per node: compiled once on their own and called by
# address from every kernel, never compiled again inside a caller's module (:func:`_externalize`):
# the walk's driver compiles alone while a cold first solve waits. Kernels call them at their
# own entry, so they get no CPython wrapper either, but for ``called_kernel_py``'s (the fold's
# public entry, which the warm-up and tests call from Python).
called_kernel = _typed_by_kind({**_OPTIONS, "no_cpython_wrapper": True}, by_address=True)
called_kernel_py = _typed_by_kind(_OPTIONS, by_address=True)
# A kernel Python calls and no kernel does (the walk's driver; its C-callable wrapper was
# ~1,150 LLVM instructions to optimise and compile again, before no kernel had one).
entry_kernel = kernel
# Inlined at Numba's IR level: the walk into its one caller (solver.cfr.drive), which would
# otherwise compile it twice, once on its own and once again linked into the caller.
ir_inline = _typed_by_kind({**_OPTIONS, "inline": "always"})
