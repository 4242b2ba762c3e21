"""Exports (CSV/JSON of a node or the whole tree) and saved solves (.npz + JSON metadata):
round trips, resuming gives the same numbers as never stopping, clear errors for bad files."""

from __future__ import annotations

import csv
import io
import json
import zipfile
from dataclasses import asdict
from typing import Any

import numpy as np
import pytest
from conftest import game

from solver import Engine, make_rule
from solver.cfr.options import SolveOptions
from solver.files.export import (
    ExportError,
    game_source,
    load_solve,
    node_csv,
    node_json,
    save_solve,
    tree_csv,
    tree_json,
)
from solver.files.presets import load_preset
from solver.run.jobs import Point
from solver.study.analysis import analyze


def _engine(name: str = "leduc", iterations: int = 30) -> Engine:
    e = Engine(game(name), make_rule("pcfr+"))
    e.iterate(iterations)
    return e


def test_node_csv_and_json_carry_the_solver_numbers() -> None:
    e = _engine()
    g = e.game
    sigma = e.average_strategy()
    a = analyze(g, sigma, 0)
    rows = list(csv.DictReader(io.StringIO(node_csv(a))))
    assert [r["hand"] for r in rows] == g.hand_names[0]
    for h, r in enumerate(rows):
        assert float(r["ev"]) == pytest.approx(a.players[0].ev[h])
        assert float(r["equity"]) == pytest.approx(a.players[0].equity[h])
        for i, label in enumerate(a.actions):
            assert float(r[label]) == pytest.approx(sigma[g.block(0)[0] + i * 6 + h])
    data = json.loads(node_json(g, a))
    assert data["actions"] == a.actions and data["player"] == 0
    assert sum(data["frequencies"]) == pytest.approx(1.0)
    assert len(data["hands"]) == 6


def test_tree_exports_cover_every_decision_node() -> None:
    e = _engine("kuhn", 50)
    g = e.game
    text = tree_csv(g, e.average_strategy())
    rows = list(csv.DictReader(io.StringIO(text)))
    assert len(rows) == sum(
        int(np.count_nonzero(g.valid_hands(int(n), int(g.tree.player[n]))))
        for n in g.decision_nodes()
    )
    assert {r["history"] for r in rows} >= {"", "k", "b:1", "k b:1"}
    data = json.loads(tree_json(g, e.average_strategy()))
    assert len(data["nodes"]) == len(rows)


def test_save_load_round_trip_and_resume_matches_uninterrupted() -> None:
    e = _engine("leduc", 40)
    hist = (Point(0, 0.0, 2.0), Point(40, 0.5, 0.1))
    data = save_solve(e, game_source(e.game), hist)
    loaded = load_solve(data)
    assert loaded.engine.iteration == 40 and loaded.history == hist
    assert loaded.meta["algorithm"] == "pcfr+"
    np.testing.assert_array_equal(loaded.engine.average_strategy(), e.average_strategy())
    loaded.engine.iterate(25)
    e.iterate(25)
    np.testing.assert_array_equal(loaded.engine.average_strategy(), e.average_strategy())


def test_total_rbp_freeing_the_opponent_round_trip() -> None:
    """The setting is saved; where each player is kept out is rebuilt from the pruned flags
    on load, so the resumed solve matches an uninterrupted one bit for bit."""
    g = game("leduc")
    e = Engine(g, make_rule("cfr"), options=SolveOptions(pruning="total", rbp_free_opponent=True))
    e.iterate(95)
    loaded = load_solve(save_solve(e, game_source(g), ()))
    assert loaded.meta["rbp"]["free_opponent"] is True
    le = loaded.engine
    assert isinstance(le, Engine) and le.rbp is not None and e.rbp is not None
    assert le.rbp.free_opponent and le.rbp.held_entries() == e.rbp.held_entries()
    le.iterate(105)
    e.iterate(105)
    np.testing.assert_array_equal(np.asarray(le.storage.regrets), np.asarray(e.storage.regrets))
    np.testing.assert_array_equal(le.average_strategy(), e.average_strategy())
    assert le.memory_bytes == e.memory_bytes


def test_holdem_solve_round_trip() -> None:
    preset = load_preset("srp-river")
    assert preset.holdem is not None
    g = preset.build()
    e = Engine(g, make_rule("dcfr", alpha=1.0))
    e.iterate(5)
    loaded = load_solve(save_solve(e, {"kind": "holdem", "spec": asdict(preset.holdem)}))
    assert loaded.holdem == preset.holdem
    assert loaded.engine.rule == e.rule
    np.testing.assert_array_equal(loaded.engine.average_strategy(), e.average_strategy())


def _npz(**arrays: Any) -> bytes:
    buf = io.BytesIO()
    np.savez(buf, allow_pickle=True, **arrays)
    return buf.getvalue()


def test_bad_files_get_clear_errors() -> None:
    with pytest.raises(ExportError, match=r"expected a numpy \.npz"):
        load_solve(b"hello world")
    good = save_solve(_engine(), {"kind": "toy", "name": "leduc"})
    with pytest.raises(ExportError, match="corrupt"):
        load_solve(good[: len(good) // 2])
    with pytest.raises(ExportError, match="no metadata"):
        load_solve(_npz(x=np.zeros(3)))
    with pytest.raises(ExportError, match="unknown format"):
        load_solve(_npz(meta=np.array(json.dumps({"format": "other"}))))
    with pytest.raises(ExportError, match="not JSON"):
        load_solve(_npz(meta=np.array("{not json")))
    # a Leduc solve relabelled as Kuhn: arrays no longer fit the game
    buf = io.BytesIO(good)
    with np.load(buf) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["meta"]))
    meta["game"] = {"kind": "toy", "name": "kuhn"}
    arrays["meta"] = np.array(json.dumps(meta))
    with pytest.raises(ExportError, match="another game"):
        load_solve(_npz(**arrays))
    meta["game"] = {"kind": "toy", "name": "leduc"}
    meta["version"] = 99
    arrays["meta"] = np.array(json.dumps(meta))
    with pytest.raises(ExportError, match="version"):
        load_solve(_npz(**arrays))


UNPICKLED: list[str] = []


def _record(what: str) -> list[str]:
    UNPICKLED.append(what)
    return UNPICKLED


class _Trap:
    """Unpickling one of these leaves a trace in UNPICKLED."""

    def __reduce__(self) -> tuple[Any, tuple[str]]:
        return _record, ("unpickled",)


def test_pickled_arrays_are_refused_from_their_header_never_unpickled() -> None:
    good = save_solve(_engine(), {"kind": "toy", "name": "leduc"})
    with np.load(io.BytesIO(good)) as f:
        arrays = {k: f[k] for k in f.files}
    trap = np.array([_Trap()], dtype=object)
    for name in ("meta", "storage_regrets"):
        with pytest.raises(ExportError, match=rf"array '{name}' holds Python objects \(pickle\)"):
            load_solve(_npz(**{**arrays, name: trap}))
    assert UNPICKLED == []
    # the trap works: loading that member with pickles allowed records it
    with np.load(io.BytesIO(_npz(**{**arrays, "meta": trap})), allow_pickle=True) as f:
        f["meta"]
    assert UNPICKLED == ["unpickled"]


def test_saved_file_is_a_plain_zip_of_npy_arrays() -> None:
    data = save_solve(_engine(), {"kind": "toy", "name": "leduc"})
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        names = set(z.namelist())
    assert "meta.npy" in names and "storage_cumulative.npy" in names


def test_a_dcfr_solve_saved_before_average_every_resumes_on_its_schedule() -> None:
    """Files from before DCFR's ``average_every`` have no such parameter: they ran with the
    average taking every iteration and resume that way, whatever the rule's default now."""
    g = game("leduc")
    old = make_rule("dcfr-tuned", beta=0.25, gamma=3.0, average_every=1.0)
    e = Engine(g, old)
    e.iterate(7)
    with np.load(io.BytesIO(save_solve(e, game_source(g)))) as f:
        arrays = {k: f[k] for k in f.files}
    meta = json.loads(str(arrays["meta"]))
    del meta["params"]["average_every"]
    arrays["meta"] = np.array(json.dumps(meta))
    loaded = load_solve(_npz(**arrays)).engine
    assert loaded.rule == old
    assert load_solve(save_solve(Engine(g, make_rule("dcfr-tuned")), game_source(g))).engine.rule \
        == make_rule("dcfr-tuned")  # fmt: skip
    loaded.iterate(6)
    e.iterate(6)
    np.testing.assert_array_equal(loaded.average_strategy(), e.average_strategy())


def test_a_whole_tree_export_says_its_size_first() -> None:
    """tree_export_cost: the rows exactly, and the CSV and JSON sizes from a few nodes'
    rows near the real ones (the page shows them before the button builds the file)."""
    from solver import solve
    from solver.files.export import rows_to_csv, tree_export_cost, tree_rows
    from solver.files.presets import load_preset

    g = load_preset("srp-river").build()
    sigma = solve(g, "dcfr-tuned", iterations=10).average_strategy()
    cost = tree_export_cost(g, sigma)
    rows = tree_rows(g, sigma)
    assert cost.rows == len(rows)
    csv_bytes = len(rows_to_csv(rows).encode())
    json_bytes = len(json.dumps({"game": g.name, "nodes": rows}, indent=1).encode())
    assert 0.7 < cost.csv_bytes / csv_bytes < 1.3
    assert 0.7 < cost.json_bytes / json_bytes < 1.3
    assert cost.seconds > 0
