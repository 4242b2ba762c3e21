"""The fold and showdown kernels' additions, in their exact order: the packed fold sums the
opponent's hands in index order in two banks, the showdown its prefixes in four blocks, and
both equal, bit for bit, a plain Python sweep that adds in those orders — the numbers every
solve has had, whatever a kernel's loads and indices are rearranged into for speed. A fold
beside the traverser's showdown reads that showdown's prefix sums (``fold_prefix``): in its
own order, bit for bit, and equal to every compatible pair summed one by one."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from numba import njit

from solver.cfr.borrow import by_ref
from solver.cfr.layout import make_scratch
from solver.cfr.terminal import ShowdownTables, fold_prefix, fold_values, showdown_values
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import Game
from solver.poker.cards import card_str

OOP = "22+,A2+,K2+,Q2+,J2+"
IP = "T2+,92+,82+,A2s+,K2s+"


def _river(rng: np.random.Generator) -> Game:
    board = "".join(card_str(int(c)) for c in rng.choice(52, size=5, replace=False))
    return build_holdem(HoldemSpec(board=board, pot=200, stack=900, oop_range=OOP, ip_range=IP))


def _reach(rng: np.random.Generator, g: Game, player: int) -> np.ndarray:
    out = np.zeros((1, g.hands.cards.shape[1]))
    n = g.hands.num_hands[player]
    out[0, :n] = rng.random(n) * 10.0 ** rng.integers(-9, 0, n) * (rng.random(n) < 0.8)
    return out


def _fold_reference(g: Game, trav: int, u: float, reach: np.ndarray) -> np.ndarray:
    """The two-bank fold in index order, in Python floats (IEEE doubles, as the kernel)."""
    h = g.hands
    opp, nc = 1 - trav, h.num_cards
    cs = [0.0] * (2 * nc)
    total = 0.0
    for j in range(h.num_hands[opp]):
        r = float(reach[0, j])
        total += r
        for c in h.cards[opp, j]:
            cs[(j & 1) * nc + int(c)] += r
    for c in range(nc):
        cs[c] += cs[nc + c]
    out = np.zeros(h.num_hands[trav])
    for i in range(h.num_hands[trav]):
        x = total - cs[int(h.cards[trav, i, 0])] - cs[int(h.cards[trav, i, 1])]
        if h.same[trav, i] >= 0:
            x += float(reach[0, h.same[trav, i]])
        out[i] = u * x * float(g.boards.valid[0, trav, i])
    return out


def _prefix(values: list[float]) -> list[float]:
    """prefix_sums' order: four blocks summed side by side, then offset."""
    n = len(values)
    q = n // 4
    out = [0.0] * (n + 1)
    acc = [0.0] * 4
    for k in range(q):
        for i in range(4):
            acc[i] += values[i * q + k]
            out[i * q + k + 1] = acc[i]
    for k in range(4 * q, n):
        acc[3] += values[k]
        out[k + 1] = acc[3]
    x = acc[0]
    for i in range(1, 4):
        for k in range(i * q + 1, ((i + 1) * q if i < 3 else n) + 1):
            out[k] += x
        x += acc[i]
    return out


def _showdown_reference(g: Game, trav: int, amount: float, reach: np.ndarray) -> np.ndarray:
    bo = g.boards
    opp, row = 1 - trav, int(bo.sd_row[0])
    no, nt = int(g.hands.num_hands[opp]), int(g.hands.num_hands[trav])
    p = _prefix([float(reach[0, j]) for j in bo.order[0, opp, :no]])
    q = _prefix([float(reach[0, j]) for j in bo.sd_src[row, trav, : 2 * no]])
    start = bo.sd_cstart[row, trav]
    cs = [q[start[c]] + q[start[c + 1]] for c in range(start.shape[0] - 1)]
    f = [
        [(int(w) >> (16 * k)) & 0xFFFF for w in bo.sd_pack[row, trav, h] for k in range(4)]
        for h in range(nt)
    ]
    out = np.zeros(nt)
    for h, (lo, hi, a0, b0, a1, b1, c0, c1) in enumerate(f):
        v = p[lo] + p[hi] - p[no]
        v -= q[a0] + q[b0] - cs[c0]
        v -= q[a1] + q[b1] - cs[c1]
        out[h] = amount * v * float(bo.valid[0, trav, h])
    return out


@pytest.mark.parametrize("seed", range(3))
def test_fold_and_showdown_add_in_the_reference_order(seed: int) -> None:
    rng = np.random.default_rng(100 + seed)
    g = _river(rng)
    sc = make_scratch(g)
    assert g.boards.sd_row[0] >= 0  # the prefix-sum showdown
    for trav in range(2):
        reach = _reach(rng, g, 1 - trav)
        out = np.zeros((1, reach.shape[1]))
        nt = g.hands.num_hands[trav]
        fold_values(g.hands, g.boards, 0, trav, -37.5, reach, 0, out, 0, sc.card_sum)
        assert out[0, :nt].tobytes() == _fold_reference(g, trav, -37.5, reach).tobytes()
        showdown_values(
            g.hands, g.boards, 0, trav, 150.0, reach, 0, out, 0, sc.card_sum, sc.card_sum2
        )
        assert out[0, :nt].tobytes() == _showdown_reference(g, trav, 150.0, reach).tobytes()


def _fold_from_prefix_reference(
    g: Game, trav: int, u: float, reach: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """(P and Q as the showdown leaves them in its (2, 2H + 1) scratch, the fold's values
    from them in ``fold_prefix``'s order): the total is P's last entry, a card's reach Q's
    rise across its group."""
    bo, h = g.boards, g.hands
    opp, row = 1 - trav, int(bo.sd_row[0])
    no, nt = int(h.num_hands[opp]), int(h.num_hands[trav])
    p = _prefix([float(reach[0, j]) for j in bo.order[0, opp, :no]])
    q = _prefix([float(reach[0, j]) for j in bo.sd_src[row, trav, : 2 * no]])
    sbuf = np.zeros((2, 2 * reach.shape[1] + 1))
    sbuf[0, : no + 1] = p
    sbuf[1, : 2 * no + 1] = q
    start = bo.sd_cstart[row, trav]
    ct = [q[start[c + 1]] - q[start[c]] for c in range(start.shape[0] - 1)]
    out = np.zeros(nt)
    for i in range(nt):
        x = p[no] - ct[int(h.cards[trav, i, 0])] - ct[int(h.cards[trav, i, 1])]
        if h.same[trav, i] >= 0:
            x += float(reach[0, h.same[trav, i]])
        out[i] = u * x * float(bo.valid[0, trav, i])
    return sbuf, out


def _compatible(g: Game, trav: int, reach: np.ndarray) -> np.ndarray:
    """Each traverser hand's opponent reach over the hands sharing no card with it, pair by
    pair (the definition), 0 for a hand the board blocks."""
    h, opp = g.hands, 1 - trav
    mine = h.cards[trav, : h.num_hands[trav]]
    theirs = h.cards[opp, : h.num_hands[opp]]
    clash = (mine[:, None, :, None] == theirs[None, :, None, :]).any(axis=(2, 3))
    out = (~clash * reach[0, : h.num_hands[opp]][None, :]).sum(axis=1)
    return out * g.boards.valid[0, trav, : h.num_hands[trav]]


@njit
def _fold_prefix(sdt: ShowdownTables, *args: Any) -> None:
    """fold_prefix as the walk calls it: the tables by reference."""
    fold_prefix(by_ref(sdt), *args)


@pytest.mark.parametrize("seed", range(3))
def test_a_fold_from_the_showdowns_prefix_sums(seed: int) -> None:
    rng = np.random.default_rng(200 + seed)
    g = _river(rng)
    bo = g.boards
    sdt = ShowdownTables(
        bo.valid, bo.order, bo.sd_row, bo.sd_src, bo.sd_cstart, bo.sd_pack, g.hands.pack
    )
    sc = make_scratch(g)
    for trav in range(2):
        reach = _reach(rng, g, 1 - trav)
        nt, no = int(g.hands.num_hands[trav]), int(g.hands.num_hands[1 - trav])
        sbuf, expect = _fold_from_prefix_reference(g, trav, -37.5, reach)
        out = np.zeros((1, reach.shape[1]))
        board: Any = np.int32(0)  # an int32 index, as the walk passes it (a warm-up signature)
        _fold_prefix(sdt, board, trav, nt, no, -37.5, reach, 0, out, 0, sc.card_sum, sbuf)
        assert out[0, :nt].tobytes() == expect.tobytes()
        # the same values as the fold's own pass and as every pair summed, to the rounding
        # of sums whose terms reach the opponent's total reach
        scale = 37.5 * float(reach.sum()) * 1e-13
        np.testing.assert_allclose(out[0, :nt], -37.5 * _compatible(g, trav, reach), atol=scale)
        own = np.zeros((1, reach.shape[1]))
        fold_values(g.hands, g.boards, 0, trav, -37.5, reach, 0, own, 0, sc.card_sum)
        np.testing.assert_allclose(out[0, :nt], own[0, :nt], atol=scale)
