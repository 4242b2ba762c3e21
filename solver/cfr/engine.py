"""The vector engine: the solver state of one game under one rule, and the thin validating
layer that runs the walk (:mod:`solver.cfr.walk`) over it, serially or split over threads
(:mod:`solver.cfr.parallel`), with regret-based pruning beside it when asked
(:mod:`solver.cfr.pruning`)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import numpy.typing as npt

from solver.cfr.bestresponse import best_response_values, root_player_values
from solver.cfr.drive import run_iterations
from solver.cfr.layout import (
    MODE_UPDATE,
    PRUNE_CODES,
    PRUNING,
    PassFlags,
    empty_leaves,
    game_arrays,
    make_scratch,
    make_storage,
    pass_flags,
    walk_dtype,
)
from solver.cfr.locks import LockSet, locked_cells, no_locks, restricted, same_restriction
from solver.cfr.options import CheckedOptions, SolveOptions, raise_first
from solver.cfr.parallel import make_parallel, parallel_pass, split_iterations, thread_times
from solver.cfr.pruning.manager import RegretPruning
from solver.cfr.pruning.state import no_rbp
from solver.cfr.rules import Rule
from solver.cfr.update import average_strategy, regret_matching_all
from solver.cfr.walk import AVERAGE, SolveState
from solver.games.model import Game, auto_precision

Array = npt.NDArray[np.float64]

__all__ = ["PROMOTE_AT", "PRUNING", "Engine"]

# Iterations after which an "auto" float32 solve keeps its storage in float64: float32 sums
# round each update to 2⁻²⁴ of their size, an error that grows with the iteration count;
# past ~20,000 iterations on srp-river it outgrew the exploitability (docs/engine.md).
PROMOTE_AT = 4096
# the rule's rows are computed this many iterations at a time and sliced per chunk: a call
# costs ~30 µs of NumPy whatever its length, ~4 % of a 10-iteration chunk on R1
COEF_BLOCK = 256


class Engine:
    """Regrets, strategies and sums of one solve; :meth:`iterate` runs the walk.

    The per-action arrays have shape (action_size,), laid out per decision node as
    ``[action, hand]`` blocks (see :mod:`solver.games.model`).
    """

    def __init__(
        self,
        game: Game,
        rule: Rule,
        options: SolveOptions | None = None,
        *,
        sampling: bool = False,
    ) -> None:
        """``options`` (:class:`~solver.cfr.options.SolveOptions`, the one object of a
        solve's options: ``SolveOptions(threads=2, pruning="none")``; None: the defaults, with
        pruning "partial"); the engine keeps them as :attr:`options` (pruning resolved,
        ``locks`` the locks it plays now).

        ``precision``: "float64", "float32" (regrets and sums stored in float32, and the
        CFR passes compute in float32 — reach, values, strategies, regret updates — with
        terminal sums and every exploitability check in float64:
        :mod:`solver.cfr.floats`), "compressed" (16-bit regrets and strategy sums with a
        scale per decision node, as native solvers offer: half of float32's memory) or
        "auto" (float32 for hold'em subgames past a size, float64 for smaller ones and the
        toy games: see
        :func:`~solver.games.model.auto_precision`). An "auto" float32 solve switches its
        storage to float64 after :data:`PROMOTE_AT` iterations (:meth:`promote`): float32
        strategy sums stop resolving the average's last digits in long solves, and its
        exploitability would climb instead of falling (docs/engine.md, "Storage precision").

        ``pruning``: "partial" (default) skips the subtrees the opponent reaches with zero
        probability; their buffers get the update an all-zero walk would give them, so the
        numbers are the same bit for bit and only the work (nodes touched) shrinks. "none"
        walks every subtree. "interval" and "total" add regret-based pruning (interval RBP
        for rules like CFR; Total RBP for rules like CFR and CFR+, checked every
        ``rbp_check_every`` iterations, releasing strategy sums below C/√T with C =
        ``rbp_threshold`` and, with ``rbp_free_opponent``, the other player's regrets where
        the pruning player never comes; see :mod:`solver.cfr.pruning`).

        ``sampling``: chance sampling (MCCFR-CS, Lanctot et al. 2009): each pass draws one
        card at every chance node it reaches — with probability ∝ chance weight × the cards
        a canonical child stands for, the same uniform draw for every chance node of a level
        (public chance sampling) — and weights its subtree by 1/probability, so every update
        is unbiased. Draws come from a generator seeded with ``seed``. Needs one thread.

        ``locks``: infosets that play a fixed strategy, resolved against ``game``
        (:class:`~solver.cfr.locks.LockSet`, from :func:`solver.lockspec.build_locks`; see
        :meth:`lock`).

        Options made by :meth:`~solver.cfr.options.SolveOptions.checked` (what
        :func:`solver.algorithms.make_solver` passes) are trusted; any other are checked by
        :func:`~solver.cfr.options.validate`, the first that does not hold raising
        :class:`~solver.cfr.options.OptionError`."""
        if options is not None and not isinstance(options, SolveOptions):
            raise TypeError(f"options must be a SolveOptions, got {type(options).__name__}")
        if isinstance(options, CheckedOptions):
            opts: SolveOptions = options  # checked for this rule and game by make_solver
        else:
            opts = options if options is not None else SolveOptions()
            if opts.pruning is None:
                opts = opts.unchecked(pruning="partial")
            raise_first(opts.check(rule, game=game, chance_sampling=sampling))
        locks = opts.locks
        self.options = opts.unchecked(locks=None)  # (lock() below keeps them current)
        pruning = str(opts.pruning)
        self.sampling = sampling
        self._rng = np.random.default_rng(self.seed)
        self.game = game
        self.rule = rule
        self.precision = (
            auto_precision(game.is_holdem, game.action_size)
            if opts.precision == "auto"
            else opts.precision
        )
        self.storage = make_storage(game, rule, self.precision)
        self.precision_note = ""  # why an "auto" solve kept float32, when it did
        # the walk's precision: float32 over float32 storage (regret-based pruning's bounds
        # and records stay float64)
        dtype = np.float64 if pruning in ("interval", "total") else walk_dtype(self.storage)
        self._walk_buffers(dtype)
        self.iteration = 0
        # iterations of the rule's schedule run before this solve's first: a warm start goes
        # on where the solve it continues stopped (solver.api.continue_from)
        self.schedule_start = 0
        self._coef_block: tuple[Rule, int, Array] | None = None  # (rule, first iteration − 1, rows)
        self.nodes_touched = 0
        self._done = np.zeros(1, dtype=np.int64)
        self.rbp: RegretPruning | None = None
        if pruning in ("interval", "total"):
            st = self.storage
            self.rbp = RegretPruning(
                game,
                rule,
                pruning,
                opts.rbp_check_every,
                opts.rbp_threshold,
                free_opponent=opts.rbp_free_opponent,
                itemsizes=(st.regrets.itemsize, st.cumulative.itemsize),
            )
        self._no_rbp = no_rbp()
        self.lockset: LockSet | None = None
        self._locks = no_locks()
        self._locked_cells = np.zeros(0, dtype=bool)
        if opts.locked:
            if not isinstance(locks, LockSet):  # locks as users write them: solver.lockspec
                raise TypeError(f"locks must be a resolved LockSet, got {type(locks).__name__}")
            self.lock(locks)

    @property
    def threads(self) -> int:
        """Solver threads (:attr:`options`)."""
        return int(self.options.threads)

    @property
    def pruning(self) -> str:
        """The pruning mode: "none", "partial", "interval" or "total" (resolved)."""
        return str(self.options.pruning)

    @property
    def seed(self) -> int:
        """The chance-sampling generator's seed (:attr:`options`)."""
        return int(self.options.seed)

    @property
    def storage_choice(self) -> str:
        """The storage asked for (:attr:`options`' precision): "auto" may promote, so
        :attr:`precision` says what the storage is now."""
        return str(self.options.precision)

    def _walk_buffers(self, dtype: type[np.floating]) -> None:
        """The CFR passes' scratch and thread split in ``dtype``; the checks' (best
        responses, evaluations) in float64 whatever the storage, so the exploitability and
        values a solve reports are its float64 numbers (a float32 check is off by ~1e-7 of
        the pot, and can come out just below 0)."""
        self.walk_dtype = dtype
        self.parallel = make_parallel(self.game, self.threads, dtype=dtype)
        self.check_parallel = (
            self.parallel if dtype == np.float64 else make_parallel(self.game, self.threads)
        )
        self.scratch = make_scratch(self.game, dtype)
        self._eval_scratch = make_scratch(self.game)
        self._leaves = empty_leaves(dtype)

    def lock(self, locks: LockSet | None) -> LockSet | None:
        """Lock infosets from now on (``None``: unlock everything), keeping the solve's state.
        ``locks`` are resolved against this game (:func:`solver.lockspec.build_locks`; or
        :func:`solver.lockspec.lock_engine` from text). Locked infosets play their mix as
        current and average strategy and are never updated; best responses and
        exploitability are the locked game's. Returns the locks."""
        if self.rbp is not None and locks:
            raise ValueError(f"locks do not combine with pruning {self.pruning!r}")
        old = self._locks if hasattr(self, "_locks") else no_locks()
        if not locks:
            self.lockset, self._locks = None, same_restriction(no_locks(), old)
            self._locked_cells = np.zeros(0, dtype=bool)
            self.options = replace(self.options, locks=None)
            return None
        if not isinstance(locks, LockSet):
            raise TypeError(f"locks must be a resolved LockSet, got {type(locks).__name__}")
        lockset = locks
        self.lockset = lockset
        self.options = replace(self.options, locks=lockset)  # what a save or a re-solve reads
        self._locks = same_restriction(lockset.locks, old)
        self._locked_cells = locked_cells(self.game, lockset.locks)
        st = self.storage
        if st.strategy.shape[0] > 1:  # a stored strategy plays the locked mixes from now on
            st.strategy[self._locked_cells] = lockset.locks.strategy[self._locked_cells]
        return lockset

    def restrict(self, p: float, exploiter: int, fixed: Array | None) -> None:
        """Play a restricted Nash response from now on (Johanson et al. 2007;
        :class:`~solver.cfr.locks.Locks`' ``rnr_*``): player ``1 − exploiter`` plays ``fixed``
        (A,) (its cells; the rest unread) with probability ``p`` and its own strategy
        otherwise. ``p`` = 0 (or ``fixed`` None) turns it off. The best responses and values
        of :meth:`best_response_values` are then those of the restricted game for the
        exploiter's side. One thread, full width, no regret-based pruning (ValueError)."""
        if fixed is None or p == 0.0:
            self._locks = restricted(self._locks, 0.0, -1, None)
            return
        if not 0.0 <= float(p) <= 1.0 or exploiter not in (0, 1):
            raise ValueError(f"restriction: p must be in [0, 1], got {p!r}")
        if self.threads > 1:
            raise ValueError("threads: a restricted Nash response runs on one thread")
        if self.sampling or self.rbp is not None:
            raise ValueError(
                "a restricted Nash response needs a full-width solve without regret-based pruning"
            )
        fx = np.ascontiguousarray(fixed, dtype=np.float64)
        if fx.shape != (self.game.action_size,):
            raise ValueError(f"fixed must have shape ({self.game.action_size},), got {fx.shape}")
        self._locks = restricted(self._locks, float(p), int(exploiter), fx)

    def _apply_locks(self, sigma: Array) -> Array:
        """``sigma`` (A,) with the locked infosets on their mixes (in place)."""
        if self._locked_cells.size:
            sigma[self._locked_cells] = self._locks.strategy[self._locked_cells]
        return sigma

    @property
    def prune_code(self) -> int:
        return PRUNE_CODES[self.pruning]

    def flags(self, trav: int = 0) -> PassFlags:
        """The flags of this solve's CFR passes for ``trav``."""
        if self.rbp is not None:
            return self.rbp.flags(trav)
        return pass_flags(trav, MODE_UPDATE, prune=self.prune_code, sampled=self.sampling)

    def draws(self, k: int) -> Array:
        """(k, 4): the chance draws of the next ``k`` iterations (uniforms for chance
        sampling — the traverser's level-1 and deeper draws for each player — else zeros)."""
        if self.sampling:
            return self._rng.random((k, 4))
        return np.zeros((k, 4))

    def iterate(self, n: int = 1) -> int:
        """Run ``n`` iterations; returns the nodes visited by them."""
        if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
            raise ValueError(f"iterations must be a whole number ≥ 0, got {n!r}")
        g = self.game
        st = self.storage
        touched = 0
        remaining = int(n)
        while remaining > 0:
            if self._promotes() and self.iteration >= PROMOTE_AT:
                self.promote()
                st = self.storage
            k = remaining if self.rbp is None else self.rbp.chunk(self.iteration, remaining)
            if self._promotes() and self.iteration < PROMOTE_AT:
                k = min(k, PROMOTE_AT - self.iteration)
            coefs = self.coefficients(self.schedule_start + self.iteration, k)
            draws = self.draws(k)
            rb = self._no_rbp if self.rbp is None else self.rbp.state
            lk = self._locks
            if self.parallel.threads > 1 and self.rbp is None:
                touched += split_iterations(g, st, rb, lk, coefs, draws, self.flags(0),
                                            self.scratch, self.parallel)  # fmt: skip
                ran = k
            elif self.parallel.threads > 1:  # pruning's flags and catch-ups: pass by pass
                for co, u in zip(coefs, draws, strict=True):
                    for trav in range(2):
                        touched += parallel_pass(
                            g, st.strategy, st, rb, lk, co, u, self.flags(trav), self.scratch,
                            self.parallel,
                        )  # fmt: skip
                ran = k
            else:
                n_touched = run_iterations(game_arrays(g), SolveState(st, rb, lk), coefs, draws,
                                           self.flags(0), self.scratch, self._leaves,
                                           self._done)  # fmt: skip
                touched += int(n_touched)
                ran = int(self._done[0])
            self.iteration += ran
            remaining -= ran
            if self.rbp is not None:
                touched += self.rbp.after(self.iteration, st)
        self.nodes_touched += touched
        return touched

    def coefficients(self, start: int, k: int) -> Array:
        """The rule's rows for iterations ``start`` + 1 … ``start`` + ``k``: (k, C), C
        contiguous, a view of the block (not to be written). Rules are pure functions of the
        iteration, so the rows are computed :data:`COEF_BLOCK` iterations ahead and sliced;
        a new rule (or a jump back) computes afresh. Equal to ``rule.coefficients`` of the
        same iterations."""
        blk = self._coef_block
        if (
            blk is None
            or blk[0] is not self.rule
            or not blk[1] <= start <= start + k <= blk[1] + blk[2].shape[0]
        ):
            t = np.arange(start + 1, start + max(k, COEF_BLOCK) + 1, dtype=np.float64)
            # writable: a read-only array is another Numba type (another compilation)
            blk = (self.rule, start, np.ascontiguousarray(self.rule.coefficients(t)))
            self._coef_block = blk
        return blk[2][start - blk[1] : start - blk[1] + k]

    def _promotes(self) -> bool:
        """Whether this solve still has its float32 → float64 switch ahead of it."""
        return (
            self.storage_choice == "auto"
            and self.precision == "float32"
            and self.rbp is None
            and not self.precision_note
        )

    def promote(self) -> bool:
        """Switch float32 storage to float64 now, values unchanged (every float32 is a
        float64); returns whether it switched. Kept float32 (with :attr:`precision_note`
        saying why) when the game's memory cap (``game.meta["max_memory_mb"]``) would not
        hold the float64 arrays. :meth:`iterate` calls this at :data:`PROMOTE_AT` for
        "auto" solves."""
        if self.precision != "float32":
            return False
        st = self.storage
        wide = ("regrets", "strategy", "cumulative", "last_regret")
        extra = sum(getattr(st, k).nbytes for k in wide)  # float64 doubles each
        cap = self.game.meta.get("max_memory_mb")
        if isinstance(cap, (int, float)) and (self.memory_bytes + extra) / 2**20 > cap:
            self.precision_note = (
                f"kept float32 after {PROMOTE_AT:,} iterations: float64 storage would need "
                f"{(self.memory_bytes + extra) / 2**20:,.0f} MB, over the {cap:,.0f} MB "
                "allowed (max_memory_mb)"
            )
            return False
        self.storage = st._replace(**{k: getattr(st, k).astype(np.float64) for k in wide})
        self.precision = "float64"
        self._walk_buffers(np.float64)  # and the walk computes in float64 from here on
        return True

    @property
    def thread_times(self) -> list[dict[str, float]]:
        """Per solver thread, its seconds in the split chunks so far (collecting, tasks,
        waiting, finishing, wall) and its idle share (:func:`~solver.cfr.parallel.thread_times`;
        empty rows on one thread, or with regret-based pruning, whose passes are not chunks)."""
        return thread_times(self.parallel.times)

    @property
    def memory_bytes(self) -> int:
        """Bytes the solve holds: every storage array; with Total RBP, what it still needs
        (see :meth:`~solver.cfr.pruning.manager.RegretPruning.held_bytes`)."""
        st = self.storage
        if self.rbp is not None:
            other = (st.strategy, st.last_regret, st.step_num, st.step_den, st.rscale, st.sscale)
            return self.rbp.held_bytes() + int(sum(a.nbytes for a in other))
        return int(sum(a.nbytes for a in st if isinstance(a, np.ndarray) and a.size > 1))

    def average_strategy(self, out: Array | None = None) -> Array:
        """Average strategy σ̄ (action_size,): S normalised per infoset, uniform if S = 0.
        Written into ``out`` when given (float64, shape (action_size,)), else a new array."""
        if out is None:
            out = np.empty(self.game.action_size)
        average_strategy(self.game.tree, self.game.hands, self.storage.cumulative, out)
        return self._apply_locks(out)

    def best_response_values(self, sigma: Array | None = None) -> tuple[float, float]:
        """(BR₀, BR₁) in chips against ``sigma`` (A,), by default the current average
        strategy, with this solve's threads. The average is normalised node by node inside
        the walk (:data:`~solver.cfr.walk.AVERAGE`), never built as an (A,) array: on T1 that
        array cost ~5 ms to fill and twice the sums' memory traffic to read, a third of a
        check; the values equal those against :meth:`average_strategy` to rounding."""
        if sigma is None:
            return best_response_values(
                self.game, AVERAGE, self._eval_scratch, self.check_parallel, self._locks,
                self.storage,
            )  # fmt: skip
        return best_response_values(
            self.game, sigma, self._eval_scratch, self.check_parallel, self._locks
        )

    def expected_values(self) -> tuple[float, float]:
        """Each player's expected payoff (chips) when both play the average strategy (the
        locked infosets on their mixes), normalised node by node in the walk as the checks
        do: the checks' kernel, no second one compiled for an (A,) profile."""
        g = self.game
        out = []
        for p in range(2):
            v = root_player_values(g, AVERAGE, p, False, self._eval_scratch, None, self._locks,
                                   self.storage)  # fmt: skip
            out.append(float(np.dot(g.hands.weights[p, : v.shape[0]], v)))
        return out[0], out[1]

    @property
    def rng_state(self) -> dict:
        """The chance-sampling generator's state (JSON-able), to save and restore a solve."""
        return dict(self._rng.bit_generator.state)

    @rng_state.setter
    def rng_state(self, state: dict) -> None:
        self._rng.bit_generator.state = state

    def current_strategy(self) -> Array:
        """Current strategy σ (action_size,) as float64 (derived from the regrets by regret
        matching for rules that do not store it)."""
        if self.rule.stores_strategy:
            return self.storage.strategy.astype(np.float64)
        out = np.empty(self.game.action_size)
        pruned = self.rbp.state.pruned if self.rbp is not None else self._no_rbp.pruned
        regret_matching_all(
            self.game.tree, self.game.hands, self.storage.regrets.astype(np.float64), out, pruned
        )
        return self._apply_locks(out)

    @property
    def locks(self) -> object:
        """The locks the walk reads (a :class:`~solver.cfr.locks.Locks`)."""
        return self._locks
