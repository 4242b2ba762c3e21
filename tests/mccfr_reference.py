"""Slow, obvious Python reference of the sampled CFR walks of :mod:`solver.cfr.sampling`.

Plain recursion over the game's public tree, Python floats and ints, no Numba. It draws from
the same splitmix64 stream in the same order as the kernel, so both must produce the same
regrets, strategy sums and nodes touched draw for draw. Written from the algorithms'
definitions (Lanctot et al. 2009; OpenSpiel's ``outcome_sampling_mccfr``; Brown & Sandholm 2019
for the discount), not from the kernel:

* deal: h0 from its marginal w0(h0)·Σ_{h1 compatible} w1(h1) by bisection of the cumulative
  sums, then h1 from w1 by rejection (64 tries, then one exact draw among compatible hands);
* a choice among weights w: u·Σw against the running sum of the positive weights;
* external sampling: traverser enumerates, R += v(a) − v(I); opponent samples from σ and
  adds σ to its sums;
* outcome sampling: traverser samples from ε/A + (1 − ε)σ; R += (c(a) − v̂)·π_o/s and
  S += π_i·σ/s at the traverser's nodes;
* dmccfr: after an iteration completing period t of ``period`` nodes, all × t/(t+1).
"""

from __future__ import annotations

import bisect

import numpy as np
import numpy.typing as npt

from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN, Game

MASK = (1 << 64) - 1
NOISE = 1e-13  # the vector engine's rounding-noise snap of an instantaneous regret


class SplitMix64:
    """splitmix64 (Steele, Lea, Flood 2014) on a Python int."""

    def __init__(self, state: int) -> None:
        self.state = state & MASK

    def next_u64(self) -> int:
        self.state = (self.state + 0x9E3779B97F4A7C15) & MASK
        z = self.state
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK
        return z ^ (z >> 31)

    def uniform(self) -> float:
        return (self.next_u64() >> 11) * (1.0 / 9007199254740992.0)


def choose(rng: SplitMix64, weights: list[float]) -> int:
    """Index drawn with probability ∝ weights (non-negative, some positive)."""
    total = 0.0
    for w in weights:
        total += w
    x = rng.uniform() * total
    acc = 0.0
    last = -1
    for i, w in enumerate(weights):
        if w > 0.0:
            acc += w
            last = i
            if x < acc:
                return i
    return last


def regret_matching(regrets: list[float]) -> list[float]:
    tot = 0.0
    for r in regrets:
        if r > 0.0:
            tot += r
    n = len(regrets)
    if tot <= 0.0:
        return [1.0 / n] * n
    return [r / tot if r > 0.0 else 0.0 for r in regrets]


class ReferenceSampler:
    """``name`` ("mccfr-es", "mccfr-os" or "dmccfr") on ``game`` from ``seed``; float64
    regrets ``R`` and sums ``S`` in the engine's [action, hand] layout."""

    def __init__(
        self,
        game: Game,
        name: str,
        seed: int = 0,
        epsilon: float = 0.6,
        period: float = 0.0,
    ) -> None:
        self.game = game
        self.name = name
        self.rng = SplitMix64(seed)
        self.eps = epsilon
        self.period = (period or float(game.num_nodes)) if name == "dmccfr" else 0.0
        self.R = np.zeros(game.action_size)
        self.S = np.zeros(game.action_size)
        self.touched = 0
        self.period_nodes = 0.0
        self.period_index = 1.0
        t = game.tree
        self.kind = [int(k) for k in t.kind]
        self.cards = [
            [[int(c) for c in game.hands.cards[p, h] if c >= 0] for h in range(game.num_hands[p])]
            for p in range(2)
        ]
        b0 = int(t.board[0])
        n0, n1 = game.num_hands
        w0 = [float(game.hands.weights[0, h] * game.boards.valid[b0, 0, h]) for h in range(n0)]
        self.w1 = [float(game.hands.weights[1, h] * game.boards.valid[b0, 1, h]) for h in range(n1)]
        self.m0 = []
        for h in range(n0):
            s = 0.0
            for j in range(n1):
                if self.compatible(h, j):
                    s += self.w1[j]
            self.m0.append(w0[h] * s)
        self.cdf0 = list(np.cumsum(self.m0))
        self.cdf1 = list(np.cumsum(self.w1))

    # ----- sampling ------------------------------------------------------------------------
    def compatible(self, h0: int, h1: int) -> bool:
        return not set(self.cards[0][h0]) & set(self.cards[1][h1])

    def _bisect(self, cdf: list[float], x: float) -> int:
        i = min(bisect.bisect_right(cdf, x), len(cdf) - 1)
        while i > 0 and cdf[i] == cdf[i - 1]:
            i -= 1
        return i

    def deal(self) -> tuple[int, int]:
        h0 = self._bisect(self.cdf0, self.rng.uniform() * self.cdf0[-1])
        for _ in range(64):
            h1 = self._bisect(self.cdf1, self.rng.uniform() * self.cdf1[-1])
            if self.w1[h1] > 0.0 and self.compatible(h0, h1):
                return h0, h1
        return h0, choose(
            self.rng, [w if self.compatible(h0, j) else 0.0 for j, w in enumerate(self.w1)]
        )

    # ----- the walk ------------------------------------------------------------------------
    def walk(
        self, node: int, h: tuple[int, int], trav: int, mine: float, opp: float, samp: float
    ) -> float:
        g = self.game
        t = g.tree
        self.touched += 1
        kind = self.kind[node]
        rake = float(t.rake[node])  # the winner pays it; a tie costs each half
        if kind == FIXED:
            u = float(t.payoff[node]) if trav == 0 else -float(t.payoff[node])
            return u - rake if u > 0 else u
        if kind == SHOWDOWN:
            b = int(t.board[node])
            mine_rank = g.boards.rank[b, trav, h[trav]]
            their_rank = g.boards.rank[b, 1 - trav, h[1 - trav]]
            pot = float(t.payoff[node])
            if mine_rank > their_rank:
                return pot - rake
            return -pot if mine_rank < their_rank else (-0.5 * rake if rake else 0.0)
        if kind == RUNOUT:
            eq = g.boards.runout_eq[int(t.runout[node]), trav, h[trav], h[1 - trav]]
            if rake:  # win A − r, lose −A, tie −r/2: linear in the sign
                return (float(t.payoff[node]) - 0.5 * rake) * float(eq) - 0.5 * rake
            return float(t.payoff[node]) * float(eq)
        children = list(g.children(node))
        if kind == CHANCE:
            # (child, hands in the child's frame, weight) for every card that can be dealt
            cards: list[tuple[int, tuple[int, int], float]] = []
            for c in children:
                boards = [(int(t.board[c]), -1)]
                start = int(t.iso_start[c])
                boards += [
                    (int(t.iso_board[e]), int(t.iso_perm[e]))
                    for e in range(start, start + int(t.iso_count[c]))
                ]
                for b, row in boards:
                    ok = all(g.boards.valid[b, p, h[p]] > 0 for p in range(2))
                    hands = h if row < 0 else (
                        int(g.hands.perm[row, 0, h[0]]), int(g.hands.perm[row, 1, h[1]])
                    )  # fmt: skip
                    cards.append((c, hands, float(t.chance_weight[c]) if ok else 0.0))
            i = choose(self.rng, [w for _, _, w in cards])
            child, hands, _ = cards[i]
            return self.walk(child, hands, trav, mine, opp, samp)
        assert kind == DECISION
        p = int(t.player[node])
        off, na, nh = g.block(node)
        idx = [off + a * nh + h[p] for a in range(na)]
        sigma = regret_matching([float(self.R[i]) for i in idx])
        if self.name != "mccfr-os":
            if p == trav:
                values = [self.walk(c, h, trav, mine, opp, samp) for c in children]
                v = 0.0
                for s, x in zip(sigma, values, strict=True):
                    v += s * x
                for i, x in zip(idx, values, strict=True):
                    r = x - v
                    if abs(r) <= NOISE * (abs(x) + abs(v)):
                        r = 0.0
                    self.R[i] += r
                return v
            for i, s in zip(idx, sigma, strict=True):
                self.S[i] += s
            a = choose(self.rng, sigma)
            return self.walk(children[a], h, trav, mine, opp, samp)
        if p != trav:
            a = choose(self.rng, sigma)
            return self.walk(children[a], h, trav, mine, opp * sigma[a], samp * sigma[a])
        q = [self.eps / na + (1.0 - self.eps) * s for s in sigma]
        a = choose(self.rng, q)
        u = self.walk(children[a], h, trav, mine * sigma[a], opp, samp * q[a])
        ca = u / q[a]
        v = sigma[a] * ca
        w = opp / samp
        for b in range(na):
            cb = ca if b == a else 0.0
            self.R[idx[b]] += (cb - v) * w
            self.S[idx[b]] += mine * sigma[b] / samp
        return v

    def iterate(self, n: int = 1) -> None:
        for _ in range(n):
            start = self.touched
            for trav in range(2):
                h0, h1 = self.deal()
                self.walk(0, (h0, h1), trav, 1.0, 1.0, 1.0)
            if self.period > 0:
                self.period_nodes += self.touched - start
                while self.period_nodes >= self.period:
                    t = self.period_index
                    self.R *= t / (t + 1.0)
                    self.S *= t / (t + 1.0)
                    self.period_nodes -= self.period
                    self.period_index = t + 1.0

    @property
    def arrays(self) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]:
        return self.R, self.S
