"""The hold'em three-way turn spot (issue 49; docs/multiway.md): what a person describes
(:class:`Turn3Spec`), its checks (:func:`validate_turn`, every error a
:class:`~solver.games.spec.SpecError` naming the field), its size before anything big is
allocated (:func:`estimate_turn`, :func:`checked_turn`), and the spot as an explicit-deal
:class:`~solver.games.multiway.MultiGame` (:func:`turn3_multigame`) — the brute-force
reference the per-hand engine (:mod:`solver.cfr.holdem3_turn_build`) is checked against.

The turn's betting, a chance node dealing the river, the river's betting: the tree of
:mod:`solver.tree.betting3_turn`. Conventions are the river spot's
(:mod:`solver.games.holdem3`): players 0, 1, 2 act in that order on both streets, the
starting pot is dead money (``pot / 3`` from each), equal stacks, no side pots. Suit
isomorphism is not used: every river card is its own subtree.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.games.holdem3 import (
    BYTES,
    MAX_DEALS,
    PLAYERS,
    River3Setup,
    _held,
    _pair_sums,
    _sizes,
    deal_list,
    deal_list_game,
    over_memory,
    triple_weight,
    validate_fields,
)
from solver.games.multiway import MultiGame
from solver.games.spec import DEFAULT_MAX_MEMORY_MB, SpecError
from solver.poker.cards import COMBOS, NUM_CARDS, NUM_COMBOS, card_str
from solver.poker.handeval import rank_hands
from solver.tree.betting import PlayerSizes, TreeTooLarge
from solver.tree.betting3_turn import (
    MAX_TURN3_NODES,
    Turn3Plan,
    Turn3Tree,
    build_turn3_tree,
    plan_turn3,
)
from solver.tree.kinds import FIXED, SHOWDOWN

__all__ = [
    "Turn3Estimate",
    "Turn3Hands",
    "Turn3Setup",
    "Turn3Spec",
    "checked_turn",
    "estimate_turn",
    "turn3_hands",
    "turn3_multigame",
    "turn_tree",
    "validate_turn",
]

# per (board, player, hand): the terminal tables' weight, order and class, and Boards.valid
TABLE_ARRAYS = 4
TURN_NODE_BYTES = 100  # the engine's Tree arrays per node (16 of them, 97 bytes a node)
TERMINAL_BYTES = 27  # the tables' chips in (3 float64) and who is in (3 bools) per terminal


@dataclass(frozen=True)
class Turn3Spec:
    """A three-way turn spot as a person describes it. ``bets`` and ``raises`` are the turn's
    sizes, and the river's unless ``river_bets`` / ``river_raises`` are given (every player
    has the same sizes); ``raise_cap`` counts per street."""

    board: str  # four cards
    range0: str  # player 0's range (first to act on both streets)
    range1: str
    range2: str  # last to act
    pot: float  # chips in the middle at the start (pot / 3 from each player)
    stack: float  # effective stack behind each player at the start of the turn (chips)
    bets: str = "50%, 100%, a"
    raises: str = "100%, a"
    river_bets: str | None = None  # default: bets
    river_raises: str | None = None  # default: raises
    raise_cap: int = 3
    big_blind: float = 10.0  # chips: the smallest bet
    max_memory_mb: float = DEFAULT_MAX_MEMORY_MB
    name: str = "three-way turn"


@dataclass(frozen=True, eq=False)
class Turn3Setup:
    """A validated turn spec: ``base`` the river spot's setup on the four-card board (the
    hands miss the turn's cards; ``base.config`` the turn's betting), the river's sizes and
    the cards the river may be."""

    base: River3Setup
    river_sizes: PlayerSizes
    river_cards: npt.NDArray[np.int64]  # (48,) ascending

    @property
    def spec(self) -> Turn3Spec:
        spec: Turn3Spec = self.base.spec
        return spec

    @property
    def hands(self) -> tuple[int, int, int]:
        return self.base.hands


def validate_turn(spec: Turn3Spec) -> Turn3Setup:
    """Check every field of ``spec``; :class:`SpecError` naming the first bad one
    (``TypeError`` when ``spec`` is not a :class:`Turn3Spec`). The tree's size is checked by
    :func:`estimate_turn`, not here."""
    if not isinstance(spec, Turn3Spec):
        raise TypeError(f"spec must be a Turn3Spec, got {type(spec).__name__}")
    base = validate_fields(spec, 4)
    bets = base.config.sizes[0].bets
    raises = base.config.sizes[0].raises
    if spec.river_bets is not None:
        bets = _sizes("river_bets", spec.river_bets, raise_sizes=False)
    if spec.river_raises is not None:
        raises = _sizes("river_raises", spec.river_raises, raise_sizes=True)
    on_board = set(base.board)
    river = np.array([c for c in range(NUM_CARDS) if c not in on_board], dtype=np.int64)
    return Turn3Setup(base, PlayerSizes(bets, raises), river)


# ----- size -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Turn3Estimate:
    """Size of a three-way turn spot before its arrays are made.

    ``storage_entries[p]``: Σ over player ``p``'s decision nodes (both streets, every river
    card) of actions × ``p``'s hands (a regret and a strategy sum each, float64).
    ``memory_bytes``: those, the walk's scratch (per depth two reach rows per player, value
    rows, and a value row and a strategy row per child — a chance node has 48 — each
    ``max(hands)`` wide), the tree's arrays (:data:`TURN_NODE_BYTES` a node, the terminals'
    row index beside them) and the terminal tables (weights, strength order, classes and
    card removal per board, player and hand; chips in per terminal; three 52 × 52 work
    tables)."""

    nodes: int
    turn_nodes: int  # the turn's betting round (its closing nodes become chance nodes)
    chance_nodes: int
    river_cards: int  # children of each chance node
    decision_nodes: tuple[int, int, int]
    showdown_nodes: int
    fold_nodes: int
    depth: int
    hands: tuple[int, int, int]
    storage_entries: tuple[int, int, int]
    memory_bytes: int

    @property
    def memory_mb(self) -> float:
        return self.memory_bytes / 2**20


def turn_plan(setup: Turn3Setup, max_nodes: int = MAX_TURN3_NODES) -> Turn3Plan:
    """The tree's parts, counted; :class:`SpecError` (field ``tree``) past ``max_nodes``."""
    cfg = setup.base.config
    river = (setup.river_sizes,) * 3
    try:
        return plan_turn3(cfg, (river[0], river[1], river[2]), setup.river_cards.size, max_nodes)
    except TreeTooLarge as exc:
        raise SpecError("tree", str(exc)) from None


def estimate_turn(spec: Turn3Spec | Turn3Setup, plan: Turn3Plan | None = None) -> Turn3Estimate:
    """Node counts and memory (class docstring) from the one-street trees only: nothing as
    large as the whole tree is made."""
    setup = spec if isinstance(spec, Turn3Setup) else validate_turn(spec)
    pl = plan if plan is not None else turn_plan(setup)
    hands = setup.hands
    cards = pl.cards
    dec = [0, 0, 0]
    entries = [0, 0, 0]
    showdowns = len(pl.allin) * cards
    folds = 0
    widest = cards  # a chance node's children
    parts = [(pl.turn, 1)] + [(r, cards) for r in pl.river.values()]
    for k, (t, times) in enumerate(parts):
        d = t.decision_nodes()
        actors = t.player[d].astype(np.int64)
        actions = t.num_children[d]
        for p in range(PLAYERS):
            dec[p] += times * int(np.sum(actors == p))
            entries[p] += times * int(actions[actors == p].sum()) * hands[p]
        if k > 0:
            showdowns += times * int(np.sum(t.kind == SHOWDOWN))
        folds += times * int(np.sum(t.kind == FIXED))
        widest = max(widest, int(actions.max()) if actions.size else 0)
    chance = int(np.sum(pl.turn.kind == SHOWDOWN))
    river_depth = max((int(r.depth.max()) + 1 for r in pl.river.values()), default=1)
    depth = int(pl.turn.depth.max()) + river_depth  # a chance node, then the river's round
    width = max(hands)
    scratch = ((depth + 1) * (2 * PLAYERS + 2 + 2 * widest) + 5 * widest) * width * BYTES
    boards = 1 + cards
    tables = (
        TABLE_ARRAYS * boards * PLAYERS * width * BYTES
        + 3 * NUM_CARDS**2 * BYTES
        + TERMINAL_BYTES * (showdowns + folds)
        + BYTES * pl.num_nodes
    )
    memory = 2 * BYTES * sum(entries) + scratch + TURN_NODE_BYTES * pl.num_nodes + tables
    return Turn3Estimate(
        nodes=pl.num_nodes,
        turn_nodes=pl.turn.num_nodes,
        chance_nodes=chance,
        river_cards=cards,
        decision_nodes=(dec[0], dec[1], dec[2]),
        showdown_nodes=showdowns,
        fold_nodes=folds,
        depth=depth,
        hands=hands,
        storage_entries=(entries[0], entries[1], entries[2]),
        memory_bytes=int(memory),
    )


def checked_turn(spec: Turn3Spec | Turn3Setup) -> tuple[Turn3Setup, Turn3Plan, Turn3Estimate]:
    """Validate, count the tree and refuse (field ``max_memory_mb``) a spot whose per-hand
    engine would need more memory than the spec allows — before the whole tree is laid out."""
    setup = spec if isinstance(spec, Turn3Setup) else validate_turn(spec)
    pl = turn_plan(setup)
    est = estimate_turn(setup, pl)
    refusal = over_memory(est.memory_mb, setup.base.max_memory_mb, "this spot")
    if refusal:
        raise SpecError("max_memory_mb", f"{refusal} ({est.nodes:,} nodes)")
    return setup, pl, est


def turn_tree(setup: Turn3Setup, plan: Turn3Plan) -> Turn3Tree:
    """The whole two-street tree, its chance children labelled by card."""
    names = [f"d:{card_str(int(c))}" for c in setup.river_cards]
    return build_turn3_tree(plan, setup.river_cards, names)


# ----- each player's hands on every board (the poker half of the engine's terminal tables) ---


class Turn3Hands(NamedTuple):
    """Per board ``b`` (0 the turn's four cards, ``k + 1`` with river card ``k``) and player
    ``p`` (``W`` = the longest hand list; entries past a player's hands are padding)."""

    cards: npt.NDArray[np.int64]  # (3, W, 2) each hand's cards, -1 past the player's hands
    # (B, 3, W) range weights; 0 for a hand meeting the board or that no deal on it holds
    weight: npt.NDArray[np.float64]
    order: npt.NDArray[np.int64]  # (B, 3, W) the hands of positive weight by ascending strength
    cls: npt.NDArray[np.int64]  # (B, 3, W) their strength classes on the board, 0 … K_b − 1
    num: npt.NDArray[np.int64]  # (B, 3) hands of positive weight
    num_classes: int  # max K_b (a four-card board: every hand in class 0)
    valid: npt.NDArray[np.float64]  # (B, 3, W) 1 where the hand misses the board
    z: float  # Σ w0·w1·w2 over the triples disjoint from each other and the turn's cards


def _board_block(
    board: npt.NDArray[np.int64],
    combos: tuple[npt.NDArray[np.int64], ...],
    weights: tuple[npt.NDArray[np.float64], ...],
    width: int,
) -> tuple[npt.NDArray[np.float64], npt.NDArray[np.int64], npt.NDArray[np.int64],
           npt.NDArray[np.int64], int]:  # fmt: skip
    """One board's weights, order, classes, count per player and number of classes
    (:class:`Turn3Hands`). Whether a deal holds a hand: the pairs of the others' hands
    disjoint from it, each other and the board, counted with 0/1 weights (exact)."""
    full = np.zeros((PLAYERS, NUM_COMBOS))
    meets = np.zeros(NUM_COMBOS, dtype=bool)
    for c in board.tolist():
        meets |= (COMBOS[:, 0] == c) | (COMBOS[:, 1] == c)
    for p in range(PLAYERS):
        full[p, combos[p]] = np.where(meets[combos[p]], 0.0, weights[p])
    held = (full > 0.0).astype(np.float64)
    weight = np.zeros((PLAYERS, width))
    for p in range(PLAYERS):
        pairs = _pair_sums(held[(p + 1) % 3], held[(p + 2) % 3])
        weight[p, : combos[p].size] = np.where(pairs[combos[p]] > 0.5, full[p, combos[p]], 0.0)
    if board.size == 5:
        strength = rank_hands(board, COMBOS)
    else:
        strength = np.zeros(NUM_COMBOS, dtype=np.int64)
    live = [np.flatnonzero(weight[p, : combos[p].size] > 0.0) for p in range(PLAYERS)]
    ranks = np.unique(np.concatenate([strength[combos[p][live[p]]] for p in range(PLAYERS)]))
    order = np.zeros((PLAYERS, width), dtype=np.int64)
    cls = np.zeros((PLAYERS, width), dtype=np.int64)
    num = np.zeros(PLAYERS, dtype=np.int64)
    for p in range(PLAYERS):
        k = np.searchsorted(ranks, strength[combos[p][live[p]]])
        by = np.argsort(k, kind="stable")
        num[p] = by.size
        order[p, : by.size] = live[p][by]
        cls[p, : by.size] = k[by]
    return weight, order, cls, num, int(ranks.size)


def turn3_hands(setup: Turn3Setup) -> Turn3Hands:
    """Every board's hands (:class:`Turn3Hands`): the turn's, then one per river card."""
    base = setup.base
    width = max(setup.hands)
    turn = np.array(base.board, dtype=np.int64)
    boards = [turn] + [np.append(turn, c) for c in setup.river_cards.tolist()]
    blocks = [_board_block(b, base.combos, base.hand_weights, width) for b in boards]
    cards = np.full((PLAYERS, width, 2), -1, dtype=np.int64)
    full = np.zeros((PLAYERS, NUM_COMBOS))
    valid = np.zeros((len(boards), PLAYERS, width))
    for p in range(PLAYERS):
        n = base.combos[p].size
        cards[p, :n] = COMBOS[base.combos[p]]
        full[p, base.combos[p]] = blocks[0][0][p, :n]
        valid[0, p, :n] = 1.0  # (the hands miss the turn's cards)
        for k, card in enumerate(setup.river_cards.tolist()):
            valid[k + 1, p, :n] = np.all(cards[p, :n] != card, axis=1)
    z = float(full[0] @ _pair_sums(full[1], full[2]))
    if not z > 0.0:
        raise ValueError("weights: no three hands of the ranges fit together with the board")
    return Turn3Hands(
        cards=cards,
        weight=np.stack([b[0] for b in blocks]),
        order=np.stack([b[1] for b in blocks]),
        cls=np.stack([b[2] for b in blocks]),
        num=np.stack([b[3] for b in blocks]),
        num_classes=max(b[4] for b in blocks),
        valid=valid,
        z=z,
    )


# ----- the spot as an explicit-deal MultiGame (the brute-force reference) ---------------------


def turn3_multigame(spec: Turn3Spec | Turn3Setup, max_deals: int = MAX_DEALS) -> MultiGame:
    """The spot as a :class:`~solver.games.multiway.MultiGame` with its deals listed, as
    :func:`~solver.games.holdem3.river3_multigame` builds a river: a deal is one hand per
    player with no card in common nor with the turn's four, of chance ``w0 · w1 · w2``
    normalised to 1; board 0 is the turn, board ``k + 1`` the turn and river card ``k``
    (``deal_valid`` False for the deals holding it; each card the deal leaves has chance
    1 / 42); each terminal's payoffs per deal come from the 7-card strengths on its board.

    Refused with a :class:`SpecError` before anything big is allocated: more than
    ``max_deals`` deals (field ``max_deals``), or payoffs over the spec's memory cap (field
    ``max_memory_mb``). Meant for small ranges and small trees."""
    if isinstance(max_deals, bool) or not isinstance(max_deals, (int, np.integer)) or max_deals < 1:
        raise SpecError("max_deals", f"must be a whole number ≥ 1, got {max_deals!r:.40}")
    setup, pl, _est = checked_turn(spec)
    base = setup.base
    count = round(triple_weight(*_held(base.weights)))
    if count > max_deals:
        raise SpecError(
            "max_deals",
            f"these ranges make {count:,} deals (triples of hands with no card in common), "
            f"more than the {int(max_deals):,} allowed: use smaller ranges",
        )
    terminals = pl.num_nodes  # a bound: the terminals are fewer than the nodes
    payoff_mb = terminals * PLAYERS * count * BYTES / 2**20
    refusal = over_memory(payoff_mb, base.max_memory_mb, "the deals' payoffs")
    if refusal:
        raise SpecError("max_memory_mb", refusal)
    tree = turn_tree(setup, pl)

    union, deals, deal_weight = deal_list(base.combos, base.hand_weights)
    hand_cards = COMBOS[union].astype(np.int64)
    river = setup.river_cards
    num_boards = 1 + river.size
    board_cards = np.full((num_boards, 5), -1, dtype=np.int64)
    board_cards[:, :4] = base.board
    board_cards[1:, 4] = river
    held = hand_cards[deals]  # (D, 3, 2)
    deal_valid = np.ones((num_boards, deals.shape[0]), dtype=bool)
    for k, c in enumerate(river.tolist()):
        deal_valid[k + 1] = ~np.any(held == c, axis=(1, 2))
    strength = np.stack(
        [np.zeros(union.size, dtype=np.int64)]
        + [rank_hands(board_cards[b], hand_cards) for b in range(1, num_boards)]
    )  # (B, H), -1 for a hand meeting the board

    n = tree.num_nodes
    terminal = tree.terminal_nodes()
    terminal_row = np.full(n, -1, dtype=np.int64)
    terminal_row[terminal] = np.arange(terminal.size)
    payoff = np.zeros((terminal.size, PLAYERS, deals.shape[0]))
    for row, t in enumerate(terminal.tolist()):
        live = tree.active[t]
        b = int(tree.board[t])
        if tree.kind[t] == FIXED:
            win = np.repeat(live[:, None].astype(np.float64), deals.shape[0], axis=1)
        else:
            s = strength[b][deals].T.astype(np.float64)  # (3, D)
            st = np.where(live[:, None], s, -np.inf)
            win = (st == st.max(axis=0)).astype(np.float64)
        pot = tree.contrib[t].sum()
        pay = pot * win / win.sum(axis=0) - tree.contrib[t][:, None]
        payoff[row] = np.where(deal_valid[b][None, :], pay, 0.0)

    return deal_list_game(
        setup.spec.name,
        tree,
        board=tree.board.copy(),
        chance_weight=tree.chance_weight.copy(),
        board_cards=board_cards,
        hand_cards=hand_cards,
        deals=deals,
        deal_weight=deal_weight,
        deal_valid=deal_valid,
        terminal_row=terminal_row,
        payoff=payoff,
        meta={
            "kind": "turn3",
            "board": base.board,
            "pot": base.config.pot,
            "stack": base.config.stack,
            "combos": tuple(c.copy() for c in base.combos),
            "union": union,
        },
    )
