"""The game model every game is built into: a public tree with private-hand vectors.

A game is a *public tree* (what both players see: actions and public cards), a list of
*private hands* per player (Kuhn and Leduc: one card; hold'em: two-card combos), and per
public board the data needed to turn an opponent reach vector into counterfactual values with
card removal. The engine never sees a game's rules, only these flat arrays.

Layout (``N`` nodes, ``H`` = the larger of the two players' hand counts, ``B`` boards,
``C`` cards in the deck):

* nodes are numbered so that a parent comes before its children and siblings are contiguous
  (breadth first); node 0 is the root;
* a decision node of player ``p`` with ``A`` actions owns the block
  ``offset : offset + A * num_hands[p]`` of the per-action arrays (regrets, strategy, strategy
  sums), laid out ``[a, h]``, and ``ioffset : ioffset + num_hands[p]`` of the per-hand arrays;
  blocks are placed in depth-first preorder, so each subtree's blocks are contiguous;
* all payoffs are in chips and, before rake, zero-sum: ``payoff`` of a FIXED terminal is
  player 0's payoff (player 1 gets its negative); ``payoff`` of a SHOWDOWN terminal is what
  the winner wins (each player's contribution), a tie pays 0;
* ``rake`` of a terminal is the chips the house takes there (hold'em subgames with a rake;
  0 elsewhere): the winner of a fold or a showdown gets ``payoff − rake``, the loser still
  loses ``payoff``, and a tie costs each player ``rake / 2``. With a rake the game is not
  zero-sum (:func:`solver.cfr.bestresponse.exploitability` reports NashConv/2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

# the node kinds live on the tree floor (the betting tree marks its nodes with them); the
# games' modules and those above keep reading them here
from solver.tree.kinds import CHANCE, DECISION, FIXED, KIND_NAMES, RUNOUT, SHOWDOWN  # noqa: F401

# "auto" keeps float64 for storage up to this size: a small spot solves in well under a
# second either way, and it then runs in the one kernel signature its checks, its EVs and
# Explore's views use (one compilation on a cold cache instead of two)
AUTO_FLOAT64_CELLS = 1 << 18


def auto_precision(is_holdem: bool, cells: int = AUTO_FLOAT64_CELLS + 1) -> str:
    """The storage ``precision="auto"`` picks for a game of ``cells`` regret entries:
    float32 for hold'em subgames past :data:`AUTO_FLOAT64_CELLS` (half of float64's memory
    and, with the kernels summing in float64, as fast or faster per iteration and the same
    iterations to each target under the hold'em default rule — BENCHMARKS.md, "Which rule
    first (hold'em)"), float64 for smaller ones and for the toy games (tiny, and the
    reference tests match them to 1e-10)."""
    return "float32" if is_holdem and cells > AUTO_FLOAT64_CELLS else "float64"


def parent_nodes(
    first_child: npt.NDArray[np.integer], num_children: npt.NDArray[np.integer]
) -> npt.NDArray[np.int32]:
    """(N,) int32: each node's parent (-1 at the root), from the children's ranges."""
    n = first_child.shape[0]
    parent = np.full(n, -1, dtype=np.int32)
    for v in np.flatnonzero(np.asarray(first_child) >= 0):
        fc = int(first_child[v])
        parent[fc : fc + int(num_children[v])] = v
    return parent


class Tree(NamedTuple):
    """Flat public tree. Arrays have length ``N`` (number of nodes) except the ``K`` suit
    isomorphism entries: a chance node deals only one card of each class of interchangeable
    suits; the child of such a *canonical* card also stands for ``iso_count`` more cards
    (entries ``iso_start :``), each a public board ``iso_board[e]`` whose values are the
    child's with hands mapped by ``Hands.perm[iso_perm[e]]``."""

    kind: npt.NDArray[np.int8]  # DECISION, CHANCE, FIXED or SHOWDOWN
    player: npt.NDArray[np.int8]  # acting player at a decision node, else -1
    first_child: npt.NDArray[np.int32]  # index of the first child, -1 for terminals
    num_children: npt.NDArray[np.int32]
    offset: npt.NDArray[np.int64]  # decision: start of its [action, hand] block, else -1
    ioffset: npt.NDArray[np.int64]  # decision: start of its [hand] block, else -1
    payoff: npt.NDArray[np.float64]  # FIXED: player 0's payoff; SHOWDOWN: winner's gain (chips)
    rake: npt.NDArray[np.float64]  # (N,) terminal: chips the house takes there, else 0
    board: npt.NDArray[np.int32]  # index of the public board at this node
    chance_weight: npt.NDArray[np.float64]  # child of a chance node: probability of its card
    iso_start: npt.NDArray[np.int32]  # (N,) first isomorphism entry of a canonical child
    iso_count: npt.NDArray[np.int32]  # (N,) number of cards it stands for besides its own
    iso_board: npt.NDArray[np.int32]  # (K,) board id of the isomorphic card
    iso_perm: npt.NDArray[np.int32]  # (K,) row of Hands.perm mapping hands to their images
    runout: npt.NDArray[np.int32]  # (N,) RUNOUT terminal: its row of Boards.runout_eq, else -1
    # The decision nodes in depth-first preorder (= by storage offset): the decision nodes of
    # node n's subtree are pre_order[pre_start[n] : pre_end[n]] (empty for a terminal).
    pre_order: npt.NDArray[np.int64]  # (M,) M decision nodes
    pre_start: npt.NDArray[np.int64]  # (N,)
    pre_end: npt.NDArray[np.int64]  # (N,)
    parent: npt.NDArray[np.int32]  # (N,) each node's parent, -1 at the root (parent_nodes)


class Hands(NamedTuple):
    """Private hands of both players, padded to ``H`` entries."""

    num_hands: npt.NDArray[np.int64]  # (2,)
    cards: npt.NDArray[np.int32]  # (2, H, 2): the hand's cards, -1 where unused
    weights: npt.NDArray[np.float64]  # (2, H): initial range weight of each hand
    same: npt.NDArray[np.int32]  # (2, H): index of the opponent hand with the same cards, or -1
    num_cards: int  # cards in the deck (size of per-card scratch arrays)
    norm: float  # 1 / sum of w0(h0) * w1(h1) over compatible pairs: chance of each deal
    perm: npt.NDArray[np.int32]  # (P, 2, H): suit permutations as maps of hand indices
    # (2, H): a two-card hand's cards and ``same`` + 1 as 16-bit fields of one word
    # (card 0 | card 1 << 16 | (same + 1) << 32), for the fold's sweeps (build.pack_hands)
    pack: npt.NDArray[np.uint64]


class Boards(NamedTuple):
    """Per public board: which hands it blocks and the showdown order of the rest."""

    valid: npt.NDArray[np.float64]  # (B, 2, H): 1.0 if the hand shares no card with the board
    order: npt.NDArray[np.int32]  # (B, 2, H): hand indices sorted by ascending strength
    rank: npt.NDArray[np.int64]  # (B, 2, H): strength of each hand (higher wins)
    sorted_rank: npt.NDArray[np.int64]  # (B, 2, H): rank[order], contiguous for the sweeps
    sorted_cards: npt.NDArray[np.int32]  # (B, 2, H, 2): cards of hand order[i]
    # All-in runouts: runout_eq[r, p, h, j] = mean over the cards still to come of
    # sign(strength of p's hand h − the opponent's hand j), 0 where the hands collide.
    runout_eq: npt.NDArray[np.float64]  # (R, 2, H, H)
    # Two-card showdowns by prefix sums (see solver.cfr.terminal.showdown_2card), per showdown
    # board (row sd_row[b], -1 for other boards) and traverser p, over the opponent's hands:
    sd_row: npt.NDArray[np.int32]  # (B,)
    sd_src: npt.NDArray[np.uint16]  # (S, 2, 2H): opponent hands grouped by card, by strength
    sd_cstart: npt.NDArray[np.int32]  # (S, 2, C + 1): where each card's group starts in sd_src
    # per traverser hand: [# opponent hands weaker, # not stronger, then for each of its two
    # cards the same two counts as positions in sd_src, then its two cards], 16 bits each,
    # four to a word (build.pack_showdown)
    sd_pack: npt.NDArray[np.uint64]  # (S, 2, H, 2)


@dataclass
class Game:
    """A built game: the flat arrays the kernels use plus names for people.

    ``labels[n]`` is the label of the action or card that leads to node ``n`` ("" at the
    root); ``hand_names[p][h]`` names player ``p``'s hand ``h``.
    """

    name: str
    tree: Tree
    hands: Hands
    boards: Boards
    labels: list[str]
    hand_names: list[list[str]]
    description: str = ""
    meta: dict[str, object] = field(default_factory=dict)
    iso_labels: dict[int, str] = field(default_factory=dict)  # board id -> card label
    card_names: list[str] = field(default_factory=list)  # card index -> name (dealt cards)
    card_perms: list[list[int]] = field(default_factory=list)  # Hands.perm rows as card maps
    _parents: npt.NDArray[np.int64] | None = field(default=None, repr=False)
    _has_rake: bool | None = field(default=None, repr=False, compare=False)
    # builds the same game without suit isomorphism (None: the game has none, or cannot)
    full_builder: Callable[[], Game] | None = field(default=None, repr=False, compare=False)

    # ----- sizes -------------------------------------------------------------------------
    @property
    def num_nodes(self) -> int:
        return int(self.tree.kind.shape[0])

    @property
    def num_hands(self) -> tuple[int, int]:
        return int(self.hands.num_hands[0]), int(self.hands.num_hands[1])

    @property
    def action_size(self) -> int:
        """Length of the per-action arrays (regrets, strategy): sum of ``A * H[p]``."""
        t = self.tree
        dec = np.flatnonzero(t.kind == DECISION)
        if dec.size == 0:
            return 0
        last = dec[np.argmax(t.offset[dec])]
        return int(t.offset[last] + t.num_children[last] * self.hands.num_hands[t.player[last]])

    @property
    def info_size(self) -> int:
        """Length of the per-hand arrays: sum over decision nodes of ``H[p]``."""
        t = self.tree
        dec = np.flatnonzero(t.kind == DECISION)
        if dec.size == 0:
            return 0
        last = dec[np.argmax(t.ioffset[dec])]
        return int(t.ioffset[last] + self.hands.num_hands[t.player[last]])

    @property
    def max_depth(self) -> int:
        depth = np.zeros(self.num_nodes, dtype=np.int64)
        parents = self.parents
        for n in range(1, self.num_nodes):
            depth[n] = depth[parents[n]] + 1
        return int(depth.max())

    @property
    def max_actions(self) -> int:
        return int(self.tree.num_children.max()) if self.num_nodes else 0

    @property
    def multiplicity(self) -> npt.NDArray[np.int64]:
        """(N,): how many nodes of the full game each node stands for (suit isomorphism)."""
        t = self.tree
        mult = np.ones(self.num_nodes, dtype=np.int64)
        parents = self.parents
        for n in range(1, self.num_nodes):
            mult[n] = mult[parents[n]] * (1 + int(t.iso_count[n]))
        return mult

    @property
    def num_infosets(self) -> int:
        """Decision infosets of the full game: (decision node, hand of the actor) pairs a deal
        can reach, counting the nodes suit isomorphism stands for."""
        t = self.tree
        mult = self.multiplicity
        total = 0
        for n in np.flatnonzero(t.kind == DECISION):
            p = t.player[n]
            hp = self.hands.num_hands[p]
            total += int(mult[n]) * int(np.count_nonzero(self.boards.valid[t.board[n], p, :hp]))
        return total

    # ----- suit isomorphism ----------------------------------------------------------------
    @property
    def has_isomorphism(self) -> bool:
        """Whether some chance node deals one card for several (suit isomorphism)."""
        return bool(np.any(self.tree.iso_count > 0))

    def without_isomorphism(self) -> Game:
        """This game with every card dealt (itself when it has no suit isomorphism).

        The vector engine's mirrored children are exact for the suit-symmetric strategies
        CFR keeps from a symmetric start; the scalar samplers' strategies are not symmetric,
        so they solve the full game instead (:class:`solver.cfr.sampling.SampledEngine`)."""
        if not self.has_isomorphism:
            return self
        if self.full_builder is None:
            raise ValueError(f"{self.name}: no way to build it without suit isomorphism")
        return self.full_builder()

    # ----- units -------------------------------------------------------------------------
    @property
    def is_holdem(self) -> bool:
        return self.meta.get("kind") == "holdem"

    @property
    def starting_pot(self) -> float:
        """Chips in the pot at the root (hold'em subgames; 0 for the toy games)."""
        return float(self.meta.get("pot", 0.0))  # type: ignore[arg-type]

    @property
    def has_rake(self) -> bool:
        """Whether some terminal is raked (the game is then not zero-sum). Read once: every
        exploitability check asks."""
        if self._has_rake is None:
            self._has_rake = bool(np.any(self.tree.rake > 0.0))
        return self._has_rake

    @property
    def big_blind(self) -> float | None:
        bb = self.meta.get("big_blind")
        return None if bb is None else float(bb)  # type: ignore[arg-type]

    @property
    def ev_offset(self) -> float:
        """Added to zero-sum EVs to report them as solvers do for subgames: each player's
        share of the pot at the end minus chips put in after the start (the two sum to the
        starting pot, less the expected rake when the spot has one). 0 for the toy games,
        whose EVs stay zero-sum, and for games that say so in ``meta["ev_offset"]``
        (preflop: net winnings of the hand, zero-sum)."""
        if "ev_offset" in self.meta:
            return float(self.meta["ev_offset"])  # type: ignore[arg-type]
        return self.starting_pot / 2.0

    # ----- navigation --------------------------------------------------------------------
    @property
    def parents(self) -> npt.NDArray[np.int64]:
        if self._parents is None:
            self._parents = self.tree.parent.astype(np.int64)
        return self._parents

    def children(self, node: int) -> range:
        fc = int(self.tree.first_child[node])
        if fc < 0:
            return range(0)
        return range(fc, fc + int(self.tree.num_children[node]))

    def history(self, node: int) -> tuple[str, ...]:
        """Labels of the actions and cards from the root to ``node``."""
        out: list[str] = []
        parents = self.parents
        while node > 0:
            out.append(self.labels[node])
            node = int(parents[node])
        return tuple(reversed(out))

    def action_labels(self, node: int) -> list[str]:
        return [self.labels[c] for c in self.children(node)]

    def find(self, history: tuple[str, ...] | list[str]) -> int:
        """The node reached by following ``history`` labels from the root."""
        node = 0
        for label in history:
            for c in self.children(node):
                if self.labels[c] == label:
                    node = c
                    break
            else:
                raise KeyError(f"no action or card {label!r} at {self.history(node)}")
        return node

    def chance_cards(self, node: int) -> list[tuple[str, int, int]]:
        """Every card a chance node deals: (label, child node, permutation row or -1).

        A card dealt through suit isomorphism maps to its canonical child: its strategies
        are the child's with hands mapped by ``hands.perm[row]``."""
        out: list[tuple[str, int, int]] = []
        t = self.tree
        for c in self.children(node):
            out.append((self.labels[c], c, -1))
            for e in range(int(t.iso_start[c]), int(t.iso_start[c] + t.iso_count[c])):
                out.append((self.iso_labels.get(int(t.iso_board[e]), "?"), c, int(t.iso_perm[e])))
        return out

    def locate(self, history: tuple[str, ...] | list[str]) -> tuple[int, list[int]]:
        """The node standing for ``history`` and the card map (real card → card in that
        node's frame): identity unless a dealt card on the way was a suit-isomorphic one.
        Map a hand through it with :meth:`map_hand`."""
        node = 0
        cmap = list(range(len(self.card_names)))
        for label in history:
            if self.tree.kind[node] == 1 and label.startswith("d:"):  # CHANCE
                name = label[2:]
                if name not in self.card_names:
                    raise KeyError(f"no card {name!r} here")
                canon = "d:" + self.card_names[cmap[self.card_names.index(name)]]
                for lab, child, row in self.chance_cards(node):
                    if lab == canon:
                        if row >= 0:
                            cmap = [self.card_perms[row][c] for c in cmap]
                        node = child
                        break
                else:
                    raise KeyError(f"card {name!r} cannot be dealt at {self.history(node)}")
                continue
            for c in self.children(node):
                if self.labels[c] == label:
                    node = c
                    break
            else:
                raise KeyError(f"no action or card {label!r} at {self.history(node)}")
        return node, cmap

    def map_hand(self, player: int, hand: int, cmap: list[int]) -> int:
        """Index of ``player``'s hand ``hand`` seen through the card map ``cmap``."""
        cards = [int(c) for c in self.hands.cards[player, hand] if c >= 0]
        image = sorted(cmap[c] for c in cards)
        for h in range(int(self.hands.num_hands[player])):
            if sorted(int(c) for c in self.hands.cards[player, h] if c >= 0) == image:
                return h
        raise KeyError("hand not in the range")

    def decision_nodes(self) -> npt.NDArray[np.int64]:
        return np.flatnonzero(self.tree.kind == DECISION)

    def block(self, node: int) -> tuple[int, int, int]:
        """(offset, num_actions, num_hands) of a decision node's ``[action, hand]`` block."""
        t = self.tree
        if t.kind[node] != DECISION:
            raise ValueError(f"node {node} is not a decision node")
        p = int(t.player[node])
        return int(t.offset[node]), int(t.num_children[node]), int(self.hands.num_hands[p])

    def valid_hands(self, node: int, player: int) -> npt.NDArray[np.bool_]:
        """Which of ``player``'s hands the board at ``node`` leaves possible."""
        h = self.hands.num_hands[player]
        return self.boards.valid[self.tree.board[node], player, :h] > 0
