"""Exact evaluation of a behaviour profile in a game of three (or more) players: each
player's expected value, best-response value, Nash distance and NashConv.

In a game of more than two players there is no single "exploitability": what can be measured
exactly is each player's **Nash distance** — what that player gains by its best unilateral
deviation with the others' strategies fixed (its best-response value minus its value under the
profile) — and **NashConv**, their sum, as OpenSpiel's ``exploitability.nash_conv`` defines
it. A profile is a Nash equilibrium exactly when every Nash distance is 0.

A profile ``sigma`` is a flat vector of length :attr:`MultiGame.profile_size`: at a decision
node with ``A`` actions, ``sigma[offset + a * H + h]`` is the probability that the actor,
holding hand ``h``, takes action ``a`` (each ``[:, h]`` column sums to 1).

The walk is vectorised numpy over whole depths of the public tree: reaches ``(N, P, H)`` top
down, then per player the counterfactual values ``(N, H)`` bottom up — a maximum over actions
at the player's own nodes (its information sets are (node, hand) pairs), a sum elsewhere.
Terminal values gather the deals: ``(T, D)`` per player, the deals listed explicitly. Every
number is in chips per game (chance-weighted), as OpenSpiel's values are.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.games.multiway import MultiGame
from solver.tree.kinds import DECISION

__all__ = [
    "NashReport",
    "best_response_profile",
    "best_response_values",
    "check_profile",
    "expected_values",
    "nash_report",
    "on_policy_values",
    "reach",
    "uniform_profile",
]

# a profile's columns must sum to 1 within this (the sums of a few float64 probabilities)
PROFILE_TOL = 1e-9


class NashReport(NamedTuple):
    """One profile's measures, each ``(P,)`` in chips per game but ``nash_conv``."""

    value: npt.NDArray[np.float64]  # each player's expected value under the profile
    best_response: npt.NDArray[np.float64]  # each player's best-response value, others fixed
    nash_distance: npt.NDArray[np.float64]  # best_response - value (≥ 0)
    nash_conv: float  # sum of nash_distance


def uniform_profile(game: MultiGame) -> npt.NDArray[np.float64]:
    """Every legal action equally likely at every information set."""
    out = np.empty(game.profile_size)
    h = game.num_hands
    for n in game.decision_nodes():
        a = int(game.num_children[n])
        out[game.offset[n] : game.offset[n] + a * h] = 1.0 / a
    return out


def check_profile(game: MultiGame, sigma: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """``sigma`` as float64 after checking it is a profile of ``game`` (shape, finite, no
    negative entry, each information set's probabilities summing to 1); a ValueError naming
    the profile and the first bad node otherwise."""
    arr = np.asarray(sigma, dtype=np.float64)
    if arr.shape != (game.profile_size,):
        raise ValueError(
            f"profile: expected {game.profile_size} probabilities for {game.name}, "
            f"got shape {arr.shape}"
        )
    if not np.all(np.isfinite(arr)) or np.any(arr < 0.0):
        raise ValueError("profile: probabilities must be finite and not negative")
    h = game.num_hands
    for n in game.decision_nodes():
        a = int(game.num_children[n])
        block = arr[game.offset[n] : game.offset[n] + a * h].reshape(a, h)
        if np.any(np.abs(block.sum(axis=0) - 1.0) > PROFILE_TOL):
            raise ValueError(
                f"profile: the probabilities at node {int(n)} "
                f"({' '.join(game.history(int(n))) or 'root'}) do not sum to 1"
            )
    return arr


def _edge_strategy(game: MultiGame, sigma: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """(N, H): the probability of the action leading to each node, per hand of the actor
    above it; 1 under a chance node and at the root."""
    h = game.num_hands
    n = game.num_nodes
    out = np.ones((n, h))
    child = np.arange(1, n)
    par = game.parent[child]
    dec = game.kind[par] == DECISION
    c, p = child[dec], par[dec]
    start = game.offset[p] + (c - game.first_child[p]) * h
    out[c] = sigma[start[:, None] + np.arange(h)]
    return out


def _levels(game: MultiGame) -> list[npt.NDArray[np.int64]]:
    """The nodes of each depth, shallow first (contiguous: breadth-first numbering)."""
    bounds = np.flatnonzero(np.diff(game.depth)) + 1
    return np.split(np.arange(game.num_nodes), bounds)


def reach(game: MultiGame, sigma: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(N, P, H): each player's own reach probability of each node with each hand (its
    actions only; chance and the others are not in it)."""
    s = check_profile(game, sigma)
    edge = _edge_strategy(game, s)
    pl = game.num_players
    factor = np.ones((game.num_nodes, pl, game.num_hands))
    actor = np.full(game.num_nodes, -1, dtype=np.int64)
    actor[1:] = game.player[game.parent[1:]]
    moved = np.flatnonzero(actor >= 0)
    factor[moved, actor[moved]] = edge[moved]
    out = np.ones_like(factor)
    for level in _levels(game)[1:]:
        out[level] = out[game.parent[level]] * factor[level]
    return out


def _path_chance(game: MultiGame) -> npt.NDArray[np.float64]:
    """(N,): the product of the public cards' chances on the path to each node."""
    out = np.ones(game.num_nodes)
    for level in _levels(game)[1:]:
        out[level] = out[game.parent[level]] * game.chance_weight[level]
    return out


def _terminal_weights(
    game: MultiGame, r: npt.NDArray[np.float64], skip: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """The terminals and, per terminal and deal, chance times the reach of every player but
    ``skip`` (-1: every player) — ``(T,)`` and ``(T, D)``."""
    term = np.flatnonzero(game.terminal_row >= 0)
    w = (_path_chance(game)[term])[:, None] * game.deal_weight[None, :]
    w = w * game.deal_valid[game.board[term]]
    for q in range(game.num_players):
        if q != skip:
            w = w * r[term, q][:, game.deals[:, q]]
    return term, w


def expected_values(game: MultiGame, sigma: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(P,): each player's expected chips per game under the profile."""
    r = reach(game, sigma)
    term, w = _terminal_weights(game, r, -1)
    pay = game.payoff[game.terminal_row[term]]  # (T, P, D)
    return np.einsum("td,tpd->p", w, pay)


def _values_up(
    game: MultiGame,
    player: int,
    leaf: npt.NDArray[np.float64],
    edge: npt.NDArray[np.float64] | None,
) -> npt.NDArray[np.float64]:
    """(N, H): ``player``'s counterfactual values from the terminals' ``leaf`` values up:
    its own nodes take the best action per hand (``edge`` None) or follow ``edge``'s
    probabilities; other nodes sum their children."""
    v = np.zeros((game.num_nodes, game.num_hands))
    term = np.flatnonzero(game.terminal_row >= 0)
    v[term] = leaf
    levels = _levels(game)
    for depth in range(len(levels) - 2, -1, -1):
        level = levels[depth]
        inner = level[game.first_child[level] >= 0]
        if inner.size == 0:
            continue
        below = levels[depth + 1]
        lo = int(below[0])
        kids = v[lo : int(below[-1]) + 1]
        starts = game.first_child[inner] - lo
        own = game.player[inner] == player
        if edge is not None:
            kids = np.where(
                (game.player[game.parent[below]] == player)[:, None], kids * edge[below], kids
            )
        total = np.add.reduceat(kids, starts, axis=0)
        if edge is None and np.any(own):
            best = np.maximum.reduceat(kids, starts, axis=0)
            total = np.where(own[:, None], best, total)
        v[inner] = total
    return v


def _leaf_values(
    game: MultiGame, r: npt.NDArray[np.float64], player: int
) -> npt.NDArray[np.float64]:
    """(T, H): ``player``'s value at each terminal per own hand, weighted by chance and the
    others' reaches (its own reach left out)."""
    term, w = _terminal_weights(game, r, player)
    u = w * game.payoff[game.terminal_row[term], player]
    onehot = np.zeros((game.deals.shape[0], game.num_hands))
    onehot[np.arange(game.deals.shape[0]), game.deals[:, player]] = 1.0
    return u @ onehot


def best_response_values(game: MultiGame, sigma: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(P,): each player's value when it best-responds to the others' strategies in the
    profile (the others' own strategies unchanged)."""
    r = reach(game, sigma)
    out = np.empty(game.num_players)
    for p in range(game.num_players):
        out[p] = _values_up(game, p, _leaf_values(game, r, p), None)[0].sum()
    return out


def best_response_profile(
    game: MultiGame, sigma: npt.ArrayLike, player: int
) -> npt.NDArray[np.float64]:
    """``sigma`` with ``player``'s blocks replaced by a pure best response to the others
    (the first best action where several tie): playing it, the player gets its
    best-response value."""
    if player not in range(game.num_players):
        raise ValueError(f"player: expected 0 to {game.num_players - 1}, got {player!r}")
    s = check_profile(game, sigma)
    v = _values_up(game, player, _leaf_values(game, reach(game, s), player), None)
    out = s.copy()
    h = game.num_hands
    for n in np.flatnonzero((game.kind == DECISION) & (game.player == player)):
        first, a = int(game.first_child[n]), int(game.num_children[n])
        best = np.argmax(v[first : first + a], axis=0)
        block = np.zeros((a, h))
        block[best, np.arange(h)] = 1.0
        out[game.offset[n] : game.offset[n] + a * h] = block.ravel()
    return out


def on_policy_values(game: MultiGame, sigma: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(P,): :func:`expected_values` by the bottom-up walk (each player's own probabilities
    applied on the way up) — the same numbers by another route, a check on both."""
    s = check_profile(game, sigma)
    r = reach(game, s)
    edge = _edge_strategy(game, s)
    out = np.empty(game.num_players)
    for p in range(game.num_players):
        out[p] = _values_up(game, p, _leaf_values(game, r, p), edge)[0].sum()
    return out


def nash_report(game: MultiGame, sigma: npt.ArrayLike) -> NashReport:
    """Each player's value, best-response value and Nash distance, and NashConv."""
    value = expected_values(game, sigma)
    br = best_response_values(game, sigma)
    dist = br - value
    return NashReport(value, br, dist, float(dist.sum()))
