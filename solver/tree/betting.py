"""The card-free betting tree of a hold'em subgame, built from bet sizes per street and player.

The tree knows chips, not cards: decision nodes, folds, showdowns and *street ends* where the
next public card is dealt. :mod:`solver.games.holdem` expands each street end into one child
per possible card. Sizes follow :mod:`solver.tree.sizes`.

Rules of the betting (heads-up no-limit, equal effective stacks):

* OOP (player 0) acts first on every street. Not facing a bet: check or bet; facing one: fold,
  call or raise. A street ends on check-check or a call; a fold ends the hand.
* ``raise_cap``: raises allowed per street after the first bet (all-in always counts).
* A raise is at least the last bet or raise increment (no-limit min-raise); a bet at least one
  big blind (default 10 chips, as the srp presets); amounts are whole chips; at or above the
  stack a size is all-in.
* Donk sizes: OOP's first bet on the turn or river when IP made the last bet or raise on the
  previous street. ``None`` uses OOP's bet sizes; an empty tuple means OOP checks there.
* ``add_allin_threshold`` A > 0: offer all-in as well whenever the stack behind is at most
  A × the pot (after calling, for raises).
* ``force_allin_threshold`` F > 0: a bet or raise that would leave a stack-to-pot ratio of at
  most F after a call becomes all-in.
* ``merging_threshold`` M > 0: of two sizes whose amounts differ by at most M × the pot (after
  calling), keep the larger.
* Every size played at another amount than the one asked for (raised to the minimum, forced
  or capped all-in, merged into a larger size; rounding to whole chips aside) can be recorded
  as a :class:`SizeNote` (``build_betting_tree(..., notes=SizeNotes())``, :func:`size_notes`),
  so that a size typed is a size played, or the user is told.
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

from dataclasses import dataclass, field, replace

from solver.tree.kinds import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN
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
    """Counts nodes made; raises :class:`TreeTooLarge` past ``limit``. Carries the
    :class:`SizeNotes` being collected (None: not collected)."""

    def __init__(self, limit: int, notes: SizeNotes | None = None) -> None:
        self.limit = limit
        self.count = 0
        self.notes = notes

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
    big_blind: float = 10.0  # chips; the smallest bet (the srp presets use 10)
    raise_cap: int = 3
    add_allin_threshold: float = 0.0
    force_allin_threshold: float = 0.0
    merging_threshold: float = 0.0
    collapse_runouts: bool = True  # an all-in before the river is one RUNOUT terminal


NOTE_REASONS = ("minimum", "force_allin", "stack", "merged")
"""Why a size is played at another amount: raised to the minimum bet or raise, forced all-in
by the force-all-in threshold, capped at all-in by the stack, merged into a larger size."""


@dataclass(frozen=True)
class SizeNote:
    """A requested size the builder played at another amount, at ``nodes`` decision nodes
    (the amounts are those of the first such node).

    ``street`` flop/turn/river; ``player`` OOP/IP; ``kind`` bet/raise/donk; ``size`` as
    typed in the solver syntax (``33%``); ``chips`` what it would have been (chips bet, or
    the street commitment raised to), rounded; ``amount`` what is played (same units);
    ``became`` says what and why, e.g. ``100 chips (the minimum bet: one big blind)``;
    ``reason`` one of :data:`NOTE_REASONS`; ``big_blind`` whether the minimum was the big
    blind (so a smaller big blind would play the size as asked)."""

    street: str
    player: str
    kind: str
    size: str
    chips: int
    amount: int
    became: str
    reason: str
    nodes: int = 1
    big_blind: bool = False

    def text(self) -> str:
        """One line for people: which size became what, and why."""
        asked = f"to {self.chips} chips" if self.kind == "raise" else f"{self.chips} chips"
        where = f" (at {self.nodes:,} nodes)" if self.nodes > 1 else ""
        head = f"{self.street} {self.player} {self.kind} {self.size} ({asked})"
        return f"{head} is played as {self.became}{where}"

    def as_dict(self) -> dict[str, object]:
        """The note as a JSON-ready record, with its ``text``."""
        return {
            "street": self.street, "player": self.player, "kind": self.kind,
            "size": self.size, "chips": self.chips, "amount": self.amount,
            "became": self.became, "reason": self.reason, "nodes": self.nodes,
            "text": self.text(),
        }  # fmt: skip


class SizeNotes:
    """Collects :class:`SizeNote` while a tree is built, one per (street, player, kind, size,
    reason), counting the nodes."""

    def __init__(self) -> None:
        self._seen: dict[tuple[int, int, str, str, str], SizeNote] = {}

    def add(self, street: int, note: SizeNote) -> None:
        key = (street, 0 if note.player == "OOP" else 1, note.kind, note.size, note.reason)
        first = self._seen.get(key)
        self._seen[key] = note if first is None else replace(first, nodes=first.nodes + 1)

    def notes(self) -> list[SizeNote]:
        """The notes by street, then player (the order of the first node otherwise)."""
        order = sorted(enumerate(self._seen.items()), key=lambda e: (e[1][0][:2], e[0]))
        return [note for _, (_, note) in order]


def size_notes(cfg: BettingConfig, max_nodes: int = MAX_BETTING_NODES) -> list[SizeNote]:
    """The sizes of ``cfg`` played at another amount than asked (builds the card-free tree,
    which is small; :class:`TreeTooLarge` past ``max_nodes``)."""
    notes = SizeNotes()
    build_betting_tree(cfg, max_nodes, notes)
    return notes.notes()


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


def build_betting_tree(
    cfg: BettingConfig, max_nodes: int = MAX_BETTING_NODES, notes: SizeNotes | None = None
) -> ActionNode:
    """The whole card-free tree of the subgame; :class:`TreeTooLarge` once it passes
    ``max_nodes`` nodes. ``notes``, when given, collects the sizes played at another amount
    than asked (:class:`SizeNote`)."""
    if cfg.pot <= 0:
        raise ValueError("pot must be positive")
    if cfg.stack <= 0:
        raise ValueError("stack must be positive")
    half = cfg.pot / 2.0
    root_state = _State(cfg.start_street, half, [0.0, 0.0], OOP, 0, 0.0, -1, -1, True)
    return _decision(cfg, root_state, _Budget(max_nodes, notes))


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


def _amounts(
    cfg: BettingConfig, st: _State, facing: bool, notes: SizeNotes | None = None
) -> list[float]:
    """Street commitments (``to`` amounts) of the bets or raises the actor may make; sizes
    played at another amount than asked go to ``notes`` when given."""
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
        kind = "raise"
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
        kind = "donk" if donk else "bet"
    out: list[float] = []
    made: list[tuple[Size, float, float, bool]] = []  # size, asked, played, forced all-in
    for size, amount in zip(sizes, raw, strict=True):
        asked = float(round(amount))
        amount = max(asked, min_to)
        forced = False
        if cfg.force_allin_threshold > 0:
            stack_after = allin_to - amount
            pot_after = pot + (amount - own) + (amount - st.bets[other])
            if stack_after / pot_after <= cfg.force_allin_threshold:
                amount = allin_to
                forced = True
        out.append(min(amount, allin_to))
        made.append((size, asked, out[-1], forced))
    if cfg.add_allin_threshold > 0 and rem <= cfg.add_allin_threshold * pot_ref:
        out.append(allin_to)
    out = sorted(set(out))
    if cfg.merging_threshold > 0 and len(out) > 1:
        kept: list[float] = [out[-1]]
        for amount in reversed(out[:-1]):
            if kept[-1] - amount > cfg.merging_threshold * pot_ref:
                kept.append(amount)
        out = sorted(kept)
    if notes is not None:
        _note(cfg, st, kind, made, out, min_to - st.bets[other] if facing else 0.0, notes)
    return out


def _note(
    cfg: BettingConfig,
    st: _State,
    kind: str,
    made: list[tuple[Size, float, float, bool]],
    out: list[float],
    min_inc: float,
    notes: SizeNotes,
) -> None:
    """Record each size of ``made`` whose played amount differs from the one asked (chips
    as in the action labels: a bet's chips, a raise's street commitment)."""
    p = st.actor
    own = st.bets[p]
    allin_to = own + _remaining(cfg, st, p)
    raise_ = kind == "raise"
    unit = "a raise to " if raise_ else ""
    for size, asked, played, forced in made:
        by_bb = False
        if played not in out:  # dropped by the merging threshold: the next kept size is played
            into = min(a for a in out if a > played)
            played = into
            reason = "merged"
            became = (
                f"{unit}{int(played - (0 if raise_ else own))} chips (merged into the larger "
                f"size: merging threshold {cfg.merging_threshold:g})"
            )
        elif size.kind == "allin" or played == asked:
            continue
        elif played == allin_to:
            reason = "force_allin" if forced and asked < allin_to else "stack"
            why = (
                f"force-all-in threshold {cfg.force_allin_threshold:g}"
                if reason == "force_allin"
                else "the stack"
            )
            became = f"all-in ({int(played - (0 if raise_ else own))} chips: {why})"
        else:
            reason = "minimum"
            if raise_:
                by_bb = cfg.big_blind >= st.last_inc
                floor = "one big blind" if by_bb else "the last bet or raise increment"
                became = (
                    f"a raise to {int(played)} chips (the minimum raise: {floor}, "
                    f"{min_inc:g} chips)"
                )
            else:
                by_bb = True  # a bet's minimum is always the big blind
                became = (
                    f"{int(played - own)} chips (the minimum bet: one big blind, "
                    f"{cfg.big_blind:g} chips)"
                )
        note = SizeNote(
            street=STREETS[st.street],
            player="OOP" if p == OOP else "IP",
            kind=kind,
            size=str(size),
            chips=int(asked - (0 if raise_ else own)),
            amount=int(played - (0 if raise_ else own)),
            became=became,
            reason=reason,
            big_blind=by_bb,
        )
        notes.add(st.street, note)


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
    for to in _amounts(cfg, st, facing, budget.notes):
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
