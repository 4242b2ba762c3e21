"""Heads-up preflop at short stacks, where every line that does not fold ends all-in: an exact
game in the common model (docs/preflop.md).

Player 0 is the small blind (first to act preflop), player 1 the big blind. **Chips are big
blinds**: ``sb``, ``bb`` and ``ante`` are read in any one unit and divided by ``bb``; the
stack and the raise sizes are in big blinds. Each player starts with ``stack_bb``, posts its
blind and the ante (dead money: it does not count toward a bet).

Trees (action labels as in hold'em: ``r:X`` raises to a total of X bb this street, the blind
included; the all-in is ``r:`` the stack less the ante):

* ``push-fold``: SB folds (``f``) or shoves; BB facing the shove folds or calls (``c``).
* ``raise-jam``: SB also raises to each of ``raise_sizes``; BB facing a raise folds or shoves;
  SB facing that shove folds or calls. No limps and no flat calls.

Terminals: a fold pays what the folder had put in (blind, ante and any raise); a call of an
all-in is a RUNOUT terminal worth the whole stack to the winner, valued through
``Boards.runout_eq`` = P(win) − P(lose) over all 1,712,304 boards for each pair of hands
(:func:`solver.poker.preflop_equity.allin_sign`; 0 for hands sharing a card). Values are zero-sum
net winnings for the hand (the blinds count as lost by whoever posted them), so EVs and
exploitability read in bb, mbb/hand with ×1000.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import numpy.typing as npt

from solver.games.build import NodeSpec, finish_boards, flatten, pack_hands
from solver.games.model import DECISION, FIXED, RUNOUT, Game, Hands
from solver.games.spec import SpecError, _can_meet, _number, _range, _weights
from solver.poker.cards import COMBOS
from solver.quoting import brief

TREES = ("push-fold", "raise-jam")
MIN_STACK_BB = 1.0
MAX_STACK_BB = 50.0
MAX_RAISE_SIZES = 8
DEFAULT_RAISE = (2.0,)  # raise-jam's raise-to size (bb) when none is given
RangeInput = str | Sequence[float] | npt.NDArray[np.float64] | None


@dataclass(frozen=True)
class PreflopSpec:
    """A preflop game as a person describes it (see the module docstring for units)."""

    stack_bb: float = 10.0
    tree: str = "push-fold"
    # raise-to amounts in bb (raise-jam only; None: 2 bb), or text such as "2x, 3"
    raise_sizes: tuple[float, ...] | str | None = None
    sb: float = 0.5
    bb: float = 1.0
    ante: float = 0.0  # per player, same unit as sb and bb
    sb_range: RangeInput = None  # range text or 1,326 weights; None: every combo
    bb_range: RangeInput = None
    name: str = ""


@dataclass(frozen=True)
class PreflopSetup:
    """A checked spec, in big blinds: blinds, ante, stack, raise-to sizes below the all-in
    (sorted, distinct), and both players' weights (1326,)."""

    spec: PreflopSpec
    sb: float
    ante: float
    stack: float
    sizes: tuple[float, ...]
    weights: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]]
    merged: tuple[float, ...] = field(default=())  # sizes asked that are the all-in itself

    @property
    def allin_to(self) -> float:
        """The all-in as a raise-to amount: the stack less the dead ante."""
        return self.stack - self.ante

    @property
    def pot(self) -> float:
        """Chips (bb) in the middle before anyone acts: both blinds and antes."""
        return self.sb + 1.0 + 2 * self.ante


def _player_range(field_name: str, given: RangeInput) -> npt.NDArray[np.float64]:
    if given is None:
        return np.ones(len(COMBOS))
    if isinstance(given, str):
        return _range(field_name, given)
    return _weights(field_name, given)


def _sizes(raw: object) -> list[float]:
    """Raise sizes as numbers of bb: a list of numbers, or text such as ``"2x, 3bb, 2.5"``
    (``x``: times the big blind, the same thing here)."""
    if isinstance(raw, (int, float, np.integer, np.floating)) and not isinstance(raw, bool):
        items: list[object] = [raw]
    elif isinstance(raw, str):
        items = [t for t in raw.replace(";", ",").split(",") if t.strip()]
    elif isinstance(raw, (list, tuple)):
        items = list(raw)
    else:
        raise SpecError("raise_sizes", f"must be sizes in bb like [2.0] or '2x', got {brief(raw)}")
    if len(items) > MAX_RAISE_SIZES:
        raise SpecError("raise_sizes", f"at most {MAX_RAISE_SIZES} sizes, got {len(items)}")
    out = []
    for item in items:
        if isinstance(item, str):
            text = item.strip().lower().removesuffix("bb").removesuffix("x").strip()
            out.append(_number("raise_sizes", text))
        else:
            out.append(_number("raise_sizes", item))
    return out


def validate(spec: PreflopSpec) -> PreflopSetup:
    """Check every field; :class:`SpecError` naming the first bad one."""
    if not isinstance(spec, PreflopSpec):
        raise TypeError(f"spec must be a PreflopSpec, got {type(spec).__name__}")
    if not isinstance(spec.name, str) or len(spec.name) > 200:
        raise SpecError("name", "must be text of at most 200 characters")
    stack = _number("stack_bb", spec.stack_bb, minimum=MIN_STACK_BB, maximum=MAX_STACK_BB,
                    unit=" bb")  # fmt: skip
    if not isinstance(spec.tree, str) or spec.tree.strip().lower() not in TREES:
        raise SpecError("tree", f"must be one of {', '.join(TREES)}, got {brief(spec.tree)}")
    tree = spec.tree.strip().lower()
    sb = _number("sb", spec.sb, maximum=1e9)
    bb = _number("bb", spec.bb, maximum=1e9)
    if sb > bb:
        raise SpecError("sb", f"the small blind ({sb:g}) must not exceed the big blind ({bb:g})")
    ante = _number("ante", spec.ante, positive=False, maximum=1e9) / bb
    sb /= bb
    if stack < 1.0 + ante:
        raise SpecError(
            "stack_bb", f"{stack:g} bb does not cover the big blind and the ante ({1 + ante:g} bb)"
        )
    allin = stack - ante
    sizes: list[float] = []
    merged: list[float] = []
    if tree == "push-fold" and spec.raise_sizes is not None:
        raise SpecError("raise_sizes", "only for the raise-jam tree (push-fold has none)")
    if tree == "raise-jam":
        for s in _sizes(DEFAULT_RAISE if spec.raise_sizes is None else spec.raise_sizes):
            if s < 2.0:
                raise SpecError("raise_sizes", f"a raise is to at least 2 bb (the minimum "
                                f"raise), got {s:g}")  # fmt: skip
            if s > stack:
                raise SpecError("raise_sizes", f"{s:g} bb is more than the stack ({stack:g} bb)")
            if s >= allin - 1e-12:
                merged.append(s)  # the all-in itself: the shove already in the tree
            elif s not in sizes:
                sizes.append(s)
        if not sizes and not merged:
            raise SpecError("raise_sizes", "raise-jam needs at least one raise size")
    w0 = _player_range("sb_range", spec.sb_range)
    w1 = _player_range("bb_range", spec.bb_range)
    for name, w in (("sb_range", w0), ("bb_range", w1)):
        if not np.any(w > 0):
            raise SpecError(name, "no combos in the range")
    if not _can_meet(w0, w1):
        raise SpecError("bb_range", "no hand of it can be dealt with a hand of the SB range")
    return PreflopSetup(spec, sb, ante, stack, tuple(sorted(sizes)), (w0, w1), tuple(merged))


def _fmt(x: float) -> str:
    return f"{x:g}"


def betting(setup: PreflopSetup) -> NodeSpec:
    """The public tree (no chance nodes: an all-in called is a RUNOUT terminal, row 0)."""
    a, s = setup.ante, setup.stack
    jam = f"r:{_fmt(setup.allin_to)}"

    def allin_called(label: str) -> NodeSpec:
        node = NodeSpec(RUNOUT, payoff=s, label=label)
        node.runout = 0
        return node

    def facing_jam(player: int, folder_in: float, label: str) -> NodeSpec:
        node = NodeSpec(DECISION, player=player, label=label)
        payoff0 = -folder_in if player == 0 else folder_in
        node.children = [NodeSpec(FIXED, payoff=payoff0, label="f"), allin_called("c")]
        return node

    root = NodeSpec(DECISION, player=0)
    root.children.append(NodeSpec(FIXED, payoff=-(setup.sb + a), label="f"))
    for r in setup.sizes:
        bb_node = NodeSpec(DECISION, player=1, label=f"r:{_fmt(r)}")
        bb_node.children = [
            NodeSpec(FIXED, payoff=1.0 + a, label="f"),
            facing_jam(0, r + a, jam),
        ]
        root.children.append(bb_node)
    root.children.append(facing_jam(1, 1.0 + a, jam))
    return root


def _hands(
    ids: list[npt.NDArray[np.int64]],
    weights: tuple[npt.NDArray[np.float64], npt.NDArray[np.float64]],
) -> Hands:
    """Both players' combos ``ids[p]`` (indices of COMBOS) as :class:`Hands`, as
    :func:`solver.games.build.make_hands` makes them (no suit permutations), with the pairs
    that can be dealt together counted by array operations: make_hands' pair loop takes ~5 s
    for two full ranges."""
    from solver.poker.preflop_equity import collisions

    n = [len(ids[0]), len(ids[1])]
    hmax = max(n)
    cards = np.full((2, hmax, 2), -1, dtype=np.int32)
    w = np.zeros((2, hmax))
    same = np.full((2, hmax), -1, dtype=np.int32)
    for p in range(2):
        cards[p, : n[p]] = COMBOS[ids[p]]
        w[p, : n[p]] = weights[p][ids[p]]
        where = np.full(len(COMBOS), -1, dtype=np.int32)
        where[ids[1 - p]] = np.arange(n[1 - p], dtype=np.int32)
        same[p, : n[p]] = where[ids[p]]
    apart = ~collisions()[np.ix_(ids[0], ids[1])]
    total = float(w[0, : n[0]] @ (apart @ w[1, : n[1]]))
    perm = np.tile(np.arange(hmax, dtype=np.int32), (1, 2, 1))
    return Hands(np.array(n, dtype=np.int64), cards, w, same, 52, 1.0 / total, perm,
                 pack_hands(cards, same))  # fmt: skip


def _combo_name(i: int) -> str:
    from solver.poker.cards import card_str

    a, b = sorted((int(COMBOS[i, 0]), int(COMBOS[i, 1])), reverse=True)
    return card_str(a) + card_str(b)


def build_preflop(spec: PreflopSpec | PreflopSetup | None = None, /, **fields: object) -> Game:
    """Build the game of ``spec`` (or of :class:`PreflopSpec` ``fields``: ``stack_bb``,
    ``tree``, ``raise_sizes``, ``sb``, ``bb``, ``ante``, ``sb_range``, ``bb_range``, ``name``);
    :class:`SpecError` naming a bad field, TypeError for an unknown one."""
    from solver.poker.preflop_equity import allin_sign

    if spec is None:
        known = set(PreflopSpec.__dataclass_fields__)
        unknown = sorted(set(fields) - known)
        if unknown:
            names = ", ".join(sorted(known))
            raise TypeError(f"preflop: unknown option(s) {', '.join(unknown)}; known: {names}")
        args = dict(fields)
        if isinstance(args.get("raise_sizes"), list):
            args["raise_sizes"] = tuple(args["raise_sizes"])  # type: ignore[arg-type]
        spec = PreflopSpec(**args)  # type: ignore[arg-type]
    elif fields:
        raise TypeError("give a spec or fields, not both")
    setup = spec if isinstance(spec, PreflopSetup) else validate(spec)
    ids = [np.flatnonzero(setup.weights[p] > 0) for p in range(2)]
    hands = _hands(ids, setup.weights)
    tree, labels = flatten(betting(setup), (len(ids[0]), len(ids[1])))
    hmax = int(hands.cards.shape[1])
    n0, n1 = len(ids[0]), len(ids[1])
    sign = allin_sign()[np.ix_(ids[0], ids[1])]
    runout_eq = np.zeros((1, 2, hmax, hmax))
    runout_eq[0, 0, :n0, :n1] = sign
    runout_eq[0, 1, :n1, :n0] = -sign.T
    valid = np.zeros((1, 2, hmax))
    valid[0, 0, :n0] = 1.0
    valid[0, 1, :n1] = 1.0
    boards = finish_boards(hands, valid, np.zeros((1, 2, hmax), dtype=np.int64),
                           np.array([False]), runout_eq)  # fmt: skip
    tree_name = setup.spec.tree.strip().lower()
    sizes = ", ".join(_fmt(r) for r in setup.sizes)
    shape = "push/fold" if tree_name == "push-fold" else f"raise to {sizes} bb / jam"
    ante = f", ante {setup.ante:g}" if setup.ante else ""
    name = setup.spec.name or f"preflop {tree_name} {setup.stack:g}bb"
    return Game(
        name=name,
        tree=tree,
        hands=hands,
        boards=boards,
        labels=labels,
        hand_names=[[_combo_name(int(i)) for i in ids[p]] for p in range(2)],
        description=(
            f"Heads-up preflop {shape}: stack {setup.stack:g} bb, blinds {setup.sb:g}/1{ante}; "
            "player 0 is the SB; every all-in runs out exactly"
        ),
        card_names=[],
        meta={
            "kind": "holdem",
            "preflop": True,
            "board": (),
            "pot": setup.pot,
            "stack": setup.stack,
            "big_blind": 1.0,
            "ante": setup.ante,
            "sb": setup.sb,
            "tree": tree_name,
            "raise_sizes": list(setup.sizes),
            "merged_sizes": list(setup.merged),
            "combos": ids,
            "ev_offset": 0.0,  # EVs are net winnings of the hand, zero-sum
            "size_notes": [],
        },
    )


def is_preflop(game: Game) -> bool:
    return bool(game.meta.get("preflop"))
