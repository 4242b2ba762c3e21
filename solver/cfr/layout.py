"""The flat data the vector engine's kernels share: a solve's storage, the walk's scratch,
the cut points of a parallel pass and the flags of one pass, with their factories.

Shapes: ``A`` = the game's action size (Σ over decision nodes of actions × the actor's
hands), ``I`` = its info size (Σ of the actor's hands), ``N`` nodes, ``H`` the larger hand
count, ``D`` the tree's depth, ``C`` cards in the deck. Per-action arrays are laid out per
decision node as ``[action, hand]`` blocks (see :mod:`solver.games.model`).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import numpy as np
import numpy.typing as npt

from solver.cfr.borrow import Ref
from solver.cfr.locks import Locks
from solver.cfr.multi import NO_MULTI
from solver.cfr.rules import Rule
from solver.games.model import DECISION, Boards, Game, Hands, Tree, auto_precision

Array = npt.NDArray[np.float64]

# What a pass does (PassFlags.mode).
MODE_UPDATE = 0  # CFR: update the traverser's regrets and the opponent's strategy sums
MODE_BR = 1  # best response: the traverser takes its best action per hand
MODE_EVAL = 2  # expected values of the strategy passed in, nothing updated
MODE_REACH = 3  # the current strategy's reach only (parallel step 1): nothing updated

# Which cut points of a parallel pass it uses (PassFlags.leaf; see Leaves).
LEAF_OFF = 0
LEAF_COLLECT = 1
LEAF_USE = 2
LEAF_TASKS = 3

# Pruning (PassFlags.prune): none; partial (skip what the opponent reaches with probability
# zero, exact); interval regret-based pruning; Total RBP (solver.cfr.pruning).
PRUNE_NONE, PRUNE_PARTIAL, PRUNE_INTERVAL, PRUNE_TOTAL = 0, 1, 2, 3
PRUNING = ("none", "partial", "interval", "total")
PRUNE_CODES = dict(
    zip(PRUNING, (PRUNE_NONE, PRUNE_PARTIAL, PRUNE_INTERVAL, PRUNE_TOTAL), strict=True)
)


class GameArrays(NamedTuple):
    """The game a kernel walks, whole: its public tree, private hands and per-board data
    (:mod:`solver.games.model`); a game of more than two players adds its deals and payoffs
    (:mod:`solver.cfr.multi`)."""

    tree: Tree
    hands: Hands
    boards: Boards
    # a MultiArrays for a game of more than two players; heads-up, NO_MULTI, a NoMulti (a
    # Numba type of its own, so the heads-up walk leaves the three-player steps out:
    # cfr/multi.py). Any: three-player code reads MultiArrays' fields without narrowing.
    multi: Any = NO_MULTI


def game_arrays(game: Game) -> GameArrays:
    """``game``'s arrays as the kernels take them."""
    return GameArrays(game.tree, game.hands, game.boards)


class Storage(NamedTuple):
    """Per-infoset buffers of one solve (float64, float32, or 16-bit integers).

    Adaptive rules use ``last_regret`` (A,) and ``step_num``/``step_den`` (I,); other rules
    get length-1 placeholders there, as do rules that derive their strategy from the regrets
    (``strategy``)."""

    regrets: Array  # (A,) accumulated regrets R, [action, hand] blocks
    strategy: Array  # (A,) or (1,): current strategy σ (what the next pass plays)
    cumulative: Array  # (A,) average-strategy sums S
    last_regret: Array  # (A,) or (1,): last instantaneous regret (adaptive rules)
    step_num: Array  # (I,) or (1,): Σ‖r − m‖² per infoset (adaptive rules)
    step_den: Array  # (I,) or (1,): Σ‖ΔR‖² per infoset (adaptive rules)
    # 16-bit compressed storage (quantized = 1): regrets int16 and sums uint16, each decision
    # node's block scaled by rscale[node] / sscale[node] (chips per unit), re-scaled to its
    # largest entry on every write. Otherwise the scales are 1 and unused.
    rscale: Array  # (N,) or (1,)
    sscale: Array  # (N,) or (1,)
    quantized: int


class Scratch(NamedTuple):
    """Work buffers of one walk, one row per tree depth so it never allocates. The reach,
    values, strategies and per-hand sums (``reach``, ``value``, ``action_value``, ``strat``,
    ``sd``, ``pi``, ``live``) are in the walk's precision — float32 over float32 storage,
    else float64 (:func:`make_scratch`); terminal sums (``sd64``, ``card_sum*``) always run
    in float64."""

    # (2(D + 2), H) opponent reach entering the node at each depth; rows D + 2 on: the
    # learner's free reach in a restricted Nash response's exploiter pass
    reach: Array
    value: Array  # (D + 2, H) the traverser's counterfactual values of that node
    action_value: Array  # (D + 2, max_actions, H) the traverser's action values
    card_sum: Array  # (2C,): per-card sums (two banks for two-card folds)
    card_sum2: Array  # (C,)
    tmp: Array  # (max_actions,)
    stack: npt.NDArray[np.int64]  # (D + 2,) node at each depth of the walk
    next_child: npt.NDArray[np.int64]  # (D + 2,) next child to visit, -1 on entry
    reach_row: npt.NDArray[np.int64]  # (D + 2,) which reach row holds the node's reach
    sd: Array  # (2, 2H + 1) per-hand sums of the update and of regret matching
    strat: Array  # (D + 2, max_actions * H): a node's strategy when derived from regrets
    blk: Array  # (max_actions * H,): a node's new values before 16-bit quantization
    # (D + 2,) per depth: at a chance node 1 / probability of the child drawn (chance
    # sampling); at an opponent's decision node 0 until a child's values are in its row
    cq: Array
    clevel: npt.NDArray[np.int64]  # (D + 2,) chance nodes above the node at that depth
    pi: Array  # (1, H) an infoset's opponent reach (regret-based pruning)
    live: Array  # (D + 2, H) regret-based pruning: 1 for the traverser's hands not pruned above
    keep: Array  # (4, max(max_actions, 2) * H) a locked node's cells kept across its update
    sd64: Array  # (2, 2H + 1) float64: showdown prefix sums, all-in runout sums


_I32 = np.zeros(1, dtype=np.int32)
_I64 = np.zeros(1, dtype=np.int64)
_F2 = np.zeros((1, 1))


class Leaves(NamedTuple):
    """Chance nodes cut out of a pass so their children can run in parallel (``L`` slots),
    and those children as tasks (``K`` of them) for the threads
    (:mod:`solver.cfr.parallel`).

    ``slot[n]`` is the slot of node ``n`` or -1: the cut chance nodes first, then the all-in
    runouts above them (a runout is one task, itself). With ``PassFlags.leaf`` =
    ``LEAF_COLLECT`` a pass stores the opponent reach arriving at a slotted node in
    ``reach[slot]``, goes no deeper, and sets the counters ``claimed`` and ``slot_done`` to 0;
    ``LEAF_TASKS`` claims tasks one after another from the thread's own queue of ``order``,
    then from the others' (atomic adds on ``claimed``: :mod:`solver.cfr.tasks`), walks each
    from the reach stored at its slot and leaves its values in ``task_value``; the thread
    that finishes a slot's last task sums the slot's values into ``value[slot]`` (in task
    order: the numbers do not depend on the threads); ``LEAF_USE`` takes a slotted node's
    values from ``value[slot]``; ``LEAF_OFF`` ignores slots."""

    slot: npt.NDArray[np.int32]  # (N,)
    reach: Array  # (L, H)
    value: Array  # (L, H)
    task_slot: npt.NDArray[np.int32] = _I32  # (K,): the chance node's slot
    task_node: npt.NDArray[np.int32] = _I32  # (K,): the child
    task_value: Array = _F2  # (K, H)
    # (K,): the tasks in the threads' queues, each queue biggest subtree first (the results
    # do not depend on which thread runs a task: the finish sums children in task order)
    order: npt.NDArray[np.int32] = _I32
    # each queue's head, start and end, a cache line per queue (:data:`~solver.cfr.tasks.QUEUE`)
    claimed: npt.NDArray[np.int64] = _I64
    # (L + 1,): slot s's tasks are s_start[s] ≤ k < s_start[s + 1] (contiguous, in order)
    slot_start: npt.NDArray[np.int32] = _I32
    # (L,): how many of each slot's tasks are done (atomic adds); the thread that finishes a
    # slot's last task sums its values into ``value[slot]``, in task order
    slot_done: npt.NDArray[np.int64] = _I64


class WalkTables(NamedTuple):
    """The walk's tables as it hands them to the kernels it calls by address (the tasks',
    the zero update's), by reference (:func:`~solver.cfr.borrow.by_ref`): one word a call;
    as arguments they were over 600."""

    tree: Tree
    hands: Hands
    boards: Boards
    lv: Leaves
    st: Storage
    lk: Locks
    sc: Scratch


WalkRef = Ref[WalkTables]


class SlotTables(NamedTuple):
    """What a split pass's slot sum reads (:func:`~solver.cfr.tasks.task_done`,
    :func:`~solver.cfr.chance.add_chance_child`), by reference: fewer types than
    :class:`WalkTables` (its storage, locks and scratch), so fewer signatures."""

    tree: Tree
    hands: Hands
    boards: Boards
    lv: Leaves


SlotRef = Ref[SlotTables]


class PassFlags(NamedTuple):
    """What one pass does, decided by the engine (not by the rule), read once per walk."""

    trav: int  # the traverser (0 or 1)
    mode: int  # MODE_UPDATE, MODE_BR, MODE_EVAL or MODE_REACH
    leaf: int  # LEAF_OFF, LEAF_COLLECT, LEAF_USE or LEAF_TASKS
    prune: int  # PRUNE_NONE … PRUNE_TOTAL
    sampled: bool  # chance sampling: one child drawn at each chance node
    record: bool  # a best-response pass stores its action values (Total RBP's checks)
    nostart: bool  # no new interval prune starts (interval RBP's catch-up walks)
    margin: float  # interval RBP: a prune starts when its bound holds this many iterations
    average: bool  # a best response or evaluation plays the average of the sums (σ empty)


def pass_flags(
    trav: int,
    mode: int,
    leaf: int = LEAF_OFF,
    prune: int = PRUNE_NONE,
    sampled: bool = False,
    record: bool = False,
    nostart: bool = False,
    margin: float = 0.0,
    average: bool = False,
) -> PassFlags:
    """:class:`PassFlags` with Python scalars of the kernel's types."""
    return PassFlags(
        int(trav), int(mode), int(leaf), int(prune), bool(sampled), bool(record),
        bool(nostart), float(margin), bool(average),
    )  # fmt: skip


def empty_leaves(dtype: type[np.floating] = np.float64) -> Leaves:
    """Leaves with nothing cut out, for serial passes (``LEAF_OFF`` reads no slot); their
    value arrays in the walk's precision (the same kernel types as a split pass's)."""
    f2 = np.zeros((1, 1), dtype=dtype)
    return Leaves(np.full(1, -1, dtype=np.int32), f2, f2.copy(), task_value=f2.copy())


NO_DRAWS = np.zeros(4)  # the chance draws of a pass that samples nothing


def make_storage(game: Game, rule: Rule, precision: str) -> Storage:
    """Zeroed storage for ``rule`` on ``game`` in ``precision`` ("float64", "float32" — the
    CFR passes over it work in float32 too, terminal sums and checks in float64
    (:func:`walk_dtype`) — or "compressed": 16-bit regrets and sums with a scale per
    decision node, walked in float64); "auto" picks per game
    (:func:`~solver.games.model.auto_precision`)."""
    if precision == "auto":
        precision = auto_precision(game.is_holdem, game.action_size)
    dtype = np.float64 if precision == "float64" else np.float32
    quantized = precision == "compressed"
    size = game.action_size
    adaptive = rule.adaptive
    n = game.num_nodes
    return Storage(
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


def placeholder_storage() -> Storage:
    """Storage for passes that update nothing (best response, evaluation)."""
    one = np.zeros(1)
    return Storage(one, one, one, one, one, one, np.ones(1), np.ones(1), 0)


def walk_dtype(storage: Storage) -> type[np.floating]:
    """The precision a walk over ``storage`` works in: float32 over float32 storage (the
    vector steps run twice as wide; sums that accumulate stay float64), else float64."""
    if storage.regrets.dtype == np.float32 and not storage.quantized:
        return np.float32
    return np.float64


def make_scratch(game: Game, dtype: type[np.floating] = np.float64) -> Scratch:
    """Work buffers sized for ``game``'s depth, widest node and hand counts, the walk's
    working arrays in ``dtype`` (:func:`walk_dtype`)."""
    depth = game.max_depth + 2
    h = int(max(game.hands.cards.shape[1], 1))
    a = max(game.max_actions, 1)
    return Scratch(
        # twice the rows: a restricted Nash response's free reach beside the mixture
        reach=np.zeros((2 * depth, h), dtype=dtype),
        value=np.zeros((depth, h), dtype=dtype),
        action_value=np.zeros((depth, a, h), dtype=dtype),
        card_sum=np.zeros(2 * max(game.hands.num_cards, 1)),
        card_sum2=np.zeros(max(game.hands.num_cards, 1)),
        tmp=np.zeros(a),
        stack=np.zeros(depth, dtype=np.int64),
        next_child=np.zeros(depth, dtype=np.int64),
        reach_row=np.zeros(depth, dtype=np.int64),
        sd=np.zeros((2, 2 * h + 1), dtype=dtype),
        strat=np.zeros((depth, a * h), dtype=dtype),
        blk=np.zeros(a * h),
        cq=np.ones(depth),
        clevel=np.zeros(depth, dtype=np.int64),
        pi=np.zeros((1, h), dtype=dtype),
        live=np.ones((depth, h), dtype=dtype),
        keep=np.zeros((4, max(a, 2) * h)),
        sd64=np.zeros((2, 2 * h + 1)),
    )


def uniform_strategy(game: Game) -> Array:
    """Every action equally likely at every decision node, shape (A,)."""
    out = np.zeros(game.action_size)
    t = game.tree
    for n in np.flatnonzero(t.kind == DECISION):
        off, na, nh = game.block(int(n))
        out[off : off + na * nh] = 1.0 / na
    return out


def check_strategy(game: Game, sigma: Array) -> Array:
    """``sigma`` as a contiguous float64 array of shape (A,), else ValueError."""
    sigma = np.ascontiguousarray(sigma, dtype=np.float64)
    if sigma.shape != (game.action_size,):
        raise ValueError(f"strategy must have shape ({game.action_size},), got {sigma.shape}")
    return sigma
