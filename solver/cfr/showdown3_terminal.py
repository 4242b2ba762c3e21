"""A terminal of a three-way hold'em river valued in the walk, from the two other players'
reach rows — by one sweep over a precomputed strength order with card-removal corrections,
never a loop over pairs or triples of hands (issue 49; the numpy original and its proof are
:mod:`solver.poker.showdown3`).

Values, for traverser ``t`` and its hand ``h`` (opponents ``q``, ``r``; ``w_p`` the range
weights, ``π_p`` the reach rows the walk carries, ``Z`` the sum of ``w0·w1·w2`` over the
card-disjoint triples)::

    v_t(h) = w_t(h) / Z · Σ_{h', h''} [h, h', h'' pairwise disjoint]
                                      · w_q(h') π_q(h') · w_r(h'') π_r(h'') · payoff_t(h, h', h'')

the same number the deal-list terminal (:func:`~solver.cfr.multi.multi_terminal`) gives when
each deal's chance ``w0·w1·w2 / Z`` is in its payoff. Payoffs: at a showdown the active
players with the best hand split the pot ``Σ contrib``, each loses its ``contrib``; a folded
player loses its ``contrib`` whatever it holds (its hand still removes cards); with one
player left it wins the pot.

How. With ``f = w_q π_q`` and ``g = w_r π_r`` restricted to windows of the strength order
(weaker than ``h``: L; weaker or tied: LE), the compatible pair mass of every ``h = {a, b}``
is ::

    T(h) = S'_f S'_g − Σ_{c ∉ h} F'_c G'_c + D'

(primes: over combos disjoint from ``h``; ``F_c`` the windowed weight of the combos holding
card ``c``; ``D`` the windowed ``Σ f·g`` over combos in both ranges). Each primed term is a
few numbers the sweep keeps up to date as combos enter the windows — per card sums, their
products, and ``X[a, b] = Σ_c f({a, c}) g({b, c})`` — so a query is O(1) and adding a combo
O(52). A three-way showdown's share is ``pot · (T(L, L)/3 + (T(LE, L) + T(L, LE))/6 +
T(LE, LE)/3)`` (ties split two or three ways, by inclusion–exclusion over L and LE): two
sweeps, one per order in which the two opponents' combos of a strength class enter. A
two-way showdown after a fold: the folded player's combos all enter first, and the share is
``pot · (T(L) + T(LE)) / 2`` over the other's. Cost per terminal: O((n_q + n_r) · 52 + n_t)
for ``n_p`` hands of player ``p``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.jit import kernel, node_kernel
from solver.poker.showdown3_hands import river3_hands

__all__ = ["NO_SHOWDOWN3", "Showdown3Tables", "showdown3_tables", "showdown3_values"]

Array = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Int = int | np.int64
NUM_CARDS = 52
# Rounding bound of a pair sum, relative to (pot + chips in) · (opponents' total masses): a
# few dozen operations on terms no larger than that product, each off by half an ulp
SNAP = 256.0 * np.finfo(np.float64).eps

# rows of Showdown3Tables.vec: per-card sums of the sweep's state
_F, _G, _KF, _KG, _DC = 0, 1, 2, 3, 4
# entries of Showdown3Tables.acc: its scalar sums, then the four coefficients of a sweep
_SF, _SG, _Q, _D, _CO = 0, 1, 2, 3, 4


class Showdown3Tables(NamedTuple):
    """What a three-way river terminal reads (``H`` the longest hand list, ``T`` terminals,
    ``K`` strength classes). ``mat``, ``vec`` and ``acc`` are the sweep's work arrays: zero
    between calls, so one solve at a time may use the tables."""

    cards: I64  # (3, H, 2) each player's hands' cards (-1 past its hands)
    weight: Array  # (3, H) range weights, 0 for a hand meeting the board
    inv_z: float  # 1 / Σ w0·w1·w2 over the card-disjoint triples
    num: I64  # (3,) hands in the strength order per player (those not meeting the board)
    order: I64  # (3, H) each player's hands by ascending strength
    cls: I64  # (3, H) the strength class of ``order``'s entries, 0 … K − 1 (shared ranks)
    num_classes: int  # K
    contrib: Array  # (T, 3) chips each player has in at the terminal
    active: npt.NDArray[np.bool_]  # (T, 3) who has not folded
    term_row: I64  # (N,) a node's row of ``contrib``, -1 if not a terminal
    mat: Array  # (3, 52, 52) work: the two windowed weights per card pair, and X
    vec: Array  # (5, 52) work: per-card sums F, G, K_f, K_g, D_c
    acc: Array  # (8,) work: S_f, S_g, Q, D; a sweep's coefficients


def _placeholder() -> Showdown3Tables:
    i2 = np.zeros((3, 1), dtype=np.int64)
    return Showdown3Tables(
        np.full((3, 1, 2), -1, dtype=np.int64), np.zeros((3, 1)), 0.0,
        np.zeros(3, dtype=np.int64), i2, i2.copy(), 0, np.zeros((1, 3)),
        np.zeros((1, 3), dtype=np.bool_), np.full(1, -1, dtype=np.int64),
        np.zeros((3, 1, 1)), np.zeros((5, 1)), np.zeros(8),
    )  # fmt: skip


NO_SHOWDOWN3 = _placeholder()
"""The tables of a game valued by its deal list (length-1 arrays never read)."""


# ----- the sweep's state -----------------------------------------------------------------
@node_kernel
def _add_f(tb: Showdown3Tables, x: Int, y: Int, phi: float) -> None:
    """Combo ``{x, y}`` of the first range enters its window with weight ``phi``."""
    M, V, acc = tb.mat, tb.vec, tb.acc
    for a in range(NUM_CARDS):
        V[_KG, a] += phi * (M[1, a, x] + M[1, a, y])
        M[2, x, a] += phi * M[1, a, y]
        M[2, y, a] += phi * M[1, a, x]
    V[_KF, x] += phi * V[_G, y]
    V[_KF, y] += phi * V[_G, x]
    acc[_Q] += phi * (V[_G, x] + V[_G, y])
    dd = phi * M[1, x, y]
    acc[_D] += dd
    V[_DC, x] += dd
    V[_DC, y] += dd
    V[_F, x] += phi
    V[_F, y] += phi
    acc[_SF] += phi
    M[0, x, y] += phi
    M[0, y, x] += phi


@node_kernel
def _add_g(tb: Showdown3Tables, x: Int, y: Int, gam: float) -> None:
    """Combo ``{x, y}`` of the second range enters its window with weight ``gam``."""
    M, V, acc = tb.mat, tb.vec, tb.acc
    for a in range(NUM_CARDS):
        V[_KF, a] += gam * (M[0, a, x] + M[0, a, y])
        M[2, a, x] += gam * M[0, a, y]
        M[2, a, y] += gam * M[0, a, x]
    V[_KG, x] += gam * V[_F, y]
    V[_KG, y] += gam * V[_F, x]
    acc[_Q] += gam * (V[_F, x] + V[_F, y])
    dd = gam * M[0, x, y]
    acc[_D] += dd
    V[_DC, x] += dd
    V[_DC, y] += dd
    V[_G, x] += gam
    V[_G, y] += gam
    acc[_SG] += gam
    M[1, x, y] += gam
    M[1, y, x] += gam


@node_kernel
def _pairs(tb: Showdown3Tables, a: Int, b: Int) -> float:
    """T(h) for ``h = {a, b}``: the windowed ``f(h') g(h'')`` over the pairs disjoint from
    ``h`` and each other (module docstring)."""
    M, V, acc = tb.mat, tb.vec, tb.acc
    fab, gab = M[0, a, b], M[1, a, b]
    fa, fb, ga, gb = V[_F, a], V[_F, b], V[_G, a], V[_G, b]
    sf = acc[_SF] - fa - fb + fab
    sg = acc[_SG] - ga - gb + gab
    dp = acc[_D] - V[_DC, a] - V[_DC, b] + fab * gab
    cross = acc[_Q] - fa * ga - fb * gb
    cross -= V[_KG, a] + V[_KG, b] + V[_KF, a] + V[_KF, b] - (fa + fb) * gab - (ga + gb) * fab
    cross += V[_DC, a] + V[_DC, b] - 2.0 * fab * gab + M[2, a, b] + M[2, b, a]
    return sf * sg - cross + dp


@node_kernel
def _clear(tb: Showdown3Tables, pf: Int, pg: Int) -> None:
    """Zero the work arrays after a sweep over players ``pf`` (first) and ``pg`` (second):
    only the cells their hands' cards touched (``X``'s rows of the first's cards)."""
    M = tb.mat
    for j in range(tb.num[pf]):
        h = tb.order[pf, j]
        x, y = tb.cards[pf, h, 0], tb.cards[pf, h, 1]
        M[0, x, y] = 0.0
        M[0, y, x] = 0.0
        for a in range(NUM_CARDS):
            M[2, x, a] = 0.0
            M[2, y, a] = 0.0
    for j in range(tb.num[pg]):
        h = tb.order[pg, j]
        M[1, tb.cards[pg, h, 0], tb.cards[pg, h, 1]] = 0.0
        M[1, tb.cards[pg, h, 1], tb.cards[pg, h, 0]] = 0.0
    tb.vec[:] = 0.0
    for i in range(_CO):
        tb.acc[i] = 0.0


@node_kernel
def _enter(
    tb: Showdown3Tables, p: Int, first: bool, j0: Int, j1: Int, RE: Array, base: Int
) -> None:  # fmt: skip
    """Player ``p``'s hands ``order[p, j0:j1]`` enter the first window (``first``) or the
    second, weighted by ``w_p · π_p`` (``π_p`` row ``base + p`` of ``RE``)."""
    for j in range(j0, j1):
        h = tb.order[p, j]
        w = tb.weight[p, h] * RE[base + p, h]
        if w != 0.0:
            if first:
                _add_f(tb, tb.cards[p, h, 0], tb.cards[p, h, 1], w)
            else:
                _add_g(tb, tb.cards[p, h, 0], tb.cards[p, h, 1], w)


@node_kernel
def _ask(tb: Showdown3Tables, t: Int, j0: Int, j1: Int, coef: float, VA: Array, d: Int) -> None:
    """``VA[d, h] += coef · T(h)`` for the traverser's hands ``order[t, j0:j1]``."""
    if coef != 0.0:
        for j in range(j0, j1):
            h = tb.order[t, j]
            VA[d, h] += coef * _pairs(tb, tb.cards[t, h, 0], tb.cards[t, h, 1])


@node_kernel
def _class_end(tb: Showdown3Tables, p: Int, j: Int, k: Int) -> Int:
    """One past player ``p``'s last hand of strength class ``k`` from place ``j`` on."""
    while j < tb.num[p] and tb.cls[p, j] == k:
        j += 1
    return j


@kernel
def _sweep(
    tb: Showdown3Tables, t: Int, pf: Int, pg: Int, f_all: bool, RE: Array, base: Int,
    VA: Array, d: Int,
) -> None:  # fmt: skip
    """One pass up the strength order with the coefficients ``co`` in ``tb.acc[4:8]``: at
    each class ``k``, ``co[0]·T(L, L)`` for the traverser's hands of the class, then ``pf``'s
    class enters, ``co[1]·T(LE, L)``, then ``pg``'s, ``co[2]·T(LE, LE)``; at the end
    ``co[3]·T(all, all)`` for every hand. With ``f_all`` ``pf``'s hands all enter first
    (``co[1]`` is then unused). Leaves the work arrays zero."""
    co = tb.acc[_CO:]
    if f_all:
        _enter(tb, pf, True, 0, tb.num[pf], RE, base)
    jt: Int = 0
    jf: Int = 0
    jg: Int = 0
    if co[0] != 0.0 or co[1] != 0.0 or co[2] != 0.0:
        for k in range(tb.num_classes):
            et = _class_end(tb, t, jt, k)
            _ask(tb, t, jt, et, co[0], VA, d)
            if not f_all:
                ef = _class_end(tb, pf, jf, k)
                _enter(tb, pf, True, jf, ef, RE, base)
                jf = ef
                _ask(tb, t, jt, et, co[1], VA, d)
            eg = _class_end(tb, pg, jg, k)
            _enter(tb, pg, False, jg, eg, RE, base)
            jg = eg
            _ask(tb, t, jt, et, co[2], VA, d)
            jt = et
    if not f_all:
        _enter(tb, pf, True, jf, tb.num[pf], RE, base)
    _enter(tb, pg, False, jg, tb.num[pg], RE, base)
    _ask(tb, t, 0, tb.num[t], co[3], VA, d)
    _clear(tb, pf, pg)


@kernel
def showdown3_terminal(
    tb: Showdown3Tables, row: Int, t: Int, RE: Array, base: Int, VA: Array, d: Int
) -> None:  # fmt: skip
    """Traverser ``t``'s values at terminal ``row``, ``VA[d, :H]`` (module docstring): each
    player ``p``'s reach of its hands in row ``base + p`` of ``RE``."""
    for h in range(VA.shape[1]):
        VA[d, h] = 0.0
    q, r = (t + 1) % 3, (t + 2) % 3
    pot = 0.0
    live = 0
    for p in range(3):
        pot += tb.contrib[row, p]
        if tb.active[row, p]:
            live += 1
    own = tb.contrib[row, t]
    co = tb.acc[_CO:]
    co[:] = 0.0
    if not tb.active[row, t] or live == 1:  # a fold's loser, or the one player left
        co[3] = (pot if tb.active[row, t] else 0.0) - own
        _sweep(tb, t, q, r, True, RE, base, VA, d)
    elif live == 3:
        co[0], co[1], co[2] = pot / 3.0, pot / 6.0, pot / 3.0
        _sweep(tb, t, q, r, False, RE, base, VA, d)
        co[0], co[2], co[3] = 0.0, 0.0, -own
        _sweep(tb, t, r, q, False, RE, base, VA, d)
    else:  # two left: the folded player's hands enter first, whole
        other, dead = (q, r) if tb.active[row, q] else (r, q)
        co[0], co[2], co[3] = pot / 2.0, pot / 2.0, -own
        _sweep(tb, t, dead, other, True, RE, base, VA, d)
    # A value within the sums' rounding of 0 is 0: where the deal list's sum is exactly 0
    # (no pair reaches, or every payoff is 0) the differences above leave a residue whose
    # sign would steer regret matching
    mass = 1.0
    for o in (q, r):
        sp = 0.0
        for j in range(tb.num[o]):
            h = tb.order[o, j]
            sp += tb.weight[o, h] * RE[base + o, h]
        mass *= sp
    tiny = SNAP * (pot + own) * mass
    for j in range(tb.num[t]):
        h = tb.order[t, j]
        x = VA[d, h]
        VA[d, h] = 0.0 if abs(x) <= tiny else x * (tb.weight[t, h] * tb.inv_z)


# ----- the tables ------------------------------------------------------------------------
def showdown3_tables(
    board: npt.ArrayLike,
    combos: Sequence[npt.ArrayLike],
    weights: Sequence[npt.ArrayLike],
    contrib: npt.ArrayLike,
    active: npt.ArrayLike,
    term_nodes: npt.ArrayLike,
) -> Showdown3Tables:
    """The tables of a three-way river: ``board`` five card indices; per player ``p`` its
    hands as combo indices ``combos[p]`` (0 … 1325, each once) and range weights
    ``weights[p]`` (hands meeting the board get weight 0;
    :func:`~solver.poker.showdown3_hands.river3_hands`); per node the chips in
    ``contrib`` (N, 3) and who has not folded ``active`` (N, 3); ``term_nodes`` the
    terminals (rows in this order). ValueError naming the field on bad input."""
    rh = river3_hands(board, combos, weights)  # the poker half, checked there
    c = np.asarray(contrib, dtype=np.float64)
    a = np.asarray(active)
    if c.ndim != 2 or c.shape[1] != 3 or not np.all(np.isfinite(c)) or np.any(c < 0.0):
        raise ValueError("contrib: expected (nodes, 3) chip counts ≥ 0")
    if a.shape != c.shape or a.dtype != np.bool_:
        raise ValueError(f"active: expected a boolean array of shape {c.shape}")
    nodes = np.asarray(term_nodes)
    if nodes.ndim != 1 or not np.issubdtype(nodes.dtype, np.integer) or nodes.size == 0:
        raise ValueError("term_nodes: expected a non-empty list of node indices")
    if np.any(nodes < 0) or np.any(nodes >= c.shape[0]) or np.unique(nodes).size != nodes.size:
        raise ValueError(f"term_nodes: expected distinct node indices 0 to {c.shape[0] - 1}")
    if np.any(a[nodes].sum(axis=1) == 0):
        raise ValueError("active: every terminal needs a player who has not folded")
    # shared strength classes 0 … K − 1, each player's hands by ascending class
    classes, inverse = np.unique(rh.strength[rh.strength >= 0], return_inverse=True)
    cls_of = np.full(rh.strength.shape, -1, dtype=np.int64)
    cls_of[rh.strength >= 0] = inverse
    order = np.zeros(rh.weight.shape, dtype=np.int64)
    cls = np.zeros(rh.weight.shape, dtype=np.int64)
    num = np.zeros(3, dtype=np.int64)
    for p in range(3):
        live = np.flatnonzero(cls_of[p] >= 0)
        by = live[np.argsort(cls_of[p, live], kind="stable")]
        num[p] = by.size
        order[p, : by.size] = by
        cls[p, : by.size] = cls_of[p, by]
    term_row = np.full(c.shape[0], -1, dtype=np.int64)
    term_row[nodes] = np.arange(nodes.size)
    return Showdown3Tables(
        cards=rh.cards,
        weight=rh.weight,
        inv_z=1.0 / rh.z,
        num=num,
        order=order,
        cls=cls,
        num_classes=int(classes.size),
        contrib=np.ascontiguousarray(c[nodes]),
        active=np.ascontiguousarray(a[nodes]),
        term_row=term_row,
        mat=np.zeros((3, NUM_CARDS, NUM_CARDS)),
        vec=np.zeros((5, NUM_CARDS)),
        acc=np.zeros(8),
    )


def showdown3_values(tables: Showdown3Tables, node: int, trav: int, reach: npt.ArrayLike) -> Array:
    """Traverser ``trav``'s values (H,) at terminal ``node`` given every player's reach of
    its hands, ``reach`` (3, H) (the traverser's row unread) — the kernel the walk calls."""
    row = int(tables.term_row[node]) if 0 <= node < tables.term_row.size else -1
    if row < 0:
        raise ValueError(f"node: {node!r} is not a terminal of the tables")
    if trav not in (0, 1, 2):
        raise ValueError(f"trav: expected player 0, 1 or 2, got {trav!r}")
    width = tables.cards.shape[1]
    re = np.ascontiguousarray(reach, dtype=np.float64)
    if re.shape != (3, width) or not np.all(np.isfinite(re)):
        raise ValueError(f"reach: expected (3, {width}) finite numbers")
    out = np.zeros((1, width))
    showdown3_terminal(tables, np.int64(row), np.int64(trav), re, np.int64(0), out, np.int64(0))
    return out[0]
