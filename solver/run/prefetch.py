"""A cold first solve's kernels compiled from both ends, one process per core.

Numba compiles in one thread, and a first solve on a fresh install spends most of its wait
typing the walk's driver (``solver.cfr.drive.drive``), which compiles each kernel the walk
calls as it meets it, then optimising the driver itself. The callees are independent of one
another, so a second process can compile them into the shared on-disk cache from the other
end of the list while the solve works through it from the front: when the solve reaches a
callee the helper has saved it loads it, and when the helper reaches one the solve has saved
it goes on to the next stage. The driver's own compile cannot be split.

A plan lists one kind of storage's first solve: its stages — per signature of the driver
(float64 storage: one; float32: its passes, then its float64 checks), the kernels compiled
from the end of the previous stage until the driver is typed, in that order — then the
kernels compiled after the last (``after``: checks, EVs, Explore's first view), which the
helper compiles while the solve optimises the driver. Each step keeps Numba's argument types
(pickled) and their spelling. ``solver/data/prefetch_float64.json`` is recorded from the
``opening`` warm-up group, ``prefetch_float32.json`` from a first solve of ``srp-turn``, both
from an empty cache (``python -m solver.run.prefetch --write``). A plan that no longer matches
the sources costs only the second core's time: a signature nothing asks for is compiled in
vain, and a new callee is compiled by the solve itself; tests/test_prefetch.py (on the warm
cache the test command makes) fails until the plans are written again.

Started by the CLI's ``solve`` and ``race`` for the storage they solve in, and by the app's
background warm-up beside ``opening``, when the plan's drivers are not all in the cache. It
ends with its parent (the kernel's parent-death signal: :func:`die_with_parent`), passes
over kernels an earlier run cached, and reads a plan as untrusted: kernels of
:data:`KERNEL_MODULES` only, types through :mod:`solver.files.safe_types`. It keeps the
solve's priority: the app's opening group waits on it (niced, it measured slower there),
and it is done before a first solve's iterations start.
``REGRET_LAB_PREFETCH=0`` turns it off.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import importlib
import json
import os
import pickle
import subprocess
import sys
import tempfile
import warnings
from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any, NamedTuple, TypeVar

from solver.files import safe_types

DATA = Path(__file__).resolve().parents[1] / "data"
PLANS = {"float64": DATA / "prefetch_float64.json", "float32": DATA / "prefetch_float32.json"}
PLAN = PLANS["float64"]  # the opening preset's
PLAN_FORMAT = 2


class Step(NamedTuple):
    """One kernel signature: the kernel's module and name, Numba's argument types, and their
    spelling (for people, and for the check that the types unpickled as they were)."""

    module: str
    name: str
    signature: str
    types: tuple[Any, ...]

    @property
    def kernel(self) -> str:
        """The kernel's dotted name, for messages."""
        return f"{self.module}.{self.name}"

    def dispatcher(self) -> Any | None:
        """The kernel's Numba dispatcher, or None when the sources no longer have it."""
        try:
            disp = getattr(importlib.import_module(self.module), self.name)
        except (ImportError, AttributeError):
            return None
        return disp if hasattr(disp, "overloads") and hasattr(disp, "_cache") else None


class Stage(NamedTuple):
    """One signature of the driver, and the kernels compiled (in that order) from the end
    of the previous stage until it is typed: its callees, and anything the solve compiles
    on the way."""

    entry: Step
    callees: list[Step]


class Plan(NamedTuple):
    """A first solve's compiles: its stages, then the kernels compiled after them."""

    stages: list[Stage]
    after: list[Step]

    def steps(self) -> list[Step]:
        """Every step, stage by stage (callees, then the driver), then ``after``."""
        return [x for st in self.stages for x in (*st.callees, st.entry)] + self.after


def spell(types: tuple[Any, ...]) -> str:
    """Numba's spelling of argument types, as its compile events and messages give them."""
    return ", ".join(str(t) for t in types)


def _step_json(s: Step) -> dict[str, str]:
    blob = base64.b64encode(pickle.dumps(s.types, protocol=4)).decode("ascii")
    return {"kernel": s.module + ":" + s.name, "signature": s.signature, "types": blob}


KERNEL_MODULES = frozenset(
    {
        "solver.cfr.chance",
        "solver.cfr.decision",
        "solver.cfr.drive",
        "solver.cfr.locks",
        "solver.cfr.multi",
        "solver.cfr.parallel",
        "solver.cfr.pruning.bounds",
        "solver.cfr.pruning.kernels",
        "solver.cfr.pruning.state",
        "solver.cfr.reach",
        "solver.cfr.sampling.draws",
        "solver.cfr.sampling.multi_es",
        "solver.cfr.sampling.walk",
        "solver.cfr.showdown3_terminal",
        "solver.cfr.toy3_terminal",
        "solver.cfr.sync",
        "solver.cfr.tasks",
        "solver.cfr.terminal",
        "solver.cfr.update",
        "solver.cfr.walk",
        "solver.games.holdem",
        "solver.poker.handeval",
        "solver.poker.preflop_equity",
    }
)
"""The modules a plan's steps may name: those of the solver's floors (poker, games, cfr)
that define kernels (import :mod:`solver.jit`; tests/test_prefetch.py checks the list
against the sources). Nothing else is imported for a plan."""
ARGUMENT_MODULES = KERNEL_MODULES | {"solver.cfr.layout", "solver.games.model"}
"""Where the NamedTuple classes of the kernels' arguments live."""
MAX_PLAN_BYTES = 4 * 1024 * 1024
"""Largest plan file read (the plans take under 200 kB)."""
MAX_STEPS = 2_000
"""Most steps a plan may list (the plans list under 200)."""


class PlanError(ValueError):
    """A plan refused: the message says what."""


def _step(d: Any, kernels: Collection[str]) -> Step:
    if not isinstance(d, dict) or not all(isinstance(d.get(k), str) for k in _FIELDS):
        raise PlanError(f"a step is not {{{', '.join(_FIELDS)}: text}}")
    module, _, name = d["kernel"].partition(":")
    if module not in kernels or not name.isidentifier():
        raise PlanError(f"kernel {d['kernel'][:80]!r}: not one of the solver's kernels")
    try:
        blob = base64.b64decode(d["types"], validate=True)
    except ValueError:
        raise PlanError(f"{module}.{name}: types are not base64") from None
    try:
        types = safe_types.load_types(blob, ARGUMENT_MODULES | set(kernels))
    except safe_types.TypesError as exc:
        raise PlanError(f"{module}.{name}: {exc}") from None
    return Step(module, name, d["signature"], types)


_FIELDS = ("kernel", "signature", "types")


def _read_raw(path: Path) -> dict[str, Any]:
    """The plan file's JSON, its shape and size checked (nothing imported or unpickled)."""
    if not path.is_file():  # a FIFO would block the read
        raise PlanError(f"{path}: not a regular file")
    if path.stat().st_size > MAX_PLAN_BYTES:
        raise PlanError(f"{path}: over {MAX_PLAN_BYTES} bytes")
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
    except (ValueError, RecursionError) as exc:
        raise PlanError(f"{path}: not JSON ({exc})") from None
    if not isinstance(raw, dict) or raw.get("format") != PLAN_FORMAT:
        raise PlanError(f"{path}: not a plan of format {PLAN_FORMAT}")
    stages, after = raw.get("stages"), raw.get("after")
    if not isinstance(stages, list) or not isinstance(after, list):
        raise PlanError(f"{path}: no stages or no after")
    if not all(isinstance(d, dict) and isinstance(d.get("callees"), list) for d in stages):
        raise PlanError(f"{path}: a stage is not {{entry, callees}}")
    if len(after) + sum(1 + len(d["callees"]) for d in stages) > MAX_STEPS:
        raise PlanError(f"{path}: more than {MAX_STEPS} steps")
    return raw


def read_plan(path: Path = PLAN, kernels: Collection[str] = KERNEL_MODULES) -> Plan:
    """The plan at ``path``, its steps' kernels in ``kernels`` (checked before anything is
    imported) and their types read by :func:`solver.files.safe_types.load_types`.
    :class:`PlanError` (or OSError) when refused."""
    raw = _read_raw(path)
    return Plan(
        [
            Stage(_step(d.get("entry"), kernels), [_step(c, kernels) for c in d["callees"]])
            for d in raw["stages"]
        ],
        [_step(d, kernels) for d in raw["after"]],
    )


def read_entries(path: Path = PLAN, kernels: Collection[str] = KERNEL_MODULES) -> list[Step]:
    """Only the stages' entries of the plan at ``path``, read as :func:`read_plan` reads
    them: enough to tell whether a helper has anything to do, without reading the callees'
    types (most of a plan, and of a warm solve's start)."""
    raw = _read_raw(path)
    return [_step(d.get("entry"), kernels) for d in raw["stages"]]


def load_plan(path: Path = PLAN, kernels: Collection[str] = KERNEL_MODULES) -> Plan | None:
    """The plan at ``path`` (:func:`read_plan`), or None when there is none or it is refused:
    then there is no helper, and nothing else changes. A plan that exists but is refused
    says why in a :class:`RuntimeWarning`; no error of a plan's escapes."""
    return _refused_is_none(read_plan, path, kernels)


T = TypeVar("T")


def _refused_is_none(read: Callable[[Path, Collection[str]], T], path: Path,
                     kernels: Collection[str]) -> T | None:  # fmt: skip
    try:
        return read(path, kernels)
    except KeyboardInterrupt:
        raise
    except BaseException as exc:  # SystemExit too: a bad plan means no helper, never an end
        if path.exists():
            warnings.warn(f"prefetch plan not used: {exc}", RuntimeWarning, stacklevel=3)
        return None


def write_plan(plan: Plan, path: Path = PLAN) -> None:
    """Write ``plan`` to ``path`` (JSON; each step's types pickled, base64)."""
    import numba

    raw = {
        "format": PLAN_FORMAT,
        "about": "A first solve's compiles, for solver/run/prefetch.py. Written by "
        "`python -m solver.run.prefetch --write`; do not edit.",
        "numba": numba.__version__,
        "stages": [
            {"entry": _step_json(st.entry), "callees": [_step_json(c) for c in st.callees]}
            for st in plan.stages
        ],
        "after": [_step_json(s) for s in plan.after],
    }
    path.write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")


ENTRY = ("solver.cfr.drive", "drive")


def record(
    run: Callable[[], None], entry: tuple[str, str] = ENTRY, package: str = "solver."
) -> Plan:
    """Run ``run`` (in a cold cache, or nothing is compiled) and return its compiles as a
    plan: a stage per signature of ``entry`` (module, name) compiled, in order; the kernels
    of ``package`` only (Numba's internal overloads compile inside them)."""
    from numba.core import event

    started: list[tuple[str, str, tuple[Any, ...]]] = []
    ends: list[int] = []  # per start: len(started) when its compile ended
    open_: list[int] = []

    class Listener(event.Listener):
        def on_start(self, ev: event.Event) -> None:
            py = ev.data["dispatcher"].py_func
            open_.append(len(started))
            started.append((py.__module__, py.__qualname__, tuple(ev.data["args"])))
            ends.append(-1)

        def on_end(self, ev: event.Event) -> None:
            ends[open_.pop()] = len(started)

    listener = Listener()
    event.register("numba:compile", listener)
    try:
        run()
    finally:
        event.unregister("numba:compile", listener)
    drives = [i for i, s in enumerate(started) if s[:2] == entry]
    if not drives:
        raise RuntimeError(f"{entry} did not compile (a warm cache?)")

    def ours(i: int) -> bool:
        module, name = started[i][:2]
        return module.startswith(package) and "<locals>" not in name and i not in drives

    def step(i: int) -> Step:
        module, name, types = started[i]
        return Step(module, name, spell(types), types)

    stages = []
    begin = 0
    for at in drives:
        stages.append(Stage(step(at), [step(i) for i in range(begin, ends[at]) if ours(i)]))
        begin = ends[at]
    return Plan(stages, [step(i) for i in range(begin, len(started)) if ours(i)])


def is_cached(disp: Any, types: tuple[Any, ...]) -> bool:
    """Whether Numba's on-disk cache holds ``disp`` for ``types`` (its index read afresh,
    nothing loaded). Numba's cache index: internal, so any surprise reads as not cached."""
    try:
        cache = disp._cache
        key = cache._index_key(types, disp.targetctx.codegen())
        return key in cache._cache_file._load_index()
    except Exception:  # an unreadable index: try compiling
        return False


def compile_from_the_end(plan: Plan, log: Callable[[str], None] | None = None) -> int:
    """The helper's work: each stage's kernels from the last backwards until one is in the
    cache that was not there when it began and that this process did not put there (the
    solve got that far), then the kernels compiled after the stages, in order; what was
    cached before it began (an earlier run's, another plan's) is passed over. Returns how
    many kernels it compiled itself."""
    compiled = 0
    before = {id(s) for s in plan.steps() if _cached(s)}

    def compile_step(s: Step) -> bool | None:
        """True: compiled here; False: nothing to do; None: cached by the solve meanwhile."""
        nonlocal compiled
        disp = s.dispatcher()
        if disp is None or s.types in disp.overloads or id(s) in before:
            return False
        if is_cached(disp, s.types):
            return None
        try:
            disp.compile(s.types)
        except Exception as exc:  # a stale step: the solve compiles its own
            if log is not None:
                log(f"{s.kernel}: {exc}")
            return False
        compiled += 1
        return True

    for stage in plan.stages:
        for s in reversed(stage.callees):
            if compile_step(s) is None:
                if log is not None:
                    log(f"met the solve at {s.kernel}")
                break
    for s in plan.after:
        compile_step(s)
    return compiled


def _cached(s: Step) -> bool:
    disp = s.dispatcher()
    return disp is not None and is_cached(disp, s.types)


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))  # the cores this process may use (a container's)
    except AttributeError:
        return os.cpu_count() or 1


def enabled() -> bool:
    """Whether a helper may run: not turned off, a second core, and a lock for the cache's
    index (two processes save into it at once; without ``fcntl`` :mod:`solver.jit` has none)."""
    try:
        import fcntl  # noqa: F401
    except ImportError:
        return False
    return os.environ.get("REGRET_LAB_PREFETCH") != "0" and _cores() > 1


RBP = ("interval", "total")


def plan_for(precision: str | None, sampled: bool = False, pruning: str = "") -> Path | None:
    """The plan for a solve whose storage is ``precision`` (resolved, not "auto"), or None:
    none for 16-bit storage, a sampled rule (a walk of its own), or regret-based pruning over
    float32 storage (a float64 walk: the plan's first stage would be compiled in vain)."""
    if sampled or precision is None or (precision == "float32" and pruning in RBP):
        return None
    return PLANS.get(precision)


def start(path: Path = PLAN) -> subprocess.Popen[bytes] | None:
    """Start the helper (``python -m solver.run.prefetch --plan path``) when one of the plan's
    driver signatures is not in the cache; None when there is nothing to do."""
    if not enabled():
        return None
    entries = _refused_is_none(read_entries, path, KERNEL_MODULES)
    if entries is None:
        return None
    cold = False
    for entry in entries:
        disp = entry.dispatcher()
        if disp is None:
            return None
        cold = cold or not is_cached(disp, entry.types)
    if not cold or load_plan(path) is None:  # the whole plan checked before a helper runs it
        return None
    try:
        cmd = ["-m", "solver.run.prefetch", "--plan", str(path), "--parent", str(os.getpid())]
        return subprocess.Popen(
            [sys.executable, *cmd],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    """End the helper. A stop mid-save leaves no partial entry (Numba saves by rename), at
    worst a stray temporary file of that save in the cache directory."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


class Helper:
    """The helper of one command: :meth:`use` (re)starts it for the storage the solve turns
    out to use, once that is known (a guess before the game is built saves a second)."""

    def __init__(self) -> None:
        self.plan: Path | None = None
        self.proc: subprocess.Popen[bytes] | None = None

    def use(self, precision: str | None, sampled: bool = False, pruning: str = "") -> None:
        """Have the helper follow the plan for this solve (:func:`plan_for`): the one
        running already, another (the old helper stopped), or none."""
        plan = plan_for(precision, sampled, pruning)
        if plan == self.plan:
            return
        self.stop()
        self.plan = plan
        self.proc = start(plan) if plan is not None else None

    def stop(self) -> None:
        """End the helper, if one runs."""
        stop(self.proc)
        self.proc = None


@contextlib.contextmanager
def helping(precision: str | None = None) -> Iterator[Helper]:
    """A helper for the block, started for ``precision`` storage (None: none yet)."""
    helper = Helper()
    try:
        helper.use(precision)
        yield helper
    finally:
        helper.stop()


def _record(kind: str, out: Path) -> None:
    """Record the plan for ``kind`` storage: the opening warm-up group (float64), or a
    first solve of the turn preset as the CLI runs it (float32)."""
    from solver.run import warmup

    if kind == "float64":
        write_plan(record(lambda: warmup.run_group("opening")), out)
        return

    def turn() -> None:
        from solver.api import solve
        from solver.files.presets import load_preset

        solve(load_preset("srp-turn").build(), iterations=2, check_every=1)

    write_plan(record(turn), out)


PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent(parent: int | None = None) -> str:
    """End this process when its parent ends, however it ends (SIGKILL included).

    On Linux the kernel does it: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` — a thread watching
    the parent cannot run while a long call holds the GIL. The signal follows the *thread*
    that started this process, so :func:`start` is called from one that outlives the helper
    (the CLI's main thread; the app's warm-up thread, which also stops it). A parent gone
    before the call (re-parented: ``getppid`` differs from ``parent``) ends it at once.
    Elsewhere, :func:`solver.run.warmup.exit_with_parent`'s watching thread. Returns which
    ("prctl" or "thread")."""
    if parent is None:
        parent = os.getppid()
    how = "thread"
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            import signal

            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0:
                how = "prctl"
        except (OSError, AttributeError):  # no prctl in this libc: the thread below
            pass
    if os.getppid() != parent:
        os._exit(1)
    if how == "thread":
        from solver.run.warmup import exit_with_parent

        exit_with_parent(parent=parent)
    return how


def main(argv: list[str] | None = None) -> int:
    """``python -m solver.run.prefetch``: be the helper (``--plan``); ``--write``: record the
    plans again, each from an empty cache (a minute or two of one core)."""
    parser = argparse.ArgumentParser(prog="python -m solver.run.prefetch", description=__doc__)
    parser.add_argument("--plan", type=Path, default=PLAN, help="the plan to follow")
    parser.add_argument("--write", action="store_true", help="record the plans again")
    parser.add_argument("--record", nargs=2, help=argparse.SUPPRESS)  # --write's child
    parser.add_argument("--verbose", action="store_true", help="say where the helper stopped")
    parser.add_argument("--parent", type=int, help="end when this process has ended")
    args = parser.parse_args(argv)
    if args.record is not None:
        _record(args.record[0], Path(args.record[1]))
        return 0
    if args.write:
        for kind, path in PLANS.items():
            with tempfile.TemporaryDirectory(prefix="regret-lab-plan-") as cache:
                env = {**os.environ, "NUMBA_CACHE_DIR": cache, "REGRET_LAB_PREFETCH": "0"}
                cmd = [sys.executable, "-m", "solver.run.prefetch", "--record", kind, str(path)]
                subprocess.run(cmd, env=env, check=True)
            print(f"wrote {path}")
        return 0
    die_with_parent(args.parent)
    plan = load_plan(args.plan)
    if plan is None:
        return 1

    def log(msg: str) -> None:
        if args.verbose:
            print(f"prefetch: {msg}", file=sys.stderr, flush=True)

    n = compile_from_the_end(plan, log)
    log(f"compiled {n} kernels")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
