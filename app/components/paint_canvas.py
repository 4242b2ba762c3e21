"""A 13×13 grid a brush paints: press on a cell and drag, and every cell the pointer passes
over is painted (a click paints the one cell under it); on release the stroke's cells go to
Python as one trigger value (``stroke``: the cells' labels in the order the brush met them).

Why not a Plotly chart's selection: with Streamlit's box or lasso drag on, a click selects
nothing (Streamlit turns Plotly's click selection off while a drag selects), and a nearly flat
drag becomes a band over whole columns (Plotly's horizontal selection); a brush has neither
problem. The component is a ``st.components.v2`` one (its HTML drawn in the page, no iframe):
data in (each cell's label, colours, tooltip, state), a stroke out; no session state here.

Each cell is a ``div`` with ``data-cell`` (its label) and ``data-state`` (what the caller
says: e.g. ``painted``, ``free``, ``none``), so a browser test reads the grid as a person
sees it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import streamlit as st

from solver.poker.ranges import GRID_LABELS

LABELS = [label for row in GRID_LABELS for label in row]  # cell k = (k // 13, k % 13)


@dataclass(frozen=True)
class Cell:
    """One cell as drawn: ``fill`` and ``text`` CSS colours, ``title`` its tooltip and
    ``state`` a word kept on the element (``data-state``)."""

    fill: str
    text: str
    title: str
    state: str


_CSS = """
.paint-grid {
  display: grid; grid-template-columns: repeat(13, 1fr); gap: 1px;
  width: 100%; max-width: var(--size); aspect-ratio: 1; user-select: none;
  touch-action: none; cursor: crosshair; font-family: sans-serif;
}
.paint-grid div {
  display: flex; align-items: center; justify-content: center; border-radius: 2px;
  font-size: 10px; font-weight: 600; overflow: hidden;
}
.paint-grid div.stroke { outline: 2px solid #222; outline-offset: -2px; }
"""

_JS = """
export default function (component) {
  const { data, parentElement, setTriggerValue } = component;
  parentElement.querySelector(".paint-grid")?.remove();
  const grid = document.createElement("div");
  grid.className = "paint-grid";
  grid.style.setProperty("--size", `${data.size}px`);
  const cells = data.cells.map((c) => {
    const el = document.createElement("div");
    el.textContent = c.label;
    el.title = c.title;
    el.dataset.cell = c.label;
    el.dataset.state = c.state;
    el.style.background = c.fill;
    el.style.color = c.text;
    grid.appendChild(el);
    return el;
  });
  parentElement.appendChild(grid);

  let stroke = null; // the labels met so far, in order
  let last = null; // the last pointer position in grid units
  const at = (e) => {
    const r = grid.getBoundingClientRect();
    return [(e.clientX - r.left) / (r.width / 13), (e.clientY - r.top) / (r.height / 13)];
  };
  const add = (x, y) => {
    const col = Math.floor(x), row = Math.floor(y);
    if (col < 0 || col > 12 || row < 0 || row > 12) return;
    const el = cells[row * 13 + col];
    if (!stroke.includes(el.dataset.cell)) {
      stroke.push(el.dataset.cell);
      el.classList.add("stroke");
    }
  };
  // every cell the segment from the last position crosses (steps of a tenth of a cell)
  const along = (p) => {
    const n = Math.max(1, Math.ceil(10 * Math.hypot(p[0] - last[0], p[1] - last[1])));
    for (let i = 1; i <= n; i++) {
      add(last[0] + ((p[0] - last[0]) * i) / n, last[1] + ((p[1] - last[1]) * i) / n);
    }
    last = p;
  };
  const down = (e) => {
    if (e.button !== 0) return;
    grid.setPointerCapture(e.pointerId);
    stroke = [];
    last = at(e);
    add(last[0], last[1]);
    e.preventDefault();
  };
  const move = (e) => {
    if (stroke !== null) along(at(e));
  };
  const up = (e) => {
    if (stroke === null) return;
    along(at(e));
    const done = stroke;
    stroke = null;
    if (done.length) setTriggerValue("stroke", done);
  };
  grid.addEventListener("pointerdown", down);
  grid.addEventListener("pointermove", move);
  grid.addEventListener("pointerup", up);
  grid.addEventListener("pointercancel", () => {
    stroke = null;
    cells.forEach((el) => el.classList.remove("stroke"));
  });
  return () => grid.remove();
}
"""

_canvas = st.components.v2.component("regret_lab.paint_canvas", css=_CSS, js=_JS)


def paint_canvas(
    cells: Sequence[Cell], key: str, on_stroke: Callable[[], None], size: int = 330
) -> None:
    """Draw the grid (``cells``: 169, in :data:`LABELS` order) at most ``size`` pixels wide;
    ``on_stroke`` runs when a stroke ends, before the page reruns (read it with
    :func:`stroke_of`)."""
    if len(cells) != 169:
        raise ValueError(f"need 169 cells, got {len(cells)}")
    data: dict[str, Any] = {
        "size": size,
        "cells": [{"label": lab, **asdict(c)} for lab, c in zip(LABELS, cells, strict=True)],
    }
    _canvas(key=key, data=data, on_stroke_change=on_stroke, height="content")


def stroke_of(value: object) -> list[str]:
    """The grid labels of the stroke in a canvas's widget value (what ``on_stroke`` finds
    under the canvas's key); [] when there is none or it is not one."""
    stroke = value.get("stroke") if isinstance(value, Mapping) else getattr(value, "stroke", None)
    if not isinstance(stroke, list):
        return []
    return [s for s in stroke if isinstance(s, str) and s in LABELS]
