"""Batches without a cluster: spec validation (errors name the field), the SQLite store (resume
identity, foreign files refused untouched), the per-flop summary against the public API and
a brute-force equity, and the weighted reports."""

from __future__ import annotations

import itertools
import json
import math
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from batch_helpers import TEMPLATE, tiny_spec

from solver import solve
from solver.batch.report import (
    aggregate,
    aggregate_groups,
    class_aggregate,
    table_rows,
    to_csv,
)
from solver.batch.spec import BatchError, BatchSpec, by_size, check
from solver.batch.store import BatchStore, FlopRow
from solver.batch.task import root_equity, run_flop, solve_flop, summarize
from solver.games.holdem import HoldemSpec, build_holdem
from solver.poker.cards import parse_cards
from solver.poker.flops import parse_flop
from solver.poker.handeval import evaluate
from solver.study.analysis import action_frequencies


@pytest.mark.parametrize(
    ("changes", "field", "words"),
    [
        ({"flops": "50"}, "flops", "no subset of 50"),
        ({"flops": "AhKd"}, "flops", "whole flops"),
        ({"filters": {"suits": ["monotone"], "pairing": ["trips"]}}, "filter", "no flop"),
        ({"algorithm": "nope"}, "algorithm", "unknown algorithm"),
        ({"target_pct": -1.0}, "target", "positive"),
        ({"max_iterations": 0}, "iterations", "1 …"),
        ({"template": replace(TEMPLATE, oop_range="AA, AsKs")}, "oop_range", "suit-symmetric"),
        ({"template": replace(TEMPLATE, ip_range="ZZ")}, "ip_range", ""),
        ({"template": replace(TEMPLATE, stack=-5)}, "stack", "positive"),
        ({"template": replace(TEMPLATE, max_memory_mb=0.001)}, "max_memory_mb", "MB"),
    ],
)
def test_bad_specs_name_the_field(changes: dict, field: str, words: str) -> None:
    with pytest.raises(BatchError) as err:
        check(replace(tiny_spec(), **changes))
    assert err.value.field == field
    assert words in err.value.message


def test_spec_identity_and_json_round_trip() -> None:
    spec = tiny_spec()
    back = BatchSpec.from_json(spec.to_json())
    assert back == spec
    assert back.fingerprint() == spec.fingerprint()
    # threads per solve and the name do not change a flop's numbers
    assert replace(spec, threads=2, name="x").fingerprint() == spec.fingerprint()
    assert replace(spec, target_pct=3.0).fingerprint() != spec.fingerprint()
    assert replace(spec, template=replace(TEMPLATE, board="AsKsQs")).fingerprint() == (
        spec.fingerprint()
    )  # the template's board never counts
    assert [f.text for f in check(spec)] == ["Ks9s5s", "KsJh8d", "8s8h5d"]


def _row(flop: str, weight: float, summary: dict) -> FlopRow:
    f = parse_flop(flop)
    return FlopRow(flop, 0, weight, f.suits, f.pairing, f.high, f.connect, "done", "",
                   summary, 1.0, "", "")  # fmt: skip


def test_store_resume_identity_and_foreign_files(tmp_path: Path) -> None:
    spec = tiny_spec()
    db = tmp_path / "b.db"
    flop = parse_flop("Ks9s5s")
    with BatchStore.create_or_open(db, spec) as store:
        store.record(flop, 0, {"ev": [1.0, 2.0]}, seconds=1.5)
        store.record(parse_flop("8s8h5d"), 2, None, "ValueError: boom", 0.1)
        journal = store._con.execute("PRAGMA journal_mode").fetchone()[0]
    assert journal == "wal"
    with BatchStore.create_or_open(db, replace(spec, threads=2)) as store:  # same identity
        assert store.done_flops() == {"Ks9s5s"}
        rows = store.rows()
        assert [(r.flop, r.status) for r in rows] == [("Ks9s5s", "done"), ("8s8h5d", "failed")]
        assert rows[0].summary == {"ev": [1.0, 2.0]} and rows[1].error == "ValueError: boom"
    before = db.read_bytes()
    with pytest.raises(BatchError) as err:
        BatchStore.create_or_open(db, replace(spec, target_pct=5.0))
    assert err.value.field == "db" and "another spec" in err.value.message
    assert "target_pct" in err.value.message
    assert db.read_bytes() == before  # refused untouched
    junk = tmp_path / "junk.db"
    junk.write_text("hello")
    with pytest.raises(BatchError, match="not a batch database"):
        BatchStore.create_or_open(junk, spec)
    assert junk.read_text() == "hello"
    with pytest.raises(BatchError, match="no such file"):
        BatchStore.open(tmp_path / "missing.db")
    with pytest.raises(BatchError, match="does not exist"):
        BatchStore.create_or_open(tmp_path / "nope" / "b.db", spec)


def _brute_equity(board: tuple[int, ...], game_hands: list[np.ndarray], w: list) -> float:
    """OOP's range equity by enumerating every turn and river with the evaluator."""
    rest = [c for c in range(52) if c not in board]
    num = den = 0.0
    for i, a in enumerate(game_hands[0]):
        for j, b in enumerate(game_hands[1]):
            if set(a) & set(b):
                continue
            pw = w[0][i] * w[1][j]
            left = [c for c in rest if c not in a and c not in b]
            share = 0.0
            n = 0
            for t, r in itertools.combinations(left, 2):
                x = evaluate([*board, t, r, *a])
                y = evaluate([*board, t, r, *b])
                share += 1.0 if x > y else 0.5 if x == y else 0.0
                n += 1
            num += pw * share / n
            den += pw
    return num / den


def test_root_equity_against_brute_force() -> None:
    spec = HoldemSpec(board="Ts9s6h", pot=100, stack=100, oop_range="AA, T9s",
                      ip_range="KQs", bets="a", raises="a")  # fmt: skip
    game = build_holdem(spec)
    cards = [game.hands.cards[p, : game.num_hands[p]].tolist() for p in range(2)]
    w = [game.hands.weights[p, : game.num_hands[p]].tolist() for p in range(2)]
    e0, e1 = root_equity(game)
    assert e0 + e1 == pytest.approx(1.0)
    assert e0 == pytest.approx(_brute_equity(parse_cards("Ts9s6h"), cards, w), abs=1e-12)


def test_summary_against_the_public_api() -> None:
    spec = tiny_spec()
    game, result = run_flop(spec, "KsJh8d")
    s = summarize(game, result)
    # the same spot solved directly with the public API, as a user would
    direct = solve(
        build_holdem(replace(TEMPLATE, board="KsJh8d")),
        "dcfr-tuned",
        iterations=spec.max_iterations,
        target_exploitability=spec.target_pct / 100 * 100,  # type: ignore[operator]
        check_every=spec.check_every,
    )
    assert s["ev"] == list(direct.ev)
    assert s["ev"][0] + s["ev"][1] == pytest.approx(100.0, abs=1e-2)  # float32 sums
    assert s["iterations"] == direct.iteration
    assert s["exploitability_pct_pot"] == pytest.approx(direct.exploitability)  # pot 100
    assert s["exploitability_pct_pot"] <= spec.target_pct
    root = direct.node_strategy(0)
    freqs = action_frequencies(root, direct.game.hands.weights[0, : direct.game.num_hands[0]])
    assert list(s["oop_mix"].values()) == pytest.approx(list(freqs), abs=1e-12)
    assert sum(s["oop_mix"].values()) == pytest.approx(1.0)
    assert set(s["ip_mix"]) == set(s["oop_mix"])  # IP answers every OOP action
    for mix in s["ip_mix"].values():
        assert sum(mix.values()) == pytest.approx(1.0)
    for p in range(2):
        assert s["eqr"][p] == pytest.approx(s["ev"][p] / (s["equity"][p] * 100.0))
    # per hand class at the root: combos add up to the range, mixes to 1
    made = [c for c in s["classes"]["oop"] if c["kind"] == "made"]
    assert sum(c["combos"] for c in made) == pytest.approx(game.hands.weights[0].sum())
    assert all(sum(c["mix"]) == pytest.approx(1.0) for c in made)
    # the class mixes average back to the root mix
    mixed = sum(np.array(c["mix"]) * c["combos"] for c in made) / sum(c["combos"] for c in made)
    assert mixed == pytest.approx(list(s["oop_mix"].values()))
    assert json.loads(json.dumps(s)) == s  # JSON-able as stored


def test_a_failing_flop_is_reported_not_raised() -> None:
    bad = replace(tiny_spec(), template=replace(TEMPLATE, oop_range="ZZ"))
    out = solve_flop(bad.to_json(), "KsJh8d")
    assert "error" in out and "oop_range" in out["error"]
    assert "summary" not in out


def test_weighted_aggregate_by_hand() -> None:
    rows = [
        _row("AsKh7d", 24.0, {"ev": [60.0, 40.0], "oop_mix": {"k": 0.5, "b:50": 0.5}}),
        _row("Ks9s5s", 4.0, {"ev": [30.0, 70.0], "oop_mix": {"k": 1.0, "b:50": 0.0}}),
        _row("8s8h5d", 12.0, {"ev": [45.0, 55.0], "oop_mix": {"k": 0.25, "b:33": 0.75}}),
    ]
    agg = aggregate(rows)
    assert agg["flops"] == 3 and agg["weight"] == 40.0
    v = agg["values"]
    assert v["oop_ev"] == pytest.approx((24 * 60 + 4 * 30 + 12 * 45) / 40)
    assert v["oop k"] == pytest.approx((24 * 0.5 + 4 * 1.0 + 12 * 0.25) / 40)
    assert v["oop b:33"] == pytest.approx(12 * 0.75 / 40)  # absent elsewhere: frequency 0
    assert math.isnan(v.get("oop_equity", math.nan))  # no equity in these summaries
    by_suits = aggregate_groups(rows, "suits")
    assert set(by_suits) == {"rainbow", "monotone"}
    assert by_suits["rainbow"]["values"]["oop_ev"] == pytest.approx((24 * 60 + 12 * 45) / 36)
    table = table_rows(rows)
    assert table[2]["oop b:50"] == 0.0 and table[0]["oop b:33"] == 0.0
    csv_text = to_csv(table)
    assert csv_text.splitlines()[0].startswith("flop,weight,suits,pairing,high,connect,status")
    assert len(csv_text.splitlines()) == 4


def test_class_aggregate_by_hand() -> None:
    def summary(k_aa: float, k_air: float, aa: float, air: float) -> dict:
        return {
            "actions": {"oop": ["k", "b:100"]},
            "classes": {
                "oop": [
                    {"class": "overpair", "kind": "made", "combos": aa, "mix": [k_aa, 1 - k_aa]},
                    {"class": "high_card", "kind": "made", "combos": air,
                     "mix": [k_air, 1 - k_air]},
                    {"class": "flush_draw", "kind": "draw", "combos": 1.0, "mix": [0.0, 1.0]},
                ]
            },
        }  # fmt: skip

    rows = [
        _row("AsKh7d", 24.0, summary(0.2, 0.5, aa=6.0, air=10.0)),
        _row("Ks9s5s", 4.0, summary(0.6, 1.0, aa=3.0, air=12.0)),
    ]
    agg = class_aggregate(rows, "oop")
    assert agg["actions"] == ["k", "b:100"]
    by = {c["class"]: c for c in agg["classes"]}
    assert [c["class"] for c in agg["classes"]] == ["overpair", "high_card", "flush_draw"]
    assert by["overpair"]["combos"] == pytest.approx((24 * 6 + 4 * 3) / 28)
    k = (24 * 6 * 0.2 + 4 * 3 * 0.6) / (24 * 6 + 4 * 3)  # weighted by flop weight × combos
    assert by["overpair"]["mix"]["k"] == pytest.approx(k)
    assert by["high_card"]["mix"]["b:100"] == pytest.approx(24 * 10 * 0.5 / (24 * 10 + 4 * 12))
    assert by["flush_draw"]["kind"] == "draw"
    assert class_aggregate(rows, "ip vs k") == {"actions": [], "classes": []}


def test_biggest_flops_first() -> None:
    spec = tiny_spec(flops="all")
    order = by_size(spec, spec.flop_set())
    assert len(order) == 1755
    ranks = [(f.suits, f.pairing) for f in order]
    assert ranks[0] == ("rainbow", "unpaired") and ranks[-1] == ("monotone", "unpaired")
    trips = [i for i, f in enumerate(order) if f.pairing == "trips"]
    paired = [i for i, f in enumerate(order) if f.pairing == "paired" and f.suits == "rainbow"]
    assert max(paired) < min(trips)  # within a suit class: unpaired, paired, then trips


# ----- the Reports page's trust boundary: solve files named by a database ---------------------
def _db_with_solve(tmp_path: Path) -> tuple[Path, str]:
    db = tmp_path / "b" / "x.db"
    db.parent.mkdir()
    solves = db.with_name("x.db.solves")
    solves.mkdir()
    (solves / "Td9d6h.npz").write_bytes(b"saved solve")
    return db, "x.db.solves/Td9d6h.npz"


def test_solve_files_are_read_only_inside_the_databases_solves_folder(tmp_path: Path) -> None:
    from solver.batch.store import read_solve_file

    db, good = _db_with_solve(tmp_path)
    assert read_solve_file(db, good) == b"saved solve"
    outside = tmp_path / "secret.npz"
    outside.write_bytes(b"not yours")
    (db.parent / "beside.npz").write_bytes(b"beside the database, not in its folder")
    (db.with_name("x.db.solves") / "link.npz").symlink_to(outside)
    for name in [
        str(outside),  # an absolute path overrides the folder in `parent / name`
        "../secret.npz",
        "x.db.solves/../../secret.npz",
        "beside.npz",
        "x.db.solves/link.npz",  # a symlink out of the folder
        "x.db.solves",  # the folder itself
        "x.db.solves/missing.npz",
        "",
        "/dev/zero",
    ]:
        with pytest.raises(BatchError) as err:
            read_solve_file(db, name)
        assert err.value.field == "solve_file"
        assert "not yours" not in str(err.value)
    # the same message for an outside path that exists and one that does not
    with pytest.raises(BatchError) as a:
        read_solve_file(db, "../secret.npz")
    with pytest.raises(BatchError) as b:
        read_solve_file(db, "../nothing-here.npz")
    assert str(a.value).split(":", 2)[-1] != "" and "exist" not in str(a.value)
    assert str(b.value).replace("nothing-here", "secret") == str(a.value)
    # through a symbolic link inside the folder: alike whether its target exists
    (db.with_name("x.db.solves") / "dangling.npz").symlink_to(tmp_path / "nothing-here.npz")
    with pytest.raises(BatchError) as c:
        read_solve_file(db, "x.db.solves/dangling.npz")
    with pytest.raises(BatchError) as d:
        read_solve_file(db, "x.db.solves/link.npz")
    assert str(c.value).replace("dangling", "link") == str(d.value)


def test_a_solve_file_over_the_cap_is_refused_before_it_is_read(tmp_path: Path) -> None:
    from solver.batch.store import read_solve_file

    db, good = _db_with_solve(tmp_path)
    with pytest.raises(BatchError, match="larger than 5 bytes"):
        read_solve_file(db, good, max_bytes=5)


def test_reports_open_in_explore_refuses_a_crafted_path(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The page's own callback: a database row naming a file outside its .solves folder
    leaves an error naming the flop and loads nothing."""
    from app import state
    from app.screens import reports

    store: dict[str, object] = {}
    monkeypatch.setattr(state, "get", lambda key, default=None: store.get(key, default))
    monkeypatch.setattr(state, "put", lambda key, value: store.__setitem__(key, value))
    db, _ = _db_with_solve(tmp_path)
    outside = tmp_path / "elsewhere.npz"
    outside.write_bytes(b"x")
    store[reports.OPEN_FLOP] = "Td9d6h"
    reports._explore(db, {"Td9d6h": str(outside)})
    assert "Cannot open Td9d6h's solve: solve_file:" in str(store[state.REPORTS_OPEN_ERROR])
    assert state.LOADED not in store


def test_a_batch_says_what_it_costs_before_it_starts() -> None:
    """batch_cost: the biggest flop's solve (the most memory of any flop's tree, counted
    flop by flop here), its time per iteration from the machine's cost per hand-cell, and
    the whole batch at its iteration cap with two workers at once, each flop's tree summary
    counted as SUMMARY_ITERATIONS one-thread iterations and SUMMARY_BYTES_PER_NODE."""
    from solver.batch.spec import SUMMARY_BYTES_PER_NODE, SUMMARY_ITERATIONS, batch_cost
    from solver.games.holdem import estimate, validate
    from solver.run import calibration

    spec = tiny_spec(max_iterations=300)
    cost = batch_cost(spec, workers=2)
    ests = {f.text: estimate(validate(spec.spot(f))) for f in spec.flop_set()}
    assert cost.flops == 3 and cost.memory_mb == max(e.memory_mb for e in ests.values())
    per = calibration.load().seconds(calibration.cells_of_estimate(ests[cost.biggest]))
    assert cost.seconds_per_iteration == pytest.approx(per)
    assert cost.summary_seconds == pytest.approx(SUMMARY_ITERATIONS * per)
    assert cost.max_seconds == pytest.approx(2 * (300 + SUMMARY_ITERATIONS) * per)  # 2 at once
    nodes = ests[cost.biggest].nodes
    assert cost.disk_mb == pytest.approx(3 * SUMMARY_BYTES_PER_NODE * nodes / 1e6)
    assert cost.memory_mb_at_once == pytest.approx(2 * cost.memory_mb)
