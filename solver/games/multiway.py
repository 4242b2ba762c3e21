"""Games of three (or more) players as flat arrays: three-player Kuhn and Leduc as OpenSpiel
defines them (``kuhn_poker(players=3)``, ``leduc_poker(players=3)``).

The heads-up :class:`solver.games.model.Game` stays as it is; a game of ``P`` players is a
:class:`MultiGame`, built in the same spirit — a *public tree* (actions and public cards,
what every player sees) and per player a vector of *private hands* — with what three players
need beside it: chips in per player, who has folded, and the deals (one private hand for each
player, all cards distinct) listed explicitly, since a payoff now depends on three hands.

Layout (``N`` nodes, ``P`` players, ``H`` private hands — every player draws from the same
set, one card in the toy games — ``D`` deals, ``B`` public boards, ``T`` terminals):

* nodes in breadth-first order: a parent before its children, siblings contiguous, and each
  depth a contiguous run of nodes (the evaluation reduces a whole depth at once); node 0 is
  the root;
* an information set is (decision node, the actor's hand): the decision node of player ``p``
  with ``A`` actions owns the block ``offset : offset + A * H`` of a behaviour profile, laid out
  ``[a, h]`` (as the heads-up engine lays out its strategy); blocks are placed in depth-first
  preorder of the decision nodes;
* the children of a decision node are its legal actions in OpenSpiel's action order (Kuhn:
  pass, bet; Leduc: fold, call, raise), so child ``i`` is ``state.legal_actions()[i]``;
* chance at the root deals the private hands: deal ``d`` gives player ``p`` the hand
  ``deals[d, p]`` with probability ``deal_weight[d]``; a public card is a CHANCE node whose
  child ``k`` deals card ``k`` with probability ``chance_weight`` given any deal that does not
  hold it (``deal_valid[board, d]`` is False for a deal that does);
* payoffs are in chips, per player: ``payoff[terminal_row[t], p, d]`` is what player ``p``
  wins (pot share minus chips in) at terminal ``t`` under deal ``d``; they sum to zero over
  the players (no rake).
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from solver.tree.kinds import CHANCE, DECISION, FIXED, SHOWDOWN

__all__ = ["MULTI_GAMES", "MultiGame", "kuhn_multi", "leduc_multi", "multi_game"]

# OpenSpiel's leduc_poker: raise sizes per round, raises per round, the ante
LEDUC_RAISES = (2.0, 4.0)
LEDUC_MAX_RAISES = 2
ANTE = 1.0


@dataclass(frozen=True, eq=False)
class MultiGame:
    """A built game of ``P`` players (arrays described in the module docstring).

    ``labels[n]`` names the action or card leading to node ``n`` ("" at the root): ``k``
    check/pass, ``b`` bet, ``c`` call, ``f`` fold, ``r`` raise, ``d:CARD`` a public card."""

    name: str
    num_players: int
    kind: npt.NDArray[np.int8]  # (N,) DECISION, CHANCE, FIXED (all but one folded), SHOWDOWN
    player: npt.NDArray[np.int8]  # (N,) actor of a decision node, else -1
    parent: npt.NDArray[np.int64]  # (N,) -1 at the root
    first_child: npt.NDArray[np.int64]  # (N,) -1 at a terminal
    num_children: npt.NDArray[np.int64]  # (N,)
    depth: npt.NDArray[np.int64]  # (N,) non-decreasing (breadth-first order)
    offset: npt.NDArray[np.int64]  # (N,) decision: start of its [a, h] block, else -1
    board: npt.NDArray[np.int64]  # (N,) row of board_cards public at the node
    chance_weight: npt.NDArray[np.float64]  # (N,) child of a chance node: its card's chance
    contrib: npt.NDArray[np.float64]  # (N, P) chips each player has put in (ante included)
    active: npt.NDArray[np.bool_]  # (N, P) not folded
    board_cards: npt.NDArray[np.int64]  # (B, K) public cards of each board, -1 padded
    hand_cards: npt.NDArray[np.int64]  # (H, k) cards of each private hand
    deals: npt.NDArray[np.int64]  # (D, P) each player's hand
    deal_weight: npt.NDArray[np.float64]  # (D,) chance of each deal (sums to 1)
    deal_valid: npt.NDArray[np.bool_]  # (B, D) the deal holds no card of the board
    terminal_row: npt.NDArray[np.int64]  # (N,) row of payoff for a terminal, else -1
    payoff: npt.NDArray[np.float64]  # (T, P, D) chips won by each player, per deal
    labels: list[str]
    card_names: list[str]
    meta: dict[str, object] = field(default_factory=dict)
    # (B, H) each hand's showdown strength per board (higher wins, equal splits; -1 on a
    # board whose card it holds or that never shows down), or None when the payoffs alone say
    strength: npt.NDArray[np.int64] | None = None

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    @property
    def num_hands(self) -> int:
        return int(self.hand_cards.shape[0])

    @property
    def hand_names(self) -> list[str]:
        return ["".join(self.card_names[c] for c in row) for row in self.hand_cards.tolist()]

    @property
    def profile_size(self) -> int:
        """Length of a behaviour profile: the sum over decision nodes of ``A * H``."""
        dec = np.flatnonzero(self.kind == DECISION)
        return int((self.num_children[dec] * self.num_hands).sum())

    @property
    def num_infosets(self) -> tuple[int, ...]:
        """Information sets per player: (decision node, hand) pairs some deal reaches."""
        counts = [0] * self.num_players
        for n in np.flatnonzero(self.kind == DECISION):
            p = int(self.player[n])
            ok = self.deal_valid[self.board[n]]
            counts[p] += int(np.unique(self.deals[ok, p]).size)
        return tuple(counts)

    def decision_nodes(self) -> npt.NDArray[np.int64]:
        return np.flatnonzero(self.kind == DECISION)

    def children(self, node: int) -> range:
        first = int(self.first_child[node])
        return range(first, first + int(self.num_children[node])) if first >= 0 else range(0)

    def history(self, node: int) -> tuple[str, ...]:
        out: list[str] = []
        while node > 0:
            out.append(self.labels[node])
            node = int(self.parent[node])
        return tuple(reversed(out))


# ----- building ------------------------------------------------------------------------------


@dataclass
class _Spec:
    kind: int
    player: int = -1
    label: str = ""
    board: int = 0
    weight: float = 1.0
    contrib: tuple[float, ...] = ()
    active: tuple[bool, ...] = ()
    children: list[_Spec] = field(default_factory=list)


def _flatten(
    name: str,
    root: _Spec,
    num_players: int,
    hand_cards: npt.NDArray[np.int64],
    board_cards: npt.NDArray[np.int64],
    strength: npt.NDArray[np.int64],
    card_names: list[str],
    meta: dict[str, object],
) -> MultiGame:
    """Number ``root``'s tree breadth first, lay out its profile blocks depth first, list the
    deals and work out every terminal's payoffs. ``strength[b, h]``: hand ``h``'s showdown
    strength on board ``b`` (higher wins, equal splits)."""
    order: list[_Spec] = [root]
    parent = [-1]
    depth = [0]
    first = []
    i = 0
    while i < len(order):
        spec = order[i]
        first.append(len(order) if spec.children else -1)
        for child in spec.children:
            order.append(child)
            parent.append(i)
            depth.append(depth[i] + 1)
        i += 1
    n = len(order)
    index = {id(s): k for k, s in enumerate(order)}
    h = int(hand_cards.shape[0])
    offset = np.full(n, -1, dtype=np.int64)
    nxt = 0
    stack = [root]  # depth-first preorder for the profile blocks
    while stack:
        spec = stack.pop()
        if spec.kind == DECISION:
            offset[index[id(spec)]] = nxt
            nxt += len(spec.children) * h
        stack.extend(reversed(spec.children))

    # every ordered assignment of hands with no card in common, as OpenSpiel deals: uniform
    deals = np.array(list(itertools.permutations(range(h), num_players)), dtype=np.int64)
    cards_of = hand_cards[deals].reshape(deals.shape[0], -1)  # (D, P * k)
    srt = np.sort(cards_of, axis=1)
    distinct = np.all(srt[:, 1:] != srt[:, :-1], axis=1)
    deals = deals[distinct]
    cards_of = cards_of[distinct]
    d = deals.shape[0]
    deal_weight = np.full(d, 1.0 / d)
    deal_valid = np.ones((board_cards.shape[0], d), dtype=bool)
    for b, row in enumerate(board_cards):
        for c in row[row >= 0]:
            deal_valid[b] &= ~np.any(cards_of == c, axis=1)

    kind = np.array([s.kind for s in order], dtype=np.int8)
    terminal = np.flatnonzero((kind == FIXED) | (kind == SHOWDOWN))
    terminal_row = np.full(n, -1, dtype=np.int64)
    terminal_row[terminal] = np.arange(terminal.size)
    contrib = np.array([s.contrib for s in order], dtype=np.float64)
    active = np.array([s.active for s in order], dtype=bool)
    boards = np.array([s.board for s in order], dtype=np.int64)
    payoff = np.zeros((terminal.size, num_players, d))
    for row, t in enumerate(terminal.tolist()):
        pot = contrib[t].sum()
        if kind[t] == FIXED:
            win = active[t][:, None] * np.ones((1, d))
        else:
            s = strength[boards[t]][deals].T.astype(np.float64)  # (P, D)
            s[~active[t]] = -np.inf
            win = (s == s.max(axis=0)).astype(np.float64)
        payoff[row] = pot * win / win.sum(axis=0) - contrib[t][:, None]
        payoff[row][:, ~deal_valid[boards[t]]] = 0.0
    return MultiGame(
        name=name,
        num_players=num_players,
        kind=kind,
        player=np.array([s.player for s in order], dtype=np.int8),
        parent=np.array(parent, dtype=np.int64),
        first_child=np.array(first, dtype=np.int64),
        num_children=np.array([len(s.children) for s in order], dtype=np.int64),
        depth=np.array(depth, dtype=np.int64),
        offset=offset,
        board=boards,
        chance_weight=np.array([s.weight for s in order], dtype=np.float64),
        contrib=contrib,
        active=active,
        board_cards=board_cards,
        hand_cards=hand_cards,
        deals=deals,
        deal_weight=deal_weight,
        deal_valid=deal_valid,
        terminal_row=terminal_row,
        payoff=payoff,
        labels=[s.label for s in order],
        card_names=card_names,
        meta=meta,
        strength=np.asarray(strength, dtype=np.int64),
    )


MAX_PLAYERS = 4  # the deals are listed one by one: (2P + 2)! / (P + 2)! of them for Leduc


def _check_players(players: int) -> None:
    if not isinstance(players, int) or isinstance(players, bool) or not 2 <= players <= 4:
        raise ValueError(f"players: expected 2, 3 or {MAX_PLAYERS}, got {players!r}")


def _rank_names(n: int) -> str:
    """Names of ``n`` ranks, lowest first: J Q K, J Q K A, then T J Q K A."""
    return "JQKA"[:n] if n <= 4 else "TJQKA"[-n:]


def kuhn_multi(players: int = 3) -> MultiGame:
    """OpenSpiel's ``kuhn_poker(players=P)``: ``P + 1`` cards, ante 1, one bet of 1. Not
    facing a bet a player passes (``k``) or bets (``b``); after a bet every other player, in
    turn from the bettor's left, calls (``c``) or folds (``f``) once. The highest card among
    those in wins the pot."""
    _check_players(players)
    ncards = players + 1

    def node(hist: tuple[str, ...], bettor: int) -> _Spec:
        contrib = [ANTE] * players
        active = [True] * players
        if bettor >= 0:
            contrib[bettor] += 1.0
            for k, a in enumerate(hist[bettor + 1 :]):
                p = (bettor + 1 + k) % players
                if a == "c":
                    contrib[p] += 1.0
                else:
                    active[p] = False
        spec = _Spec(DECISION, contrib=tuple(contrib), active=tuple(active))
        if bettor < 0:
            if len(hist) == players:
                spec.kind = SHOWDOWN
                return spec
            spec.player = len(hist)
            moves = (("k", -1), ("b", len(hist)))
        else:
            answered = len(hist) - bettor - 1
            if answered == players - 1:
                spec.kind = FIXED if sum(active) == 1 else SHOWDOWN
                return spec
            spec.player = (bettor + 1 + answered) % players
            moves = (("f", bettor), ("c", bettor))
        for label, b in moves:
            child = node((*hist, label), b)
            child.label = label
            spec.children.append(child)
        return spec

    root = node((), -1)
    hand_cards = np.arange(ncards, dtype=np.int64)[:, None]
    names = _rank_names(ncards)
    return _flatten(
        f"kuhn{players}",
        root,
        players,
        hand_cards,
        np.full((1, 1), -1, dtype=np.int64),
        np.arange(ncards, dtype=np.int64)[None, :],
        list(names),
        {"openspiel": f"kuhn_poker(players={players})"},
    )


def _leduc_strength(ncards: int) -> npt.NDArray[np.int64]:
    """OpenSpiel's ``LeducState::RankHand`` for every (board, hand): board ``b`` is card
    ``b - 1`` (board 0 has none and never shows down). Card ``c`` has rank ``c // 2``."""
    out = np.full((ncards + 1, ncards), -1, dtype=np.int64)
    for b in range(ncards):
        for c in range(ncards):
            if c == b:
                continue
            lo, hi = min(b, c), max(b, c)
            if lo % 2 == 0 and hi == lo + 1:
                out[b + 1, c] = ncards * ncards + lo
            else:
                out[b + 1, c] = (hi // 2) * ncards + lo // 2
    return out


def leduc_multi(players: int = 3) -> MultiGame:
    """OpenSpiel's ``leduc_poker(players=P)``: two suits of ``P + 1`` ranks, ante 1, raises of
    2 then 4, at most two raises a round, one public card between the rounds; folding only
    facing a raise; a card pairing the board wins, else the higher card, then the lower; ties
    split. The betting follows ``LeducState`` move for move (a round ends when every player
    in has called since the last raise, or all checked)."""
    _check_players(players)
    ncards = 2 * (players + 1)
    ranks = _rank_names(players + 1)
    card_names = [f"{ranks[c // 2]}{'sh'[c % 2]}" for c in range(ncards)]

    def decision(
        rnd: int,
        stakes: float,
        raises: int,
        calls: int,
        contrib: tuple[float, ...],
        active: tuple[bool, ...],
        actor: int,
        board: int,
    ) -> _Spec:
        spec = _Spec(DECISION, player=actor, board=board, contrib=contrib, active=active)
        remaining = sum(active)
        moves: list[str] = []
        if stakes > contrib[actor]:
            moves.append("f")
        moves.append("c")
        if raises < LEDUC_MAX_RAISES:
            moves.append("r")
        for move in moves:
            c = list(contrib)
            a = list(active)
            st, ra, ca = stakes, raises, calls
            if move == "f":
                a[actor] = False
                rem = remaining - 1
            else:
                rem = remaining
                c[actor] = stakes
                if move == "c":
                    ca += 1
                else:
                    st = stakes + LEDUC_RAISES[rnd]
                    c[actor] = st
                    ra += 1
                    ca = 0
            ct, at = tuple(c), tuple(a)
            ready = (ra == 0 and ca == rem) or (ra > 0 and ca == rem - 1)
            if rem == 1:
                child = _Spec(FIXED, board=board, contrib=ct, active=at)
            elif move != "r" and ready:
                child = round_end(rnd, ct, at, board)
            else:
                nxt = next(
                    (actor + i) % players
                    for i in range(1, players + 1)
                    if at[(actor + i) % players]
                )
                child = decision(rnd, st, ra, ca, ct, at, nxt, board)
            child.label = move
            spec.children.append(child)
        return spec

    def round_end(
        rnd: int, contrib: tuple[float, ...], active: tuple[bool, ...], board: int
    ) -> _Spec:
        if rnd == 1:
            return _Spec(SHOWDOWN, board=board, contrib=contrib, active=active)
        spec = _Spec(CHANCE, board=board, contrib=contrib, active=active)
        first = next(p for p in range(players) if active[p])
        stakes = max(contrib)
        for card in range(ncards):
            child = decision(1, stakes, 0, 0, contrib, active, first, card + 1)
            child.label = f"d:{card_names[card]}"
            child.weight = 1.0 / (ncards - players)
            spec.children.append(child)
        return spec

    root = decision(0, ANTE, 0, 0, (ANTE,) * players, (True,) * players, 0, 0)
    board_cards = np.concatenate([[-1], np.arange(ncards)]).astype(np.int64)[:, None]
    return _flatten(
        f"leduc{players}",
        root,
        players,
        np.arange(ncards, dtype=np.int64)[:, None],
        board_cards,
        _leduc_strength(ncards),
        card_names,
        {"openspiel": f"leduc_poker(players={players})"},
    )


MULTI_GAMES = {"kuhn3": lambda: kuhn_multi(3), "leduc3": lambda: leduc_multi(3)}
"""The three-player toy games by name (the names the CLI's ``--game`` will take)."""


def multi_game(name: str) -> MultiGame:
    """Build a three-player toy game by name (``kuhn3``, ``leduc3``)."""
    build = MULTI_GAMES.get(name)
    if build is None:
        raise ValueError(f"game: expected one of {', '.join(MULTI_GAMES)}, got {name!r}")
    return build()
