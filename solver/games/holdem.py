"""Heads-up no-limit hold'em subgames (flop, turn or river) in the common game model.

A :class:`HoldemSpec` is what the UI, the CLI and preset files fill in
(:mod:`solver.games.spec`, re-exported here). :func:`validate` turns it into a checked
:class:`HoldemSetup` (errors name the field), :func:`estimate` reports the tree size and
memory before anything big is allocated, and :func:`build_holdem` builds the
:class:`~solver.games.model.Game`.

Exactness: at a street end every card not on the board is a child, weighted
1 / (52 − board − 4): for two disjoint hands on a 4-card board 44 river cards remain
possible whichever 48 are left. Hands that share a card with the dealt card are zeroed by
the board's validity mask, so every child counts exactly the deals it can be.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import numpy as np
import numpy.typing as npt

from solver.games.build import NodeSpec, finish_boards, flatten, make_hands
from solver.games.model import (
    CHANCE,
    DECISION,
    RUNOUT,
    Boards,
    Game,
    Hands,
    auto_precision,
)
from solver.games.spec import (
    RAKE_FIELDS,
    SPOT_FIELDS,
    HoldemSetup,
    HoldemSpec,
    SpecError,
    SpotField,
    validate,
)
from solver.jit import kernel
from solver.poker.cards import COMBO_INDEX, COMBOS, card_str
from solver.poker.handeval import rank7, rank_boards
from solver.tree.betting import ActionNode, SizeNote, SizeNotes, TreeTooLarge, build_betting_tree

__all__ = [  # the spec lives in solver.games.spec; it is imported from here everywhere
    "RAKE_FIELDS",
    "SPOT_FIELDS",
    "Estimate",
    "HoldemSetup",
    "HoldemSpec",
    "SpecError",
    "SpotField",
    "build_holdem",
    "estimate",
    "over_memory",
    "validate",
]

BYTES_PER_ENTRY = {"float64": 8, "float32": 4}  # storage per cell, by precision


def _swap_map(a: int, b: int) -> list[int]:
    """Card map of the suit transposition (a b)."""
    out = []
    for c in range(52):
        s = c % 4
        t = b if s == a else a if s == b else s
        out.append(c - s + t)
    return out


class Dealer:
    """Which cards a street end deals, with suit isomorphism.

    Suits a and b are interchangeable after a deal when every board on its way — the
    subgame's own board (``start`` cards), then that board with each card dealt so far —
    holds the same ranks in both, and swapping them maps each range onto itself (exactly).
    Only then is the whole history mapped onto itself: a flop that tells two suits apart
    (9s8s2h: hearts hold a 2, diamonds nothing) has played differently in each, so a later
    board that holds the same ranks in both (9s8s2h2d) leaves them apart. A street end
    deals one card per class of interchangeable suits (the lowest suit); the others are
    mirrored through the transposition's permutation row."""

    def __init__(
        self, weights: tuple[npt.NDArray[np.float64], ...], enabled: bool, start: int
    ) -> None:
        self.enabled = enabled
        self.start = start
        self.symmetric = np.zeros((4, 4), dtype=bool)
        self.pairs: list[tuple[int, int]] = []
        if enabled:
            for a in range(4):
                for b in range(a + 1, 4):
                    cmap = np.array(_swap_map(a, b))
                    image = COMBO_INDEX[cmap[COMBOS[:, 0]], cmap[COMBOS[:, 1]]]
                    ok = all(np.array_equal(w, w[image]) for w in weights)
                    self.symmetric[a, b] = self.symmetric[b, a] = ok
        self._memo: dict[tuple[int, ...], list[tuple[int, list[tuple[int, int]]]]] = {}

    def row(self, a: int, b: int) -> int:
        key = (min(a, b), max(a, b))
        if key not in self.pairs:
            self.pairs.append(key)
        return self.pairs.index(key)

    def card_perms(self) -> list[list[int]]:
        return [_swap_map(a, b) for a, b in self.pairs]

    def deals(self, board: tuple[int, ...]) -> list[tuple[int, list[tuple[int, int]]]]:
        """(canonical card, [(mirrored card, permutation row), …]) for every card dealt
        after ``board``: the subgame's board, then the cards dealt on the way, in order."""
        key = tuple(board)
        if key in self._memo:
            return self._memo[key]
        canon = list(range(4))
        if self.enabled:
            # each suit's ranks on every board of the way (the subgame's, then one per deal)
            ranks = [
                [frozenset(c // 4 for c in board[:k] if c % 4 == s) for s in range(4)]
                for k in range(self.start, len(board) + 1)
            ]
            for s in range(4):
                for m in range(s):
                    same = all(r[m] == r[s] for r in ranks)
                    if canon[m] == m and same and self.symmetric[m, s]:
                        canon[s] = m
                        break
        out: list[tuple[int, list[tuple[int, int]]]] = []
        index: dict[int, int] = {}
        for card in range(52):
            if card in board:
                continue
            s = card % 4
            if canon[s] == s:
                index[card] = len(out)
                out.append((card, []))
        for card in range(52):
            s = card % 4
            if card in board or canon[s] == s:
                continue
            base = card - s + canon[s]
            out[index[base]][1].append((card, self.row(canon[s], s)))
        self._memo[key] = out
        return out


@dataclass(frozen=True)
class Estimate:
    """Size of a subgame before it is built."""

    nodes: int
    decision_nodes: int
    chance_nodes: int
    terminal_nodes: int
    hands: tuple[int, int]
    storage_entries: int  # per-action entries (regrets, strategy, sums each hold this many)
    memory_bytes: int  # solver storage + per-board data
    precision: str = "float32"  # the storage precision="auto" picks for this tree

    @property
    def memory_mb(self) -> float:
        return self.memory_bytes / 2**20


BUILD_BYTES_PER_NODE = 1024
"""Memory the Python builder holds per public node while it builds (measured: the srp-flop
preset's 272,370 nodes peak at about 240 MB), rounded up."""
MIN_NODE_LIMIT = 100_000


def node_limit(max_memory_mb: float) -> int:
    """Most public nodes a tree may have under a memory cap (MB): what the builder can hold
    at :data:`BUILD_BYTES_PER_NODE` each, and never fewer than :data:`MIN_NODE_LIMIT` (below
    that the memory estimate itself refuses, with its number)."""
    return max(MIN_NODE_LIMIT, int(max_memory_mb * 2**20 / BUILD_BYTES_PER_NODE))


def betting_tree(setup: HoldemSetup, notes: SizeNotes | None = None) -> ActionNode:
    """The card-free tree of ``setup``; :class:`SpecError` (field ``tree``) when it passes
    :data:`~solver.tree.betting.MAX_BETTING_NODES` nodes while being built. ``notes``, when
    given, collects the sizes played at another amount than asked."""
    try:
        return build_betting_tree(setup.config, notes=notes)
    except TreeTooLarge as exc:
        raise SpecError("tree", str(exc)) from None


def size_notes(setup: HoldemSetup) -> list[SizeNote]:
    """The sizes of ``setup`` played at another amount than asked — raised to the minimum,
    forced or capped all-in, merged — from the card-free tree only (cheap: no cards)."""
    notes = SizeNotes()
    betting_tree(setup, notes)
    return notes.notes()


def estimate(setup: HoldemSetup, tree: ActionNode | None = None, arrays: int = 2) -> Estimate:
    """Node counts and the memory a solve will need, computed without building the tree.

    ``arrays``: per-action arrays the rule keeps — 2 (regrets and strategy sums) for the
    regret-matching rules such as the default DCFR, 3 for predictive and NormalHedge rules,
    which also store the current strategy. Cells are counted at the precision
    ``precision="auto"`` picks for this many cells (float32 past a size).

    Counting stops with :class:`SpecError` (field ``max_memory_mb``) once the public tree
    passes :func:`node_limit` of the spec's memory cap, and the card-free tree is built under
    its own node limit (:func:`betting_tree`): an absurd spec is refused in seconds.
    """
    root = tree if tree is not None else betting_tree(setup)
    dealer = Dealer(setup.weights, setup.spec.isomorphism, len(setup.board))
    limit = node_limit(setup.spec.max_memory_mb)
    try:
        counts = _count(root, setup.board, dealer, limit)
    except TreeTooLarge as exc:
        raise SpecError(
            "max_memory_mb",
            f"this tree passes {exc.limit:,} nodes while being counted: building it takes "
            f"about {BUILD_BYTES_PER_NODE:,} bytes a node, more than the "
            f"{format_mb(setup.spec.max_memory_mb)} MB allowed",
        ) from None
    hands = (int(np.count_nonzero(setup.weights[0])), int(np.count_nonzero(setup.weights[1])))
    entries = counts["actions0"] * hands[0] + counts["actions1"] * hands[1]
    boards = _num_boards(len(setup.board))
    hmax = max(hands)
    board_bytes = boards * 2 * hmax * (8 + 4 + 8)
    runout_bytes = counts["runout_boards"] * 2 * hmax * hmax * 8
    precision = auto_precision(True, int(entries))
    cells = arrays * entries * BYTES_PER_ENTRY[precision]
    memory = cells + board_bytes + runout_bytes + counts["nodes"] * 48
    return Estimate(
        nodes=counts["nodes"],
        decision_nodes=counts["decision"],
        chance_nodes=counts["chance"],
        terminal_nodes=counts["terminal"],
        hands=hands,
        storage_entries=entries,
        memory_bytes=int(memory),
        precision=precision,
    )


_COUNTS = ("nodes", "decision", "chance", "terminal", "actions0", "actions1")


def _count(
    root: ActionNode, board: tuple[int, ...], dealer: Dealer, max_nodes: int
) -> dict[str, int]:
    """Node counts of the public tree built from ``root`` (as :func:`build_holdem` would);
    :class:`TreeTooLarge` as soon as more than ``max_nodes`` nodes are counted.

    Every flop and turn node is met once per board it can be on; a river subtree's counts do
    not depend on the board, so they are counted once (memo by node) and a chance node
    dealing the river multiplies its one child by the number of cards dealt. The work is
    bounded by the nodes counted, which the limit bounds."""
    river: dict[int, list[int]] = {}
    runout_boards: set[frozenset[int]] = set()
    counted = 0

    def tally(n: int) -> None:
        nonlocal counted
        counted += n
        if counted > max_nodes:
            raise TreeTooLarge(counted, max_nodes, "tree")

    def walk(node: ActionNode, cards: tuple[int, ...]) -> list[int]:
        if node.street == 2 and id(node) in river:
            hit = river[id(node)]
            tally(hit[0])
            return hit
        tally(1)
        c = [1, 0, 0, 0, 0, 0]
        if node.kind == DECISION:
            c[1] = 1
            c[4 + node.player] = len(node.children)
            for child in node.children:
                c = [x + y for x, y in zip(c, walk(child, cards), strict=True)]
        elif node.kind == CHANCE:
            c[2] = 1
            deals = dealer.deals(cards)
            child = node.children[0]
            if child.street == 2:  # the river: one count for every card dealt
                sub = walk(child, (*cards, deals[0][0]))
                tally((len(deals) - 1) * sub[0])
                c = [x + len(deals) * y for x, y in zip(c, sub, strict=True)]
            else:
                for card, _mirrors in deals:
                    c = [x + y for x, y in zip(c, walk(child, (*cards, card)), strict=True)]
        else:
            c[3] = 1
            if node.kind == RUNOUT:
                runout_boards.add(frozenset(cards))
        if node.street == 2:
            river[id(node)] = c
        return c

    out = dict(zip(_COUNTS, walk(root, board), strict=True))
    out["runout_boards"] = len(runout_boards)
    return out


def _num_boards(board_len: int) -> int:
    left = 52 - board_len
    if board_len == 5:
        return 1
    if board_len == 4:
        return 1 + left
    return 1 + left + left * (left - 1) // 2


def format_mb(mb: float) -> str:
    """Megabytes for messages: whole MB from 10 up (thousands separated), else 3 digits."""
    return f"{mb:,.0f}" if mb >= 10 else f"{mb:.3g}"


def over_memory(est: Estimate, allowed_mb: float) -> str:
    """The refusal of a tree over the memory allowed ("" when it fits)."""
    if est.memory_mb <= allowed_mb:
        return ""
    return (
        f"this tree needs {format_mb(est.memory_mb)} MB ({est.nodes:,} nodes), over the "
        f"{format_mb(allowed_mb)} MB allowed"
    )


def build_holdem(
    spec: HoldemSpec | HoldemSetup, prune: Callable[[ActionNode], None] | None = None
) -> Game:
    """Validate (if needed), check the memory budget, and build the game. ``prune``, when
    given, edits the card-free tree in place before cards are dealt (it may only remove
    actions: :mod:`solver.study.sizes` drops bet sizes at single nodes)."""
    setup = spec if isinstance(spec, HoldemSetup) else validate(spec)
    notes = SizeNotes()
    tree = betting_tree(setup, notes)
    if prune is not None:
        prune(tree)
    est = estimate(setup, tree)
    refusal = over_memory(est, setup.spec.max_memory_mb)
    if refusal:
        raise SpecError("max_memory_mb", refusal)
    hand_ids = [np.flatnonzero(setup.weights[p] > 0) for p in range(2)]
    hand_cards: list[list[tuple[int, ...]]] = [
        [(int(COMBOS[i, 0]), int(COMBOS[i, 1])) for i in hand_ids[p]] for p in range(2)
    ]

    board_index: dict[frozenset[int], int] = {}
    board_list: list[tuple[int, ...]] = []

    def board_id(cards: tuple[int, ...]) -> int:
        key = frozenset(cards)
        if key not in board_index:
            board_index[key] = len(board_list)
            board_list.append(tuple(sorted(cards)))
        return board_index[key]

    def expand(node: ActionNode, board: tuple[int, ...]) -> NodeSpec:
        b = board_id(board)
        spec_node = NodeSpec(
            node.kind, player=node.player, payoff=node.payoff, board=b, label=node.label
        )
        if node.kind == DECISION:
            spec_node.children = [expand(c, board) for c in node.children]
        elif node.kind == RUNOUT:
            if b not in runout_rows:
                runout_rows[b] = len(runout_rows)
            spec_node.runout = runout_rows[b]
        elif node.kind == CHANCE:
            weight = 1.0 / (52 - len(board) - 4)
            for card, mirrors in dealer.deals(board):
                child = expand(node.children[0], (*board, card))
                child.label = f"d:{card_str(card)}"
                child.weight = weight
                for mirror, row in mirrors:
                    mb = board_id((*board, mirror))
                    # the label of the card dealt on this path: a board reached by two
                    # orders of the same cards must not carry another path's label
                    label = f"d:{card_str(mirror)}"
                    if iso_labels.setdefault(mb, label) != label:
                        raise ValueError(f"board {mb} mirrors both {iso_labels[mb]} and {label}")
                    child.iso.append((mb, row))
                spec_node.children.append(child)
        return spec_node

    dealer = Dealer(setup.weights, setup.spec.isomorphism, len(setup.board))
    iso_labels: dict[int, str] = {}
    runout_rows: dict[int, int] = {}
    root = expand(tree, setup.board)
    hands = make_hands(
        hand_cards,
        [setup.weights[p][hand_ids[p]] for p in range(2)],
        52,
        initial_board=setup.board,
        card_perms=dealer.card_perms(),
    )
    rake = (float(setup.spec.rake_pct), float(setup.spec.rake_cap))
    ftree, labels = flatten(root, (len(hand_cards[0]), len(hand_cards[1])), rake)
    boards = _holdem_boards(hands, board_list, runout_rows)
    names = [[_combo_name(c) for c in hand_cards[p]] for p in range(2)]
    return Game(
        name=setup.spec.name,
        tree=ftree,
        hands=hands,
        boards=boards,
        labels=labels,
        hand_names=names,
        description=(
            f"{setup.spec.name}: board {' '.join(card_str(c) for c in setup.board)}, "
            f"pot {setup.config.pot}, stack {setup.config.stack}{rake_words(*rake)}"
        ),
        iso_labels=iso_labels,
        card_names=[card_str(c) for c in range(52)],
        card_perms=dealer.card_perms(),
        meta={
            "kind": "holdem",
            "board": setup.board,
            "pot": setup.config.pot,
            "stack": setup.config.stack,
            "big_blind": setup.config.big_blind,
            "combos": hand_ids,
            "max_memory_mb": float(setup.spec.max_memory_mb),
            "rake_pct": rake[0],  # % of the pot at each terminal (0: none)
            "rake_cap": rake[1],  # chips (0: no cap)
            "size_notes": notes.notes(),  # sizes played at another amount than asked
        },
        full_builder=lambda: build_holdem(replace(setup.spec, isomorphism=False), prune),
    )


def rake_words(rake_pct: float, rake_cap: float) -> str:
    """The rake as a description says it (", rake 5 % capped at 30 chips"; "" without)."""
    if rake_pct <= 0:
        return ""
    cap = f" capped at {rake_cap:g} chips" if rake_cap > 0 else " (no cap)"
    return f", rake {rake_pct:g} %{cap}"


def _combo_name(cards: tuple[int, ...]) -> str:
    a, b = sorted(cards, reverse=True)
    return card_str(a) + card_str(b)


@kernel
def runout_equity(
    board: npt.NDArray[np.int64],
    cards0: npt.NDArray[np.int64],
    cards1: npt.NDArray[np.int64],
    out: npt.NDArray[np.float64],
) -> None:
    """out[h0, h1] = mean over the turn and river cards still to come (3- or 4-card
    ``board``) of sign(strength of h0 − strength of h1); 0 for hands that share a card with
    each other or with the board. Every completion avoiding both hands counts once."""
    n0 = cards0.shape[0]
    n1 = cards1.shape[0]
    k = board.shape[0]
    used = np.zeros(52, dtype=np.bool_)
    for c in board:
        used[c] = True
    rest = np.array([c for c in range(52) if not used[c]], dtype=np.int64)
    r0 = np.empty(n0, dtype=np.int64)
    r1 = np.empty(n1, dtype=np.int64)
    full = np.empty(5, dtype=np.int64)
    for i in range(k):
        full[i] = board[i]
    out[:, :] = 0.0
    m = rest.shape[0]
    n_pairs = m if k == 4 else m * (m - 1) // 2
    for t in range(n_pairs):
        if k == 4:
            full[4] = rest[t]
        else:
            # unordered pair (a < b) number t
            a = 0
            left = t
            while left >= m - 1 - a:
                left -= m - 1 - a
                a += 1
            full[3] = rest[a]
            full[4] = rest[a + 1 + left]
        for h in range(n0):
            x, y = cards0[h, 0], cards0[h, 1]
            clash = False
            for i in range(5):
                if full[i] == x or full[i] == y:
                    clash = True
            r0[h] = -1 if clash else rank7(
                full[0], full[1], full[2], full[3], full[4], x, y
            )  # fmt: skip
        for h in range(n1):
            x, y = cards1[h, 0], cards1[h, 1]
            clash = False
            for i in range(5):
                if full[i] == x or full[i] == y:
                    clash = True
            r1[h] = -1 if clash else rank7(
                full[0], full[1], full[2], full[3], full[4], x, y
            )  # fmt: skip
        for h in range(n0):
            if r0[h] < 0:
                continue
            for j in range(n1):
                if r1[j] < 0:
                    continue
                if r0[h] > r1[j]:
                    out[h, j] += 1.0
                elif r0[h] < r1[j]:
                    out[h, j] -= 1.0
    left_cards = 52 - k - 4
    completions = left_cards if k == 4 else left_cards * (left_cards - 1) // 2
    for h in range(n0):
        for j in range(n1):
            c0 = cards0[h]
            c1 = cards1[j]
            if c0[0] == c1[0] or c0[0] == c1[1] or c0[1] == c1[0] or c0[1] == c1[1]:
                out[h, j] = 0.0
            else:
                out[h, j] /= completions


def _holdem_boards(
    hands: Hands, boards: list[tuple[int, ...]], runout_rows: dict[int, int] | None = None
) -> Boards:
    cards = hands.cards
    num_hands = hands.num_hands
    nb = len(boards)
    hmax = cards.shape[1]
    valid = np.zeros((nb, 2, hmax), dtype=np.float64)
    rank = np.zeros((nb, 2, hmax), dtype=np.int64)
    river = np.array([len(b) == 5 for b in boards], dtype=bool)
    for b, bcards in enumerate(boards):
        bset = np.zeros(52, dtype=bool)
        bset[list(bcards)] = True
        for p in range(2):
            n = int(num_hands[p])
            hc = cards[p, :n]
            valid[b, p, :n] = ~(bset[hc[:, 0]] | bset[hc[:, 1]])
    if river.any():
        idx = np.flatnonzero(river)
        board_arr = np.array([boards[b] for b in idx], dtype=np.int64)
        for p in range(2):
            n = int(num_hands[p])
            rank[idx, p, :n] = rank_boards(board_arr, cards[p, :n].astype(np.int64))
    rows = runout_rows or {}
    runout_eq = np.zeros((len(rows), 2, hmax, hmax))
    n0, n1 = int(num_hands[0]), int(num_hands[1])
    c0 = cards[0, :n0].astype(np.int64)
    c1 = cards[1, :n1].astype(np.int64)
    for b, r in rows.items():
        e = np.zeros((n0, n1))
        runout_equity(np.array(boards[b], dtype=np.int64), c0, c1, e)
        # hands blocked by the board meet nobody
        e *= valid[b, 0, :n0, None] * valid[b, 1, None, :n1]
        runout_eq[r, 0, :n0, :n1] = e
        runout_eq[r, 1, :n1, :n0] = -e.T
    return finish_boards(hands, valid, rank, river, runout_eq)
