"""What a profile means in one game: the opponent's decision nodes each stat counts at
(:func:`stat_nodes`), the action family's indices there (:func:`family_actions`), the hands
of a class entry, and the checks that need the tree (:func:`plan`, a :class:`Plan`).
:mod:`solver.study.profiles` re-exports these names.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from solver.games.model import DECISION, Game
from solver.lockspec import board_at
from solver.poker.handclass import DRAWS, MADE
from solver.study.profile_args import check_game
from solver.study.profile_spec import EPS as _EPS
from solver.study.profile_spec import STATS, Profile, ProfileError, check_values

Array = npt.NDArray[np.float64]
Mask = npt.NDArray[np.bool_]


def _streets(labels: Sequence[str]) -> list[list[str]]:
    out: list[list[str]] = [[]]
    for lab in labels:
        if lab.startswith("d:"):
            out.append([])
        else:
            out[-1].append(lab)
    return out


def _is(labels: list[str], pattern: Sequence[str]) -> bool:
    """``labels`` match ``pattern``, where ``"b:"`` and ``"r:"`` stand for any bet or raise."""
    return len(labels) == len(pattern) and all(
        lab.startswith(p) if p.endswith(":") else lab == p
        for lab, p in zip(labels, pattern, strict=True)
    )


def stat_nodes(game: Game, stat: str, seat: str) -> list[int]:
    """The decision nodes of the opponent in ``seat`` where ``stat`` counts (module doc)."""
    player = 0 if seat == "oop" else 1
    first = [] if seat == "oop" else ["k"]
    facing = ["k", "b:"] if seat == "oop" else ["b:"]
    start = len(np.asarray(game.meta["board"]))
    t = game.tree
    out = []
    for node in np.flatnonzero((t.kind == DECISION) & (t.player == player)):
        streets = _streets(game.history(int(node)))
        cur, street = streets[-1], start + len(streets) - 1
        if stat == "cbet":
            ok = len(streets) == 1 and cur == first
        elif stat in ("fold_to_cbet", "check_raise"):
            ok = len(streets) == 1 and _is(cur, facing)
        elif stat == "turn_barrel":
            called = ["b:", "c"] if seat == "oop" else ["k", "b:", "c"]
            ok = start == 3 and street == 4 and _is(streets[0], called) and cur == first
        elif stat in ("river_bet", "river_bluff"):
            ok = street == 5 and cur == first
        else:  # fold_to_river_bet
            ok = street == 5 and _is(cur, facing)
        if ok:
            out.append(int(node))
    return out


def family_actions(game: Game, node: int, family: str) -> list[int]:
    prefix = {"bet": "b:", "raise": "r:", "fold": "f"}[family]
    return [i for i, lab in enumerate(game.action_labels(node)) if lab.startswith(prefix)]


def _class_mask(game: Game, node: int, player: int, klass: str) -> Mask:
    from solver.poker.handclass import classify_hands

    nh = int(game.num_hands[player])
    board = board_at(game, node)
    assert board is not None
    made, draws = classify_hands(board, game.hands.cards[player, :nh].astype(np.int64))
    if klass in MADE:
        return np.asarray(made == MADE.index(klass), dtype=bool)
    return np.asarray(draws[:, DRAWS.index(klass)], dtype=bool)


@dataclass(frozen=True)
class Plan:
    """What a profile means in one game: per entry (the profile's order) its nodes and the
    action family's indices there, the hand masks of class entries, and the bluff masks of
    ``river_bluff``'s nodes (fixed once)."""

    profile: Profile
    player: int
    nodes: list[list[int]]  # per entry
    masks: dict[tuple[int, int], Mask]  # (entry, node) -> (H,) the class's hands
    bluffs: dict[int, Mask] = field(default_factory=dict)  # node -> (H,) bluff hands


def plan(game: Game, profile: Profile) -> Plan:
    """Check ``profile`` against ``game`` (its nodes, its classes, stats sharing nodes)
    without a strategy; :class:`ProfileError` naming the field of the first problem (a
    ``game`` that is no Game, or a ``profile`` that is no Profile: TypeError)."""
    check_game(game)
    if not game.is_holdem or game.meta.get("preflop"):
        raise ProfileError("game", "profiles describe the players of a hold'em postflop spot")
    check_values(profile)
    player = 0 if profile.player == "oop" else 1
    nodes: list[list[int]] = []
    masks: dict[tuple[int, int], Mask] = {}
    for i, s in enumerate(profile.stats):
        found = stat_nodes(game, s.stat, profile.player)
        if not found:
            raise ProfileError(
                f"stats[{i}].stat",
                f"{s.stat} has no spot in this tree for {profile.player.upper()} "
                f"({STATS[s.stat].where}; the spot starts with a board of "
                f"{len(np.asarray(game.meta['board']))} cards and these bet sizes)",
            )
        if not any(family_actions(game, n, STATS[s.stat].family) for n in found):
            raise ProfileError(
                f"stats[{i}].stat", f"{s.stat}: no {STATS[s.stat].family} action at its spots"
            )
        nodes.append(found)
        if s.hand_class is not None:
            for n in found:
                masks[(i, n)] = _class_mask(game, n, player, s.hand_class) & game.valid_hands(
                    n, player
                )
            if not any(masks[(i, n)].any() for n in found):
                raise ProfileError(
                    f"stats[{i}].class",
                    f"no hand of {profile.player.upper()}'s range is {s.hand_class} at the "
                    f"{s.stat} spots",
                )
    # the same nodes and action family, the same hands: one number, not two
    for i, a in enumerate(profile.stats):
        for j in range(i):
            b = profile.stats[j]
            same = STATS[a.stat].family == STATS[b.stat].family and a.hand_class == b.hand_class
            if "river_bluff" in (a.stat, b.stat) or not same:
                continue
            if set(nodes[i]) & set(nodes[j]) and abs(a.value - b.value) > _EPS:
                raise ProfileError(
                    f"stats[{i}]",
                    f"{a.name} {a.value:g} % contradicts {b.name} {b.value:g} % (stats[{j}]): "
                    "in this tree they count the same spots",
                )
    return Plan(profile, player, nodes, masks)
