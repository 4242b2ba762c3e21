"""Slow, obvious, dict-based reference CFR implementation for Regret Lab.

This module is deliberately independent of ``solver/``: it rebuilds the games from
their rules, keeps every per-infoset quantity in plain dicts keyed by

    key = (player, history, card)

and applies the update rules literally, one infoset at a time.  The fast engine is
checked against it iteration by iteration.

How values are computed
-----------------------
The game tree is built once per game as a *public* tree: one node per public
history (betting events plus the public card, if any).  Private cards are handled
by small vectors indexed by card:

* every terminal node stores a matrix ``payoff0[c0, c1]`` = (chance probability of
  the deal) * (payoff to player 0), which is 0 for impossible deals (two players
  holding the same card, or a player holding the public card);
* walking the tree for player ``i`` we carry ``opp_reach[c]`` = the opponent's OWN
  reach probability (product of its action probabilities) when it holds card ``c``,
  and return a vector ``value[c]`` over player ``i``'s cards.

With chance folded into the terminal matrices, ``value[c]`` at a node of player
``i`` is exactly the counterfactual value sum_{h in I} pi_{-i}(h) u_i(h) of the
infoset (i, history, c), and ``opp_reach`` at an opponent node is exactly the
opponent's own reach of its infoset, as the averaging rules need.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

FloatArray = NDArray[np.float64]
Key = tuple[int, tuple[str, ...], str]

GAMES = ("kuhn", "leduc", "leduc5")
RULES = (
    "cfr",
    "cfr+",
    "lcfr",
    "dcfr",
    "dcfr-tuned",
    "lcfr+",
    "olcfr",
    "dcfr-nh",
    "pcfr+",
    "sapcfr+",
    "apcfr+",
    "pdcfr+",
    "apdcfr+",
    "dcfr+",
)

RULE_DEFAULTS: dict[str, dict[str, float]] = {
    "cfr": {},
    "cfr+": {"delay": 0.0},
    "lcfr": {},
    "dcfr": {"alpha": 1.5, "beta": 0.0, "gamma": 2.0, "average_every": 1.0},
    "dcfr-tuned": {"alpha": 1.5, "beta": 0.1, "gamma": 4.0, "average_every": 2.0},
    "lcfr+": {},
    "olcfr": {},
    "dcfr-nh": {"alpha": 1.5, "beta": 0.0, "gamma": 2.0, "average_every": 1.0},
    "pcfr+": {},
    "sapcfr+": {"alpha": 2.0},
    "apcfr+": {"alpha_max": 5.0},
    "pdcfr+": {"alpha": 2.3, "gamma": 5.0},
    "apdcfr+": {"alpha": 2.3, "gamma": 5.0, "alpha_max": 5.0},
    "dcfr+": {"alpha": 1.5, "gamma": 4.0},
}


# ---------------------------------------------------------------------------
# Game rules
# ---------------------------------------------------------------------------


@dataclass(frozen=True)
class GameSpec:
    """Rules of one of the poker variants."""

    name: str
    cards: tuple[str, ...]  # card names, index = card id
    ranks: tuple[int, ...]  # rank of each card id
    ante: float
    round_sizes: tuple[tuple[float, ...], ...]  # bet/raise sizes of each betting round
    max_bets: int  # bets + raises allowed per betting round

    @property
    def num_cards(self) -> int:
        return len(self.cards)

    @property
    def has_public_card(self) -> bool:
        return len(self.round_sizes) > 1


GAME_SPECS: dict[str, GameSpec] = {
    "kuhn": GameSpec(
        name="kuhn",
        cards=("J", "Q", "K"),
        ranks=(0, 1, 2),
        ante=1.0,
        round_sizes=((1.0,),),
        max_bets=1,
    ),
    "leduc": GameSpec(
        name="leduc",
        cards=("Js", "Jh", "Qs", "Qh", "Ks", "Kh"),
        ranks=(0, 0, 1, 1, 2, 2),
        ante=1.0,
        round_sizes=((2.0,), (4.0,)),
        max_bets=2,
    ),
    "leduc5": GameSpec(
        name="leduc5",
        cards=("Js", "Jh", "Qs", "Qh", "Ks", "Kh"),
        ranks=(0, 0, 1, 1, 2, 2),
        ante=1.0,
        round_sizes=((0.5, 1.0, 2.0, 4.0, 8.0), (1.0, 2.0, 4.0, 8.0, 16.0)),
        max_bets=2,
    ),
}


def _spec(game: str) -> GameSpec:
    if game not in GAME_SPECS:
        raise ValueError(f"unknown game {game!r}; expected one of {GAMES}")
    return GAME_SPECS[game]


def _showdown_payoff0(
    spec: GameSpec, card0: int, card1: int, public: int | None, pot: float
) -> float:
    """Payoff to player 0 at a showdown where each player has put in ``pot``."""
    rank0, rank1 = spec.ranks[card0], spec.ranks[card1]
    if public is not None:
        public_rank = spec.ranks[public]
        pair0 = rank0 == public_rank
        pair1 = rank1 == public_rank
        if pair0 and not pair1:
            return pot
        if pair1 and not pair0:
            return -pot
    if rank0 > rank1:
        return pot
    if rank1 > rank0:
        return -pot
    return 0.0


def _deal_probability(spec: GameSpec, card0: int, card1: int, public: int | None) -> float:
    """Chance probability of the private deal (and the public card, if one was dealt)."""
    n = spec.num_cards
    if card0 == card1:
        return 0.0
    prob = 1.0 / (n * (n - 1))
    if public is not None:
        if public in (card0, card1):
            return 0.0
        prob /= n - 2
    return prob


def terminal_payoff0(
    spec: GameSpec,
    contributions: tuple[float, float],
    folder: int | None,
    card0: int,
    card1: int,
    public: int | None,
) -> float:
    """Payoff to player 0 at a terminal history (not weighted by chance)."""
    if folder == 0:
        return -contributions[0]
    if folder == 1:
        return contributions[1]
    assert contributions[0] == contributions[1]
    return _showdown_payoff0(spec, card0, card1, public, contributions[0])


# ---------------------------------------------------------------------------
# Public tree
# ---------------------------------------------------------------------------


@dataclass
class Node:
    """A node of the public tree (one per public history)."""

    history: tuple[str, ...]
    kind: str  # "decision", "chance" or "terminal"
    public_card: int | None  # public card id, if already dealt
    player: int = -1  # acting player at a decision node
    actions: list[str] = field(default_factory=list)  # event labels, in legal order
    children: list[Node] = field(default_factory=list)
    chance_cards: list[int] = field(default_factory=list)  # chance node: card of each child
    card_keys: list[tuple[int, Key]] = field(default_factory=list)  # decision: (card, key)
    contributions: tuple[float, float] = (0.0, 0.0)  # terminal: chips put in by each player
    folder: int | None = None  # terminal: who folded (None = showdown)
    payoff0: FloatArray | None = None  # terminal: chance-weighted payoff to player 0
    payoff1: FloatArray | None = None  # terminal: chance-weighted payoff to player 1 (by card1)


def _size_label(size: float) -> str:
    return f"{size:g}"


def _build_node(
    spec: GameSpec,
    history: tuple[str, ...],
    round_index: int,
    contributions: tuple[float, float],
    bets: int,
    checked: bool,
    to_act: int,
    public_card: int | None,
) -> Node:
    """Build the public subtree of a betting decision by ``to_act``."""
    node = Node(history=history, kind="decision", public_card=public_card, player=to_act)
    for card in range(spec.num_cards):
        if card != public_card:
            node.card_keys.append((card, (to_act, history, spec.cards[card])))

    other = 1 - to_act
    sizes = spec.round_sizes[round_index]
    facing_bet = contributions[to_act] < contributions[other]

    def with_contribution(amount: float) -> tuple[float, float]:
        if to_act == 0:
            return (amount, contributions[1])
        return (contributions[0], amount)

    def add(label: str, child: Node) -> None:
        node.actions.append(label)
        node.children.append(child)

    if not facing_bet:
        # check
        check_history = (*history, "k")
        if checked:
            add("k", _end_of_round(spec, check_history, round_index, contributions, public_card))
        else:
            add(
                "k",
                _build_node(
                    spec, check_history, round_index, contributions, bets, True, other, public_card
                ),
            )
        # bets
        for size in sizes:
            label = f"b:{_size_label(size)}"
            new_contributions = with_contribution(contributions[other] + size)
            add(
                label,
                _build_node(
                    spec,
                    (*history, label),
                    round_index,
                    new_contributions,
                    bets + 1,
                    False,
                    other,
                    public_card,
                ),
            )
    else:
        # fold: terminal, the folder loses what it has put in
        fold_history = (*history, "f")
        add("f", _terminal(spec, fold_history, contributions, to_act, public_card))
        # call: match the outstanding bet, the round ends
        call_history = (*history, "c")
        called = with_contribution(contributions[other])
        add("c", _end_of_round(spec, call_history, round_index, called, public_card))
        # raises: call the outstanding bet, then add the size
        if bets < spec.max_bets:
            for size in sizes:
                label = f"r:{_size_label(size)}"
                new_contributions = with_contribution(contributions[other] + size)
                add(
                    label,
                    _build_node(
                        spec,
                        (*history, label),
                        round_index,
                        new_contributions,
                        bets + 1,
                        False,
                        other,
                        public_card,
                    ),
                )
    return node


def _end_of_round(
    spec: GameSpec,
    history: tuple[str, ...],
    round_index: int,
    contributions: tuple[float, float],
    public_card: int | None,
) -> Node:
    """Showdown after the last round, otherwise deal the public card."""
    if round_index == len(spec.round_sizes) - 1:
        return _terminal(spec, history, contributions, None, public_card)
    node = Node(history=history, kind="chance", public_card=public_card)
    for card in range(spec.num_cards):
        child_history = (*history, f"d:{spec.cards[card]}")
        child = _build_node(spec, child_history, round_index + 1, contributions, 0, False, 0, card)
        node.chance_cards.append(card)
        node.children.append(child)
    return node


@functools.cache
def _payoff_matrices(
    spec: GameSpec,
    contributions: tuple[float, float],
    folder: int | None,
    public_card: int | None,
) -> tuple[FloatArray, FloatArray]:
    """Chance-weighted payoff matrices [card0, card1] for player 0 and [card1, card0] for
    player 1 (cached: many terminals share contributions, folder and public card)."""
    n = spec.num_cards
    payoff0 = np.zeros((n, n), dtype=np.float64)
    for card0 in range(n):
        for card1 in range(n):
            prob = _deal_probability(spec, card0, card1, public_card)
            if prob > 0.0:
                payoff = terminal_payoff0(spec, contributions, folder, card0, card1, public_card)
                payoff0[card0, card1] = prob * payoff
    payoff1 = -payoff0.T.copy()
    payoff0.flags.writeable = False
    payoff1.flags.writeable = False
    return payoff0, payoff1


def _terminal(
    spec: GameSpec,
    history: tuple[str, ...],
    contributions: tuple[float, float],
    folder: int | None,
    public_card: int | None,
) -> Node:
    payoff0, payoff1 = _payoff_matrices(spec, contributions, folder, public_card)
    return Node(
        history=history,
        kind="terminal",
        public_card=public_card,
        contributions=contributions,
        folder=folder,
        payoff0=payoff0,
        payoff1=payoff1,
    )


@functools.cache
def game_tree(game: str) -> Node:
    """Root of the public tree of ``game`` (built once, cached)."""
    spec = _spec(game)
    return _build_node(spec, (), 0, (spec.ante, spec.ante), 0, False, 0, None)


@functools.cache
def _node_index(game: str) -> dict[tuple[str, ...], Node]:
    index: dict[tuple[str, ...], Node] = {}
    stack = [game_tree(game)]
    while stack:
        node = stack.pop()
        index[node.history] = node
        stack.extend(node.children)
    return index


@functools.cache
def _infosets_cached(game: str) -> tuple[tuple[Key, int], ...]:
    out: list[tuple[Key, int]] = []

    def visit(node: Node) -> None:
        if node.kind == "decision":
            for _, key in node.card_keys:
                out.append((key, len(node.actions)))
        for child in node.children:
            visit(child)

    visit(game_tree(game))
    return tuple(out)


def infosets(game: str) -> dict[Key, int]:
    """All infosets of ``game``: key -> number of legal actions (tree order)."""
    return dict(_infosets_cached(game))


def action_labels(game: str, key: Key) -> list[str]:
    """History-event labels of the legal actions at ``key`` (e.g. ["k", "b:2"])."""
    player, history, card = key
    node = _node_index(game).get(history)
    if node is None or node.kind != "decision" or node.player != player:
        raise KeyError(f"no decision of player {player} at history {history} in {game}")
    if card not in _spec(game).cards:
        raise KeyError(f"unknown card {card!r}")
    return list(node.actions)


def terminal_payoff(game: str, history: tuple[str, ...], card0: str, card1: str) -> float:
    """Payoff to player 0 at terminal ``history`` with the given private cards."""
    spec = _spec(game)
    node = _node_index(game)[history]
    if node.kind != "terminal":
        raise KeyError(f"{history} is not terminal")
    return terminal_payoff0(
        spec,
        node.contributions,
        node.folder,
        spec.cards.index(card0),
        spec.cards.index(card1),
        node.public_card,
    )


# ---------------------------------------------------------------------------
# Strategy helpers
# ---------------------------------------------------------------------------


def uniform(num_actions: int) -> FloatArray:
    return np.full(num_actions, 1.0 / num_actions, dtype=np.float64)


def _strategy_row(strategy: Mapping[Key, Any], key: Key, num_actions: int) -> FloatArray:
    """strategy[key] as a float64 vector; uniform when the key is missing."""
    if key not in strategy:
        return uniform(num_actions)
    row = np.asarray(strategy[key], dtype=np.float64)
    if row.shape != (num_actions,):
        raise ValueError(f"strategy for {key} has shape {row.shape}, expected ({num_actions},)")
    return row


def _strategy_matrix(node: Node, strategy: Mapping[Key, Any], num_cards: int) -> FloatArray:
    """Rows = acting player's card, columns = actions.  Impossible cards get a zero row."""
    matrix = np.zeros((num_cards, len(node.actions)), dtype=np.float64)
    for card, key in node.card_keys:
        matrix[card] = _strategy_row(strategy, key, len(node.actions))
    return matrix


def regret_matching(x: FloatArray) -> FloatArray:
    """RM(x)(a) = max(x_a, 0) / sum_b max(x_b, 0); uniform if that sum is 0."""
    positive = np.maximum(x, 0.0)
    total = float(positive.sum())
    if total > 0.0:
        return positive / total
    return uniform(len(x))


def normal_hedge_rows(x: FloatArray, halvings: int = 200) -> FloatArray:
    """NormalHedge applied independently to each row of ``x`` (rows = infosets).

    For one row x >= 0 over |A| actions: uniform if all x are 0; otherwise find c > 0
    with (1/|A|) sum_a exp(x_a^2 / (2c)) = e by bisection on log c and return
    sigma_a proportional to (x_a / c) exp(x_a^2 / (2c)).

    The equation is solved in the scaled variable c' = c / M^2 (M = max x), which is
    the same equation with x replaced by y = x / M, so the bracket
    [M^2 / (2 (1 + ln|A|)), M^2 / 2] becomes [1 / (2 (1 + ln|A|)), 1/2]; this avoids
    under/overflow of M^2 and gives the same sigma (common factors cancel in the
    normalisation).  Rows are processed together only for speed: every row runs its
    own bisection, exactly as a one-row call would.
    """
    x = np.maximum(np.asarray(x, dtype=np.float64), 0.0)
    rows, n = x.shape
    out = np.full((rows, n), 1.0 / n, dtype=np.float64)
    biggest = x.max(axis=1)
    active = biggest > 0.0
    if not active.any():
        return out
    y = x[active] / biggest[active, None]
    y_squared = y * y
    log_lo = np.full(len(y), math.log(1.0 / (2.0 * (1.0 + math.log(n)))))
    log_hi = np.full(len(y), math.log(0.5))
    for _ in range(halvings):
        log_mid = 0.5 * (log_lo + log_hi)
        c = np.exp(log_mid)[:, None]
        mean = np.mean(np.exp(y_squared / (2.0 * c)), axis=1)
        too_big = mean > math.e  # the mean decreases in c: c must grow
        new_lo = np.where(too_big, log_mid, log_lo)
        new_hi = np.where(too_big, log_hi, log_mid)
        if np.array_equal(new_lo, log_lo) and np.array_equal(new_hi, log_hi):
            break  # float64 precision exhausted: further halvings change nothing
        log_lo, log_hi = new_lo, new_hi
    c = np.exp(0.5 * (log_lo + log_hi))[:, None]
    weights = (y / c) * np.exp(y_squared / (2.0 * c))
    out[active] = weights / weights.sum(axis=1, keepdims=True)
    return out


def normal_hedge(x: FloatArray, halvings: int = 200) -> FloatArray:
    """NormalHedge of one non-negative regret vector (see ``normal_hedge_rows``)."""
    return normal_hedge_rows(np.asarray(x, dtype=np.float64)[None, :], halvings)[0]


# ---------------------------------------------------------------------------
# Tree walks
# ---------------------------------------------------------------------------


def counterfactual_values_and_opponent_reach(
    game: str, strategy: Mapping[Key, Any], player: int
) -> tuple[dict[Key, FloatArray], dict[Key, float]]:
    """One full-width pass for ``player`` under ``strategy`` (missing keys uniform).

    Returns
      * values[key][a] = v(I, a) for each infoset I of ``player``: the counterfactual
        value sum over deals/histories in I of pi_{-i}(h) * u_i(h a ...), where
        pi_{-i} is chance times the opponent's reach;
      * opp_reach[key] = pi_opp(I), the opponent's own reach of each of its infosets.
    """
    spec = _spec(game)
    n = spec.num_cards
    values: dict[Key, FloatArray] = {}
    opp_reach_out: dict[Key, float] = {}

    def walk(node: Node, opp_reach: FloatArray) -> FloatArray:
        """Vector over ``player``'s card of counterfactual values at ``node``."""
        if node.kind == "terminal":
            matrix = node.payoff0 if player == 0 else node.payoff1
            assert matrix is not None
            return matrix @ opp_reach
        if node.kind == "chance":
            total = np.zeros(n, dtype=np.float64)
            for card, child in zip(node.chance_cards, node.children, strict=True):
                child_reach = opp_reach.copy()
                child_reach[card] = 0.0  # the opponent cannot hold the public card
                total += walk(child, child_reach)
            return total
        if node.player == player:
            action_values = np.stack([walk(child, opp_reach) for child in node.children], axis=1)
            node_value = np.zeros(n, dtype=np.float64)
            for card, key in node.card_keys:
                sigma = _strategy_row(strategy, key, len(node.actions))
                values[key] = action_values[card].copy()
                node_value[card] = float(sigma @ action_values[card])
            return node_value
        # opponent decision
        sigma_matrix = _strategy_matrix(node, strategy, n)
        for card, key in node.card_keys:
            opp_reach_out[key] = float(opp_reach[card])
        total = np.zeros(n, dtype=np.float64)
        for action_index, child in enumerate(node.children):
            total += walk(child, opp_reach * sigma_matrix[:, action_index])
        return total

    walk(game_tree(game), np.ones(n, dtype=np.float64))
    return values, opp_reach_out


def counterfactual_values(
    game: str, strategy: Mapping[Key, Any], player: int
) -> dict[Key, FloatArray]:
    """v(I, a) for every infoset I of ``player`` (see the function above)."""
    return counterfactual_values_and_opponent_reach(game, strategy, player)[0]


def expected_values(game: str, strategy: Mapping[Key, Any]) -> tuple[float, float]:
    """Expected payoff of (player 0, player 1) when both play ``strategy``."""
    spec = _spec(game)
    n = spec.num_cards

    def walk(node: Node, reach0: FloatArray, reach1: FloatArray) -> float:
        if node.kind == "terminal":
            assert node.payoff0 is not None
            return float(reach0 @ node.payoff0 @ reach1)
        if node.kind == "chance":
            return sum(walk(child, reach0, reach1) for child in node.children)
        sigma_matrix = _strategy_matrix(node, strategy, n)
        total = 0.0
        for action_index, child in enumerate(node.children):
            if node.player == 0:
                total += walk(child, reach0 * sigma_matrix[:, action_index], reach1)
            else:
                total += walk(child, reach0, reach1 * sigma_matrix[:, action_index])
        return total

    ones = np.ones(n, dtype=np.float64)
    value0 = walk(game_tree(game), ones, ones)
    return value0, -value0


def best_response(
    game: str,
    player: int,
    strategy: Mapping[Key, Any],
    locked: Mapping[Key, FloatArray] | None = None,
) -> tuple[float, dict[Key, FloatArray]]:
    """(value, pure strategy) of a best response of ``player`` to ``strategy``; with
    ``locked``, the responder's infosets listed there play their given mix instead (a best
    response in the locked game).

    The responder knows its own card, so it picks, at each (history, own card), the
    action with the largest counterfactual value given the opponent's reach-weighted
    (and chance-weighted) distribution over its cards; ties go to the first action.
    """
    spec = _spec(game)
    n = spec.num_cards
    choice: dict[Key, FloatArray] = {}

    def walk(node: Node, opp_reach: FloatArray) -> FloatArray:
        """Vector over the responder's card of best-response counterfactual values."""
        if node.kind == "terminal":
            matrix = node.payoff0 if player == 0 else node.payoff1
            assert matrix is not None
            return matrix @ opp_reach
        if node.kind == "chance":
            total = np.zeros(n, dtype=np.float64)
            for card, child in zip(node.chance_cards, node.children, strict=True):
                child_reach = opp_reach.copy()
                child_reach[card] = 0.0
                total += walk(child, child_reach)
            return total
        if node.player == player:
            action_values = np.stack([walk(child, opp_reach) for child in node.children], axis=1)
            node_value = np.zeros(n, dtype=np.float64)
            for card, key in node.card_keys:
                if locked is not None and key in locked:
                    node_value[card] = float(action_values[card] @ locked[key])
                    choice[key] = np.asarray(locked[key], dtype=np.float64)
                    continue
                best = int(np.argmax(action_values[card]))  # first maximiser on ties
                node_value[card] = action_values[card, best]
                pure = np.zeros(len(node.actions), dtype=np.float64)
                pure[best] = 1.0
                choice[key] = pure
            return node_value
        sigma_matrix = _strategy_matrix(node, strategy, n)
        total = np.zeros(n, dtype=np.float64)
        for action_index, child in enumerate(node.children):
            total += walk(child, opp_reach * sigma_matrix[:, action_index])
        return total

    root_values = walk(game_tree(game), np.ones(n, dtype=np.float64))
    return float(root_values.sum()), choice


def best_response_value(game: str, player: int, strategy: Mapping[Key, Any]) -> float:
    """Value to ``player`` of a best response to the opponent's part of ``strategy``."""
    return best_response(game, player, strategy)[0]


def best_response_strategy(
    game: str, player: int, strategy: Mapping[Key, Any]
) -> dict[Key, FloatArray]:
    """A pure best response of ``player`` (ties -> first action), keyed by infoset."""
    return best_response(game, player, strategy)[1]


def nash_conv(game: str, strategy: Mapping[Key, Any]) -> float:
    """BR_0 + BR_1 (the game is zero-sum)."""
    return best_response_value(game, 0, strategy) + best_response_value(game, 1, strategy)


def exploitability(game: str, strategy: Mapping[Key, Any]) -> float:
    return nash_conv(game, strategy) / 2.0


# ---------------------------------------------------------------------------
# Solver
# ---------------------------------------------------------------------------


class ReferenceSolver:
    """Alternating-update CFR family, literally as specified, one infoset at a time.

    Per infoset: ``current`` (sigma), ``regrets`` (R), ``cumulative`` (S),
    ``predictions`` (m) and the adaptive accumulators ``adaptive_a`` (A), ``adaptive_b`` (B).
    """

    def __init__(self, game: str, rule: str, **params: float) -> None:
        _spec(game)
        if rule not in RULE_DEFAULTS:
            raise ValueError(f"unknown rule {rule!r}; expected one of {RULES}")
        unknown = set(params) - set(RULE_DEFAULTS[rule])
        if unknown:
            raise TypeError(f"rule {rule!r} does not take parameters {sorted(unknown)}")
        self.game = game
        self.rule = rule
        self.params: dict[str, float] = {**RULE_DEFAULTS[rule], **params}
        self.t = 0
        # per owner: the decay and weight of iterations the average skipped (average_every)
        self.pending_decay = [1.0, 1.0]
        self.pending_weight = [0.0, 0.0]
        self.num_actions = infosets(game)
        self.current: dict[Key, FloatArray] = {}
        self.regrets: dict[Key, FloatArray] = {}
        self.cumulative: dict[Key, FloatArray] = {}
        self.predictions: dict[Key, FloatArray] = {}
        self.adaptive_a: dict[Key, float] = {}
        self.adaptive_b: dict[Key, float] = {}
        for key, k in self.num_actions.items():
            self.current[key] = uniform(k)
            self.regrets[key] = np.zeros(k, dtype=np.float64)
            self.cumulative[key] = np.zeros(k, dtype=np.float64)
            self.predictions[key] = np.zeros(k, dtype=np.float64)
            self.adaptive_a[key] = 0.0
            self.adaptive_b[key] = 0.0

    # -- schedule -----------------------------------------------------------

    def _decay(self, t: int) -> float:
        """Factor applied to S before adding this iteration's contribution."""
        if self.rule in ("dcfr", "dcfr-tuned", "dcfr-nh", "pdcfr+", "apdcfr+", "dcfr+"):
            return ((t - 1) / t) ** self.params["gamma"]
        return 1.0

    def _weight(self, t: int) -> float:
        """Weight of this iteration's contribution to S."""
        rule = self.rule
        if rule == "cfr+":
            return max(t - self.params["delay"], 0.0)
        if rule in ("lcfr", "lcfr+", "olcfr"):
            return float(t)
        if rule in ("pcfr+", "sapcfr+", "apcfr+"):
            return float(t) ** 2
        return 1.0  # cfr, dcfr, dcfr-tuned, dcfr-nh, pdcfr+, apdcfr+, dcfr+

    def _dcfr_discount(self, regrets: FloatArray, t: int) -> FloatArray:
        alpha, beta = self.params["alpha"], self.params["beta"]
        t_alpha = float(t) ** alpha
        positive_factor = t_alpha / (t_alpha + 1.0)
        if beta == -math.inf:
            negative_factor = 0.0
        else:
            t_beta = float(t) ** beta
            negative_factor = t_beta / (t_beta + 1.0)
        out = regrets.copy()
        for a in range(len(out)):
            if out[a] > 0.0:
                out[a] = out[a] * positive_factor
            elif out[a] < 0.0:
                out[a] = out[a] * negative_factor
        return out

    def _pdcfr_discount(self, t: int) -> float:
        """d(t) = (t-1)^alpha / ((t-1)^alpha + 1), so d(1) = 0."""
        power = float(t - 1) ** self.params["alpha"]
        return power / (power + 1.0)

    def _adaptive_alpha(self, key: Key) -> float:
        a, b = self.adaptive_a[key], self.adaptive_b[key]
        alpha_max = self.params["alpha_max"]
        if b == 0.0:
            return alpha_max
        return min(math.sqrt(a / b), alpha_max)

    # -- per-infoset update ---------------------------------------------------

    def _update_infoset(self, key: Key, r: FloatArray) -> None:
        """Apply the rule to one infoset of the player whose pass just finished.

        ``r`` is the instantaneous regret vector v(I, a) - v(I) of this iteration.
        """
        t = self.t
        rule = self.rule
        R = self.regrets[key]
        m_old = self.predictions[key]

        if rule == "cfr":
            R = R + r
            sigma = regret_matching(R)
        elif rule == "cfr+":
            R = np.maximum(R + r, 0.0)
            sigma = regret_matching(R)
        elif rule == "lcfr":
            R = R + t * r
            sigma = regret_matching(R)
        elif rule in ("dcfr", "dcfr-tuned"):
            R = self._dcfr_discount(R + r, t)
            sigma = regret_matching(R)
        elif rule == "dcfr-nh":
            R = self._dcfr_discount(R + r, t)
            # sigma <- NormalHedge(max(R, 0)) is applied to all of the player's infosets
            # at the end of the pass (batched for speed, see _pass); keep sigma for now.
            sigma = self.current[key]
        elif rule == "lcfr+":
            R = np.maximum(R + t * r, 0.0)
            sigma = regret_matching(R)
        elif rule == "olcfr":
            R = R + t * r
            sigma = regret_matching(R + t * r)
        elif rule == "pcfr+":
            R = np.maximum(R + r, 0.0)
            m = r.copy()
            self.predictions[key] = m
            sigma = regret_matching(np.maximum(R + m, 0.0))
        elif rule == "sapcfr+":
            R = np.maximum(R + r, 0.0)
            m = r.copy()
            self.predictions[key] = m
            sigma = regret_matching(np.maximum(R + m / (1.0 + self.params["alpha"]), 0.0))
        elif rule == "apcfr+":
            R_old = R
            R = np.maximum(R + r, 0.0)
            self.adaptive_a[key] += float(((r - m_old) ** 2).sum())
            self.adaptive_b[key] += float(((R - R_old) ** 2).sum())
            alpha_i = self._adaptive_alpha(key)
            m = r.copy()
            self.predictions[key] = m
            sigma = regret_matching(np.maximum(R + m / (1.0 + alpha_i), 0.0))
        elif rule == "pdcfr+":
            R = np.maximum(R * self._pdcfr_discount(t) + r, 0.0)
            m = r.copy()
            self.predictions[key] = m
            sigma = regret_matching(np.maximum(R * self._pdcfr_discount(t + 1) + m, 0.0))
        elif rule == "dcfr+":
            R = np.maximum(R * self._pdcfr_discount(t) + r, 0.0)
            sigma = regret_matching(R)
        elif rule == "apdcfr+":
            R_old = R
            R = np.maximum(R * self._pdcfr_discount(t) + r, 0.0)
            self.adaptive_a[key] += float(((r - m_old) ** 2).sum())
            self.adaptive_b[key] += float(((R - R_old) ** 2).sum())
            alpha_i = self._adaptive_alpha(key)
            m = r.copy()
            self.predictions[key] = m
            discounted = R * self._pdcfr_discount(t + 1)
            sigma = regret_matching(np.maximum(discounted + m / (1.0 + alpha_i), 0.0))
        else:  # pragma: no cover - guarded in __init__
            raise AssertionError(rule)

        self.regrets[key] = R
        self.current[key] = sigma

    # -- iteration -------------------------------------------------------------

    def _pass(self, player: int) -> None:
        t = self.t
        values, opp_reach = counterfactual_values_and_opponent_reach(
            self.game, self.current, player
        )
        # Average strategy of the opponent, with its own reach and its current sigma.
        decay, weight = self._decay(t), self._weight(t)
        # DCFR's average_every = k: the opponent's sums take only iterations k, 2k, ...;
        # an iteration skipped carries its decay and weight over to the next one taken
        k = int(self.params.get("average_every", 1.0))
        opp = 1 - player
        self.pending_decay[opp] *= decay
        self.pending_weight[opp] = self.pending_weight[opp] * decay + weight
        if t % k == 0:
            decay, weight = self.pending_decay[opp], self.pending_weight[opp]
            self.pending_decay[opp], self.pending_weight[opp] = 1.0, 0.0
            for key, reach in opp_reach.items():
                S = self.cumulative[key]
                self.cumulative[key] = S * decay + weight * reach * self.current[key]
        self._regret_pass(values)

    def _regret_pass(self, values: dict[Key, FloatArray]) -> None:
        # Regrets and new current strategy of the updated player.
        for key, action_values in values.items():
            node_value = float(self.current[key] @ action_values)
            r = action_values - node_value
            # rounding noise (a value equal to the node's in exact arithmetic) is 0.
            # NOTE: this snap is NOT in the written rule spec; it was added so that two
            # implementations summing in different orders agree on the sign of a
            # regret that is exactly 0 in exact arithmetic (RM / max(., 0) are
            # discontinuous there).  The engine must apply the same convention.
            r[np.abs(r) <= 1e-13 * (np.abs(action_values) + abs(node_value))] = 0.0
            self._update_infoset(key, r)
        if self.rule == "dcfr-nh":
            self._apply_normal_hedge(list(values))

    def _apply_normal_hedge(self, keys: list[Key]) -> None:
        """sigma <- NormalHedge(max(R, 0)) for ``keys`` (grouped by action count)."""
        by_size: dict[int, list[Key]] = {}
        for key in keys:
            by_size.setdefault(len(self.regrets[key]), []).append(key)
        for group in by_size.values():
            stacked = np.stack([np.maximum(self.regrets[key], 0.0) for key in group])
            sigmas = normal_hedge_rows(stacked)
            for key, sigma in zip(group, sigmas, strict=True):
                self.current[key] = sigma.copy()

    def iterate(self) -> None:
        """One iteration: a pass for player 0, then a pass for player 1."""
        self.t += 1
        self._pass(0)
        self._pass(1)

    def average_strategy(self) -> dict[Key, FloatArray]:
        out: dict[Key, FloatArray] = {}
        for key, total in self.cumulative.items():
            mass = float(total.sum())
            out[key] = total / mass if mass > 0.0 else uniform(len(total))
        return out
