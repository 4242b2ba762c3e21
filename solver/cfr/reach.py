"""Reach along a path of the public tree: what chance and each player's own actions
contribute to the probability of arriving at a node. One implementation for the whole
solver: the API and analysis (:func:`path_reach`, :func:`chance_factor`) and regret-based
pruning (:func:`own_reach`, :func:`chance_factors`) use the same products in the same order.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.games.model import CHANCE, DECISION, Boards, Game, Hands, Tree
from solver.jit import kernel

Array = npt.NDArray[np.float64]


@kernel
def own_reach(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    parents: npt.NDArray[np.int64],
    sigma: Array,
    node: int,
    player: int,
    out: Array,
) -> None:
    """out[:H[player]] ← ``player``'s reach at ``node`` under ``sigma`` (A,): the range weights
    times the player's own action probabilities on the path (from the node up), zeroed where a
    dealt card blocks the hand. Chance probabilities are not included."""
    nh = hands.num_hands[player]
    for h in range(nh):
        out[h] = hands.weights[player, h]
    c = node
    while c > 0:
        par = parents[c]
        if tree.kind[par] == DECISION and tree.player[par] == player:
            base = tree.offset[par] + (c - tree.first_child[par]) * nh
            for h in range(nh):
                out[h] *= sigma[base + h]
        elif tree.kind[par] == CHANCE:
            b = tree.board[c]
            for h in range(nh):
                out[h] *= boards.valid[b, player, h]
        c = par


@kernel
def _chance_factors(tree: Tree, parents: npt.NDArray[np.int64], norm: float, out: Array) -> None:
    out[0] = norm
    for node in range(1, tree.kind.shape[0]):  # parents come first
        par = parents[node]
        out[node] = out[par] * (tree.chance_weight[node] if tree.kind[par] == CHANCE else 1.0)


def chance_factors(game: Game) -> Array:
    """(N,): the deal normaliser times the chance weights on the path to each node (from the
    root down): the chance part of every node's reach."""
    out = np.empty(game.num_nodes)
    _chance_factors(game.tree, game.parents, float(game.hands.norm), out)
    return out


def chance_factor(game: Game, node: int) -> float:
    """:func:`chance_factors` of one node (the same product, in the same order)."""
    weights = []
    n = node
    while n > 0:
        parent = int(game.parents[n])
        if game.tree.kind[parent] == CHANCE:
            weights.append(float(game.tree.chance_weight[n]))
        n = parent
    f = float(game.hands.norm)
    for w in reversed(weights):
        f *= w
    return f


def path_reach(game: Game, sigma: Array, node: int) -> tuple[Array, Array]:
    """Each player's reach vector at ``node`` (shapes (H[0],), (H[1],)) under ``sigma`` (A,):
    :func:`own_reach` of both players (chance probabilities not included)."""
    h = int(max(game.hands.cards.shape[1], 1))
    # (a job's frozen, read-only average would be another kernel type: another compilation)
    sigma = np.require(sigma, dtype=np.float64, requirements=("C", "W"))
    out = []
    for p in range(2):
        buf = np.zeros(h)
        own_reach(game.tree, game.hands, game.boards, game.parents, sigma, int(node), p, buf)
        out.append(buf[: game.num_hands[p]].copy())
    return out[0], out[1]
