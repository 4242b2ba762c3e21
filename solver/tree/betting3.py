"""The card-free betting tree of one street with three players (issue 49: the three-way
river), as flat arrays in breadth-first order — the public tree a
:class:`~solver.games.multiway.MultiGame` takes (:mod:`solver.games.holdem3` deals the cards).

Rules (no-limit, equal effective stacks, no side pots):

* players 0, 1, 2 act in that order (0 first, 2 last). Not facing a bet: check (``k``) or bet
  (``b:S``); facing one: fold (``f``), call (``c``) or raise (``r:S``). ``S`` is the actor's
  street commitment after the action in chips, as the heads-up tree labels bets and raises
  (an all-in is the bet or raise to the whole stack);
* a player who folds is out; its chips stay in the pot, and the other two play on in the same
  tree;
* the round closes when every player still in has acted since the last bet or raise and
  matched it (or all checked): a SHOWDOWN if two or three are in, a FIXED terminal (the last
  player in wins the pot) as soon as a fold leaves one;
* sizes follow :mod:`solver.tree.sizes` (``33%``, ``2.5x``, ``a``, ``3e``, ``120c``), one set
  of bet and raise sizes per player. A percentage raise goes to the bet faced plus that share
  of the pot after calling. Amounts are whole chips, a bet at least ``big_blind``, a raise at
  least the last bet or raise increment (no-limit min-raise), at or above the stack all-in;
  sizes landing on the same amount merge;
* ``raise_cap``: raises allowed after the first bet (as heads-up);
* all-in: with equal stacks a player all in has bet the most anyone can, so the others may only
  call (all in too) or fold. Unequal stacks and side pots are not built.

Chips: the starting pot is dead money counted as antes of ``pot / 3`` from each player, so
``contrib[n, p]`` (chips player ``p`` has in at node ``n``: ``pot / 3`` plus its bets this
street) sums to the pot at ``n`` and payoffs (share won minus ``contrib``) sum to zero.

The tree is built breadth first from a queue of betting states and counted as it is made: past
``max_nodes`` nodes the build stops with :class:`~solver.tree.betting.TreeTooLarge`.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np
import numpy.typing as npt

from solver.tree.betting import PlayerSizes, TreeTooLarge
from solver.tree.kinds import CHANCE, DECISION, FIXED, SHOWDOWN
from solver.tree.sizes import bet_amount, raise_to

__all__ = [
    "MAX_BETTING3_NODES",
    "PLAYERS3",
    "Betting3Config",
    "Betting3Tree",
    "Nodes3",
    "build_betting3",
]

T = TypeVar("T")
PLAYERS3 = 3
MAX_BETTING3_NODES = 200_000
"""Default node limit of :func:`build_betting3` (card-free nodes)."""


@dataclass(frozen=True)
class Betting3Config:
    """Chips and sizes of a three-player street. ``sizes[p]``: player ``p``'s bet and raise
    sizes (``donks`` is not read)."""

    pot: int  # chips in the pot at the start (dead money: pot / 3 from each player)
    stack: int  # effective stack behind each player at the start (chips)
    sizes: tuple[PlayerSizes, PlayerSizes, PlayerSizes]
    big_blind: float = 10.0  # chips: the smallest bet
    raise_cap: int = 3


class Nodes3:
    """The walks a three-player tree's node arrays allow (:class:`Betting3Tree`, and the
    turn's :class:`~solver.tree.betting3_turn.Turn3Tree` with its chance nodes)."""

    kind: npt.NDArray[np.int8]
    parent: npt.NDArray[np.int64]
    first_child: npt.NDArray[np.int64]
    num_children: npt.NDArray[np.int64]
    labels: list[str]

    @property
    def num_nodes(self) -> int:
        return int(self.kind.shape[0])

    def decision_nodes(self) -> npt.NDArray[np.int64]:
        return np.flatnonzero(self.kind == DECISION)

    def terminal_nodes(self) -> npt.NDArray[np.int64]:
        return np.flatnonzero((self.kind == FIXED) | (self.kind == SHOWDOWN))

    def children(self, node: int) -> range:
        first = int(self.first_child[node])
        return range(first, first + int(self.num_children[node])) if first >= 0 else range(0)

    def history(self, node: int) -> tuple[str, ...]:
        """The labels from the root down to ``node``."""
        out: list[str] = []
        while node > 0:
            out.append(self.labels[node])
            node = int(self.parent[node])
        return tuple(reversed(out))

    def preorder(self) -> npt.NDArray[np.int64]:
        """The decision nodes in depth-first preorder (children in order, through chance
        nodes): the order a MultiGame lays out its profile blocks in."""
        out: list[int] = []
        stack = [0]
        while stack:
            n = stack.pop()
            if self.kind[n] == DECISION:
                out.append(n)
            if self.kind[n] in (DECISION, CHANCE):
                stack.extend(reversed(self.children(n)))
        return np.array(out, dtype=np.int64)


@dataclass(frozen=True, eq=False)
class Betting3Tree(Nodes3):
    """The street's nodes in breadth-first order (a parent before its children, siblings
    contiguous, each depth a contiguous run); node 0 is the root, player 0 to act."""

    kind: npt.NDArray[np.int8]  # (N,) DECISION, FIXED (one player left), SHOWDOWN
    player: npt.NDArray[np.int8]  # (N,) actor of a decision node, else -1
    parent: npt.NDArray[np.int64]  # (N,) -1 at the root
    first_child: npt.NDArray[np.int64]  # (N,) -1 at a terminal
    num_children: npt.NDArray[np.int64]  # (N,)
    depth: npt.NDArray[np.int64]  # (N,) non-decreasing
    contrib: npt.NDArray[np.float64]  # (N, 3) chips each player has in (pot / 3 + its bets)
    active: npt.NDArray[np.bool_]  # (N, 3) not folded
    labels: list[str]  # action leading to each node ("" at the root)


@dataclass(frozen=True)
class _State:
    """A node's betting state: each player's street bets (chips), who is in, who still has
    to act before the round can close, the actor (for a child being added: the player who
    just acted), bets + raises made, the last increment."""

    bets: tuple[float, float, float]
    active: tuple[bool, bool, bool]
    to_act: tuple[bool, bool, bool]
    actor: int
    raises: int
    last_inc: float


def _next_actor(to_act: tuple[bool, ...], after: int) -> int:
    """The first player after ``after`` in the order 0, 1, 2 (wrapping) who still has to act."""
    for k in range(1, PLAYERS3 + 1):
        q = (after + k) % PLAYERS3
        if to_act[q]:
            return q
    return -1


def _amounts(cfg: Betting3Config, st: _State) -> tuple[bool, list[float]]:
    """(raise?, the street commitments the actor may bet or raise to), sorted, merged."""
    p = st.actor
    own = st.bets[p]
    top = max(st.bets)
    rem = cfg.stack - own
    allin_to = own + rem
    facing = top > own
    if rem <= 0:
        return facing, []
    sizes = cfg.sizes[p]
    pot = cfg.pot + sum(st.bets)
    if facing:
        if st.raises - 1 >= cfg.raise_cap:
            return True, []
        if any(st.active[q] and cfg.stack - st.bets[q] <= 0 for q in range(PLAYERS3)):
            return True, []  # someone is all in: call or fold only
        if rem <= top - own:
            return True, []
        raw = [raise_to(s, pot, top, own, allin_to) for s in sizes.raises]
        min_to = top + max(st.last_inc, cfg.big_blind)
    else:
        raw = [own + bet_amount(s, pot, rem) for s in sizes.bets]
        min_to = own + cfg.big_blind
    out = {min(max(float(round(a)), min_to), allin_to) for a in raw}
    return facing, sorted(out)


class _Builder:
    """The flat arrays being filled, one node at a time, breadth first."""

    def __init__(
        self, cfg: Betting3Config, max_nodes: int, ante: tuple[float, float, float]
    ) -> None:
        self.cfg = cfg
        self.max_nodes = max_nodes
        self.ante = ante
        self.kind: list[int] = []
        self.player: list[int] = []
        self.parent: list[int] = []
        self.depth: list[int] = []
        self.first_child: list[int] = []
        self.num_children: list[int] = []
        self.contrib: list[tuple[float, ...]] = []
        self.active: list[tuple[bool, ...]] = []
        self.labels: list[str] = []
        self.states: list[_State | None] = []
        self.queue: deque[int] = deque()

    def add(self, st: _State, par: int, label: str) -> None:
        """A node of state ``st`` (its actor not yet chosen) under ``par``: a terminal when
        one player is left or nobody has to act, else a decision of the next to act."""
        if len(self.kind) >= self.max_nodes:
            raise TreeTooLarge(len(self.kind) + 1, self.max_nodes, "three-player betting tree")
        if sum(st.active) == 1:
            kind, actor = FIXED, -1
        elif not any(st.to_act):
            kind, actor = SHOWDOWN, -1
        else:
            kind, actor = DECISION, _next_actor(st.to_act, st.actor)
        self.kind.append(kind)
        self.player.append(actor)
        self.parent.append(par)
        self.depth.append(self.depth[par] + 1 if par >= 0 else 0)
        self.first_child.append(-1)
        self.num_children.append(0)
        self.contrib.append(tuple(a + b for a, b in zip(self.ante, st.bets, strict=True)))
        self.active.append(st.active)
        self.labels.append(label)
        if kind == DECISION:
            self.states.append(_State(st.bets, st.active, st.to_act, actor, st.raises,
                                      st.last_inc))  # fmt: skip
            self.queue.append(len(self.kind) - 1)
        else:
            self.states.append(None)

    def expand(self, n: int) -> None:
        """Add the children of decision node ``n``: fold and call or check, then the bets or
        raises in increasing size."""
        st = self.states[n]
        assert st is not None
        p = st.actor
        start = len(self.kind)
        others = _three(st.active[q] and q != p for q in range(PLAYERS3))
        done = _three(st.to_act[q] and q != p for q in range(PLAYERS3))
        facing, amounts = _amounts(self.cfg, st)
        top = max(st.bets)
        if facing:
            self.add(_State(st.bets, others, done, p, st.raises, st.last_inc), n, "f")
            called = _three(top if q == p else st.bets[q] for q in range(PLAYERS3))
            self.add(_State(called, st.active, done, p, st.raises, st.last_inc), n, "c")
        else:
            self.add(_State(st.bets, st.active, done, p, st.raises, st.last_inc), n, "k")
        for to in amounts:
            bets = _three(to if q == p else st.bets[q] for q in range(PLAYERS3))
            inc = max(to - top, st.last_inc)
            label = f"{'r' if facing else 'b'}:{int(to)}"
            self.add(_State(bets, st.active, others, p, st.raises + 1, inc), n, label)
        self.first_child[n] = start
        self.num_children[n] = len(self.kind) - start


def _three(values: Iterable[T]) -> tuple[T, T, T]:
    a, b, c = values
    return (a, b, c)


def build_betting3(
    cfg: Betting3Config,
    max_nodes: int = MAX_BETTING3_NODES,
    active: tuple[bool, bool, bool] = (True, True, True),
    chips_in: tuple[float, float, float] | None = None,
) -> Betting3Tree:
    """The street's whole tree (module docstring); :class:`TreeTooLarge` once it passes
    ``max_nodes`` nodes. A later street (the river after a turn): ``active`` the players
    still in (a folded one never acts, its chips stay in), ``chips_in`` each player's chips
    in at the start (summing to ``cfg.pot``; default ``pot / 3`` each), ``cfg.stack`` the
    chips behind each player still in."""
    if sum(active) < 2:
        raise ValueError("active: at least two players must be in")
    ante = (cfg.pot / PLAYERS3,) * 3 if chips_in is None else chips_in
    if len(ante) != PLAYERS3:
        raise ValueError(f"chips_in: one entry per player (3), got {len(ante)}")
    if cfg.pot <= 0:
        raise ValueError("pot must be positive")
    if cfg.stack <= 0:
        raise ValueError("stack must be positive")
    if len(cfg.sizes) != PLAYERS3:
        raise ValueError(f"sizes: one entry per player (3), got {len(cfg.sizes)}")
    b = _Builder(cfg, max_nodes, (float(ante[0]), float(ante[1]), float(ante[2])))
    # the root's "actor" is the player before 0, so that the first player in is next to act
    b.add(_State((0.0, 0.0, 0.0), active, active, PLAYERS3 - 1, 0, 0.0), -1, "")
    while b.queue:
        b.expand(b.queue.popleft())
    return Betting3Tree(
        kind=np.array(b.kind, dtype=np.int8),
        player=np.array(b.player, dtype=np.int8),
        parent=np.array(b.parent, dtype=np.int64),
        first_child=np.array(b.first_child, dtype=np.int64),
        num_children=np.array(b.num_children, dtype=np.int64),
        depth=np.array(b.depth, dtype=np.int64),
        contrib=np.array(b.contrib, dtype=np.float64).reshape(-1, PLAYERS3),
        active=np.array(b.active, dtype=bool).reshape(-1, PLAYERS3),
        labels=b.labels,
    )
