"""What regret-based pruning knows about a game before it starts: the payoff bounds U(I, a)
and L(I), the largest opponent reach an infoset can have, and the opponent reach a hand can
meet at a board (card removal)."""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from solver.cfr.reach import chance_factors
from solver.cfr.terminal import fold_values
from solver.games.model import DECISION, FIXED, RUNOUT, SHOWDOWN, Boards, Game, Hands, Tree
from solver.jit import kernel

Array = npt.NDArray[np.float64]


def payoff_bounds(game: Game) -> tuple[Array, Array]:
    """(umax, lmin), both (N,): ``umax[c]`` = max(0, the most the player acting at ``c``'s
    parent can win in ``c``'s subtree); ``lmin[n]`` = min(0, the least the player acting at
    decision node ``n`` can get below it). Chips, per deal (counterfactual values are these
    times the opponent's reach)."""
    t = game.tree
    n = game.num_nodes
    hi = np.full((n, 2), -math.inf)
    lo = np.full((n, 2), math.inf)
    for node in range(n - 1, -1, -1):  # children have larger indices than their parent
        kind = t.kind[node]
        if kind == FIXED:  # the winner's gain less the rake
            x = float(t.payoff[node])
            r = float(t.rake[node])
            hi[node] = lo[node] = (x - r, -x) if x > 0 else (x, -x - r)
        elif kind in (SHOWDOWN, RUNOUT):  # win A − r ≥ tie −r/2 ≥ lose −A (r ≤ the pot 2A)
            x = float(t.payoff[node]) - float(t.rake[node])
            hi[node] = (x, x)
            x = float(t.payoff[node])
            lo[node] = (-x, -x)
        else:
            kids = game.children(node)
            hi[node] = hi[kids.start : kids.stop].max(axis=0)
            lo[node] = lo[kids.start : kids.stop].min(axis=0)
    umax = np.zeros(n)
    lmin = np.zeros(n)
    parents = game.parents
    for node in range(1, n):
        p = int(t.player[parents[node]])
        if p >= 0:
            umax[node] = max(hi[node, p], 0.0)
    for node in game.decision_nodes():
        lmin[node] = min(lo[node, int(t.player[node])], 0.0)
    return umax, lmin


@kernel
def _pimax_kernel(
    tree: Tree, hands: Hands, boards: Boards, cf: Array, out: Array, cs: Array, buf: Array
) -> None:
    """out[ioffset(n) + h] = the opponent reach infoset (n, h) gets when the opponent plays
    every hand of its range to n: cf[n] × Σ compatible weights (``buf`` (2, H) scratch)."""
    for node in range(tree.kind.shape[0]):
        if tree.kind[node] != DECISION:
            continue
        p = tree.player[node]
        opp = 1 - p
        b = tree.board[node]
        for j in range(hands.num_hands[opp]):
            buf[0, j] = hands.weights[opp, j] * boards.valid[b, opp, j]
        fold_values(hands, boards, b, p, cf[node], buf, np.int64(0), buf, np.int64(1), cs)
        ioff = tree.ioffset[node]
        for h in range(hands.num_hands[p]):
            out[ioff + h] = buf[1, h]


def max_opponent_reach(game: Game) -> Array:
    """(info_size,): π_max(I), the largest opponent reach (chance included) each infoset
    can have: an upper bound on π^t(I) whatever the opponent plays."""
    out = np.zeros(max(game.info_size, 1))
    h = int(max(game.hands.cards.shape[1], 1))
    _pimax_kernel(
        game.tree,
        game.hands,
        game.boards,
        chance_factors(game),
        out,
        np.zeros(2 * max(game.hands.num_cards, 1)),
        np.zeros((2, h)),
    )
    return out


@kernel
def _compatible_mass(
    hands: Hands, boards: Boards, b: int, trav: int, reach: Array, cs: Array, buf: Array
) -> Array:
    for j in range(reach.shape[0]):
        buf[0, j] = reach[j]
    fold_values(hands, boards, b, trav, 1.0, buf, np.int64(0), buf, np.int64(1), cs)
    return buf[1, : hands.num_hands[trav]].copy()


def compatible_mass(game: Game, node: int, player: int, reach: Array) -> Array:
    """Per ``player`` hand (H[player],): the opponent reach ``reach`` (H[opp],) of the
    opponent hands it can meet on ``node``'s board."""
    h = int(max(game.hands.cards.shape[1], 1))
    full = np.zeros(h)
    full[: reach.shape[0]] = reach
    return _compatible_mass(
        game.hands,
        game.boards,
        int(game.tree.board[node]),
        player,
        full,
        np.zeros(2 * max(game.hands.num_cards, 1)),
        np.zeros((2, h)),
    )


def subtree_cells(game: Game, node: int) -> tuple[int, int, int, int]:
    """The ``[action, hand]`` cells (start, end) and infosets (start, end) of the decision
    nodes in ``node``'s subtree: contiguous, since blocks are laid out in depth-first
    preorder ((0, 0, 0, 0) when it has none)."""
    t = game.tree
    lo, hi = int(t.pre_start[node]), int(t.pre_end[node])
    if lo >= hi:
        return 0, 0, 0, 0
    first, last = int(t.pre_order[lo]), int(t.pre_order[hi - 1])
    nh = int(game.hands.num_hands[t.player[last]])
    end = int(t.offset[last]) + int(t.num_children[last]) * nh
    return int(t.offset[first]), end, int(t.ioffset[first]), int(t.ioffset[last]) + nh
