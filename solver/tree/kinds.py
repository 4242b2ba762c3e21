"""The kinds of node a tree holds, on the tree floor: the card-free betting tree
(:mod:`solver.tree.betting`) marks its nodes with them and :mod:`solver.games.model`'s
public tree stores them (``Tree.kind``, int8), so both floors share one numbering."""

from __future__ import annotations

DECISION = 0
CHANCE = 1
FIXED = 2  # terminal with a fixed payoff (a fold)
SHOWDOWN = 3
RUNOUT = 4  # terminal: all-in before the river, the remaining cards dealt with no betting

KIND_NAMES = {
    DECISION: "decision",
    CHANCE: "chance",
    FIXED: "fold",
    SHOWDOWN: "showdown",
    RUNOUT: "all-in runout",
}
