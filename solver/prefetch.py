"""A cold first solve's kernels compiled from both ends, one process per core.

Numba compiles in one thread, and a first solve on a fresh install spends most of its wait
typing the walk's driver (``solver.cfr.drive.drive``), which compiles each kernel the walk
calls as it meets it, then optimising the driver itself. The callees are independent of one
another, so a second process can compile them into the shared on-disk cache from the other
end of the list while the solve works through it from the front: when the solve reaches a
callee the helper has saved it loads it, and when the helper reaches one the solve has saved
it stops. The driver's own compile cannot be split; the callees' half of the wait is halved.

The list — the plan — is the ``opening`` warm-up group's compiles, recorded once from an
empty cache into ``solver/data/opening_plan.json`` (``python -m solver.prefetch --write``):
the driver's signature (``entry``), the kernels compiled while it is typed, in that order
(``callees``), and those compiled after it — the checks, EVs and Explore's first view
(``after``, which the helper compiles next while the solve optimises the driver). Each step
keeps Numba's argument types (pickled) and their spelling. A plan that no longer matches
the sources costs only the second core's time: a signature nothing asks for is compiled in
vain, and a new callee is compiled by the solve itself; tests/test_prefetch.py fails until
the plan is written again.

Started by the CLI's ``solve`` and ``race`` and by the app's background warm-up when the
driver's float64 signature (the opening preset's storage) is not in the cache;
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
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, NamedTuple

PLAN = Path(__file__).resolve().parent / "data" / "opening_plan.json"
PLAN_FORMAT = 1


class Step(NamedTuple):
    """One kernel signature: the kernel's module and name, Numba's argument types, and their
    spelling (for people, and for the check that the types unpickled as they were)."""

    module: str
    name: str
    signature: str
    types: tuple[Any, ...]

    @property
    def kernel(self) -> str:
        return f"{self.module}.{self.name}"

    def dispatcher(self) -> Any | None:
        """The kernel's Numba dispatcher, or None when the sources no longer have it."""
        try:
            disp = getattr(importlib.import_module(self.module), self.name)
        except (ImportError, AttributeError):
            return None
        return disp if hasattr(disp, "overloads") and hasattr(disp, "_cache") else None


class Plan(NamedTuple):
    """The opening group's compiles: the driver's signature, the kernels compiled while it
    is typed (in that order), and those compiled after it (in order)."""

    entry: Step
    callees: list[Step]
    after: list[Step]


def spell(types: tuple[Any, ...]) -> str:
    return ", ".join(str(t) for t in types)


def _step_json(s: Step) -> dict[str, str]:
    blob = base64.b64encode(pickle.dumps(s.types, protocol=4)).decode("ascii")
    return {"kernel": s.module + ":" + s.name, "signature": s.signature, "types": blob}


def _step(d: dict[str, str]) -> Step:
    module, name = d["kernel"].split(":")
    types = tuple(pickle.loads(base64.b64decode(d["types"])))
    return Step(module, name, d["signature"], types)


def load_plan(path: Path = PLAN) -> Plan | None:
    """The plan at ``path``, or None when there is none or it cannot be read (another Numba
    whose types unpickle differently: then there is no helper, and nothing else changes)."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        if raw.get("format") != PLAN_FORMAT:
            return None
        return Plan(
            _step(raw["entry"]),
            [_step(d) for d in raw["callees"]],
            [_step(d) for d in raw["after"]],
        )
    except Exception:  # an unreadable plan only means no helper
        return None


def write_plan(plan: Plan, path: Path = PLAN) -> None:
    import numba

    raw = {
        "format": PLAN_FORMAT,
        "about": "The opening warm-up group's compiles, for solver/prefetch.py. Written by "
        "`python -m solver.prefetch --write`; do not edit.",
        "numba": numba.__version__,
        "entry": _step_json(plan.entry),
        "callees": [_step_json(s) for s in plan.callees],
        "after": [_step_json(s) for s in plan.after],
    }
    path.write_text(json.dumps(raw, indent=1) + "\n", encoding="utf-8")


ENTRY = ("solver.cfr.drive", "drive")


def record(
    run: Callable[[], None], entry: tuple[str, str] = ENTRY, package: str = "solver."
) -> Plan:
    """Run ``run`` (in a cold cache, or nothing is compiled) and return its compiles as a
    plan around ``entry`` (module, name), which must compile once: the kernels of
    ``package`` only (Numba's internal overloads compile inside them)."""
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
    if len(drives) != 1:
        raise RuntimeError(f"expected one signature of {entry}, recorded {len(drives)}")
    at = drives[0]

    def ours(i: int) -> bool:
        module, name = started[i][:2]
        return module.startswith(package) and "<locals>" not in name

    def step(i: int) -> Step:
        module, name, types = started[i]
        return Step(module, name, spell(types), types)

    return Plan(
        step(at),
        [step(i) for i in range(at + 1, ends[at]) if ours(i)],
        [step(i) for i in range(ends[at], len(started)) if ours(i)],
    )


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
    """The helper's work: the driver's callees from the last backwards until one is in the
    cache that this process did not put there (the solve got that far), then the kernels
    compiled after the driver, in order, skipping those already cached. Returns how many
    kernels it compiled itself."""
    compiled = 0

    def compile_step(s: Step) -> bool | None:
        """True: compiled here; False: already here; None: in the cache, put by another."""
        nonlocal compiled
        disp = s.dispatcher()
        if disp is None or s.types in disp.overloads:
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

    for s in reversed(plan.callees):
        if compile_step(s) is None:
            if log is not None:
                log(f"met the solve at {s.kernel}")
            break
    for s in plan.after:
        compile_step(s)
    return compiled


def wanted(precision: str, sampled: bool = False) -> bool:
    """Whether a helper would help a solve whose storage is ``precision`` (resolved, not
    "auto"): the plan holds the float64 driver's callees; a sampled rule has its own walk."""
    return precision == "float64" and not sampled and os.environ.get("REGRET_LAB_PREFETCH") != "0"


def start(path: Path = PLAN) -> subprocess.Popen[bytes] | None:
    """Start the helper (``python -m solver.prefetch``) when the plan's driver signature is
    not in the cache and this machine has a second core; None when there is nothing to do."""
    if os.environ.get("REGRET_LAB_PREFETCH") == "0" or (os.cpu_count() or 1) < 2:
        return None
    plan = load_plan(path)
    if plan is None:
        return None
    disp = plan.entry.dispatcher()
    if disp is None or is_cached(disp, plan.entry.types):
        return None
    try:
        return subprocess.Popen(
            [sys.executable, "-m", "solver.prefetch", "--plan", str(path)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    except OSError:
        return None


def stop(proc: subprocess.Popen[bytes] | None) -> None:
    """End the helper (a kill mid-save leaves no partial entry: Numba saves by rename)."""
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


@contextlib.contextmanager
def helping(enabled: bool = True) -> Iterator[Callable[[], None]]:
    """A helper for the block (when ``enabled`` and useful); yields a function that ends it
    early (for a solve that turns out not to need it)."""
    proc = start() if enabled else None
    try:
        yield lambda: stop(proc)
    finally:
        stop(proc)


def _record_opening(out: Path) -> None:
    from solver import warmup

    write_plan(record(lambda: warmup.run_group("opening")), out)


def main(argv: list[str] | None = None) -> int:
    """``python -m solver.prefetch``: be the helper (``--plan``); ``--write``: record the
    plan again from an empty cache (a minute of one core)."""
    parser = argparse.ArgumentParser(prog="python -m solver.prefetch", description=__doc__)
    parser.add_argument("--plan", type=Path, default=PLAN, help="the plan to follow")
    parser.add_argument("--write", action="store_true", help="record the plan again")
    parser.add_argument("--record", type=Path, help=argparse.SUPPRESS)  # --write's child
    parser.add_argument("--verbose", action="store_true", help="say where the helper stopped")
    args = parser.parse_args(argv)
    if args.record is not None:
        _record_opening(args.record)
        return 0
    if args.write:
        with tempfile.TemporaryDirectory(prefix="regret-lab-plan-") as cache:
            env = {**os.environ, "NUMBA_CACHE_DIR": cache, "REGRET_LAB_PREFETCH": "0"}
            cmd = [sys.executable, "-m", "solver.prefetch", "--record", str(args.plan)]
            subprocess.run(cmd, env=env, check=True)
        print(f"wrote {args.plan}")
        return 0
    from solver.warmup import exit_with_parent

    exit_with_parent()
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
