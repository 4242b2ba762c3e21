"""The Solve page's live view of a background solve: status, numbers, the exploitability (and
memory) curve and the watched node's strategy, drawn by a fragment about once a second.

What keeps watching cheap (a live view may cost at most a few percent of the solve's speed):

* the figures are rebuilt only when their numbers changed (a new check for the curves, a new
  copy of the watched node for the grid); otherwise the figure built last time is sent again;
* while the solve runs, the curve and the grid are pictures (:mod:`app.components.raster`):
  an interactive chart's redraw cost the browser 100–200 ms of CPU per chart each second; a
  picture costs a decode and a paint. Paused or finished, the interactive charts come back
  (hover, zoom). Curves draw at most :data:`LIVE_CURVE_POINTS` points, with markers only
  while few;
* a preflop game's chips are big blinds: its exploitability reads in bb/hand and mbb/hand (no
  pot to speak of in % pot), its curve in mbb/hand;
* the snapshot read here (:class:`solver.run.jobs.Progress`) carries the watched node's strategy
  and reach, copied by the job thread from that node's sums and its path's only.
"""

from __future__ import annotations

import base64
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

import plotly.graph_objects as go
import streamlit as st

from app import state
from app.components.fields import PERSIST, duration
from app.components.figures import (
    CURVE_X,
    byte_unit,
    curve_figure,
    human_bytes,
    memory_figure,
    point_x,
    thin,
)
from app.components.names import of as names_of
from app.components.names import player_name
from app.components.raster import curve_png
from app.components.views import card_table, grid_figure, grid_picture_of
from app.settings import PRUNING_LABELS, RBP
from solver.algorithms import ALGORITHMS
from solver.games.model import Game
from solver.run.jobs import PAUSED, RUNNING, Point, Progress, SolveJob, estimate_eta
from solver.study.words import is_preflop, line_words, node_pot

LIVE_CURVE_POINTS = 400
"""Most points a live curve draws (log-spaced over the history; the last is always kept)."""
MARKERS_UP_TO = 60
"""Curves with at most this many points get a marker per check; longer ones are lines."""
ONE_DAY_S = 86_400.0
CURVE_HEIGHT = 320  # px: curve and grid side by side, above the fold at 1440×900
GRID_HEIGHT = 420
GRID_WIDTH = 370  # px of the live grid picture (its legend under it)
CURVE_WIDTH = 480  # px of the live curve picture


def fmt_time(s: float | None) -> str:
    """Seconds as people read them: ``4.2 s``, ``3 min 5 s``, ``2.5 h``, ``> 1 day``; "—"
    for None (no estimate) or NaN."""
    if s is None or math.isnan(s):
        return "—"
    if s > ONE_DAY_S:
        return "> 1 day"
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(s % 60)} s"
    return f"{s / 3600:.1f} h"


def fmt_speed(p: Progress) -> str:
    """Iterations per second (``1,234 it/s``, ``11.7k it/s``), or seconds per iteration
    below one a second (``3.4 s/it``); "—" before the first chunk ends. Short: the metric's
    column is narrow at 1280 px."""
    spi = p.seconds_per_iteration
    if spi is None:
        return "—"
    if spi > 1.0:
        return f"{spi:,.1f} s/it"
    ips = p.iterations_per_s
    if ips >= 10_000:
        return f"{ips / 1000:,.1f}k it/s"
    return f"{ips:,.0f} it/s" if ips >= 10 else f"{ips:.1f} it/s"


def num(x: float | None, fmt: str) -> str:
    return "—" if x is None or not math.isfinite(x) else format(x, fmt)


def run_label(job: SolveJob) -> str:
    """The algorithm with its parameters, and its pruning and seed where it has a choice."""
    parts = [job.rule.label()]
    info = ALGORITHMS.get(job.rule.name)
    pruning = job.engine.pruning
    if info is not None and pruning and len(info.prunings) > 1:
        parts.append(f"{PRUNING_LABELS.get(pruning, pruning)} pruning")
    if info is not None and info.sampling:
        parts.append(f"seed {job.engine.seed}")
    threads = job.engine.threads
    if threads > 1:
        parts.append(f"{threads} threads")
    return " · ".join(parts)


def memory_held(p: Progress) -> int:
    """Bytes the solve holds now (the last check's figure before the first chunk ends; 0 when
    unknown)."""
    if p.memory_bytes > 0:
        return p.memory_bytes
    return p.history[-1].memory_bytes if p.history else 0


def memory_change(history: Sequence[Point]) -> str:
    """The memory held at the first and the last check with the change in %, e.g.
    ``36.09 KB → 35.62 KB (−1.3 %)``; "" without two figures."""
    pts = [q for q in history if q.memory_bytes > 0]
    if len(pts) < 2:
        return ""
    a, b = pts[0].memory_bytes, pts[-1].memory_bytes
    pct = 100.0 * (b - a) / a
    return f"{human_bytes(a)} → {human_bytes(b)} ({pct:+.1f} %)".replace("-", "−")


def status_text(p: Progress) -> str:
    """The state in words, with where a finished solve stopped (iteration and solve time)."""
    where = f" at iteration {p.iteration:,} in {p.elapsed_s:.3f} s"
    if p.waiting:
        return "Waiting for the solver's kernels to compile (first run after an install)"
    if p.state == RUNNING and p.phase:  # before the first chunk ends: what it does
        return f"Running — {p.phase}…"
    said = {
        RUNNING: "Running",
        PAUSED: "Paused",
        "done": (
            f"Done ({'target reached' if p.stopped_by == 'target' else 'iteration limit'}{where})"
        ),
        "stopped": f"Stopped{where}" if p.stopped_by != "session" else "Stopped (page closed)",
        "failed": "Failed",
        "ready": "Starting",
    }.get(p.state, p.state)
    return said


def time_to_target(job: SolveJob, p: Progress) -> str:
    if not job.target:
        return "no target"
    if p.finished and p.stopped_by == "target":
        return "reached"
    if p.finished:
        return "—"
    return fmt_time(estimate_eta(p.history, job.target))


T = TypeVar("T")


def data_uri(png: bytes) -> str:
    """A PNG as a ``data:`` URL: Streamlit passes it to the page as it is (bytes would be
    decoded, checked and re-encoded on every redraw)."""
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _cached(name: str, key: tuple, build: Callable[[], T]) -> T:
    """The figure or picture ``name`` built for ``key`` last time, or a new one (kept for
    next time: a redraw whose numbers did not change rebuilds nothing)."""
    figs: dict[str, tuple[tuple, Any]] = state.get(state.LIVE_FIGURES) or {}
    hit = figs.get(name)
    if hit is not None and hit[0] == key:
        return hit[1]
    fig = build()
    figs[name] = (key, fig)
    state.put(state.LIVE_FIGURES, figs)
    return fig


def show_progress(job: SolveJob, p: Progress) -> None:
    """Status, numbers, curves and the watched node's strategy of ``job`` at snapshot ``p``."""
    game = job.game
    holdem = game.is_holdem
    held = memory_held(p)
    # the exploitability's label is the longest: its column is wider, so no label is cut at
    # 1280 px (tests/browser/test_app_browser.py)
    m = st.columns([0.9, 0.9, 0.9, 1.1, 1.6, 1.1, 0.9])
    m[0].metric("Iteration", f"{p.iteration:,}")
    m[1].metric("Speed", fmt_speed(p), help="iterations per second, or seconds per iteration")
    m[2].metric("Elapsed", fmt_time(p.elapsed_s), help="solve time, pauses excluded")
    m[3].metric(
        "Time to target",
        time_to_target(job, p),
        help="from a log-log trend of the latest checks: '—' until one can be fitted",
    )
    if is_preflop(game):
        m[4].metric("Exploitability (mbb/hand)", num(_mbb(p.exploitability), ".3g"))
    elif holdem:
        m[4].metric("Exploitability (% pot)", num(p.pct_pot, ".3g"))
    else:
        m[4].metric("Exploitability (chips)", num(p.exploitability, ".4g"))
    m[5].metric("Nodes touched", _short(p.nodes_touched))
    m[6].metric(
        "Memory",
        human_bytes(held) if held > 0 else "—",
        help="what the solve needs: regrets, strategy sums and buffers. With Total RBP the "
        "regrets below pruned actions are not counted while pruned (they are rebuilt when "
        "the action returns); the arrays themselves stay allocated",
    )
    units = [f"{num(p.exploitability, '.3g')} chips"]
    if is_preflop(game):
        units = [
            f"{num(p.exploitability, '.3g')} bb/hand",
            f"{num(_mbb(p.exploitability), '.3g')} mbb/hand",
        ]
    elif holdem:
        units += [f"{num(p.pct_pot, '.3g')} % pot", f"{num(p.mbb, '.3g')} mbb/hand"]
    # a raked spot is not zero-sum: half the sum of both players' best-response gains
    kind = "NashConv/2, Σ (BR_p − u_p) / 2 (a raked spot)" if game.has_rake else "(BR₀ + BR₁) / 2"
    if game.has_rake:
        units.append("NashConv/2")
    st.markdown(
        f"**{status_text(p)}** · {run_label(job)} — " + " · ".join(units),
        help=f"the state of the background solve, and {kind} of its average strategy "
        f"at the last check; checks every {job.check_every:,} iterations (docs/app.md, "
        "'Solve')",
    )
    if p.error:
        st.error(p.error)
    c = st.columns([1, 1])
    with c[0]:
        _curves(job, p)
    with c[1]:
        _strategy(job, p)


def _mbb(bb: float | None) -> float | None:
    """Big blinds (a preflop game's chips) as milli-big-blinds."""
    return None if bb is None else 1000.0 * bb


def curve_unit(game: Game) -> tuple[str, float]:
    """The live curve's unit and its factor from chips: mbb/hand for a preflop game (chips
    are bb), % pot for a hold'em spot, chips for a toy game."""
    if is_preflop(game):
        return "mbb/hand", 1000.0
    if game.is_holdem:
        return "% pot", 100.0 / game.starting_pot
    return "chips", 1.0


def _short(n: int) -> str:
    """A count in four significant digits: ``987``, ``12.35K``, ``3.076M``, ``1.2B``."""
    for unit, size in (("B", 1e9), ("M", 1e6), ("K", 1e3)):
        if n >= size:
            return f"{n / size:.4g}{unit}"
    return f"{n:,}"


def _curves(job: SolveJob, p: Progress) -> None:
    game = job.game
    if state.get(state.X_AXIS) not in CURVE_X:
        state.put(state.X_AXIS, CURVE_X[0])
    x_axis = st.radio(
        "x axis",
        list(CURVE_X),
        key=state.X_AXIS,
        horizontal=True,
        label_visibility="collapsed",
        persist_state=PERSIST,
    )
    unit, scale = curve_unit(game)
    last = p.history[-1].iteration if p.history else -1
    live = p.state == RUNNING
    key = (id(job), len(p.history), last, x_axis, live)
    if live:  # a picture: a redraw costs the browser a decode and a paint
        pts = thin([q for q in p.history if q.exploitability > 0], LIVE_CURVE_POINTS)
        png = _cached(
            "curve",
            key,
            lambda: curve_png(
                [point_x(q, x_axis) for q in pts],
                [q.exploitability * scale for q in pts],
                x_axis,
                f"exploitability ({unit})",
                target=job.target * scale if job.target else None,
                width=CURVE_WIDTH,
                height=CURVE_HEIGHT,
                markers=len(pts) <= MARKERS_UP_TO,
            ),
        )
        with st.container(key=f"live_curve_{x_axis.replace(' ', '_')}"):
            st.image(data_uri(png), width=CURVE_WIDTH)
    else:  # paused or finished: the interactive chart (hover, zoom)
        fig = _cached(
            "curve",
            key,
            lambda: curve_figure(
                p.history,
                x_axis,
                job.target,
                unit=unit,
                scale=scale,
                height=CURVE_HEIGHT,
                replay=p.state != PAUSED,
            ),
        )
        st.plotly_chart(fig, key="live_curve", width="stretch", config=_CONFIG)
        if p.state != PAUSED and p.elapsed_s < QUICK_S and len(p.history) > 1:
            st.caption(
                f"Solved in {duration(p.elapsed_s)}, too fast to watch: press **▶ Replay** on "
                "the curve to see it fall check by check."
            )
    if job.engine.pruning in RBP:
        change = memory_change(p.history)
        st.markdown(
            "**Memory held** at each check" + (f": {change}" if change else ""),
            help="regrets and strategy sums the solve still needs, plus the pruning "
            "bookkeeping (the axis is fitted to the data, not from zero)",
        )
        if live:
            held = thin([q for q in p.history if q.memory_bytes > 0], LIVE_CURVE_POINTS)
            unit_b, size = byte_unit(max((q.memory_bytes for q in held), default=0))
            png = _cached(
                "memory",
                key,
                lambda: curve_png(
                    [point_x(q, x_axis) for q in held],
                    [q.memory_bytes / size for q in held],
                    x_axis,
                    f"memory held ({unit_b})",
                    width=CURVE_WIDTH,
                    height=240,
                    markers=len(held) <= MARKERS_UP_TO,
                    log_y=False,
                ),
            )
            st.image(data_uri(png), width=CURVE_WIDTH)
        else:
            mem = _cached("memory", key, lambda: memory_figure(p.history, x_axis))
            st.plotly_chart(mem, key="live_memory", width="stretch", config=_CONFIG)


_CONFIG: dict[str, Any] = {"displaylogo": False}
QUICK_S = 3.0  # a finished solve shorter than this says how to replay its curve


def _strategy(job: SolveJob, p: Progress) -> None:
    game = job.game
    node = p.watched_node
    strat = p.watched_strategy
    if strat is None or p.watched_reach is None:
        st.caption("waiting for the first strategy…")
        return
    player = int(game.tree.player[node])
    who = player_name(game, player)
    line = line_words(game, node, names_of(game))
    st.markdown(
        f"**Live strategy** — {who} {f'after {line}' if line else 'first to act'} "
        f"(iteration {p.watched_iteration:,})",
        help="the average strategy of the node watched (pick another on Explore): each cell "
        "split by action frequency, its height the share of the class's combos that reach",
    )
    reach = p.watched_reach[player]
    if not game.is_holdem:
        st.dataframe(card_table(game, node, strat, reach), hide_index=True, key="live_table")
        return
    pot = node_pot(game, node)
    key = (id(job), node, p.watched_iteration, p.state == RUNNING)
    if p.state == RUNNING:
        png = _cached(
            "grid", key, lambda: grid_picture_of(game, node, strat, reach, pot, GRID_WIDTH)
        )
        with st.container(key="live_grid_picture"):
            st.image(data_uri(png), width=GRID_WIDTH)
        return

    def build() -> go.Figure:
        fig = grid_figure(game, node, strat, reach, pot=pot)
        fig.update_layout(height=GRID_HEIGHT)
        return fig

    fig = _cached("grid", key, build)
    st.plotly_chart(fig, key="live_grid", width="stretch", config=_CONFIG)
