"""Sampled CFR (solver/cfr/sampling/): exact unbiasedness by enumerating every outcome of a
pass, draw-for-draw agreement with a slow Python reference, reproducibility, convergence, the
deal sampler's distribution, discounting at period boundaries, and the engine's interface."""

from __future__ import annotations

import functools
import threading
from dataclasses import replace

import numpy as np
import numpy.typing as npt
import pytest
from conftest import full_game, game
from mccfr_reference import ReferenceSampler, SplitMix64

from solver import Engine, make_rule
from solver.cfr.bestresponse import exploitability, node_values
from solver.cfr.options import SolveOptions
from solver.cfr.reach import chance_factor, path_reach
from solver.cfr.sampling.draws import deal_table, sample_deals, scripted_draws, uniforms
from solver.cfr.sampling.engine import SampledEngine, sampled_pass
from solver.cfr.sampling.rules import SAMPLERS, make_sampler
from solver.cfr.sampling.walk import SampledStorage, make_work
from solver.cfr.update import regret_matching_all
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import Game

Array = npt.NDArray[np.float64]

# Tiny hold'em spots: a river with card removal between the ranges (AhKh vs KK, AA vs AcKc)
# and a turn whose hearts and clubs are interchangeable (suit isomorphism at the river deal),
# all-in only so that one chance node lies on any path (check-check); calls go to runouts.
RIVER = HoldemSpec(
    board="Td9d6hQc2s", pot=200, stack=900, oop_range="AA,QQ,AhKh", ip_range="KK,AcKc,Td9c",
    bets="50%, a", raises="a",
)  # fmt: skip
TURN = HoldemSpec(
    board="Td9d6s2s", pot=200, stack=900, oop_range="AhAc,KhKc", ip_range="AhKh,AcKc,QQ",
    bets="a", raises="",
)  # fmt: skip
# The brief's river spot (34 × 27 hands) for the deal's distribution
BIG_RIVER = HoldemSpec(
    board="Td9d6hQc2s", pot=200, stack=900, oop_range="AA,KK,QQ,AK,T9s",
    ip_range="JJ,TT,AQ,KQs,65s", bets="50%, a", raises="a",
)  # fmt: skip


@functools.cache
def spot(name: str) -> Game:
    if name in ("kuhn", "leduc"):
        return game(name)
    if name == "leduc-full":
        return full_game("leduc")
    spots = {"river": RIVER, "turn": TURN, "big-river": BIG_RIVER}
    if name.startswith("raked-"):  # 5 %, capped at 15: the all-ins' pots reach the cap
        return build_holdem(replace(spots[name[6:]], rake_pct=5, rake_cap=15))
    return build_holdem(spots[name])


def expl(eng: SampledEngine) -> float:
    b0, b1 = eng.best_response_values()
    return 0.5 * (b0 + b1)


# ----- exact expectations -----------------------------------------------------------------
def test_rng_is_splitmix64() -> None:
    """The kernel's generator is splitmix64 (published test vector for seed 1234567) and its
    uniforms are the top 53 bits, as the Python reference draws them."""
    r = SplitMix64(1234567)
    assert [r.next_u64() for _ in range(3)] == [
        6457827717110365317,
        3203168211198807973,
        9817491932198370423,
    ]
    state = np.array([99], dtype=np.uint64)
    ref = SplitMix64(99)
    assert uniforms(state, 1000).tolist() == [ref.uniform() for _ in range(1000)]
    assert int(state[0]) == ref.state


def enumerate_pass(g: Game, R0: Array, trav: int, name: str) -> tuple[Array, Array, float, int]:
    """E[ΔR], E[ΔS] of one pass from regrets R0 (sums 0) over every sample outcome, with the
    total probability and the number of outcomes: scripted draws, depth-first over the tree
    of choices (each run follows a prefix, then the first possible option, and records the
    options and probabilities of every choice it made)."""
    wk = make_work(g)
    tab = deal_table(g)
    width = int(wk.buf.shape[1])
    ER = np.zeros_like(R0)
    ES = np.zeros_like(R0)
    total = 0.0
    count = 0
    todo: list[list[int]] = [[]]
    while todo:
        prefix = todo.pop()
        st = SampledStorage(R0.copy(), np.zeros_like(R0), np.zeros(1, np.uint64), np.zeros(2))
        dr = scripted_draws(prefix, 128, width)
        sampled_pass(g, st, trav, name, dr, 0.6, wk, tab)
        n = int(dr.ctl[1])
        pr = float(dr.prob[0])
        ER += pr * (st.regrets - R0)
        ES += pr * st.cumulative
        total += pr
        count += 1
        made = [int(c) for c in dr.script[:n]]
        for k in range(len(prefix), n):
            for o in range(int(dr.options[k])):
                if o != made[k] and dr.probs[k, o] > 0.0:
                    todo.append([*made[:k], o])
    return ER, ES, total, count


def full_width(g: Game, sigma: Array) -> tuple[Array, Array]:
    """What one full-width CFR pass adds when both play ``sigma``, from the engine's public
    counterfactual values: regrets ΔR = v(a) − Σ σ v (the owner's pass) and strategy sums
    ΔS = π_own·chance·σ (the other player's pass), (action_size,) each."""
    dR = np.zeros(g.action_size)
    dS = np.zeros(g.action_size)
    for n in g.decision_nodes():
        node = int(n)
        p = int(g.tree.player[node])
        off, na, nh = g.block(node)
        sig = sigma[off : off + na * nh].reshape(na, nh)
        vals = np.array([node_values(g, sigma, c, p) for c in g.children(node)])
        v = (sig * vals).sum(axis=0)
        dR[off : off + na * nh] = (vals - v).ravel()
        reach = path_reach(g, sigma, node)[p] * chance_factor(g, node)
        dS[off : off + na * nh] = (sig * reach).ravel()
    return dR, dS


def scale_factors(g: Game, sigma: Array | None = None) -> tuple[Array, Array]:
    """Per entry of the [action, hand] arrays of infoset (node, h) of player p: w_p(h)·m(node)
    (regrets) and M_p(node, h)·m(node) (sums), M_p the other player's range weight compatible
    with h and the node's board, m the node's suit-isomorphism multiplicity. With ``sigma``
    (outcome sampling) M_p counts only the other player's hands that reach the node under
    ``sigma``: a trajectory never gets past the opponent's actions of probability 0."""
    fr = np.zeros(g.action_size)
    fs = np.zeros(g.action_size)
    mult = g.multiplicity
    cards = [
        [{int(c) for c in g.hands.cards[p, h] if c >= 0} for h in range(g.num_hands[p])]
        for p in range(2)
    ]
    for n in g.decision_nodes():
        node = int(n)
        p = int(g.tree.player[node])
        b = int(g.tree.board[node])
        off, na, nh = g.block(node)
        other = path_reach(g, sigma, node)[1 - p] if sigma is not None else None
        for h in range(nh):
            m = sum(
                float(g.hands.weights[1 - p, k])
                for k in range(g.num_hands[1 - p])
                if g.boards.valid[b, 1 - p, k] > 0
                and not cards[p][h] & cards[1 - p][k]
                and (other is None or other[k] > 0)
            )
            m *= float(g.boards.valid[b, p, h])
            for a in range(na):
                fr[off + a * nh + h] = float(g.hands.weights[p, h]) * mult[node]
                fs[off + a * nh + h] = m * mult[node]
    return fr, fs


def random_state(g: Game, seed: int, pure: float = 0.0) -> Array:
    """Random regrets (the current strategy mixes most actions, some get probability 0).
    ``pure``: share of the infosets below a chance node made pure (fewer outcomes to
    enumerate). With suit isomorphism the regrets on the root board (above the chance
    nodes) are made suit-symmetric: the canonical subtree then stands exactly for its images
    (see solver.cfr.sampling, "Scale")."""
    rng = np.random.default_rng(seed)
    R = rng.normal(size=g.action_size)
    t = g.tree
    root_board = t.board[0]
    for n in g.decision_nodes():
        if t.board[n] == root_board:
            continue
        off, na, nh = g.block(int(n))
        blk = R[off : off + na * nh].reshape(na, nh)
        for h in range(nh):
            if rng.random() < pure:
                a = rng.integers(na)
                blk[:, h] = -np.abs(blk[:, h])
                blk[a, h] = abs(blk[a, h]) + 0.1
    if t.iso_count.sum() > 0:
        rows = {int(t.iso_perm[e]) for c in range(g.num_nodes) for e in
                range(int(t.iso_start[c]), int(t.iso_start[c] + t.iso_count[c]))}  # fmt: skip
        assert len(rows) == 1  # one transposition: symmetric = equal on its pairs
        row = rows.pop()
        for n in g.decision_nodes():
            if t.board[n] != root_board:
                continue
            p = int(t.player[n])
            off, na, nh = g.block(int(n))
            blk = R[off : off + na * nh].reshape(na, nh)
            perm = g.hands.perm[row, p, :nh]
            blk[:] = 0.5 * (blk + blk[:, perm])
    return R


@pytest.mark.parametrize("spot_name", ["kuhn", "leduc", "river", "turn", "raked-turn"])
@pytest.mark.parametrize("name", ["mccfr-es", "mccfr-os"])
def test_expected_pass_is_the_cfr_update(spot_name: str, name: str) -> None:
    """Unbiasedness, exactly: the probability-weighted sum over every outcome of one sampled
    pass (deal, chance cards, iso images, opponent and — outcome sampling — traverser actions)
    equals the full-width CFR update of the same state, entry by entry, up to the constant
    per-infoset factors of solver.cfr.sampling ("Scale"):
    E[ΔR] = w_p(h)·m·ΔR_cfr at the traverser's infosets, E[ΔS] = M_p(node, h)·m·ΔS_cfr at the
    opponent's (external sampling) or the traverser's (outcome sampling, M_p over the
    opponent hands that reach the node) infosets, and nothing anywhere else."""
    g = spot(spot_name)
    R0 = random_state(g, 5, pure=0.7 if spot_name == "leduc" else 0.0)
    sigma = np.empty(g.action_size)
    regret_matching_all(g.tree, g.hands, R0, sigma, np.zeros(1, dtype=np.int8))
    dR, dS = full_width(g, sigma)
    fr, fs = scale_factors(g, sigma if name == "mccfr-os" else None)
    owner = np.zeros(g.action_size, dtype=np.int64)
    for n in g.decision_nodes():
        off, na, nh = g.block(int(n))
        owner[off : off + na * nh] = g.tree.player[n]
    for trav in range(2):
        ER, ES, total, count = enumerate_pass(g, R0, trav, name)
        assert count > 5
        assert total == pytest.approx(1.0, abs=1e-12)
        mine = owner == trav
        want_r = np.where(mine, fr * dR, 0.0)
        sums_of = mine if name == "mccfr-os" else ~mine
        want_s = np.where(sums_of, fs * dS, 0.0)
        tol_r = 1e-12 * max(1.0, float(np.abs(want_r).max()))
        tol_s = 1e-12 * max(1.0, float(np.abs(want_s).max()))
        np.testing.assert_allclose(ER, want_r, rtol=0, atol=tol_r)
        np.testing.assert_allclose(ES, want_s, rtol=0, atol=tol_s)
        assert np.abs(want_r).max() > 1e-3 and np.abs(want_s).max() > 1e-3  # not vacuous


def test_deal_distribution_exact_and_sampled() -> None:
    """The deal: enumerated (scripted) its two choices give exactly norm·w0·w1 for compatible
    pairs and nothing for pairs sharing a card; drawn at random (400,000 deals on the 34 × 27
    river spot) no pair shares a card and every pair's frequency f is within
    5·sqrt(p(1 − p)/N) + 1/N of its probability p. With ~900 pairs and expected counts of
    ~100–1,000 the binomial counts are close to normal: a 5σ band fails by chance with
    probability < 1e-3 over all pairs, while a sampler off by 3 % on a pair of p ≈ 1/900
    (≈ 7σ at this N) fails."""
    for name in ("river", "big-river", "leduc"):
        g = spot(name)
        n0, n1 = g.num_hands
        tab = deal_table(g)
        b0 = int(g.tree.board[0])
        cards = [
            [{int(c) for c in g.hands.cards[p, h] if c >= 0} for h in range(g.num_hands[p])]
            for p in range(2)
        ]
        exact = np.zeros((n0, n1))
        for h0 in range(n0):
            for h1 in range(n1):
                if cards[0][h0] & cards[1][h1]:
                    continue
                if g.boards.valid[b0, 0, h0] * g.boards.valid[b0, 1, h1] == 0:
                    continue
                exact[h0, h1] = g.hands.norm * g.hands.weights[0, h0] * g.hands.weights[1, h1]
        assert exact.sum() == pytest.approx(1.0, abs=1e-12)
        if name == "river":  # scripted: the first two choices of a pass are the deal
            wk = make_work(g)
            got = np.zeros((n0, n1))
            for h0 in range(n0):
                for h1 in range(n1):
                    st = SampledStorage(
                        np.zeros(g.action_size), np.zeros(g.action_size),
                        np.zeros(1, np.uint64), np.zeros(2),
                    )  # fmt: skip
                    dr = scripted_draws([h0, h1], 64, int(wk.buf.shape[1]))
                    sampled_pass(g, st, 0, "mccfr-es", dr, 0.6, wk, tab)
                    got[h0, h1] = dr.probs[0, h0] * dr.probs[1, h1]
            np.testing.assert_allclose(got, exact, rtol=0, atol=1e-14)
        if name == "big-river":
            N = 400_000
            state = np.array([12345], dtype=np.uint64)
            deals = sample_deals(g.hands, tab, state, make_work(g).buf, N)
            freq = np.zeros((n0, n1))
            np.add.at(freq, (deals[:, 0], deals[:, 1]), 1.0 / N)
            assert np.all(freq[exact == 0] == 0)  # no shared card, nothing blocked
            band = 5 * np.sqrt(exact * (1 - exact) / N) + 1.0 / N
            assert np.all(np.abs(freq - exact) <= band)
            assert (exact == 0).sum() > 0  # the spot has card removal


# ----- the kernel against the reference ---------------------------------------------------
@pytest.mark.parametrize("spot_name", ["kuhn", "leduc", "turn", "raked-river"])
@pytest.mark.parametrize("name", ["mccfr-es", "mccfr-os", "dmccfr"])
def test_kernel_matches_python_reference(spot_name: str, name: str) -> None:
    """Same seed, same splitmix64 stream: the Numba kernel and the slow Python reference agree
    draw for draw — regrets, sums, nodes touched and the generator state (dmccfr with a small
    period so that several discounts happen)."""
    g = spot(spot_name)
    params = {"period": 37.0} if name == "dmccfr" else {}
    # on the suit-isomorphic game (the walk's mirrored children) as the reference does
    eng = SampledEngine(
        g, name, params, full_game=False, options=SolveOptions(seed=11, precision="float64")
    )
    ref = ReferenceSampler(g, name, seed=11, period=params.get("period", 0.0))
    for _ in range(3):
        eng.iterate(10)
        ref.iterate(10)
        np.testing.assert_allclose(eng.storage.regrets, ref.R, rtol=0, atol=1e-12)
        np.testing.assert_allclose(eng.storage.cumulative, ref.S, rtol=0, atol=1e-12)
        assert eng.nodes_touched == ref.touched
        assert int(eng.storage.rng[0]) == ref.rng.state
    assert np.abs(ref.R).max() > 0 and np.abs(ref.S).max() > 0


# ----- reproducibility ----------------------------------------------------------------------
@pytest.mark.parametrize("name", ["mccfr-os", "dmccfr"])
def test_every_sampler_repeats_with_its_seed(name: str) -> None:
    """Outcome sampling and discounted MCCFR, like external sampling below: the same seed
    gives the same run bit for bit, another seed another run."""
    g = spot("leduc")
    runs = []
    for seed in (5, 5, 6):
        eng = SampledEngine(g, name, options=SolveOptions(seed=seed))
        eng.iterate(1500)
        runs.append(eng)
    np.testing.assert_array_equal(runs[0].storage.regrets, runs[1].storage.regrets)
    np.testing.assert_array_equal(runs[0].storage.cumulative, runs[1].storage.cumulative)
    assert runs[0].nodes_touched == runs[1].nodes_touched
    assert not np.array_equal(runs[0].storage.regrets, runs[2].storage.regrets)


def test_seeds_repeat_exactly_and_differ() -> None:
    """Equal seeds give identical runs, also when another thread runs one of them (the
    generator lives in the engine, not in Numba's per-thread state); other seeds differ."""
    g = spot("leduc")
    a = SampledEngine(g, "mccfr-es", options=SolveOptions(seed=3))
    a.iterate(2000)
    b = SampledEngine(g, "mccfr-es", options=SolveOptions(seed=3))
    worker = threading.Thread(target=b.iterate, args=(2000,))
    worker.start()
    worker.join()
    np.testing.assert_array_equal(a.storage.regrets, b.storage.regrets)
    np.testing.assert_array_equal(a.storage.cumulative, b.storage.cumulative)
    assert a.nodes_touched == b.nodes_touched
    c = SampledEngine(g, "mccfr-es", options=SolveOptions(seed=4))
    c.iterate(2000)
    assert not np.array_equal(a.storage.regrets, c.storage.regrets)
    # iterating in chunks is the same run
    d = SampledEngine(g, "mccfr-es", options=SolveOptions(seed=3))
    for _ in range(4):
        d.iterate(500)
    np.testing.assert_array_equal(a.storage.regrets, d.storage.regrets)


# ----- convergence -------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("name", "iterations", "target"),
    [("mccfr-es", 200_000, 0.01), ("dmccfr", 200_000, 0.01), ("mccfr-os", 300_000, 0.015)],
)
def test_kuhn_converges(name: str, iterations: int, target: float) -> None:
    """Kuhn (game value −1/18): exploitability in chips below the target after a budget of
    ~0.2 s; never negative on the way."""
    g = spot("kuhn")
    eng = SampledEngine(g, name, options=SolveOptions(seed=1))
    first = None
    for _ in range(4):
        eng.iterate(iterations // 4)
        x = expl(eng)
        assert x >= -1e-12
        first = x if first is None else first
    assert x < target


def test_leduc_converges_on_the_full_game() -> None:
    """A sampler handed Leduc as the presets build it (suit isomorphism: hearts mirror
    spades) solves it with every card dealt: sampled strategies are not suit-symmetric, so
    on the iso tree the infosets a canonical card ties are of imperfect recall (external
    sampling stalled at 0.07–0.09 chips at 1M iterations) and the mirrored evaluation was
    another game's (EVs summing to 0.07). Full tree: below 0.06 chips in 300k iterations
    (OpenSpiel's C++ external sampling: 0.02 at 1M), and the API's EVs sum to 0."""
    from solver import solve

    eng = SampledEngine(spot("leduc"), "mccfr-es", options=SolveOptions(seed=1))
    assert not eng.game.has_isomorphism and spot("leduc").has_isomorphism
    eng.iterate(300_000)
    assert 0 <= expl(eng) < 0.06
    for name in ("mccfr-es", "mccfr-os", "dmccfr"):
        result = solve("leduc", name, iterations=2_000)
        assert not result.game.has_isomorphism
        assert sum(result.ev) == pytest.approx(0.0, abs=1e-12)


@pytest.mark.parametrize("spot_name", ["river", "turn"])
def test_holdem_spots_run_and_converge(spot_name: str) -> None:
    """Tiny hold'em spots (card removal; the turn has a suit-isomorphic river deal and
    all-in runouts): every algorithm runs on float32 storage and gets well below the
    exploitability of uniform play in 50,000 iterations (measured over seeds: external
    sampling and dmccfr ≤ 0.7 %, outcome sampling 0.3–25 % of it)."""
    g = SampledEngine(spot(spot_name), "mccfr-es").game  # every card dealt
    uniform = exploitability(g, SampledEngine(g, "mccfr-es").average_strategy())
    for name in SAMPLERS:
        eng = SampledEngine(g, name, options=SolveOptions(seed=2))
        assert eng.storage.regrets.dtype == np.float32
        eng.iterate(50_000)
        x = expl(eng)
        assert 0 <= x < (0.05 if name != "mccfr-os" else 0.5) * uniform, (name, x, uniform)


# ----- nodes touched and discounting -------------------------------------------------------
def test_external_sampling_touches_fewer_nodes_than_cfr() -> None:
    """Nodes touched: an external-sampling iteration (two passes) touches fewer nodes than the
    tree has, far fewer than a full-width CFR iteration; iterate() returns what it adds."""
    for name in ("kuhn", "leduc", "turn"):
        g = spot(name)
        eng = SampledEngine(g, "mccfr-es")
        touched = eng.iterate(1000)
        assert touched == eng.nodes_touched
        cfr = Engine(g, make_rule("cfr"), options=SolveOptions(pruning="none"))
        per_cfr = cfr.iterate(1)  # 2 × num_nodes: both passes walk the whole tree
        if name != "kuhn":  # Kuhn's 9 nodes are about one ES pass
            assert touched / 1000 < g.num_nodes
        assert touched / 1000 < per_cfr


def test_dmccfr_discounts_at_period_boundaries() -> None:
    """Discounted MCCFR is external sampling plus, whenever an iteration completes periods
    t … t+k−1 of ``period`` nodes touched, all regrets and sums × t/(t+k) (the product of
    the t/(t+1)): replay every iteration with an external-sampling engine from the same state
    (same generator state) and compare."""
    g = spot("kuhn")
    period = 25.0
    d = SampledEngine(g, "dmccfr", {"period": period}, options=SolveOptions(seed=9))
    es = SampledEngine(g, "mccfr-es", options=SolveOptions(seed=0))
    boundaries = 0
    quiet = 0
    for _ in range(60):
        for src, dst in zip(d.storage, es.storage, strict=True):
            dst[:] = src
        before_nodes, t0 = float(d.storage.period[0]), float(d.storage.period[1])
        n = d.iterate(1)
        assert es.iterate(1) == n
        k = int((before_nodes + n) // period)
        factor = t0 / (t0 + k)
        np.testing.assert_allclose(d.storage.regrets, es.storage.regrets * factor, rtol=1e-13)
        np.testing.assert_allclose(d.storage.cumulative, es.storage.cumulative * factor, rtol=1e-13)
        assert d.storage.period[1] == t0 + k
        assert d.storage.period[0] == before_nodes + n - k * period
        boundaries += k
        quiet += k == 0
    assert boundaries > 10 and quiet > 10
    auto = SampledEngine(g, "dmccfr")
    assert auto.period_nodes == g.num_nodes
    assert SampledEngine(g, "mccfr-es").period_nodes == 0


# ----- interface and validation ------------------------------------------------------------
def test_registry_and_rule() -> None:
    assert set(SAMPLERS) == {"mccfr-es", "mccfr-os", "dmccfr"}
    assert SAMPLERS["mccfr-os"].defaults == {"epsilon": 0.6}
    assert SAMPLERS["dmccfr"].defaults == {"period": 0.0}
    assert SAMPLERS["mccfr-es"].defaults == {}
    assert "Lanctot" in SAMPLERS["mccfr-es"].paper and "2009" in SAMPLERS["mccfr-os"].paper
    assert "Brown & Sandholm 2019" in SAMPLERS["dmccfr"].paper
    assert all(info.description for info in SAMPLERS.values())
    rule = make_sampler("MCCFR-OS", epsilon=0.3)
    assert rule.name == "mccfr-os" and rule.params() == {"epsilon": 0.3}
    assert rule.label() == "mccfr-os(epsilon=0.3)"
    assert make_sampler("mccfr-es").label() == "mccfr-es"
    assert make_sampler("dmccfr").params() == {"period": 0.0}


@pytest.mark.parametrize(
    ("name", "params", "seed", "precision", "match"),
    [
        ("mccfr-xx", None, 0, "auto", "unknown sampled algorithm"),
        ("mccfr-os", {"epsilon": 0.0}, 0, "auto", "epsilon"),
        ("mccfr-os", {"epsilon": 1.5}, 0, "auto", "epsilon"),
        ("mccfr-os", {"epsilon": float("nan")}, 0, "auto", "epsilon"),
        ("dmccfr", {"period": -1.0}, 0, "auto", "period"),
        ("dmccfr", {"period": float("inf")}, 0, "auto", "period"),
        ("mccfr-es", {"epsilon": 0.5}, 0, "auto", "no parameter 'epsilon'"),
        ("mccfr-es", None, -1, "auto", "seed"),
        ("mccfr-es", None, 1.5, "auto", "seed"),
        ("mccfr-es", None, True, "auto", "seed"),
        ("mccfr-es", None, 0, "compressed", "precision"),
    ],
)
def test_bad_input_is_rejected(
    name: str, params: dict[str, float] | None, seed: object, precision: str, match: str
) -> None:
    with pytest.raises(ValueError, match=match):
        opts = SolveOptions(seed=seed, precision=precision)  # type: ignore[arg-type]
        SampledEngine(spot("kuhn"), name, params, options=opts)


def test_engine_interface() -> None:
    """What races, jobs and the API use: iteration counters, strategies (distributions per
    infoset), BR values, storage fields, memory, threads; epsilon 1 (uniform exploration) is
    allowed; iterate(0) is a no-op and iterate(−1) an error."""
    eng = SampledEngine(spot("leduc"), "mccfr-os", {"epsilon": 1.0}, options=SolveOptions(seed=5))
    g = eng.game  # every card dealt
    assert not g.has_isomorphism and g.num_nodes > spot("leduc").num_nodes
    assert eng.threads == 1 and eng.iteration == 0 and eng.nodes_touched == 0
    assert eng.iterate(0) == 0
    with pytest.raises(ValueError, match="iterations"):
        eng.iterate(-1)
    eng.iterate(100)
    assert eng.iteration == 100 and eng.nodes_touched > 0
    assert eng.storage.regrets.dtype == np.float64  # toy game: float64
    assert {"regrets", "cumulative"} <= set(eng.storage._fields)
    assert eng.memory_bytes >= 2 * 8 * g.action_size
    for sig in (eng.average_strategy(), eng.current_strategy()):
        assert sig.shape == (g.action_size,)
        for n in g.decision_nodes():
            off, na, nh = g.block(int(n))
            np.testing.assert_allclose(sig[off : off + na * nh].reshape(na, nh).sum(0), 1.0)
    b0, b1 = eng.best_response_values()
    assert b0 + b1 >= 0
    assert eng.rule.label() == "mccfr-os(epsilon=1)"
