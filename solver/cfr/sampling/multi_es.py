"""External-sampling MCCFR (Lanctot, Waugh, Zinkevich, Bowling 2009) on games of three (or
more) players (issue 49; docs/multiway.md), over a :class:`~solver.games.multiway.MultiGame`.

A pass of traverser ``t`` draws one deal (by its chance), at every chance node one public
card (by its chance among those the deal leaves), and at every other player's node one action
(by that player's current strategy), and tries every action of ``t``: at ``t``'s
information set ``(node, hand)`` the sampled action values ``ṽ(a)`` — payoffs, with no
weights, whose expectation is the counterfactual value — give the regret update
``R(a) += ṽ(a) − Σ_b σ(b)·ṽ(b)``, CFR's. The current strategy is regret matching of ``R``.
Average strategy ("simple" averaging, as OpenSpiel's ``external_sampling_mccfr`` does with
more than two players): in ``t``'s pass, player ``t + 1 (mod P)`` adds its current strategy
to its sums at each of its nodes the pass samples. An iteration is one pass per player.

Regrets and sums are flat vectors in the MultiGame's ``[action, hand]`` layout, so the
average is a profile :mod:`solver.games.nashconv` measures. The walk keeps an explicit stack
(one row per depth): Numba's cache does not keep recursive kernels. Random numbers come from
Numba's generator, seeded by :func:`seed` (the same seed, the same solve).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.games.multiway import MultiGame
from solver.games.nashconv import NashReport, nash_report
from solver.jit import kernel
from solver.tree.kinds import CHANCE, DECISION

Array = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

__all__ = ["ESGame", "ESWork", "MultiESEngine", "es_game", "es_iterations", "es_work", "seed"]


class ESGame(NamedTuple):
    """A MultiGame's arrays as the sampled walk reads them (``N`` nodes, ``D`` deals)."""

    kind: npt.NDArray[np.int8]  # (N,)
    player: npt.NDArray[np.int8]  # (N,)
    first_child: I64  # (N,)
    num_children: I64  # (N,)
    offset: I64  # (N,)
    board: I64  # (N,)
    chance_weight: Array  # (N,)
    terminal_row: I64  # (N,)
    payoff: Array  # (T, P, D)
    deals: I64  # (D, P)
    deal_cum: Array  # (D,): cumulative chance of the deals
    deal_valid: npt.NDArray[np.uint8]  # (B, D)
    hands: int  # H


class ESWork(NamedTuple):
    """The walk's stack, one row per depth."""

    node: I64  # (depth,)
    next_child: I64  # (depth,): -1 on entry
    sigma: Array  # (depth, max actions): the actor's current strategy there
    action_value: Array  # (depth, max actions): the traverser's sampled action values


def es_game(mg: MultiGame) -> ESGame:
    """``mg``'s arrays for :func:`es_iterations`."""
    return ESGame(
        mg.kind.astype(np.int8),
        mg.player.astype(np.int8),
        mg.first_child.astype(np.int64),
        mg.num_children.astype(np.int64),
        mg.offset.astype(np.int64),
        mg.board.astype(np.int64),
        mg.chance_weight.astype(np.float64),
        mg.terminal_row.astype(np.int64),
        np.ascontiguousarray(mg.payoff, dtype=np.float64),
        np.ascontiguousarray(mg.deals, dtype=np.int64),
        np.cumsum(mg.deal_weight).astype(np.float64),
        mg.deal_valid.astype(np.uint8),
        int(mg.num_hands),
    )


def es_work(mg: MultiGame) -> ESWork:
    depth = int(mg.depth.max()) + 2
    a = int(mg.num_children.max())
    return ESWork(
        np.zeros(depth, dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
        np.zeros((depth, a)),
        np.zeros((depth, a)),
    )


@kernel
def seed(value: int) -> None:
    """Seed Numba's generator (what :func:`es_iterations` draws from)."""
    np.random.seed(value)


@kernel
def _draw(p: Array, n: int) -> int:
    """An index below ``n`` drawn with probabilities ``p[:n]`` (summing to 1)."""
    u = np.random.random()
    acc = 0.0
    for i in range(n - 1):
        acc += p[i]
        if u < acc:
            return i
    return n - 1


@kernel
def es_iterations(
    g: ESGame, R: Array, S: Array, wk: ESWork, iterations: int, players: int, only: int
) -> int:
    """Run ``iterations`` iterations (a pass per player; ``only`` ≥ 0: that traverser's
    pass alone) updating the regrets ``R`` and sums ``S`` (profile-sized); returns the nodes
    visited (module docstring)."""
    h = g.hands
    touched = 0
    nd = g.deals.shape[0]
    for _ in range(iterations):
        for t in range(players):
            if only >= 0 and t != only:
                continue
            owner = (t + 1) % players
            u = np.random.random() * g.deal_cum[nd - 1]
            e = 0
            while e < nd - 1 and g.deal_cum[e] <= u:
                e += 1
            d = 0
            wk.node[0] = 0
            wk.next_child[0] = -1
            val = 0.0
            while True:
                n = wk.node[d]
                up = False
                row = g.terminal_row[n]
                touched += 1
                if row >= 0:
                    val = g.payoff[row, t, e]
                    up = True
                elif g.kind[n] == CHANCE:
                    fc, na = g.first_child[n], g.num_children[n]
                    total = 0.0
                    for k in range(na):
                        c = fc + k
                        w = g.chance_weight[c] * g.deal_valid[g.board[c], e]
                        wk.sigma[d, k] = w
                        total += w
                    for k in range(na):
                        wk.sigma[d, k] /= total
                    k = _draw(wk.sigma[d], na)
                    wk.next_child[d] = na  # done when the child returns
                    d += 1
                    wk.node[d] = fc + k
                    wk.next_child[d] = -1
                else:  # a decision node: the actor's current strategy, RM of its regrets
                    p = g.player[n]
                    hand = g.deals[e, p]
                    fc, na, off = g.first_child[n], g.num_children[n], g.offset[n]
                    total = 0.0
                    for a in range(na):
                        r = R[off + a * h + hand]
                        x = r if r > 0.0 else 0.0
                        wk.sigma[d, a] = x
                        total += x
                    for a in range(na):
                        wk.sigma[d, a] = wk.sigma[d, a] / total if total > 0.0 else 1.0 / na
                    if p != t:
                        if p == owner:
                            for a in range(na):
                                S[off + a * h + hand] += wk.sigma[d, a]
                        k = _draw(wk.sigma[d], na)
                        wk.next_child[d] = na
                    else:
                        k = 0
                        wk.next_child[d] = 0
                    d += 1
                    wk.node[d] = fc + k
                    wk.next_child[d] = -1
                if not up:
                    continue
                # hand ``val`` up until a traverser's node has another action to try
                pushed = False
                while d > 0 and not pushed:
                    d -= 1
                    n = wk.node[d]
                    if g.kind[n] != DECISION or g.player[n] != t:
                        continue  # a sampled child: its value is the node's
                    k = wk.next_child[d]
                    wk.action_value[d, k] = val
                    na = g.num_children[n]
                    if k + 1 < na:
                        wk.next_child[d] = k + 1
                        d += 1
                        wk.node[d] = g.first_child[n] + k + 1
                        wk.next_child[d] = -1
                        pushed = True
                        continue
                    off, hand = g.offset[n], g.deals[e, t]
                    v = 0.0
                    for a in range(na):
                        v += wk.sigma[d, a] * wk.action_value[d, a]
                    for a in range(na):
                        R[off + a * h + hand] += wk.action_value[d, a] - v
                    val = v
                if not pushed:  # back at the root: the pass is done
                    break
    return touched


class MultiESEngine:
    """External-sampling MCCFR on ``mgame`` (module docstring): regrets and sums in the
    MultiGame's layout, one thread, seeded by ``seed`` (Numba's generator is the process's:
    the same seed repeats a solve run alone)."""

    name = "mccfr-es"

    def __init__(self, mgame: MultiGame, seed_value: int = 0) -> None:
        if mgame.num_players < 3:
            raise ValueError(
                f"players: the multi-player engine takes 3 or more, got {mgame.num_players}"
            )
        self.mgame = mgame
        self.players = int(mgame.num_players)
        self._game = es_game(mgame)
        self._work = es_work(mgame)
        self.regrets = np.zeros(mgame.profile_size)
        self.cumulative = np.zeros(mgame.profile_size)
        self.iteration = 0
        self.nodes_touched = 0
        seed(int(seed_value))

    def iterate(self, n: int = 1) -> int:
        """Run ``n`` iterations (a sampled pass per player each); returns the nodes visited."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"iterations must be a whole number ≥ 0, got {n!r}")
        touched = int(es_iterations(self._game, self.regrets, self.cumulative, self._work,
                                    int(n), self.players, -1))  # fmt: skip
        self.iteration += int(n)
        self.nodes_touched += touched
        return touched

    def _normalised(self, x: Array) -> Array:
        g, h = self.mgame, self.mgame.num_hands
        out = np.empty(g.profile_size)
        for n in g.decision_nodes():
            a, off = int(g.num_children[n]), int(g.offset[n])
            block = np.maximum(x[off : off + a * h].reshape(a, h), 0.0)
            tot = block.sum(axis=0)
            safe = np.where(tot > 0, tot, 1.0)
            out[off : off + a * h] = np.where(tot > 0, block / safe, 1.0 / a).ravel()
        return out

    def average_profile(self) -> Array:
        """The average strategy: the sums normalised, uniform where a set's are all 0."""
        return self._normalised(self.cumulative)

    def current_profile(self) -> Array:
        """Regret matching of the regrets: what the next iteration samples from."""
        return self._normalised(self.regrets)

    def measure(self) -> NashReport:
        """The average profile's values, best responses and Nash distances, by
        :func:`solver.games.nashconv.nash_report`."""
        return nash_report(self.mgame, self.average_profile())
