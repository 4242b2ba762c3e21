"""Shared by the batch tests: a tiny template spot (a few combos each, all-in or check: a
flop solves and summarises in 0.2-3 s, most in under one) and batch specs over it."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

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
    process one after the other (what a worker runs: no cluster, for page tests)."""
    from solver.batch.driver import _store
    from solver.batch.store import BatchStore
    from solver.batch.task import solve_flop

    with BatchStore.create_or_open(path, spec) as store:
        for i, flop in enumerate(spec.flop_set()):
            _store(store, flop, i, solve_flop(spec.to_json(), flop.text))
    return path
