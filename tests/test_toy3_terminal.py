"""kuhn3's and leduc3's terminals valued by strength class (solver/cfr/toy3_terminal.py, mode
TERMINAL_TOY3) equal the deal list's sums (a plain numpy sum over every deal) at every
terminal, for every traverser, on random reach rows; the engine builds them by default."""

from __future__ import annotations

import functools

import numpy as np
import pytest

from solver.cfr.multi import TERMINAL_DEALS, TERMINAL_TOY3, MultiArrays
from solver.cfr.multi_build import build_multi, toy3_applies, toy3_tables
from solver.cfr.multi_engine import MultiEngine
from solver.cfr.rules import make_rule
from solver.cfr.toy3_terminal import toy3_values
from solver.games.multiway import MultiGame, kuhn_multi, multi_game


@functools.cache
def game(name: str) -> MultiGame:
    return multi_game(name)


@functools.cache
def deal_list(name: str) -> MultiArrays:
    return build_multi(game(name), terminals="deals").arrays.multi


def by_deals(mw: MultiArrays, node: int, trav: int, reach: np.ndarray) -> np.ndarray:
    """The deal-list terminal written out: Σ over deals of chance × payoff × the others'
    reaches, into the traverser's hand."""
    row = int(mw.term_row[node])
    x = mw.wpay[row, trav].copy()
    for q in range(3):
        if q != trav:
            x *= reach[q, mw.deals[:, q]]
    out = np.zeros(reach.shape[1])
    np.add.at(out, mw.deals[:, trav], x)
    return out


def reaches(rng: np.random.Generator, h: int, zeros: float) -> np.ndarray:
    """(3, H) reach rows in (0, 1], a share ``zeros`` of them exactly 0."""
    r = rng.uniform(0.0, 1.0, (3, h)) ** 3
    r[rng.uniform(size=(3, h)) < zeros] = 0.0
    return r


@pytest.mark.parametrize("name", ["kuhn3", "leduc3"])
def test_every_terminal_equals_the_deal_list(name: str) -> None:
    g = game(name)
    mw, tb = deal_list(name), toy3_tables(g)
    rng = np.random.default_rng(7)
    terms = np.flatnonzero(g.terminal_row >= 0)
    kinds = {(bool(g.active[n].all()), int(g.active[n].sum())) for n in terms}
    assert len(kinds) == 3 if name == "leduc3" else len(kinds) >= 2  # fold, 2 and 3 in
    zero_hits = 0
    for node in terms.tolist():
        b = int(g.board[node])
        for trav in range(3):
            for zeros in (0.0, 0.6):
                r = reaches(rng, g.num_hands, zeros)
                want = by_deals(mw, node, trav, r)
                got = toy3_values(tb, node, b, trav, r)
                scale = np.abs(g.payoff[g.terminal_row[node]]).max() / g.deals.shape[0]
                np.testing.assert_allclose(got, want, rtol=0, atol=1e-12 * max(scale, 1.0),
                                           err_msg=f"{name} node {node} trav {trav}")  # fmt: skip
                # where no pair reaches (or the hand holds the board's card) both are 0
                assert np.all(got[want == 0.0] == 0.0), (name, node, trav)
                zero_hits += int((want == 0.0).sum())
    assert zero_hits > 0


def test_the_engine_values_kuhn3_and_leduc3_by_class_and_others_by_deals() -> None:
    for name in ("kuhn3", "leduc3"):
        assert MultiEngine(game(name), make_rule("cfr")).arrays.multi.mode == TERMINAL_TOY3
    assert build_multi(game("kuhn3"), terminals="deals").arrays.multi.mode == TERMINAL_DEALS
    four = kuhn_multi(4)  # four players: the deal list
    assert not toy3_applies(four)
    assert build_multi(four).arrays.multi.mode == TERMINAL_DEALS
    with pytest.raises(ValueError, match="terminals"):
        build_multi(game("kuhn3"), terminals="fast")


@pytest.mark.parametrize("name", ["kuhn3", "leduc3"])
def test_a_pass_equals_the_deal_list_pass(name: str) -> None:
    """Two iterations of DCFR: regrets and sums of the class-valued build equal the deal
    list build's (to rounding)."""
    g = game(name)
    a = MultiEngine(g, make_rule("dcfr"))
    d = MultiEngine(g, make_rule("dcfr"))
    d.arrays = build_multi(g, terminals="deals").arrays
    assert d.arrays.multi.mode == TERMINAL_DEALS
    for _ in range(3):
        a.iterate(1)
        d.iterate(1)
        np.testing.assert_allclose(a.storage.regrets, d.storage.regrets, rtol=1e-12, atol=1e-10)
        np.testing.assert_allclose(a.storage.cumulative, d.storage.cumulative, rtol=1e-12,
                                   atol=1e-10)  # fmt: skip
