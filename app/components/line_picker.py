"""The Reports page's line picker: a line of a batch's trees (:mod:`solver.batch.lines`: the
actions from the flop root in the API's codes, a street's card named or ``any``) walked as
Explore walks a tree — a breadcrumb back to any step, a button per action the flops' trees
offer next, a card picker ("any" or a card) where a card is dealt — and the line in words.

The trees of a batch are summaries, not games: a step's words come from the codes and the
batch's starting pot and stack alone (:func:`step_states`), as
:func:`solver.study.words.line_words` says them on a game ("OOP check → IP bet 33 % (33) →
OOP call · turn any"). Data in, widgets out: the picked line lives in the page's session
keys, and the buttons call the page's callbacks."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from app.components.colors import action_colors
from solver.study.words import ARROW, DOT, HOLDEM_PLAYERS, card_text, label_name

STREET_OF_CARD = ("turn", "river")  # the first and second card step of a flop line


@dataclass(frozen=True)
class StepState:
    """Where a line stands before one of its steps: the pot (chips), what each player has
    put in since the flop (chips) and before this street (``base``, chips), who acts (0
    OOP, 1 IP; -1 before a card) and the street's name."""

    pot: float
    put_in: tuple[float, float]
    base: float
    actor: int
    street: str


def step_states(steps: Sequence[str], pot: float) -> list[StepState]:
    """The state before each step and after the last (``len(steps) + 1`` states) of a flop
    line from its codes and the starting ``pot`` (chips): ``b:S``/``r:S`` is the street
    commitment S, ``c`` matches, a card starts a street (OOP acts first on each), as
    :func:`solver.study.analysis.chips_in` reads a game's line."""
    base = 0.0
    bets = [0.0, 0.0]
    actor = 0
    cards = 0
    out = []
    for step in [*steps, None]:
        street = "flop" if cards == 0 else STREET_OF_CARD[min(cards, 2) - 1]
        put = (base + bets[0], base + bets[1])
        is_card = step is not None and (step == "any" or step.startswith("d:"))
        out.append(StepState(pot + put[0] + put[1], put, base, -1 if is_card else actor, street))
        if step is None:
            break
        if is_card:
            base += max(bets)
            bets = [0.0, 0.0]
            actor = 0
            cards += 1
            continue
        if step.startswith(("b:", "r:")):
            with contextlib.suppress(ValueError):
                bets[actor] = float(step[2:])
        elif step == "c":
            bets[actor] = bets[1 - actor]
        actor = 1 - actor
    return out


def action_name(label: str, before: StepState, stack: float) -> str:
    """An action code's name at a state (:func:`solver.study.words.label_name`): a bet's %
    of the pot before it, and ``All-in`` when it puts the player's whole stack in."""
    all_in = False
    if label.startswith(("b:", "r:")):
        try:
            all_in = before.base + float(label[2:]) >= stack - 1e-9
        except ValueError:
            all_in = False
    return label_name(label, before.pot, all_in)


def card_step_text(step: str, street: str) -> str:
    """A card step in words, as Explore says a dealt card: ``turn any``, ``river Kh``."""
    return f"{street} {'any' if step == 'any' else step[2:]}"


def step_name(steps: Sequence[str], i: int, pot: float, stack: float) -> str:
    """Step ``i``'s short name (a breadcrumb's): ``Bet 33 % (33)``, ``turn any``."""
    before = step_states(steps, pot)[i]
    step = steps[i]
    if step == "any" or step.startswith("d:"):
        return card_step_text(step, _card_street(steps, i))
    return action_name(step, before, stack)


def _card_street(steps: Sequence[str], i: int) -> str:
    n = sum(1 for s in steps[:i] if s == "any" or s.startswith("d:"))
    return STREET_OF_CARD[min(n, 1)]


def line_text(
    steps: Sequence[str], pot: float, stack: float, players: tuple[str, str] = HOLDEM_PLAYERS
) -> str:
    """The line in words, as Explore says a line: ``OOP check → IP bet 33 % (33) → OOP call ·
    turn any`` (``Flop`` at the root)."""
    states = step_states(steps, pot)
    out = ""
    for i, step in enumerate(steps):
        if step == "any" or step.startswith("d:"):
            out += (DOT if out else "") + card_step_text(step, _card_street(steps, i))
            continue
        said = action_name(step, states[i], stack)
        who = players[states[i].actor]
        out += (ARROW if out else "") + f"{who} {said[0].lower()}{said[1:]}"
    return out or "Flop"


def street_of_last_any(steps: Sequence[str]) -> int | None:
    """The street (1 turn, 2 river) of the line's last ``any`` step, None without one."""
    street = None
    n = 0
    for s in steps:
        if s == "any" or s.startswith("d:"):
            n += 1
            if s == "any":
                street = n
    return street


def counted_on(text: str, n: int, flops: int) -> str:
    """``text`` with how many of the ``flops`` having the line reach it, when not all do:
    ``"Bet 100 · reached on 1 of 5 flops"``."""
    if n >= flops:
        return text
    return f"{text} · reached on {n:,} of {flops:,} flop{'' if flops == 1 else 's'}"


def picker(
    steps: Sequence[str],
    offered: dict[str, Any],
    pot: float,
    stack: float,
    flops: int,
    on_back: Callable[[int], None],
    on_action: Callable[[str], None],
    card_key: str,
    on_card: Callable[[], None],
    players: tuple[str, str] = HOLDEM_PLAYERS,
) -> None:
    """The picker at ``steps``: a breadcrumb (``on_back(i)`` keeps the first ``i`` steps), a
    button per action ``offered`` (``on_action(code)``) or the card selectbox ``card_key``
    ("any" or a card; ``on_card`` reads it), each with how many of the ``flops`` having the
    line offer it when not all do. ``offered``: :func:`solver.batch.linereport.merge_next`."""
    crumbs = st.container(horizontal=True, key="reports_line_crumbs")
    crumbs.button(
        "Flop", key="reports_crumb_0", on_click=on_back, args=(0,), disabled=not steps,
        type="tertiary" if steps else "secondary",
    )  # fmt: skip
    for i in range(len(steps)):
        last = i == len(steps) - 1
        crumbs.button(
            step_name(steps, i, pot, stack), key=f"reports_crumb_{i + 1}", on_click=on_back,
            args=(i + 1,), disabled=last, type="secondary" if last else "tertiary",
        )  # fmt: skip
    st.markdown(f"**Line:** {line_text(steps, pot, stack, players)}")
    actions: dict[str, int] = offered.get("actions") or {}
    cards: dict[str, int] = offered.get("cards") or {}
    state = step_states(steps, pot)[-1]

    if actions:
        who = players[offered.get("player", state.actor)] if offered.get("player", -1) >= 0 else ""
        st.caption(f"{who} to act: pick an action to follow the line." if who else "")
        row = st.container(horizontal=True, key="reports_line_actions")
        colors = action_colors(list(actions))
        for i, (a, n) in enumerate(actions.items()):
            st.html(
                f"<style>.st-key-reports_next_{i} button "
                f"{{border-left: 6px solid {colors[i]};}}</style>"
            )
            row.button(
                counted_on(action_name(a, state, stack), n, flops), key=f"reports_next_{i}",
                on_click=on_action, args=(a,),
            )  # fmt: skip
    elif cards:
        street = _card_street([*steps, "any"], len(steps))
        options = ["any", *cards]
        st.selectbox(
            f"{street.capitalize()} card",
            options,
            index=None,
            key=card_key,
            placeholder="pick a card, or any (every card, each as often as it comes)",
            format_func=lambda c: (
                f"any {street} card"
                if c == "any"
                else counted_on(card_text(str(c)), cards.get(str(c), flops), flops)
            ),
            on_change=on_card,
        )
    else:
        st.caption(
            "Nothing is kept below this line: the hand ends after each action here (a fold, "
            "a called all-in), or what follows is too rare for the batch's summaries (under "
            "1 % of the deals)."
        )
