"""The "Shift the range" lock mode of Explore: pick an action and the frequency the whole range
should play it ("Bet 50 % (100) at 60 % instead of 35 %"); hands move in the order of the
solution's own preference (:mod:`solver.study.shift_lock`: highest EV gain of the action first), so
the range stays ranked. The grid after the shift shows before Lock; the lock is recorded as
each reaching hand's own mix. Nothing here solves: the numbers are the current solve's."""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt
import streamlit as st

from app import state
from app.components.fields import Number
from app.components.views import grid_figure
from app.features.number_fields import number_field, read
from solver.games.model import Game
from solver.study.analysis import NodeAnalysis, analyze
from solver.study.shift_lock import frequency, shift
from solver.study.views import action_evs
from solver.study.words import action_names

Array = npt.NDArray[np.float64]
MODE = "Shift the range"
ACTION = state.LOCK_PREFIX + "shift_action"  # selectbox: the action's index at the node
TARGET = state.LOCK_PREFIX + "shift_target"  # text: the frequency wanted, % of the range
FILLED = state.LOCK_PREFIX + "shift_filled"  # (game, node count, node, action, text filled)


def _target_field(name: str) -> Number:
    return Number(f"{name}: % of the range", 0.0, 100.0)


def shifted(a: NodeAnalysis, evs: Array, action: int, target: float) -> Array:
    """(num_actions, H[actor]) the node's strategy with ``action`` at ``target`` (fraction of
    the reaching range), shifted by EV gain (``evs``: :func:`solver.study.views.action_evs`)."""
    assert a.strategy is not None and a.actor is not None
    gain = evs[action] - a.actor.ev
    return shift(a.strategy, a.actor.reach, gain, action, target)


def fields(game: Game, a: NodeAnalysis, names: list[str], evs: Array | None) -> bool:
    """The action and target fields and the grid after the shift; True while the target
    field does not hold a percentage (Lock waits)."""
    assert a.strategy is not None and a.actor is not None
    if state.get(ACTION) not in range(len(names)):
        state.put(ACTION, len(names) - 1)
    c = st.columns([2, 1])
    i = int(
        c[0].selectbox("Action", list(range(len(names))), format_func=names.__getitem__, key=ACTION)
    )
    now = 100 * frequency(a.strategy, a.actor.reach, i)
    _prefill(game, a.node, i, f"{now:.1f}")
    spec = _target_field(names[i])
    value, error = number_field(
        spec, TARGET, container=c[1], help=f"now {now:.1f} % of the range plays {names[i]}"
    )
    if error or value is None or evs is None:
        return bool(error)
    after = shifted(a, evs, i, value / 100.0)
    title = f"After the shift: {names[i]} {value:g} % instead of {now:.1f} %"
    if game.is_holdem:
        fig = grid_figure(game, a.node, after, a.actor.reach, pot=a.pot, title=title)
        st.plotly_chart(fig, key="lock_shift_grid", width="stretch")
    else:
        st.caption(title)
    return False


def _prefill(game: Game, node: int, action: int, now: str) -> None:
    """Fill the target field with ``now`` (the chosen action's own frequency at the node)
    unless the player typed a value for this very action and node: another action, another
    node or another game fills it afresh (it kept the last one's number), and so does a solve
    that moved on while the field still held the number filled before."""
    spot = (game.name, game.num_nodes, node, action)
    held = state.get(FILLED)
    text = state.get(TARGET)
    same = isinstance(held, tuple) and len(held) == 5 and held[:4] == spot
    if not same or text is None or (isinstance(held, tuple) and text == held[4]):
        state.put(TARGET, now)
    state.put(FILLED, (*spot, now))


def lock_spec(game: Game, solved_average: Array, node: int) -> tuple[dict[str, Any], str]:
    """The shift lock the fields ask for at ``node`` under the current solve: ``{hand:
    {action label: probability}}`` for every hand that reaches, or ({}, the field's
    message)."""
    i = state.get(ACTION)
    labels = game.action_labels(node)
    if not isinstance(i, int) or not 0 <= i < len(labels):
        return {}, "pick an action to shift"
    value, error = read(_target_field(action_names(game, node)[i]), TARGET)
    if error or value is None:
        return {}, error or "enter a percentage"
    a = analyze(game, solved_average, node, with_equity=False)
    assert a.actor is not None
    after = shifted(a, action_evs(game, solved_average, node), i, value / 100.0)
    names = a.actor.hand_names
    return {
        names[h]: {lab: float(after[k, h]) for k, lab in enumerate(labels) if after[k, h] > 0}
        for h in np.flatnonzero(a.actor.reach > 0)
    }, ""
