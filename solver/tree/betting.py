"""The card-free betting tree of a hold'em subgame, built from bet sizes per street and player.

The tree knows chips, not cards: decision nodes, folds, showdowns and *street ends* where the
next public card is dealt. :mod:`solver.games.holdem` expands each street end into one child
per possible card. Sizes follow :mod:`solver.tree.sizes`.

Rules of the betting (heads-up no-limit, equal effective stacks):

* OOP (player 0) acts first on every street. Not facing a bet: check or bet; facing one: fold,
  call or raise. A street ends on check-check or a call; a fold ends the hand.
* ``raise_cap``: raises allowed per street after the first bet (all-in always counts).
* A raise is at least the last bet or raise increment (no-limit min-raise); a bet at least one
  big blind; amounts are whole chips; at or above the stack a size is all-in.
* Donk sizes: OOP's first bet on the turn or river when IP made the last bet or raise on the
  previous street. ``None`` uses OOP's bet sizes; an empty tuple means OOP checks there.
* ``add_allin_threshold`` A > 0: offer all-in as well whenever the stack behind is at most
  A × the pot (after calling, for raises).
* ``force_allin_threshold`` F > 0: a bet or raise that would leave a stack-to-pot ratio of at
  most F after a call becomes all-in.
* ``merging_threshold`` M > 0: of two sizes whose amounts differ by at most M × the pot (after
  calling), keep the larger.
* When a player is all-in and called, the remaining cards are dealt with no more betting:
  by default one RUNOUT terminal whose values come from precomputed runout equities
  (``collapse_runouts=False`` builds the chance nodes and showdowns instead).

Nodes are counted as they are made: past ``max_nodes`` the build stops with
:class:`TreeTooLarge` (the count so far), so an absurd spec is refused in about the time
``max_nodes`` nodes take, never after building all of it. The depth of the recursion is at
most 3 streets × (raise cap + 3) actions, which the spec's limits keep small
(:mod:`solver.games.spec`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN
from solver.tree.sizes import Size, bet_amount, raise_to

STREETS = ("flop", "turn", "river")
OOP, IP = 0, 1
MAX_BETTING_NODES = 200_000
"""Default node limit of :func:`build_betting_tree` (card-free nodes)."""


class TreeTooLarge(ValueError):
    """A tree that passes its node limit while being built or counted; ``limit`` is the limit
    and ``nodes`` the count reached when the build stopped."""

    def __init__(self, nodes: int, limit: int, what: str = "betting tree") -> None:
        super().__init__(
            f"the {what} passes {limit:,} nodes while being built (stopped at {nodes:,}): "
            "use fewer sizes or a lower raise cap"
        )
        self.nodes = nodes
        self.limit = limit


class _Budget:
    """Counts nodes made; raises :class:`TreeTooLarge` past ``limit``."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.count = 0

    def take(self, n: int = 1) -> None:
        self.count += n
        if self.count > self.limit:
            raise TreeTooLarge(self.count, self.limit)


@dataclass(frozen=True)
class PlayerSizes:
    """Sizes of one player on one street."""

    bets: tuple[Size, ...] = ()
    raises: tuple[Size, ...] = ()
    donks: tuple[Size, ...] | None = None  # OOP only; None = use bets


@dataclass(frozen=True)
class BettingConfig:
    """Chips and sizes of a subgame's betting; ``sizes[street][player]``."""

    start_street: int  # 0 flop, 1 turn, 2 river
    pot: int  # chips in the pot at the start (each player put in half)
    stack: int  # effective stack behind at the start (chips)
    sizes: tuple[tuple[PlayerSizes, PlayerSizes], ...]  # indexed by street (0..2)
    big_blind: float = 100.0
    raise_cap: int = 3
    add_allin_threshold: float = 0.0
    force_allin_threshold: float = 0.0
    merging_threshold: float = 0.0
    collapse_runouts: bool = True  # an all-in before the river is one RUNOUT terminal


@dataclass
class ActionNode:
    """A node of the card-free tree. ``payoff``: FIXED = player 0's chips won (zero-sum,
    relative to the start of the hand); SHOWDOWN = what the winner wins. CHANCE = a street
    end: the next card is dealt, then ``children[0]`` follows (for every card)."""

    kind: int
    street: int
    player: int = -1
    label: str = ""
    payoff: float = 0.0
    children: list[ActionNode] = field(default_factory=list)
    committed: tuple[float, float] = (0.0, 0.0)  # chips each has put in since the start


@dataclass
class _State:
    street: int
    base: float  # each player's commitment before this street (chips, since the start)
    bets: list[float]  # this street's commitments
    actor: int
    raises: int  # bets + raises made this street
    last_inc: float  # last bet / raise increment this street
    aggressor: int  # last player to bet or raise this street (-1: none)
    prev_aggressor: int  # last aggressor of the previous street
    first_action: bool  # nobody has acted yet this street


def build_betting_tree(cfg: BettingConfig, max_nodes: int = MAX_BETTING_NODES) -> ActionNode:
    """The whole card-free tree of the subgame; :class:`TreeTooLarge` once it passes
    ``max_nodes`` nodes."""
    if cfg.pot <= 0:
        raise ValueError("pot must be positive")
    if cfg.stack <= 0:
        raise ValueError("stack must be positive")
    half = cfg.pot / 2.0
    root_state = _State(cfg.start_street, half, [0.0, 0.0], OOP, 0, 0.0, -1, -1, True)
    return _decision(cfg, root_state, _Budget(max_nodes))


def _committed(st: _State) -> tuple[float, float]:
    return (st.base + st.bets[0], st.base + st.bets[1])


def _pot(cfg: BettingConfig, st: _State) -> float:
    return 2.0 * st.base + st.bets[0] + st.bets[1]


def _remaining(cfg: BettingConfig, st: _State, p: int) -> float:
    """Chips ``p`` still has behind."""
    return cfg.stack - (st.base - cfg.pot / 2.0) - st.bets[p]


def _street_end(cfg: BettingConfig, st: _State, bets: list[float], budget: _Budget) -> ActionNode:
    budget.take()
    base = st.base + bets[0]  # both equal after a call or check-check
    allin = cfg.stack - (base - cfg.pot / 2.0) <= 0
    committed = (base, base)
    if st.street == 2:
        return ActionNode(SHOWDOWN, st.street, payoff=base, committed=committed)
    if allin and cfg.collapse_runouts:
        # the rest is dealt with no more betting: one terminal, valued by runout equities
        return ActionNode(RUNOUT, st.street, payoff=base, committed=committed)
    if allin:
        # deal the rest with no more betting
        node = ActionNode(CHANCE, st.street, committed=committed)
        nxt = _State(st.street + 1, base, [0.0, 0.0], OOP, 0, 0.0, -1, -1, True)
        node.children.append(_street_end(cfg, nxt, [0.0, 0.0], budget))
        return node
    node = ActionNode(CHANCE, st.street, committed=committed)
    nxt = _State(st.street + 1, base, [0.0, 0.0], OOP, 0, 0.0, -1, st.aggressor, True)
    node.children.append(_decision(cfg, nxt, budget))
    return node


def _amounts(cfg: BettingConfig, st: _State, facing: bool) -> list[float]:
    """Street commitments (``to`` amounts) of the bets or raises the actor may make."""
    p = st.actor
    other = 1 - p
    ps = cfg.sizes[st.street][p]
    pot = _pot(cfg, st)
    rem = _remaining(cfg, st, p)
    own = st.bets[p]
    allin_to = own + rem
    if rem <= 0:
        return []
    if facing:
        if st.raises - 1 >= cfg.raise_cap or _remaining(cfg, st, other) <= 0:
            return []
        if rem <= st.bets[other] - own:  # can only call (or call all-in)
            return []
        sizes = ps.raises
        pot_ref = pot + (st.bets[other] - own)
        raw = [raise_to(s, pot, st.bets[other], own, allin_to) for s in sizes]
        min_to = st.bets[other] + max(st.last_inc, cfg.big_blind)
    else:
        donk = (
            p == OOP
            and st.first_action
            and st.street > cfg.start_street
            and st.prev_aggressor == IP
            and ps.donks is not None
        )
        sizes = ps.donks if donk and ps.donks is not None else ps.bets
        pot_ref = pot
        raw = [own + bet_amount(s, pot, rem) for s in sizes]
        min_to = own + cfg.big_blind
    out: list[float] = []
    for amount in raw:
        amount = float(round(amount))
        amount = max(amount, min_to)
        if cfg.force_allin_threshold > 0:
            stack_after = allin_to - amount
            pot_after = pot + (amount - own) + (amount - st.bets[other])
            if stack_after / pot_after <= cfg.force_allin_threshold:
                amount = allin_to
        out.append(min(amount, allin_to))
    if cfg.add_allin_threshold > 0 and rem <= cfg.add_allin_threshold * pot_ref:
        out.append(allin_to)
    out = sorted(set(out))
    if cfg.merging_threshold > 0 and len(out) > 1:
        kept: list[float] = [out[-1]]
        for amount in reversed(out[:-1]):
            if kept[-1] - amount > cfg.merging_threshold * pot_ref:
                kept.append(amount)
        out = sorted(kept)
    return out


def _decision(cfg: BettingConfig, st: _State, budget: _Budget) -> ActionNode:
    budget.take()
    p = st.actor
    other = 1 - p
    facing = st.bets[other] > st.bets[p]
    node = ActionNode(DECISION, st.street, player=p, committed=_committed(st))
    if facing:
        c = _committed(st)
        payoff0 = -c[0] if p == OOP else c[1]
        budget.take()
        node.children.append(ActionNode(FIXED, st.street, label="f", payoff=payoff0, committed=c))
        call_bets = [st.bets[other], st.bets[other]]
        call = _street_end(cfg, st, call_bets, budget)
        call.label = "c"
        node.children.append(call)
    else:
        if p == OOP:
            nxt = _State(
                st.street, st.base, list(st.bets), IP, st.raises, st.last_inc, st.aggressor,
                st.prev_aggressor, False,
            )  # fmt: skip
            check = _decision(cfg, nxt, budget)
        else:
            check = _street_end(cfg, st, list(st.bets), budget)
        check.label = "k"
        node.children.append(check)
    for to in _amounts(cfg, st, facing):
        bets = list(st.bets)
        inc = to - st.bets[other] if facing else to - st.bets[p]
        bets[p] = to
        nxt = _State(
            st.street, st.base, bets, other, st.raises + 1, max(inc, st.last_inc), p,
            st.prev_aggressor, False,
        )  # fmt: skip
        child = _decision(cfg, nxt, budget)
        child.label = f"{'r' if facing else 'b'}:{int(to)}"
        node.children.append(child)
    return node
