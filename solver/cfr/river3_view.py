"""A three-way hold'em river or turn spot as the three-player results, jobs, files and the
app read it (issue 49; docs/multiway.md): :class:`River3Game` — the checked spot, its betting
tree, its estimate and the engine's arrays (:func:`~solver.cfr.holdem3_build.build_holdem3`,
or for a turn spot :func:`~solver.cfr.holdem3_turn_build.build_turn3`) — with the queries a
three-player toy game (:class:`~solver.games.multiway.MultiGame`) answers: decision nodes,
each node's actor, line and actions, and each player's hands (combo text, ``AhKd``).

A turn spot's tree has a chance node where the turn's betting closes, one child per river
card (label ``d:Qh``); below it a combo holding that card is not in its player's range
(:meth:`River3Game.valid`): it has no strategy there, and its reach is 0.

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
from solver.cfr.holdem3_turn_build import build_turn3
from solver.cfr.multi_build import MultiBuilt
from solver.games.holdem3 import River3Estimate, River3Setup, River3Spec, checked
from solver.games.holdem3_turn import (
    Turn3Estimate,
    Turn3Setup,
    Turn3Spec,
    checked_turn,
    turn_tree,
)
from solver.games.spec import SpecError
from solver.tree.betting3 import Betting3Tree
from solver.tree.betting3_turn import Turn3Tree
from solver.tree.kinds import CHANCE

Array = npt.NDArray[np.float64]

__all__ = [
    "River3Game",
    "Spot3Spec",
    "action_words",
    "line_words",
    "river3_game",
    "river3_spec",
]

PLAYERS = 3
SPEC_FIELDS = tuple(f.name for f in fields(River3Spec))
TURN_FIELDS = tuple(f.name for f in fields(Turn3Spec))
Spot3Spec = River3Spec | Turn3Spec
"""A three-way hold'em spot as a person describes it: a river (five cards) or a turn (four)."""


@dataclass(frozen=True, eq=False)
class River3Game:
    """A checked three-way river or turn spot with its engine arrays (module docstring).
    ``setup`` is the river spot's setup, or a turn spot's on its four cards (``turn.base``;
    ``turn`` None on a river spot)."""

    setup: River3Setup
    tree: Betting3Tree | Turn3Tree
    estimate: River3Estimate | Turn3Estimate
    built: MultiBuilt
    turn: Turn3Setup | None = None

    @property
    def spec(self) -> Spot3Spec:
        return self.turn.spec if self.turn is not None else self.setup.spec

    @property
    def is_turn(self) -> bool:
        return self.turn is not None

    @property
    def kind(self) -> str:
        """``"turn3"`` or ``"river3"``: the spot's name in files and the CLI's JSON."""
        return "turn3" if self.turn is not None else "river3"

    def river_card(self, node: int) -> str | None:
        """The river card dealt above ``node`` (``Qh``), None on the turn or a river spot."""
        if not isinstance(self.tree, Turn3Tree) or int(self.tree.board[node]) == 0:
            return None
        start = _street_start(self, node)  # the card's child: its label is "d:Qh"
        return self.labels[start].partition(":")[2]

    def river_cards(self) -> list[str]:
        """A turn spot's river cards (``Qh``) in board order: card ``k`` is board ``k + 1``
        (``board_of``); [] on a river spot."""
        if not isinstance(self.tree, Turn3Tree):
            return []
        chance = np.flatnonzero(self.tree.kind == CHANCE)
        if chance.size == 0:  # (every turn line ends in a fold)
            return []
        return [self.labels[c].partition(":")[2] for c in self.children(int(chance[0]))]

    @property
    def boards(self) -> npt.NDArray[np.int64]:
        """(N,) each node's board: 0 on the turn (and on a river spot), ``k + 1`` below river
        card ``k`` (:meth:`river_cards`)."""
        if isinstance(self.tree, Turn3Tree):
            return self.tree.board
        return np.zeros(self.tree.num_nodes, dtype=np.int64)

    def valid(self, node: int, player: int) -> npt.NDArray[np.bool_]:
        """(n_p,): which of ``player``'s hands can be held at ``node`` (False for a combo
        holding the river card dealt above it; all True on the turn or a river spot)."""
        n = self.num_hands(player)
        if not isinstance(self.tree, Turn3Tree):
            return np.ones(n, dtype=bool)
        b = int(self.tree.board[node])
        return np.asarray(self.built.arrays.boards.valid[b, player, :n] > 0.0)

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
            if int(self.tree.kind[parent]) == CHANCE:  # a combo holding the card is out
                out = [r * self.valid(child, p) for p, r in enumerate(out)]
                continue
            p = int(self.player[parent])
            row = child - int(self.tree.first_child[parent])
            out[p] = out[p] * self.block(sigma, parent)[row]
        return out

    def reach_share(self, sigma: Array, node: int) -> list[float]:
        """Per player the share of its range (by weight) that plays the line to ``node``:
        Σ w(h) reach(h) / Σ w(h) over its hands that can be there (below a river card, those
        not holding it; no card removal against the others)."""
        out = []
        for p, r in enumerate(self.reach(sigma, node)):
            w = self.setup.hand_weights[p] * self.valid(node, p)
            total = float(w.sum())  # (0: every combo of the range holds the river card)
            out.append(float(w @ r) / total if total > 0.0 else 0.0)
        return out


def _is_turn(spot: Mapping[str, object]) -> bool:
    """Whether a dict of fields describes a turn: a board of four cards, or (a board that is
    no river's five) a turn spot's own fields. The board is counted, not parsed: a bad card
    is left to the spec's checks, which name the field."""
    board = spot.get("board")
    count = len(board.replace(",", " ").split()) if isinstance(board, str) else 0
    if count == 4:
        return True
    return count != 5 and any(k in spot and k not in SPEC_FIELDS for k in TURN_FIELDS)


def river3_spec(spot: Spot3Spec | Mapping[str, object]) -> Spot3Spec:
    """``spot`` as a :class:`River3Spec` or, with a four-card board, a :class:`Turn3Spec`:
    a spec, or a dict of its fields (a field it does not have: :class:`SpecError` naming it;
    a missing one: naming it too)."""
    if isinstance(spot, (River3Spec, Turn3Spec)):
        return spot
    if not isinstance(spot, Mapping):
        raise TypeError(f"spot must be a River3Spec, a Turn3Spec or a dict of their fields, "
                        f"got {type(spot).__name__}")  # fmt: skip
    turn = _is_turn(spot)
    names, what = (TURN_FIELDS, "turn") if turn else (SPEC_FIELDS, "river")
    for key in spot:
        if key not in names:
            raise SpecError(str(key), f"not a field of a three-way {what} spot (its fields: "
                            f"{', '.join(names)})")  # fmt: skip
    for need in ("board", "range0", "range1", "range2", "pot", "stack"):
        if need not in spot:
            raise SpecError(need, f"required for a three-way {what} spot")
    if turn:
        return Turn3Spec(**spot)  # type: ignore[arg-type]
    return River3Spec(**spot)  # type: ignore[arg-type]


def river3_game(
    spot: Spot3Spec | River3Setup | Turn3Setup | Mapping[str, object],
) -> River3Game:
    """The spot (river or turn) checked (every field, the tree's size, the memory cap: a
    :class:`~solver.games.spec.SpecError` naming the field, before anything big is made) and
    built for the engine."""
    if not isinstance(spot, (River3Setup, Turn3Setup)):
        spot = river3_spec(spot)
    if isinstance(spot, (Turn3Spec, Turn3Setup)):
        tsetup, plan, test = checked_turn(spot)
        tree = turn_tree(tsetup, plan)  # (laid out again by the build, which keeps no tree)
        return River3Game(tsetup.base, tree, test, build_turn3(tsetup), tsetup)
    setup, rtree, est = checked(spot)
    return River3Game(setup, rtree, est, build_holdem3(setup))


def _chips(x: float) -> str:
    return f"{x:,.0f}" if float(x).is_integer() else f"{x:,.2f}"


def _street_start(game: River3Game, node: int) -> int:
    """The node where ``node``'s street began: the root, or the river card's child."""
    n = node
    while n > 0 and int(game.tree.kind[int(game.tree.parent[n])]) != CHANCE:
        n = int(game.tree.parent[n])
    return n


def action_words(game: River3Game, node: int) -> str:
    """The action leading to ``node`` (not the root) in words, by its actor: "checks",
    "bets 30 (50 %)", "raises to 120", "calls", "folds", "goes all-in 200"; below a turn
    spot's chance node, the card: "river Qh"."""
    parent = int(game.tree.parent[node])
    label = game.labels[node]
    kind, _, amount = label.partition(":")
    if int(game.tree.kind[parent]) == CHANCE:
        return f"river {amount}"
    if kind == "k":
        return "checks"
    if kind == "c":
        return "calls"
    if kind == "f":
        return "folds"
    to = float(amount)
    # chips behind at the street's start: the stack less what the actor put in before it
    start = _street_start(game, parent)
    actor = int(game.player[parent])
    before = float(game.tree.contrib[start][actor]) - game.pot / PLAYERS
    if to >= game.setup.config.stack - before:
        return f"goes all-in {_chips(to)}"
    if kind == "b":
        pot = float(game.tree.contrib[parent].sum())
        return f"bets {_chips(to)} ({100 * to / pot:.0f} %)"
    return f"raises to {_chips(to)}"


def line_words(game: River3Game, node: int) -> str:
    """The line from the root to ``node`` in words: "P1 checks, P2 bets 30 (50 %)"
    (players counted from 1, P1 first to act); on a turn spot the river card splits the
    streets: "P1 checks, P2 checks, P3 checks / river Qh / P1 bets 40 (33 %)"; "start" at
    the root."""
    path = []
    n = node
    while n > 0:
        path.append(n)
        n = int(game.tree.parent[n])
    parts: list[str] = []
    street: list[str] = []
    for c in reversed(path):
        parent = int(game.tree.parent[c])
        if int(game.tree.kind[parent]) == CHANCE:
            if street:
                parts.append(", ".join(street))
            parts.append(action_words(game, c))
            street = []
        else:
            street.append(f"P{int(game.player[parent]) + 1} {action_words(game, c)}")
    if street:
        parts.append(", ".join(street))
    return " / ".join(parts) or "start"
