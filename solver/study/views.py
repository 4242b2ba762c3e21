"""The study views players expect beside a node's strategy: EV per action, a range summary,
hand classes, equity and EV distributions, runout reports, hands by strength, and action names
as people say them ("All-in").

Every number comes from :mod:`solver.study.analysis` (EV, equity, EQR per hand, with their units)
and the walk's evaluation of a strategy profile; nothing here solves anything.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from solver.cfr.bestresponse import node_values
from solver.cfr.reach import chance_factor, path_reach
from solver.games.model import CHANCE, DECISION, Game
from solver.study.analysis import (
    NodeAnalysis,
    PlayerView,
    analyze,
    chips_in,
    compatible,
    range_eqr,
)

Array = npt.NDArray[np.float64]


# ----- EV per action -----------------------------------------------------------------------
def action_evs(
    game: Game,
    sigma: Array,
    node: int,
    compat: npt.NDArray[np.bool_] | None = None,
    values: Callable[[int, int], Array] | None = None,
) -> Array:
    """(num_actions, H[actor]) chips: the EV of each action for every hand of the player acting
    at decision ``node`` — the hand plays that action, everyone plays ``sigma`` after it — in
    the units of :class:`~solver.study.analysis.PlayerView.ev` (so the mix of a hand's action EVs
    by its strategy is its EV at the node). NaN where the hand cannot be at the node.
    ``values(child, player)``: a child's counterfactual values when known already (a solve's
    node table, :mod:`solver.study.node_table`); else a walk from the child."""
    if values is None:
        values = lambda child, p: node_values(game, sigma, child, p)  # noqa: E731
    t = game.tree
    if t.kind[node] != DECISION:
        raise ValueError(f"node {node} is not a decision node")
    p = int(t.player[node])
    nh = game.num_hands[p]
    m = compatible(game) if compat is None else compat
    opp = path_reach(game, sigma, node)[1 - p]
    mass = (m @ opp) if p == 0 else (m.T @ opp)
    valid = game.valid_hands(node, p)
    denom = np.where(valid & (mass > 0), mass * chance_factor(game, node), np.nan)
    out = np.empty((int(t.num_children[node]), nh))
    for a, child in enumerate(game.children(node)):
        out[a] = values(child, p)[:nh] / denom + game.ev_offset
    return out


# ----- a range at a node -----------------------------------------------------------------------
@dataclass(frozen=True)
class RangeSummary:
    """One player's range at a node: ``combos`` reaching (reach-weighted combos, the range's
    weights times its own action probabilities on the way), and the range's EV (chips),
    equity ([0, 1]), each averaged over the hand pairs that can meet there (weights: own
    reach × compatible opponent reach), and EQR from those two
    (:func:`~solver.study.analysis.range_eqr`). NaN where nothing reaches."""

    player: int
    combos: float
    ev: float
    equity: float
    eqr: float


def range_summary(view: PlayerView) -> RangeSummary:
    """:class:`RangeSummary` of one player's per-hand numbers at a node."""
    w = view.reach * view.opponent_mass
    total = float(w.sum())

    def mean(x: Array) -> float:
        ok = np.isfinite(x) & (w > 0)
        s = float(w[ok].sum())
        return float((w[ok] * x[ok]).sum() / s) if s > 0 else float("nan")

    ev = mean(view.ev) if total > 0 else float("nan")
    equity = mean(view.equity) if total > 0 else float("nan")
    return RangeSummary(view.player, float(view.reach.sum()), ev, equity,
                        range_eqr(ev, equity, view))  # fmt: skip


def summaries(analysis: NodeAnalysis) -> tuple[RangeSummary, RangeSummary]:
    return range_summary(analysis.players[0]), range_summary(analysis.players[1])


# ----- distributions -------------------------------------------------------------------------
def distribution(values: Array, weights: Array) -> tuple[Array, Array]:
    """A range's values sorted from best to worst against the share of the range (reach-
    weighted, in %) at or above each: ``(share (n,), value (n,))``, hands with no weight or no
    value left out — the equity (or EV) distribution curve."""
    ok = np.isfinite(values) & (weights > 0)
    v = values[ok]
    w = weights[ok]
    order = np.argsort(-v, kind="stable")
    cum = np.cumsum(w[order])
    share = 100.0 * cum / cum[-1] if cum.size else cum
    return share, v[order]


# ----- hands by strength -----------------------------------------------------------------------
def board_cards(game: Game, node: int) -> list[int]:
    """Hold'em: the public cards at ``node`` in its stored frame (initial board and the cards
    dealt on the way)."""
    board = [int(c) for c in np.asarray(game.meta["board"])]
    for label in game.history(node):
        if label.startswith("d:") and label[2:] in game.card_names:
            board.append(game.card_names.index(label[2:]))
    return board


def strength_order(game: Game, node: int, player: int) -> npt.NDArray[np.int64]:
    """A player's hands at ``node`` from strongest to weakest by what they make now (hold'em:
    the best five of hole and board cards; toy games: the card's rank, pairs with the board
    first). Hands the board blocks come last."""
    from solver.poker.handeval import rank_cards

    nh = game.num_hands[player]
    valid = game.valid_hands(node, player)
    score = np.full(nh, -1, dtype=np.int64)
    cards = game.hands.cards[player, :nh]
    if game.is_holdem:
        board = board_cards(game, node)
        buf = np.zeros(7, dtype=np.int64)
        buf[2 : 2 + len(board)] = board
        for h in np.flatnonzero(valid):
            buf[0], buf[1] = int(cards[h, 0]), int(cards[h, 1])
            score[h] = int(rank_cards(buf, 2 + len(board)))
    else:
        public = [lab[2:] for lab in game.history(node) if lab.startswith("d:")]
        for h in np.flatnonzero(valid):
            name = game.hand_names[player][h]
            pair = any(name[:-1] == c[:-1] for c in public)
            score[h] = (100 if pair else 0) + int(cards[h, 0])
    return np.argsort(-score, kind="stable").astype(np.int64)


# ----- action names ---------------------------------------------------------------------------
def action_names(game: Game, node: int) -> list[str]:
    """The actions at a decision node as a player says them: ``All-in`` for a bet or raise
    that puts the actor's whole stack in (hold'em), else the label (``k``, ``b:100``, …)."""
    labels = game.action_labels(node)
    if not game.is_holdem:
        return labels
    stack = float(game.meta["stack"])  # type: ignore[arg-type]
    before = chips_in(game, node)[0]  # the actor's chips on earlier streets (both alike)
    out = []
    for lab in labels:
        if lab.startswith(("b:", "r:")) and before + float(lab[2:]) >= stack - 1e-9:
            out.append("All-in")
        else:
            out.append(lab)
    return out


# ----- runouts --------------------------------------------------------------------------------
@dataclass(frozen=True)
class RunoutRow:
    """One card a chance node can deal: the card, the node below it (its canonical node under
    suit isomorphism; the numbers are the same for every card of the class), the player acting
    there with its actions and aggregate mix (reach-weighted), and both ranges' EV and equity
    there (:class:`RangeSummary`)."""

    card: str
    node: int
    player: int
    actions: list[str]
    mix: Array | None  # (num_actions,) or None when nobody acts below the card
    summaries: tuple[RangeSummary, RangeSummary]


def runout_report(
    game: Game,
    sigma: Array,
    node: int,
    with_equity: bool = True,
    compat: npt.NDArray[np.bool_] | None = None,
    analyze_child: Callable[..., NodeAnalysis] | None = None,
) -> list[RunoutRow]:
    """For each card the chance ``node`` deals (suit-isomorphic cards included), the acting
    player's mix, EV and equity below it (:class:`RunoutRow`). ``analyze_child(child,
    compat=, with_equity=)``: a child's analysis when a faster source has it (a solve's node
    table); else :func:`~solver.study.analysis.analyze`."""
    if game.tree.kind[node] != CHANCE:
        raise ValueError(f"node {node} is not a chance node")
    m = compatible(game) if compat is None else compat
    if analyze_child is None:
        analyze_child = lambda child, **kw: analyze(game, sigma, child, **kw)  # noqa: E731
    cache: dict[int, tuple[NodeAnalysis, tuple[RangeSummary, RangeSummary]]] = {}
    rows = []
    for label, child, _row in game.chance_cards(node):
        if child not in cache:
            a = analyze_child(child, compat=m, with_equity=with_equity)
            cache[child] = (a, summaries(a))
        a, sums = cache[child]
        names = action_names(game, child) if a.kind == DECISION else []
        rows.append(
            RunoutRow(label.removeprefix("d:"), child, a.player, names, a.frequencies, sums)
        )
    return rows
