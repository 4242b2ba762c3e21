"""The study views of Explore: EV per action and hand strength in the per-hand table, the grid
coloured by strategy, EV, EV of an action, equity or EQR, both ranges' summary, hand classes
(table and stacked bar), equity/EV distributions, and the runout report at a chance node;
each view with its downloads. Every number comes from :mod:`solver.study.views`,
:mod:`solver.study.groups` and :mod:`solver.poker.handclass` (tested there)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

import numpy as np
import numpy.typing as npt
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import state
from app.components import number_formats as NF
from app.components.downloads import download_row
from app.components.names import player_name
from app.components.study_figures import (
    card_grid_figure,
    class_mix_figure,
    distribution_figure,
    value_grid_figure,
)
from app.components.views import grid_figure
from app.features.node_analysis import compat_of, table_for
from solver.games.model import CHANCE, DECISION, Game
from solver.poker.handclass import class_table
from solver.study.analysis import NodeAnalysis, cell_of_hands
from solver.study.groups import cell_eqr, cell_means, class_groups, group_numbers
from solver.study.node_table import NodeTable, action_evs, runout_report
from solver.study.views import (
    RunoutRow,
    board_cards,
    distribution,
    strength_order,
    summaries,
)
from solver.study.words import action_names, is_preflop

Array = npt.NDArray[np.float64]
T = TypeVar("T")
COLOURINGS = ("Strategy", "EV", "Equity", "EQR")
VIEWS = ("Hand classes", "Distribution", "Runouts", "Best response")


def action_labels(game: Game, node: int) -> list[str]:
    """The actions at a decision node as players read them (:func:`solver.study.words.action_names`:
    ``Check``, ``Bet 50 % (100)``, ``All-in 900``)."""
    return action_names(game, node)


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-") or "node"


def file_name(game: Game, node: int, what: str) -> str:
    return f"{_slug(game.name)}-{_slug(' '.join(game.history(node)) or 'root')}-{what}"


def cached(key: tuple, build: Callable[[], T]) -> T:
    """``build()`` kept in the session for reruns (a few entries, by ``key``, which should
    name the strategy — its id and iteration — and the node)."""
    store: dict[tuple, Any] = state.get(state.STUDY_CACHE) or {}
    if key not in store:
        if len(store) >= 8:
            store.pop(next(iter(store)))
        store[key] = build()
        state.put(state.STUDY_CACHE, store)
    return store[key]


def _sigma() -> tuple[NodeTable, tuple] | None:
    """The current solve's node table (:func:`app.features.node_analysis.table_for`: its average
    strategy and the values of its upper nodes) and a cache key naming the strategy."""
    solved = state.solved()
    if solved is None:
        return None
    return table_for(solved), (id(solved.average), solved.iteration)


def node_action_evs(game: Game, node: int) -> Array | None:
    """(num_actions, H[actor]) chips: :func:`solver.study.views.action_evs` under the
    current solve, from its node table."""
    got = _sigma()
    if got is None or game.tree.kind[node] != DECISION:
        return None
    table, skey = got
    return cached(
        (*skey, node, "action_evs"), lambda: action_evs(table, node, compat_of(table.game))
    )


# ----- the per-hand table ----------------------------------------------------------------------
def table_extras(game: Game, a: NodeAnalysis, player: int, df: pd.DataFrame) -> pd.DataFrame:
    """The per-hand table with hand strength (``strength``: 1 = the strongest hand the player
    can hold here, :func:`solver.study.views.strength_order`), strongest first, and, for the acting
    player, the EV of each action (``EV <action>``, chips); action columns named as players
    say them (:func:`solver.study.words.action_names`)."""
    if df.empty:
        return df
    names = a.players[player].hand_names
    index = [names.index(h) for h in df["hand"]]
    rank = np.empty(game.num_hands[player], dtype=np.int64)
    order = (
        np.argsort(-_allin_strength()[np.asarray(game.meta["combos"][player])], kind="stable")  # type: ignore[index]
        if is_preflop(game)
        else strength_order(game, a.node, player)
    )
    rank[order] = np.arange(1, game.num_hands[player] + 1)
    out = df.copy()
    out.insert(1, "strength", rank[index])
    # (a player reads a range strongest first: the table opens in that order)
    out = out.sort_values("strength", kind="stable").reset_index(drop=True)
    index = [names.index(h) for h in out["hand"]]
    if player == a.player:
        labels = action_labels(game, a.node)
        evs = node_action_evs(game, a.node)
        if evs is not None:
            for i, n in enumerate(labels):
                out[f"EV {n}"] = evs[i, index]
    return out


@functools.cache
def _allin_strength() -> Array:
    """(1326,): each combo's all-in P(win) − P(lose) against a random hand (no board yet:
    how a preflop range is ranked, strongest first)."""
    from solver.poker.preflop_equity import allin_sign

    return allin_sign().sum(axis=1) / 1225.0  # the 1,225 combos that share no card


def table_columns(game: Game, a: NodeAnalysis, player: int) -> dict[str, Any]:
    """Column formats of :func:`table_extras`' columns."""
    cols: dict[str, Any] = {
        "strength": st.column_config.NumberColumn(
            "strength", help="1 = the strongest hand here (what it makes now)", format="%d"
        )
    }
    if player == a.player:
        for n in action_labels(game, a.node):
            cols[n] = st.column_config.NumberColumn(n, format="%.1f %%", help="% of the hand")
            unit = "bb" if is_preflop(game) else "chips"
            cols[f"EV {n}"] = st.column_config.NumberColumn(
                f"EV {n}" + (" (bb)" if unit == "bb" else ""),
                format=NF.CHIPS,
                help=f"{unit}: the hand plays {n}, then the strategy",
            )
    return cols


# ----- the grid ------------------------------------------------------------------------------
def decision_grid(game: Game, a: NodeAnalysis) -> None:
    """The acting player's 13×13 grid coloured by its strategy, or by a value per class:
    EV, EV of one action, equity or EQR (reach × opponent-weighted means of the class's
    hands, :func:`solver.study.groups.cell_means`)."""
    assert a.strategy is not None
    actor = a.players[a.player]
    labels = action_labels(game, a.node)
    # (a preflop node has no board: equity and EQR would be a showdown's on no cards)
    shown = () if is_preflop(game) else COLOURINGS[2:]
    options = [*COLOURINGS[:2], *(f"EV of {n}" for n in labels), *shown]
    if state.get(state.GRID_COLOUR) not in options:
        state.put(state.GRID_COLOUR, "Strategy")
    what = st.selectbox("Colour the grid by", options, key=state.GRID_COLOUR)
    if what == "Strategy":
        fig = grid_figure(game, a.node, a.strategy, actor.reach, pot=a.pot)
    else:
        fig = value_grid_figure(*grid_values(game, a, what))
    st.plotly_chart(fig, key="explore_grid", width="stretch")
    download_row("grid", file_name(game, a.node, "grid"), fig=fig)


def grid_values(game: Game, a: NodeAnalysis, what: str) -> tuple[Array, str, str]:
    """(169,) per-class values of the actor for a colouring, its name and unit."""
    actor = a.players[a.player]
    if what == "EV":
        values, unit = actor.ev, "bb" if is_preflop(game) else ""
    elif what == "Equity":
        values, unit = 100 * actor.equity, "%"
    elif what == "EQR":  # each cell's as a group: not a mean of its hands' ratios
        return cell_eqr(actor, cell_of_hands(game, a.player)), what, ""
    else:
        evs = node_action_evs(game, a.node)
        names = [f"EV of {n}" for n in action_labels(game, a.node)]
        values = evs[names.index(what)] if evs is not None else np.full(actor.ev.shape, np.nan)
        unit = "bb" if is_preflop(game) else ""
    return cell_means(actor, values, cell_of_hands(game, a.player)), what, unit


def value_columns(game: Game | None = None) -> dict[str, Any]:
    """Streamlit column formats of the per-hand and summary tables' value columns: EV
    (chips; a preflop ``game``'s in bb), equity (%) and EQR."""
    unit = "bb" if game is not None and is_preflop(game) else "chips"
    return {
        "EV": st.column_config.NumberColumn(f"EV ({unit})", format=NF.CHIPS),
        "equity %": st.column_config.NumberColumn(format=NF.PERCENT),
        "EQR": st.column_config.NumberColumn(format=NF.RATIO),
    }


# ----- the study section ---------------------------------------------------------------------
def render(
    game: Game,
    a: NodeAnalysis,
    on_card: Callable[[str], None] | None = None,
    best_response: Callable[[Game, NodeAnalysis], None] | None = None,
) -> None:
    """Range summary, then one study view at a time (hand classes, distribution, runouts,
    best response). ``on_card(card)``: what a click on a card of the runout grid does
    (Explore deals it); ``best_response(game, a)``: draws the best-response view at a
    decision node (:func:`app.features.exploit_view.render`; none: no such view)."""
    st.markdown("**Range summary**")
    df = summary_frame(game, a)
    st.dataframe(
        df,
        hide_index=True,
        key="study_summary",
        column_config={
            "combos": st.column_config.NumberColumn(format=NF.COMBOS),
            **value_columns(game),
        },
    )
    download_row("summary", file_name(game, a.node, "summary"), table=df)
    views = [v for v in VIEWS if _has_view(game, a, v, best_response is not None)]
    if state.get(state.STUDY_VIEW) not in views:
        state.put(state.STUDY_VIEW, views[0])
    view = st.radio("Study view", views, key=state.STUDY_VIEW, horizontal=True)
    if view == "Hand classes":
        _classes(game, a)
    elif view == "Best response" and best_response is not None:
        best_response(game, a)
    elif view == "Distribution":
        _distribution(game, a)
    else:
        _runouts(game, a, on_card)


def _has_view(game: Game, a: NodeAnalysis, view: str, responds: bool = False) -> bool:
    if view == "Hand classes":  # (made hands and draws need a board: not preflop)
        return game.is_holdem and not is_preflop(game)
    if view == "Runouts":
        return a.kind == CHANCE
    if view == "Best response":  # (docs/exploit.md: for the player to act)
        return responds and a.kind == DECISION
    return True


def summary_frame(game: Game, a: NodeAnalysis) -> pd.DataFrame:
    """Both players' :class:`solver.study.views.RangeSummary` at the node."""
    rows = []
    for s in summaries(a):
        rows.append(
            {
                "player": player_name(game, s.player),
                "combos": s.combos,
                "EV": s.ev,
                "equity %": 100 * s.equity,
                "EQR": s.eqr,
            }
        )
    df = pd.DataFrame(rows)
    return df.drop(columns=["equity %", "EQR"]) if is_preflop(game) else df


def class_frame(game: Game, a: NodeAnalysis, player: int) -> pd.DataFrame:
    """One row per hand class of ``player`` at the node (made classes, then draws): combos,
    share %, EV (chips), for the acting player the action mix (%), then the equity (%) and
    EQR of the class as a group (:func:`solver.study.groups.group_numbers`)."""
    v = a.players[player]
    nh = game.num_hands[player]
    cards = game.hands.cards[player, :nh]
    acting = player == a.player and a.strategy is not None
    rows = class_table(board_cards(game, a.node), cards, v.reach, a.strategy if acting else None)
    nums = {g.key: group_numbers(v, g.mask) for g in class_groups(game, a.node, player)}
    labels = action_labels(game, a.node) if acting else []
    out = []
    for r in rows:
        row: dict[str, object] = {
            "class": r.label,
            "kind": r.kind,
            "combos": r.combos,
            "share %": 100 * r.share,
        }
        got = nums.get(r.key)
        row["EV"] = got.ev if got is not None else float("nan")
        for i, n in enumerate(labels):
            row[f"{n} %"] = 100 * r.mix[i] if r.mix is not None else float("nan")
        row["equity %"] = 100 * got.equity if got is not None else float("nan")
        row["EQR"] = got.eqr if got is not None else float("nan")
        out.append(row)
    return pd.DataFrame(out)


def _player_pick(game: Game, a: NodeAnalysis, key: str) -> int:
    default = a.player if a.player >= 0 else 0
    picked = st.radio(
        "Player",
        [0, 1],
        index=default,
        format_func=lambda p: player_name(game, p),
        horizontal=True,
        key=f"{key}_{a.node}",
    )
    return int(picked)


def _classes(game: Game, a: NodeAnalysis) -> None:
    player = _player_pick(game, a, "class_player")
    got = _sigma()
    skey = got[1] if got is not None else ()
    df = cached((*skey, a.node, player, "classes"), lambda: class_frame(game, a, player))
    if df.empty:
        st.caption("No hand of this player reaches the node.")
        return
    st.dataframe(df, hide_index=True, key="study_classes", column_config=NF.table_config(df))
    fig: go.Figure | None = None
    if player == a.player:
        labels = action_labels(game, a.node)
        cols = [f"{n} %" for n in labels]
        fig = class_mix_figure(
            list(df["class"]),
            [tuple(float(x) / 100 for x in r) for r in df[cols].to_numpy()],
            a.actions,
            labels,
        )
        st.plotly_chart(fig, key="study_class_bar", width="stretch")
    st.caption(
        "Made classes, then draws (a hand counts in its made class and in each of its draws; "
        "docs/hand-classes.md). Combos are reach-weighted; EV in chips; a class's equity "
        "and EQR are its hands' together, weighted as the range summary weighs them."
    )
    download_row("classes", file_name(game, a.node, "classes"), fig=fig, table=df)


def distribution_curves(a: NodeAnalysis, by: str, game: Game) -> list[tuple[str, Array, Array]]:
    """Each player's (name, share %, value) curve: equity (%) or EV (chips) sorted from best
    to worst, hands weighted by their reach (:func:`solver.study.views.distribution`)."""
    out = []
    for p, v in enumerate(a.players):
        values = 100 * v.equity if by == "Equity" else v.ev
        share, value = distribution(values, v.reach)
        out.append((player_name(game, p), share, value))
    return out


def _distribution(game: Game, a: NodeAnalysis) -> None:
    ways = ["EV"] if is_preflop(game) else ["Equity", "EV"]  # (no board: no equity preflop)
    if state.get(state.DIST_BY) not in ways:
        state.put(state.DIST_BY, ways[0])
    by = st.radio("Sort by", ways, key=state.DIST_BY, horizontal=True)
    curves = distribution_curves(a, str(by), game)
    if all(c[1].size == 0 for c in curves):
        st.info(f"No {str(by).lower()} to show here (nothing reaches, or no exact equity).")
        return
    what = "equity %" if by == "Equity" else ("EV (bb)" if is_preflop(game) else "EV (chips)")
    fig = distribution_figure(curves, what)
    st.plotly_chart(fig, key="study_distribution", width="stretch")
    table = pd.concat(
        [pd.DataFrame({"player": n, "share %": s, what: v}) for n, s, v in curves],
        ignore_index=True,
    )
    download_row("distribution", file_name(game, a.node, "distribution"), fig=fig, table=table)


def runout_frame(game: Game, rows: list[RunoutRow]) -> tuple[pd.DataFrame, list[str], list[str]]:
    """The runout table (card, acting player, mix % per action, both players' EV and equity)
    and the action labels and names of the first card's node."""
    first = next((r for r in rows if r.mix is not None), None)
    labels = game.action_labels(first.node) if first is not None else []
    names = action_labels(game, first.node) if first is not None else []
    out = []
    for r in rows:
        row: dict[str, object] = {
            "card": r.card,
            "acting": player_name(game, r.player) if r.player >= 0 else "",
        }
        mine = game.action_labels(r.node) if r.mix is not None else []
        for lab, n in zip(labels, names, strict=True):
            row[f"{n} %"] = 100 * float(r.mix[mine.index(lab)]) if lab in mine else float("nan")  # type: ignore[index]
        for s in r.summaries:
            who = player_name(game, s.player)
            row[f"EV {who}"] = s.ev
            row[f"equity {who} %"] = 100 * s.equity
        out.append(row)
    return pd.DataFrame(out), labels, names


RUNOUT_GRID = "study_runout_grid"


def clicked_card(selection: Any) -> str | None:
    """The card a click on the runout grid selected (its marker's ``customdata``), or None."""
    try:
        points = selection["selection"]["points"]
    except (KeyError, TypeError):
        return None
    for p in points or ():
        card = p.get("customdata") if isinstance(p, dict) else None
        if isinstance(card, str):
            return card
    return None


def _runouts(game: Game, a: NodeAnalysis, on_card: Callable[[str], None] | None = None) -> None:
    got = _sigma()
    if got is None:
        return
    table, skey = got
    with st.spinner("Analysing every card…"):
        rows = cached((*skey, a.node, "runouts"), lambda: runout_report(table, a.node))
    df, labels, names = runout_frame(game, rows)
    cells = {}
    for r, rec in zip(rows, df.to_dict("records"), strict=True):
        if r.mix is not None and game.action_labels(r.node) == labels:
            text = "<br>".join(
                [f"<b>{r.card}</b>"]
                + [f"{k}: {v:.1f}" for k, v in rec.items() if isinstance(v, float)]
            )
            cells[r.card] = (np.asarray(r.mix), text)
    who = player_name(game, rows[0].player) if rows and rows[0].player >= 0 else ""
    fig = card_grid_figure(cells, labels, names)
    st.markdown(f"**Every next card** — {who} acting below it: aggregate mix")
    if on_card is None:
        st.plotly_chart(fig, key=RUNOUT_GRID, width="stretch")
    else:

        def picked() -> None:
            card = clicked_card(state.get(RUNOUT_GRID))
            if card is not None:
                on_card(card)

        st.plotly_chart(
            fig, key=RUNOUT_GRID, width="stretch", on_select=picked, selection_mode="points",
            config={"displaylogo": False},
        )  # fmt: skip
        st.caption("Click a card to deal it and walk on from there.")
    st.dataframe(df, hide_index=True, key="study_runouts", column_config=NF.table_config(df))
    st.caption(
        "Sort by any column. Suit-isomorphic cards share their node's numbers; EV in chips, "
        "equity against the other range below the card."
    )
    download_row("runouts", file_name(game, a.node, "runouts"), fig=fig, table=df)
