"""Reports at any line (``python -m solver report DB --line …``), checked against each flop's
saved solve read with the solver's own study functions (``analyze``, ``range_summary``,
``class_table``, ``Game.locate``/``chance_cards``), not the tree-summary code: a flop line, a
turn line with ``any`` (each card weighted by how often it is reached), a named river card
reached through suit isomorphism, and ``--compare`` against two such aggregates. The batches
are solved in process (tests/batch_helpers.py: each flop once per test run; a cluster's
database equals such solves byte for byte, tests/test_batch_cluster.py). The mixes are as
dealt (each hand weighted by its reach and the opponent's reach it does not block: the
report's definition). Then: databases made before tree summaries, and hostile values in the
``trees`` table."""

from __future__ import annotations

import json
import math
import sqlite3
import zlib
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from batch_helpers import FLOPS, TEMPLATE, solved_db, tiny_spec
from cli_helpers import run

from solver.batch.store import BatchStore, read_solve_file
from solver.batch.treedata import MAGIC, decode, encode
from solver.cfr.reach import chance_factor
from solver.files.export import load_solve
from solver.games.model import Game
from solver.poker.handclass import class_table
from solver.study.analysis import analyze, compatible
from solver.study.views import board_cards, summaries

TOL = 2e-4  # stored shares are exact to 1/65,534, chips are float32


@pytest.fixture(scope="module")
def batches(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two batches of the tiny spot, solves saved: the all-in tree on its three flops
    (monotone, rainbow, paired), and one with a half-pot bet too on two of them."""
    folder = tmp_path_factory.mktemp("lines")
    out = {}
    for name, template, flops, count in (
        ("a", TEMPLATE, FLOPS, 3),
        ("b", replace(TEMPLATE, bets="50%, a"), "Ks9s5s, KsJh8d", 2),
    ):
        db = solved_db(
            folder / f"{name}.db", tiny_spec(template=template, flops=flops, save_solves=True)
        )
        with BatchStore.open(db) as store:
            assert len(store.rows("done")) == count and not store.rows("failed")
        out[name] = db
    return out


def _solves(db: Path) -> dict[str, tuple[float, Game, np.ndarray]]:
    with BatchStore.open(db) as store:
        rows = store.rows("done")
    out = {}
    for r in rows:
        ls = load_solve(read_solve_file(db, r.solve_file))
        out[r.flop] = (r.weight, ls.game, ls.engine.average_strategy())
    return out


def _node_numbers(game: Game, sigma: np.ndarray, node: int) -> dict[str, Any]:
    """What Explore shows at ``node``, and its reach (chance included); the mixes as dealt
    (each hand weighted by its reach × the opponent's reach it does not block, the report's
    definition; Explore's aggregate weights by the own reach)."""
    a = analyze(game, sigma, node, compat=compatible(game))
    v0, v1 = a.players
    reach = chance_factor(game, node) * float(v0.reach @ (compatible(game) @ v1.reach))
    s = summaries(a)
    out: dict[str, Any] = {
        "reach": reach,
        "ev": [s[0].ev, s[1].ev],
        "equity": [s[0].equity, s[1].equity],
        "eqr": [s[0].eqr, s[1].eqr],
        "mix": {},
        "classes": {},
    }
    if a.actions:
        assert a.strategy is not None
        actor = a.players[a.player]
        dealt = actor.reach * actor.opponent_mass
        out["mix"] = dict(zip(a.actions, a.strategy @ dealt / dealt.sum(), strict=True))
        board, hands = board_cards(game, node), game.hands.cards[a.player, : len(actor.reach)]
        own = {r.key: r for r in class_table(board, hands, actor.reach, a.strategy)}
        out["classes"] = {
            r.key: (own[r.key].combos, dict(zip(a.actions, r.mix, strict=True)))
            for r in class_table(board, hands, dealt, a.strategy)
            if r.mix is not None and own[r.key].mix is not None
        }
    return out


def _mean(parts: list[tuple[dict[str, Any], float]], sum_reach: bool) -> dict[str, Any]:
    """Parts weighted by weight × reach (reach summed or averaged), as docs/batch.md says."""
    w = sum(x for _p, x in parts)
    out: dict[str, Any] = {"reach": sum(x * p["reach"] for p, x in parts)}
    if not sum_reach:
        out["reach"] /= w
    vw = [(p, x * p["reach"]) for p, x in parts]
    tot = sum(v for _p, v in vw)
    acts = {a for p, _ in vw for a in p["mix"]}
    out["mix"] = {a: sum(v * p["mix"].get(a, 0.0) for p, v in vw) / tot for a in acts}
    for key in ("ev", "equity", "eqr"):
        vals = []
        for i in range(2):
            xs = [(p[key][i], v) for p, v in vw]  # a NaN part (not measured) leaves it unknown
            ok = all(math.isfinite(x) for x, _v in xs)
            vals.append(sum(x * v for x, v in xs) / sum(v for _x, v in xs) if ok else math.nan)
        out[key] = vals
    out["classes"] = {}
    for k in {k for p, _ in vw for k in p["classes"]}:
        combos = sum(v * p["classes"][k][0] for p, v in vw if k in p["classes"])
        mix = {a: sum(v * p["classes"][k][0] * p["classes"][k][1][a] for p, v in vw
                      if k in p["classes"]) / combos for a in acts}  # fmt: skip
        out["classes"][k] = (combos / tot, mix)
    return out


def _by_hand(solves: dict, history: list[str], any_at: int | None = None) -> dict[str, Any]:
    """Per flop and over flops, by the study functions: ``history`` from the root (cards as
    ``d:Xx``), the step ``any_at`` replaced by every card of that chance node."""
    per_flop = {}
    for flop, (_w, game, sigma) in solves.items():
        if any_at is None:
            node, _cmap = game.locate(history)
            per_flop[flop] = _node_numbers(game, sigma, node)
            continue
        chance = game.find(history[:any_at])
        parts = []
        for _label, child, _row in game.chance_cards(chance):  # isomorphic cards included
            try:
                node = game.find([*history[:any_at], game.labels[child], *history[any_at + 1 :]])
            except KeyError:
                continue
            parts.append((_node_numbers(game, sigma, node), 1.0))
        per_flop[flop] = _mean(parts, sum_reach=True)
    agg = _mean([(per_flop[f], solves[f][0]) for f in per_flop], sum_reach=False)
    return {"flops": per_flop, "aggregate": agg}


def _report(db: Path, line: str, *more: str) -> tuple[dict[str, dict], dict]:
    r = run("report", str(db), "--line", line, "--json", *more)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[-1]["final"] is True and lines[-1]["line"] == line
    return {rec["flop"]: rec for rec in lines[:-1]}, lines[-1]


def _close(got: dict[str, Any], want: dict[str, Any], where: str) -> None:
    assert got["reach"] == pytest.approx(want["reach"], rel=1e-5, abs=1e-9), where
    assert set(got["mix"]) == set(want["mix"]), where
    for a, f in want["mix"].items():
        assert got["mix"][a] == pytest.approx(f, abs=TOL), (where, a)
    for key in ("ev", "equity", "eqr"):
        for i in range(2):
            w = want[key][i]
            if math.isfinite(w):
                assert got[key][i] == pytest.approx(w, rel=1e-4, abs=1e-3), (where, key, i)
            else:  # analyze gives NaN (flop equity under suit isomorphism); ours is exact
                assert key != "ev", where
    got_classes = {c["class"]: c for c in got["classes"]}
    assert set(got_classes) == set(want["classes"]), where
    for k, (combos, mix) in want["classes"].items():
        assert got_classes[k]["combos"] == pytest.approx(combos, rel=2e-3), (where, k)
        for a, f in mix.items():
            assert got_classes[k]["mix"][a] == pytest.approx(f, abs=TOL), (where, k, a)


def _check_line(db: Path, line: str, history: list[str], any_at: int | None = None) -> dict:
    flops, final = _report(db, line)
    want = _by_hand(_solves(db), history, any_at)
    assert set(flops) == set(want["flops"]) and final["flops_without_line"] == 0
    for flop, w in want["flops"].items():
        _close(flops[flop], w, f"{line} on {flop}")
    _close(final["aggregate"], want["aggregate"], f"{line} aggregate")
    return final


def test_flop_line_matches_the_saved_solves(batches: dict[str, Path]) -> None:
    final = _check_line(batches["a"], "k", ["k"])
    assert final["aggregate"]["player"] == 1 and set(final["groups"]) == {"suits", "pairing"}
    # the rainbow flop has no suit isomorphism, so analyze's equity is defined there: checked
    flops, _ = _report(batches["a"], "k")
    assert all(math.isfinite(x) for f in flops.values() for x in f["equity"])


def test_turn_line_with_any_matches_the_saved_solves(batches: dict[str, Path]) -> None:
    final = _check_line(batches["a"], "k k any", ["k", "k", "any"], any_at=2)
    assert final["aggregate"]["player"] == 0
    flops, final = _report(batches["a"], "k k any", "--street", "turn")
    assert set(final["groups"]) >= {"rank", "relation"}
    assert set(final["groups"]["relation"]) <= {
        "pairs_board",
        "flush",
        "straight",
        "overcard",
        "blank",
    }
    # the turn's card groups add up to the flop's reach
    for rec in flops.values():
        total = sum(c["reach"] for c in rec["cards"].values())
        assert total == pytest.approx(rec["reach"], rel=1e-6)
    mono = flops["Ks9s5s"]  # hearts, diamonds and clubs interchangeable: As and one of them
    assert sorted(c[1] == "s" for c in mono["cards"] if c[0] == "A") == [False, True]


def test_named_river_card_through_isomorphism(batches: dict[str, Path]) -> None:
    # on Ks9s5s, hearts, diamonds and clubs are interchangeable: 2d and 3c are read
    # through the suit maps (Game.locate does the same for the study functions)
    history = ["k", "k", "d:2d", "k", "k", "d:3c"]
    solves = _solves(batches["a"])
    want = {f: _node_numbers(g, s, g.locate(history)[0]) for f, (_w, g, s) in solves.items()
            if f != "8s8h5d"}  # fmt: skip
    flops, _final = _report(batches["a"], "k k 2d k k 3c")
    for flop, w in want.items():
        _close(flops[flop], w, flop)


def test_compare_two_databases(batches: dict[str, Path]) -> None:
    # b holds two of a's three flops: the difference is over those two
    sb = _solves(batches["b"])
    sa = {f: v for f, v in _solves(batches["a"]).items() if f in sb}
    a = _by_hand(sa, ["k"])["aggregate"]
    b = _by_hand(sb, ["k"])["aggregate"]
    flops, final = _report(batches["a"], "k", "--compare", str(batches["b"]))
    assert final["common_flops"] == ["Ks9s5s", "KsJh8d"]
    assert final["left_out"] == {"this": ["8s8h5d"], "compare": []}
    d = final["difference"]
    assert d["reach"] == pytest.approx(a["reach"] - b["reach"], abs=1e-6)
    for act in set(a["mix"]) | set(b["mix"]):
        assert d["mix"][act] == pytest.approx(
            a["mix"].get(act, 0) - b["mix"].get(act, 0), abs=2 * TOL
        )
    for i in range(2):
        assert d["ev"][i] == pytest.approx(a["ev"][i] - b["ev"][i], abs=2e-3)
        assert d["ev_pct_pot"][i] == pytest.approx(d["ev"][i], abs=2e-3)  # pot 100
    # the flops in both databases have their difference, those that differ most first
    assert [f for f, rec in flops.items() if "difference" in rec][:2] == list(flops)[:2]
    assert {f for f, rec in flops.items() if "difference" in rec} == {"Ks9s5s", "KsJh8d"}
    diffs = [abs(rec["difference"]["ev"][0]) for rec in flops.values() if "difference" in rec]
    assert diffs == sorted(diffs, reverse=True) and diffs[0] > 0
    # the half-pot tree offers two sizes at IP's node: each, and their sum
    _, fb = _report(batches["b"], "k")
    sizes = fb["aggregate"]["sizes"]
    assert sizes["bets"] == pytest.approx(sum(v for k, v in sizes.items() if k != "bets"))


def test_a_line_no_flop_has(batches: dict[str, Path]) -> None:
    r = run("report", str(batches["a"]), "--line", "k b:33 c", "--json")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith("error: --line: ") and "'b:33' after k" in r.stderr
    r = run("report", str(batches["a"]), "--line", "k", "--street", "turn")
    assert r.returncode == 2 and r.stderr.startswith("error: --street:")
    r = run("report", str(batches["a"]), "--street", "turn")
    assert r.returncode == 2 and "needs --line" in r.stderr


def test_old_database_answers_its_two_decisions(batches: dict[str, Path], tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    with sqlite3.connect(batches["a"]) as src, sqlite3.connect(old) as dst:
        src.backup(dst)
    with sqlite3.connect(old) as con:
        con.execute("DROP TABLE trees")
    r = run("report", str(old), "--json")  # today's report, unchanged
    assert r.returncode == 0 and json.loads(r.stdout.splitlines()[-1])["final"]
    flops, final = _report(old, "k")
    assert final["legacy"] is True and "only OOP's first action" in final["note"]
    with BatchStore.open(old) as store:
        rows = {row.flop: row for row in store.rows()}
    for flop, rec in flops.items():
        assert rec["mix"] == pytest.approx(rows[flop].summary["ip_mix"]["k"])
    r = run("report", str(old), "--line", "k k any")
    assert r.returncode == 2 and "made before tree summaries" in r.stderr


def _tamper(db: Path, tmp_path: Path, sql: str, *args: object) -> Path:
    bad = tmp_path / "bad.db"
    bad.unlink(missing_ok=True)
    with sqlite3.connect(db) as src, sqlite3.connect(bad) as dst:
        src.backup(dst)
    with sqlite3.connect(bad) as con:
        con.execute(sql, args)
    return bad


@pytest.mark.parametrize(
    ("what", "expect"),
    [
        ("huge", "larger than"),
        ("bomb", "decompresses to more than"),
        ("magic", "not a tree summary"),
        ("text", "is text, not bytes"),
        ("version", "format version"),
        ("nan_reach", "reach: holds nan"),
        ("parent", "parent: is not a tree in order"),
        ("shape", "reach: has 9 n"),
    ],
)
def test_hostile_tree_values(
    batches: dict[str, Path], tmp_path: Path, what: str, expect: str
) -> None:
    with BatchStore.open(batches["a"]) as store:
        good = store.tree("KsJh8d")
    assert good is not None
    arrays = dict(good.arrays)
    if what == "huge":
        blob: object = MAGIC + bytes(17_000_000)
    elif what == "bomb":
        blob = MAGIC + zlib.compress(bytes(200_000_000), 9)
    elif what == "magic":
        blob = b"PK\x03\x04" + encode(good)
    elif what == "text":
        blob = "hello"
    elif what == "nan_reach":
        arrays["reach"] = np.where(np.arange(len(arrays["reach"])) == 1, np.nan, arrays["reach"])
    elif what == "parent":
        arrays["parent"] = np.where(np.arange(len(arrays["parent"])) == 2, 5, arrays["parent"])
    elif what == "shape":
        arrays["reach"] = arrays["reach"][:9]
    if what in ("nan_reach", "parent", "shape"):
        blob = encode(replace(good, arrays=arrays))
    if what == "version":
        bad = _tamper(batches["a"], tmp_path, "UPDATE trees SET version = 7 WHERE flop = 'KsJh8d'")
    else:
        bad = _tamper(
            batches["a"], tmp_path, "UPDATE trees SET data = ? WHERE flop = 'KsJh8d'", blob
        )
    r = run("report", str(bad), "--line", "k", "--json")
    assert r.returncode == 2 and r.stdout == "", r.stdout[:200]
    err = r.stderr.strip()
    assert err.startswith(f"error: FILE: {bad}: flop KsJh8d, column trees.data") and "\n" not in err
    assert expect in err, err
    if what not in ("version", "text"):  # the decoder refuses the same bytes on its own
        with pytest.raises(ValueError, match=expect.split(": ")[-1][:12]):
            decode(blob)  # type: ignore[arg-type]


def test_summary_round_trip_is_exact_to_its_precision(batches: dict[str, Path]) -> None:
    with BatchStore.open(batches["b"]) as store:
        for flop in ("Ks9s5s", "KsJh8d"):
            ts = store.tree(flop)
            assert ts is not None
            again = decode(encode(ts))
            for k, a in ts.arrays.items():
                np.testing.assert_allclose(again[k], a, rtol=1e-3, atol=1e-4, equal_nan=True)
            assert ts["reach"][0] == pytest.approx(1.0, abs=1e-6)
