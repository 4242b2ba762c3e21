"""Building a game's flat arrays: trees from :class:`NodeSpec` nodes (:func:`flatten`),
private hands (:func:`make_hands`) and per-board showdown data (:func:`make_boards`,
:func:`finish_boards`), in the layout :mod:`solver.games.model` describes."""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.games.model import DECISION, FIXED, Boards, Hands, Tree, parent_nodes


def finish_boards(
    hands: Hands,
    valid: npt.NDArray[np.float64],
    rank: npt.NDArray[np.int64],
    showdown: npt.NDArray[np.bool_] | None = None,
    runout_eq: npt.NDArray[np.float64] | None = None,
) -> Boards:
    """Add the showdown order (and its contiguous copies) to per-board validity and ranks.

    ``showdown[b]`` False skips boards no showdown is played on (they keep identity order)."""
    nb, _, hmax = valid.shape
    order = np.tile(np.arange(hmax, dtype=np.int32), (nb, 2, 1))
    for b in range(nb):
        if showdown is not None and not showdown[b]:
            continue
        for p in range(2):
            nh = int(hands.num_hands[p])
            order[b, p, :nh] = np.argsort(rank[b, p, :nh], kind="stable")
    sorted_rank = np.take_along_axis(rank, order.astype(np.int64), axis=2)
    sorted_cards = np.empty((nb, 2, hmax, 2), dtype=np.int32)
    for p in range(2):
        sorted_cards[:, p] = hands.cards[p][order[:, p]]
    hmax_ = valid.shape[2]
    runout_eq = np.zeros((0, 2, hmax_, hmax_)) if runout_eq is None else runout_eq
    two_card = bool(hands.cards.shape[2] == 2 and (hands.cards[:, 0, 1] >= 0).all())
    rows = [b for b in range(nb) if two_card and (showdown is None or showdown[b])]
    sd_row = np.full(nb, -1, dtype=np.int32)
    sd_row[rows] = np.arange(len(rows), dtype=np.int32)
    ncards = int(hands.num_cards)
    sd_src = np.zeros((len(rows), 2, 2 * hmax), dtype=np.uint16)
    sd_cstart = np.zeros((len(rows), 2, ncards + 1), dtype=np.int32)
    sd_pack = np.zeros((len(rows), 2, hmax, 2), dtype=np.uint64)
    for r, b in enumerate(rows):
        for p in range(2):
            sd_src[r, p], sd_cstart[r, p], idx = _prefix_layout(hands, rank[b], p, hmax)
            sd_pack[r, p] = pack_showdown(idx, hands.cards[p], hmax)
    return Boards(
        valid, order, rank, sorted_rank, sorted_cards, runout_eq, sd_row, sd_src, sd_cstart,
        sd_pack,
    )  # fmt: skip


def pack_showdown(
    idx: npt.NDArray[np.uint16], cards: npt.NDArray[np.int32], hmax: int
) -> npt.NDArray[np.uint64]:
    """Per hand, the six positions of :func:`_prefix_layout` (H, 6) and the hand's two cards
    (H, 2) as two 64-bit words of four 16-bit fields each: word 0 the positions 0–3, word 1
    the positions 4–5 then the cards (H, 2). The showdown reads a hand's eight small indices
    with two loads instead of eight."""
    f = np.zeros((hmax, 8), dtype=np.uint64)
    f[:, :6] = idx
    n = min(hmax, cards.shape[0])
    f[:n, 6:] = np.maximum(cards[:n], 0)
    out = np.zeros((hmax, 2), dtype=np.uint64)
    for w in range(2):
        for k in range(4):
            out[:, w] |= f[:, 4 * w + k] << np.uint64(16 * k)
    return out


def _prefix_layout(
    hands: Hands, rank: npt.NDArray[np.int64], p: int, hmax: int
) -> tuple[npt.NDArray[np.uint16], npt.NDArray[np.int32], npt.NDArray[np.uint16]]:
    """One board's showdown layout for traverser ``p`` (``rank`` (2, H) its hand strengths):
    the opponent's hands grouped by card and sorted by strength within a card (2H,), each
    card's start in that list (C + 1,), and per ``p`` hand the counts [weaker, not stronger]
    of opponent hands overall and, per card of the hand, within that card's group as
    positions in the list (H, 6)."""
    o = 1 - p
    no = int(hands.num_hands[o])
    nt = int(hands.num_hands[p])
    ncards = int(hands.num_cards)
    ro = rank[o, :no] + 1  # ≥ 0
    rt = rank[p, :nt] + 1
    sorted_ro = np.sort(ro)
    card = np.concatenate([hands.cards[o, :no, 0], hands.cards[o, :no, 1]]).astype(np.int64)
    hand = np.concatenate([np.arange(no), np.arange(no)])
    key = card * (1 << 32) + ro[hand]  # by card, then strength
    perm = np.argsort(key, kind="stable")
    key = key[perm]
    src = np.zeros(2 * hmax, dtype=np.uint16)
    src[: 2 * no] = hand[perm]
    cstart = np.searchsorted(key, np.arange(ncards + 1, dtype=np.int64) * (1 << 32))
    idx = np.zeros((hmax, 6), dtype=np.uint16)
    idx[:nt, 0] = np.searchsorted(sorted_ro, rt, "left")
    idx[:nt, 1] = np.searchsorted(sorted_ro, rt, "right")
    for k in range(2):
        c = hands.cards[p, :nt, k].astype(np.int64) * (1 << 32)
        idx[:nt, 2 + 2 * k] = np.searchsorted(key, c + rt, "left")
        idx[:nt, 3 + 2 * k] = np.searchsorted(key, c + rt, "right")
    return src, cstart.astype(np.int32), idx


class NodeSpec:
    """A node while a tree is being built (Python objects, converted once by ``flatten``)."""

    __slots__ = (
        "board",
        "children",
        "iso",
        "kind",
        "label",
        "payoff",
        "player",
        "runout",
        "weight",
    )

    def __init__(
        self,
        kind: int,
        *,
        player: int = -1,
        payoff: float = 0.0,
        board: int = 0,
        weight: float = 0.0,
        label: str = "",
    ) -> None:
        self.kind = kind
        self.player = player
        self.children: list[NodeSpec] = []
        self.payoff = payoff
        self.board = board
        self.weight = weight
        self.label = label
        self.iso: list[tuple[int, int]] = []  # (board id, permutation row) it stands for
        self.runout = -1  # RUNOUT terminals: row of the board's runout equities


def terminal_rake(payoff: float, rake_pct: float, rake_cap: float) -> float:
    """Chips the house takes at a terminal whose ``payoff`` is (±) the chips each player
    matched there (a fold: the folder's contribution, the winner's uncalled chips go back; a
    showdown or runout: each player's): ``rake_pct`` % of that pot, at most ``rake_cap``
    chips (0: no cap), as Pio, GTO+ and Desktop Postflop rake a postflop pot."""
    pot = 2.0 * abs(payoff)
    r = rake_pct / 100.0 * pot
    return min(r, rake_cap) if rake_cap > 0 else r


def flatten(
    root: NodeSpec, num_hands: tuple[int, int], rake: tuple[float, float] = (0.0, 0.0)
) -> tuple[Tree, list[str]]:
    """Number ``root``'s tree breadth first and pack it into a :class:`Tree`; ``rake`` =
    (percent of the pot, cap in chips, 0 = none) is taken at every terminal
    (:func:`terminal_rake`; (0, 0): no rake, ``Tree.rake`` all 0).

    Decision blocks (offsets into the ``[action, hand]`` arrays and ioffsets into the
    ``[hand]`` arrays) are allocated in depth-first preorder, so the blocks of any subtree
    form one contiguous range.
    """
    order: list[NodeSpec] = [root]
    i = 0
    while i < len(order):
        order.extend(order[i].children)
        i += 1
    n = len(order)
    index = {id(node): k for k, node in enumerate(order)}
    kind = np.empty(n, dtype=np.int8)
    player = np.full(n, -1, dtype=np.int8)
    first_child = np.full(n, -1, dtype=np.int32)
    num_children = np.zeros(n, dtype=np.int32)
    offset = np.full(n, -1, dtype=np.int64)
    ioffset = np.full(n, -1, dtype=np.int64)
    payoff = np.zeros(n, dtype=np.float64)
    rake_at = np.zeros(n, dtype=np.float64)
    board = np.zeros(n, dtype=np.int32)
    weight = np.zeros(n, dtype=np.float64)
    labels: list[str] = []
    iso_start = np.zeros(n, dtype=np.int32)
    iso_count = np.zeros(n, dtype=np.int32)
    runout = np.full(n, -1, dtype=np.int32)
    iso_board: list[int] = []
    iso_perm: list[int] = []
    off = 0
    ioff = 0
    for k, node in enumerate(order):
        iso_start[k] = len(iso_board)
        iso_count[k] = len(node.iso)
        runout[k] = node.runout
        for b, pid in node.iso:
            iso_board.append(b)
            iso_perm.append(pid)
        kind[k] = node.kind
        player[k] = node.player
        payoff[k] = node.payoff
        if node.kind >= FIXED and rake[0] > 0:  # FIXED, SHOWDOWN, RUNOUT
            rake_at[k] = terminal_rake(node.payoff, rake[0], rake[1])
        board[k] = node.board
        weight[k] = node.weight
        labels.append(node.label)
        if node.children:
            first_child[k] = index[id(node.children[0])]
            num_children[k] = len(node.children)
        if node.kind == DECISION and not node.children:
            raise ValueError("a decision node needs at least one action")
    # Storage blocks in depth-first preorder: every subtree's blocks are one contiguous range
    # (the walk's memory order, and a pruned subtree's storage is one range to release).
    pre: list[int] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.kind == DECISION:
            k = index[id(node)]
            offset[k] = off
            ioffset[k] = ioff
            off += len(node.children) * num_hands[node.player]
            ioff += num_hands[node.player]
            pre.append(k)
        stack.extend(reversed(node.children))
    pre_start, pre_end = _preorder_ranges(first_child, num_children, pre, n)
    tree = Tree(
        kind,
        player,
        first_child,
        num_children,
        offset,
        ioffset,
        payoff,
        rake_at,
        board,
        weight,
        iso_start,
        iso_count,
        np.array(iso_board or [0], dtype=np.int32),
        np.array(iso_perm or [0], dtype=np.int32),
        runout,
        np.array(pre, dtype=np.int64),
        pre_start,
        pre_end,
        parent_nodes(first_child, num_children),
    )
    return tree, labels


def _preorder_ranges(
    first_child: npt.NDArray[np.int32], num_children: npt.NDArray[np.int32], pre: list[int], n: int
) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]:
    """(pre_start, pre_end), both (N,): each node's subtree as a range of ``pre`` (decision
    nodes in depth-first preorder; a subtree's are contiguous there). Nodes are numbered
    parents first, so one backward sweep gathers children before their parent."""
    start = np.full(n, np.iinfo(np.int64).max, dtype=np.int64)
    end = np.zeros(n, dtype=np.int64)
    position = np.full(n, -1, dtype=np.int64)
    position[pre] = np.arange(len(pre), dtype=np.int64)
    for k in range(n - 1, -1, -1):
        if position[k] >= 0:
            start[k] = min(start[k], position[k])
            end[k] = max(end[k], position[k] + 1)
        fc = int(first_child[k])
        if fc >= 0:
            kids = slice(fc, fc + int(num_children[k]))
            start[k] = min(start[k], int(start[kids].min()))
            end[k] = max(end[k], int(end[kids].max()))
    empty = end == 0
    start[empty] = 0
    return start, end


def make_hands(
    cards: list[list[tuple[int, ...]]],
    weights: list[npt.NDArray[np.float64]],
    num_cards: int,
    initial_board: tuple[int, ...] = (),
    card_perms: list[list[int]] | None = None,
) -> Hands:
    """Pack both players' hands; ``cards[p][h]`` is the tuple of card indices of hand ``h``.

    ``norm`` is 1 / the total weight of compatible hand pairs (no shared card with each
    other or with ``initial_board``), so that ``norm * w0 * w1`` is the probability of a deal.
    """
    nh = np.array([len(cards[0]), len(cards[1])], dtype=np.int64)
    hmax = int(max(nh.max(), 1))
    arr = np.full((2, hmax, 2), -1, dtype=np.int32)
    w = np.zeros((2, hmax), dtype=np.float64)
    same = np.full((2, hmax), -1, dtype=np.int32)
    keys: list[dict[frozenset[int], int]] = [{}, {}]
    for p in range(2):
        for h, hc in enumerate(cards[p]):
            if len(hc) > 2:
                raise ValueError("a private hand has at most two cards")
            arr[p, h, : len(hc)] = hc
            keys[p][frozenset(hc)] = h
        w[p, : nh[p]] = weights[p]
    for p in range(2):
        for h, hc in enumerate(cards[p]):
            if hc:
                same[p, h] = keys[1 - p].get(frozenset(hc), -1)
    board = set(initial_board)
    total = 0.0
    for h0, c0 in enumerate(cards[0]):
        if board & set(c0):
            continue
        for h1, c1 in enumerate(cards[1]):
            if board & set(c1) or set(c0) & set(c1):
                continue
            total += w[0, h0] * w[1, h1]
    if total <= 0:
        raise ValueError("no pair of hands can be dealt together")
    perms = card_perms or []
    perm = np.tile(np.arange(hmax, dtype=np.int32), (max(len(perms), 1), 2, 1))
    for k, cmap in enumerate(perms):
        for p in range(2):
            for h, hc in enumerate(cards[p]):
                image = frozenset(cmap[c] for c in hc)
                if image not in keys[p]:
                    raise ValueError("a suit permutation maps a hand out of the range")
                perm[k, p, h] = keys[p][image]
    return Hands(nh, arr, w, same, int(num_cards), 1.0 / total, perm, pack_hands(arr, same))


def pack_hands(cards: npt.NDArray[np.int32], same: npt.NDArray[np.int32]) -> npt.NDArray[np.uint64]:
    """(2, H): each hand's two cards and ``same`` + 1 in one word (:class:`Hands`'s ``pack``;
    a missing card, -1, is stored as 0 — the packed fold only runs on two-card hands)."""
    c = np.maximum(cards, 0).astype(np.uint64)
    s = (same.astype(np.int64) + 1).astype(np.uint64)
    return c[:, :, 0] | (c[:, :, 1] << np.uint64(16)) | (s << np.uint64(32))


def make_boards(
    hands: Hands,
    boards: list[tuple[int, ...]],
    strength: list[list[list[int]]] | None,
) -> Boards:
    """Per board the validity mask and showdown order; ``strength[b][p][h]`` may be None."""
    nb = len(boards)
    hmax = hands.cards.shape[1]
    valid = np.zeros((nb, 2, hmax), dtype=np.float64)
    rank = np.zeros((nb, 2, hmax), dtype=np.int64)
    for b, cards in enumerate(boards):
        bset = set(cards)
        for p in range(2):
            nh = int(hands.num_hands[p])
            for h in range(nh):
                hc = {int(c) for c in hands.cards[p, h] if c >= 0}
                valid[b, p, h] = 0.0 if hc & bset else 1.0
            if strength is not None and strength[b] is not None:
                rank[b, p, :nh] = strength[b][p]
    return finish_boards(hands, valid, rank)
