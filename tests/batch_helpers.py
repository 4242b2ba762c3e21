"""Shared by the batch tests: a tiny template spot (a few combos each, all-in or check: a
flop solves and summarises in 0.2-3 s, most in under one) and batch specs over it."""

from __future__ import annotations

import copy
import fcntl
import json
import os
import pickle
from dataclasses import replace
from pathlib import Path
from typing import Any

from streamlit.testing.v1 import AppTest

from app import state
from solver.batch.spec import BatchSpec
from solver.games.holdem import HoldemSpec

TEMPLATE = HoldemSpec(
    board="",
    pot=100,
    stack=100,
    oop_range="AA, KK, T9s",
    ip_range="QQ, AKs, KQs",
    bets="a",
    raises="a",
    name="tiny",
)

FLOPS = "Ks9s5s, KsJh8d, 8s8h5d"


def tiny_spec(**changes: object) -> BatchSpec:
    """Three flops (monotone, rainbow, paired), target 2 % of the pot, at most 200
    iterations."""
    spec = BatchSpec(TEMPLATE, flops=FLOPS, target_pct=2.0, max_iterations=200, name="tiny")
    return replace(spec, **changes)  # type: ignore[arg-type]


# The Set up page's state for the template: what the Reports page tests start from.
PAGE_SPOT: dict[str, object] = {
    state.SOURCE: "custom",
    state.LOADED_FROM: "custom",
    state.BOARD: "2s3h4d",
    state.POT: 100,
    state.STACK: 100,
    state.BIG_BLIND: 10.0,
    state.BETS: "a",
    state.RAISES: "a",
    state.DONKS: "",
    state.RAISE_CAP: 3,
    state.ADD_ALLIN: 0.0,
    state.FORCE_ALLIN: 0.0,
    state.MERGING: 0.0,
    state.OOP_RANGE: TEMPLATE.oop_range,
    state.IP_RANGE: TEMPLATE.ip_range,
}


def solved_db(path: Path, spec: BatchSpec) -> Path:
    """A batch database of ``spec`` with its tree summaries, every flop solved in this
    process one after the other (what a worker runs: no cluster, for page tests). Each
    flop's solve comes from :func:`solved_flop` (solved once per test run)."""
    from solver.batch.driver import _store
    from solver.batch.store import BatchStore

    with BatchStore.create_or_open(path, spec) as store:
        for i, flop in enumerate(spec.flop_set()):
            _store(store, flop, i, solved_flop(spec, flop.text))
    return path


# ----- each flop solved once per test run -------------------------------------------------------
# Several modules (line reports, report definitions, the Reports page and its browser tests)
# read databases over the same few flops of the same two templates. A flop's task output
# depends only on the spec's solve settings and the flop (not on the other flops, nor on
# ``save_solves`` beyond the saved solve itself), so it is solved once and kept: in this
# process, and in a folder the session's processes share (pytest-xdist's workers), one file
# per flop. The databases are still written per module; a test that writes copies its own.
CACHE_ENV = "REGRET_LAB_TEST_SOLVED_FLOPS"  # the shared folder (tests/conftest.py sets it)
_SOLVED: dict[str, dict[str, Any]] = {}


def _flop_key(spec: BatchSpec, flop: str) -> str:
    import hashlib

    data = json.loads(replace(spec, save_solves=True).to_json())
    data.pop("flops")
    data.pop("name")
    data["flop"] = flop
    return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:24]


def solved_flop(spec: BatchSpec, flop: str) -> dict[str, Any]:
    """``solve_flop(spec, flop)``'s output (what a Dask worker returns), solved at most once
    per test run for the same settings: with the saved solve only if ``spec.save_solves``."""
    key = _flop_key(spec, flop)
    out = _SOLVED.get(key)
    if out is None:
        out = _SOLVED[key] = _solved_on_disk(key, spec, flop)
    out = copy.deepcopy(out)  # each database its own (the bytes are shared, immutable)
    if "error" not in out and not spec.save_solves:
        out["solve"] = None
    return out


def _solved_on_disk(key: str, spec: BatchSpec, flop: str) -> dict[str, Any]:
    from solver.batch.task import solve_flop

    def solve() -> dict[str, Any]:
        return solve_flop(replace(spec, save_solves=True).to_json(), flop)

    folder = os.environ.get(CACHE_ENV)
    if not folder:
        return solve()
    cache = Path(folder)
    cache.mkdir(parents=True, exist_ok=True)
    done = cache / f"{key}.pickle"
    # the lock: a second process asking for the same flop waits for the first's answer
    with open(cache / f"{key}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if done.exists():
            with open(done, "rb") as f:
                out: dict[str, Any] = pickle.load(f)
            return out
        out = solve()
        part = done.with_suffix(f".{os.getpid()}.part")
        part.write_bytes(pickle.dumps(out))
        part.replace(done)
        return out


def reports_page(**extra: object) -> AppTest:
    """The Reports page on :data:`PAGE_SPOT` with the database field at ``r.db``, run once."""
    from app_helpers import page

    from app.screens import reports as R

    at = page("reports", **PAGE_SPOT, **{R.DB_PATH: "r.db", **extra})
    at.run()
    assert not at.exception
    return at
