"""Locks for any player of a three-way hold'em river or turn spot (issue 49; docs/locking.md,
docs/multiway.md): the heads-up lock text, ``{LINE: MIX}`` (:mod:`solver.games.multi_locks`
reads the same text for kuhn3 and leduc3), resolved against the spot's built game — the
:class:`~solver.games.model.Game` of :func:`solver.cfr.holdem3_build.build_holdem3` or
:func:`solver.cfr.holdem3_turn_build.build_turn3` — into the cells of its profile that a lock
fixes and the mix they play (:class:`~solver.games.multi_locks.MultiLocks`). The engine reads
only those arrays (:meth:`solver.cfr.multi_engine.MultiEngine.lock`).

* ``LINE``: the node's labels from the root, space-separated: ``k``, ``b:S``, ``c``, ``f``,
  ``r:S`` (S the street commitment after the action, in chips), and on a turn spot the river
  card as ``d:Qc`` (``"k k k d:Qc b:30"``); ``"root"`` for the root. Whoever acts there is
  locked.
* ``MIX``: ``{action: probability}`` for every hand the actor can hold there; ``{hands:
  {action: probability}}`` for some, the node's other hands staying free — ``hands`` is a
  combo (``"AhKd"``), range text (``"AKs"``, ``"QQ+"``, ``"AA, KhKd"``), a hand class on
  the node's board (``"top_pair"``, ``"flush_draw"``: :mod:`solver.poker.handclass`) or
  ``"*"`` for every hand not named; or ``"solved"``, every hand on a given profile's mix.
  Probabilities are numbers in [0, 1] summing to 1 over the node's actions, actions left
  out playing 0.

As heads-up (:mod:`solver.lockspec`): combos the actor does not hold, or that the board or
the river card blocks, are left out without a word; a hand text that leaves none is an error.
Every error is a :class:`~solver.games.multi_locks.MultiLockError` (a ValueError) naming
the line, and the hand when one is at fault.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.model import CHANCE, Game
from solver.games.multi_locks import (
    LockedSet,
    MultiLockError,
    MultiLocks,
    claim_node,
    line_labels,
    lock_line,
    lock_node,
)
from solver.poker.cards import COMBOS, parse_card
from solver.poker.handclass import DRAWS, MADE, classify_hands
from solver.poker.ranges import RangeError, parse_range
from solver.quoting import brief

__all__ = ["HOLDEM3_KINDS", "build_holdem3_locks", "holdem3_lock_lines"]

HOLDEM3_KINDS = ("river3", "turn3")
"""The built games' ``meta["kind"]`` this module resolves locks for."""
_SHOWN_CARDS = 6  # a chance node's cards named in a "no such line" message before "…"


def _kind(game: Game) -> str:
    kind = game.meta.get("kind") if isinstance(game, Game) else None
    if kind not in HOLDEM3_KINDS:
        raise ValueError(
            f"game: locks here are for three-way river and turn spots, got {brief(kind)}"
        )
    return str(kind)


def _locate(game: Game, labels: tuple[str, ...]) -> int:
    """The node of ``labels``; MultiLockError saying where the line leaves the tree."""
    line = lock_line(labels)
    node = 0
    for k, label in enumerate(labels):
        kids = game.children(node)
        nxt = next((c for c in kids if game.labels[c] == label), None)
        if nxt is None:
            after = f"after {lock_line(labels[:k])!r}" if k else "at the root"
            if not kids:
                raise MultiLockError(line, f"no such line: the hand is over {after}")
            names = [game.labels[c] for c in kids]
            if game.tree.kind[node] == CHANCE:
                shown = ", ".join(names[:_SHOWN_CARDS]) + (
                    ", …" if len(names) > _SHOWN_CARDS else ""
                )
                raise MultiLockError(
                    line, f"no such line: {after} the river is dealt ({shown}), not {brief(label)}"
                )
            raise MultiLockError(
                line, f"no such line: {after} come {', '.join(names)}, not {brief(label)}"
            )
        node = nxt
    return node


def _board_at(game: Game, node: int) -> list[int] | None:
    """The public cards at ``node`` (the spot's board, and the river card on the way), None
    when the game does not say its board."""
    if "board" not in game.meta:
        return None
    board = [int(c) for c in np.asarray(game.meta["board"])]
    board += [parse_card(x[2:]) for x in game.history(node) if x.startswith("d:")]
    return board


class _Hands:
    """Per player its hands' index by name and cards; the hand classes per node, computed
    once (a file naming many hands costs a lookup each, not a scan of the range)."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.by_name = [{n: k for k, n in enumerate(names)} for names in game.hand_names]
        combos = game.meta["combos"]
        self.combos = [np.asarray(c, dtype=np.int64) for c in combos]  # type: ignore[attr-defined]
        self._classes: dict[tuple[int, int], Any] = {}

    def classes(
        self, node: int, player: int, board: list[int]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        key = (node, player)
        if key not in self._classes:
            self._classes[key] = classify_hands(board, COMBOS[self.combos[player]])
        return self._classes[key]

    def named(self, node: int, player: int, key: str, line: str) -> npt.NDArray[np.bool_]:
        """(n_p,) the hands ``key`` names at ``node`` (before card removal)."""
        by_name = self.by_name[player]
        picked = np.zeros(len(by_name), dtype=bool)
        if key in by_name:
            picked[by_name[key]] = True
            return picked
        if key in MADE or key in DRAWS:
            board = _board_at(self.game, node)
            if board is None:
                raise MultiLockError(line, "hand classes need the spot's board", key)
            made, draws = self.classes(node, player, board)
            out = made == MADE.index(key) if key in MADE else draws[:, DRAWS.index(key)]
            return np.asarray(out, dtype=bool)
        try:
            weights = parse_range(key)
        except RangeError as exc:
            raise MultiLockError(line, f"not a hand, range or hand class ({exc})", key) from None
        return np.asarray(weights[self.combos[player]] > 0, dtype=bool)


def _picked(
    hands: _Hands, node: int, player: int, line: str, valid: npt.NDArray[np.bool_], key: str
) -> npt.NDArray[np.bool_]:
    """The hands ``key`` names at ``node`` that can be there; MultiLockError when none."""
    picked = hands.named(node, player, key, line) & valid
    if not picked.any():
        raise MultiLockError(line, "names no hand that can be at this node", key)
    return picked


def build_holdem3_locks(
    game: Game, spec: Mapping[Any, Any], profile: npt.ArrayLike | None = None
) -> MultiLocks:
    """Resolve ``spec`` (line → mix, module docstring) against ``game``, a three-way river or
    turn spot's built game (ValueError otherwise). ``profile`` (``game.action_size``,) is
    what "solved" locks take (a MultiLockError when one is used without it). The result's
    ``cells`` and ``strategy`` are in the game's ``[action, hand]`` blocks (player ``p``'s
    nodes with its ``n_p`` hands); MultiLockError names the line (and hand) of the first lock
    that cannot be applied."""
    _kind(game)
    if not isinstance(spec, Mapping):
        raise MultiLockError("locks", f"locks are {{line: mix}}, got {type(spec).__name__}")
    t = game.tree
    size = int(game.action_size)
    cells = np.zeros(size, dtype=bool)
    strategy = np.zeros(size)
    hands = _Hands(game)
    done: dict[int, str] = {}
    saved: dict[str, Any] = {}
    for raw_line, mix in spec.items():
        labels = line_labels(raw_line)
        line = lock_line(labels)
        node = _locate(game, labels)
        claim_node(line, int(t.kind[node]), node, done, "the river is")
        player = int(t.player[node])
        off = game.block(node)[0]
        actions = game.action_labels(node)
        valid = game.valid_hands(node, player)
        names = game.hand_names[player]
        saved[line] = lock_node(
            line,
            mix,
            actions=actions,
            valid=valid,
            names=names,
            off=off,
            profile=profile,
            pick=partial(_picked, hands, node, player, line, valid),
            hand_text="'AhKd', 'AKs' or 'QQ+'",
            cells=cells,
            strategy=strategy,
        )
    sets: list[LockedSet] = []
    for node in sorted(done, key=lambda n: int(t.offset[n])):
        off, na, nh = game.block(node)
        player = int(t.player[node])
        names = game.hand_names[player]
        actions = game.action_labels(node)
        block = strategy[off : off + na * nh].reshape(na, nh)
        # one mix dict per distinct column: a whole-node lock on a wide range makes one
        mixes: dict[tuple[float, ...], dict[str, float]] = {}
        for k in np.flatnonzero(cells[off : off + na * nh].reshape(na, nh)[0]).tolist():
            col = tuple(block[:, k].tolist())
            mix_k = mixes.get(col)
            if mix_k is None:
                mix_k = mixes[col] = dict(zip(actions, col, strict=True))
            sets.append(LockedSet(player, done[node], node, names[k], mix_k))
    return MultiLocks(cells, strategy, tuple(sets), saved)


def holdem3_lock_lines(
    game: Game, players: Iterable[int], mix: Mapping[str, Mapping[str, float]] | None = None
) -> dict[str, dict[str, float]]:
    """Lock text fixing every decision node of ``players`` (0 first) for every hand: per
    node the first entry of ``mix`` (``{name: {action: probability}}``, tried in order) whose
    actions are all the node's; None: the uniform mix. A node no entry fits: ValueError
    naming its line. (``{"passive": {"k": 1}, "call": {"c": 1}}`` checks and calls.)"""
    _kind(game)
    who = {int(p) for p in players}
    bad = sorted(p for p in who if p not in range(3))
    if bad:
        raise ValueError(f"players: {bad[0]} is not one of 0 to 2")
    t = game.tree
    nodes = game.decision_nodes()
    out: dict[str, dict[str, float]] = {}
    for n in nodes[np.argsort(t.offset[nodes], kind="stable")].tolist():
        if int(t.player[n]) not in who:
            continue
        actions = game.action_labels(n)
        line = lock_line(game.history(n))
        if mix is None:
            out[line] = {a: 1.0 / len(actions) for a in actions}
            continue
        fit = next((m for m in mix.values() if all(a in actions for a in m)), None)
        if fit is None:
            raise ValueError(f"mix: none fits the actions at {line!r} ({', '.join(actions)})")
        out[line] = {str(a): float(p) for a, p in fit.items()}
    return out
