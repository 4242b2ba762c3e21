"""What a report at a line means, checked from outside the summary code: the mix is the
frequency as dealt — an independent brute force enumerates every deal of hands (the pairs
that share no card with each other or the board, each a card of ``any``) weighted by the
ranges and the line's strategy products — and the report says so (``mix_definition``,
``min_reach``). Comparing two databases with different flop sets compares the flops both
have the line on and names the others (or refuses when there are none). A tree summary whose
card labels are not cards, a stored flop that is not three cards, and ``report_at``'s bad
arguments end in the package's own errors — never exit 70. The databases are solved in this
process (tests/batch_helpers.py): no cluster."""

from __future__ import annotations

import itertools
import json
import shutil
import sqlite3
import struct
import zlib
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from batch_helpers import TEMPLATE, solved_db, tiny_spec
from cli_helpers import run

from solver.batch.linereport import report_at
from solver.batch.spec import BatchError
from solver.batch.store import BatchStore, read_solve_file
from solver.batch.treedata import MAGIC, TreeDataError, decode, encode
from solver.files.export import load_solve
from solver.games.model import DECISION, Game
from solver.poker.handclass import DRAWS, MADE, classify_hands
from solver.study.analysis import analyze

TOL = 2e-4  # stored shares are exact to 1/65,534, reaches are float32


@pytest.fixture(scope="module")
def dbs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """``a``: the all-in tree on a rainbow, a two-tone and a monotone flop, solves saved;
    ``b``: the half-pot-and-all-in tree on two of them and a paired flop."""
    folder = tmp_path_factory.mktemp("defs")
    out = {}
    for name, template, flops, save in (
        ("a", TEMPLATE, "KsJh8d, Qs8s3h, Ks9s5s", True),
        ("b", replace(TEMPLATE, bets="50%, a"), "KsJh8d, Qs8s3h, 8s8h5d", False),
    ):
        out[name] = solved_db(
            folder / f"{name}.db", tiny_spec(template=template, flops=flops, save_solves=save)
        )
    return out


def _report(db: Path, line: str, *more: str) -> tuple[dict[str, dict], dict]:
    r = run("report", str(db), "--line", line, "--json", *more)
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    return {rec["flop"]: rec for rec in lines[:-1]}, lines[-1]


# ----- the mix as dealt, by brute force ---------------------------------------------------------


def _brute(game: Game, sigma: np.ndarray, flop: str, steps: Sequence[str]) -> dict[str, Any]:
    """The line's numbers by enumerating deals: every OOP hand × IP hand × (for ``any``) every
    card neither hand nor the board holds, each with probability ∝ w0·w1 (the card uniform
    among those left), times the strategy of each action on the line for the hand that took
    it. ``den0`` the deals' total, ``den`` the line's, ``num`` {action: mass}; ``classes``
    {class: (den, num)} of the actor's hand at the line's node."""
    names = list(game.card_names)
    board = {names.index(flop[i : i + 2]) for i in range(0, 6, 2)}
    hands = [
        [
            (i, {int(c) for c in game.hands.cards[p, i] if c >= 0}, float(game.hands.weights[p, i]))
            for i in range(int(game.num_hands[p]))
        ]
        for p in range(2)
    ]
    located: dict[tuple[str, ...], tuple[int, tuple[int, ...]]] = {}
    mapped: dict[tuple[int, int, tuple[int, ...]], int] = {}

    def locate(hist: tuple[str, ...]) -> tuple[int, tuple[int, ...]]:
        if hist not in located:
            node, cmap = game.locate(list(hist))
            located[hist] = (node, tuple(cmap))
        return located[hist]

    def hand_at(p: int, i: int, cmap: tuple[int, ...]) -> int:
        key = (p, i, cmap)
        if key not in mapped:
            mapped[key] = game.map_hand(p, i, list(cmap))
        return mapped[key]

    den0 = den = 0.0
    num: dict[str, float] = {}
    classes: dict[str, list[float]] = {}
    for (i0, c0, w0), (i1, c1, w1) in itertools.product(*hands):
        if c0 & c1 or (c0 | c1) & board:
            continue
        den0 += w0 * w1
        if "any" in steps:
            left = [c for c in range(52) if c not in board | c0 | c1]
            deals = [
                ([f"d:{names[c]}" if s == "any" else s for s in steps], 1.0 / len(left))
                for c in left
            ]
        else:
            deals = [(list(steps), 1.0)]
        for hist, pc in deals:
            prob = w0 * w1 * pc
            for k, step in enumerate(hist):
                node, cmap = locate(tuple(hist[:k]))
                if game.tree.kind[node] != DECISION:
                    continue  # a card: its probability is pc
                p = int(game.tree.player[node])
                off, _na, nh = game.block(node)
                ai = game.action_labels(node).index(step)
                prob *= float(sigma[off + ai * nh + hand_at(p, (i0, i1)[p], cmap)])
            if prob <= 0:
                continue
            node, cmap = locate(tuple(hist))
            p = int(game.tree.player[node])
            off, na, nh = game.block(node)
            h = hand_at(p, (i0, i1)[p], cmap)
            den += prob
            mix = {
                a: float(sigma[off + j * nh + h]) for j, a in enumerate(game.action_labels(node))
            }
            for a, f in mix.items():
                num[a] = num.get(a, 0.0) + prob * f
            if "any" not in steps:  # the flop's classes of the actor's hand
                held = sorted((c0, c1)[p])
                made, draws = classify_hands(sorted(board), np.array([held]))
                keys = [
                    MADE[int(made[0])],
                    *(d for d, on in zip(DRAWS, draws[0], strict=True) if on),
                ]
                for key in keys:
                    row = classes.setdefault(key, [0.0] * (1 + na))
                    row[0] += prob
                    for j, a in enumerate(game.action_labels(node)):
                        row[1 + j] += prob * mix[a]
    return {"den0": den0, "den": den, "num": num, "classes": classes}


@pytest.mark.parametrize("line", ["k", "b:100", "k k any"])
def test_line_mix_is_the_frequency_as_dealt(dbs: dict[str, Path], line: str) -> None:
    flops, final = _report(dbs["a"], line)
    assert final["mix_definition"] == "dealt" and final["min_reach"] == pytest.approx(0.01)
    with BatchStore.open(dbs["a"]) as store:
        rows = store.rows("done")
    steps = line.split()
    agg_num: dict[str, float] = {}
    agg_den = 0.0
    apart = 0.0  # how far Explore's own-range frequencies are from the dealt ones
    for row in rows:
        ls = load_solve(read_solve_file(dbs["a"], row.solve_file))
        sigma = ls.engine.average_strategy()
        b = _brute(ls.game, sigma, row.flop, steps)
        rec = flops[row.flop]
        assert rec["reach"] == pytest.approx(b["den"] / b["den0"], rel=1e-5), row.flop
        assert set(rec["mix"]) == set(b["num"])
        for a, m in b["num"].items():
            assert rec["mix"][a] == pytest.approx(m / b["den"], abs=TOL), (row.flop, a)
            agg_num[a] = agg_num.get(a, 0.0) + row.weight * m / b["den0"]
        agg_den += row.weight * b["den"] / b["den0"]
        if "any" not in steps:
            node = ls.game.locate(steps)[0]
            own = analyze(ls.game, sigma, node).frequencies
            assert own is not None
            acts = ls.game.action_labels(node)
            apart = max(
                apart, *(abs(f - b["num"][a] / b["den"]) for a, f in zip(acts, own, strict=True))
            )
            got = {c["class"]: c["mix"] for c in rec["classes"]}
            for key, (d, *nums) in b["classes"].items():
                for a, m in zip(acts, nums, strict=True):
                    assert got[key][a] == pytest.approx(m / d, abs=TOL), (row.flop, key, a)
    # over the flops: each flop by its weight × how often the line is dealt there
    for a, m in agg_num.items():
        assert final["aggregate"]["mix"][a] == pytest.approx(m / agg_den, abs=TOL), a
    if "any" not in steps:  # card removal against the opponent's range moves these tiny ranges
        assert apart > 10 * TOL


def _strip_definitions(blob: bytes) -> bytes:
    """A tree summary's bytes as made before the header said its definitions."""
    payload = zlib.decompress(blob[len(MAGIC) :])
    (hlen,) = struct.unpack("<I", payload[:4])
    header = json.loads(payload[4 : 4 + hlen])
    del header["mix"], header["min_reach"]
    h = json.dumps(header, separators=(",", ":")).encode()
    return MAGIC + zlib.compress(struct.pack("<I", len(h)) + h + payload[4 + hlen :])


def _copy(db: Path, to: Path, *sql: tuple[str, tuple[object, ...]]) -> Path:
    to.unlink(missing_ok=True)
    shutil.copy(db, to)
    with sqlite3.connect(to) as con:
        for q, args in sql:
            con.execute(q, args)
    return to


def test_the_flop_report_says_its_definition(dbs: dict[str, Path]) -> None:
    r = run("report", str(dbs["a"]), "--json")
    assert r.returncode == 0
    final = json.loads(r.stdout.splitlines()[-1])
    assert final["final"] is True and final["mix_definition"] == "own_range"


def test_older_summaries_say_their_definition(dbs: dict[str, Path], tmp_path: Path) -> None:
    with sqlite3.connect(dbs["a"]) as con:
        blobs = dict(con.execute("SELECT flop, data FROM trees").fetchall())
    old = decode(_strip_definitions(blobs["KsJh8d"]))
    assert (old.mix_definition, old.min_reach) == ("own_range", 0.01)
    one = _copy(dbs["a"], tmp_path / "one.db", ("UPDATE trees SET data = ? WHERE flop = ?",
                (_strip_definitions(blobs["KsJh8d"]), "KsJh8d")))  # fmt: skip
    assert _report(one, "k")[1]["mix_definition"] == "mixed"
    r = run("report", str(one), "--line", "k")
    assert r.returncode == 0 and "mixes of two definitions" in r.stdout
    every = [("UPDATE trees SET data = ? WHERE flop = ?", (_strip_definitions(b), f))
             for f, b in blobs.items()]  # fmt: skip
    old_db = _copy(dbs["a"], tmp_path / "old.db", *every)
    assert _report(old_db, "k")[1]["mix_definition"] == "own_range"
    # a header with a definition the program does not know is refused, naming it
    payload = zlib.decompress(blobs["KsJh8d"][len(MAGIC) :])
    bad = payload.replace(b'"mix":"dealt"', b'"mix":"other"')
    with pytest.raises(TreeDataError, match="mix: is 'other'"):
        decode(MAGIC + zlib.compress(bad))
    bad = payload.replace(b'"min_reach":0.01', b'"min_reach":2.00')
    with pytest.raises(TreeDataError, match=r"min_reach: is '2\.0', not a probability"):
        decode(MAGIC + zlib.compress(bad))


# ----- comparing databases: on the flops both have ------------------------------------------------


def _over(recs: list[dict], key: str, i: int | None = None) -> float:
    """Flops' numbers as docs/batch.md says: weighted by weight × reach."""
    ws = [r["weight"] * r["reach"] for r in recs]
    vals = [r[key] if i is None else r[key][i] for r in recs]
    return sum(w * v for w, v in zip(ws, vals, strict=True)) / sum(ws)


def test_compare_on_the_common_flops(dbs: dict[str, Path], tmp_path: Path) -> None:
    flops_a, _ = _report(dbs["a"], "k")
    flops_b, _ = _report(dbs["b"], "k")
    flops, final = _report(dbs["a"], "k", "--compare", str(dbs["b"]))
    assert final["common_flops"] == ["KsJh8d", "Qs8s3h"]
    assert final["left_out"] == {"this": ["Ks9s5s"], "compare": ["8s8h5d"]}
    common = final["common_flops"]
    a = [flops_a[f] for f in common]
    b = [flops_b[f] for f in common]
    d = final["difference"]
    for i in range(2):
        want = _over(a, "ev", i) - _over(b, "ev", i)
        assert d["ev"][i] == pytest.approx(want, abs=1e-3)
        assert final["common_aggregate"]["ev"][i] == pytest.approx(_over(a, "ev", i), abs=1e-3)
        assert final["compare"]["common_aggregate"]["ev"][i] == pytest.approx(
            _over(b, "ev", i), abs=1e-3
        )
    for act in ("k", "b:100"):
        ma = sum(r["weight"] * r["reach"] * r["mix"][act] for r in a) / sum(
            r["weight"] * r["reach"] for r in a
        )
        mb = sum(r["weight"] * r["reach"] * r["mix"].get(act, 0.0) for r in b) / sum(
            r["weight"] * r["reach"] for r in b
        )
        assert d["mix"][act] == pytest.approx(ma - mb, abs=2 * TOL)
    reach = [sum(r["weight"] * r["reach"] for r in x) / sum(r["weight"] for r in x) for x in (a, b)]
    assert d["reach"] == pytest.approx(reach[0] - reach[1], abs=1e-6)
    # the whole databases' aggregates stay as they were, and differ from the common ones
    whole = final["aggregate"]["ev"][0] - final["compare"]["aggregate"]["ev"][0]
    assert abs(whole - d["ev"][0]) > 0.1
    assert final["flops"] == 3 and final["compare"]["aggregate"]["flops"] == 3
    assert {f for f, rec in flops.items() if "difference" in rec} == set(common)
    r = run("report", str(dbs["a"]), "--line", "k", "--compare", str(dbs["b"]))
    assert r.returncode == 0
    assert "over the 2 flops both have the line on" in r.stdout
    assert "left out, only in this database: Ks9s5s" in r.stdout
    assert f"left out, only in {dbs['b']}: 8s8h5d" in r.stdout
    # no flop in common: refused, naming the flag
    c = _copy(dbs["b"], tmp_path / "c.db", ("DELETE FROM flops WHERE flop IN (?, ?)",
              ("KsJh8d", "Qs8s3h")), ("DELETE FROM trees WHERE flop IN (?, ?)",
              ("KsJh8d", "Qs8s3h")))  # fmt: skip
    r = run("report", str(dbs["a"]), "--line", "k", "--compare", str(c), "--json")
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.startswith(f"error: --compare: {c} has no flop in common with")
    assert "8s8h5d there" in r.stderr and "\n" not in r.stderr.strip()


# ----- hostile labels and flops, report_at's arguments ------------------------------------------


@pytest.mark.parametrize(
    ("label", "where"),
    [("Zz", "card"), ("d:Zz", "card"), ("d:kh", "card"), ("k", "card"), ("d:Kh", "action")],
)
def test_labels_are_checked_as_cards(
    dbs: dict[str, Path], tmp_path: Path, label: str, where: str
) -> None:
    with BatchStore.open(dbs["a"]) as store:
        ts = store.tree("KsJh8d")
    assert ts is not None
    par, step, kind = ts["parent"], ts["step"], ts["kind"]
    kids = np.arange(1, ts.num_nodes)
    dealt = kind[par[kids]] == 1
    pick = kids[dealt][0] if where == "card" else kids[~dealt][0]
    labels = list(ts.labels)
    labels[int(step[pick])] = label
    blob = encode(replace(ts, labels=labels))
    with pytest.raises(TreeDataError, match="labels: hold"):
        decode(blob)
    bad = _copy(dbs["a"], tmp_path / "bad.db",
                ("UPDATE trees SET data = ? WHERE flop = 'KsJh8d'", (blob,)))  # fmt: skip
    for args in (
        (str(bad), "--line", "k k any"),
        (str(bad), "--line", "k k any", "--street", "turn", "--json"),
        (str(dbs["a"]), "--line", "k k any", "--compare", str(bad)),
    ):
        r = run("report", *args)
        assert r.returncode == 2, (args, r.returncode, r.stderr)
        flag = "--compare" if args[0] != str(bad) else "FILE"
        assert r.stderr.startswith(f"error: {flag}: {bad}: flop KsJh8d, column trees.data: labels")
    with pytest.raises(BatchError, match="labels: hold"):  # the line picker's call
        report_at(str(bad), ["k", "k"], None, [], with_next=True)


def test_a_stored_flop_that_is_not_three_cards(dbs: dict[str, Path], tmp_path: Path) -> None:
    for i, text in enumerate(("KsJhZz", "KsKsKs", "KsJh8")):
        bad = _copy(dbs["a"], tmp_path / f"flop{i}.db",
                    ("UPDATE flops SET flop = ? WHERE flop = 'KsJh8d'", (text,)),
                    ("UPDATE trees SET flop = ? WHERE flop = 'KsJh8d'", (text,)))  # fmt: skip
        r = run("report", str(bad), "--line", "k")
        assert r.returncode == 2 and r.stderr.startswith(f"error: FILE: {bad}: flop '{text}'")


@pytest.mark.parametrize(
    ("steps", "street", "groups", "field"),
    [
        (["k"], "turn", [], "street"),
        (["k"], 0, [], "street"),
        (["k"], True, [], "street"),
        (["k", "k", "any"], 3, [], "street"),
        (["k"], None, ["x"], "groups"),
        (["k"], None, "suits", "groups"),
        ("k", None, [], "steps"),
        ([5], None, [], "steps"),
        (["d:Zz"], None, [], "steps"),
        (["k"] * 101, None, [], "steps"),
    ],
)
def test_report_at_refuses_bad_arguments(
    dbs: dict[str, Path], steps: object, street: object, groups: object, field: str
) -> None:
    with pytest.raises(BatchError) as caught:
        report_at(str(dbs["a"]), steps, street, groups)  # type: ignore[arg-type]
    assert caught.value.field == field and caught.value.message


def test_a_line_longer_than_any_tree_names_the_flag(dbs: dict[str, Path]) -> None:
    r = run("report", str(dbs["a"]), "--line", "k " * 150)
    assert r.returncode == 2 and r.stderr.strip() == "error: --line: has 150 steps, at most 100"
