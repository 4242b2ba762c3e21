"""benchmarks/floor.py: the triad kernel computes a = b + s·c, and the byte model of an
iteration equals counts made by hand from a tiny game's own arrays (no timings)."""

from __future__ import annotations

import functools
from types import ModuleType

import numpy as np
import pytest
from bench_helpers import benchmark

from solver.cfr.layout import make_storage
from solver.cfr.rules import make_rule
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN, Game


@functools.cache
def river(rake_pct: float = 0.0) -> Game:
    """OOP checks or jams, IP checks or jams behind, a jam is folded to or called: decision
    nodes 0 (OOP), 1 and 2 (IP), 4 (OOP), two actions each; two folds, three showdowns."""
    return build_holdem(HoldemSpec(board="Td9d6hQc2s", pot=200, stack=100, oop_range="AA,KK",
                                   ip_range="QQ,JJ", bets="a", raises="",
                                   rake_pct=rake_pct))  # fmt: skip


@functools.cache
def flop() -> Game:
    """12 hands against 6: a swap of the players' hand counts shows."""
    return build_holdem(HoldemSpec(board="Td9d6h", pot=200, stack=100, oop_range="AA,KK",
                                   ip_range="QQ", bets="a", raises=""))  # fmt: skip


def floor() -> ModuleType:
    return benchmark("floor")


def test_triad_computes_b_plus_s_c_on_its_part_only() -> None:
    f = floor()
    rng = np.random.default_rng(5)
    b = 1.0 + rng.random(1000)  # positive terms: no cancellation, one rounding or two
    c = 1.0 + rng.random(1000)
    a = np.full(1000, -7.0)
    f.triad(a, b, c, 0.5, 100, 900)
    np.testing.assert_allclose(a[100:900], b[100:900] + 0.5 * c[100:900], rtol=2.0**-51)
    assert np.all(a[:100] == -7.0) and np.all(a[900:] == -7.0)
    tr = f.measure_triad(0.024, 2, 2)  # raises if any element is wrong
    assert tr.threads == 2 and tr.elements == 1000 and tr.mb == pytest.approx(0.024)
    assert tr.gbs_write_allocate == pytest.approx(tr.gbs_stream * 32.0 / 24.0)


@pytest.mark.parametrize("precision", ["float64", "float32", "compressed"])
def test_river_storage_traffic_is_the_arrays_nbytes(precision: str) -> None:
    g = river()
    m = floor().iteration_bytes(g, precision, average_every=2)
    st = make_storage(g, make_rule("dcfr-tuned"), precision)
    assert st.regrets.nbytes == 84 * {"float64": 8, "float32": 4, "compressed": 2}[precision]
    # every regret: read and written in its owner's pass, read in the other (the strategy)
    assert m.total("regrets") == 3 * st.regrets.nbytes
    # the sums: read and written in the other player's pass, every second iteration
    assert m.total("sums") == 2 * st.cumulative.nbytes / 2
    # 16-bit: each node's scale read and written in its owner's pass, and its sums' scale
    # every second iteration in the other's
    assert m.total("scales") == (4 * 16 + 4 * 16 / 2 if precision == "compressed" else 0)
    # per pass: two decision nodes each, two folds, three showdowns; two passes
    assert m.nodes == {"decision (traverser)": 4, "decision (opponent)": 4, "chance": 0,
                       "fold": 4, "showdown": 6, "runout": 0}  # fmt: skip


@pytest.mark.parametrize("trav", [0, 1])
def test_one_pass_reads_its_own_and_the_opponents_regrets(trav: int) -> None:
    g = flop()
    m = floor().pass_bytes(g, "float32", 2, (trav,))
    cells = [0, 0]  # regret cells of each player's decision nodes
    for n in g.decision_nodes():
        _, na, nh = g.block(int(n))
        cells[int(g.tree.player[n])] += na * nh
    assert cells[0] + cells[1] == g.action_size
    assert m.kinds["decision (traverser)"]["regrets"] == 2 * 4 * cells[trav]
    assert m.kinds["decision (opponent)"]["regrets"] == 4 * cells[1 - trav]
    assert m.kinds["decision (opponent)"]["sums"] == 2 * 4 * cells[1 - trav] / 2


def _showdown_tables(g: Game, t: int) -> int:
    nt, no = g.num_hands[t], g.num_hands[1 - t]
    b = g.boards
    return (b.order[0, 1 - t, :no].nbytes + b.sd_src[0, t, : 2 * no].nbytes
            + b.sd_cstart[0, t].nbytes + b.sd_pack[0, t, :nt].nbytes
            + b.valid[0, t, :nt].nbytes + b.sd_row[:1].nbytes)  # fmt: skip


def _fold_tables(g: Game, t: int) -> int:
    n0, n1 = g.num_hands
    return (g.hands.pack[0, :n0].nbytes + g.hands.pack[1, :n1].nbytes
            + g.boards.valid[0, t, : g.num_hands[t]].nbytes)  # fmt: skip


@pytest.mark.parametrize("rake_pct", [0.0, 5.0])
def test_river_tables_tree_and_vectors_by_hand(rake_pct: float) -> None:
    g = river(rake_pct)
    assert g.num_hands == (12, 9)  # QQ: three combos left beside the Qc
    raked = rake_pct > 0
    m = floor().iteration_bytes(g, "float32", average_every=2)
    # each table row once a pass: the one board's rows, whatever the node
    unique = sum(_fold_tables(g, t) + _showdown_tables(g, t)
                 - g.boards.valid[0, t, : g.num_hands[t]].nbytes for t in (0, 1))  # fmt: skip
    assert m.tables_unique == unique
    # per visit: two folds and three showdowns a pass (a raked showdown adds a fold)
    per_visit = sum(2 * _fold_tables(g, t) + 3 * _showdown_tables(g, t) for t in (0, 1))
    if raked:
        per_visit += sum(3 * _fold_tables(g, t) for t in (0, 1))
    assert m.total("tables") == per_visit
    # tree fields: 30 bytes a decision node, 21 a fold or showdown; 9 nodes, two passes
    assert m.total("tree") == 2 * (4 * 30 + 5 * 21)
    # vectors, float32 (4 bytes), pass t with nt, no hands: the traverser's two nodes
    # 2 × (4·2·nt + 2·nt); the opponent's two 2 × (4·2·no + 2·2·nt + nt + (no + 2·no)/2);
    # two folds 2 × (no + nt); three showdowns 3 × (3·no + nt): 35·nt + 30·no a pass;
    # raked, each showdown adds a fold's no + nt and its row added, 3·nt: 3·no + 12·nt
    expect = 0
    for trav in (0, 1):
        nt, no = g.num_hands[trav], g.num_hands[1 - trav]
        expect += 4 * (35 * nt + 30 * no + (12 * nt + 3 * no if raked else 0))
    assert m.total("vectors") == expect
    assert m.floor_bytes == m.storage + m.total("tree") + unique
    # a float64 walk moves twice the float32 walk's vectors
    assert floor().iteration_bytes(g, "float64").total("vectors") == 2 * expect


def test_flop_chance_and_runout_tables_by_hand() -> None:
    g = flop()
    t = g.tree
    assert g.has_isomorphism and np.count_nonzero(t.kind == RUNOUT) > 0
    m = floor().iteration_bytes(g, "float32")
    b = g.boards
    chance = 0
    for trav in (0, 1):
        nt, no = g.num_hands[trav], g.num_hands[1 - trav]
        for node in np.flatnonzero(t.kind == CHANCE):
            # every card it deals (Game.chance_cards: canonical cards and their images)
            for _, child, row in g.chance_cards(int(node)):
                if row < 0:  # dealt: both players' valid rows of its board
                    cb = t.board[child]
                    chance += b.valid[cb, 1 - trav, :no].nbytes + b.valid[cb, trav, :nt].nbytes
                else:  # an image: its board's valid row and the permutation row
                    chance += 8 * nt + g.hands.perm[row, trav, :nt].nbytes
    assert m.kinds["chance"]["tables"] == chance
    runouts = np.flatnonzero(t.kind == RUNOUT)
    per_visit = sum(b.runout_eq[t.runout[n], 1 - p, : g.num_hands[1 - p], : g.num_hands[p]].nbytes
                    for n in runouts for p in (0, 1))  # fmt: skip
    assert m.kinds["runout"]["tables"] == per_visit
    assert m.nodes["chance"] == 2 * np.count_nonzero(t.kind == CHANCE)
    # each table row once a pass, collected node by node
    unique = 0
    for trav in (0, 1):
        nt, no = g.num_hands[trav], g.num_hands[1 - trav]
        mine: set[int] = set()  # boards whose valid row of trav's hands is read
        theirs: set[int] = set()
        perms: set[int] = set()
        shows: set[int] = set()
        outs: set[int] = set()
        for n in range(g.num_nodes):
            kind = int(t.kind[n])
            if kind in (FIXED, SHOWDOWN):
                mine.add(int(t.board[n]))
            if kind == SHOWDOWN:
                shows.add(int(t.board[n]))
            if kind == RUNOUT:
                outs.add(int(t.runout[n]))
            if n and t.kind[g.parents[n]] == CHANCE:
                mine.add(int(t.board[n]))
                theirs.add(int(t.board[n]))
                for e in range(t.iso_start[n], t.iso_start[n] + t.iso_count[n]):
                    mine.add(int(t.iso_board[e]))
                    perms.add(int(t.iso_perm[e]))
        unique += (
            g.hands.pack[0, : g.num_hands[0]].nbytes + g.hands.pack[1, : g.num_hands[1]].nbytes
        )
        unique += sum(b.valid[x, trav, :nt].nbytes for x in mine)
        unique += sum(b.valid[x, 1 - trav, :no].nbytes for x in theirs)
        unique += sum(g.hands.perm[x, trav, :nt].nbytes for x in perms)
        for x in shows:
            r = b.sd_row[x]
            unique += (b.order[x, 1 - trav, :no].nbytes + b.sd_src[r, trav, : 2 * no].nbytes
                       + b.sd_cstart[r, trav].nbytes + b.sd_pack[r, trav, :nt].nbytes
                       + b.sd_row[:1].nbytes)  # fmt: skip
        unique += sum(b.runout_eq[x, 1 - trav, :no, :nt].nbytes for x in outs)
    assert m.tables_unique == unique
    # tree fields a pass: 30 bytes a decision node, 21 a fold or showdown, 25 a runout, 13 a
    # chance node and 20 a card it deals, 8 an image
    size = {DECISION: 30, FIXED: 21, SHOWDOWN: 21, RUNOUT: 25, CHANCE: 13}
    tree = sum(size[int(k)] for k in t.kind)
    for c in np.flatnonzero(t.kind == CHANCE):
        tree += sum(20 if row < 0 else 8 for _, _, row in g.chance_cards(int(c)))
    assert m.total("tree") == 2 * tree


def test_byte_model_refuses_one_card_games_and_unknown_storage() -> None:
    from solver.api import make_game

    with pytest.raises(ValueError, match="two-card"):
        floor().iteration_bytes(make_game("leduc"), "float64")
    with pytest.raises(ValueError, match="precision"):
        floor().iteration_bytes(river(), "float16")


def test_bad_flags_name_the_flag(capsys: pytest.CaptureFixture[str]) -> None:
    for argv, flag in ((["--spots", "T9"], "--spots"), (["--threads", "0"], "--threads"),
                       (["--storage", "int8"], "--storage"), (["--iterations", "3"],
                       "--iterations"), (["--triad-mb", "1e12"], "--triad-mb")):  # fmt: skip
        with pytest.raises(SystemExit) as exc:
            floor().main(argv)
        assert exc.value.code == 2
        assert f"error: {flag}" in capsys.readouterr().err
