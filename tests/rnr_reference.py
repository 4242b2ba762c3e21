"""The restricted Nash response game (Johanson, Zinkevich, Bowling, NIPS 2007) built
explicitly on the dict-based reference (tests/reference.py), independent of ``solver/``.

The game: a chance node at the root picks the *restricted* branch with probability ``p``
and the *free* branch otherwise; the learner (the exploiter's opponent) sees which, the
exploiter does not. In the restricted branch the learner's infosets play ``fixed``; in the
free branch they are ordinary infosets of the learner. The exploiter's infosets are shared by
both branches (same key). Each tree is the reference's public tree walked once per branch,
with the branch's chance probability folded into the terminal payoffs as the reference folds
the deal's chance. CFR runs on it literally: the exploiter's counterfactual values sum both
branches, the learner's come from the free branch only (its restricted copy has no choice),
and each player's strategy sums take its own reach (the learner's: in the free branch).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
import reference
from reference import FloatArray, Key, Node, ReferenceSolver, game_tree


def rnr_values_and_reach(
    game: str,
    strategy: Mapping[Key, Any],
    fixed: Mapping[Key, FloatArray],
    p: float,
    exploiter: int,
    player: int,
) -> tuple[dict[Key, FloatArray], dict[Key, float]]:
    """One pass of ``player`` over the explicit game: (values[key][a] = v(I, a) summed over
    the branches, opp_reach[key] = the opponent's own reach of its infosets)."""
    n = reference._spec(game).num_cards
    values: dict[Key, FloatArray] = {}
    opp_reach_out: dict[Key, float] = {}
    learner = 1 - exploiter

    def walk(node: Node, opp_reach: FloatArray, w: float, restricted: bool) -> FloatArray:
        if node.kind == "terminal":
            matrix = node.payoff0 if player == 0 else node.payoff1
            assert matrix is not None
            return w * (matrix @ opp_reach)
        if node.kind == "chance":
            total = np.zeros(n)
            for card, child in zip(node.chance_cards, node.children, strict=True):
                r = opp_reach.copy()
                r[card] = 0.0
                total += walk(child, r, w, restricted)
            return total
        plays = fixed if (restricted and node.player == learner) else strategy
        if node.player == player:
            av = np.stack([walk(c, opp_reach, w, restricted) for c in node.children], axis=1)
            out = np.zeros(n)
            for card, key in node.card_keys:
                sigma = reference._strategy_row(plays, key, len(node.actions))
                if not (restricted and player == learner):  # the restricted copy: no infoset
                    values[key] = values.get(key, 0.0) + av[card]
                out[card] = float(sigma @ av[card])
            return out
        sigma_matrix = reference._strategy_matrix(node, plays, n)
        if not (restricted and node.player == learner):  # the learner's own reach: free branch
            for card, key in node.card_keys:
                opp_reach_out[key] = float(opp_reach[card])
        total = np.zeros(n)
        for a, child in enumerate(node.children):
            total += walk(child, opp_reach * sigma_matrix[:, a], w, restricted)
        return total

    root = game_tree(game)
    walk(root, np.ones(n), p, True)
    walk(root, np.ones(n), 1.0 - p, False)
    return values, opp_reach_out


class RNRReferenceSolver(ReferenceSolver):
    """:class:`reference.ReferenceSolver` on the explicit restricted Nash response game: the
    same rules and schedule, the passes over both branches."""

    def __init__(
        self, game: str, rule: str, p: float, exploiter: int, fixed: Mapping[Key, FloatArray],
        **params: float,
    ) -> None:  # fmt: skip
        super().__init__(game, rule, **params)
        self.p = p
        self.exploiter = exploiter
        self.fixed = dict(fixed)

    def _pass(self, player: int) -> None:
        t = self.t
        values, opp_reach = rnr_values_and_reach(
            self.game, self.current, self.fixed, self.p, self.exploiter, player
        )
        decay, weight = self._decay(t), self._weight(t)
        k = int(self.params.get("average_every", 1.0))
        opp = 1 - player
        self.pending_decay[opp] *= decay
        self.pending_weight[opp] = self.pending_weight[opp] * decay + weight
        if t % k == 0:
            decay, weight = self.pending_decay[opp], self.pending_weight[opp]
            self.pending_decay[opp], self.pending_weight[opp] = 1.0, 0.0
            for key, reach in opp_reach.items():
                S = self.cumulative[key]
                self.cumulative[key] = S * decay + weight * reach * self.current[key]
        self._regret_pass(values)
