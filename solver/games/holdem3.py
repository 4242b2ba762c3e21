"""The hold'em three-way river spot (issue 49; docs/multiway.md): what a person describes
(:class:`River3Spec`), its checks (:func:`validate`, every error a
:class:`~solver.games.spec.SpecError` naming the field), its size before anything big is
allocated (:func:`estimate`), each player's hands, and the spot as an explicit-deal
:class:`~solver.games.multiway.MultiGame` (:func:`river3_multigame`) — the brute-force
reference a faster per-hand engine is checked against.

Conventions (shared with the three-way showdown, :mod:`solver.poker.showdown3`): players 0, 1
and 2 act in that order on the river (0 first, 2 last), each with ``stack`` chips behind; the
starting ``pot`` is dead money counted as ``pot / 3`` from each player, so payoffs (share won
minus chips in) sum to zero. The betting is :mod:`solver.tree.betting3`'s. Hands are combo
indices into :data:`solver.poker.cards.COMBOS` (0..1325); a player's hands are the combos of
its range with positive weight that share no card with the board.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt

from solver.games.multiway import MultiGame
from solver.games.spec import (
    DEFAULT_MAX_MEMORY_MB,
    MAX_CHIPS,
    MAX_NAME,
    MAX_RAISE_CAP,
    MAX_STACK_BB,
    SpecError,
    _can_meet,
    _number,
    _range,
    machine_memory_mb,
)
from solver.poker.cards import COMBOS, NUM_CARDS, NUM_COMBOS, card_str, parse_board
from solver.poker.handeval import rank_hands
from solver.quoting import brief
from solver.tree.betting import PlayerSizes, TreeTooLarge
from solver.tree.betting3 import MAX_BETTING3_NODES, Betting3Config, Betting3Tree, build_betting3
from solver.tree.betting3_turn import Turn3Tree
from solver.tree.kinds import FIXED, SHOWDOWN
from solver.tree.sizes import SizeError, parse_sizes

__all__ = [
    "MAX_DEALS",
    "RANGE_FIELDS",
    "River3Estimate",
    "River3Setup",
    "River3Spec",
    "betting_tree",
    "checked",
    "estimate",
    "list_deals",
    "over_memory",
    "river3_multigame",
    "triple_weight",
    "validate",
    "validate_fields",
]

PLAYERS = 3
RANGE_FIELDS = ("range0", "range1", "range2")
"""The spec's range fields, by player (0 first to act)."""
BYTES = 8  # float64 storage
NODE_BYTES = 48  # the public tree's arrays per node (as the heads-up estimate counts them)


@dataclass(frozen=True)
class River3Spec:
    """A three-way river spot as a person describes it. Sizes use the solver syntax (33%,
    2.5x, a, 3e, 120c); every player has the same bet and raise sizes."""

    board: str  # five cards
    range0: str  # player 0's range (first to act)
    range1: str
    range2: str  # last to act
    pot: float  # chips in the middle at the start (pot / 3 from each player)
    stack: float  # effective stack behind each player (chips)
    bets: str = "50%, 100%, a"
    raises: str = "100%, a"
    raise_cap: int = 3
    big_blind: float = 10.0  # chips: the smallest bet
    max_memory_mb: float = DEFAULT_MAX_MEMORY_MB
    name: str = "three-way river"


@dataclass(frozen=True, eq=False)
class River3Setup:
    """A validated spec: the board's cards, each player's range weights (1,326,) with the
    board's combos removed, its hands (combo indices, ascending) and their weights, and the
    betting config."""

    spec: Any  # the River3Spec (a turn spot's setup: its Turn3Spec)
    board: tuple[int, ...]  # five cards (a turn spot's setup: four)
    weights: tuple[npt.NDArray[np.float64], ...]  # 3 × (1326,)
    combos: tuple[npt.NDArray[np.int64], ...]  # 3 × (n_p,) combo indices
    hand_weights: tuple[npt.NDArray[np.float64], ...]  # 3 × (n_p,)
    config: Betting3Config
    max_memory_mb: float  # the spec's cap, as a number

    @property
    def hands(self) -> tuple[int, int, int]:
        return (self.combos[0].size, self.combos[1].size, self.combos[2].size)


# ----- triples of hands ------------------------------------------------------------------------

_PAIR = np.full((NUM_CARDS, NUM_CARDS), -1, dtype=np.int64)  # combo of {a, c}, -1 if a == c
_PAIR[COMBOS[:, 0], COMBOS[:, 1]] = np.arange(NUM_COMBOS)
_PAIR[COMBOS[:, 1], COMBOS[:, 0]] = np.arange(NUM_COMBOS)
_CARD_OF = np.zeros((NUM_COMBOS, NUM_CARDS))  # 1 where the combo holds the card
_CARD_OF[np.arange(NUM_COMBOS), COMBOS[:, 0]] = 1.0
_CARD_OF[np.arange(NUM_COMBOS), COMBOS[:, 1]] = 1.0


def _pair_sums(f: npt.NDArray[np.float64], g: npt.NDArray[np.float64]) -> npt.NDArray[np.float64]:
    """(1326,): for each combo ``h``, the sum of ``f(h') g(h'')`` over the pairs with ``h``,
    ``h'``, ``h''`` pairwise disjoint. Two distinct combos share at most one card, so
    ``[h' ∩ h'' = ∅] = 1 − |h' ∩ h''| + [h' = h'']`` over the combos disjoint from ``h``:
    totals, less the per-card products, plus the same-combo products — O(1326 · 52)."""
    a, b = COMBOS[:, 0], COMBOS[:, 1]
    rows = np.arange(NUM_COMBOS)

    def restricted(w: npt.NDArray[np.float64]) -> tuple[npt.NDArray[np.float64], ...]:
        per_card = w @ _CARD_OF  # (52,)
        total = w.sum() - per_card[a] - per_card[b] + w  # combos disjoint from h
        pair_w = np.where(_PAIR >= 0, w[_PAIR], 0.0)  # (52, 52): weight of {x, c}
        cards = per_card[None, :] - pair_w[a] - pair_w[b]  # (1326, 52), c outside h
        cards[rows, a] = 0.0
        cards[rows, b] = 0.0
        return total, cards

    sf, cf = restricted(f)
    sg, cg = restricted(g)
    fg = f * g
    fg_card = fg @ _CARD_OF
    same = fg.sum() - fg_card[a] - fg_card[b] + fg
    return sf * sg - (cf * cg).sum(axis=1) + same


def _held(weights: Sequence[npt.NDArray[np.float64]]) -> list[npt.NDArray[np.float64]]:
    """1.0 where a weight is positive, else 0.0: with them :func:`triple_weight` counts."""
    return [(w > 0).astype(np.float64) for w in weights]


def triple_weight(
    w0: npt.NDArray[np.float64], w1: npt.NDArray[np.float64], w2: npt.NDArray[np.float64]
) -> float:
    """Σ w0(h0) w1(h1) w2(h2) over the triples of combos with no card in common (weights
    over the 1,326 combos). With 0/1 weights: the number of such triples — the deals."""
    return float(w0 @ _pair_sums(w1, w2))


# ----- validation -----------------------------------------------------------------------------


def _sizes(field: str, text: object, raise_sizes: bool) -> tuple:
    if not isinstance(text, str):
        raise SpecError(field, f"must be size text like '33%, 75%, a', got {type(text).__name__}")
    try:
        return parse_sizes(text, raise_sizes=raise_sizes, field=field)
    except SizeError as exc:
        raise SpecError(field, str(exc).partition(":")[2].strip()) from None


def validate(spec: River3Spec) -> River3Setup:
    """Check every field of ``spec``; :class:`SpecError` naming the first bad one
    (``TypeError`` when ``spec`` is not a :class:`River3Spec`). The tree's size is checked by
    :func:`estimate`, not here."""
    if not isinstance(spec, River3Spec):
        raise TypeError(f"spec must be a River3Spec, got {type(spec).__name__}")
    return validate_fields(spec, 5)


def validate_fields(spec: Any, board_cards: int) -> River3Setup:
    """:func:`validate`'s checks on any spec with :class:`River3Spec`'s fields and a board of
    ``board_cards`` cards (5: a river, 4: a turn, :mod:`solver.games.holdem3_turn`); the
    setup's ``board`` is then that many cards and its hands miss them."""
    if not isinstance(spec.name, str) or len(spec.name) > MAX_NAME:
        raise SpecError("name", f"must be text of at most {MAX_NAME} characters")
    if not isinstance(spec.board, str):
        raise SpecError("board", f"must be text like 'Ks 7d 2c 9h 3s', got {brief(spec.board)}")
    try:
        cards = parse_board(spec.board)
    except ValueError as exc:
        raise SpecError("board", str(exc)) from None
    if len(cards) != board_cards:
        street = {5: "river: five", 4: "turn: four"}[board_cards]
        raise SpecError("board", f"a three-way {street} cards, got {len(cards)}")
    chips = {"maximum": MAX_CHIPS, "whole": True, "unit": " chips"}
    pot = _number("pot", spec.pot, **chips)  # type: ignore[arg-type]
    stack = _number("stack", spec.stack, **chips)  # type: ignore[arg-type]
    big_blind = _number("big_blind", spec.big_blind, maximum=MAX_CHIPS, unit=" chips")
    if stack / big_blind > MAX_STACK_BB:
        raise SpecError(
            "stack",
            f"{stack:,.0f} chips is {stack / big_blind:,.0f} big blinds of {big_blind:g}; at "
            f"most {MAX_STACK_BB:,} (lower the stack or raise the big blind)",
        )
    raise_cap = _number(
        "raise_cap", spec.raise_cap, positive=False, maximum=MAX_RAISE_CAP, whole=True
    )
    memory = _number("max_memory_mb", spec.max_memory_mb, maximum=machine_memory_mb(), unit=" MB")
    bets = _sizes("bets", spec.bets, raise_sizes=False)
    raises = _sizes("raises", spec.raises, raise_sizes=True)

    blocked = np.zeros(NUM_COMBOS, dtype=bool)
    for c in cards:
        blocked |= (COMBOS[:, 0] == c) | (COMBOS[:, 1] == c)
    weights = []
    for name in RANGE_FIELDS:
        w = np.where(blocked, 0.0, _range(name, getattr(spec, name)))
        if not np.any(w > 0):
            raise SpecError(name, "no combos left once the board's cards are removed")
        weights.append(w)
    if not _can_meet(weights[0], weights[1]):
        raise SpecError("range1", "no hand of it can be dealt with a hand of range0 (every "
                        "pair shares a card)")  # fmt: skip
    if triple_weight(*_held(weights)) == 0:
        raise SpecError("range2", "no hand of it can be dealt with hands of range0 and range1 "
                        "(every triple shares a card)")  # fmt: skip
    combos = tuple(np.flatnonzero(w > 0).astype(np.int64) for w in weights)
    ps = PlayerSizes(bets, raises)
    config = Betting3Config(int(pot), int(stack), (ps, ps, ps), big_blind, int(raise_cap))
    return River3Setup(
        spec=spec,
        board=tuple(cards),
        weights=tuple(weights),
        combos=combos,
        hand_weights=tuple(w[c] for w, c in zip(weights, combos, strict=True)),
        config=config,
        max_memory_mb=memory,
    )


# ----- size -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class River3Estimate:
    """Size of a three-way river spot before its arrays are made.

    ``storage_entries[p]``: Σ over player ``p``'s decision nodes of actions × ``p``'s hands
    (one regret and one strategy sum each, float64). ``memory_bytes``: those two arrays for
    the three players, plus the walk's scratch (per depth, a reach row per player, a value
    row and a strategy row per action, each ``max(hands)`` wide), plus the public tree's
    arrays (:data:`NODE_BYTES` a node)."""

    nodes: int
    decision_nodes: tuple[int, int, int]
    showdown_nodes: int
    fold_nodes: int  # FIXED: one player left
    depth: int  # the longest line's number of actions
    hands: tuple[int, int, int]
    storage_entries: tuple[int, int, int]
    memory_bytes: int

    @property
    def memory_mb(self) -> float:
        return self.memory_bytes / 2**20


def betting_tree(setup: River3Setup, max_nodes: int = MAX_BETTING3_NODES) -> Betting3Tree:
    """The card-free tree of ``setup``; :class:`SpecError` (field ``tree``) once it passes
    ``max_nodes`` nodes while being built."""
    try:
        return build_betting3(setup.config, max_nodes)
    except TreeTooLarge as exc:
        raise SpecError("tree", str(exc)) from None


def estimate(spec: River3Spec | River3Setup, tree: Betting3Tree | None = None) -> River3Estimate:
    """Node counts and the memory the per-hand engine's arrays need (class docstring), from
    the card-free tree only (built under its node limit: an absurd spec is refused fast)."""
    setup = spec if isinstance(spec, River3Setup) else validate(spec)
    t = tree if tree is not None else betting_tree(setup)
    hands = setup.hands
    dec = t.decision_nodes()
    actors = t.player[dec].astype(np.int64)
    actions = t.num_children[dec]
    counts = tuple(int(np.sum(actors == p)) for p in range(PLAYERS))
    entries = tuple(int(actions[actors == p].sum()) * hands[p] for p in range(PLAYERS))
    depth = int(t.depth.max())
    widest = int(actions.max()) if actions.size else 0
    scratch = (depth + 1) * (PLAYERS + 1 + widest) * max(hands) * BYTES
    memory = 2 * BYTES * sum(entries) + scratch + NODE_BYTES * t.num_nodes
    return River3Estimate(
        nodes=t.num_nodes,
        decision_nodes=(counts[0], counts[1], counts[2]),
        showdown_nodes=int(np.sum(t.kind == SHOWDOWN)),
        fold_nodes=int(np.sum(t.kind == FIXED)),
        depth=depth,
        hands=hands,
        storage_entries=(entries[0], entries[1], entries[2]),
        memory_bytes=int(memory),
    )


def over_memory(mb: float, allowed_mb: float, what: str) -> str:
    """The refusal of ``what`` needing ``mb`` MB over ``allowed_mb`` ("" when it fits)."""
    if mb <= allowed_mb:
        return ""
    shown = f"{mb:,.0f}" if mb >= 10 else f"{mb:.3g}"
    cap = f"{allowed_mb:,.0f}" if allowed_mb >= 10 else f"{allowed_mb:.3g}"
    return f"{what} needs {shown} MB, over the {cap} MB allowed"


def checked(spec: River3Spec | River3Setup) -> tuple[River3Setup, Betting3Tree, River3Estimate]:
    """Validate, build the card-free tree and refuse (field ``max_memory_mb``) a spot whose
    per-hand engine would need more memory than the spec allows."""
    setup = spec if isinstance(spec, River3Setup) else validate(spec)
    tree = betting_tree(setup)
    est = estimate(setup, tree)
    refusal = over_memory(est.memory_mb, setup.max_memory_mb, "this spot")
    if refusal:
        raise SpecError("max_memory_mb", f"{refusal} ({est.nodes:,} nodes)")
    return setup, tree, est


# ----- the spot as an explicit-deal MultiGame (the brute-force reference) ---------------------


def deal_list(
    combos: tuple[npt.NDArray[np.int64], ...], hand_weights: Sequence[npt.NDArray[np.float64]]
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64], npt.NDArray[np.float64]]:
    """(union, deals, deal_weight): the ascending union of the players' ``combos``, every
    triple of card-disjoint hands as ``(D, 3)`` positions in ``union``, and each deal's
    probability ``(D,)`` (the product of its hands' weights, normalised to sum 1)."""
    union = np.union1d(np.union1d(combos[0], combos[1]), combos[2])
    where = np.searchsorted(union, np.arange(NUM_COMBOS))  # position of a combo in union
    local = list_deals(combos)
    deals = np.stack([where[combos[p][local[:, p]]] for p in range(PLAYERS)], axis=1)
    weight = np.prod([hand_weights[p][local[:, p]] for p in range(PLAYERS)], axis=0)
    return union, deals.astype(np.int64), weight / weight.sum()


def deal_list_game(
    name: str, tree: Betting3Tree | Turn3Tree, *, board: npt.NDArray[np.int64],
    chance_weight: npt.NDArray[np.float64], board_cards: npt.NDArray[np.int64],
    hand_cards: npt.NDArray[np.int64], deals: npt.NDArray[np.int64],
    deal_weight: npt.NDArray[np.float64], deal_valid: npt.NDArray[np.bool_],
    terminal_row: npt.NDArray[np.int64], payoff: npt.NDArray[np.float64],
    meta: dict[str, Any],
) -> MultiGame:  # fmt: skip
    """The three-way deal-list :class:`MultiGame` of ``tree`` (river or turn): its nodes
    copied, ``[action, hand]`` blocks of all ``hand_cards.shape[0]`` hands in preorder, and
    the given per-node ``board``/``chance_weight``, boards, deals and terminal payoffs."""
    n = tree.num_nodes
    offset = np.full(n, -1, dtype=np.int64)
    pre = tree.preorder()
    sizes = tree.num_children[pre] * hand_cards.shape[0]
    offset[pre] = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    return MultiGame(
        name=name,
        num_players=PLAYERS,
        kind=tree.kind.copy(),
        player=tree.player.copy(),
        parent=tree.parent.copy(),
        first_child=tree.first_child.copy(),
        num_children=tree.num_children.copy(),
        depth=tree.depth.copy(),
        offset=offset,
        board=board,
        chance_weight=chance_weight,
        contrib=tree.contrib.copy(),
        active=tree.active.copy(),
        board_cards=board_cards,
        hand_cards=hand_cards,
        deals=deals,
        deal_weight=deal_weight,
        deal_valid=deal_valid,
        terminal_row=terminal_row,
        payoff=payoff,
        labels=list(tree.labels),
        card_names=[card_str(c) for c in range(NUM_CARDS)],
        meta=meta,
    )


MAX_DEALS = 20_000
"""Default cap on the deals :func:`river3_multigame` lists (its payoffs are terminals × 3 ×
deals numbers)."""
_CHUNK = 1 << 20  # (pair, hand) cells looked at per step while listing the deals


def _masks(combos: npt.NDArray[np.int64]) -> npt.NDArray[np.uint64]:
    """Each combo's two cards as a 52-bit mask."""
    one = np.uint64(1)
    c = COMBOS[combos].astype(np.uint64)
    return (one << c[:, 0]) | (one << c[:, 1])


def list_deals(combos: tuple[npt.NDArray[np.int64], ...]) -> npt.NDArray[np.int64]:
    """(D, 3): every triple of positions (into each player's ``combos``) of combos with no card
    in common, in lexicographic order; the work is in chunks of :data:`_CHUNK` cells."""
    m0, m1, m2 = (_masks(c) for c in combos)
    i0, i1 = np.nonzero((m0[:, None] & m1[None, :]) == 0)
    pair = m0[i0] | m1[i1]
    step = max(1, _CHUNK // max(1, m2.size))
    out = []
    for lo in range(0, pair.size, step):
        k, i2 = np.nonzero((pair[lo : lo + step, None] & m2[None, :]) == 0)
        out.append(np.stack([i0[lo + k], i1[lo + k], i2], axis=1))
    if not out:
        return np.zeros((0, 3), dtype=np.int64)
    return np.concatenate(out).astype(np.int64)


def river3_multigame(spec: River3Spec | River3Setup, max_deals: int = MAX_DEALS) -> MultiGame:
    """The spot as a :class:`~solver.games.multiway.MultiGame` with its deals listed: the
    hands are the union of the three players' combos (ascending combo index), a deal is one
    hand per player with no card in common, of chance ``w0 · w1 · w2`` normalised to 1, and
    each terminal's payoffs per deal come from the 7-card strengths
    (:func:`solver.poker.handeval.rank_hands`): the best hand among the players still in
    takes the pot, ties split it.

    Refused with a :class:`SpecError` before anything big is allocated: more than
    ``max_deals`` deals (field ``max_deals``), or payoffs over the spec's memory cap (field
    ``max_memory_mb``). Meant for small ranges: the reference a faster engine is checked
    against, and solvable by :class:`~solver.cfr.multi_engine.MultiEngine`."""
    if isinstance(max_deals, bool) or not isinstance(max_deals, (int, np.integer)) or max_deals < 1:
        raise SpecError("max_deals", f"must be a whole number ≥ 1, got {max_deals!r:.40}")
    setup, tree, _est = checked(spec)
    count = round(triple_weight(*_held(setup.weights)))
    if count > max_deals:
        raise SpecError(
            "max_deals",
            f"these ranges make {count:,} deals (triples of hands with no card in common), "
            f"more than the {int(max_deals):,} allowed: use smaller ranges",
        )
    terminal = tree.terminal_nodes()
    payoff_mb = terminal.size * PLAYERS * count * BYTES / 2**20
    refusal = over_memory(payoff_mb, setup.max_memory_mb, "the deals' payoffs")
    if refusal:
        raise SpecError("max_memory_mb", refusal)

    union, deals, deal_weight = deal_list(setup.combos, setup.hand_weights)
    hand_cards = COMBOS[union].astype(np.int64)
    strength = rank_hands(np.array(setup.board, dtype=np.int64), hand_cards)  # (H,)

    n = tree.num_nodes
    terminal_row = np.full(n, -1, dtype=np.int64)
    terminal_row[terminal] = np.arange(terminal.size)
    payoff = np.zeros((terminal.size, PLAYERS, deals.shape[0]))
    s = strength[deals].T.astype(np.float64)  # (3, D)
    for row, t in enumerate(terminal.tolist()):
        live = tree.active[t]
        if tree.kind[t] == FIXED:
            win = np.repeat(live[:, None].astype(np.float64), deals.shape[0], axis=1)
        else:
            st = np.where(live[:, None], s, -np.inf)
            win = (st == st.max(axis=0)).astype(np.float64)
        pot = tree.contrib[t].sum()
        payoff[row] = pot * win / win.sum(axis=0) - tree.contrib[t][:, None]

    return deal_list_game(
        setup.spec.name,
        tree,
        board=np.zeros(n, dtype=np.int64),
        chance_weight=np.ones(n),
        board_cards=np.array([setup.board], dtype=np.int64),
        hand_cards=hand_cards,
        deals=deals,
        deal_weight=deal_weight,
        deal_valid=np.ones((1, deals.shape[0]), dtype=bool),
        terminal_row=terminal_row,
        payoff=payoff,
        meta={
            "kind": "river3",
            "board": setup.board,
            "pot": setup.config.pot,
            "stack": setup.config.stack,
            "combos": tuple(c.copy() for c in setup.combos),  # each player's hands
            "union": union,  # the MultiGame's hand h is combo union[h]
        },
    )
