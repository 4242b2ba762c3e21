"""AppTest: the Reports page's report at any line — the line picker walks a flop line, a
turn card, compares a second database (over the flops both have), and says so on a summary
with a bad card label or a database made before tree summaries. The databases are solved
once per test run (tests/batch_helpers.py); each test works on its own copies. (The page's
batch, its bad input and downloads: tests/test_app_reports.py.)"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from batch_helpers import reports_page, tiny_spec
from streamlit.testing.v1 import AppTest

from app import state
from app.screens import reports as R
from solver.batch.store import BatchStore


@pytest.fixture(autouse=True)
def _teardown(reports_folder: Path) -> None:
    """Each test's own batch folder (tests/conftest.py's ``reports_folder``)."""


def _page(tmp_path: Path, **extra: object) -> AppTest:
    return reports_page(**extra)


# ----- the report at any line: the line picker ------------------------------------------------


@pytest.fixture(scope="module")
def line_dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Two small batches with tree summaries, solved in this process (no cluster: the
    cluster runs are tests/test_batch_lines.py's): the all-in tree on a monotone and a
    rainbow flop, and the half-pot-and-all-in tree on the monotone and a paired flop."""
    from dataclasses import replace

    from batch_helpers import TEMPLATE, solved_db

    folder = tmp_path_factory.mktemp("line_dbs")
    out = {}
    for name, template, flops in (
        ("a", TEMPLATE, "Ks9s5s, KsJh8d"),
        ("b", replace(TEMPLATE, bets="50%, a"), "Ks9s5s, 8s8h5d"),
    ):
        solved_db(folder / f"{name}.db", tiny_spec(template=template, flops=flops))
        out[name] = folder / f"{name}.db"
    return out


def _line_page(tmp_path: Path, line_dbs: dict[str, Path]) -> AppTest:
    import shutil

    for db in line_dbs.values():
        shutil.copy(db, tmp_path / db.name)
    return _page(tmp_path, **{R.DB: str(tmp_path / "a.db")})


def _expected(db: Path, steps: list[str], street: int | None = None, other: Path | None = None):
    from solver.batch.linereport import line_final, line_records, report_at
    from solver.batch.report import GROUP_KEYS

    main = report_at(str(db), steps, street, list(GROUP_KEYS))
    second = report_at(str(other), steps, street, list(GROUP_KEYS)) if other else None
    return line_records(main, second, street), line_final(main, second, " ".join(steps), "a.db")


def _frame(at: AppTest, first: str, *more: str):
    """The shown table whose columns start with ``first`` and hold ``more``."""
    for d in at.dataframe:
        cols = list(d.value.columns)
        if cols and cols[0] == first and all(c in cols for c in more):
            return d.value
    raise AssertionError(f"no table with columns {first}, {more}")


def _chart(at: AppTest, key: str) -> dict:
    found = [c for c in at.get("plotly_chart") if c.proto.id.endswith("-" + key)]
    assert found, key
    return json.loads(found[-1].proto.spec)


def _shown_line(at: AppTest, records: list[dict], final: dict) -> None:
    """The page shows linereport's numbers: metrics (compared: over the flops both databases
    have), the per-flop table, the mix chart."""
    agg = final["common_aggregate"] if final.get("difference") else final["aggregate"]
    m = {x.label: x.value for x in at.metric}
    assert m["Line reached"] == f"{100 * agg['reach']:.2f}%"
    assert m["OOP EV (line, chips)"] == f"{agg['ev'][0]:.2f}"
    assert m["IP EV (line, chips)"] == f"{agg['ev'][1]:.2f}"
    assert m["OOP equity (line)"] == f"{100 * agg['equity'][0]:.1f}%"
    table = _frame(at, "flop", "reach").set_index("flop")
    assert sorted(table.index) == sorted(r["flop"] for r in records)
    for rec in records:
        row = table.loc[rec["flop"]]
        assert row["reach"] == pytest.approx(rec["reach"])
        assert row["oop_ev"] == pytest.approx(rec["ev"][0])
        assert row["ip_equity"] == pytest.approx(rec["equity"][1])
        for a, f in rec["mix"].items():
            assert row[f"mix {a}"] == pytest.approx(f)
    agg = final["aggregate"]
    if agg["mix"]:
        bars = _chart(at, "reports_fig_line")["data"]
        assert [b["x"][0] for b in bars] == ["all flops"] * len(bars)
        got = {b["name"]: b["y"][0] for b in bars}
        assert sum(got.values()) == pytest.approx(100.0)
        assert sorted(got.values()) == pytest.approx(sorted(100 * f for f in agg["mix"].values()))


def test_line_picker_walks_a_flop_line(tmp_path: Path, line_dbs: dict[str, Path]) -> None:
    at = _line_page(tmp_path, line_dbs)
    assert at.session_state[state.REPORTS_LINE] == []
    # the flop root: OOP's actions as buttons, in words
    assert at.button(key="reports_next_0").label == "Check"
    assert at.button(key="reports_next_1").label == "All-in 100"
    at.button(key="reports_next_0").click().run()
    assert not at.exception and at.session_state[state.REPORTS_LINE] == ["k"]
    assert "**Line:** OOP check" in [md.value for md in at.markdown]
    # what the numbers mean: the mix as dealt, and the summaries' reach cut
    said = " ".join(c.value for c in at.caption)
    assert "Definitions: mix as dealt" in said and "under 1% of the deals" in said
    assert "These mixes weight each hand by its own range" in said  # the flop report's
    records, final = _expected(tmp_path / "a.db", ["k"])
    assert final["aggregate"]["player"] == 1 and final["flops"] == 2
    _shown_line(at, records, final)
    # the breadcrumb goes back; the export keeps the codes
    from app.components import line_report_view as LV

    assert "mix b:100" in LV.csv_text(records).splitlines()[0]
    at.button(key="reports_crumb_0").click().run()
    assert at.session_state[state.REPORTS_LINE] == []


def test_line_picker_walks_to_any_turn_card(tmp_path: Path, line_dbs: dict[str, Path]) -> None:
    at = _line_page(tmp_path, line_dbs)
    at.button(key="reports_next_0").click().run()  # OOP checks
    at.button(key="reports_next_0").click().run()  # IP checks: the turn is dealt
    card = at.selectbox(key=state.REPORTS_LINE_CARD)
    assert card.options[0] == "any turn card" and len(card.options) > 40
    card.set_value("any").run()
    assert not at.exception and at.session_state[state.REPORTS_LINE] == ["k", "k", "any"]
    line = "**Line:** OOP check → IP check · turn any"
    assert line in [md.value for md in at.markdown]
    records, final = _expected(tmp_path / "a.db", ["k", "k", "any"], street=1)
    _shown_line(at, records, final)
    # the turn report: the mix by what the turn card does, and a flop's card grid
    rel = final["groups"]["relation"]
    bars = _chart(at, "reports_fig_relation")["data"]
    check = next(b for b in bars if b["name"] == "Check")
    want = [100 * rel[r]["mix"]["k"] for r in ("pairs_board", "flush", "straight", "overcard",
                                               "blank") if r in rel]  # fmt: skip
    assert check["x"] == pytest.approx(want)
    grid = _chart(at, "reports_fig_grid")["data"][0]
    flop = at.selectbox(key=state.REPORTS_GRID_FLOP).value
    cards = next(r for r in records if r["flop"] == flop)["cards"]
    ace = grid["z"][0][grid["x"].index("♥")]  # bets and raises at Ah
    assert ace == pytest.approx(100 * cards["Ah"]["mix"]["b:100"])
    assert grid["z"][0] and grid["y"][0] == "A"
    # on the monotone flop, Ah stands for Ad and Ac too (the summary keeps one of them)
    at.selectbox(key=state.REPORTS_GRID_FLOP).set_value("Ks9s5s").run()
    grid = _chart(at, "reports_fig_grid")["data"][0]
    aces = dict(zip(grid["x"], grid["z"][0], strict=True))
    assert aces["♥"] == aces["♦"] == aces["♣"] != aces["♠"]
    assert grid["z"][1][grid["x"].index("♠")] is None  # Ks is on the board


def test_line_compares_a_second_database(tmp_path: Path, line_dbs: dict[str, Path]) -> None:
    at = _line_page(tmp_path, line_dbs)
    at.text_input(key=state.REPORTS_COMPARE_PATH).set_value("b.db").run()
    at.button(key="reports_compare_open").click().run()
    assert not at.exception and not at.error
    at.button(key="reports_next_0").click().run()
    records, final = _expected(tmp_path / "a.db", ["k"], other=tmp_path / "b.db")
    _shown_line(at, records, final)
    d = final["difference"]
    deltas = {x.label: x.proto.delta for x in at.metric}
    assert deltas["OOP EV (line, chips)"] == f"{d['ev'][0]:+.2f} ({d['ev_pct_pot'][0]:+.1f}% pot)"
    table = _frame(at, "flop", "diff oop_ev")
    assert list(table["flop"]) == [r["flop"] for r in records]  # the most different first
    both = [r for r in records if "difference" in r]
    assert [r["flop"] for r in both] == ["Ks9s5s"]  # the flop both databases solved
    # ... and the headline difference is that flop's: the others are left out, named
    assert d["ev"][0] == pytest.approx(both[0]["difference"]["ev"][0], abs=1e-9)
    scope = [w.value for w in at.warning if w.value.startswith("Compared on the 1 flop")]
    assert scope and "Left out: KsJh8d (only in this database); 8s8h5d (only in b.db)" in scope[0]
    row = table.set_index("flop").loc["Ks9s5s"]
    assert row["diff oop_ev"] == pytest.approx(both[0]["difference"]["ev"][0])
    assert row["diff oop_ev_pct"] == pytest.approx(both[0]["difference"]["ev_pct_pot"][0])
    # the other tree's half-pot bet is named in the difference, in words
    said = [md.value for md in at.markdown if md.value.startswith("**This database − b.db")]
    assert said and "Bet 50 % (50)" in said[0]
    assert (
        f"(over the 1 flop both have the line on): line reached {100 * d['reach']:+.2f}" in said[0]
    )
    # a size the first tree lacks: the second database's line is on its flops only
    at.button(key="reports_compare_clear").click().run()
    at.text_input(key=state.REPORTS_COMPARE_PATH).set_value("nothere.db").run()
    at.button(key="reports_compare_open").click().run()
    assert "no database 'nothere.db'" in at.error[0].value


def test_line_compare_without_a_common_flop(tmp_path: Path, line_dbs: dict[str, Path]) -> None:
    import sqlite3

    at = _line_page(tmp_path, line_dbs)
    with sqlite3.connect(tmp_path / "b.db") as con:  # b keeps only the paired flop
        for table in ("flops", "trees"):
            con.execute(f"DELETE FROM {table} WHERE flop = 'Ks9s5s'")
    at.text_input(key=state.REPORTS_COMPARE_PATH).set_value("b.db").run()
    at.button(key="reports_compare_open").click().run()
    at.button(key="reports_next_0").click().run()
    assert not at.exception and not at.error
    said = [w.value for w in at.warning]
    assert any("b.db has no flop in common with this database" in w for w in said), said
    assert all(x.proto.delta == "" for x in at.metric)  # no difference shown


def test_line_picker_on_a_summary_with_a_bad_card_label(
    tmp_path: Path, line_dbs: dict[str, Path]
) -> None:
    import sqlite3
    from dataclasses import replace

    from solver.batch.treedata import encode

    at = _line_page(tmp_path, line_dbs)
    with BatchStore.open(tmp_path / "a.db") as store:
        ts = store.tree("KsJh8d")
    assert ts is not None
    turn = next(i for i in range(1, ts.num_nodes) if ts["kind"][ts["parent"][i]] == 1)
    labels = list(ts.labels)
    labels[int(ts["step"][turn])] = "Zz"
    with sqlite3.connect(tmp_path / "a.db") as con:
        con.execute("UPDATE trees SET data = ? WHERE flop = 'KsJh8d'",
                    (encode(replace(ts, labels=labels)),))  # fmt: skip
    at.run()
    assert not at.exception
    errors = " ".join(e.value for e in at.error)
    assert "trees.data" in errors and "labels" in errors, errors


def test_line_picker_on_a_database_without_tree_summaries(
    tmp_path: Path, line_dbs: dict[str, Path]
) -> None:
    import shutil
    import sqlite3

    shutil.copy(line_dbs["b"], tmp_path / "old.db")
    with sqlite3.connect(tmp_path / "old.db") as con:
        con.execute("DROP TABLE trees")
    at = _page(tmp_path, **{R.DB: str(tmp_path / "old.db")})
    assert not at.exception
    said = " ".join(i.value for i in at.info)
    assert "made before tree summaries" in said and "two decisions" in said
    assert not [b for b in at.button if str(b.key).startswith("reports_next_")]
    assert at.get("plotly_chart")  # today's report is still there
