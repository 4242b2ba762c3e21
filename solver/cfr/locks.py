"""Node locking in the engine: some infosets play a fixed strategy while everything else
re-solves.

A lock is data the walk reads, like a rule: per infoset (decision node, hand) a flag and the
fixed mix it plays (:class:`Locks`). A locked infoset plays its mix as both its current and
its average strategy and is never updated — its regrets, strategy sums and adaptive
statistics keep their values bit for bit — while the node's other hands, and every other
node, solve as usual. A best response may not change a locked infoset either, so
exploitability and EVs are those of the *locked game* (the game in which those infosets are
chance-like).

The engine sees only these arrays: what a user writes (lines, hands, ranges, hand classes,
"solved") is resolved into them above the engine, by :mod:`solver.lockspec`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from solver.games.model import Game
from solver.jit import called_kernel

Array = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]
Int = int | np.int64


_F1 = np.zeros(1)


class Locks(NamedTuple):
    """What the walk reads of the locks (``N`` nodes, ``I`` info size, ``A`` action size);
    :func:`no_locks` for solves without any (length-1 placeholders the walk never reads).

    The ``rnr_*`` fields: a restricted Nash response (Johanson, Zinkevich and Bowling, NIPS
    2007; :func:`restricted`): the exploiter's opponent (the learner) plays ``rnr_fixed``
    with probability ``rnr_p`` and a free strategy otherwise, and the exploiter cannot tell
    which; the walk plays it in the exploiter's passes from the root
    (:func:`~solver.cfr.decision.restricted_child`). Off (nothing read) when ``rnr_p`` is
    0."""

    node: I8  # (N,) 1 at a decision node with at least one locked hand
    hand: I8  # (I,) 1 at a locked infoset (node, hand)
    strategy: Array  # (A,) the locked mix at a locked infoset's cells, 0 elsewhere
    rnr_p: float = 0.0  # the probability of the fixed strategy, in [0, 1]
    rnr_exploiter: int = -1  # the player who exploits (0 or 1), -1 when off
    rnr_fixed: Array = _F1  # (A,) the learner's fixed strategy at its cells, or (1,)


def restricted(locks: Locks, p: float, exploiter: int, fixed: Array | None) -> Locks:
    """``locks`` playing a restricted Nash response (``p`` 0 or ``fixed`` None: none)."""
    if fixed is None or p == 0.0:
        return locks._replace(rnr_p=0.0, rnr_exploiter=-1, rnr_fixed=_F1)
    return locks._replace(rnr_p=float(p), rnr_exploiter=int(exploiter), rnr_fixed=fixed)


def same_restriction(locks: Locks, like: Locks) -> Locks:
    """``locks`` with ``like``'s restricted Nash response."""
    return locks._replace(
        rnr_p=like.rnr_p, rnr_exploiter=like.rnr_exploiter, rnr_fixed=like.rnr_fixed
    )


def no_locks() -> Locks:
    return Locks(np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.int8), np.zeros(1))


# ----- the walk's steps at a locked node (inlined) --------------------------------------------
@called_kernel  # (a call, not inlined: off the common path)
def play_locked(
    LH: I8, LS: Array, off: Int, ioff: Int, na: Int, nh: Int, out2: Array, orow: Int
) -> None:
    """out2[orow, a·nh + h] ← the locked mix of each locked hand h (a strategy row derived from
    the regrets, as the walk keeps one per depth)."""
    for h in range(nh):
        if LH[ioff + h] != 0:
            for a in range(na):
                out2[orow, a * nh + h] = LS[off + a * nh + h]


@called_kernel  # (a call, not inlined: off the common path)
def locked_values(
    LH: I8, LS: Array, off: Int, ioff: Int, na: Int, nt: Int, AV: Array, VA: Array, d: Int
) -> None:
    """A best response at the traverser's node leaves a locked hand on its mix:
    VA[d, h] = Σ_a locked(a, h)·AV[d, a, h] for the locked hands."""
    for h in range(nt):
        if LH[ioff + h] != 0:
            v = 0.0
            for a in range(na):
                v += LS[off + a * nt + h] * AV[d, a, h]
            VA[d, h] = v


@called_kernel  # (a call, not inlined: off the common path)
def keep_cells(src: Array, off: Int, n: Int, keep2: Array, row: Int) -> None:
    """keep2[row, :n] ← src[off : off + n] (a block, before an update may change it)."""
    for i in range(n):
        keep2[row, i] = src[off + i]


@called_kernel  # (a call, not inlined: off the common path)
def restore_locked(
    dst: Array, LH: I8, off: Int, ioff: Int, na: Int, nh: Int, keep2: Array, row: Int
) -> None:
    """dst's cells of the locked hands ← what :func:`keep_cells` kept of them."""
    for h in range(nh):
        if LH[ioff + h] != 0:
            for a in range(na):
                dst[off + a * nh + h] = keep2[row, a * nh + h]


@dataclass(frozen=True)
class LockSet:
    """Locks resolved against one game: the walk's arrays and what was asked (``spec``, JSON-
    able: line text → mix, per-hand mixes by the names given; "solved" already replaced by
    per-hand mixes), for saving and showing."""

    locks: Locks
    spec: dict[str, Any]

    def nodes(self) -> npt.NDArray[np.int64]:
        return np.flatnonzero(self.locks.node)


def locked_cells(game: Game, locks: Locks) -> npt.NDArray[np.bool_]:
    """(A,) True at the ``[action, hand]`` cells of the locked infosets."""
    out = np.zeros(game.action_size, dtype=bool)
    t = game.tree
    for node in np.flatnonzero(locks.node):
        off, na, nh = game.block(int(node))
        ioff = int(t.ioffset[node])
        hands = locks.hand[ioff : ioff + nh] != 0
        out[off : off + na * nh] = np.tile(hands, na)
    return out
