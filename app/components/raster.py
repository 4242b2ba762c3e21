"""Pictures for the live view: the exploitability curve (log y axis) and the 13×13 strategy
grid drawn into PNGs, to show while a solve runs. Pure functions: numbers in, PNG bytes out
(Pillow, which Streamlit already needs). The grid's pixels also fill the image trace of the
interactive grid (:func:`app.components.figures.strategy_grid_figure`).

Why not the interactive Plotly chart while solving: a Plotly redraw cost the browser about
100–200 ms of CPU per chart per second on a 2-core machine (layout and paint of every axis,
tick and trace, measured with Chromium's performance counters), which came straight out of
the solver's share of the cores. An image costs a decode and one paint. Once the solve is
paused or finished, the page shows the interactive charts (hover, zoom) instead.
"""

from __future__ import annotations

import base64
import functools
import io
import math
from collections.abc import Sequence

import numpy as np
import numpy.typing as npt
from PIL import Image, ImageDraw, ImageFont

from app.components.colors import EMPTY
from solver.poker.ranges import GRID_LABELS

Array = npt.NDArray[np.float64]
_CELL_COMBOS = np.array(
    [[6 if i == j else (4 if i < j else 12) for j in range(13)] for i in range(13)], dtype=float
)

SCALE = 2  # drawn at twice the size, then scaled down: smooth lines and text
RED = (212, 61, 51)
GREEN = (75, 179, 75)
GRID = (232, 232, 232)
AXIS = (120, 120, 120)
TEXT = (60, 60, 60)


@functools.cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    return ImageFont.load_default(size=size * SCALE)


def log_ticks(lo: float, hi: float) -> list[float]:
    """Tick values for a log axis over [lo, hi] (lo > 0): every decade, and 2 and 5 within
    each when the range spans less than three decades."""
    a, b = math.floor(math.log10(lo)), math.ceil(math.log10(hi))
    mants = (1.0, 2.0, 5.0) if math.log10(hi / lo) < 3 else (1.0,)
    out = [m * 10.0**k for k in range(a, b + 1) for m in mants]
    return [t for t in out if lo <= t <= hi]


def nice_ticks(lo: float, hi: float, count: int = 6) -> list[float]:
    """About ``count`` round tick values (steps of 1, 2 or 5 × 10^k) over [lo, hi]."""
    if hi <= lo:
        return [lo]
    raw = (hi - lo) / max(count - 1, 1)
    k = 10.0 ** math.floor(math.log10(raw))
    step = next(m * k for m in (1.0, 2.0, 5.0, 10.0) if m * k >= raw)
    first = math.ceil(lo / step) * step
    n = math.floor((hi - first) / step + 1e-9) + 1
    return [first + i * step for i in range(max(n, 0))]


def tick_text(v: float) -> str:
    """A tick label: ``0.003``, ``1e-05``, ``250``, ``12K``, ``3.5M``."""
    if v == 0:
        return "0"
    a = abs(v)
    if a >= 1e9:
        return f"{v / 1e9:g}B"
    if a >= 1e6:
        return f"{v / 1e6:g}M"
    if a >= 1e4:
        return f"{v / 1e3:g}K"
    return f"{v:g}"


def curve_png(
    xs: Sequence[float],
    ys: Sequence[float],
    x_title: str,
    y_title: str,
    target: float | None = None,
    width: int = 640,
    height: int = 330,
    markers: bool = True,
    log_y: bool = True,
) -> bytes:
    """A line chart of ``ys`` (> 0; a log axis unless ``log_y`` is False) against ``xs``
    (linear) as PNG bytes of ``width`` × ``height`` pixels, with a dashed target line when
    ``target`` > 0."""
    s = SCALE
    w, h = width * s, height * s
    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    left, right, top, bottom = 70 * s, 15 * s, 12 * s, 48 * s
    pw, ph = w - left - right, h - top - bottom
    pts = [(float(x), float(y)) for x, y in zip(xs, ys, strict=True) if y > 0]
    if not pts:
        d.text(
            (w // 2, h // 2), "waiting for the first check…", fill=TEXT, font=_font(12), anchor="mm"
        )
        return _png(img, width, height)
    ylo = min(p[1] for p in pts)
    yhi = max(p[1] for p in pts)
    if target is not None and target > 0:
        ylo, yhi = min(ylo, target), max(yhi, target)
    f = math.log10 if log_y else float
    lo, hi = f(ylo), f(yhi)
    pad = 0.05 if log_y else 0.05 * max(hi - lo, abs(hi) * 0.02, 1e-12)
    lo, hi = lo - pad, hi + pad
    if log_y and hi - lo < 0.3:
        lo, hi = lo - 0.15, hi + 0.15
    xlo, xhi = min(p[0] for p in pts), max(p[0] for p in pts)
    if xhi <= xlo:
        xhi = xlo + 1.0

    def px(x: float) -> float:
        return left + (x - xlo) / (xhi - xlo) * pw

    def py(y: float) -> float:
        return top + (hi - f(y)) / (hi - lo) * ph

    small = _font(11)
    yticks = log_ticks(10.0**lo, 10.0**hi) if log_y else nice_ticks(lo, hi, 5)
    for t in yticks:
        y = py(t)
        d.line([(left, y), (left + pw, y)], fill=GRID, width=s)
        d.text((left - 6 * s, y), tick_text(t), fill=TEXT, font=small, anchor="rm")
    for t in nice_ticks(xlo, xhi):
        x = px(t)
        d.line([(x, top), (x, top + ph)], fill=GRID, width=s)
        d.text((x, top + ph + 6 * s), tick_text(t), fill=TEXT, font=small, anchor="ma")
    d.rectangle([left, top, left + pw, top + ph], outline=AXIS, width=s)
    if target is not None and target > 0:
        y = py(target)
        x = float(left)
        while x < left + pw:
            d.line([(x, y), (min(x + 8 * s, left + pw), y)], fill=GREEN, width=2 * s)
            x += 14 * s
        d.text((left + pw - 4 * s, y - 3 * s), "target", fill=GREEN, font=small, anchor="rd")
    line = [(px(x), py(y)) for x, y in pts]
    if len(line) > 1:
        d.line(line, fill=RED, width=2 * s, joint="curve")
    if markers:
        r = 2.5 * s
        for x, y in line:
            d.ellipse([x - r, y - r, x + r, y + r], fill=RED)
    d.text((left + pw / 2, h - 6 * s), x_title, fill=TEXT, font=_font(12), anchor="md")
    label = Image.new("RGB", (ph, 18 * s), "white")
    ImageDraw.Draw(label).text((ph / 2, 9 * s), y_title, fill=TEXT, font=_font(12), anchor="mm")
    img.paste(label.rotate(90, expand=True), (4 * s, top))
    return _png(img, width, height)


def _png(img: Image.Image, width: int, height: int) -> bytes:
    """PNG bytes of the drawing (made at :data:`SCALE` × the size, for smooth lines and
    text) scaled to ``width`` × ``height``: the pixels the page shows, so no one resizes it
    again and encoding stays cheap (a few ms)."""
    buf = io.BytesIO()
    img.resize((width, height), Image.Resampling.BOX).save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


GRID_CELL_PX = 36
"""Pixels per cell side of the grid image (13 cells: 468 × 468)."""
_MIN_BAR = 0.12  # the lowest bar drawn for a class that reaches (share of the cell height)


def cell_bars(mix: Array, weight: Array) -> list[tuple[int, int, float, list[float]]]:
    """Per reached cell (row, column, bar height as a share of the cell, action widths as
    shares of the cell): what both grid renderings draw. Height = the share of the class's
    combos that reach (at least 0.12, so a trickle stays visible)."""
    out = []
    for i in range(13):
        for j in range(13):
            cell = mix[i, j]
            if not np.all(np.isfinite(cell)) or weight[i, j] <= 0:
                continue
            h = max(min(1.0, weight[i, j] / _CELL_COMBOS[i, j]), _MIN_BAR)
            out.append((i, j, float(h), [float(f) if f > 1e-4 else 0.0 for f in cell]))
    return out


def _rgb(color: str) -> tuple[int, int, int]:
    c = color.lstrip("#")
    return int(c[0:2], 16), int(c[2:4], 16), int(c[4:6], 16)


def grid_pixels(
    mix: Array, weight: Array, colors: list[str], cell: int = GRID_CELL_PX, labels: bool = True
) -> npt.NDArray[np.uint8]:
    """The grid's cells as an RGB array, 13 × ``cell`` pixels a side: a grey cell per class
    with a white gap, the action bars from its bottom (see :func:`cell_bars`), the class
    label near the top unless ``labels`` is False (a chart that writes them as text)."""
    c = cell
    g = max(1, c // 36)  # the white gap around a cell
    px = _empty_grid(c).copy()
    rgb = [np.array(_rgb(col), dtype=np.uint8) for col in colors]
    for i, j, h, widths in cell_bars(mix, weight):
        top = (i + 1) * c - g - round(h * (c - 2 * g))
        x = float(j * c + g)
        for a, w in enumerate(widths):
            if w <= 0:
                continue
            x1 = x + w * (c - 2 * g)
            px[top : (i + 1) * c - g, round(x) : round(x1)] = rgb[a]
            x = x1
    if labels:
        rows, cols, alpha = _label_ink(c)  # the labels, drawn once per size
        under = px[rows, cols].astype(np.float32)
        px[rows, cols] = (under * (1.0 - alpha) + 17.0 * alpha).astype(np.uint8)
    return px


@functools.cache
def _empty_grid(c: int) -> npt.NDArray[np.uint8]:
    """White, with a grey square per class (``c``-pixel cells; read-only: copy it)."""
    g = max(1, c // 36)
    px = np.full((13 * c, 13 * c, 3), 255, dtype=np.uint8)
    empty = np.array(_rgb(EMPTY), dtype=np.uint8)
    for i in range(13):
        for j in range(13):
            px[i * c + g : (i + 1) * c - g, j * c + g : (j + 1) * c - g] = empty
    px.flags.writeable = False
    return px


def grid_png(mix: Array, weight: Array, colors: list[str], labels: bool = True) -> str:
    """:func:`grid_pixels` as a PNG data URI (``data:image/png;base64,…``)."""
    buf = io.BytesIO()
    px = grid_pixels(mix, weight, colors, labels=labels)
    Image.fromarray(px).save(buf, format="PNG", compress_level=1)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def grid_picture(
    mix: Array, weight: Array, colors: list[str], names: list[str], width: int = 420
) -> bytes:
    """The grid with its legend (a colour square and a name per action, wrapped onto as
    many rows as needed) under it, as PNG bytes about ``width`` pixels across: the live
    view's strategy picture."""
    s = 1
    cells = Image.fromarray(grid_pixels(mix, weight, colors, cell=round(width / 13)))
    w = cells.width
    font = ImageFont.load_default(size=12)
    items: list[tuple[int, int, str, tuple[int, int, int]]] = []
    x, row = 4 * s, 0
    for name, col in zip(names, colors, strict=True):
        size = int(16 * s + font.getlength(name) + 18 * s)
        if x + size > w and x > 4 * s:
            x, row = 4 * s, row + 1
        items.append((x, row, name, _rgb(col)))
        x += size
    img = Image.new("RGB", (w, cells.height + (8 + 20 * (row + 1)) * s), "white")
    img.paste(cells, (0, 0))
    d = ImageDraw.Draw(img)
    for x, r, name, rgb in items:
        y = cells.height + (8 + 20 * r) * s
        d.rectangle([x, y + 2 * s, x + 11 * s, y + 13 * s], fill=rgb)
        d.text((x + 16 * s, y + 8 * s), name, fill=TEXT, font=font, anchor="lm")
    buf = io.BytesIO()
    img.save(buf, format="PNG", compress_level=1)
    return buf.getvalue()


@functools.cache
def _label_ink(
    c: int,
) -> tuple[npt.NDArray[np.intp], npt.NDArray[np.intp], npt.NDArray[np.float32]]:
    """Where the 169 class labels cover ``c``-pixel cells (each centred 36 % down its cell):
    rows, columns and coverage in (0, 1], shaped (n, 1) for blending RGB."""
    mask = Image.new("L", (13 * c, 13 * c), 0)
    draw = ImageDraw.Draw(mask)
    font = ImageFont.load_default(size=max(8, round(11 * c / 36)))
    for i in range(13):
        for j in range(13):
            pos = ((j + 0.5) * c, i * c + 0.36 * c)
            draw.text(pos, GRID_LABELS[i][j], fill=255, font=font, anchor="mm")
    ink = np.asarray(mask, dtype=np.float32) / 255.0
    rows, cols = np.nonzero(ink > 0)
    return rows, cols, ink[rows, cols][:, None]
