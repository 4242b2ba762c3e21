"""The solver state of one game under one rule, and the thin validating wrappers around the
kernels of :mod:`solver.cfr.kernels`."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import numpy as np
import numpy.typing as npt

from solver.cfr.kernels import (
    MODE_BR,
    MODE_EVAL,
    MODE_UPDATE,
    Leaves,
    Parallel,
    Scratch,
    Storage,
    normalize_strategy,
    pass_collect,
    pass_finish,
    regret_matching_pruned,
    root_values,
    run_iterations,
    subtree_costs,
    subtree_values,
    thread_tasks,
)
from solver.cfr.pruning import RegretPruning
from solver.cfr.rules import (
    CHANCE_U,
    MARGIN,
    NUM_COEFFICIENTS,
    PRUNE,
    PRUNE_INTERVAL,
    PRUNE_NONE,
    PRUNE_PARTIAL,
    PRUNE_TOTAL,
    REGRET_WEIGHT,
    SAMPLE,
    WNEXT,
    Rule,
)
from solver.games.model import CHANCE, DECISION, Game, auto_precision

Array = npt.NDArray[np.float64]

PRUNING = ("none", "partial", "interval", "total")  # see Engine


def make_scratch(game: Game) -> Scratch:
    """Work buffers sized for ``game``'s depth, widest node and hand counts."""
    depth = game.max_depth + 2
    h = int(max(game.hands.cards.shape[1], 1))
    a = max(game.max_actions, 1)
    return Scratch(
        reach=np.zeros((depth, h)),
        value=np.zeros((depth, h)),
        action_value=np.zeros((depth, a, h)),
        card_sum=np.zeros(2 * max(game.hands.num_cards, 1)),
        card_sum2=np.zeros(max(game.hands.num_cards, 1)),
        tmp=np.zeros(a),
        stack=np.zeros(depth, dtype=np.int64),
        next_child=np.zeros(depth, dtype=np.int64),
        reach_row=np.zeros(depth, dtype=np.int64),
        sd=np.zeros((2, 2 * h + 1)),
        strat=np.zeros((depth, a * h)),
        blk=np.zeros(a * h),
        cq=np.ones(depth),
        clevel=np.zeros(depth, dtype=np.int64),
        pi=np.zeros((1, h)),
        live=np.ones((depth, h)),
    )


def make_parallel(game: Game, threads: int = 1) -> Parallel:
    """Split ``game``'s passes over ``threads`` threads: the first chance nodes below the
    root become cut points and each of their children a task. ``threads`` = 1 gives the
    serial walk (and tiny placeholder buffers)."""
    if threads < 1:
        raise ValueError("threads must be ≥ 1")
    t = game.tree
    h = int(max(game.hands.cards.shape[1], 1))
    slot = np.full(game.num_nodes, -1, dtype=np.int32)
    chance: list[int] = []
    if threads > 1:
        stack = [0]
        while stack:
            n = stack.pop()
            if t.kind[n] == CHANCE:
                slot[n] = len(chance)
                chance.append(n)
                continue
            stack.extend(game.children(n))
        chance.sort()
        for i, n in enumerate(chance):
            slot[n] = i
    task_slot = np.array([slot[n] for n in chance for _ in game.children(n)], dtype=np.int32)
    task_node = np.array([c for n in chance for c in game.children(n)], dtype=np.int32)
    if task_node.size == 0:
        threads = 1
    nthreads = threads if threads > 1 else 1
    base = make_scratch(game) if threads > 1 else _tiny_scratch()
    scratch = Scratch._make(np.stack([f] * nthreads) for f in base)
    leaves = Leaves(
        slot,
        np.zeros((max(len(chance), 1), h)),
        np.zeros((max(len(chance), 1), h)),
        task_slot,
        task_node,
        np.zeros((max(task_node.size, 1), h)),
        _assign_tasks(game, task_node, nthreads),
    )
    return Parallel(threads, leaves, scratch)


def _assign_tasks(
    game: Game, task_node: npt.NDArray[np.int32], threads: int
) -> npt.NDArray[np.int32]:
    """(threads, M) task indices per thread, -1 padded: the biggest subtree first to the
    least loaded thread (the subtrees below a turn's chance nodes differ several times over
    in size; every thread taking every other task left one ~15 % behind on T1)."""
    if task_node.size == 0 or threads == 1:
        return np.arange(task_node.size, dtype=np.int32).reshape(1, -1)
    cost = subtree_costs(game.tree, game.hands, game.parents)[task_node]
    load = np.zeros(threads)
    lists: list[list[int]] = [[] for _ in range(threads)]
    for k in np.argsort(-cost, kind="stable"):
        t = int(np.argmin(load))
        lists[t].append(int(k))
        load[t] += cost[k]
    out = np.full((threads, max(len(x) for x in lists)), -1, dtype=np.int32)
    for t, x in enumerate(lists):
        out[t, : len(x)] = sorted(x)
    return out


def _tiny_scratch() -> Scratch:
    return Scratch(
        reach=np.zeros((1, 1)),
        value=np.zeros((1, 1)),
        action_value=np.zeros((1, 1, 1)),
        card_sum=np.zeros(1),
        card_sum2=np.zeros(1),
        tmp=np.zeros(1),
        stack=np.zeros(1, dtype=np.int64),
        next_child=np.zeros(1, dtype=np.int64),
        reach_row=np.zeros(1, dtype=np.int64),
        sd=np.zeros((2, 3)),
        strat=np.zeros((1, 1)),
        blk=np.zeros(1),
        cq=np.ones(1),
        clevel=np.zeros(1, dtype=np.int64),
        pi=np.zeros((1, 1)),
        live=np.ones((1, 1)),
    )


def uniform_strategy(game: Game) -> Array:
    """Every action equally likely at every decision node, shape (action_size,)."""
    out = np.zeros(game.action_size)
    t = game.tree
    for n in np.flatnonzero(t.kind == DECISION):
        off, na, nh = game.block(int(n))
        out[off : off + na * nh] = 1.0 / na
    return out


def _placeholder_storage() -> Storage:
    one = np.zeros(1)
    return Storage(one, one, one, one, one, one, np.ones(1), np.ones(1), 0)


def _check_strategy(game: Game, sigma: Array) -> Array:
    sigma = np.ascontiguousarray(sigma, dtype=np.float64)
    if sigma.shape != (game.action_size,):
        raise ValueError(f"strategy must have shape ({game.action_size},), got {sigma.shape}")
    return sigma


_POOLS: dict[int, ThreadPoolExecutor] = {}


def _pool(threads: int) -> ThreadPoolExecutor:
    if threads not in _POOLS:
        _POOLS[threads] = ThreadPoolExecutor(threads, thread_name_prefix="regret-lab-solver")
    return _POOLS[threads]


def parallel_pass(
    game: Game,
    trav: int,
    mode: int,
    sigma: Array,
    st: Storage,
    co: Array,
    sc: Scratch,
    par: Parallel,
) -> int:
    """One pass for ``trav`` split over ``par.threads`` threads (see :class:`Parallel`).

    Three kernel steps: collect the reach at the cut chance nodes, run the subtrees below
    them on a thread pool (the kernels release the GIL), finish the upper tree. Values at
    the root end up in ``sc.value[0]``; returns the nodes visited."""
    g = game
    pass_collect(g.tree, g.hands, g.boards, trav, mode, sigma, st, co, sc, par)
    futures = [
        _pool(par.threads).submit(
            thread_tasks, t, g.tree, g.hands, g.boards, trav, mode, sigma, st, co, par
        )
        for t in range(par.threads)
    ]
    touched = sum(int(f.result()) for f in futures)
    return touched + int(pass_finish(g.tree, g.hands, g.boards, trav, mode, sigma, st, co, sc, par))


def root_player_values(
    game: Game,
    sigma: Array,
    player: int,
    best_response: bool,
    scratch: Scratch | None = None,
    parallel: Parallel | None = None,
) -> Array:
    """Counterfactual values (H[player],) at the root, chance of each deal included."""
    sigma = _check_strategy(game, sigma)
    mode = MODE_BR if best_response else MODE_EVAL
    co = np.zeros(NUM_COEFFICIENTS)
    if parallel is not None and parallel.threads > 1:
        sc = scratch if scratch is not None else make_scratch(game)
        parallel_pass(game, player, mode, sigma, _placeholder_storage(), co, sc, parallel)
        return sc.value[0, : game.num_hands[player]].copy()
    return root_values(
        game.tree,
        game.hands,
        game.boards,
        sigma,
        player,
        mode,
        _placeholder_storage(),
        co,
        scratch if scratch is not None else make_scratch(game),
        parallel if parallel is not None else make_parallel(game, 1),
    )


def path_reach(game: Game, sigma: Array, node: int) -> tuple[Array, Array]:
    """Each player's reach vector at ``node`` (shapes (H[0],), (H[1],)): the initial range
    weights times the player's own action probabilities along the path, zeroed where a
    dealt card blocks the hand. Chance probabilities are not included."""
    t = game.tree
    reach = [game.hands.weights[p, : game.num_hands[p]].copy() for p in range(2)]
    path = []
    n = node
    while n > 0:
        path.append(n)
        n = int(game.parents[n])
    for child in reversed(path):
        parent = int(game.parents[child])
        if t.kind[parent] == DECISION:
            p = int(t.player[parent])
            off, _na, nh = game.block(parent)
            a = child - int(t.first_child[parent])
            reach[p] *= sigma[off + a * nh : off + (a + 1) * nh]
        elif t.kind[parent] == CHANCE:
            for p in range(2):
                reach[p] *= game.valid_hands(child, p)
    return reach[0], reach[1]


def chance_factor(game: Game, node: int) -> float:
    """Product of the chance weights on the path to ``node`` times the deal normaliser."""
    f = game.hands.norm
    n = node
    while n > 0:
        parent = int(game.parents[n])
        if game.tree.kind[parent] == CHANCE:
            f *= float(game.tree.chance_weight[n])
        n = parent
    return f


def node_values(
    game: Game, sigma: Array, node: int, player: int, best_response: bool = False
) -> Array:
    """``player``'s counterfactual values (H[player],) at ``node``: chips, weighted by the
    opponent's reach and the chance of the deal, when both play ``sigma`` below the node
    (or ``player`` best-responds). Divide by the compatible opponent reach mass to get
    per-hand expected values."""
    sigma = _check_strategy(game, sigma)
    opp = 1 - player
    reach = np.zeros(game.hands.cards.shape[1])
    r = path_reach(game, sigma, node)[opp]
    reach[: r.shape[0]] = r * chance_factor(game, node)
    return subtree_values(
        game.tree,
        game.hands,
        game.boards,
        node,
        reach,
        sigma,
        player,
        MODE_BR if best_response else MODE_EVAL,
        _placeholder_storage(),
        np.zeros(NUM_COEFFICIENTS),
        make_scratch(game),
    )


def expected_values(game: Game, sigma: Array) -> tuple[float, float]:
    """Each player's expected payoff (chips) when both play ``sigma``."""
    out = []
    for p in range(2):
        v = root_player_values(game, sigma, p, best_response=False)
        out.append(float(np.dot(game.hands.weights[p, : v.shape[0]], v)))
    return out[0], out[1]


def best_response_values(
    game: Game,
    sigma: Array,
    scratch: Scratch | None = None,
    parallel: Parallel | None = None,
) -> tuple[float, float]:
    """(BR₀, BR₁): what each player's best response earns against the other's ``sigma``."""
    out = []
    for p in range(2):
        v = root_player_values(game, sigma, p, True, scratch, parallel)
        out.append(float(np.dot(game.hands.weights[p, : v.shape[0]], v)))
    return out[0], out[1]


def exploitability(game: Game, sigma: Array) -> float:
    """NashConv/2 = (BR₀ + BR₁)/2 in chips (the game is zero-sum)."""
    b0, b1 = best_response_values(game, sigma)
    return 0.5 * (b0 + b1)


class Engine:
    """Regrets, strategies and sums of one solve; :meth:`iterate` runs the kernel.

    The per-action arrays have shape (action_size,), laid out per decision node as
    ``[action, hand]`` blocks (see :mod:`solver.games.model`).
    """

    def __init__(
        self,
        game: Game,
        rule: Rule,
        threads: int = 1,
        precision: str = "auto",
        pruning: str = "partial",
        sampling: bool = False,
        seed: int = 0,
        rbp_check_every: int = 10,
        rbp_threshold: float = 0.0,
        rbp_free_opponent: bool = False,
    ) -> None:
        """``precision``: "float64", "float32" (storage only; every sum is still done in
        float64 inside the kernels), "compressed" (16-bit regrets and strategy sums with a
        scale per decision node, as native solvers offer: half of float32's memory) or
        "auto" (float32 for hold'em subgames, float64 for the toy games: see
        :func:`~solver.games.model.auto_precision`).

        ``pruning``: "partial" (default) skips the subtrees the opponent reaches with zero
        probability; their buffers get the update an all-zero walk would give them, so the
        numbers are the same bit for bit and only the work (nodes touched) shrinks. "none"
        walks every subtree. "interval" and "total" add regret-based pruning (interval RBP
        for ``cfr``; Total RBP for ``cfr`` and ``cfr+``, checked every ``rbp_check_every``
        iterations, releasing strategy sums below C/√T with C = ``rbp_threshold`` and, with
        ``rbp_free_opponent``, the other player's regrets where the pruning player never
        comes; see :mod:`solver.cfr.pruning`).

        ``sampling``: chance sampling (MCCFR-CS, Lanctot et al. 2009): each pass draws one
        card at every chance node it reaches — with probability ∝ chance weight × the cards
        a canonical child stands for, the same uniform draw for every chance node of a level
        (public chance sampling) — and weights its subtree by 1/probability, so every update
        is unbiased. Draws come from a generator seeded with ``seed``. Needs one thread."""
        if pruning not in PRUNING:
            raise ValueError(f"pruning must be one of {', '.join(PRUNING)}, got {pruning!r}")
        if threads < 1:
            raise ValueError("threads must be ≥ 1")
        if sampling and threads != 1:
            raise ValueError("chance sampling needs threads=1")
        if seed < 0:
            raise ValueError("seed must be ≥ 0")
        self.pruning = pruning
        self.sampling = sampling
        self.seed = int(seed)
        self._rng = np.random.default_rng(self.seed)
        self.game = game
        self.rule = rule
        self.threads = threads
        self.parallel = make_parallel(game, threads)
        if precision == "auto":
            precision = auto_precision(game.is_holdem)
        if precision not in ("float32", "float64", "compressed"):
            raise ValueError("precision must be 'auto', 'float32', 'float64' or 'compressed'")
        self.precision = precision
        dtype = np.float64 if precision == "float64" else np.float32
        quantized = precision == "compressed"
        size = game.action_size
        adaptive = rule.adaptive
        n = game.num_nodes
        self.storage = Storage(
            regrets=np.zeros(size, dtype=np.int16 if quantized else dtype),
            strategy=(
                uniform_strategy(game).astype(dtype)
                if rule.stores_strategy
                else np.zeros(1, dtype=dtype)
            ),
            cumulative=np.zeros(size, dtype=np.uint16 if quantized else dtype),
            last_regret=np.zeros(size if adaptive else 1, dtype=dtype),
            step_num=np.zeros(game.info_size if adaptive else 1),
            step_den=np.zeros(game.info_size if adaptive else 1),
            rscale=np.ones(n if quantized else 1),
            sscale=np.ones(n if quantized else 1),
            quantized=int(quantized),
        )
        self.scratch = make_scratch(game)
        self._eval_scratch = make_scratch(game)
        self._eval_sigma: Array | None = None
        self.iteration = 0
        self.nodes_touched = 0
        self._done = np.zeros(1, dtype=np.int64)
        self.rbp: RegretPruning | None = None
        if pruning in ("interval", "total"):
            if sampling:
                raise ValueError(f"pruning {pruning!r} does not combine with chance sampling")
            self.rbp = RegretPruning(
                self, pruning, rbp_check_every, rbp_threshold, free_opponent=rbp_free_opponent
            )

    @property
    def prune_code(self) -> int:
        return {
            "none": PRUNE_NONE,
            "partial": PRUNE_PARTIAL,
            "interval": PRUNE_INTERVAL,
            "total": PRUNE_TOTAL,
        }[self.pruning]

    def coefficients(self, t: Array) -> Array:
        """The kernel's scalars for iterations ``t``: the rule's, plus the engine's columns
        (pruning, the next iteration's regret weight; sampling draws are added by
        :meth:`iterate`). Shape (len(t), NUM_COEFFICIENTS)."""
        coefs = np.ascontiguousarray(self.rule.coefficients(t))
        coefs[:, PRUNE] = float(self.prune_code)
        coefs[:, WNEXT] = self.rule.coefficients(t + 1.0)[:, REGRET_WEIGHT]
        if self.rbp is not None:
            coefs[:, MARGIN] = self.rbp.margin
        return coefs

    def iterate(self, n: int = 1) -> int:
        """Run ``n`` iterations; returns the nodes visited by them."""
        if n < 0:
            raise ValueError("iterations must be ≥ 0")
        if n == 0:
            return 0
        g = self.game
        touched = 0
        remaining = n
        while remaining > 0:
            k = remaining if self.rbp is None else self.rbp.chunk(self.iteration, remaining)
            t = np.arange(self.iteration + 1, self.iteration + k + 1, dtype=np.float64)
            coefs = self.coefficients(t)
            if self.sampling:
                coefs[:, SAMPLE] = 1.0
                coefs[:, CHANCE_U : CHANCE_U + 4] = self._rng.random((k, 4))
            if self.parallel.threads > 1:
                for co in coefs:
                    for trav in range(2):
                        touched += parallel_pass(
                            g, trav, MODE_UPDATE, self.storage.strategy, self.storage, co,
                            self.scratch, self.parallel,
                        )  # fmt: skip
                ran = k
            else:
                touched += int(
                    run_iterations(
                        g.tree,
                        g.hands,
                        g.boards,
                        self.storage,
                        coefs,
                        self.scratch,
                        self.parallel,
                        self._done,
                    )
                )
                ran = int(self._done[0])
            self.iteration += ran
            remaining -= ran
            if self.rbp is not None:
                touched += self.rbp.after(self.iteration)
        self.nodes_touched += touched
        return touched

    @property
    def memory_bytes(self) -> int:
        """Bytes the solve holds: every storage array; with Total RBP, what it still needs
        (see :meth:`~solver.cfr.pruning.RegretPruning.held_bytes`)."""
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
        normalize_strategy(self.game.tree, self.game.hands, self.storage.cumulative, out)
        return out

    def best_response_values(self) -> tuple[float, float]:
        """(BR₀, BR₁) in chips against the current average strategy. The average goes into
        a buffer kept between checks: a fresh array of a big tree's size costs more in page
        faults (T1: ~35 ms) than normalising it (~5 ms)."""
        if self._eval_sigma is None:
            self._eval_sigma = np.empty(self.game.action_size)
        sigma = self.average_strategy(self._eval_sigma)
        return best_response_values(self.game, sigma, self._eval_scratch, self.parallel)

    def current_strategy(self) -> Array:
        """Current strategy σ (action_size,) as float64 (derived from the regrets by regret
        matching for rules that do not store it)."""
        if self.rule.stores_strategy:
            return self.storage.strategy.astype(np.float64)
        out = np.empty(self.game.action_size)
        regret_matching_pruned(
            self.game.tree,
            self.game.hands,
            self.storage.regrets.astype(np.float64),
            out,
            self.storage.pruned,
        )
        return out
