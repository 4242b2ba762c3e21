"""Locks as users write them, resolved into the arrays the engine reads
(:class:`solver.cfr.locks.LockSet`): the API, the CLI, saved files and the app build locks
here, so the engine never reads poker text (hand names, ranges, hand classes).

Locks are given per line (a node's actions and cards from the root, as
:meth:`solver.api.SolveResult.strategy` takes them: ``("k", "b:100")``, or the text
``"k b:100"``; ``"root"`` or ``()`` for the root) and a mix:

* ``{action: probability}`` — every hand at the node plays it;
* ``{hands: {action: probability}}`` — those hands play it, the node's other hands stay free;
  ``hands`` is a hand (``"AsKs"``; ``"Qh"`` or the rank ``"Q"`` in Leduc), range text
  (``"AKs"``, ``"TT+"``), a
  hand class on hold'em boards (``"top_pair"``, ``"flush_draw"``: :mod:`solver.poker.handclass`)
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
from itertools import chain
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.cfr.locks import Locks, LockSet
from solver.games.model import CHANCE, DECISION, Game
from solver.quoting import brief

Array = npt.NDArray[np.float64]

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
        """:func:`solver.poker.handclass.classify_hands` of ``player``'s hands on ``board``
        (``node``'s), computed once per node."""
        from solver.poker.handclass import classify_hands

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
        from solver.poker.handclass import DRAWS, MADE

        if key in MADE or key in DRAWS:
            made, draws = tables.classes(node, player, board)
            picked = made == MADE.index(key) if key in MADE else draws[:, DRAWS.index(key)]
            picked = np.asarray(picked, dtype=bool)
        else:
            from solver.poker.ranges import RangeError, parse_range

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


def _named_hands(
    tables: _HandTables,
    player: int,
    cmap: list[int],
    mix: Mapping[Any, Any],
    actions: list[str],
    valid: npt.NDArray[np.bool_],
) -> tuple[npt.NDArray[np.int64], Array] | None:
    """A per-hand mix that names single hands only (besides ``"*"``), resolved in one numpy
    pass: the hands (stored frame, (n,)) and their mixes ((n, len(actions)), each row
    :func:`_mix`'s vector, the same sums and divisions). None when any entry is not a plain
    hand name with a non-empty ``{action: float or int}`` over ``actions`` that is a valid
    mix of a hand the node can hold — :func:`_per_entry` then resolves the line one entry at
    a time and names the first bad one."""
    by_name = tables.by_name[player]
    keys = [k for k in mix if k != EVERY_OTHER_HAND]
    if not keys or not set(map(type, keys)) <= {str}:
        return None
    picks = list(map(by_name.get, keys))
    mixes = list(map(mix.__getitem__, keys))
    if None in picks or not set(map(type, mixes)) <= {dict} or not all(mixes):
        return None
    names = list(chain.from_iterable(mixes))
    values = list(chain.from_iterable(map(dict.values, mixes)))
    if not set(map(type, names)) <= {str} or not set(map(type, values)) <= {float, int}:
        return None
    column = {a: i for i, a in enumerate(actions)}
    cols = list(map(column.get, names))
    if None in cols:
        return None
    try:
        probs = np.array(values, dtype=np.float64)  # float(int) for ints, as _number
    except OverflowError:
        return None
    if not (np.isfinite(probs).all() and (probs >= 0).all()):
        return None
    counts = np.fromiter(map(len, mixes), dtype=np.int64, count=len(mixes))
    out = np.zeros((len(keys), len(actions)))
    out[np.repeat(np.arange(len(keys)), counts), np.array(cols, dtype=np.int64)] = probs
    total = out.sum(axis=1)  # each row summed as _mix sums its vector (contiguous rows)
    if (np.abs(total - 1.0) > TOLERANCE).any():
        return None
    hands = tables.images(player, cmap)[np.array(picks, dtype=np.int64)]
    if (hands < 0).any() or not valid[hands].all() or np.unique(hands).size != hands.size:
        return None
    return hands, out / total[:, None]


def _per_entry(
    tables: _HandTables,
    node: int,
    player: int,
    line: str,
    cmap: list[int],
    mix: Mapping[Any, Any],
    actions: list[str],
    valid: npt.NDArray[np.bool_],
    table: Array,
    locked: npt.NDArray[np.bool_],
) -> None:
    """Fill ``table`` (A, H) and ``locked`` (H,) from a per-hand mix one entry at a time, in
    the mix's order (a later entry overrides an earlier one's hands); LockError names the
    first entry that cannot be applied."""
    board = board_at(tables.game, node)
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
    check_json: dict[str, None] = {}  # lines whose entries are not known to be JSON-able
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
        elif (
            isinstance(mix, Mapping)
            and mix
            and all(type(v) is dict or isinstance(v, Mapping) for v in mix.values())
        ):
            named = _named_hands(tables, player, cmap, mix, actions, valid)
            if named is None:  # ranges, classes or a doubtful entry: one entry at a time
                _per_entry(tables, node, player, line, cmap, mix, actions, valid, table, locked)
                check_json[line] = None
            else:
                hands, rows = named
                table[:, hands] = rows.T
                locked[hands] = True
                if EVERY_OTHER_HAND in mix:
                    rest = mix[EVERY_OTHER_HAND]
                    others = valid & ~locked
                    table[:, others] = _mix(line, EVERY_OTHER_HAND, actions, rest)[:, None]
                    locked |= others
                    check_json[line] = None
            saved[line] = {str(k): dict(v) for k, v in mix.items()}
        else:
            if isinstance(mix, Mapping) and any(isinstance(v, Mapping) for v in mix.values()):
                raise LockError(line, "mixes {action: probability} with {hand: mix} entries")
            vec = _mix(line, None, actions, mix)
            table[:] = vec[:, None]
            locked = valid.copy()
            saved[line] = dict(mix)
            check_json[line] = None
        node_flag[node] = 1
        hand_flag[ioff : ioff + nh] = locked
        strategy[off : off + na * nh] = np.where(locked[None, :], table, 0.0).reshape(-1)
    json.dumps({k: saved[k] for k in check_json})  # JSON-able, as saved solves keep it
    return LockSet(Locks(node_flag, hand_flag, strategy), saved)


def resolve(game: Game, locks: Mapping[Any, Any] | LockSet, average: Array | None) -> LockSet:
    """``locks`` resolved against ``game``: a :class:`LockSet` as it is, text through
    :func:`build_locks` ("solved" locks take ``average``)."""
    return locks if isinstance(locks, LockSet) else build_locks(game, locks, average)


def lock_engine(
    engine: Any, locks: Mapping[Any, Any] | LockSet | None, average: Array | None = None
) -> LockSet | None:
    """Lock ``engine`` (a full-width :class:`~solver.cfr.engine.Engine`) from now on with
    ``locks`` as users write them (None or ``{}``: unlock everything); "solved" locks take
    ``average`` (A,), by default the engine's current average strategy. Returns the locks;
    :class:`LockError` names the line and hand of a bad one."""
    if not locks:
        return engine.lock(None)
    avg = engine.average_strategy() if average is None else average
    return engine.lock(resolve(engine.game, locks, avg))
