"""The spot header of Solve and Explore: the board as four-colour cards, pot, effective stack,
SPR, facing a bet the amount to call and the pot odds, the players' names, who acts and the
line so far in words (:class:`solver.study.words.Spot`);
a preflop game's: SB vs BB, blinds, ante, stack and pot in bb.
Data in, element out: it reads no session state and starts nothing."""

from __future__ import annotations

import html

import streamlit as st

from app.components.colors import CARD_SUIT_COLORS
from solver.study.words import SUITS, Spot

_CARD = (
    "display:inline-block;min-width:1.9em;padding:0.1em 0.35em;margin-right:0.2em;"
    "border-radius:0.3em;color:#fff;font-weight:700;text-align:center;background:{bg}"
)


def _card(card: str) -> str:
    suit = card[-1] if len(card) >= 2 else ""
    bg = CARD_SUIT_COLORS.get(suit, "#666666")
    text = html.escape(card[:-1] + SUITS[suit] if suit in SUITS else card)
    return f'<span class="spot-card" style="{_CARD.format(bg=bg)}">{text}</span>'


def amount(chips: float, big_blind: float | None) -> str:
    """Chips as the header says them: ``900`` or ``900 (90 bb)`` with a big blind; whole
    numbers without decimals, else one or two."""
    text = f"{chips:,.0f}" if abs(chips - round(chips)) < 1e-9 else f"{chips:,.2f}".rstrip("0")
    if big_blind:
        bb = chips / big_blind
        text += f" ({bb:,.0f} bb)" if abs(bb - round(bb)) < 0.05 else f" ({bb:,.1f} bb)"
    return text


def pot_odds(to_call: float, pot: float) -> float:
    """The share of the pot after a call that the call is (in [0, 1]): ``to_call`` chips
    added to a ``pot`` that already holds the bet faced. 66 to call into 166 → 0.284."""
    return to_call / (pot + to_call) if pot + to_call > 0 else float("nan")


def call_fact(spot: Spot) -> str:
    """``To call 66 · pot odds 28.4 %`` (HTML) when the player to act faces a bet, else ""."""
    if spot.to_call is None or spot.pot is None:
        return ""
    owe = _bb(spot.to_call) if spot.blinds is not None else amount(spot.to_call, spot.big_blind)
    odds = 100 * pot_odds(spot.to_call, spot.pot)
    return f"To call <b>{owe}</b> · pot odds <b>{odds:.1f} %</b>"


def _bb(x: float) -> str:
    return f"{x:,.2f}".rstrip("0").rstrip(".") + " bb"


def _preflop_facts(spot: Spot) -> list[str]:
    """Blinds, ante, stack and pot of a preflop spot, in bb."""
    assert spot.blinds is not None
    sb, bb = spot.blinds
    facts = [f"Blinds <b>{_bb(sb).removesuffix(' bb')}/{_bb(bb)}</b>"]
    if spot.ante:
        facts.append(f"Ante <b>{_bb(spot.ante)}</b>")
    if spot.starting_stack is not None:
        facts.append(f"Stack <b>{_bb(spot.starting_stack)}</b>")
    if spot.pot is not None:
        facts.append(f"Pot <b>{_bb(spot.pot)}</b>")
    return facts


def header_html(spot: Spot, compact: bool = False) -> str:
    """The header as HTML: a first row with the board and the numbers, a second with the
    line so far (or the start of the street) and what happens now ("BB to act");
    ``compact``: one row (Solve, where the line is always the start)."""
    board = "".join(_card(c) for c in spot.board) or "<i>no board card yet</i>"
    facts = [f"<b>{html.escape(spot.players[0])}</b> vs <b>{html.escape(spot.players[1])}</b>"]
    if spot.blinds is not None:
        board = "<b>Preflop</b>"
        facts += _preflop_facts(spot)
    elif spot.pot is not None:
        facts.append(f"Pot <b>{amount(spot.pot, spot.big_blind)}</b>")
    if spot.stack is not None and spot.blinds is None:
        facts.append(f"Effective stack <b>{amount(spot.stack, spot.big_blind)}</b>")
    if spot.spr is not None:
        facts.append(f"SPR <b>{spot.spr:.1f}</b>")
    if call := call_fact(spot):
        facts.append(call)
    start = f"start of the {spot.street}" if spot.street else "start of the hand"
    line = html.escape(spot.line) if spot.line else f"<i>{start}</i>"
    acts = f" — <b>{html.escape(spot.status)}</b>" if spot.status else ""
    said = f'<span class="spot-line">Line: {line}{acts}</span>'
    row = f'{board}<span style="margin-left:0.8em">{" · ".join(facts)}</span>'
    if compact:  # (at the start: the street is the board's, so who acts is all to say)
        first = f"{html.escape(spot.status)} first" if spot.status else ""
        tail = said if spot.line else f'<span class="spot-line"><b>{first}</b></span>'
        return f'<div class="spot-header" style="line-height:1.8">{row} · {tail}</div>'
    return (
        f'<div class="spot-header" style="line-height:1.8"><div>{row}</div><div>{said}</div></div>'
    )


def spot_header(spot: Spot, compact: bool = False) -> None:
    """Draw the header (:func:`header_html`)."""
    st.html(header_html(spot, compact))
