"""The engine on a three-way hold'em river spot (issue 49; docs/multiway.md): the
:class:`~solver.cfr.multi_engine.MultiEngine` — the same passes, rules, best responses and
evaluation — over :func:`~solver.cfr.holdem3_build.build_holdem3`'s arrays (terminals by the
strength-order sweep, hand lists of each player's own length) instead of a MultiGame's deal
list. Its measures are the engine's own walk (:meth:`MultiEngine.engine_report`)."""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from solver.cfr.holdem3_build import build_holdem3
from solver.cfr.layout import empty_leaves, make_storage
from solver.cfr.locks import no_locks
from solver.cfr.multi_build import MultiBuilt, multi_scratch
from solver.cfr.multi_engine import MultiEngine
from solver.cfr.pruning.state import no_rbp
from solver.cfr.rules import Rule
from solver.games.holdem3 import River3Setup, River3Spec
from solver.games.holdem3_locks import build_holdem3_locks
from solver.games.model import DECISION
from solver.games.multi_locks import MultiLocks
from solver.games.nashconv import NashReport

__all__ = ["River3Engine", "lock_river3"]

Array = npt.NDArray[np.float64]


class River3Engine(MultiEngine):
    """A solve of a three-way river spot under ``rule`` (float64, one thread) — or of a turn
    spot built by :func:`~solver.cfr.holdem3_turn_build.build_turn3`. Profiles are
    flat vectors in the built game's ``[action, hand]`` blocks (player ``p``'s nodes with its
    ``n_p`` hands). Locks for any player as MultiEngine's (:meth:`lock` with
    :func:`lock_river3`'s resolved text, :meth:`lock_cells`, :meth:`lock_players`)."""

    def __init__(self, spot: River3Spec | River3Setup | MultiBuilt, rule: Rule) -> None:
        built = spot if isinstance(spot, MultiBuilt) else build_holdem3(spot)
        self.built = built
        self.players = int(built.arrays.multi.players)
        self.game = built.game
        self.arrays = built.arrays
        self.rule = rule
        self.storage = make_storage(self.game, rule, "float64")
        self.scratch = multi_scratch(self.game, self.players)
        self._leaves = empty_leaves()
        self._rb = no_rbp()
        self._locks = no_locks()
        self._locked_cells = np.zeros(0, dtype=bool)
        self.locked_players: tuple[int, ...] = ()
        self.locks: MultiLocks | None = None
        self.iteration = 0
        self.nodes_touched = 0
        # each traverser's root values of its last pass: (P, H) chips, H the longest hand list
        self.pass_values = np.zeros((self.players, self.scratch.value.shape[1]))

    def report(self) -> NashReport:
        """The average profile's values, best responses and Nash distances (the walk's)."""
        return self.engine_report()

    def _checked(self, sigma: npt.ArrayLike) -> Array:
        arr = np.asarray(sigma, dtype=np.float64)
        size = self.game.action_size
        if arr.shape != (size,):
            raise ValueError(f"profile: expected {size} probabilities, got shape {arr.shape}")
        if not np.all(np.isfinite(arr)) or np.any(arr < 0.0):
            raise ValueError("profile: probabilities must be finite and not negative")
        t, nh = self.game.tree, self.game.hands.num_hands
        for n in np.flatnonzero(t.kind == DECISION):
            off, na, h = int(t.offset[n]), int(t.num_children[n]), int(nh[t.player[n]])
            if not np.allclose(arr[off : off + na * h].reshape(na, h).sum(axis=0), 1.0):
                raise ValueError(f"profile: node {n}'s probabilities do not sum to 1 per hand")
        return arr


def lock_river3(
    engine: River3Engine, locks: object, profile: npt.ArrayLike | None = None
) -> MultiLocks | None:
    """Lock ``engine`` (a three-way river or turn spot's) with ``locks`` — lock text ``{line:
    mix}`` for any player (:mod:`solver.games.holdem3_locks`; None or ``{}``: none) or
    resolved :class:`MultiLocks` — from now on; "solved" locks take ``profile`` (the
    engine's ``action_size``,). Returns the locks applied. A bad lock: MultiLockError (a
    ValueError) naming its line and hand; TypeError when ``locks`` is no mapping."""
    if locks is None or (isinstance(locks, Mapping) and not locks):
        engine.lock(None)
        return None
    if not isinstance(locks, (Mapping, MultiLocks)):
        raise TypeError(f"locks must be {{line: mix}} (a mapping), got {type(locks).__name__}")
    if isinstance(locks, Mapping):
        locks = build_holdem3_locks(engine.game, locks, profile)
    if locks.cells.shape != (engine.game.action_size,):
        raise ValueError("locks: resolved against another game")
    engine.lock(locks)
    return locks
