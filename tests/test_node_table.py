"""The node table (solver/study/node_table.py): a solved tree's per-node values computed in
one bottom-up pass and served per node must equal today's per-node analysis
(:func:`solver.study.analysis.analyze`, a walk per node and an enumeration of equity) — on a
river, a turn and a small flop with suit-isomorphic cards, at upper nodes, chance children
and last-street nodes — to float32 storage's rounding; the equity counted by sorted prefix
sums equals brute force, and covers the nodes the enumeration gave up on."""

from __future__ import annotations

import functools
import itertools
import threading

import numpy as np
import pytest

from solver import Engine, Game, make_rule
from solver.files.presets import load_preset
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import CHANCE, DECISION
from solver.study import analysis as A
from solver.study import node_table as NT
from solver.study import views as V

# float32 storage: 2⁻²⁴ relative per stored value, well inside this
RTOL = 1e-6


@functools.cache
def small_flop() -> Game:
    """A flop with suit-isomorphic turn cards (7s7h: spades and hearts swap)."""
    spec = HoldemSpec(board="7s7h2d", pot=200, stack=400, oop_range="AA,QQ,AKs",
                      ip_range="KK,JJ,AQs", bets="a", raises="a")  # fmt: skip
    return build_holdem(spec)


@functools.cache
def spot(name: str) -> Game:
    if name == "flop":
        return small_flop()
    if name == "leduc5":  # a toy game: a card dealt, cards for hands, no hold'em equity
        from solver.games import make_game

        return make_game("leduc5")
    if name == "turn":
        spec = HoldemSpec(board="Td9d6hQc", pot=200, stack=900, oop_range="AA,KK,T9s,87s,QJs",
                          ip_range="QQ,JJ,AKs,KQs,98s", bets="50%, a", raises="a")  # fmt: skip
        return build_holdem(spec)
    return load_preset("srp-river").build()


@functools.cache
def solved(name: str) -> tuple[Game, np.ndarray]:
    g = spot(name)
    e = Engine(g, make_rule("dcfr"))
    e.iterate(30)
    return g, e.average_strategy()


@functools.cache
def table(name: str) -> NT.NodeTable:
    g, sigma = solved(name)
    return NT.build(g, sigma, iteration=30)


def nodes_to_check(g: Game, sample: int, seed: int = 0) -> list[int]:
    """Every upper node, every chance node's children, and a sample of the rest."""
    t = g.tree
    up = set(NT.upper_nodes(g).tolist())
    kids = {c for n in np.flatnonzero(t.kind == CHANCE) for c in g.children(int(n))}
    rest = [
        n for n in range(g.num_nodes) if n not in up and n not in kids and t.kind[n] == DECISION
    ]
    rng = np.random.default_rng(seed)
    picked = rng.choice(rest, size=min(sample, len(rest)), replace=False).tolist()
    some_kids = sorted(kids)
    if len(some_kids) > 150:
        some_kids = rng.choice(some_kids, size=150, replace=False).tolist()
    return sorted(up) + some_kids + picked


def runs_out(g: Game, n: int) -> bool:
    """Whether no card is dealt below ``n`` on an unfinished board (an all-in there runs the
    cards out): today's enumeration read such a board as one showdown, every hand at 50 %
    (:func:`test_equity_facing_an_all_in_counts_the_runouts`)."""
    return (
        g.is_holdem
        and len(V.board_cards(g, n)) < 5
        and A.final_boards(g, n) == [(int(g.tree.board[n]), 1.0)]
    )


def assert_same(a: A.NodeAnalysis, b: A.NodeAnalysis, pot: float, equity: bool = True) -> None:
    assert (a.node, a.kind, a.player, a.actions) == (b.node, b.kind, b.player, b.actions)
    if a.strategy is not None:
        assert b.strategy is not None and b.frequencies is not None
        assert a.frequencies is not None
        np.testing.assert_array_equal(a.strategy, b.strategy)
        np.testing.assert_allclose(a.frequencies, b.frequencies, rtol=1e-12, atol=1e-15)
    for p in range(2):
        x, y = a.players[p], b.players[p]
        np.testing.assert_array_equal(x.valid, y.valid)
        np.testing.assert_allclose(x.reach, y.reach, rtol=1e-12, atol=1e-300)
        np.testing.assert_allclose(x.opponent_mass, y.opponent_mass, rtol=1e-12, atol=1e-300)
        # EV: float32 values divided by the same mass; a chip scale of the pot
        np.testing.assert_allclose(x.ev, y.ev, rtol=RTOL, atol=RTOL * pot)
        # (today's NaN where it gave up, and its 50 % facing an all-in: tested below)
        known = np.isfinite(x.equity) if equity else np.zeros(x.equity.shape, dtype=bool)
        np.testing.assert_allclose(x.equity[known], y.equity[known], rtol=0, atol=1e-12)
        np.testing.assert_allclose(x.eqr[known], y.eqr[known], rtol=RTOL, atol=RTOL)


@pytest.mark.parametrize(
    ("name", "sample"), [("river", 100), ("turn", 60), ("flop", 40), ("leduc5", 100)]
)
def test_every_served_node_equals_todays_analysis(name: str, sample: int) -> None:
    g, sigma = solved(name)
    tab = table(name)
    m = A.compatible(g)
    nodes = nodes_to_check(g, sample)
    assert any(g.tree.kind[n] == CHANCE for n in nodes) or name == "river"
    for n in nodes:
        a = A.analyze(g, sigma, n, compat=m)
        b = NT.analyze_node(tab, n, compat=m)
        pot = g.starting_pot if g.is_holdem else 10.0  # (chips: Leduc's pots are a few)
        assert_same(a, b, pot, equity=not runs_out(g, n))


def test_the_table_keeps_the_upper_nodes_in_float32() -> None:
    g, _ = solved("flop")
    tab = table("flop")
    up = NT.upper_nodes(g)
    t = g.tree
    # the chance nodes and their ancestors; no last-street node
    assert set(np.flatnonzero(t.kind == CHANCE).tolist()) <= set(up.tolist())
    for n in up.tolist():
        assert tab.row[n] >= 0
        assert n == 0 or tab.row[int(g.parents[n])] >= 0
    assert (tab.row >= 0).sum() == up.shape[0] == tab.rows
    assert tab.values[0].dtype == np.float32
    assert tab.nbytes == up.shape[0] * 4 * sum(g.num_hands) + 4 * g.num_nodes
    # a river spot deals nothing: nothing kept, every node walked when asked
    assert table("river").rows == 0


def test_upper_values_equal_a_walk_from_each_node_two_threads_too() -> None:
    g, sigma = solved("turn")
    tab = table("turn")
    two = NT.build(g, sigma, threads=2)
    for p in range(2):
        np.testing.assert_array_equal(tab.values[p], two.values[p])
    for n in NT.upper_nodes(g).tolist():
        for p in range(2):
            want = A.node_values(g, sigma, n, p)
            np.testing.assert_allclose(tab.values[p][tab.row[n]], want, rtol=RTOL, atol=1e-30)
    # a last-street node is walked when asked, on a pooled scratch: the same walk exactly
    rest = [n for n in g.decision_nodes().tolist() if tab.row[n] < 0][:: max(1, g.num_nodes // 50)]
    for n in rest:
        for p in range(2):
            got = NT.walk_values(g, NT.writable(sigma), n, p)
            np.testing.assert_array_equal(got, A.node_values(g, sigma, n, p))


def test_a_cancelled_build_stops() -> None:
    g, sigma = solved("turn")
    stop = threading.Event()
    stop.set()
    with pytest.raises(NT.Cancelled):
        NT.build(g, sigma, cancel=stop)


def test_action_evs_and_runouts_from_the_table_equal_the_views() -> None:
    g, sigma = solved("flop")
    tab = table("flop")
    m = A.compatible(g)
    t = g.tree
    for n in NT.upper_nodes(g).tolist()[:12]:
        if t.kind[n] == DECISION:
            np.testing.assert_allclose(
                NT.action_evs(tab, n, m), V.action_evs(g, sigma, n, m), rtol=RTOL, atol=RTOL * 200
            )
    chance = [int(c) for c in np.flatnonzero(t.kind == CHANCE)][-1]  # a river's: exact enumeration
    got = NT.runout_report(tab, chance, m)
    want = V.runout_report(g, sigma, chance)
    assert [(r.card, r.node, r.player, r.actions) for r in got] == [
        (r.card, r.node, r.player, r.actions) for r in want
    ]
    for r, s in zip(got, want, strict=True):
        for x, y in zip(r.summaries, s.summaries, strict=True):
            assert x.combos == pytest.approx(y.combos, rel=1e-12)
            assert x.ev == pytest.approx(y.ev, rel=RTOL, abs=RTOL * 200)
            assert x.equity == pytest.approx(y.equity, abs=1e-12)


# ----- equity --------------------------------------------------------------------------------
def test_prefix_sum_shares_equal_brute_force() -> None:
    rng = np.random.default_rng(3)
    cards_h = np.array([[0, 1], [2, 3], [4, 5], [0, 2], [6, 7]])
    cards_o = np.array([[0, 1], [2, 8], [9, 10], [11, 12], [4, 13], [6, 7]])
    same = np.array([0, -1, -1, -1, 5])  # hero hands 0 and 4 are opponent hands 0 and 5
    for _ in range(20):
        kh = rng.integers(-1, 4, (4, 5))
        ko = rng.integers(-1, 4, (4, 6))
        ko[:, 0], ko[:, 5] = kh[:, 0], kh[:, 4]  # the same cards make the same hand
        ro = rng.random(6)
        num, den = NT._shares(kh, ko, cards_h, cards_o, same, ro)
        n_ = np.zeros(5)
        d_ = np.zeros(5)
        for b, h, o in itertools.product(range(4), range(5), range(6)):
            if kh[b, h] < 0 or ko[b, o] < 0 or set(cards_h[h]) & set(cards_o[o]):
                continue
            d_[h] += ro[o]
            n_[h] += ro[o] * ((kh[b, h] > ko[b, o]) + 0.5 * (kh[b, h] == ko[b, o]))
        np.testing.assert_allclose(num, n_, rtol=1e-12, atol=1e-12)
        np.testing.assert_allclose(den, d_, rtol=1e-12, atol=1e-12)


def test_flop_equity_where_the_enumeration_gave_up_equals_it_without_isomorphism(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Under suit-isomorphic turn cards today's enumeration says NaN at the flop's nodes; the
    same game without isomorphism (every card its own node) enumerates them, budget raised."""
    g = small_flop()
    full = g.without_isomorphism()
    assert g.has_isomorphism and full.num_nodes > g.num_nodes
    monkeypatch.setattr(A, "EQUITY_BUDGET", 10**12)
    sig, fsig = (NT.writable(np.asarray(_uniform(x))) for x in (g, full))
    for hist in [(), ("k",), ("k", "k")]:
        n = g.find(hist)
        f = full.find(hist)
        r = A.path_reach(g, sig, n)
        assert np.isnan(A.equities(g, n, r)[0]).all()  # today's: gave up
        want = A.equities(full, f, A.path_reach(full, fsig, f))
        got = NT.fast_equities(g, n, r)
        for p in range(2):
            assert np.isfinite(got[p]).all()
            np.testing.assert_allclose(got[p], want[p], rtol=0, atol=1e-12)


def _uniform(g: Game) -> np.ndarray:
    from solver.cfr.layout import uniform_strategy

    return uniform_strategy(g)


def test_equity_facing_an_all_in_counts_the_runouts() -> None:
    """A node whose line has no card left to deal (an all-in called or folded below it):
    today's enumeration read the unfinished board as one showdown, every hand 50 %; the
    table's is the runouts', as the enumeration at the same board with the same reach
    gives it at a node above (the root)."""
    g, sigma = solved("turn")
    tab = table("turn")
    n = g.find(("b:900",))
    assert not any(g.tree.kind[c] == CHANCE for c in g.children(n))
    r = A.path_reach(g, NT.writable(sigma), n)
    want = A.equities(g, 0, r)  # the root: the same turn board, every river enumerated
    got = NT.analyze_node(tab, n)
    for p in range(2):
        v = got.players[p]
        np.testing.assert_allclose(v.equity[v.valid], want[p][v.valid], rtol=0, atol=1e-12)
    assert np.nanmax(np.abs(got.players[0].equity - 0.5)) > 0.3  # not everyone at 50 %


# ----- the job builds it after the solve --------------------------------------------------------
def test_a_finished_solve_builds_its_table_in_the_background_and_releases_it() -> None:
    from solver.run.jobs import SolveJob

    g = spot("turn")
    job = SolveJob(g, make_rule("dcfr"), max_iterations=12, check_every=6).start()
    assert job.node_table() is None  # nothing while it runs
    job.wait_for(lambda p: p.finished, timeout=120)
    # finished: Explore's first view waits for the table, even before its thread has started
    assert job.building_table or job.progress.table == "ready"
    got = job.node_table(timeout=120)
    assert not job.building_table
    assert got is not None and job.progress.table == "ready"
    assert got.iteration == 12 and job.progress.table_bytes == got.nbytes
    avg, it = job.average_strategy()
    assert it == 12 and not avg.flags.writeable  # readers still get a read-only array
    np.testing.assert_array_equal(got.sigma, avg)
    want = NT.build(g, avg, 12)
    for p in range(2):
        np.testing.assert_array_equal(got.values[p], want.values[p])
    assert job.join(30.0)  # its thread ends just after it reads finished (release needs that)
    job.release()
    assert job.node_table() is None


def test_a_solve_made_without_a_table_builds_none() -> None:
    from solver.run.jobs import SolveJob

    job = SolveJob(spot("turn"), make_rule("dcfr"), max_iterations=2, node_table=False).start()
    job.wait_for(lambda p: p.finished, timeout=120)
    job.join(60)
    assert job.node_table(timeout=1.0) is None and job.progress.table == ""
