"""The walk's steps for games of three (or more) players (issue 49; docs/multiway.md).

A pass of traverser ``t`` in a ``P``-player game carries, instead of the heads-up walk's one
opponent reach row, one reach row per player — each player's *own* reach, the product of its
strategy along the path (the traverser's row is carried but never read) — and brings ``t``'s
counterfactual values up exactly as heads-up (one per ``t``'s hand). In the walk's scratch
the reach of player ``p`` at the node of depth ``d`` is row ``rrow[d] · P + p`` of
``sc.reach`` (a traverser's child shares its parent's rows, as heads-up).

* at another player's decision node only the actor's row is multiplied by its strategy;
* at a chance node (a public card) the row of player ``(t + 1) mod P`` takes the card's
  probability (never the row of the player whose strategy sums the pass adds, ``t − 1``:
  those sums stay each player's own reach times its strategy); card removal is left to the
  terminal, by the deals;
* a terminal gives ``v_t(h) = Σ_{deals e: deals[e, t] = h} wpay[row, t, e] · Π_{p ≠ t}
  π_p(deals[e, p])``, ``wpay`` the deal's chance times the payoff (0 for a deal the board
  blocks). Cost per terminal: O(D · P) for the ``D`` deals listed. kuhn3 and leduc3 (mode
  :data:`TERMINAL_TOY3`) list no deals: their terminals add the others' reaches up by
  strength class (:mod:`solver.cfr.toy3_terminal`, O(C + K) for ``C`` cards and ``K``
  classes, plus a hand's class mates), the same numbers. A three-way hold'em river
  (``mode`` :data:`TERMINAL_SHOWDOWN3`) lists no deals: its terminals sweep the strength
  order instead (:mod:`solver.cfr.showdown3_terminal`, O((n_q + n_r) · 52 + n_t) for
  ``n_p`` hands of player ``p``), the same numbers.

Players may hold different numbers of hands (``hands.num_hands[p]``): player ``p``'s reach
row and strategy blocks have its own length; a row is copied whole (the scratch's width).

The heads-up game's arrays carry :data:`NO_MULTI`, a :class:`NoMulti` (``players`` 2): a type
of its own, so the walk's calls of these steps (:func:`start_rows`, :func:`chance_rows`,
:func:`opponent_rows`, :func:`terminal_rows`) resolve, when Numba types a heads-up signature, to
steps that do nothing, and none of the three-player code (the terminals of
:mod:`solver.cfr.toy3_terminal` and :mod:`solver.cfr.showdown3_terminal` are the largest) is
compiled into it: a three-player game's arrays (:class:`MultiArrays`) are another signature of
the same walk, compiled when such a game is first solved (issue 50). Built from a
:class:`~solver.games.multiway.MultiGame` by :mod:`solver.cfr.multi_build`.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt
from numba import types
from numba.extending import overload

from solver.cfr.showdown3_terminal import NO_SHOWDOWN3, Showdown3Tables, showdown3_terminal
from solver.cfr.toy3_terminal import toy3_terminal
from solver.jit import node_kernel

Array = npt.NDArray[np.float64]
Int = int | np.int64
I64 = npt.NDArray[np.int64]

# How a game's terminals are valued (MultiArrays.mode).
TERMINAL_DEALS = 0  # by the deal list (``deals``, ``wpay``)
TERMINAL_SHOWDOWN3 = 1  # a three-way hold'em river: by the strength order (``sd3``)
# a three-way hold'em turn: ``sd3`` holds one table block per board (rows 3b … 3b + 2 of its
# per-player arrays), board 0 the turn's, then one per river card; a terminal reads the block
# of its node's board
TERMINAL_TURN3 = 2
# a three-player toy game of one-card hands (kuhn3, leduc3): ``sd3`` holds the strength
# classes per board (:mod:`solver.cfr.toy3_terminal`), no deal list
TERMINAL_TOY3 = 3


class MultiArrays(NamedTuple):
    """What a pass over a game of more than two players reads beside the heads-up arrays
    (``N`` nodes, ``T`` terminals, ``D`` deals, ``P`` players)."""

    players: int  # P; 2 for a heads-up game (the walk's heads-up path)
    term_row: I64  # (N,): a terminal's row of ``wpay``, -1 elsewhere
    deals: npt.NDArray[np.int64]  # (D, P): each player's hand in deal e
    # (T, P, D): deal e's chance times player p's payoff (chips) at the terminal, 0 where
    # the terminal's public cards collide with the deal
    wpay: npt.NDArray[np.float64]
    # how terminals are valued: TERMINAL_DEALS, _SHOWDOWN3, _TURN3, _TOY3
    mode: int = TERMINAL_DEALS
    # a three-way river's tables (mode TERMINAL_SHOWDOWN3), or a turn's, one block per board
    # (mode TERMINAL_TURN3), or a toy game's strength classes (mode TERMINAL_TOY3)
    sd3: Showdown3Tables = NO_SHOWDOWN3


class NoMulti(NamedTuple):
    """A heads-up game's :attr:`~solver.cfr.layout.GameArrays.multi`: two players, and a
    Numba type other than :class:`MultiArrays`', so its walk compiles without the
    three-player steps (module docstring)."""

    players: int  # 2


NO_MULTI = NoMulti(2)
"""The heads-up game's placeholder."""


@node_kernel
def multi_start(mw: MultiArrays, RE: Array, nh: Int) -> bool:
    """Whether the game has more than two players; if so, every player's reach at the root
    (rows ``0 … P − 1``, whole) set to 1 — a pass of such a game starts at the root."""
    if mw.players <= 2:
        return False
    for p in range(mw.players):
        for j in range(RE.shape[1]):
            RE[p, j] = 1.0
    return True


@node_kernel
def multi_chance_child(
    w: float, d: Int, nh: Int, pl: Int, trav: Int, RE: Array, rrow: I64, valid: Array, b: Int
) -> bool:  # fmt: skip
    """The reach rows into a chance child (depth ``d + 1``) of board ``b``: the row of player
    ``(trav + 1) mod P`` times the card's probability ``w``, and every row times
    ``valid[b, q]`` (0 for a hand holding a card of the board: card removal in the rows; all
    1 in a deal-list game, whose deals remove the cards)."""
    src = rrow[d] * pl
    dst = (d + 1) * pl
    carrier = (trav + 1) % pl
    nv = min(valid.shape[2], RE.shape[1])
    for q in range(pl):
        f = w if q == carrier else 1.0
        for j in range(nv):
            RE[dst + q, j] = RE[src + q, j] * f * valid[b, q, j]
        for j in range(nv, RE.shape[1]):
            RE[dst + q, j] = RE[src + q, j] * f
    rrow[d + 1] = d + 1
    return w != 0.0


@node_kernel
def multi_opponent_child(
    k: Int, d: Int, nh: Int, pl: Int, actor: Int, derive: bool, off: Int, sigma: Array,
    SG: Array, RE: Array, rrow: I64,
) -> bool:  # fmt: skip
    """The reach rows into child ``k`` of ``actor``'s node (not the traverser's): the actor's
    row (``nh`` hands, the actor's) times the probability it plays the action (``SG[d]`` when
    derived from the regrets, else ``sigma`` at ``off``), the others copied. Whether the
    actor's row keeps any reach."""
    src = rrow[d] * pl
    dst = (d + 1) * pl
    for q in range(pl):
        if q != actor:
            for j in range(RE.shape[1]):
                RE[dst + q, j] = RE[src + q, j]
    nz = False
    for j in range(nh):
        p = SG[d, np.uint64(k * nh + j)] if derive else sigma[np.uint64(off + k * nh + j)]
        x = RE[src + actor, j] * p
        RE[dst + actor, j] = x
        nz |= x != 0.0
    rrow[d + 1] = d + 1
    return nz


@node_kernel
def multi_terminal(
    mw: MultiArrays, node: Int, trav: Int, nt: Int, RE: Array, r0: Int, VA: Array, d: Int, b: Int
) -> None:
    """The traverser's values at a terminal, ``VA[d, :nt]``: per deal its chance times the
    payoff times every other player's own reach of its hand (rows ``r0 · P + p``), summed
    into the traverser's hand of the deal — or, for a three-way river, the same sums by
    :func:`~solver.cfr.showdown3_terminal.showdown3_terminal`; for a three-way turn by the
    tables of the node's board ``b``."""
    pl = mw.players
    row = mw.term_row[node]
    if mw.mode == TERMINAL_TOY3:
        toy3_terminal(mw.sd3, row, b, trav, RE, r0 * pl, VA, d)
        return
    if mw.mode == TERMINAL_SHOWDOWN3:
        showdown3_terminal(mw.sd3, row, trav, RE, r0 * pl, VA, d)
        return
    if mw.mode == TERMINAL_TURN3:
        tb = mw.sd3
        k = 3 * b
        view = Showdown3Tables(tb.cards, tb.weight[k : k + 3], tb.inv_z, tb.num[k : k + 3],
                               tb.order[k : k + 3], tb.cls[k : k + 3], tb.num_classes,
                               tb.contrib, tb.active, tb.term_row, tb.mat, tb.vec,
                               tb.acc)  # fmt: skip
        showdown3_terminal(view, row, trav, RE, r0 * pl, VA, d)
        return
    for h in range(nt):
        VA[d, h] = 0.0
    base = r0 * pl
    for e in range(mw.deals.shape[0]):
        x = mw.wpay[row, trav, e]
        if x == 0.0:
            continue
        for q in range(pl):
            if q != trav:
                x *= RE[base + q, mw.deals[e, q]]
        VA[d, mw.deals[e, trav]] += x


# ----- the walk's calls: the steps above for MultiArrays, nothing for NoMulti ------------------
# (chosen by type when Numba types the walk: a heads-up signature never types, lowers or
# optimises the three-player steps; forceinline as the node kernels they stand for)


def _heads_up(mw: types.Type) -> bool:
    return isinstance(mw, types.BaseNamedTuple) and getattr(mw, "instance_class", None) is NoMulti


def start_rows(mw: MultiArrays | NoMulti, RE: Array, nh: Int) -> bool:
    """:func:`multi_start` for a game of more than two players; False for :class:`NoMulti`."""
    raise NotImplementedError("a kernel's step: called inside the walk only")


def chance_rows(
    mw: MultiArrays | NoMulti, w: float, d: Int, nh: Int, trav: Int, RE: Array, rrow: I64,
    valid: Array, b: Int,
) -> bool:  # fmt: skip
    """:func:`multi_chance_child` (``pl`` = ``mw.players``); never reached heads-up."""
    raise NotImplementedError("a kernel's step: called inside the walk only")


def opponent_rows(
    mw: MultiArrays | NoMulti, k: Int, d: Int, nh: Int, actor: Int, derive: bool, off: Int,
    sigma: Array, SG: Array, RE: Array, rrow: I64,
) -> bool:  # fmt: skip
    """:func:`multi_opponent_child` (``pl`` = ``mw.players``); never reached heads-up."""
    raise NotImplementedError("a kernel's step: called inside the walk only")


def terminal_rows(
    mw: MultiArrays | NoMulti, node: Int, trav: Int, nt: Int, RE: Array, r0: Int, VA: Array,
    d: Int, b: Int,
) -> None:  # fmt: skip
    """:func:`multi_terminal`; never reached heads-up."""
    raise NotImplementedError("a kernel's step: called inside the walk only")


@overload(start_rows, jit_options={"forceinline": True})
def _start_rows(mw, RE, nh):  # type: ignore[no-untyped-def]
    if _heads_up(mw):
        return lambda mw, RE, nh: False
    return lambda mw, RE, nh: multi_start(mw, RE, nh)


@overload(chance_rows, jit_options={"forceinline": True})
def _chance_rows(mw, w, d, nh, trav, RE, rrow, valid, b):  # type: ignore[no-untyped-def]
    if _heads_up(mw):
        return lambda mw, w, d, nh, trav, RE, rrow, valid, b: False
    return lambda mw, w, d, nh, trav, RE, rrow, valid, b: multi_chance_child(
        w, d, nh, mw.players, trav, RE, rrow, valid, b
    )


@overload(opponent_rows, jit_options={"forceinline": True})
def _opponent_rows(mw, k, d, nh, actor, derive, off, sigma, SG, RE, rrow):  # type: ignore[no-untyped-def]
    if _heads_up(mw):
        return lambda mw, k, d, nh, actor, derive, off, sigma, SG, RE, rrow: False
    return lambda mw, k, d, nh, actor, derive, off, sigma, SG, RE, rrow: multi_opponent_child(
        k, d, nh, mw.players, actor, derive, off, sigma, SG, RE, rrow
    )


@overload(terminal_rows, jit_options={"forceinline": True})
def _terminal_rows(mw, node, trav, nt, RE, r0, VA, d, b):  # type: ignore[no-untyped-def]
    if _heads_up(mw):
        return lambda mw, node, trav, nt, RE, r0, VA, d, b: None
    return lambda mw, node, trav, nt, RE, r0, VA, d, b: multi_terminal(
        mw, node, trav, nt, RE, r0, VA, d, b
    )
