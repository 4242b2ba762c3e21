"""The Practice page's parts: the hand at the table (spot header, the hero's cards), the
actions' button labels, a graded decision (mix, EVs, EV lost, grade) and a session's score.
Data in (a :class:`solver.study.trainer.Drill`, a :class:`~solver.study.trainer.Decision`, a
:class:`~solver.study.trainer.Score`), elements out: no session state, no solve."""

from __future__ import annotations

import html
from collections.abc import Sequence

import pandas as pd
import streamlit as st

from app.components.colors import CARD_SUIT_COLORS
from app.components.spot_header import amount, header_html
from solver.games.model import DECISION, Game
from solver.poker.handclass import DRAW_LABELS, DRAWS, MADE, MADE_LABELS
from solver.poker.ranges import GRID_LABELS
from solver.study.analysis import investments
from solver.study.trainer import GRADES, Decision, Drill, Score, pot_at
from solver.study.words import STREETS, SUITS, Spot, default_players, node_words

GRADE_COLORS = {
    "Best": "#1b8a3a",
    "Correct": "#4bb34b",
    "Inaccuracy": "#d9a400",
    "Wrong": "#e8685a",
    "Blunder": "#8a1414",
}
GRADE_ICONS = {
    "Best": ":material/star:",
    "Correct": ":material/check_circle:",
    "Inaccuracy": ":material/info:",
    "Wrong": ":material/cancel:",
    "Blunder": ":material/dangerous:",
}
OFF_TREE = "The solution never gets here with this hand"
OFF_TREE_WHY = (
    "an earlier action of yours is one it never takes with this hand, so it has no mix to "
    "follow here: graded by EV lost alone"
)
_CARD = (
    "display:inline-block;min-width:2.2em;padding:0.25em 0.45em;margin-right:0.25em;"
    "border-radius:0.35em;color:#fff;font-weight:700;font-size:1.3em;text-align:center;"
    "background:{bg}"
)


def class_options() -> list[str]:
    """The hand classes a hold'em session may be filtered by: made classes, then draws."""
    return [*MADE, *DRAWS]


def class_label(key: str) -> str:
    return MADE_LABELS.get(key) or DRAW_LABELS.get(key) or key


def cell_options(game: Game) -> list[str]:
    """The grid cells (hold'em: ``AA`` … ``32o``) or, in a toy game, the cards and ranks a
    session may be filtered by."""
    if game.is_holdem:
        return [lab for row in GRID_LABELS for lab in row]
    cards = sorted({n for p in (0, 1) for n in game.hand_names[p]}, key=str)
    ranks = sorted({n[0] for n in cards if len(n) > 1})
    return [*cards, *ranks]


def cards_html(cards: Sequence[str]) -> str:
    """Cards as four-colour tiles (``Td`` → a blue ``T♦``); toy cards without a suit grey."""
    out = []
    for c in cards:
        suit = c[-1] if len(c) >= 2 else ""
        bg = CARD_SUIT_COLORS.get(suit, "#666666")
        text = html.escape(c[:-1] + SUITS[suit] if suit in SUITS else c)
        out.append(f'<span class="practice-card" style="{_CARD.format(bg=bg)}">{text}</span>')
    return "".join(out)


def table_spot(drill: Drill) -> Spot:
    """The :class:`solver.study.words.Spot` of the hand at the table, with its real cards (a
    suit-isomorphic deal keeps the suits that were dealt)."""
    g = drill.game
    t = drill.table
    assert t is not None
    names = drill.players or default_players(g)
    board = drill.board(shown=True)
    status = "hand over" if t.over else node_words(g, t.node, names)
    to_act = names[int(g.tree.player[t.node])] if g.tree.kind[t.node] == DECISION else ""
    if not g.is_holdem:
        return Spot(board, None, None, None, names, to_act, "", drill.line(True), None, status)
    pot, inv0, inv1 = investments(g, t.node)
    behind = max(float(g.meta["stack"]) - max(inv0, inv1), 0.0)  # type: ignore[arg-type]
    spr = behind / pot if pot > 0 else None
    street = STREETS.get(len(board), "")
    line = drill.line(shown=True)
    return Spot(board, pot, behind, spr, names, to_act, street, line, g.big_blind, status)


def table_view(drill: Drill, hero_name: str) -> None:
    """The spot header and the hero's hole cards."""
    st.html(header_html(table_spot(drill)))
    st.html(
        f'<div class="practice-hero">{html.escape(hero_name)} (you): '
        f"{cards_html(drill.hole_cards(drill.player, shown=True))}</div>"
    )


def button_labels(drill: Drill, names: Sequence[str], labels: Sequence[str]) -> list[str]:
    """The actions' button texts: their names (``Bet 50 % (100)``, ``Raise to 300``,
    ``All-in 900``) with a raise's or all-in's chips as % of the pot before it."""
    t = drill.table
    assert t is not None
    pot = pot_at(drill.game, t.node)
    out = []
    for name, label in zip(names, labels, strict=True):
        if label.startswith(("b:", "r:")) and pot > 0 and "%" not in name:
            name += f" ({100 * float(label[2:]) / pot:.0f} % pot)"
        out.append(name)
    return out


def chips(x: float, big_blind: float | None) -> str:
    """Chips with two decimals, and bb when the game has a big blind."""
    text = f"{x:,.2f}"
    return text + (f" ({x / big_blind:,.2f} bb)" if big_blind else "")


def decision_frame(d: Decision, big_blind: float | None) -> pd.DataFrame:
    """One row per action: the solution's mix (%) for the hand (NaN off the solution's tree),
    its EV (chips, bb, % pot), EV lost against the best (chips) and marks for the chosen and
    the best action."""
    best = max(d.evs)
    rows = []
    for i, name in enumerate(d.names):
        row: dict[str, object] = {
            "action": name,
            "mix %": 100 * d.mix[i],
            "EV": d.evs[i],
        }
        if big_blind:
            row["EV (bb)"] = d.evs[i] / big_blind
        if d.pot > 0:
            row["EV % pot"] = 100 * d.evs[i] / d.pot
        row["EV lost"] = best - d.evs[i]
        row[""] = ("← you" if i == d.chosen else "") + (" ★ best" if i == d.best else "")
        if d.rng_pick is not None and i == d.rng_pick:
            row[""] = str(row[""]) + " 🎲 RNG"
        rows.append(row)
    return pd.DataFrame(rows)


def decision_view(d: Decision, big_blind: float | None) -> None:
    """A graded decision: the grade, EV lost (chips, bb, % pot) and the per-action table."""
    color = GRADE_COLORS[d.grade]
    pct = d.ev_lost_pct_pot
    lost = chips(d.ev_lost, big_blind) + (f", {pct:.2f} % pot" if d.pot > 0 else "")
    st.html(
        f'<div class="practice-grade" style="font-size:1.2em">'
        f'<span style="background:{color};color:#fff;padding:0.15em 0.6em;'
        f'border-radius:0.3em;font-weight:700">{d.grade}</span> '
        f"{html.escape(d.shown_hand)}: you played <b>{html.escape(d.names[d.chosen])}</b>"
        f" · EV lost <b>{html.escape(lost)}</b></div>"
    )
    cols = {
        "mix %": st.column_config.NumberColumn(format="%.1f"),
        "EV": st.column_config.NumberColumn("EV (chips)", format="%.2f"),
        "EV (bb)": st.column_config.NumberColumn(format="%.2f"),
        "EV % pot": st.column_config.NumberColumn(format="%.1f"),
        "EV lost": st.column_config.NumberColumn("EV lost (chips)", format="%.2f"),
    }
    st.dataframe(
        decision_frame(d, big_blind), hide_index=True, column_config=cols, key="practice_result"
    )
    if d.off_tree:
        st.warning(f"{OFF_TREE} ({d.shown_hand}): {OFF_TREE_WHY}.", icon=":material/alt_route:")
    st.caption(f"At: {d.line or 'start'} · pot {d.pot:,.2f} chips")


def score_view(s: Score) -> None:
    """The session's score: hands, decisions, EV lost (total, per hand, per decision in
    chips, bb and % pot) and the grades' counts."""
    c = st.columns(5)
    c[0].metric("Hands", s.hands)
    c[1].metric("Decisions", s.decisions)
    c[2].metric("EV lost", chips(s.ev_lost, s.big_blind), help="chips (bb)")
    c[3].metric("Per hand", chips(s.ev_lost_per_hand, s.big_blind), help="chips (bb)")
    c[4].metric(
        "Per decision",
        chips(s.ev_lost_per_decision, s.big_blind),
        help="chips (bb)",
    )
    st.caption(
        f"EV lost in % of the pot at each decision: {s.pct_pot:.2f} % in all, "
        f"{s.pct_pot_per_decision:.2f} % per decision."
    )
    g = st.columns(len(GRADES))
    for i, grade in enumerate(GRADES):
        g[i].metric(grade, s.grades[grade])


def solution_played(d: Decision) -> str:
    """How often the solution plays the chosen action with the hand (``12.5 %``), or that
    it never gets to the node with it."""
    if d.off_tree:
        return "never gets here"
    return f"{100 * d.mix[d.chosen]:.1f} %"


def worst_frame(worst: Sequence[Decision], big_blind: float | None) -> pd.DataFrame:
    """The worst decisions: hand number, line, hand, what was played, how often the
    solution plays it (or that it never gets there with the hand), the best action, the grade
    and EV lost (chips, % pot)."""
    return pd.DataFrame(
        {
            "hand #": [d.hand_no for d in worst],
            "line": [d.line or "start" for d in worst],
            "hand": [d.shown_hand for d in worst],
            "board": [" ".join(d.shown_board) for d in worst],
            "played": [d.names[d.chosen] for d in worst],
            "solution plays it": [solution_played(d) for d in worst],
            "best": [d.names[d.best] for d in worst],
            "grade": [d.grade for d in worst],
            "EV lost": [amount(round(d.ev_lost, 2), big_blind) for d in worst],
            "% pot": [d.ev_lost_pct_pot for d in worst],
        }
    )
