"""Node locking: some infosets play a fixed strategy while everything else re-solves.

A lock is data the walk reads, like a rule: per infoset (decision node, hand) a flag and the
fixed mix it plays. A locked infoset plays its mix as both its current and its average
strategy and is never updated — its regrets, strategy sums and adaptive statistics keep their
values bit for bit — while the node's other hands, and every other node, solve as usual. A
best response may not change a locked infoset either, so exploitability and EVs are those of
the *locked game* (the game in which those infosets are chance-like).

Locks are given per line (a node's actions and cards from the root, as
:meth:`solver.api.SolveResult.strategy` takes them: ``("k", "b:100")``, or the text
``"k b:100"``; ``"root"`` or ``()`` for the root) and a mix:

* ``{action: probability}`` — every hand at the node plays it;
* ``{hands: {action: probability}}`` — those hands play it, the node's other hands stay free;
  ``hands`` is a hand (``"AsKs"``; ``"Qh"`` or the rank ``"Q"`` in Leduc), range text
  (``"AKs"``, ``"TT+"``), a
  hand class on hold'em boards (``"top_pair"``, ``"flush_draw"``: :mod:`solver.handclass`)
  or ``"*"`` for every hand not named otherwise;
* ``"solved"`` — every hand plays the current average strategy there (lock as solved).

Probabilities are numbers ≥ 0 summing to 1 over the node's actions (actions left out are 0).
Below a suit-isomorphic card (hold'em turns and rivers, Leduc's board card) one stored node
stands for every card of its class: a lock there locks all of them, each with its hands
mapped by the suit permutation (a per-hand lock stays symmetric).
"""

from __future__ import annotations

import contextlib
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from solver.games.model import CHANCE, DECISION, Game
from solver.jit import kernel
from solver.quoting import brief

Array = npt.NDArray[np.float64]
I8 = npt.NDArray[np.int8]
Int = int | np.int64

TOLERANCE = 1e-6  # how far a mix's probabilities may sum from 1
SOLVED = "solved"
EVERY_OTHER_HAND = "*"


class LockError(ValueError):
    """A lock that cannot be applied: ``line`` and (when one is at fault) ``hand`` name it."""

    def __init__(self, line: str, message: str, hand: str | None = None) -> None:
        where = f"lock {brief(line)}" + (f", hand {brief(hand)}" if hand else "")
        super().__init__(f"{where}: {message}")
        self.line = line
        self.hand = hand
        self.message = message


class Locks(NamedTuple):
    """What the walk reads of the locks (``N`` nodes, ``I`` info size, ``A`` action size);
    :func:`no_locks` for solves without any (length-1 placeholders the walk never reads)."""

    node: I8  # (N,) 1 at a decision node with at least one locked hand
    hand: I8  # (I,) 1 at a locked infoset (node, hand)
    strategy: Array  # (A,) the locked mix at a locked infoset's cells, 0 elsewhere


def no_locks() -> Locks:
    return Locks(np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.int8), np.zeros(1))


# ----- the walk's steps at a locked node (inlined) --------------------------------------------
@kernel  # (a call, not inlined: off the common path)
def play_locked(
    LH: I8, LS: Array, off: Int, ioff: Int, na: Int, nh: Int, out2: Array, orow: Int
) -> None:
    """out2[orow, a·nh + h] ← the locked mix of each locked hand h (a strategy row derived from
    the regrets, as the walk keeps one per depth)."""
    for h in range(nh):
        if LH[ioff + h] != 0:
            for a in range(na):
                out2[orow, a * nh + h] = LS[off + a * nh + h]


@kernel  # (a call, not inlined: off the common path)
def locked_values(
    LH: I8, LS: Array, off: Int, ioff: Int, na: Int, nt: Int, AV: Array, VA: Array, d: Int
) -> None:
    """A best response at the traverser's node leaves a locked hand on its mix:
    VA[d, h] = Σ_a locked(a, h)·AV[d, a, h] for the locked hands."""
    for h in range(nt):
        if LH[ioff + h] != 0:
            v = 0.0
            for a in range(na):
                v += LS[off + a * nt + h] * AV[d, a, h]
            VA[d, h] = v


@kernel  # (a call, not inlined: off the common path)
def keep_cells(src: Array, off: Int, n: Int, keep2: Array, row: Int) -> None:
    """keep2[row, :n] ← src[off : off + n] (a block, before an update may change it)."""
    for i in range(n):
        keep2[row, i] = src[off + i]


@kernel  # (a call, not inlined: off the common path)
def restore_locked(
    dst: Array, LH: I8, off: Int, ioff: Int, na: Int, nh: Int, keep2: Array, row: Int
) -> None:
    """dst's cells of the locked hands ← what :func:`keep_cells` kept of them."""
    for h in range(nh):
        if LH[ioff + h] != 0:
            for a in range(na):
                dst[off + a * nh + h] = keep2[row, a * nh + h]


# ----- building locks from what a user asks for ------------------------------------------------
def parse_line(line: str | Sequence[str]) -> tuple[str, ...]:
    """A lock's line as labels: ``"k b:100"`` → ``("k", "b:100")``; ``"root"`` → ``()``."""
    if isinstance(line, str):
        text = line.strip()
        return () if text in ("", "root") else tuple(text.split())
    if not isinstance(line, Sequence) or not all(isinstance(x, str) for x in line):
        raise LockError(brief(line), "a line is action and card labels (text)")
    return tuple(line)


def check_locks_type(locks: object) -> None:
    """TypeError naming ``locks`` unless it is None, a mapping ``{line: mix}`` or a
    :class:`LockSet` (the API's argument check; the content is :func:`build_locks`'s)."""
    if locks is not None and not isinstance(locks, (Mapping, LockSet)):
        raise TypeError(f"locks must be {{line: mix}} (a mapping), got {type(locks).__name__}")


def line_text(labels: Sequence[str]) -> str:
    """The text form of a line (``"root"`` for the root)."""
    return " ".join(labels) if labels else "root"


@dataclass(frozen=True)
class LockSet:
    """Locks resolved against one game: the walk's arrays and what was asked (``spec``, JSON-
    able: line text → mix, per-hand mixes by the names given; "solved" already replaced by
    per-hand mixes), for saving and showing."""

    locks: Locks
    spec: dict[str, Any]

    def nodes(self) -> npt.NDArray[np.int64]:
        return np.flatnonzero(self.locks.node)


def _number(line: str, hand: str | None, action: str, value: object) -> float:
    number = math.nan
    if not isinstance(value, bool) and isinstance(value, (int, float)):
        with contextlib.suppress(OverflowError):  # an integer past 1e308 stays NaN
            number = float(value)
    if not math.isfinite(number):
        raise LockError(line, f"{action}: {brief(value)} is not a probability", hand)
    if number < 0:
        raise LockError(line, f"{action}: probability {number:g} is negative", hand)
    return number


def _mix(line: str, hand: str | None, actions: list[str], mix: object) -> Array:
    """A mix {action: probability} as a vector over ``actions``; LockError naming the line and
    the hand when an action is unknown or the probabilities do not sum to 1."""
    if not isinstance(mix, Mapping) or not mix:
        raise LockError(line, f"a mix is {{action: probability}} over {', '.join(actions)}", hand)
    out = np.zeros(len(actions))
    for action, p in mix.items():
        if action not in actions:
            raise LockError(
                line, f"no action {brief(action)} here (actions: {', '.join(actions)})", hand
            )
        out[actions.index(action)] = _number(line, hand, str(action), p)
    total = float(out.sum())
    if abs(total - 1.0) > TOLERANCE:
        raise LockError(line, f"probabilities sum to {total:.6g}, not 1", hand)
    return out / total


def board_at(game: Game, node: int) -> list[int] | None:
    """The public cards at a hold'em node (the initial board and the cards dealt on the way,
    in the stored node's frame), None for other games."""
    if not game.is_holdem:
        return None
    board = [int(c) for c in np.asarray(game.meta["board"])]
    names = game.card_names
    for label in game.history(node):
        if label.startswith("d:") and label[2:] in names:
            board.append(names.index(label[2:]))
    return board


class _HandTables:
    """Lookups :func:`build_locks` reuses over a spec's lines, so that a file naming many
    hands, ranges or classes costs microseconds per entry, not a scan of the range each:
    each player's hand index by name, and by the cards seen through a card map."""

    def __init__(self, game: Game) -> None:
        self.game = game
        self.by_name = [{n: h for h, n in enumerate(names)} for names in game.hand_names]
        self._images: dict[tuple[int, tuple[int, ...]], npt.NDArray[np.int64]] = {}
        self._classes: dict[tuple[int, int], Any] = {}

    def images(self, player: int, cmap: list[int]) -> npt.NDArray[np.int64]:
        """(H,) the index of each of ``player``'s hands seen through ``cmap`` (what
        :meth:`Game.map_hand` gives one at a time); -1 where the image is not a hand."""
        key = (player, tuple(cmap))
        if key not in self._images:
            nh = int(self.game.num_hands[player])
            rows = self.game.hands.cards[player, :nh].tolist()
            hands = [tuple(sorted(int(c) for c in row if c >= 0)) for row in rows]
            index = {cards: h for h, cards in enumerate(hands)}
            self._images[key] = np.array(
                [index.get(tuple(sorted(cmap[c] for c in cards)), -1) for cards in hands],
                dtype=np.int64,
            ).reshape(nh)
        return self._images[key]

    def classes(
        self, node: int, player: int, board: list[int]
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.bool_]]:
        """:func:`solver.handclass.classify_hands` of ``player``'s hands on ``board``
        (``node``'s), computed once per node."""
        from solver.handclass import classify_hands

        key = (node, player)
        if key not in self._classes:
            nh = int(self.game.num_hands[player])
            cards = self.game.hands.cards[player, :nh].astype(np.int64)
            self._classes[key] = classify_hands(board, cards)
        return self._classes[key]


def _hands_of(
    tables: _HandTables,
    node: int,
    player: int,
    key: str,
    line: str,
    cmap: list[int],
    board: list[int] | None,
) -> npt.NDArray[np.bool_]:
    """The player's hands (stored frame) that ``key`` names at ``node``: a hand, range text or
    a hand class; LockError when it names none the node can hold."""
    game = tables.game
    nh = game.num_hands[player]
    valid = game.valid_hands(node, player)
    names = game.hand_names[player]
    picked = np.zeros(nh, dtype=bool)
    images = tables.images(player, cmap)

    def pick(hands: npt.NDArray[np.int64]) -> None:
        mapped = images[hands]
        picked[mapped[mapped >= 0]] = True

    if key in tables.by_name[player]:
        pick(np.array([tables.by_name[player][key]]))
    elif game.is_holdem and board is not None:
        from solver.handclass import DRAWS, MADE

        if key in MADE or key in DRAWS:
            made, draws = tables.classes(node, player, board)
            picked = made == MADE.index(key) if key in MADE else draws[:, DRAWS.index(key)]
            picked = np.asarray(picked, dtype=bool)
        else:
            from solver.ranges import RangeError, parse_range

            try:
                weights = parse_range(key)
            except RangeError as exc:
                raise LockError(line, f"not a hand, range or hand class ({exc})", key) from None
            combos = np.asarray(game.meta["combos"][player])  # type: ignore[index]
            pick(np.flatnonzero(weights[combos] > 0))
    else:  # toy games: a rank stands for its cards ("K": Ks and Kh in Leduc)
        ranks = [i for i, n in enumerate(names) if n[:-1] == key]
        if not ranks:
            raise LockError(line, f"no such hand (hands: {', '.join(names)})", key)
        pick(np.array(ranks))
    picked &= valid
    if not picked.any():
        raise LockError(line, "names no hand that can be at this node", key)
    return picked


def build_locks(game: Game, spec: Mapping[Any, Any], average: Array | None = None) -> LockSet:
    """Resolve ``spec`` (line → mix, module docstring) against ``game``. ``average`` (A,) is
    the strategy "solved" locks take (required when one is used). LockError names the line
    (and hand) of the first lock that cannot be applied."""
    if not isinstance(spec, Mapping):
        raise LockError("locks", "locks are {line: mix}")
    t = game.tree
    tables = _HandTables(game)
    node_flag = np.zeros(game.num_nodes, dtype=np.int8)
    hand_flag = np.zeros(max(game.info_size, 1), dtype=np.int8)
    strategy = np.zeros(max(game.action_size, 1))
    saved: dict[str, Any] = {}
    for raw_line, mix in spec.items():
        labels = parse_line(raw_line)
        line = line_text(labels)
        try:
            node, cmap = game.locate(labels)
        except (KeyError, ValueError) as exc:
            raise LockError(line, f"no such line ({str(exc).strip(chr(39))})") from None
        if t.kind[node] == CHANCE:
            raise LockError(line, "is a chance node (cards are dealt there, nobody acts)")
        if t.kind[node] != DECISION:
            raise LockError(line, "is a terminal node (nobody acts)")
        if node_flag[node]:
            raise LockError(line, "is locked twice (the same node by another line)")
        player = int(t.player[node])
        off, na, nh = game.block(node)
        ioff = int(t.ioffset[node])
        actions = game.action_labels(node)
        valid = game.valid_hands(node, player)
        table = np.zeros((na, nh))
        locked = np.zeros(nh, dtype=bool)
        if isinstance(mix, str):
            if mix != SOLVED:
                raise LockError(line, f"a mix is {{action: probability}}, per hand, or {SOLVED!r}")
            if average is None:
                raise LockError(line, "'solved' needs a solve to take the strategy from")
            table[:] = np.asarray(average[off : off + na * nh]).reshape(na, nh)
            locked = valid.copy()
            names = game.hand_names[player]
            saved[line] = {
                names[h]: {a: float(table[i, h]) for i, a in enumerate(actions)}
                for h in np.flatnonzero(locked)
            }
        elif isinstance(mix, Mapping) and mix and all(isinstance(v, Mapping) for v in mix.values()):
            board = board_at(game, node)
            rest: object = None
            for key, hand_mix in mix.items():
                if not isinstance(key, str):
                    raise LockError(line, f"a hand is text like 'AsKs', got {brief(key)}")
                if key == EVERY_OTHER_HAND:
                    rest = hand_mix
                    continue
                picked = _hands_of(tables, node, player, key, line, cmap, board)
                vec = _mix(line, str(key), actions, hand_mix)
                table[:, picked] = vec[:, None]
                locked |= picked
            if rest is not None:
                others = valid & ~locked
                table[:, others] = _mix(line, EVERY_OTHER_HAND, actions, rest)[:, None]
                locked |= others
            saved[line] = {str(k): dict(v) for k, v in mix.items()}
        else:
            if isinstance(mix, Mapping) and any(isinstance(v, Mapping) for v in mix.values()):
                raise LockError(line, "mixes {action: probability} with {hand: mix} entries")
            vec = _mix(line, None, actions, mix)
            table[:] = vec[:, None]
            locked = valid.copy()
            saved[line] = dict(mix)
        node_flag[node] = 1
        hand_flag[ioff : ioff + nh] = locked
        strategy[off : off + na * nh] = np.where(locked[None, :], table, 0.0).reshape(-1)
    json.dumps(saved)  # JSON-able, as saved solves keep it
    return LockSet(Locks(node_flag, hand_flag, strategy), saved)


def locked_cells(game: Game, locks: Locks) -> npt.NDArray[np.bool_]:
    """(A,) True at the ``[action, hand]`` cells of the locked infosets."""
    out = np.zeros(game.action_size, dtype=bool)
    t = game.tree
    for node in np.flatnonzero(locks.node):
        off, na, nh = game.block(int(node))
        ioff = int(t.ioffset[node])
        hands = locks.hand[ioff : ioff + nh] != 0
        out[off : off + na * nh] = np.tile(hands, na)
    return out
