"""Per-node analysis for exploring a solve: strategy, EV, equity, EQR and reach of every hand.

Units and definitions (``H[p]`` = player ``p``'s number of hands, all arrays per hand):

* **reach** ``(H[p],)``: the range weight of the hand times the probability that the player's
  own strategy takes the line to the node (0 where a dealt card blocks the hand). In [0, 1].
* **EV** ``(H[p],)``, chips: the hand's expected value when both play the strategy from the
  node on, given the opponent's reach and card removal:
  ``counterfactual value / (compatible opponent reach mass × chance factor)``. Toy games:
  zero-sum chips relative to the start of the hand. Hold'em subgames: as solvers report it,
  the hand's share of the final pot minus the chips it puts in after the subgame starts
  (:attr:`Game.ev_offset` added), so at the root the two players' EVs sum to the pot (less
  the expected rake in a raked spot).
  NaN where no opponent hand is compatible.
* **equity** ``(H[p],)`` in [0, 1]: the share of the pot the hand wins at showdown against the
  opponent's reach-weighted hands, ties split, averaged over every remaining board card
  (exact enumeration). NaN when the enumeration would be too large (flop nodes of big
  ranges, :data:`EQUITY_BUDGET`), when a suit-isomorphic card has later cards below it (its
  boards are not in the tree), or when no opponent hand is compatible.
* **EQR** (hold'em only): ``EV at the node / (equity × pot at the node)``, where the EV at the
  node counts the chips the hand still puts in (EV above plus the chips already invested
  since the subgame started). NaN for toy games or where equity is 0 or NaN. A range's EQR
  (and a group's) is its mean EV plus the chips invested over its mean equity × the pot
  (:func:`range_eqr`), not a mean of its hands' ratios: a hand with a sliver of equity has an
  enormous ratio that would swamp the mean.
* **frequencies** ``(num_actions,)``: the acting player's actions weighted by reach.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.cfr.bestresponse import node_values
from solver.cfr.reach import chance_factor, path_reach
from solver.games.model import CHANCE, DECISION, Game

Array = npt.NDArray[np.float64]

EQUITY_BUDGET = 120_000_000
"""Largest ``boards × H[0] × H[1]`` the exact equity enumeration will take on."""


def compatible(game: Game) -> npt.NDArray[np.bool_]:
    """(H[0], H[1]) bool: True where the two hands share no card."""
    h0, h1 = game.num_hands
    c0 = game.hands.cards[0, :h0]
    c1 = game.hands.cards[1, :h1]
    clash = np.zeros((h0, h1), dtype=bool)
    for i in range(c0.shape[1]):
        for j in range(c1.shape[1]):
            a = c0[:, i][:, None]
            b = c1[:, j][None, :]
            clash |= (a >= 0) & (a == b)
    return ~clash


def final_boards(game: Game, node: int) -> list[tuple[int, float]] | None:
    """(board id, probability weight) of every board a showdown below ``node`` can be played
    on: the node's own board if no card is dealt below it, else each dealt card (recursively),
    weighted by the chance weights. Cards dealt through suit isomorphism count with their own
    boards. None when an isomorphic card has more cards dealt after it (its later boards are
    not in the tree)."""
    t = game.tree
    stack = [node]
    chance = -1
    while stack:  # any chance node in the subtree (all lines deal the same streets)
        n = stack.pop()
        if t.kind[n] == CHANCE:
            chance = n
            break
        stack.extend(game.children(n))
    if chance < 0:
        return [(int(t.board[node]), 1.0)]
    out: list[tuple[int, float]] = []
    for c in game.children(chance):
        w = float(t.chance_weight[c])
        below = final_boards(game, c)
        if below is None:
            return None
        out.extend((b, w * wb) for b, wb in below)
        iso = range(int(t.iso_start[c]), int(t.iso_start[c] + t.iso_count[c]))
        if len(iso) and (len(below) != 1 or below[0][0] != int(t.board[c])):
            return None
        out.extend((int(t.iso_board[e]), w) for e in iso)
    return out


def equities(
    game: Game,
    node: int,
    reach: tuple[Array, Array],
    compat: npt.NDArray[np.bool_] | None = None,
) -> tuple[Array, Array]:
    """Each player's showdown equity per hand (see the module doc) against the other's
    ``reach``; NaN arrays when over :data:`EQUITY_BUDGET`."""
    h0, h1 = game.num_hands
    boards = final_boards(game, node)
    if boards is None or len(boards) * h0 * h1 > EQUITY_BUDGET:
        return np.full(h0, np.nan), np.full(h1, np.nan)
    m = compatible(game) if compat is None else compat
    r0, r1 = reach
    num0 = np.zeros(h0)
    den0 = np.zeros(h0)
    num1 = np.zeros(h1)
    den1 = np.zeros(h1)
    bd = game.boards
    for b, w in boards:
        v0 = bd.valid[b, 0, :h0] > 0
        v1 = bd.valid[b, 1, :h1] > 0
        k0 = bd.rank[b, 0, :h0]
        k1 = bd.rank[b, 1, :h1]
        mm = (m & v0[:, None] & v1[None, :]).astype(np.float64)
        share = (k0[:, None] > k1[None, :]) + 0.5 * (k0[:, None] == k1[None, :])
        num0 += w * ((share * mm) @ r1)
        den0 += w * (mm @ r1)
        num1 += w * (((1.0 - share) * mm).T @ r0)
        den1 += w * (mm.T @ r0)
    with np.errstate(invalid="ignore", divide="ignore"):
        e0 = np.where(den0 > 0, num0 / np.where(den0 > 0, den0, 1.0), np.nan)
        e1 = np.where(den1 > 0, num1 / np.where(den1 > 0, den1, 1.0), np.nan)
    return e0, e1


def node_path(game: Game, node: int) -> list[int]:
    """The nodes from the root's child down to ``node``, in walking order ([] for the root):
    the line that reaches ``node``, each node's parent being ``game.parents[n]``."""
    out = []
    n = int(node)
    while n > 0:
        out.append(n)
        n = int(game.parents[n])
    return out[::-1]


def investments(game: Game, node: int) -> tuple[float, float, float]:
    """Hold'em: (pot at ``node``, chips player 0 and player 1 put in since the subgame
    started), from the action labels (``b:S``/``r:S`` = street commitment S; ``c`` matches)."""
    if not game.is_holdem:
        raise ValueError("investments are defined for hold'em subgames")
    base, bets = chips_in(game, node)
    posted = _blinds(game)  # in the starting pot already
    inv = (base + bets[0] - posted[0], base + bets[1] - posted[1])
    return game.starting_pot + inv[0] + inv[1], inv[0], inv[1]


def _blinds(game: Game) -> tuple[float, float]:
    """Each player's blind before the first action (preflop: SB, BB; a subgame: none). A
    preflop ``r:S`` is a raise *to* S, the blind included, so a line's bets start there."""
    if not game.meta.get("preflop"):
        return 0.0, 0.0
    return float(game.meta["sb"]), float(game.meta["big_blind"])  # type: ignore[arg-type]


def chips_in(game: Game, node: int) -> tuple[float, tuple[float, float]]:
    """The chips each player has put in along the line to ``node``, from its action labels
    (``b:S``/``r:S`` = street commitment S; ``c`` matches; preflop, the blinds count as the
    first street's commitments): (per player before this street, (player 0's, player 1's)
    on this street). The one reading of a line's bets
    (:func:`investments`, :mod:`solver.study.views`)."""
    base = 0.0
    bets = list(_blinds(game))
    t = game.tree
    for child in node_path(game, node):
        parent = int(game.parents[child])
        label = game.labels[child]
        if t.kind[parent] == CHANCE:
            base += max(bets)
            bets = [0.0, 0.0]
            continue
        p = int(t.player[parent])
        if label.startswith(("b:", "r:")):
            bets[p] = float(label[2:])
        elif label == "c":
            bets[p] = bets[1 - p]
    return base, (bets[0], bets[1])


@dataclass(frozen=True)
class PlayerView:
    """One player's per-hand numbers at a node (arrays of length H[p], hand order of the
    game; ``valid`` marks the hands the node's board leaves possible)."""

    player: int
    hand_names: list[str]
    valid: npt.NDArray[np.bool_]
    reach: Array  # own reach (range weight × own action probabilities), [0, 1]
    opponent_mass: Array  # compatible opponent reach mass, weight units
    ev: Array  # chips (see module doc)
    equity: Array  # [0, 1]
    eqr: Array  # ratio; NaN where undefined
    pot: float = float("nan")  # chips in the pot at the node (hold'em; NaN: no EQR)
    invested: float = 0.0  # chips this player put in since the subgame started


def range_eqr(ev: float, equity: float, view: PlayerView) -> float:
    """EQR of a range or group whose mean EV (chips) and mean equity ([0, 1]) are ``ev`` and
    ``equity``: (ev + chips invested) / (equity × pot); NaN where that is undefined."""
    denom = equity * view.pot
    if not (np.isfinite(ev) and np.isfinite(denom) and denom > 0):
        return float("nan")
    return float((ev + view.invested) / denom)


@dataclass(frozen=True)
class NodeAnalysis:
    """Everything the Explore page shows at one node."""

    node: int
    kind: int
    player: int  # acting player at a decision node, else -1
    history: tuple[str, ...]
    actions: list[str]  # action labels at a decision node (children order)
    strategy: Array | None  # (num_actions, H[player]) average strategy at a decision node
    frequencies: Array | None  # (num_actions,) reach-weighted action frequencies
    players: tuple[PlayerView, PlayerView]
    pot: float | None  # chips in the pot at the node (hold'em), else None

    @property
    def actor(self) -> PlayerView | None:
        return self.players[self.player] if self.player >= 0 else None


Values = Callable[[int], Array]
"""Player p's counterfactual values (H[p],) at the node analysed: p → array."""
Equities = Callable[[Game, int, tuple[Array, Array], npt.NDArray[np.bool_]], tuple[Array, Array]]
"""(game, node, reach, compat) → each player's equity per hand, as :func:`equities`."""


def analyze(
    game: Game,
    sigma: Array,
    node: int,
    compat: npt.NDArray[np.bool_] | None = None,
    with_equity: bool = True,
    *,
    values: Values | None = None,
    equity_of: Equities | None = None,
) -> NodeAnalysis:
    """Analyse ``node`` under the strategy profile ``sigma`` (flat (action_size,) array).
    ``values`` gives the players' counterfactual values at the node when they are known
    (:mod:`solver.study.node_table` keeps a solved tree's), else a walk from the node
    computes them; ``equity_of`` replaces the enumeration of :func:`equities`."""
    t = game.tree
    kind = int(t.kind[node])
    m = compatible(game) if compat is None else compat
    # (a job's frozen average would be copied by every kernel call below: once here instead)
    sigma = np.require(sigma, dtype=np.float64, requirements=("C", "W"))
    reach = path_reach(game, sigma, node)
    cf = chance_factor(game, node)
    eq = (equity_of or equities)(game, node, reach, m) if with_equity else None
    pot: float | None = None
    inv = (0.0, 0.0)
    if game.is_holdem:
        pot, inv0, inv1 = investments(game, node)
        inv = (inv0, inv1)
    views = []
    for p in range(2):
        nh = game.num_hands[p]
        valid = game.valid_hands(node, p)
        opp = reach[1 - p]
        mass = (m @ opp) if p == 0 else (m.T @ opp)
        mass = np.where(valid, mass, 0.0)
        cfv = (values(p) if values is not None else node_values(game, sigma, node, p))[:nh]
        with np.errstate(invalid="ignore", divide="ignore"):
            ev = np.where(mass > 0, cfv / np.where(mass > 0, mass * cf, 1.0), np.nan)
        ev = ev + game.ev_offset
        equity = eq[p] if eq is not None else np.full(nh, np.nan)
        equity = np.where(valid, equity, np.nan)
        if game.is_holdem and pot is not None:
            with np.errstate(invalid="ignore", divide="ignore"):
                denom = equity * pot
                eqr = np.where(denom > 0, (ev + inv[p]) / np.where(denom > 0, denom, 1.0), np.nan)
        else:
            eqr = np.full(nh, np.nan)
        views.append(
            PlayerView(
                p,
                list(game.hand_names[p]),
                valid,
                np.where(valid, reach[p], 0.0),
                mass,
                ev,
                equity,
                eqr,
                pot if pot is not None else float("nan"),
                inv[p],
            )
        )
    strategy = None
    freqs = None
    actions: list[str] = []
    player = -1
    if kind == DECISION:
        player = int(t.player[node])
        off, na, nh = game.block(node)
        strategy = np.array(sigma[off : off + na * nh]).reshape(na, nh)
        actions = game.action_labels(node)
        freqs = action_frequencies(strategy, views[player].reach)
    return NodeAnalysis(
        node=node,
        kind=kind,
        player=player,
        history=game.history(node),
        actions=actions,
        strategy=strategy,
        frequencies=freqs,
        players=(views[0], views[1]),
        pot=pot,
    )


def action_frequencies(strategy: Array, reach: Array) -> Array:
    """(num_actions,) reach-weighted frequency of each action; uniform when no hand reaches."""
    total = float(reach.sum())
    if total <= 0:
        return np.full(strategy.shape[0], 1.0 / strategy.shape[0])
    return (strategy @ reach) / total


def grid_mix(game: Game, player: int, strategy: Array, reach: Array) -> tuple[Array, Array]:
    """Hold'em: the 13×13 grid of a player's action mix. Returns ``(mix, weight)``:
    ``mix`` (13, 13, num_actions) reach-weighted action frequencies of each hand class
    (NaN where no combo reaches), ``weight`` (13, 13) the reach mass (weighted combos) of
    each class. Layout as :data:`solver.poker.ranges.GRID_LABELS`."""
    from solver.poker.ranges import COMBO_CELL

    combos = game.meta["combos"][player]  # type: ignore[index]
    cells = COMBO_CELL[np.asarray(combos)]
    na = strategy.shape[0]
    weight = np.bincount(cells, weights=reach, minlength=169)
    mix = np.empty((169, na))
    for a in range(na):
        mix[:, a] = np.bincount(cells, weights=reach * strategy[a], minlength=169)
    with np.errstate(invalid="ignore", divide="ignore"):
        mix = mix / weight[:, None]
    mix[weight <= 0] = np.nan
    return mix.reshape(13, 13, na), np.asarray(weight, dtype=np.float64).reshape(13, 13)


def cell_of_hands(game: Game, player: int) -> npt.NDArray[np.int64]:
    """Hold'em: the grid cell (0..168, row-major as GRID_LABELS) of each of a player's hands."""
    from solver.poker.ranges import COMBO_CELL

    combos = game.meta["combos"][player]  # type: ignore[index]
    return COMBO_CELL[np.asarray(combos)].astype(np.int64)
