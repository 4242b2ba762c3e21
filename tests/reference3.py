"""Slow, obvious reference CFR for games of three (or more) players, in float64.

Independent of the engine: it reads only a :class:`~solver.games.multiway.MultiGame`'s
public tree, deals and payoffs, recurses over every history (all deals at once, each
deal's values a row of an array; :meth:`Reference3.action_values_by_deal` one deal at a time
checks it), and applies the update rules literally, one information set (decision node,
hand of its actor) at a time.

An iteration is one pass per player in turn (alternating updates). The pass of traverser
``t``:

1. adds the average-strategy sums of player ``o = t − 1 (mod P)``: at each of ``o``'s
   information sets ``S ← S·decay + weight·π_o·σ_o``, ``π_o`` the product of ``o``'s own
   action probabilities on the way there (the same for every deal), ``σ_o`` its current
   strategy;
2. computes, per deal and history, the counterfactual action values of ``t``'s information
   sets — chance (the deal's and the public card's) times the other players' own reach
   times ``t``'s payoff, summed over the deals consistent with the set — under everyone's
   current strategy;
3. updates ``t``'s regrets by the rule and its current strategy by regret matching.

Rules: ``cfr``, ``cfr+`` (RM+, linear averaging), ``lcfr``, ``dcfr`` (α 1.5, β 0, γ 2)
and ``pcfr+`` (predictive RM+: the next strategy RM(max(R + r, 0)) with the last
instantaneous regret r as the prediction, averaging weighted by t²), as tests/reference.py
writes them for two players, with its rounding convention (an instantaneous regret within
1e-13 of its values' size is 0).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from solver.games.multiway import MultiGame
from solver.tree.kinds import CHANCE, DECISION

FloatArray = NDArray[np.float64]
RULES = ("cfr", "cfr+", "lcfr", "dcfr", "pcfr+")
DCFR = {"alpha": 1.5, "beta": 0.0, "gamma": 2.0}


def regret_matching(r: FloatArray) -> FloatArray:
    pos = np.maximum(r, 0.0)
    total = pos.sum()
    return pos / total if total > 0.0 else np.full(r.shape, 1.0 / r.size)


class Reference3:
    """Per information set ``(node, hand)``: ``regrets``, ``current`` and ``cumulative``
    (each an (A,) array)."""

    def __init__(self, game: MultiGame, rule: str) -> None:
        if rule not in RULES:
            raise ValueError(f"rule {rule!r}: expected one of {RULES}")
        self.g = game
        self.rule = rule
        self.t = 0
        self.regrets: dict[tuple[int, int], FloatArray] = {}
        self.current: dict[tuple[int, int], FloatArray] = {}
        self.cumulative: dict[tuple[int, int], FloatArray] = {}
        for n in game.decision_nodes().tolist():
            a = int(game.num_children[n])
            for h in range(game.num_hands):
                self.regrets[n, h] = np.zeros(a)
                self.current[n, h] = np.full(a, 1.0 / a)
                self.cumulative[n, h] = np.zeros(a)

    # ----- the pieces of a pass ----------------------------------------------------------
    def own_reach(self, player: int) -> dict[tuple[int, int], float]:
        """``player``'s own reach of each of its information sets (its actions only)."""
        g = self.g
        out: dict[tuple[int, int], float] = {}

        def walk(node: int, reach: FloatArray) -> None:
            if g.kind[node] == DECISION and g.player[node] == player:
                for h in range(g.num_hands):
                    out[node, h] = float(reach[h])
            for k, c in enumerate(g.children(node)):
                if g.kind[node] == DECISION and g.player[node] == player:
                    strat = np.array([self.current[node, h][k] for h in range(g.num_hands)])
                    walk(c, reach * strat)
                else:
                    walk(c, reach)

        walk(0, np.ones(g.num_hands))
        return out

    def action_values(self, trav: int) -> dict[tuple[int, int], FloatArray]:
        """``trav``'s counterfactual action values at each of its information sets.

        One walk of the tree for all deals at once: every quantity of the per-deal walk
        (:meth:`action_values_by_deal`) becomes a (D,) row over deals, a deal that holds a
        public card carrying chance 0 below it; each set's values add its deals in deal order,
        as the per-deal walk does."""
        g = self.g
        num_deals = g.deals.shape[0]
        # (A, H) per node: the values of action k for hand h
        table = {
            n: np.zeros((int(g.num_children[n]), g.num_hands))
            for n in g.decision_nodes().tolist()
            if g.player[n] == trav
        }

        def walk(node: int, reach: FloatArray, chance: FloatArray) -> FloatArray:
            """(D,) ``trav``'s payoff expected below ``node`` per deal (chance below included);
            ``reach`` (P, D) each player's own reach, ``chance`` (D,) the path's."""
            row = g.terminal_row[node]
            if row >= 0:
                return np.asarray(g.payoff[row, trav], dtype=np.float64)
            kids = list(g.children(node))
            if g.kind[node] == CHANCE:
                total = np.zeros(num_deals)
                for c in kids:
                    valid = g.deal_valid[g.board[c]]
                    w = float(g.chance_weight[c])
                    below = walk(c, reach, np.where(valid, chance * w, 0.0))
                    total += np.where(valid, w * below, 0.0)
                return total
            p = int(g.player[node])
            hands = g.deals[:, p]
            strat = np.array([self.current[node, h] for h in range(g.num_hands)]).T[:, hands]
            vals = np.empty((len(kids), num_deals))
            for k, c in enumerate(kids):
                r = reach.copy()
                r[p] *= strat[k]
                vals[k] = walk(c, r, chance)
            if p == trav:
                others = chance * np.prod(np.delete(reach, trav, axis=0), axis=0)
                for k in range(len(kids)):
                    np.add.at(table[node][k], hands, others * vals[k])
            return np.einsum("ad,ad->d", strat, vals)

        walk(0, np.ones((g.num_players, num_deals)), np.asarray(g.deal_weight, np.float64))
        return {(n, h): t[:, h].copy() for n, t in table.items() for h in range(g.num_hands)}

    def action_values_by_deal(self, trav: int) -> dict[tuple[int, int], FloatArray]:
        """:meth:`action_values` one deal at a time (a walk of the whole tree per deal, far
        slower); the check of the deal-parallel walk (tests/test_reference3.py)."""
        g = self.g
        cfv = {
            (n, h): np.zeros(int(g.num_children[n]))
            for n in g.decision_nodes().tolist()
            if g.player[n] == trav
            for h in range(g.num_hands)
        }

        def walk(node: int, d: int, reach: FloatArray, chance: float) -> float:
            """``trav``'s payoff expected below ``node`` under deal ``d`` (chance below
            included); ``reach`` each player's own reach, ``chance`` the path's."""
            row = g.terminal_row[node]
            if row >= 0:
                return float(g.payoff[row, trav, d])
            kids = list(g.children(node))
            if g.kind[node] == CHANCE:
                total = 0.0
                for c in kids:
                    if g.deal_valid[g.board[c], d]:
                        w = float(g.chance_weight[c])
                        total += w * walk(c, d, reach, chance * w)
                return total
            p = int(g.player[node])
            hand = int(g.deals[d, p])
            strat = self.current[node, hand]
            vals = np.empty(len(kids))
            for k, c in enumerate(kids):
                r = reach.copy()
                r[p] *= strat[k]
                vals[k] = walk(c, d, r, chance)
            if p == trav:
                others = chance * float(np.prod(np.delete(reach, trav)))
                cfv[node, hand] += others * vals
            return float(strat @ vals)

        for d in range(g.deals.shape[0]):
            walk(0, d, np.ones(g.num_players), float(g.deal_weight[d]))
        return cfv

    # ----- the rule ------------------------------------------------------------------------
    def _update(self, key: tuple[int, int], r: FloatArray) -> None:
        t, R = self.t, self.regrets[key]
        if self.rule == "cfr":
            R = R + r
        elif self.rule in ("cfr+", "pcfr+"):
            R = np.maximum(R + r, 0.0)
        elif self.rule == "lcfr":
            R = R + t * r
        else:  # dcfr
            R = R + r
            pos = t ** DCFR["alpha"] / (t ** DCFR["alpha"] + 1.0)
            neg = t ** DCFR["beta"] / (t ** DCFR["beta"] + 1.0)
            R = np.where(R > 0.0, R * pos, np.where(R < 0.0, R * neg, R))
        self.regrets[key] = R
        if self.rule == "pcfr+":
            self.current[key] = regret_matching(np.maximum(R + r, 0.0))
        else:
            self.current[key] = regret_matching(R)

    def _decay_weight(self) -> tuple[float, float]:
        t = self.t
        if self.rule == "cfr+":
            return 1.0, float(t)
        if self.rule == "lcfr":
            return 1.0, float(t)
        if self.rule == "pcfr+":
            return 1.0, float(t) ** 2
        if self.rule == "dcfr":
            return ((t - 1) / t) ** DCFR["gamma"], 1.0
        return 1.0, 1.0

    def _pass(self, trav: int) -> None:
        g = self.g
        owner = (trav - 1) % g.num_players
        decay, weight = self._decay_weight()
        for key, reach in self.own_reach(owner).items():
            self.cumulative[key] = self.cumulative[key] * decay + weight * reach * self.current[key]
        for key, av in self.action_values(trav).items():
            node_value = float(self.current[key] @ av)
            r = av - node_value
            r[np.abs(r) <= 1e-13 * (np.abs(av) + abs(node_value))] = 0.0
            self._update(key, r)

    def iterate(self) -> None:
        self.t += 1
        for trav in range(self.g.num_players):
            self._pass(trav)

    # ----- as flat profiles (the MultiGame's layout) ---------------------------------------
    def flat(self, table: dict[tuple[int, int], FloatArray]) -> FloatArray:
        g = self.g
        out = np.empty(g.profile_size)
        h = g.num_hands
        for n in g.decision_nodes().tolist():  # node n's block: [action, hand]
            block = np.stack([table[n, hand] for hand in range(h)], axis=1)
            out[g.offset[n] : g.offset[n] + block.size] = block.ravel()
        return out

    def average(self) -> FloatArray:
        """The average strategy: the sums normalised, uniform where they are all 0."""
        return self.flat({k: regret_matching(s) for k, s in self.cumulative.items()})
