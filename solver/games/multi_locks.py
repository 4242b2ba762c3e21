"""Locks for any player of a three-player game (issue 49; docs/locking.md, docs/multiway.md):
the heads-up lock text, ``{LINE: MIX}`` (:mod:`solver.lockspec`), resolved against a
:class:`~solver.games.multiway.MultiGame` into the cells of its behaviour profile that a
lock fixes and the mix they play (:class:`MultiLocks`). The engine reads only those arrays
(:meth:`solver.cfr.multi_engine.MultiEngine.lock`).

* ``LINE``: the node's labels from the root, space-separated (``"k b"``; in Leduc ``"r c
  d:Qs c"``, ``d:CARD`` the public card), or ``"root"``. The actor is the node's: a lock
  locks whoever acts there.
* ``MIX``: ``{action: probability}`` for every hand that can be at the node; ``{hand:
  {action: probability}}`` for some (a hand by its name, ``"K"`` in Kuhn, ``"Qs"`` in
  Leduc, where a rank alone, ``"Q"``, names both its cards; ``"*"`` every hand not named),
  the others staying free; or ``"solved"``, every hand on a given profile's mix there.
  Actions are the node's labels (``k``, ``b``, ``c``, ``f``, ``r``); probabilities are
  numbers ≥ 0 summing to 1, actions left out playing 0.

Every error is a :class:`MultiLockError` (a ValueError) naming the line, and the hand when
one is at fault, as the heads-up :class:`~solver.lockspec.LockError` does.
"""

from __future__ import annotations

import contextlib
import math
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.multiway import MultiGame
from solver.quoting import brief
from solver.tree.kinds import CHANCE, DECISION

Array = npt.NDArray[np.float64]

__all__ = [
    "EVERY_OTHER_HAND",
    "SOLVED",
    "LockedSet",
    "MultiLockError",
    "MultiLocks",
    "build_multi_locks",
    "lock_line",
    "uniform_locks",
]

TOLERANCE = 1e-6  # how far a mix's probabilities may sum from 1 (as heads-up locks)
SOLVED = "solved"
EVERY_OTHER_HAND = "*"
ROOT = "root"


class MultiLockError(ValueError):
    """A lock that cannot be applied: ``line`` and (when one is at fault) ``hand`` name it."""

    def __init__(self, line: str, message: str, hand: str | None = None) -> None:
        where = f"lock {brief(line)}" + (f", hand {brief(hand)}" if hand else "")
        super().__init__(f"{where}: {message}")
        self.line = line
        self.hand = hand
        self.message = message


@dataclass(frozen=True)
class LockedSet:
    """One locked information set: the ``player`` (0 first) acting at ``line`` (its text,
    ``"root"`` at the root) holding ``hand`` (its name) plays ``mix`` (action label →
    probability, every action of the node)."""

    player: int
    line: str
    node: int
    hand: str
    mix: dict[str, float]


@dataclass(frozen=True)
class MultiLocks:
    """Locks resolved against one MultiGame (``A`` = its profile size): ``cells`` (A,) True
    at the ``[action, hand]`` cells of the locked information sets (whole sets: every action
    of a locked hand), ``strategy`` (A,) the locked mix there and 0 elsewhere, ``sets`` each
    locked set in profile order, and ``spec`` what was asked, JSON-able (line text → mix;
    "solved" replaced by per-hand mixes)."""

    cells: npt.NDArray[np.bool_]
    strategy: Array
    sets: tuple[LockedSet, ...]
    spec: dict[str, Any]

    def players(self) -> tuple[int, ...]:
        """The players with at least one locked information set, in order."""
        return tuple(sorted({s.player for s in self.sets}))

    def lines(self, num_players: int) -> list[list[str]]:
        """Per player (player 0 first) the lines where it has a locked hand, in profile
        order."""
        out: list[list[str]] = [[] for _ in range(num_players)]
        for s in self.sets:
            if s.line not in out[s.player]:
                out[s.player].append(s.line)
        return out


def line_labels(line: object) -> tuple[str, ...]:
    """A lock's line as labels: ``"k b"`` → ``("k", "b")``; ``"root"`` or ``""`` → ``()``;
    a sequence of labels as it is."""
    if isinstance(line, str):
        text = line.strip()
        return () if text in ("", ROOT) else tuple(text.split())
    if isinstance(line, (tuple, list)) and all(isinstance(x, str) for x in line):
        return tuple(line)
    raise MultiLockError(brief(line), "a line is action and card labels (text)")


def lock_line(labels: Iterable[str]) -> str:
    """The text form of a line: its labels joined by spaces, ``"root"`` for the root."""
    text = " ".join(labels)
    return text if text else ROOT


def _nodes_by_line(game: MultiGame) -> dict[tuple[str, ...], int]:
    """Every node by its labels from the root (breadth-first order: parents first)."""
    paths: list[tuple[str, ...]] = [()] * game.num_nodes
    for n in range(1, game.num_nodes):
        paths[n] = (*paths[int(game.parent[n])], game.labels[n])
    return {p: n for n, p in enumerate(paths)}


def _locate(game: MultiGame, nodes: dict[tuple[str, ...], int], labels: tuple[str, ...]) -> int:
    """The node of ``labels``; MultiLockError saying where the line leaves the tree."""
    line = lock_line(labels)
    node = 0
    for k, label in enumerate(labels):
        nxt = nodes.get(labels[: k + 1])
        if nxt is None:
            kids = [game.labels[c] for c in game.children(node)]
            after = f"after {lock_line(labels[:k])!r}" if k else "at the root"
            if not kids:
                raise MultiLockError(line, f"no such line: the hand is over {after}")
            raise MultiLockError(
                line,
                f"no such line in {game.name}: {after} come {', '.join(kids)}, not {brief(label)}",
            )
        node = nxt
    return node


def _number(line: str, hand: str | None, action: str, value: object) -> float:
    number = math.nan
    if not isinstance(value, bool) and isinstance(value, (int, float)):
        with contextlib.suppress(OverflowError):  # an integer past 1e308 stays NaN
            number = float(value)
    if not math.isfinite(number):
        raise MultiLockError(line, f"{action}: {brief(value)} is not a probability", hand)
    if number < 0:
        raise MultiLockError(line, f"{action}: probability {number:g} is negative", hand)
    if number > 1 + TOLERANCE:
        raise MultiLockError(line, f"{action}: probability {number:g} is more than 1", hand)
    return number


def _mix(line: str, hand: str | None, actions: list[str], mix: object) -> Array:
    """A mix {action: probability} as a vector over ``actions``; MultiLockError naming the
    line and hand when an action is not legal there or the probabilities do not sum to 1."""
    if not isinstance(mix, Mapping) or not mix:
        raise MultiLockError(
            line, f"a mix is {{action: probability}} over {', '.join(actions)}", hand
        )
    out = np.zeros(len(actions))
    for action, p in mix.items():
        if action not in actions:
            raise MultiLockError(
                line, f"no action {brief(action)} here (actions: {', '.join(actions)})", hand
            )
        out[actions.index(action)] = _number(line, hand, str(action), p)
    total = float(out.sum())
    if abs(total - 1.0) > TOLERANCE:
        raise MultiLockError(line, f"probabilities sum to {total:.6g}, not 1", hand)
    return out / total


def possible(game: MultiGame, node: int) -> npt.NDArray[np.bool_]:
    """(H,) the hands the actor of ``node`` can hold there (some deal the board allows)."""
    out = np.zeros(game.num_hands, dtype=bool)
    ok = game.deal_valid[game.board[node]]
    out[np.unique(game.deals[ok, int(game.player[node])])] = True
    return out


def _hands(game: MultiGame, node: int, key: str, line: str, valid: npt.NDArray[np.bool_]) -> Any:
    """(H,) the hands ``key`` names at ``node``: a hand's name, or a rank naming each of its
    cards (Leduc's ``"Q"``: Qs and Qh)."""
    names = game.hand_names
    if key in names:
        picked = np.array([n == key for n in names])
    else:
        picked = np.array([len(n) > 1 and n[:-1] == key for n in names])
        if not picked.any():
            raise MultiLockError(line, f"no such hand (hands: {', '.join(names)})", key)
    picked &= valid
    if not picked.any():
        raise MultiLockError(line, "names no hand that can be at this node", key)
    return picked


def claim_node(line: str, kind: int, node: int, done: dict[int, str], dealt: str) -> None:
    """Record ``node`` (of kind ``kind``) as locked by ``line`` in ``done``; MultiLockError
    when nobody acts there (``dealt``: what is dealt at a chance node, "cards are") or it is
    locked already."""
    if kind == CHANCE:
        raise MultiLockError(line, f"is a chance node ({dealt} dealt there, nobody acts)")
    if kind != DECISION:
        raise MultiLockError(line, "is a terminal node (nobody acts)")
    if node in done:
        raise MultiLockError(line, f"is locked twice (also as {done[node]!r})")
    done[node] = line


def lock_node(
    line: str,
    mix: Any,
    *,
    actions: list[str],
    valid: npt.NDArray[np.bool_],
    names: list[str],
    off: int,
    profile: npt.ArrayLike | None,
    pick: Callable[[str], npt.NDArray[np.bool_]],
    hand_text: str,
    cells: npt.NDArray[np.bool_],
    strategy: Array,
) -> Any:
    """Resolve one decision node's ``mix`` (module docstring) and write it into ``cells`` and
    ``strategy`` (profile size,) at its ``[action, hand]`` block from ``off`` (``actions`` ×
    ``valid.size`` hands; ``valid`` the hands that can be there, ``names`` theirs). ``pick``
    gives the valid hands a hand text names (MultiLockError when none); ``hand_text`` is
    what a hand looks like, for the message about a key that is not text. Returns the mix as
    saved (JSON-able; "solved" as per-hand mixes)."""
    na, nh = len(actions), valid.size
    table = np.zeros((na, nh))
    locked = np.zeros(nh, dtype=bool)
    entry: Any
    if isinstance(mix, str):
        if mix != SOLVED:
            raise MultiLockError(line, f"a mix is {{action: probability}}, per hand, or {SOLVED!r}")
        if profile is None:
            raise MultiLockError(line, "'solved' needs a solve to take the strategy from")
        sigma = np.asarray(profile, dtype=np.float64)
        if sigma.shape != (cells.size,):
            raise ValueError(f"profile: expected shape ({cells.size},)")
        table[:] = sigma[off : off + na * nh].reshape(na, nh)
        locked = valid.copy()
        entry = {
            names[k]: {a: float(table[i, k]) for i, a in enumerate(actions)}
            for k in np.flatnonzero(locked)
        }
    elif isinstance(mix, Mapping) and mix and all(isinstance(v, Mapping) for v in mix.values()):
        rest: object = None
        for key, hand_mix in mix.items():
            if not isinstance(key, str):
                raise MultiLockError(line, f"a hand is text like {hand_text}, got {brief(key)}")
            if key == EVERY_OTHER_HAND:
                rest = hand_mix
                continue
            picked = pick(key)
            table[:, picked] = _mix(line, key, actions, hand_mix)[:, None]
            locked |= picked
        if rest is not None:
            others = valid & ~locked
            table[:, others] = _mix(line, EVERY_OTHER_HAND, actions, rest)[:, None]
            locked |= others
        entry = {str(k): dict(v) for k, v in mix.items()}
    else:
        if isinstance(mix, Mapping) and any(isinstance(v, Mapping) for v in mix.values()):
            raise MultiLockError(line, "mixes {action: probability} with {hand: mix} entries")
        table[:] = _mix(line, None, actions, mix)[:, None]
        locked = valid.copy()
        entry = dict(mix)
    block = np.zeros((na, nh), dtype=bool)
    block[:, locked] = True
    cells[off : off + na * nh] = block.reshape(-1)
    strategy[off : off + na * nh] = np.where(block, table, 0.0).reshape(-1)
    return entry


def build_multi_locks(
    game: MultiGame, spec: Mapping[Any, Any], profile: npt.ArrayLike | None = None
) -> MultiLocks:
    """Resolve ``spec`` (line → mix, module docstring) against ``game``. ``profile``
    (profile_size,) is what "solved" locks take (a MultiLockError when one is used without
    it). MultiLockError names the line (and hand) of the first lock that cannot be
    applied."""
    if not isinstance(spec, Mapping):
        raise MultiLockError("locks", f"locks are {{line: mix}}, got {type(spec).__name__}")
    h = game.num_hands
    cells = np.zeros(game.profile_size, dtype=bool)
    strategy = np.zeros(game.profile_size)
    nodes = _nodes_by_line(game)
    names = game.hand_names
    done: dict[int, str] = {}
    saved: dict[str, Any] = {}
    for raw_line, mix in spec.items():
        labels = line_labels(raw_line)
        line = lock_line(labels)
        node = _locate(game, nodes, labels)
        claim_node(line, int(game.kind[node]), node, done, "cards are")
        off = int(game.offset[node])
        actions = [game.labels[c] for c in game.children(node)]
        valid = possible(game, node)
        saved[line] = lock_node(
            line,
            mix,
            actions=actions,
            valid=valid,
            names=names,
            off=off,
            profile=profile,
            pick=partial(_hands, game, node, line=line, valid=valid),
            hand_text="'K' or 'Qs'",
            cells=cells,
            strategy=strategy,
        )
    sets: list[LockedSet] = []
    for node in sorted(done, key=lambda n: int(game.offset[n])):
        off, na = int(game.offset[node]), int(game.num_children[node])
        actions = [game.labels[c] for c in game.children(node)]
        block = strategy[off : off + na * h].reshape(na, h)
        for k in np.flatnonzero(cells[off : off + na * h].reshape(na, h)[0]):
            mix_k = {a: float(block[i, k]) for i, a in enumerate(actions)}
            sets.append(LockedSet(int(game.player[node]), done[node], node, names[k], mix_k))
    return MultiLocks(cells, strategy, tuple(sets), saved)


def uniform_locks(game: MultiGame, players: Iterable[int]) -> dict[str, dict[str, float]]:
    """The lock text that fixes every decision node of ``players`` (0 first) to the uniform
    mix, for every hand: ``{line: {action: 1/A}}`` (give it as ``locks``)."""
    who = {int(p) for p in players}
    bad = sorted(p for p in who if p not in range(game.num_players))
    if bad:
        raise ValueError(f"players: {bad[0]} is not one of 0 to {game.num_players - 1}")
    nodes = game.decision_nodes()
    out: dict[str, dict[str, float]] = {}
    for n in nodes[np.argsort(game.offset[nodes], kind="stable")]:
        if int(game.player[n]) in who:
            actions = [game.labels[c] for c in game.children(int(n))]
            out[lock_line(game.history(int(n)))] = {a: 1.0 / len(actions) for a in actions}
    return out
