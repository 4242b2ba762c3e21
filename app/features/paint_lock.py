"""The "Paint the grid" lock mode of Explore (hold'em): pick an action and paint cells of the
13×13 grid with it — a click paints the cell under it, a drag every cell the pointer passes
over (:mod:`app.components.paint_canvas`) — to lock every combo of those cells to that
action, the way Pio and GTO Wizard paint a lock. The brush paints one
cell as drawn (AKs and AKo apart) or both halves of a rank pair at once (AKs with AKo);
"Leave free" unpaints. The node's grid after the paint shows before Lock; the lock records
``{cell: {action: 1}}`` for the painted cells and leaves the node's other hands free (single
combos: the Picked hands mode). Nothing here solves: the numbers are the current solve's."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np
import numpy.typing as npt
import streamlit as st

from app import state
from app.components.colors import EMPTY, action_colors
from app.components.paint_canvas import Cell, paint_canvas, stroke_of
from app.components.views import grid_figure
from solver.games.model import Game
from solver.poker.ranges import GRID_LABELS
from solver.study.analysis import NodeAnalysis, cell_of_hands

Array = npt.NDArray[np.float64]
MODE = "Paint the grid"
ACTION = state.LOCK_PREFIX + "paint_action"  # selectbox: action index, or FREE
BRUSH = state.LOCK_PREFIX + "paint_brush"  # radio: CELL or BOTH
CANVAS = state.LOCK_PREFIX + "paint_grid"  # the paint canvas (its stroke)
PAINTED = state.LOCK_PREFIX + "painted"  # (game name, node count, node, {cell: action label})
FREE = -1  # the "Leave free" brush: unpaints
CELL = "One cell (AKs, AKo apart)"
BOTH = "Suited and offsuit together (AK)"
LABELS = [label for row in GRID_LABELS for label in row]  # cell k = (k // 13, k % 13)


def mirror(label: str) -> str | None:
    """The other half of a rank pair's cells: ``AKs`` ↔ ``AKo``; None for a pair."""
    if label.endswith("s"):
        return label[:-1] + "o"
    if label.endswith("o"):
        return label[:-1] + "s"
    return None


def paint(
    painted: Mapping[str, str],
    cells: Iterable[str],
    action: str | None,
    together: bool,
    allowed: set[str],
) -> dict[str, str]:
    """``painted`` (cell label → action label) with ``cells`` painted ``action`` (None:
    unpainted). ``together`` paints each cell's other half too (AKs with AKo). Cells outside
    ``allowed`` (no combo of the acting player reaches the node) are skipped: a lock on them
    would only be refused. The input is not changed."""
    out = dict(painted)
    for label in cells:
        twin = mirror(label) if together else None
        for cell in (label, twin):
            if cell is None or cell not in allowed:
                continue
            if action is None:
                out.pop(cell, None)
            else:
                out[cell] = action
    return out


def painted_strategy(
    strategy: Array, cells: npt.NDArray[np.int64], painted: Mapping[str, str], actions: list[str]
) -> Array:
    """(num_actions, H) ``strategy`` with every hand of a painted cell playing its cell's
    action with probability 1 (``cells``: (H,) each hand's grid cell 0..168; ``actions``: the
    node's action labels in row order). The input is not changed."""
    out = np.array(strategy, dtype=np.float64, copy=True)
    for label, action in painted.items():
        hands = cells == LABELS.index(label)
        out[:, hands] = 0.0
        out[actions.index(action), hands] = 1.0
    return out


def reached_cells(game: Game, a: NodeAnalysis) -> set[str]:
    """The grid cells holding a hand the acting player brings to the node."""
    assert a.actor is not None
    cells = cell_of_hands(game, a.player)[a.actor.reach > 0]
    return {LABELS[int(c)] for c in np.unique(cells)}


def current(game: Game, node: int) -> dict[str, str]:
    """The cells painted at ``node`` of ``game`` (empty after a move to another node)."""
    held = state.get(PAINTED)
    if isinstance(held, tuple) and held[:3] == (game.name, game.num_nodes, node):
        return dict(held[3])
    return {}


def _store(game: Game, node: int, painted: Mapping[str, str]) -> None:
    state.put(PAINTED, (game.name, game.num_nodes, node, dict(painted)))


def clear(game: Game, node: int) -> None:
    _store(game, node, {})


def canvas_cells(painted: Mapping[str, str], actions: list[str], allowed: set[str]) -> list[Cell]:
    """The paint canvas's 169 cells (cell ``k`` is ``LABELS[k]``): each painted cell in its
    action's colour (state ``painted``), free cells in the grid's pair/suited/offsuit tints
    (``free``), cells with no combo at the node greyed (``none``)."""
    colors = dict(zip(actions, action_colors(actions), strict=True))
    out = []
    for k, label in enumerate(LABELS):
        i, j = divmod(k, 13)
        text = "#222" if label in allowed else "#999"
        if label in painted:
            out.append(Cell(colors[painted[label]], "#fff", f"{label}: painted", "painted"))
        elif label in allowed:
            tint = "#fbe3c4" if i == j else ("#dbe9f7" if i < j else "#f4f4f4")
            out.append(Cell(tint, text, f"{label}: free", "free"))
        else:
            out.append(Cell(EMPTY, text, f"{label}: no combo here", "none"))
    return out


def fields(game: Game, a: NodeAnalysis, names: list[str]) -> None:
    """The brush (action, one cell or both halves), the canvas, and the node's grid after the
    paint."""
    assert a.strategy is not None and a.actor is not None
    node = a.node
    actions = game.action_labels(node)
    options = [*range(len(names)), FREE]
    if state.get(ACTION) not in options:
        state.put(ACTION, len(names) - 1)
    c = st.columns([1, 2])
    c[0].selectbox(
        "Paint with",
        options,
        format_func=lambda i: "Leave free (unpaint)" if i == FREE else names[i],
        key=ACTION,
    )
    c[1].radio("Brush", [CELL, BOTH], key=BRUSH, horizontal=True)
    painted = current(game, node)
    allowed = reached_cells(game, a)
    left, right = st.columns(2)
    with left:
        paint_canvas(
            canvas_cells(painted, actions, allowed),
            key=CANVAS,
            on_stroke=lambda: _on_paint(game, a),
        )
        st.caption("Click a cell, or drag over cells: the cells the pointer passes over.")
        st.button(
            "Clear the paint", key=state.LOCK_PREFIX + "paint_clear", on_click=clear,
            args=(game, node), disabled=not painted,
        )  # fmt: skip
    with right:
        after = painted_strategy(a.strategy, cell_of_hands(game, a.player), painted, actions)
        n = len(painted)
        title = (
            f"After the paint: {n} cell{'s' if n != 1 else ''} locked" if n else "Nothing painted"
        )
        fig = grid_figure(game, node, after, a.actor.reach, pot=a.pot, title=title)
        st.plotly_chart(fig, key="lock_paint_result", width="stretch")


def _on_paint(game: Game, a: NodeAnalysis) -> None:
    """A stroke on the canvas ended: the cells under the click or drag take the brush."""
    cells = stroke_of(state.get(CANVAS))
    if not cells:
        return
    i = state.get(ACTION)
    labels = game.action_labels(a.node)
    action = labels[i] if isinstance(i, int) and 0 <= i < len(labels) else None
    together = state.get(BRUSH) == BOTH
    painted = paint(current(game, a.node), cells, action, together, reached_cells(game, a))
    _store(game, a.node, painted)
    state.put(state.LOCK_ERROR, None)  # (a "paint some cells first" is answered)


def lock_spec(game: Game, node: int, old: Any) -> tuple[dict[str, Any], str]:
    """The lock the paint asks for at ``node``: ``{cell: {action label: 1.0}}`` after the
    cells of an earlier per-hand lock there (painted cells win), or ({}, why not)."""
    painted = current(game, node)
    if not painted:
        return {}, "paint some cells first"
    keep = old if isinstance(old, dict) and all(isinstance(v, dict) for v in old.values()) else {}
    # (later entries win in a per-hand lock: painted cells go last)
    return {
        **{k: v for k, v in keep.items() if k not in painted},
        **{cell: {action: 1.0} for cell, action in painted.items()},
    }, ""
