"""A terminal of a three-player toy game (kuhn3, leduc3: one private card per player) valued
in the walk per hand from the two other players' reach rows, in O(C + K) plus the traverser's
hand's strength class per terminal (``C`` cards, ``K`` strength classes), never a loop over
the deals (issue 49; :class:`~solver.cfr.multi.MultiArrays` mode ``TERMINAL_TOY3``).

Values, for traverser ``t`` with hand ``h``, opponents ``q`` and ``r`` (``f = π_q``, ``g = π_r``
their reach rows), ``D`` the number of deals (each as likely) and ``u_t`` the payoff::

    v_t(h) = 1/D · Σ_{h' ≠ h, h'' ∉ {h, h'}, none on the board} f(h') g(h'') · u_t(h, h', h'')

the number the deal-list terminal gives (a public card's chance is already in ``g`` or ``f``,
the walk's row of player ``t + 1``). A hand holding the board's card is worth 0.

How. For windows ``Wq``, ``Wr`` of the strength order below ``h`` (``L``: strictly weaker than
``h``; ``LE``: weaker or tied; ``A``: every hand not on the board), the pair mass is ::

    T(Wq, Wr) = F(Wq) G(Wr) − Dfg(Wq ∩ Wr)

with ``F``, ``G``, ``Dfg`` the sums of ``f``, ``g`` and ``f·g`` over a window without ``h`` (one
card in common is the only way two single-card hands collide, so ``Dfg`` removes exactly
the pairs holding the same card). The windows are nested, so ``Wq ∩ Wr`` is the smaller. A
window's sum is a prefix sum over the classes below ``h``'s, plus ``h``'s class without ``h``,
plus a suffix sum over the classes above: additions only. ``T`` is 0 exactly when ``F`` or
``G`` is 0 or both sit on the same one card, and then ``F·G`` and ``Dfg`` are the same
rounded product, so the difference is exactly 0 as the deal list's sum is (no snapping
needed: a residue's sign would steer regret matching). Then, with ``pot`` the chips in and
``c_t`` the traverser's:

* the traverser folded, or is the one left: ``(pot·[t in] − c_t) · T(A, A)``;
* three in: a share of 1, ½ or ⅓ by ties, ``pot · (T(L, L)/3 + (T(LE, L) + T(L, LE))/6 +
  T(LE, LE)/3) − c_t · T(A, A)`` (inclusion–exclusion over ``L`` and ``LE``);
* two in (the other ``o``, the folded player's hand still removes its card):
  ``pot · (T(L, A) + T(LE, A))/2 − c_t · T(A, A)``, ``o``'s window the first.

The tables (built by :func:`~solver.cfr.multi_build.toy3_tables`) are
:class:`~solver.cfr.showdown3_terminal.Showdown3Tables`, so the engine's arrays keep the
heads-up kernel types; their fields are read here as:

* ``cls`` (B, H): hand ``h``'s strength class on board ``b``, 0 … K_b − 1 ascending, −1 for
  a hand holding the board's card (a board with no showdown: one class);
* ``order`` (B, H): the hands by ascending class (the board's card last);
* ``cards`` (B, H, 2): ``[start, end)`` of ``h``'s class in ``order[b]``;
* ``num`` (B,): K_b; ``num_classes``: the largest K_b;
* ``inv_z``: 1 / D; ``contrib``, ``active``, ``term_row``: as for a three-way river;
* ``vec`` (9, K) work: per class sums of ``f``, ``g``, ``f·g``, then the sums over the
  classes below each class, then over those above; ``weight``, ``mat``, ``acc`` unused.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.showdown3_terminal import Showdown3Tables
from solver.jit import kernel

__all__ = ["toy3_terminal", "toy3_values"]

Array = npt.NDArray[np.float64]
Int = int | np.int64


@kernel
def toy3_terminal(
    tb: Showdown3Tables, row: Int, b: Int, t: Int, RE: Array, base: Int, VA: Array, d: Int
) -> None:  # fmt: skip
    """Traverser ``t``'s values at terminal ``row`` on board ``b``, ``VA[d, :H]`` (module
    docstring): player ``p``'s reach of its hands in row ``base + p`` of ``RE``."""
    nh = tb.cls.shape[1]
    q, r = (t + 1) % 3, (t + 2) % 3
    nk = tb.num[b]
    V = tb.vec
    for i in range(3):
        for k in range(nk):
            V[i, k] = 0.0
        V[3 + i, 0] = 0.0
        V[6 + i, nk - 1] = 0.0
    for h in range(nh):
        k = tb.cls[b, h]
        if k >= 0:
            f, g = RE[base + q, h], RE[base + r, h]
            V[0, k] += f
            V[1, k] += g
            V[2, k] += f * g
    for i in range(3):  # V[3 + i, k]: classes below k; V[6 + i, k]: classes above k
        for k in range(1, nk):
            V[3 + i, k] = V[3 + i, k - 1] + V[i, k - 1]
        for k in range(nk - 2, -1, -1):
            V[6 + i, k] = V[6 + i, k + 1] + V[i, k + 1]
    pot = 0.0
    live = 0
    for p in range(3):
        pot += tb.contrib[row, p]
        if tb.active[row, p]:
            live += 1
    own = tb.contrib[row, t]
    if not tb.active[row, t] or live == 1:
        kind, fixed = 0, (pot if tb.active[row, t] else 0.0) - own
    else:
        kind, fixed = (3 if live == 3 else (1 if tb.active[row, q] else 2)), -own
    for h in range(nh):
        k = tb.cls[b, h]
        if k < 0:
            VA[d, h] = 0.0
            continue
        fe, ge, de = 0.0, 0.0, 0.0  # h's class mates
        for j in range(tb.cards[b, h, 0], tb.cards[b, h, 1]):
            c = tb.order[b, j]
            if c != h:
                fc, gc = RE[base + q, c], RE[base + r, c]
                fe += fc
                ge += gc
                de += fc * gc
        # windows L (weaker than h), E (weaker or tied), A (all), h left out
        fl, gl, dl = V[3, k], V[4, k], V[5, k]
        fq, gq, dq = fl + fe, gl + ge, dl + de
        fa, ga, da = fq + V[6, k], gq + V[7, k], dq + V[8, k]
        v = fixed * (fa * ga - da)
        if kind == 3:  # shares 1, 1/2, 1/3: T(L,L)/3 + (T(E,L) + T(L,E))/6 + T(E,E)/3
            v += pot * ((fl * gl - dl) / 3.0
                        + ((fq * gl - dl) + (fl * gq - dl)) / 6.0
                        + (fq * gq - dq) / 3.0)  # fmt: skip
        elif kind == 1:  # q in: (T(L, A) + T(E, A)) / 2
            v += pot * 0.5 * ((fl * ga - dl) + (fq * ga - dq))
        elif kind == 2:  # r in
            v += pot * 0.5 * ((fa * gl - dl) + (fa * gq - dq))
        VA[d, h] = v * tb.inv_z


def toy3_values(
    tables: Showdown3Tables, node: int, board: int, trav: int, reach: npt.ArrayLike
) -> Array:
    """Traverser ``trav``'s values (H,) at terminal ``node`` on board ``board`` given every
    player's reach of its hands, ``reach`` (3, H) — the kernel the walk calls."""
    row = int(tables.term_row[node])
    re = np.ascontiguousarray(reach, dtype=np.float64)
    out = np.zeros((1, tables.cls.shape[1]))
    toy3_terminal(tables, np.int64(row), np.int64(board), np.int64(trav), re, np.int64(0), out,
                  np.int64(0))  # fmt: skip
    return out[0]
