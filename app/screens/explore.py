"""Explore: walk the tree of the current solve (action buttons, breadcrumb, dealt cards at
chance nodes, a small overview), and at each node the acting player's grid or card table, the
per-combo table (strategy, EV, equity, EQR, reach; sortable and filterable), both players'
ranges at the node, and the aggregate action frequencies."""

from __future__ import annotations

import functools

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import nav, state
from app import spec as S
from app.components import names
from app.components import number_formats as NF
from app.components.colors import action_colors
from app.components.figures import range_grid_figure
from app.components.hand_filter import EXAMPLES, FilterError, card_mask, hand_mask
from app.components.spot_header import spot_header
from app.components.views import card_table
from app.features import exploit_view, locking, multi_study, sizes_view, study_views
from app.features.node_analysis import analysis_for
from solver.games.model import CHANCE, DECISION, Game
from solver.poker.ranges import COMBO_CELL
from solver.study.analysis import NodeAnalysis, node_path
from solver.study.views import board_cards
from solver.study.words import action_names, child_name, is_preflop, node_pot, node_words, spot

OVERVIEW_DEPTH = 2


def player_name(game: Game, p: int) -> str:
    return names.player_name(game, p)


def node_title(game: Game, node: int) -> str:
    return node_words(game, node, names.of(game))


def go_to(node: int) -> None:
    state.put(state.EXPLORE_NODE, int(node))
    state.put(state.COMBO_FILTER, "")  # a filter belongs to the node it was typed at
    j = state.job()
    if j is not None and j.game.tree.kind[node] == DECISION:
        j.watch(int(node))


def render() -> None:
    if multi_study.wanted():  # three players (docs/multiway.md)
        multi_study.render_explore()
        return
    st.title("Explore")
    solved = state.solved()
    if solved is None:
        st.info("Nothing solved yet: start a solve (or load a saved one) first.")
        nav.link("solve", "Go to Solve", ":material/play_arrow:")
        nav.link("export", "Load a saved solve", ":material/save:")
        return
    game = solved.game
    names.remember(game, S.player_names(solved.source))
    node = state.explored_node(game)
    state.put(state.EXPLORE_NODE, node)
    running = solved.job is not None and solved.job.alive
    st.caption(
        f"{game.name} · average strategy of iteration {solved.iteration:,}"
        + (" (the solve is still running; this view updates when you act)" if running else "")
    )
    with st.container(key="spot_header"):
        spot_header(spot(game, node, names.of(game)))
    _breadcrumb(game, node)
    note = state.get(state.ISO_NOTE)
    if note is not None and note[0] == node:
        st.info(
            f"{note[1]} is dealt like {game.labels[node][2:]} by suit symmetry: the solver "
            f"stores one of them, so hands below are shown with the suits of "
            f"{game.labels[node][2:]}.",
            icon=":material/info:",
        )
    _actions(game, node)
    a = analysis_for(solved, node)
    _node_view(game, a)
    locking.render(solved, a)
    dealing = game.tree.kind[node] == CHANCE  # the runout grid's cards deal on a click
    cards = functools.partial(deal_card, game.chance_cards(node)) if dealing else None
    study_views.render(game, a, on_card=cards, best_response=exploit_view.render)
    sizes_view.render(solved)
    with st.expander("Tree overview"):
        st.code(_overview(game, node), language=None)


def _breadcrumb(game: Game, node: int) -> None:
    path = [0, *node_path(game, node)]
    row = st.container(horizontal=True, key="breadcrumb")
    for i, n in enumerate(path[-12:]):
        label = "Start" if n == 0 else child_name(game, n)
        row.button(
            label,
            key=f"crumb_{i}",
            on_click=go_to,
            args=(n,),
            disabled=n == node,
            type="tertiary" if n != node else "secondary",
            icon=locking.crumb_icon(game, n),
        )


def _actions(game: Game, node: int) -> None:
    kind = int(game.tree.kind[node])
    children = list(game.children(node))
    if kind == DECISION:
        row = st.container(horizontal=True, key="actions")
        colors = action_colors([game.labels[c] for c in children])
        for i, c in enumerate(children):
            st.html(
                f"<style>.st-key-act_{i} button {{border-left: 6px solid {colors[i]};}}</style>"
            )
            row.button(child_name(game, c), key=f"act_{i}", on_click=go_to, args=(c,))
    elif kind == CHANCE:
        cards = game.chance_cards(node)  # (label, child, permutation row or -1)
        st.selectbox(
            "Deal a card",
            list(range(len(cards))),
            format_func=lambda i: cards[i][0][2:],
            key=state.CHANCE_CARD,
            index=None,
            placeholder="pick the next card",
            on_change=_deal,
            args=(cards,),
        )


def _deal(cards: list[tuple[str, int, int]]) -> None:
    picked = state.get(state.CHANCE_CARD)
    state.put(state.CHANCE_CARD, None)
    if picked is None:
        return
    _dealt(*cards[int(picked)])


def deal_card(cards: list[tuple[str, int, int]], card: str) -> None:
    """Deal ``card`` (``Kh``) of the chance node whose ``cards`` these are (a click on the
    runout grid); a card the node does not deal does nothing."""
    for label, child, row in cards:
        if label == f"d:{card}":
            _dealt(label, child, row)
            return


def _dealt(label: str, child: int, row: int) -> None:
    go_to(int(child))
    state.put(state.ISO_NOTE, None)
    if row >= 0:
        state.put(state.ISO_NOTE, (int(child), label[2:]))


def _node_view(game: Game, a: NodeAnalysis) -> None:
    if a.kind == DECISION:
        assert a.strategy is not None and a.frequencies is not None
        actor = a.players[a.player]
        c = st.columns([3, 2])
        with c[0]:
            if game.is_holdem:
                study_views.decision_grid(game, a)
            else:
                st.dataframe(
                    card_table(game, a.node, a.strategy, actor.reach),
                    hide_index=True,
                    key="explore_cards",
                )
        with c[1]:
            st.markdown("**Aggregate action frequencies**", help=FREQ_HELP)
            st.plotly_chart(_freq_figure(game, a), key="explore_freq", width="stretch")
            if is_preflop(game):
                st.caption(f"Pot at this node: {node_pot(game, a.node):g} bb")
            elif a.pot is not None:
                st.caption(f"Pot at this node: {a.pot:,.0f} chips")
    st.markdown("**Per-hand table**")
    _combo_table(game, a)
    if game.is_holdem:
        st.markdown("**Ranges reaching this node**")
        rc = st.columns(2)
        for p in range(2):
            v = a.players[p]
            combos = np.asarray(game.meta["combos"][p])  # type: ignore[index]
            w = np.zeros(1326)
            w[combos] = v.reach
            sums = np.bincount(COMBO_CELL, weights=w, minlength=169)
            sizes = np.bincount(COMBO_CELL, minlength=169)
            grid = (sums / sizes).reshape(13, 13)
            title = f"{player_name(game, p)}: {NF.combos_text(float(v.reach.sum()))}"
            rc[p].plotly_chart(
                range_grid_figure(grid, title=title, height=330),
                key=f"explore_range_{p}",
                width="stretch",
            )


FREQ_HELP = (
    "Each hand counts with its range weight times the acting player's own actions to this "
    "node, as Pio and GTO+ show a range's mix. Practice deals, and line reports count "
    "(docs/batch.md, 'The mix is as dealt'), each hand also by the opponent's hands it does not "
    "block, so their figures can differ by a point or so."
)


def _freq_figure(game: Game, a: NodeAnalysis) -> go.Figure:
    assert a.frequencies is not None
    labels = action_names(game, a.node)
    fig = go.Figure(
        go.Bar(
            x=[100 * f for f in a.frequencies],
            y=labels,
            orientation="h",
            marker_color=action_colors(a.actions),
            text=[f"{100 * f:.1f}%" for f in a.frequencies],
            textposition="auto",
        )
    )
    fig.update_layout(
        height=60 + 40 * len(labels),
        margin={"l": 10, "r": 10, "t": 10, "b": 30},
        xaxis={"range": [0, 100], "title": "% of the range"},
        yaxis={"autorange": "reversed"},
    )
    return fig


def table_frame(game: Game, a: NodeAnalysis, player: int) -> pd.DataFrame:
    """The per-hand table of one player: strategy (% per action, for the actor), EV (chips),
    equity (%), EQR, reach."""
    v = a.players[player]
    data: dict[str, object] = {"hand": [], "reach": [], "EV": [], "equity %": [], "EQR": []}
    actions = action_names(game, a.node) if player == a.player else []
    for label in actions:
        data[label] = []
    for h, name in enumerate(v.hand_names):
        if not v.valid[h] or v.reach[h] <= 0:
            continue
        data["hand"].append(name)  # type: ignore[attr-defined]
        data["reach"].append(float(v.reach[h]))  # type: ignore[attr-defined]
        data["EV"].append(float(v.ev[h]))  # type: ignore[attr-defined]
        data["equity %"].append(100 * float(v.equity[h]))  # type: ignore[attr-defined]
        data["EQR"].append(float(v.eqr[h]))  # type: ignore[attr-defined]
        for i, label in enumerate(actions):
            assert a.strategy is not None
            data[label].append(100 * float(a.strategy[i, h]))  # type: ignore[attr-defined]
    df = pd.DataFrame(data)
    # (preflop: no board, so no equity or EQR at the node; EVs are the all-in runouts')
    return df.drop(columns=["equity %", "EQR"]) if is_preflop(game) else df


def _combo_table(game: Game, a: NodeAnalysis) -> None:
    default = a.player if a.player >= 0 else 0
    c = st.columns([1, 2])
    who = c[0].radio(
        "Player",
        [0, 1],
        index=default,
        format_func=lambda p: player_name(game, p),
        horizontal=True,
        key=f"table_player_{a.node}",
    )
    text = c[1].text_input(
        "Filter hands",
        key=state.COMBO_FILTER,
        placeholder=f"all hands — e.g. {EXAMPLES}" if game.is_holdem else "all cards — e.g. K",
        help="range syntax (KK, AK, AKs, T9s+, KQo-KTo, AsKs), the words suited, offsuit, "
        "pairs, and hand classes on the board (top pair, set, flush draw, gutshot…: "
        "docs/hand-classes.md), comma separated; cleared when you move to another node",
    )
    df = table_frame(game, a, int(who))
    try:
        keep = filter_rows(game, int(who), list(df["hand"]), str(text or ""), a.node)
    except FilterError as exc:
        st.error(str(exc), icon=":material/error:")
        keep = None
    if keep is not None:
        df = df[keep]
    st.dataframe(
        study_views.table_extras(game, a, int(who), df),
        hide_index=True,
        key="explore_table",
        column_config={
            "reach": st.column_config.NumberColumn(format=NF.REACH),
            **study_views.value_columns(game),
            **study_views.table_columns(game, a, int(who)),
        },
        height=320,
    )
    if is_preflop(game):
        st.caption(
            "EV in bb: the hand's net winnings (blinds and antes counted as lost by whoever "
            "posted them), zero-sum; each all-in runs out exactly over every board. "
            "`EV <action>`: the hand plays that action, then the strategy."
        )
        return
    st.caption(
        "EV in chips (hold'em: pot share minus chips put in after the subgame starts); "
        "equity vs the opponent's range reaching this node, over every runout; "
        "EQR = EV at the node / (equity × pot)."
    )


def filter_rows(
    game: Game, player: int, hands: list[str], text: str, node: int = 0
) -> np.ndarray | None:
    """Which of ``player``'s table rows (hand names) the filter ``text`` keeps at ``node`` (its
    board classes hands: "top pair"); None for no filter. Raises :class:`FilterError` on text
    it cannot read."""
    if game.is_holdem:
        combos = np.asarray(game.meta["combos"][player])  # type: ignore[index]
        names = game.hand_names[player]
        board = None if is_preflop(game) else board_cards(game, node)
        mask = hand_mask(text, combos, board)
        if mask is None:
            return None
        keep = {n for n, m in zip(names, mask, strict=True) if m}
        return np.array([h in keep for h in hands], dtype=bool)
    return card_mask(text, hands)


def _overview(game: Game, node: int, depth: int = OVERVIEW_DEPTH) -> str:
    lines: list[str] = []

    def walk(n: int, indent: int) -> None:
        label = "Start" if n == 0 else child_name(game, n)
        kind = int(game.tree.kind[n])
        children = list(game.children(n))
        extra = ""
        if kind == CHANCE:
            extra = f" ({len(children)} cards)"
        marker = ("▶ " if n == node else "") + locking.overview_mark(game, n)
        lines.append("  " * indent + f"{marker}{label} — {node_title(game, n)}{extra}")
        if indent >= depth or kind == CHANCE:
            return
        for c in children:
            walk(c, indent + 1)

    walk(node, 0)
    return "\n".join(lines)
