"""The one place that holds the Numba options for every kernel, and where their cache lives.

Every kernel the solve thread calls releases the GIL (``nogil``) so a UI stays responsive while
it runs, and is cached on disk (``cache``) so a warm start costs a fraction of a second.
``fastmath`` stays off: the engine must match a float64 reference to 1e-10.
``inline_kernel`` marks the small helpers called once per tree node. They are not forced
inline (``inline="always"``): with the pruning and sampling paths in the traversal, forcing
it measured slower (T1: LCFR 43 against 36 ms per iteration; Leduc mixed) and compiled ~50 %
longer. ``fastmath`` flags without ``nnan``/``ninf`` (reassociation, contraction) gave
nothing either (same times within 3 %), so the options stay the same for every kernel.

**The cache is keyed on the source.** Numba keys a cached kernel on its own file: a kernel
that calls a kernel of another module (or reads a constant from one) keeps the old machine
code when only that other module changes (Numba's documentation, "Cache invalidation"; numba
issue 1833). So the cache directory is named by a hash of every source file a kernel can
depend on — the modules that define kernels and, transitively, the ``solver`` modules they
import (:func:`kernel_sources`) — and any edit there starts a fresh directory
(:func:`cache_dir`). It is set here, before the first kernel is decorated, unless the user
set ``NUMBA_CACHE_DIR`` (then that directory is used as it is, and keeping it fresh is the
user's business). Older directories of the same checkout are removed once they have been
unused for a while (:func:`_clean_old`).
"""

from __future__ import annotations

import ast
import hashlib
import os
import shutil
import tempfile
import time
from pathlib import Path

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


def _imports(path: Path, module: str, package: str) -> set[str]:
    """The ``package`` modules ``path`` (module ``module``) imports, anywhere in the file."""
    tree = ast.parse(path.read_bytes(), filename=str(path))
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
            out.add(name)
            out.update(f"{name}.{a.name}" for a in node.names)  # `from pkg import module`
    return out


def kernel_sources(root: Path = PACKAGE_ROOT) -> list[Path]:
    """The source files whose contents compiled kernels can depend on: every module under
    ``root`` that imports this module (it defines kernels), the modules those import from the
    same package, transitively, and this module itself. Sorted. (A kernel sees only the
    globals of its own module, which its imports fill: a parent package's ``__init__`` or a
    module that merely imports kernels cannot change what they compile to.)"""
    package = root.name
    files = {_module_of(p, root): p for p in root.rglob("*.py")}
    deps = {m: _imports(p, m, package) for m, p in files.items()}
    me = f"{package}.jit"
    todo = [m for m, d in deps.items() if me in d]
    seen: set[str] = {me} if me in files else set()
    while todo:
        m = todo.pop()
        if m in seen or m not in files:
            continue
        seen.add(m)
        todo.extend(deps[m])
    return sorted(files[m] for m in seen)


def source_hash(root: Path = PACKAGE_ROOT) -> str:
    """A hash of :func:`kernel_sources` (their paths relative to ``root`` and contents)."""
    h = hashlib.sha256()
    for p in kernel_sources(root):
        h.update(p.relative_to(root).as_posix().encode())
        h.update(b"\0")
        h.update(p.read_bytes())
        h.update(b"\0")
    return h.hexdigest()[:16]


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


def cache_dir(root: Path = PACKAGE_ROOT) -> Path:
    """The cache directory for the current sources: ``<base>/numba-<source hash>``."""
    return _writable_base(root) / f"{CACHE_PREFIX}{source_hash(root)}"


def _last_used(path: Path) -> float:
    newest = path.stat().st_mtime
    for p in path.rglob("*"):
        newest = max(newest, p.stat().st_mtime)
    return newest


def _clean_old(current: Path, now: float | None = None) -> list[Path]:
    """Remove this checkout's cache directories other than ``current`` that have been unused
    for :data:`STALE_AFTER_S`, keeping the :data:`KEEP_OLD` most recent. Returns those
    removed; never raises (another process may be cleaning too)."""
    now = time.time() if now is None else now
    removed: list[Path] = []
    try:
        old = [p for p in current.parent.glob(f"{CACHE_PREFIX}*") if p != current and p.is_dir()]
        dated = sorted(((_last_used(p), p) for p in old), reverse=True)
    except OSError:
        return removed
    for used, p in dated[KEEP_OLD:]:
        if now - used < STALE_AFTER_S:
            continue
        shutil.rmtree(p, ignore_errors=True)
        removed.append(p)
    return removed


def _configure_cache() -> str:
    """Point Numba at the source-keyed cache (unless the user chose a directory)."""
    user = os.environ.get("NUMBA_CACHE_DIR")
    if user:
        return user
    path = cache_dir()
    path.mkdir(parents=True, exist_ok=True)
    _clean_old(path)
    os.environ["NUMBA_CACHE_DIR"] = str(path)
    return str(path)


CACHE_DIR = _configure_cache()

# Parallel kernels from several threads at once (two app sessions solving) abort the process
# with Numba's default "workqueue" layer; "threadsafe" picks OpenMP or TBB (PLATFORM.md).
os.environ.setdefault("NUMBA_THREADING_LAYER", "threadsafe")

from numba import njit  # noqa: E402
from numba.core import config as _numba_config  # noqa: E402

# numba may have been imported before this module (reading the environment then): set it
# on its configuration too, before any kernel below is decorated
_numba_config.CACHE_DIR = CACHE_DIR  # type: ignore[attr-defined]

kernel = njit(cache=True, nogil=True, fastmath=False)
inline_kernel = njit(cache=True, nogil=True, fastmath=False)
# The helpers the walk calls at every node, inlined into it at Numba's IR level: a call
# boundary costs an atomic reference-count increment and decrement for every array argument
# (and for every array in a NamedTuple argument), which on Leduc's six hands cost more than
# the node's arithmetic.
node_kernel = njit(cache=True, nogil=True, fastmath=False, inline="always")
