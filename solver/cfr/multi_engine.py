"""The vector engine on a game of three (or more) players (issue 49; docs/multiway.md).

The same walk as heads-up (:mod:`solver.cfr.walk`, its multi-player steps in
:mod:`solver.cfr.multi`) over the arrays :func:`~solver.cfr.multi_build.build_multi` makes of
a :class:`~solver.games.multiway.MultiGame`; the full-width rules' update step unchanged.

An iteration is ``P`` passes, one per traverser in turn (alternating updates): the pass of
traverser ``t`` updates ``t``'s regrets with its counterfactual values, the others playing
their current strategies, and adds player ``t − 1 (mod P)``'s average-strategy sums (its own
reach times its current strategy, weighted as the rule says) — so, as in the heads-up engine,
each player's strategy of an iteration enters its average once, in the pass that follows
its own update. Heads-up is the case ``P`` = 2 of the same order.

How close a profile is to equilibrium is measured by :mod:`solver.games.nashconv` (each
player's Nash distance and NashConv), not by a two-player exploitability.
"""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from solver.cfr.drive import run_pass
from solver.cfr.layout import (
    MODE_BR,
    MODE_EVAL,
    MODE_UPDATE,
    NO_DRAWS,
    empty_leaves,
    make_storage,
    pass_flags,
    placeholder_storage,
)
from solver.cfr.locks import Locks, no_locks
from solver.cfr.multi_build import build_multi, multi_scratch
from solver.cfr.pruning.state import no_rbp
from solver.cfr.rules import NUM_COEFFICIENTS, Rule
from solver.cfr.update import average_strategy, regret_matching_all
from solver.cfr.walk import AVERAGE, SolveState
from solver.games.model import DECISION
from solver.games.multi_locks import MultiLocks
from solver.games.multiway import MultiGame
from solver.games.nashconv import PROFILE_TOL, NashReport, check_profile, nash_report

Array = npt.NDArray[np.float64]

__all__ = ["MultiEngine"]

_NO_RULE = np.zeros(NUM_COEFFICIENTS)  # (what a best-response or evaluation pass reads)


class MultiEngine:
    """Regrets, current strategies and average-strategy sums of one solve of ``mgame`` under
    ``rule`` (float64 storage, one thread, every subtree walked). Profiles are flat vectors
    in the MultiGame's layout (:attr:`MultiGame.profile_size`)."""

    def __init__(self, mgame: MultiGame, rule: Rule) -> None:
        if mgame.num_players < 3:  # (two players: the heads-up games and Engine)
            raise ValueError(
                f"players: the multi-player engine takes 3 or more, got {mgame.num_players}"
            )
        self.mgame = mgame
        self.players = int(mgame.num_players)
        built = build_multi(mgame)
        self.game = built.game
        self.arrays = built.arrays
        self.rule = rule
        self.storage = make_storage(self.game, rule, "float64")
        self.scratch = multi_scratch(self.game, self.players)
        self._leaves = empty_leaves()
        self._rb = no_rbp()
        self._locks = no_locks()
        self._locked_cells = np.zeros(0, dtype=bool)
        self.locked_players: tuple[int, ...] = ()  # whole players locked (lock_players)
        self.locks: MultiLocks | None = None  # the lock text's locks (lock)
        self.iteration = 0
        self.nodes_touched = 0
        # each traverser's root values of its last pass: (P, H) chips, chance-weighted
        self.pass_values = np.zeros((self.players, mgame.num_hands))

    # ----- locks -----------------------------------------------------------------------------
    def lock_players(self, players: Iterable[int], profile: npt.ArrayLike) -> None:
        """Lock every information set of ``players`` to its mix in ``profile`` (a profile of
        the MultiGame, checked): from now on they play it as current and average strategy
        and are never updated (:mod:`solver.cfr.locks`). An empty ``players`` unlocks."""
        who = tuple(sorted({int(p) for p in players}))
        bad = [p for p in who if p not in range(self.players)]
        if bad:
            raise ValueError(f"locks: player {bad[0]} is not one of 0 to {self.players - 1}")
        if not who:
            self.lock(None)
            return
        sigma = self._checked(profile)
        t, nh = self.game.tree, self.game.hands.num_hands  # (each player its own hands)
        cells = np.zeros(self.game.action_size, dtype=bool)
        for n in np.flatnonzero((t.kind == DECISION) & np.isin(t.player, who)):
            off, na = int(t.offset[n]), int(t.num_children[n])
            cells[off : off + na * int(nh[t.player[n]])] = True
        self.lock_cells(cells, sigma)
        self.locked_players = who

    def lock(self, locks: MultiLocks | None) -> None:
        """Lock the information sets of ``locks`` (resolved from lock text by
        :func:`solver.games.multi_locks.build_multi_locks`) from now on; None unlocks."""
        if locks is None:
            self._locks, self.locked_players, self.locks = no_locks(), (), None
            self._locked_cells = np.zeros(0, dtype=bool)
            return
        self.lock_cells(locks.cells, locks.strategy)
        self.locks = locks

    def lock_cells(self, cells: npt.ArrayLike, strategy: npt.ArrayLike) -> None:
        """Lock the information sets whose ``[action, hand]`` cells ``cells`` (profile_size,
        bool) marks — whole sets, every action of a locked hand — to ``strategy``'s mix there
        (profile_size,; each locked set's column finite, ≥ 0, summing to 1): they play it as
        current and average strategy and are never updated. Replaces any earlier locks."""
        mask = np.asarray(cells, dtype=bool)
        sigma = np.asarray(strategy, dtype=np.float64)
        size = self.game.action_size
        if mask.shape != (size,) or sigma.shape != (size,):
            raise ValueError(f"locks: cells and strategy must have shape ({size},)")
        t, nh = self.game.tree, self.game.hands.num_hands  # (each player its own hands)
        node = np.zeros(self.game.num_nodes, dtype=np.int8)
        hand = np.zeros(self.game.info_size, dtype=np.int8)
        for n in np.flatnonzero(t.kind == DECISION):
            off, na, h = int(t.offset[n]), int(t.num_children[n]), int(nh[t.player[n]])
            block = mask[off : off + na * h].reshape(na, h)
            on = block.any(axis=0)
            if not on.any():
                continue
            where = f"node {int(n)} ({' '.join(self.game.history(int(n))) or 'root'})"
            if not np.array_equal(block.all(axis=0), on):
                raise ValueError(f"locks: at {where} a hand is locked on some actions only")
            mix = sigma[off : off + na * h].reshape(na, h)[:, on]
            if not np.all(np.isfinite(mix)) or np.any(mix < 0.0):
                raise ValueError(f"locks: at {where} the mix is not probabilities")
            if np.any(np.abs(mix.sum(axis=0) - 1.0) > PROFILE_TOL):
                raise ValueError(f"locks: at {where} the mix does not sum to 1")
            node[n] = 1
            hand[t.ioffset[n] : t.ioffset[n] + h] = on
        if not node.any():
            self.lock(None)
            return
        self._locks = Locks(node, hand, np.where(mask, sigma, 0.0))
        self._locked_cells = mask.copy()
        self.locked_players, self.locks = (), None
        st = self.storage
        if st.strategy.shape[0] > 1:  # a stored strategy plays the locked mixes from now on
            st.strategy[mask] = sigma[mask]

    # ----- iterations ------------------------------------------------------------------------
    def iterate(self, n: int = 1) -> int:
        """Run ``n`` iterations (``P`` passes each); returns the nodes visited."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"iterations must be a whole number ≥ 0, got {n!r}")
        if n == 0:
            return 0
        t = np.arange(self.iteration + 1, self.iteration + n + 1, dtype=np.float64)
        coefs = np.ascontiguousarray(self.rule.coefficients(t))
        st = self.storage
        state = SolveState(st, self._rb, self._locks)
        touched = 0
        for k in range(int(n)):
            for trav in range(self.players):
                fl = pass_flags(trav, MODE_UPDATE)
                touched += run_pass(self.arrays, state, 0, st.strategy, coefs[k], NO_DRAWS, fl,
                                    self.scratch, self._leaves)  # fmt: skip
                nh = int(self.game.hands.num_hands[trav])  # (its own: players' may differ)
                self.pass_values[trav, :nh] = self.scratch.value[0, :nh]
            self.iteration += 1
        self.nodes_touched += touched
        return touched

    # ----- profiles and measures -------------------------------------------------------------
    def _apply_locks(self, sigma: Array) -> Array:
        if self._locked_cells.size:
            sigma[self._locked_cells] = self._locks.strategy[self._locked_cells]
        return sigma

    def average_profile(self) -> Array:
        """The average strategy (profile_size,): the sums normalised per information set,
        uniform where a set's sums are 0; locked sets on their mixes."""
        out = np.empty(self.game.action_size)
        average_strategy(self.game.tree, self.game.hands, self.storage.cumulative, out)
        return self._apply_locks(out)

    def current_profile(self) -> Array:
        """The current strategy (profile_size,): what the next iteration plays."""
        if self.rule.stores_strategy:
            return self.storage.strategy.astype(np.float64)
        out = np.empty(self.game.action_size)
        regret_matching_all(self.game.tree, self.game.hands, self.storage.regrets, out,
                            self._rb.pruned)  # fmt: skip
        return self._apply_locks(out)

    def current_values(self) -> Array:
        """(P,): each player's expected chips under the profile its last pass played (the
        sum of its root counterfactual values)."""
        return self.pass_values.sum(axis=1)

    def report(self) -> NashReport:
        """The average profile's per-player values, best-response values, Nash distances and
        NashConv, by the independent evaluator (:func:`solver.games.nashconv.nash_report`)."""
        return nash_report(self.mgame, self.average_profile())

    # ----- the engine's own measures (the walk's best-response and evaluation passes) -------
    def root_values(self, player: int, best_response: bool, sigma: Array | None = None) -> Array:
        """``player``'s counterfactual values (H,) at the root, chance included, when every
        player plays ``sigma`` (a profile of the MultiGame; None: the average strategy,
        normalised node by node in the walk) or ``player`` best-responds to the others' part
        of it (``MODE_BR``: the max over actions at its information sets; locked sets keep
        their mix). Their sum is the player's value."""
        if player not in range(self.players):
            raise ValueError(f"player: expected 0 to {self.players - 1}, got {player!r}")
        fl = pass_flags(player, MODE_BR if best_response else MODE_EVAL)
        if sigma is None:
            sig, st = AVERAGE, self.storage
        else:
            sig, st = (
                self._apply_locks(self._checked(sigma).copy()),
                placeholder_storage(),
            )
        state = SolveState(st, self._rb, self._locks)
        run_pass(self.arrays, state, 0, sig, _NO_RULE, NO_DRAWS, fl, self.scratch, self._leaves)
        return self.scratch.value[0, : int(self.game.hands.num_hands[player])].copy()

    def _checked(self, sigma: npt.ArrayLike) -> Array:
        """``sigma`` checked as a profile of the game (ValueError naming it)."""
        return check_profile(self.mgame, sigma)

    def engine_report(self, sigma: Array | None = None) -> NashReport:
        """:meth:`report` by the engine's own walk: ``2P`` passes (an evaluation and a best
        response per player) against ``sigma`` (None: the average strategy)."""
        value = np.array([self.root_values(p, False, sigma).sum() for p in range(self.players)])
        br = np.array([self.root_values(p, True, sigma).sum() for p in range(self.players)])
        dist = br - value
        return NashReport(value, br, dist, float(dist.sum()))

    def measure(self) -> NashReport:
        """What a check reports: :meth:`engine_report` of the average strategy."""
        return self.engine_report()
