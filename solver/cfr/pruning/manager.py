"""The work regret-based pruning does between iterations (the notes are in
:mod:`solver.cfr.pruning`): interval RBP's catch-ups, Total RBP's checks and catch-ups, the
sums release and the free-opponent bookkeeping, and what a pruned solve still holds.

:class:`RegretPruning` owns its state (:class:`~solver.cfr.pruning.state.RBPState`, passed
to the walk beside the solve's storage) and its own scratch; it sees the solve's storage
only when the engine hands it over (:meth:`RegretPruning.after`), and never the engine.
"""

from __future__ import annotations

import math

import numpy as np
import numpy.typing as npt

from solver.cfr.drive import run_pass
from solver.cfr.layout import (
    MODE_BR,
    MODE_UPDATE,
    NO_DRAWS,
    PRUNE_INTERVAL,
    PRUNE_TOTAL,
    PassFlags,
    Storage,
    empty_leaves,
    game_arrays,
    make_scratch,
    pass_flags,
    placeholder_storage,
)
from solver.cfr.locks import no_locks
from solver.cfr.pruning.bounds import (
    compatible_mass,
    max_opponent_reach,
    payoff_bounds,
    subtree_cells,
)
from solver.cfr.pruning.kernels import (
    blocked_nodes,
    dead_hands,
    held_entries,
    rebuild_finish,
    rebuild_start,
    release_sums,
    total_reset,
    total_starts,
)
from solver.cfr.pruning.state import RBPState
from solver.cfr.reach import chance_factors, own_reach
from solver.cfr.rules import AVG_WEIGHT, NUM_COEFFICIENTS, REGRET_WEIGHT, Rule
from solver.cfr.update import average_strategy
from solver.cfr.walk import SolveState
from solver.games.model import Game

Array = npt.NDArray[np.float64]
MODES = ("interval", "total")
_NO_STORAGE = placeholder_storage()  # what a pass against a given profile is handed
_NO_LOCKS = no_locks()  # regret-based pruning does not combine with locks (check_options)


class RegretPruning:
    """The interval or Total RBP of one solve of ``game`` under ``rule``.

    ``check_every``: iterations between Total RBP's prune checks (each costs a best-response
    pass per player, counted in nodes touched); ``threshold``: the constant C of the sums
    release (0 keeps every sum); ``max_windows``: interval RBP's window slots (each holds one
    opponent-reach vector; a new window waits for a free slot); ``margin``: the iterations a
    pruning must be able to last when it starts (default: ``check_every`` for interval RBP,
    0 — the seed's eq. (5) — for Total RBP); ``free_opponent``: Total RBP also frees the
    other player's regrets at the nodes the pruning player never reaches while pruned, and
    rebuilds them from a CBR when it comes back (our extension). ``itemsizes``: bytes of one
    regret and one strategy-sum entry of the solve's storage (for :meth:`held_bytes`).
    The engine validates the options first (:func:`solver.cfr.options.check_options`)."""

    def __init__(
        self,
        game: Game,
        rule: Rule,
        mode: str,
        check_every: int = 10,
        threshold: float = 0.0,
        max_windows: int | None = None,
        margin: float | None = None,
        free_opponent: bool = False,
        itemsizes: tuple[int, int] = (8, 8),
    ) -> None:
        if mode not in MODES:
            raise ValueError(f"regret-based pruning is 'interval' or 'total', got {mode!r}")
        self.game = game
        self.rule = rule
        self.mode = mode
        self.code = PRUNE_INTERVAL if mode == "interval" else PRUNE_TOTAL
        self.check_every = int(check_every)
        # interval RBP starts a window only when it can last ``check_every`` iterations;
        # Total RBP prunes on eq. (5) as the seed states it (slack 0): a slack of 10
        # iterations held Leduc-5's CFR at 66 % of the regrets after 10,000 iterations
        # against 40 % without, at the same exploitability (BENCHMARKS.md)
        if margin is None:
            margin = float(check_every) if mode == "interval" else 0.0
        self.margin = float(margin)
        self.threshold = float(threshold)
        self.free_opponent = bool(free_opponent)
        self.floor = rule.properties.floors_regrets
        self.itemsizes = itemsizes
        n = game.num_nodes
        h = int(max(game.hands.cards.shape[1], 1))
        umax, lmin = payoff_bounds(game)
        if max_windows is None:
            max_windows = max(1, min(n, (game.action_size // h) // 4 + 8))
        slots = max_windows if mode == "interval" else 1
        free = np.zeros(slots + 1, dtype=np.int32)
        if mode == "interval":
            free[0] = slots
            free[1:] = np.arange(slots, dtype=np.int32)
        total = mode == "total"
        one = np.zeros(1)
        self.state = RBPState(
            pruned=np.zeros(game.action_size, dtype=np.int8),
            vsum=np.zeros(game.info_size if total else 1),
            umax=umax,
            lmin=lmin,
            pimax=max_opponent_reach(game) if not total else np.zeros(1),
            win_slot=np.full(n, -1, dtype=np.int32),
            win=np.zeros((slots, h)),
            free=free,
            ctl=np.zeros(2 * game.action_size + 2 * n + 1, dtype=np.int64),
            cbv=one,
            cbv_node=one.copy(),
            reach_mass=one.copy(),
        )
        self.sums_freed = np.zeros(game.action_size if total else 1, dtype=np.int8)
        self.catchups = 0
        self.starts = 0
        self.released = 0
        self._wsum = (0, 0.0)  # (T, W_T): the average's weights summed to iteration T
        self._blocked = np.zeros((2, n), dtype=np.int8)  # blocked_nodes per player
        self._cf = chance_factors(game)  # per node, for the catch-ups' opponent reach
        self.scratch = make_scratch(game)

    # --- what the walk needs ----------------------------------------------------------------
    def flags(self, trav: int = 0) -> PassFlags:
        """The flags of the solve's CFR passes (player ``trav``)."""
        return pass_flags(trav, MODE_UPDATE, prune=self.code, margin=self.margin)

    # --- hooks called by the engine ---------------------------------------------------------
    def chunk(self, iteration: int, n: int) -> int:
        """How many of the next ``n`` iterations to run before the next Total RBP check."""
        if self.mode != "total":
            return n
        to_check = self.check_every - iteration % self.check_every
        return min(n, to_check)

    def after(self, iteration: int, st: Storage) -> int:
        """Work after a chunk ending at ``iteration`` on the solve's storage ``st``:
        catch-ups the walk asked for, then (Total RBP, on its schedule) a prune check.
        Returns the nodes touched doing it."""
        touched = self._catch_up(iteration, st)
        if self.mode == "total" and iteration % self.check_every == 0:
            touched += self.check(iteration, st)
            if self.free_opponent:
                self.sync_blocked()
        return touched

    # --- catch-ups --------------------------------------------------------------------------
    def _requests(self) -> dict[int, set[int]]:
        """The catch-ups the walk asked for: child → hands (-1: every hand)."""
        ctl = self.state.ctl
        count = int(ctl[0])
        out: dict[int, set[int]] = {}
        for r in range(count):
            out.setdefault(int(ctl[2 * r + 1]), set()).add(int(ctl[2 * r + 2]))
        ctl[0] = 0
        return out

    def _catch_up(self, iteration: int, st: Storage) -> int:
        touched = 0
        while True:  # an interval catch-up walk can ask for nested catch-ups
            req = self._requests()
            if not req:
                return touched
            self.catchups += sum(len(v) for v in req.values())
            if self.mode == "interval":
                touched += sum(self._interval_catchup(c, iteration, st) for c in sorted(req))
            else:
                touched += self._total_catchup(req, iteration, st)

    def _interval_catchup(self, child: int, iteration: int, st: Storage) -> int:
        """One update of the child's subtree with the rule's next row against the opponent
        reach summed over its window; the action's regret R = bound − w·(U·Σπ − Σ v(I, a))
        (w the rule's constant regret weight)."""
        g = self.game
        t = g.tree
        rb = self.state
        slot = int(rb.win_slot[child])
        if slot < 0:
            return 0
        node = int(g.parents[child])
        p = int(t.player[node])
        k = child - int(t.first_child[node])
        window = rb.win[slot].copy()
        co = self.rule.coefficients(np.array([float(iteration + 1)]))[0]
        fl = pass_flags(p, MODE_UPDATE, prune=self.code, nostart=True, margin=self.margin)
        sc = self.scratch
        sc.reach[0, :] = window
        state = SolveState(st, rb, _NO_LOCKS)
        n = run_pass(
            game_arrays(g), state, child, st.strategy, co, NO_DRAWS, fl, sc, empty_leaves()
        )
        touched = int(n)
        values = sc.value[0, : g.num_hands[p]].copy()
        mass = compatible_mass(g, node, p, window)
        off, _na, nh = g.block(node)
        cells = slice(off + k * nh, off + (k + 1) * nh)
        valid = g.valid_hands(node, p)
        bound = np.asarray(st.regrets[cells], dtype=np.float64)
        w = co[REGRET_WEIGHT]
        st.regrets[cells] = np.where(valid, bound - w * (rb.umax[child] * mass) + w * values, 0.0)
        rb.pruned[cells] = 0
        rb.win_slot[child] = -1
        rb.free[0] += 1
        rb.free[rb.free[0]] = slot
        return touched

    def _open_record(self) -> RBPState:
        """Give the state the arrays a RECORD pass fills (held only during Total RBP's
        checks and catch-ups, so they add nothing to the memory the solve holds)."""
        g = self.game
        self.state = self.state._replace(
            cbv=np.zeros(g.action_size),
            cbv_node=np.zeros(g.info_size),
            reach_mass=np.zeros(g.info_size),
        )
        return self.state

    def _close_record(self) -> None:
        one = np.zeros(1)
        self.state = self.state._replace(cbv=one, cbv_node=one.copy(), reach_mass=one.copy())

    def _record(self, st: Storage, sigma: Array, player: int, node: int, opp_reach: Array) -> int:
        """A best-response pass for ``player`` from ``node`` recording CBVs into the state's
        ``cbv`` arrays (zeroed first: what the walk skips has CBV 0)."""
        g = self.game
        rb = self.state
        a0, a1, i0, i1 = subtree_cells(g, node)
        rb.cbv[a0:a1] = 0.0
        rb.cbv_node[i0:i1] = 0.0
        sc = self.scratch
        sc.reach[0, :] = 0.0
        sc.reach[0, : opp_reach.shape[0]] = opp_reach
        fl = pass_flags(player, MODE_BR, record=True)
        co = np.zeros(NUM_COEFFICIENTS)
        # (a pass against a given profile reads no storage: the placeholder keeps one type)
        store = st if sigma.shape[0] == 0 else _NO_STORAGE  # (empty: the average of st)
        state = SolveState(store, rb, _NO_LOCKS)
        n = run_pass(game_arrays(g), state, node, sigma, co, NO_DRAWS, fl, sc, empty_leaves())
        return int(n)

    def average(self, st: Storage) -> Array:
        """The average strategy (A,) of the storage's sums (what the checks respond to)."""
        g = self.game
        out = np.empty(g.action_size)
        average_strategy(g.tree, g.hands, st.cumulative, out)
        return out

    def root_values(self, st: Storage, sigma: Array) -> list[Array]:
        """Per player p, CBV(I, a) (A,) of p's best response to ``sigma`` from the root, as
        Total RBP's check records them (for analysis of what it can prune)."""
        g = self.game
        out = []
        rb = self._open_record()
        try:
            for p in range(2):
                root = g.hands.norm * g.hands.weights[1 - p, : g.num_hands[1 - p]]
                self._record(st, sigma, p, 0, root)
                out.append(rb.cbv.copy())
        finally:
            self._close_record()
        return out

    def weight_sum(self, iteration: int) -> float:
        """W_T = Σ_{t≤T} w_t, the average strategy's weights (w_t = 1 for CFR, t for CFR+):
        Total RBP's sums Σ_t w_t·v^t(I) and bounds are in these units, and eqs. (5)–(8) use
        W_T where the seed (uniform weights) has T."""
        done, total = self._wsum
        if iteration < done:
            done, total = 0, 0.0
        if iteration > done:
            t = np.arange(done + 1, iteration + 1, dtype=np.float64)
            total += float(self.rule.coefficients(t)[:, AVG_WEIGHT].sum())
        self._wsum = (iteration, total)
        return total

    def _total_catchup(self, req: dict[int, set[int]], iteration: int, st: Storage) -> int:
        """Eqs. (7)–(8): rebuild each requested (action, hand)'s subtree from a CBR against
        the opponent's average strategy, with W_T (:meth:`weight_sum`) for T."""
        avg = self.average(st)
        T = self.weight_sum(iteration)
        self._open_record()
        try:
            touched = self._rebuild(req, avg, T, st)
            if self.free_opponent:
                touched += self._reopen(avg, T, iteration, st)
        finally:
            self._close_record()
        return touched

    def _rebuild(self, req: dict[int, set[int]], avg: Array, T: float, st: Storage) -> int:
        g = self.game
        children = np.array(sorted(req), dtype=np.int64)
        masks = np.zeros((max(children.size, 1), int(max(g.hands.cards.shape[1], 1))))
        for q, child in enumerate(children):
            hands = req[int(child)]
            if -1 in hands:
                masks[q, :] = 1.0
            else:
                masks[q, sorted(hands)] = 1.0
        # per child: a RECORD best-response pass against ``avg`` inside its subtree between
        # two kernels (the pass reads no storage: the placeholder keeps the walk's types)
        sc = self.scratch
        mask = np.zeros(masks.shape[1])
        co = np.zeros(NUM_COEFFICIENTS)
        leaves = empty_leaves()
        touched = 0
        for q, child in enumerate(children.tolist()):
            if not rebuild_start(g.tree, g.hands, g.boards, g.parents, self.state, sc, avg,
                                 self._cf, child, masks[q], mask):  # fmt: skip
                continue
            p = int(g.tree.player[g.parents[child]])
            fl = pass_flags(p, MODE_BR, record=True)
            state = SolveState(_NO_STORAGE, self.state, _NO_LOCKS)
            touched += run_pass(game_arrays(g), state, child, avg, co, NO_DRAWS, fl, sc, leaves)
            rebuild_finish(g.tree, g.hands, g.parents, st, self.state, sc, avg, child, mask, T,
                           self.floor, self.sums_freed)  # fmt: skip
        return touched

    def sync_blocked(self) -> npt.NDArray[np.int8]:
        """Recompute the nodes each player never reaches (:func:`blocked_nodes`, from the
        pruned flags); returns the previous state."""
        g = self.game
        before = self._blocked.copy()
        for p in range(2):
            dead = dead_hands(g.tree, g.hands, self.state.pruned, p)
            self._blocked[p] = blocked_nodes(g.tree, g.hands, g.boards, dead, p)
        return before

    def _reopen(self, avg: Array, T: float, iteration: int, st: Storage) -> int:
        """After catch-ups: where player p reaches a node again, the other player's
        regrets below it (not held while p never came) are rebuilt as eqs. (7)–(8) do for
        the pruning player: from a CBR against p's average strategy (value sums, and the
        regrets for CFR); for RM+ rules the regrets instead resume the other player's
        average strategy (:func:`total_reset` with a scale), which their floored,
        short-memory regrets need."""
        g = self.game
        before = self.sync_blocked()
        touched = 0
        h = int(max(g.hands.cards.shape[1], 1))
        ones = np.ones(h)
        reach = np.zeros(h)
        # RM+ resumes q's average instead of the CBR there (BENCHMARKS.md)
        scale = math.sqrt(iteration) if self.floor else 0.0
        for p in range(2):
            opened = (before[p] != 0) & (self._blocked[p] == 0)
            if not opened.any():
                continue
            q = 1 - p
            for node in np.flatnonzero(opened):
                par = int(g.parents[node])
                if par >= 0 and opened[par]:
                    continue  # rebuilt from the top of the reopened region
                reach[:] = 0.0
                own_reach(g.tree, g.hands, g.boards, g.parents, avg, int(node), p, reach)
                reach *= self._cf[node]
                touched += self._record(st, avg, q, int(node), reach[: g.num_hands[p]])
                total_reset(g.tree, g.hands, st, self.state, int(node), q, T, self.floor, ones,
                            avg, scale)  # fmt: skip
        return touched

    # --- Total RBP's check ------------------------------------------------------------------
    def check(self, iteration: int, st: Storage) -> int:
        """Eq. (5) for every unpruned cell of both players, then the sums release. Returns
        the nodes touched by the best-response passes."""
        g = self.game
        T = self.weight_sum(iteration)
        if T <= 0.0:  # nothing averaged yet (an averaging delay): nothing to compare with
            return 0
        avg = self.average(st)
        # a slack of ``margin`` iterations, each weighing what iteration T does
        margin = self.margin * float(
            self.rule.coefficients(np.array([float(iteration)]))[0, AVG_WEIGHT]
        )
        touched = 0
        rb = self._open_record()
        try:
            for p in range(2):  # (a record pass keeps only its own player's values)
                root = g.hands.norm * g.hands.weights[1 - p, : g.num_hands[1 - p]]
                touched += self._record(st, avg, p, 0, root)
                dead = dead_hands(g.tree, g.hands, rb.pruned, p)
                n = total_starts(g.tree, g.hands, g.boards, st, self.state, dead, T, p, margin,
                                 self.floor)  # fmt: skip
                self.starts += int(n)
        finally:
            self._close_record()
        if self.threshold > 0:
            limit = self.threshold / math.sqrt(iteration)
            for p in range(2):
                dead = dead_hands(g.tree, g.hands, self.state.pruned, p)
                n = release_sums(g.tree, g.hands, st, self.state, dead, avg, p, limit,
                                 self.sums_freed)  # fmt: skip
                self.released += int(n)
        return touched

    # --- what the solve holds ---------------------------------------------------------------
    def held_bytes(self) -> int:
        """Bytes of regrets and strategy sums still needed plus the pruning bookkeeping."""
        rb = self.state
        r, s = self.held_entries()
        extra = sum(
            int(a.nbytes)
            for a in (rb.pruned, rb.vsum, rb.umax, rb.lmin, rb.pimax, rb.win_slot, rb.win)
        )
        if self.free_opponent:
            extra += int(self._blocked.nbytes)
        return int(r * self.itemsizes[0] + s * self.itemsizes[1]) + extra

    def held_entries(self) -> tuple[int, int]:
        """(regret entries, strategy-sum entries) still needed (each of ``action_size``)."""
        g = self.game
        pruned = self.state.pruned
        freed = self.sums_freed
        if freed.shape[0] != pruned.shape[0]:
            freed = np.zeros(pruned.shape[0], dtype=np.int8)
        blocked = self._blocked if self.free_opponent else np.zeros_like(self._blocked)
        r, s = held_entries(g.tree, g.hands, pruned, self.mode == "total", freed, blocked)
        return int(r), int(s)

    def stats(self) -> dict[str, int]:
        r, s = self.held_entries()
        return {
            "pruned_cells": int(np.count_nonzero(self.state.pruned)),
            "catchups": self.catchups,
            "starts": self.starts,
            "released": self.released,
            "regrets_held": r,
            "sums_held": s,
        }
