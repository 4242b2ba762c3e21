"""The watched node of a live solve, from strategy sums: its average strategy
(:func:`block_average`) and each player's reach there (:func:`reach_at`), reading the sums of
that node and of the nodes on its path only — what a :class:`solver.run.jobs.SolveJob` copies
between chunks for a live view. :mod:`solver.run.jobs` re-exports both names.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.cfr.locks import Locks
from solver.games.model import CHANCE, DECISION, Game
from solver.study.analysis import node_path

Array = npt.NDArray[np.float64]


def block_average(game: Game, cumulative: Array, node: int, locks: Locks | None = None) -> Array:
    """Average strategy of one decision node from strategy sums: (num_actions, num_hands),
    each column normalised, uniform where a hand's sums are all zero. Returns a new array.
    (16-bit sums with a scale per node normalise the same way: the scale cancels.) With
    ``locks`` (a locked solve's :class:`~solver.cfr.locks.Locks`), locked hands show their
    locked mix, as :meth:`Engine.average_strategy` does."""
    off, na, nh = game.block(node)
    s = np.array(cumulative[off : off + na * nh], dtype=np.float64).reshape(na, nh)
    tot = s.sum(axis=0)
    pos = tot > 0
    out = np.full((na, nh), 1.0 / na)
    out[:, pos] = s[:, pos] / tot[pos]
    if locks is not None and locks.node.shape[0] > node and locks.node[node]:
        ioff = int(game.tree.ioffset[node])
        held = locks.hand[ioff : ioff + nh] != 0
        mix = locks.strategy[off : off + na * nh].reshape(na, nh)
        out[:, held] = mix[:, held]
    return out


def reach_at(
    game: Game, cumulative: Array, node: int, locks: Locks | None = None
) -> tuple[Array, Array]:
    """Each player's reach at ``node`` (shapes (H₀,), (H₁,)) under the average strategy of
    the sums ``cumulative``: the range weights times the player's own average action
    probabilities along the path, zeroed where a dealt card blocks the hand (chance
    probabilities not included) — :func:`solver.cfr.reach.path_reach` of the average
    strategy, reading the sums of the path's decision nodes only (not the whole tree)."""
    t = game.tree
    reach = [np.array(game.hands.weights[p, : game.num_hands[p]], dtype=np.float64) for p in (0, 1)]
    for child in node_path(game, node):
        parent = int(game.parents[child])
        if t.kind[parent] == DECISION:
            a = child - int(t.first_child[parent])
            reach[int(t.player[parent])] *= block_average(game, cumulative, parent, locks)[a]
        elif t.kind[parent] == CHANCE:
            for p in (0, 1):
                reach[p] *= game.valid_hands(child, p)
    return reach[0], reach[1]
