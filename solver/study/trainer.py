"""A trainer over a solve: deal hands from a solved spot, let a player (the *hero*) act, and
grade each decision by the EV it loses against the solution.

Everything is read from a game and a strategy profile ``sigma`` (the flat (action_size,)
average strategy of a solve); nothing here solves anything and nothing imports Streamlit.
Three modules: this one (a practice session, :class:`Drill`, and its automatic answers),
:mod:`solver.study.dealing` (the exact deal table, deal filters, suit permutations) and
:mod:`solver.study.grading` (grades, records, score, exports); their names are importable from here.

**Dealing** (:func:`~solver.study.dealing.deal_table`,
:func:`~solver.study.dealing.deal_hands`): a pair
of hands is dealt at the scope's start node in proportion to both range weights, card removal
and each hand's own probability of the line (the chance cards' probability cancels), and
conditioned on the hero's hand passing the session's :class:`~solver.study.dealing.DealFilter`.
After the deal the hand is played forward: the villain's action is drawn from ``sigma`` for
its dealt hand, each chance card uniformly over the live deck (cards in neither hand nor on
the board, in the real suits: a suit-isomorphic card is mapped to the canonical node that
stores it, :meth:`solver.games.model.Game.locate`). With ``suits=True`` each hand is shown
under a random suit permutation (:func:`~solver.study.dealing.suit_permutations`); everything is
computed in the solve's suits, so the grades do not change.

**Grading** (:func:`~solver.study.grading.grade_of`). At a hero decision the EV of each action for
the hero's hand is :func:`solver.study.views.action_evs` (chips, the units of Explore's per-hand EV:
the hand plays the action, both play ``sigma`` after it, against the villain's *range*
reaching the node); EV lost = best action's EV − chosen action's EV; the grades are
:mod:`solver.study.grading`'s. After a hero action the solution never takes with the hand, the
hand is *off the solution's tree* (:meth:`Drill.off_tree`: its own reach at the node is 0, so
the solve's strategy there is a placeholder): such decisions have no mix and are graded by EV
lost alone.

**Arguments.** A bad argument of :class:`Drill`, :func:`deal`, :func:`grade`, :func:`play`,
:func:`answer`, :class:`~solver.study.grading.Thresholds` or
:class:`~solver.study.dealing.DealFilter` raises
:class:`~solver.study.trainer_args.TrainerError` (a ValueError) whose ``field`` names it.

**Scopes**: ``node`` deals at one hero decision node and grades that one decision; ``street``
deals at the first node of the node's street and plays to the street's end (a chance node or
a terminal); ``hand`` deals at the root and plays to the end of the hand. A hand that ends
before the hero acts (the villain folds first) is dealt again and counted in
:attr:`Drill.skipped`: the session's hands are those the hero acts in.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import NamedTuple, Protocol

import numpy as np
import numpy.typing as npt

from solver.cfr.reach import path_reach
from solver.games.model import CHANCE, DECISION, Game
from solver.study.analysis import compatible, node_path
from solver.study.dealing import (
    IDENTITY,
    DealFilter,
    FilterError,
    Perm,
    deal_hands,
    deal_table,
    draw,
    filter_mask,
    hand_cards,
    shown_card,
    suit_permutations,
)
from solver.study.grading import (
    CSV_FIELDS,
    GRADES,
    TIE,
    Decision,
    Score,
    Thresholds,
    grade_of,
    score,
    to_csv,
    to_json,
)
from solver.study.trainer_args import TrainerError, checked_sigma, said, whole
from solver.study.views import action_evs
from solver.study.words import (
    ARROW,
    DOT,
    STREETS,
    action_names,
    child_name,
    default_players,
    node_pot,
)

__all__ = [
    "ANSWERS", "CSV_FIELDS", "GRADES", "IDENTITY", "MAX_PLAY", "SCOPES", "TIE", "Deal",
    "DealFilter", "Decision", "Drill", "FilterError", "Perm", "Score", "Table", "Thresholds",
    "TrainerError", "answer", "deal", "deal_hands",
    "deal_table", "filter_mask", "grade", "grade_of", "hand_cards", "play", "pot_at", "score",
    "strategy_at",
    "street_start", "suit_permutations", "to_csv", "to_json",
]  # fmt: skip

Array = npt.NDArray[np.float64]

SCOPES = ("node", "street", "hand")
ANSWERS = ("best", "solution", "uniform")
MAX_PLAY = 100_000
"""The most decisions one :func:`play` call plays (``python -m solver drill``'s ``--hands`` cap)."""


# ----- the spot's numbers ---------------------------------------------------------------------
def pot_at(game: Game, node: int) -> float:
    """Chips in the pot at ``node`` (before its action). Hold'em: the starting pot plus what
    both players put in since (:func:`solver.study.words.node_pot`; preflop, bb: each player's
    raise-to amount plus the antes, the blinds being part of those amounts); toy games: the
    antes (1 each) plus the bets (``b:S`` adds S, ``r:S`` raises by S over the other's chips,
    ``c`` matches). 0 for games with neither."""
    if game.is_holdem:
        return node_pot(game, node)
    if game.meta.get("kind") != "toy" or "sizes" not in game.meta:
        return 0.0
    put = [1.0, 1.0]
    t = game.tree
    for child in node_path(game, node):
        parent = int(game.parents[child])
        if t.kind[parent] != DECISION:
            continue
        p = int(t.player[parent])
        label = game.labels[child]
        if label.startswith("b:"):
            put[p] += float(label[2:])
        elif label.startswith("r:"):
            put[p] = put[1 - p] + float(label[2:])
        elif label == "c":
            put[p] = put[1 - p]
    return put[0] + put[1]


def street_start(game: Game, node: int) -> int:
    """The first node of ``node``'s street: the root or the child of the last chance node
    above it."""
    n = int(node)
    while n > 0 and game.tree.kind[int(game.parents[n])] != CHANCE:
        n = int(game.parents[n])
    return n


def strategy_at(game: Game, sigma: Array, node: int) -> Array:
    """(num_actions, H[actor]) the strategy at decision ``node``."""
    off, na, nh = game.block(node)
    return np.asarray(sigma[off : off + na * nh], dtype=np.float64).reshape(na, nh)


# ----- a practice session ---------------------------------------------------------------------
@dataclass
class Table:
    """The hand being played: both players' hands (indices in the frame of the drill's start
    node), the real labels from the root, the node standing for them and the card map into
    its frame (real card → card of that node's frame), the line's steps (node, real label) and
    the suit permutation the hand is shown under (:mod:`solver.study.dealing`)."""

    hands: tuple[int, int]
    history: list[str]
    node: int
    cmap: list[int]
    steps: list[tuple[int, str]] = field(default_factory=list)
    rng_pick: int | None = None
    over: bool = False
    suits: Perm = IDENTITY  # the suit permutation the hand is shown under


class Drill:
    """A practice session on ``game`` under ``sigma`` (module doc): the hero is ``player``,
    ``scope`` one of :data:`SCOPES` around ``node``; ``seed`` seeds the numpy Generator that
    deals, plays the villain and draws RNG-mode picks (the same seed and answers give the
    same session). ``deal_filter`` conditions the deal on the hero's hand (TrainerError in
    words when it leaves no hand to deal); ``suits`` shows each hand under a random suit
    permutation of :func:`~solver.study.dealing.suit_permutations` (drawn from its own Generator,
    so the deals and grades are those of the same seed without it). Not thread-safe (one
    browser session owns one)."""

    def __init__(
        self,
        game: Game,
        sigma: Array,
        player: int,
        scope: str = "hand",
        node: int = 0,
        thresholds: Thresholds | None = None,
        rng_mode: bool = False,
        seed: int | None = None,
        players: tuple[str, str] | None = None,
        deal_filter: DealFilter | None = None,
        suits: bool = False,
    ) -> None:
        if not isinstance(game, Game):
            raise TrainerError("game", f"game must be a Game, not {type(game).__name__}")
        player = whole("player", player, 0, 1)
        if not isinstance(scope, str) or scope not in SCOPES:
            raise TrainerError("scope", f"scope must be one of {SCOPES}, not {said(scope)}")
        node = whole("node", node, 0, game.num_nodes - 1)
        if thresholds is not None and not isinstance(thresholds, Thresholds):
            raise TrainerError("thresholds", f"thresholds must be Thresholds or None, not "
                                             f"{type(thresholds).__name__}")  # fmt: skip
        if deal_filter is not None and not isinstance(deal_filter, DealFilter):
            raise TrainerError("deal_filter", f"deal_filter must be a DealFilter or None, not "
                                              f"{type(deal_filter).__name__}")  # fmt: skip
        if seed is not None:
            seed = whole("seed", seed, 0, 2**64 - 1)
        if players is not None and not (
            isinstance(players, (tuple, list))
            and len(players) == 2
            and all(isinstance(n, str) for n in players)
        ):
            raise TrainerError("players", f"players must be two names, not {said(players)}")
        self.game = game
        self.sigma = checked_sigma(game, sigma)
        self.player = player
        self.scope = scope
        if scope == "node":
            t = game.tree
            if t.kind[node] != DECISION or int(t.player[node]) != player:
                raise TrainerError("node", f"node {node} is not a decision of player {player}")
            self.start = node
        else:
            self.start = 0 if scope == "hand" else street_start(game, node)
        self.thresholds = thresholds or Thresholds()
        self.rng_mode = bool(rng_mode)
        self.rng = np.random.default_rng(seed)
        self.players = None if players is None else (players[0], players[1])
        self.compat = compatible(game)
        self.decisions: list[Decision] = []
        self.skipped = 0
        self.hand_no = 0
        self.table: Table | None = None
        self._evs: dict[int, Array] = {}
        deal_table(game, self.sigma, self.start, self.compat)  # raises when nothing reaches
        self.deal_filter = deal_filter or DealFilter()
        self.keep: tuple[npt.NDArray[np.bool_] | None, npt.NDArray[np.bool_] | None] = (None, None)
        if self.deal_filter.active:
            mask = filter_mask(game, self.sigma, self.start, player, self.deal_filter)
            keep = (mask, None) if player == 0 else (None, mask)
            try:
                deal_table(game, self.sigma, self.start, self.compat, keep)
            except ValueError:
                who = (self.players or default_players(game))[player]
                raise TrainerError(
                    "deal_filter",
                    f"the filter leaves nothing to deal: no hand {who} holds at this spot is "
                    f"{self.deal_filter.words()} (choose more classes or cells, or a lower "
                    "minimum reach)",
                ) from None
            self.keep = keep
        self.suit_choices = suit_permutations(game) if bool(suits) else [IDENTITY]
        self.suit_rng = np.random.default_rng(None if seed is None else [seed, 1])

    # ----- the hand -------------------------------------------------------------------
    def new_hand(self, tries: int = 1000) -> Table:
        """Deal a new hand and play it to the hero's first decision (re-dealing hands that
        end before the hero acts, at most ``tries`` times)."""
        for _ in range(tries):
            h = deal_hands(self.game, self.sigma, self.start, self.rng, self.compat, self.keep)
            history = list(self.game.history(self.start))
            node, cmap = self.game.locate(history)
            suits = self.suit_choices[int(self.suit_rng.integers(len(self.suit_choices)))]
            self.table = Table(h, history, node, cmap, suits=suits)
            self._advance()
            if not self.table.over:
                self.hand_no += 1
                return self.table
            self.skipped += 1
        raise TrainerError("node", "the hero never gets to act from this spot")

    @property
    def waiting(self) -> bool:
        """Whether the hero is to act in the current hand."""
        return self.table is not None and not self.table.over

    def frame_hand(self, player: int) -> int:
        """``player``'s dealt hand as an index in the current node's frame."""
        t = self._table()
        h = t.hands[player]
        if t.cmap == list(range(len(t.cmap))):
            return h
        return self.game.map_hand(player, h, t.cmap)

    def _table(self) -> Table:
        if self.table is None:
            raise TrainerError("drill", "no hand dealt yet")
        return self.table

    def _advance(self) -> None:
        """Play the villain and the chance cards until the hero acts or the scope ends."""
        t = self._table()
        g = self.game
        while True:
            kind = int(g.tree.kind[t.node])
            if kind == DECISION:
                actor = int(g.tree.player[t.node])
                if actor == self.player:
                    if self.rng_mode and not self.off_tree():  # (no mix to draw from off it)
                        mix = strategy_at(g, self.sigma, t.node)[:, self.frame_hand(actor)]
                        t.rng_pick = draw(mix, self.rng)
                    return
                if self.scope == "node":  # the one decision was made
                    t.over = True
                    return
                mix = strategy_at(g, self.sigma, t.node)[:, self.frame_hand(actor)]
                self._step(int(g.tree.first_child[t.node]) + draw(mix, self.rng))
            elif kind == CHANCE and self.scope == "hand":
                self.deal_card()
            else:  # terminal, or the street's end
                t.over = True
                return

    def _step(self, child: int) -> None:
        """Take the action leading to ``child`` (a child of the current decision node)."""
        t = self._table()
        label = self.game.labels[child]
        t.history.append(label)
        t.steps.append((child, label))
        t.node = child

    def deal_card(self) -> None:
        """Deal a chance card uniformly over the live deck (real suits)."""
        t = self._table()
        g = self.game
        inverse = np.argsort(np.asarray(t.cmap))  # frame card → real card
        used = set(hand_cards(g, 0, t.hands[0])) | set(hand_cards(g, 1, t.hands[1]))
        live = []
        for label, _child, _row in g.chance_cards(t.node):
            real = int(inverse[g.card_names.index(label[2:])])
            if real not in used:
                live.append("d:" + g.card_names[real])
        label = live[int(self.rng.integers(len(live)))]
        t.history.append(label)
        t.node, t.cmap = g.locate(t.history)
        t.steps.append((t.node, label))

    # ----- the hero's decision --------------------------------------------------------------
    def off_tree(self) -> bool:
        """Whether the solution never gets to the current node with the hero's hand: its own
        reach there is 0 (an earlier hero action the solution never takes with it), so the
        solve's strategy for it is a placeholder, not a mix (module doc)."""
        t = self._table()
        reach = path_reach(self.game, self.sigma, t.node)[self.player]
        return not float(reach[self.frame_hand(self.player)]) > 0.0

    def action_evs(self, node: int) -> Array:
        """(num_actions, H[hero]) chips: :func:`solver.study.views.action_evs` at ``node``, kept
        for the session (the strategy does not change)."""
        if node not in self._evs:
            self._evs[node] = action_evs(self.game, self.sigma, node, self.compat)
        return self._evs[node]

    def spot(self) -> tuple[Array, Array]:
        """The hero's ``(mix, evs)`` at the current decision: (num_actions,) frequencies and
        (num_actions,) chips. Off the solution's tree (:meth:`off_tree`) the mix is the solve's
        placeholder, not advice."""
        t = self._table()
        h = self.frame_hand(self.player)
        mix = strategy_at(self.game, self.sigma, t.node)[:, h]
        return mix, self.action_evs(t.node)[:, h]

    def act(self, action: int) -> Decision:
        """The hero plays ``action`` (index in the node's children): grade it, record it and
        play on to the hero's next decision or the end of the scope."""
        if not self.waiting:
            raise TrainerError("action", "the hero is not to act")
        t = self._table()
        g = self.game
        node = t.node
        na = int(g.tree.num_children[node])
        action = whole("action", action, 0, na - 1)
        mix, evs = self.spot()
        off = self.off_tree()
        if off:
            mix = np.full(na, np.nan)  # a placeholder is no frequency: graded by EV alone
        best = int(np.argmax(evs))
        lost = max(float(evs[best] - evs[action]), 0.0)
        pot = pot_at(g, node)
        is_best = (t.rng_pick == action) if self.rng_mode and not off else lost <= TIE
        pct = 100.0 * lost / pot if pot > 0 else 0.0
        d = Decision(
            hand_no=self.hand_no,
            node=node,
            history=tuple(t.history),
            line=self.line(shown=True),
            player=self.player,
            hand=g.hand_names[self.player][t.hands[self.player]],
            board=self.board(),
            pot=pot,
            actions=tuple(g.action_labels(node)),
            names=tuple(action_names(g, node)),
            mix=tuple(float(x) for x in mix),
            evs=tuple(float(x) for x in evs),
            chosen=int(action),
            best=best,
            rng_pick=t.rng_pick,
            ev_lost=lost,
            grade=grade_of(pct, 100.0 * float(mix[action]), is_best, self.thresholds),
            suits=t.suits,
            off_tree=off,
        )
        self.decisions.append(d)
        t.rng_pick = None
        self._step(int(g.tree.first_child[node]) + action)
        self._advance()
        return d

    # ----- what the page shows ---------------------------------------------------------------
    def board(self, shown: bool = False) -> tuple[str, ...]:
        """The public cards now, in real suits (hold'em: initial board then dealt cards), or
        ``shown`` under the hand's suit permutation."""
        t = self._table()
        g = self.game
        first = [g.card_names[int(c)] for c in np.asarray(g.meta.get("board", []))]
        cards = first + [lab[2:] for lab in t.history if lab.startswith("d:")]
        return tuple(shown_card(c, t.suits) if shown else c for c in cards)

    def line(self, shown: bool = False) -> str:
        """The line from the root in words (:func:`solver.study.words.line_words`' style), with
        the real cards (``shown``: under the hand's suit permutation)."""
        t = self._table()
        g = self.game
        names = self.players or default_players(g)
        out = ""
        board = len(np.asarray(g.meta.get("board", [])))
        # the steps before the start node are the start's own line (canonical frame)
        steps = [(n, g.labels[n]) for n in node_path(g, self.start)] + t.steps
        for child, label in steps:
            if label.startswith("d:"):
                board += 1
                street = STREETS.get(board, "card") if g.is_holdem else "board"
                card = shown_card(label[2:], t.suits) if shown else label[2:]
                out += (DOT if out else "") + f"{street} {card}"
                continue
            said = child_name(g, child)
            who = names[int(g.tree.player[int(g.parents[child])])]
            out += (ARROW if out else "") + f"{who} {said[0].lower()}{said[1:]}"
        return out

    def hole_cards(self, player: int, shown: bool = False) -> tuple[str, ...]:
        """A player's dealt cards by name (real suits; ``shown``: as the page shows them)."""
        t = self._table()
        g = self.game
        if g.card_names:
            cards = (g.card_names[c] for c in hand_cards(g, player, t.hands[player]))
            return tuple(shown_card(c, t.suits) if shown else c for c in cards)
        return (g.hand_names[player][t.hands[player]],)

    def score(self, worst: int = 5) -> Score:
        return score(self.decisions, self.game.big_blind, worst)


def answer(drill: Drill, how: str) -> int:
    """An automatic answer at the hero's current decision: ``best`` the highest-EV action,
    ``solution`` a draw from the hand's mix, ``uniform`` any action alike (the drill's RNG)."""
    if not isinstance(drill, Drill):
        raise TrainerError("drill", f"drill must be a Drill, not {type(drill).__name__}")
    if not isinstance(how, str) or how not in ANSWERS:
        raise TrainerError("how", f"how (the answer) must be one of {ANSWERS}, not {said(how)}")
    if not drill.waiting:
        raise TrainerError("drill", "the drill has no hand waiting for the hero: deal one first")
    mix, evs = drill.spot()
    if how == "best":
        return int(np.argmax(evs))
    if how == "solution":
        return draw(mix, drill.rng)
    return int(drill.rng.integers(len(mix)))  # uniform


def play(drill: Drill, how: str, decisions: int) -> list[Decision]:
    """Play ``decisions`` hero decisions (0 to :data:`MAX_PLAY`) with :func:`answer` (new
    hands as needed)."""
    if not isinstance(drill, Drill):
        raise TrainerError("drill", f"drill must be a Drill, not {type(drill).__name__}")
    if not isinstance(how, str) or how not in ANSWERS:
        raise TrainerError("how", f"how (the answer) must be one of {ANSWERS}, not {said(how)}")
    decisions = whole("decisions", decisions, 0, MAX_PLAY)
    out: list[Decision] = []
    while len(out) < decisions:
        if not drill.waiting:
            drill.new_hand()
        out.append(drill.act(answer(drill, how)))
    return out


# ----- the API's two calls ---------------------------------------------------------------------
class Solved(Protocol):
    """What :func:`deal` and :func:`grade` read of a solve (:class:`solver.api.SolveResult`)."""

    @property
    def game(self) -> Game: ...

    def average_strategy(self) -> Array: ...


class Deal(NamedTuple):
    """One dealt spot (:func:`deal`): ``player`` (the hero) to act at ``node``, reached by
    ``line`` (action and card codes from the root, in the solve's stored suits), holding
    ``hand`` against the villain's ``villain``; ``board`` the public cards; ``actions`` the
    node's action codes and ``names`` as a player says them; ``mix`` (num_actions,) the
    solution's frequencies for the hand and ``evs`` (num_actions,) each action's EV in chips.
    ``drill`` is the one-decision session :func:`grade` completes."""

    node: int
    line: tuple[str, ...]
    player: int
    hand: str
    villain: str
    board: tuple[str, ...]
    actions: tuple[str, ...]
    names: tuple[str, ...]
    mix: tuple[float, ...]
    evs: tuple[float, ...]
    drill: Drill


def deal(
    solve: Solved,
    player: int,
    line: str | Sequence[str] = "",
    rng: np.random.Generator | int | Sequence[int] | None = None,
) -> Deal:
    """Deal ``player`` (0 out of position, 1 in position) a hand at the decision node ``line``
    leads to (codes such as ``"k b:100"``; "" the root), both hands drawn exactly as the
    Practice page and ``python -m solver drill`` deal them (:class:`Drill`, scope ``node``):
    in proportion to both ranges, card removal and each hand's probability of the line under
    the solution. ``rng``: a numpy Generator or a seed (a whole number ≥ 0, or up to 64 of
    them).
    :class:`~solver.study.trainer_args.TrainerError` naming the argument when the line is not in
    the tree or not ``player``'s decision, nothing reaches it, or an argument is of no use."""
    game, sigma = _solved(solve)
    player = whole("player", player, 0, 1)
    if isinstance(line, str):
        steps = line.split()
    elif isinstance(line, (list, tuple)) and all(isinstance(x, str) for x in line):
        steps = list(line)
    else:
        raise TrainerError("line", f"line must be text or a list of codes, not {said(line)}")
    if isinstance(rng, (list, tuple)) and 0 < len(rng) <= 64:  # a seed of several words
        rng = np.random.default_rng([whole("rng", x, 0, 2**64 - 1) for x in rng])
    elif rng is not None and not isinstance(rng, np.random.Generator):
        rng = np.random.default_rng(whole("rng", rng, 0))
    text = " ".join(steps)[:200]
    try:
        node, _cmap = game.locate(steps)
    except (KeyError, ValueError, IndexError):
        raise TrainerError("line", f"line {text!r} is not in this game's tree") from None
    if game.tree.kind[node] != DECISION or int(game.tree.player[node]) != player:
        raise TrainerError("line", f"line {text!r} does not end at a decision of player {player}")
    drill = Drill(game, sigma, player, "node", node)
    if rng is not None:
        drill.rng = rng
    t = drill.new_hand()
    mix, evs = drill.spot()
    return Deal(
        node=t.node,
        line=tuple(t.history),
        player=player,
        hand=game.hand_names[player][t.hands[player]],
        villain=game.hand_names[1 - player][t.hands[1 - player]],
        board=drill.board(),
        actions=tuple(game.action_labels(t.node)),
        names=tuple(action_names(game, t.node)),
        mix=tuple(float(x) for x in mix),
        evs=tuple(float(x) for x in evs),
        drill=drill,
    )


def grade(
    solve: Solved, dealt: Deal, action: int | str, thresholds: Thresholds | None = None
) -> Decision:
    """Grade the hero's ``action`` (an index into ``dealt.actions`` or its code, e.g. ``"c"``)
    at the spot :func:`deal` dealt from this ``solve``: the :class:`Decision` the page and
    the CLI record (EV lost in chips, the grade by ``thresholds``). A deal grades once."""
    game, sigma = _solved(solve)
    if not isinstance(dealt, Deal):
        raise TrainerError("dealt", f"dealt must be what deal() returned, not "
                                    f"{type(dealt).__name__}")  # fmt: skip
    if dealt.drill.game is not game or not np.array_equal(dealt.drill.sigma, sigma):
        raise TrainerError("dealt", "this deal was dealt from another solve")
    if isinstance(action, str):
        if action not in dealt.actions:
            raise TrainerError(
                "action", f"action {said(action)} is not one of {', '.join(dealt.actions)}"
            )
        action = dealt.actions.index(action)
    action = whole("action", action, 0, len(dealt.actions) - 1)
    if thresholds is not None and not isinstance(thresholds, Thresholds):
        raise TrainerError("thresholds", f"thresholds must be Thresholds or None, not "
                                         f"{type(thresholds).__name__}")  # fmt: skip
    if not dealt.drill.waiting:
        raise TrainerError("dealt", "this deal was graded already: deal again")
    if thresholds is not None:
        dealt.drill.thresholds = thresholds
    return dealt.drill.act(action)


def _solved(solve: object) -> tuple[Game, Array]:
    """(game, average strategy) of a solve, or :class:`~solver.study.trainer_args.TrainerError`."""
    game = getattr(solve, "game", None)
    average = getattr(solve, "average_strategy", None)
    if not isinstance(game, Game) or not callable(average):
        raise TrainerError(
            "solve", f"solve must be a solve's result (solver.solve()), not {type(solve).__name__}"
        )
    return game, checked_sigma(game, average())
