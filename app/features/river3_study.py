"""Explore on a three-way river or turn solve (docs/multiway.md): pick a player and one of its
nodes (its line in words: "P1 checks, P2 bets 30 (50 %)"; on a turn spot first the street —
the turn, or a river card, as the heads-up Explore picks a chance node's card — then the
lines of that street: "… / river Qh / P1 checks"), see that player's average strategy as the
13×13 grid (each class's reach-weighted mix, as the heads-up Explore draws it; combos holding
the river card shown as blocked) and per combo, and the node's reach per player. Reads the
average profile of the session's :class:`~solver.run.multi_job.MultiSolveJob`, copied
between two chunks while it runs."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt
import streamlit as st

from app import state
from app.components import river3_figures as R
from app.components.multi_figures import player_label
from app.features import river3_form
from solver.cfr.river3_view import River3Game, line_words
from solver.run.multi_job import MultiSolveJob

Array = npt.NDArray[np.float64]
RIVER_CARD = "r3_river_card"  # selectbox (Explore, a turn spot): 0 the turn, k + 1 river card k


def select_node(nodes: list[int], words: Callable[[int], str]) -> int:
    """The node picker (its choice kept under ``state.MULTI_NODE``): ``nodes`` in order, each
    shown as ``words(n)``; the first when the one kept is not among them."""
    if state.get(state.MULTI_NODE) not in nodes:
        state.put(state.MULTI_NODE, nodes[0])
    return int(
        st.selectbox("Node (the line to it)", nodes, format_func=words, key=state.MULTI_NODE)
    )


def reach_text(share: float) -> str:
    """A reach share (0..1) in %: one decimal, more for a small one ("0.042 %"), never a
    bare "0.0 %" for a line some hands still play."""
    pct = 100.0 * share
    if pct == 0.0 or pct >= 1.0:
        return f"{pct:.1f} %"
    return f"{pct:.2g} %"


def render(j: MultiSolveJob, sigma: Array, iteration: int) -> None:
    """The river spot's Explore body under the page's title."""
    g = j.mgame
    assert isinstance(g, River3Game)
    running = not j.progress.finished
    spec = g.spec
    street = "turn" if g.is_turn else "river"
    st.caption(
        f"Three-way {street} · board {g.board_text} · pot {g.pot:g} · stack {spec.stack:g} · "
        f"average profile of iteration {iteration:,}"
        + (" (the solve is still running; this view updates when you act)" if running else "")
    )
    if river3_form.read().spec != spec:
        st.info(
            "Set up now holds another three-way spot: this is the one solved last. Solve again "
            "to explore Set up's.",
            icon=":material/info:",
        )
    players = [0, 1, 2]
    if state.get(state.MULTI_PLAYER) not in players:
        state.put(state.MULTI_PLAYER, 0)
    player = int(
        st.radio(
            "Player",
            players,
            format_func=lambda p: f"{player_label(p).capitalize()} ({R.POSITIONS[p]})",
            key=state.MULTI_PLAYER,
            horizontal=True,
        )
    )
    decisions = g.decision_nodes()
    mine = decisions[g.player[decisions] == player]
    if g.is_turn and mine.size:
        mine = mine[_board_pick(g, mine) == g.boards[mine]]
    nodes = [int(n) for n in mine]
    if not nodes:  # (this player never acts on that street: all in, or folded before)
        st.info(f"{player_label(player).capitalize()} has no decision on this street.")
        return
    node = select_node(nodes, lambda n: line_words(g, n))
    st.markdown(
        f"**{player_label(player).capitalize()}** to act after: {line_words(g, node)} — "
        "average strategy per hand class (cell width: each action's share; height: the "
        "class's share that plays this line)"
    )
    reach = st.columns(3)
    for col, (who, share) in zip(reach, R.reach_lines(g, sigma, node), strict=True):
        col.metric(f"{who} reach", reach_text(share))
    st.caption(
        "Reach: the share of each player's range (by weight) whose own actions lead here "
        "(below a river card, of the combos not holding it; card removal against the others "
        "not counted)."
    )
    blocked = R.blocked_text(g, node)
    if blocked:
        st.caption(blocked)
    st.plotly_chart(R.grid(g, sigma, node), key="river3_grid", config={"displayModeBar": False})
    st.markdown("**Per combo** (reach and action frequencies in %)")
    st.dataframe(R.combo_table(g, sigma, node), hide_index=True, key="river3_table")
    last = j.progress.last
    if last is not None:
        d = last.nash_distance[player]
        st.caption(
            f"{player_label(player).capitalize()}'s Nash distance at the last check "
            f"(iteration {last.iteration:,}): {d:.3g} chips ({100 * d / g.pot:.3g} % of the "
            "starting pot) — what it would gain by its best deviation, the others fixed "
            "(docs/multiway.md)."
        )


def _board_pick(g: River3Game, decisions: npt.NDArray[np.int64]) -> int:
    """A turn spot's street picker: the turn (0) or a river card (``k + 1``), offering only
    the streets where ``decisions`` (the player's nodes) has one. Returns the board."""
    have = sorted(set(g.boards[decisions].tolist()))
    cards = g.river_cards()

    def name(b: int) -> str:
        return "turn (before the river card)" if b == 0 else f"river {cards[b - 1]}"

    if state.get(RIVER_CARD) not in have:
        state.put(RIVER_CARD, have[0])
    return int(
        st.selectbox(
            "Street (the river card dealt)",
            have,
            format_func=name,
            key=RIVER_CARD,
            help="A turn spot deals each river card by chance: pick one to see the river's "
            "lines below it (a combo holding the card is not in a range there).",
        )
    )
