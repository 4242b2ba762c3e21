"""A three-way hold'em river spot as the three-player results, jobs, files and the app read it
(issue 49; docs/multiway.md): :class:`River3Game` — the checked spot, its betting tree, its
estimate and the engine's arrays (:func:`~solver.cfr.holdem3_build.build_holdem3`) — with the
queries a three-player toy game (:class:`~solver.games.multiway.MultiGame`) answers: decision
nodes, each node's actor, line and actions, and each player's hands (combo text, ``AhKd``).

A profile of the spot is flat ``(profile_size,)``, the engine's ``[action, hand]`` blocks: at
player ``p``'s decision node ``n``, ``num_children[n]`` rows of ``p``'s ``num_hands(p)``
hands, from ``offset[n]``. Players are 0, 1, 2 in acting order (0 first, 2 last).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping
from dataclasses import dataclass, fields

import numpy as np
import numpy.typing as npt

from solver.cfr.holdem3_build import build_holdem3
from solver.cfr.multi_build import MultiBuilt
from solver.games.holdem3 import River3Estimate, River3Setup, River3Spec, checked
from solver.games.spec import SpecError
from solver.tree.betting3 import Betting3Tree

Array = npt.NDArray[np.float64]

__all__ = ["River3Game", "action_words", "line_words", "river3_game", "river3_spec"]

PLAYERS = 3
SPEC_FIELDS = tuple(f.name for f in fields(River3Spec))


@dataclass(frozen=True, eq=False)
class River3Game:
    """A checked three-way river spot with its engine arrays (module docstring)."""

    setup: River3Setup
    tree: Betting3Tree
    estimate: River3Estimate
    built: MultiBuilt

    @property
    def spec(self) -> River3Spec:
        return self.setup.spec

    @property
    def name(self) -> str:
        return self.setup.spec.name

    @property
    def num_players(self) -> int:
        return PLAYERS

    @property
    def pot(self) -> float:
        """The pot before anyone acts (chips): what % pot figures divide by."""
        return float(self.setup.config.pot)

    @property
    def board_text(self) -> str:
        """The board as typed, one space between cards (its cards: ``setup.board``)."""
        return " ".join(self.setup.spec.board.replace(",", " ").split())

    @property
    def player(self) -> npt.NDArray[np.int8]:
        """(N,) the actor of each decision node, else -1."""
        return self.tree.player

    @property
    def labels(self) -> list[str]:
        """The action leading to each node ("" at the root): ``k``, ``b:S``, ``f``, ``c``,
        ``r:S`` (``S``: the actor's chips bet this street after the action)."""
        return self.tree.labels

    @property
    def offset(self) -> npt.NDArray[np.int64]:
        """(N,) where each decision node's ``[action, hand]`` block starts in a profile."""
        return self.built.game.tree.offset

    @property
    def num_children(self) -> npt.NDArray[np.int64]:
        return self.tree.num_children

    @property
    def profile_size(self) -> int:
        return int(self.built.game.action_size)

    def decision_nodes(self) -> npt.NDArray[np.int64]:
        return self.tree.decision_nodes()

    def children(self, node: int) -> range:
        return self.tree.children(node)

    def history(self, node: int) -> tuple[str, ...]:
        return self.tree.history(node)

    def num_hands(self, player: int) -> int:
        return int(self.setup.hands[player])

    def hand_names(self, player: int) -> list[str]:
        """Player ``player``'s hands as combo text (``AhKd``), in its profile order."""
        return list(self.built.game.hand_names[player])

    def combos(self, player: int) -> npt.NDArray[np.int64]:
        """Player ``player``'s hands as combo indices (0..1325, into ``COMBOS``)."""
        return self.setup.combos[player]

    def block(self, sigma: Array, node: int) -> Array:
        """(actions, hands of the actor): ``sigma``'s block at decision ``node``."""
        off, na = int(self.offset[node]), int(self.num_children[node])
        nh = self.num_hands(int(self.player[node]))
        return sigma[off : off + na * nh].reshape(na, nh)

    def check_profile(self, sigma: object) -> Array:
        """``sigma`` as a float64 profile of the spot (ValueError naming ``profile``)."""
        arr = np.asarray(sigma, dtype=np.float64)
        if arr.shape != (self.profile_size,):
            raise ValueError(f"profile: expected {self.profile_size} probabilities, "
                             f"got shape {arr.shape}")  # fmt: skip
        if not np.all(np.isfinite(arr)) or np.any(arr < 0.0):
            raise ValueError("profile: probabilities must be finite and not negative")
        return arr

    def reach(self, sigma: Array, node: int) -> list[Array]:
        """Per player (player 0 first) its own reach of ``node`` per hand (``(n_p,)``): the
        product of its probabilities of the actions on the line, 1 where it did not act.
        Range weights and card removal are not in it."""
        out = [np.ones(self.num_hands(p)) for p in range(PLAYERS)]
        path = [node]
        while path[-1] > 0:
            path.append(int(self.tree.parent[path[-1]]))
        for child, parent in itertools.pairwise(path):
            p = int(self.player[parent])
            row = child - int(self.tree.first_child[parent])
            out[p] = out[p] * self.block(sigma, parent)[row]
        return out

    def reach_share(self, sigma: Array, node: int) -> list[float]:
        """Per player the share of its range (by weight) that plays the line to ``node``:
        Σ w(h) reach(h) / Σ w(h) over its hands (no card removal against the others)."""
        out = []
        for p, r in enumerate(self.reach(sigma, node)):
            w = self.setup.hand_weights[p]
            out.append(float(w @ r / w.sum()))
        return out


def river3_spec(spot: River3Spec | Mapping[str, object]) -> River3Spec:
    """``spot`` as a :class:`River3Spec`: a spec, or a dict of its fields (a field it does
    not have: :class:`SpecError` naming it; a missing one: naming it too)."""
    if isinstance(spot, River3Spec):
        return spot
    if not isinstance(spot, Mapping):
        raise TypeError(f"spot must be a River3Spec or a dict of its fields, got "
                        f"{type(spot).__name__}")  # fmt: skip
    for key in spot:
        if key not in SPEC_FIELDS:
            raise SpecError(str(key), f"not a field of a three-way river spot (its fields: "
                            f"{', '.join(SPEC_FIELDS)})")  # fmt: skip
    for need in ("board", "range0", "range1", "range2", "pot", "stack"):
        if need not in spot:
            raise SpecError(need, "required for a three-way river spot")
    return River3Spec(**spot)  # type: ignore[arg-type]


def river3_game(spot: River3Spec | River3Setup | Mapping[str, object]) -> River3Game:
    """The spot checked (every field, the tree's size, the memory cap: a
    :class:`~solver.games.spec.SpecError` naming the field, before anything big is made) and
    built for the engine."""
    setup, tree, est = checked(spot if isinstance(spot, River3Setup) else river3_spec(spot))
    return River3Game(setup, tree, est, build_holdem3(setup))


def _chips(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.2f}"


def action_words(game: River3Game, node: int) -> str:
    """The action leading to ``node`` (not the root) in words, by its actor: "checks",
    "bets 30 (50 %)", "raises to 120", "calls", "folds", "goes all-in 200"."""
    parent = int(game.tree.parent[node])
    label = game.labels[node]
    kind, _, amount = label.partition(":")
    if kind == "k":
        return "checks"
    if kind == "c":
        return "calls"
    if kind == "f":
        return "folds"
    to = float(amount)
    if to >= game.setup.config.stack:
        return f"goes all-in {_chips(to)}"
    if kind == "b":
        pot = float(game.tree.contrib[parent].sum())
        return f"bets {_chips(to)} ({100 * to / pot:.0f} %)"
    return f"raises to {_chips(to)}"


def line_words(game: River3Game, node: int) -> str:
    """The line from the root to ``node`` in words: "P1 checks, P2 bets 30 (50 %)"
    (players counted from 1, P1 first to act); "start" at the root."""
    path = []
    n = node
    while n > 0:
        path.append(n)
        n = int(game.tree.parent[n])
    words = [
        f"P{int(game.player[int(game.tree.parent[c])]) + 1} {action_words(game, c)}"
        for c in reversed(path)
    ]
    return ", ".join(words) or "start"
