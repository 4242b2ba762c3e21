"""Export & save: charts as PNG / SVG / HTML, strategies (current node or whole tree, with EVs
and equities) as CSV / JSON, and saving a solve as ``.npz`` (JSON metadata inside) or loading
one back to explore or resume it (any solver: full-width with its pruning state, or Monte
Carlo CFR with its generator state — the loaded engine carries them on)."""

from __future__ import annotations

import functools
import math

import plotly.graph_objects as go
import streamlit as st

from app import nav, state
from app import spec as S
from app.components import names
from app.components.fields import duration
from app.components.figures import curve_figure, human_bytes
from app.components.images import html_bytes, image_bytes, image_problem
from app.components.views import charts_html, grid_figure
from app.features import multi_study
from app.features.live import curve_unit
from app.features.node_analysis import analysis_for
from app.jobs import stop_job
from app.request import show_on_setup
from app.runtime import RESTORED, start_solve
from app.state import Solved
from solver.algorithms import ALGORITHMS
from solver.files.export import (
    MAX_TREE_EXPORT_NODES,
    ExportError,
    LoadedSolve,
    TreeExportCost,
    load_solve,
    node_csv,
    node_json,
    rows_to_csv,
    save_solve,
    tree_csv,
    tree_export_cost,
    tree_json,
)
from solver.files.grid_export import chart_rows
from solver.games.model import DECISION
from solver.run.jobs import CHECK_EVERY, PAUSED, SolveJob
from solver.study.words import is_preflop


def _slug(text: str) -> str:
    return "".join(ch if ch.isalnum() else "-" for ch in text.lower()).strip("-") or "solve"


def render() -> None:
    if multi_study.wanted():  # three players (docs/multiway.md)
        multi_study.render_export()
        return
    st.title("Export & save")
    solved = state.solved()
    _load_section()
    if solved is None:
        st.info("Nothing solved yet: start a solve (or load a saved one above).")
        nav.link("solve", "Go to Solve", ":material/play_arrow:")
        return
    game = solved.game
    node = state.explored_node(game)
    name = _slug(game.name)
    names.remember(game, S.player_names(solved.source))
    hist = names.line(game, node)  # (codes stay in the files; people read words)
    st.subheader("Charts")
    no_images = image_problem()
    if no_images:
        st.warning(no_images, icon=":material/image_not_supported:")
    cols = st.columns(3)
    unit, scale = curve_unit(game)  # (preflop: mbb/hand)
    curve = curve_figure(solved.history, "iterations", None, unit=unit, scale=scale)
    curve.update_layout(title=f"{game.name}: exploitability")
    for col, fmt, mime in (
        (cols[0], "png", "image/png"),
        (cols[1], "svg", "image/svg+xml"),
        (cols[2], "html", "text/html"),
    ):
        col.download_button(
            f"Curve as {fmt.upper()}",
            data=functools.partial(_fig_bytes, curve, fmt),
            file_name=f"{name}-curve.{fmt}",
            mime=mime,
            key=f"dl_curve_{fmt}",
            on_click="ignore",
            disabled=bool(no_images) and fmt != "html",
        )
    if game.is_holdem and game.tree.kind[node] == DECISION:
        cols = st.columns(3)
        for col, fmt, mime in (
            (cols[0], "png", "image/png"),
            (cols[1], "svg", "image/svg+xml"),
            (cols[2], "html", "text/html"),
        ):
            col.download_button(
                f"Grid at the current node as {fmt.upper()}",
                data=functools.partial(_grid_bytes, solved, node, fmt),
                file_name=f"{name}-grid.{fmt}",
                mime=mime,
                key=f"dl_grid_{fmt}",
                on_click="ignore",
                disabled=bool(no_images) and fmt != "html",
            )
    if is_preflop(game):
        _preflop_charts(solved, name)
    st.subheader("Strategies")
    st.caption(f"Current node: {hist} (pick it on the Explore page).")
    cols4 = st.columns(4)
    cols4[0].download_button(
        "Node as CSV",
        data=lambda: node_csv(analysis_for(solved, node)),
        file_name=f"{name}-node.csv",
        mime="text/csv",
        key="dl_node_csv",
        on_click="ignore",
    )
    cols4[1].download_button(
        "Node as JSON",
        data=lambda: node_json(game, analysis_for(solved, node)),
        file_name=f"{name}-node.json",
        mime="application/json",
        key="dl_node_json",
        on_click="ignore",
    )
    decisions = int(solved.game.decision_nodes().size)
    too_big = decisions > MAX_TREE_EXPORT_NODES
    if not too_big:
        cost = _tree_cost(solved)
        st.caption(
            f"Whole tree: {cost.rows:,} rows (one per node and hand, equities included), "
            f"about {human_bytes(cost.csv_bytes)} as CSV or {human_bytes(cost.json_bytes)} as "
            f"JSON, built when you press the button in about {duration(cost.seconds)}."
        )
    cols4[2].download_button(
        "Whole tree as CSV",
        disabled=too_big,
        data=lambda: _tree(solved, "csv"),
        file_name=f"{name}-tree.csv",
        mime="text/csv",
        key="dl_tree_csv",
        on_click="ignore",
    )
    cols4[3].download_button(
        "Whole tree as JSON",
        disabled=too_big,
        data=lambda: _tree(solved, "json"),
        file_name=f"{name}-tree.json",
        mime="application/json",
        key="dl_tree_json",
        on_click="ignore",
    )
    if too_big:
        st.caption(
            f"Whole-tree exports cover at most {MAX_TREE_EXPORT_NODES:,} decision nodes (one row "
            f"per node and hand, equities included); this tree has {decisions:,}. Export "
            "nodes one at a time, or save the solve (.npz) to keep everything."
        )
    _save_section(solved)


def _fig_bytes(fig: go.Figure, fmt: str) -> bytes:
    return html_bytes(fig) if fmt == "html" else image_bytes(fig, fmt)


def _grid_bytes(solved: Solved, node: int, fmt: str) -> bytes:
    a = analysis_for(solved, node)
    assert a.strategy is not None
    fig = grid_figure(
        solved.game,
        node,
        a.strategy,
        a.players[a.player].reach,
        pot=a.pot,
        title=f"{solved.game.name}: {names.line(solved.game, node)}",
        vector=True,
    )
    return _fig_bytes(fig, fmt) if fmt == "html" else image_bytes(fig, fmt, width=800, height=860)


def _preflop_charts(solved: Solved, name: str) -> None:
    """Every decision node's chart of a preflop solve: one HTML page of 13×13 grids, and the
    per-class action frequencies as CSV."""
    game = solved.game
    cols = st.columns(3)
    cols[0].download_button(
        "Preflop charts as HTML",
        data=lambda: charts_html(game, solved.average, names.of(game)),
        file_name=f"{name}-charts.html",
        mime="text/html",
        key="dl_charts_html",
        on_click="ignore",
        help="every decision node's 13×13 grid: the SB's shove (and raise) chart, the BB's "
        "calls and re-shoves, …",
    )
    cols[1].download_button(
        "Preflop charts as CSV",
        data=lambda: rows_to_csv(chart_rows(game, solved.average)),
        file_name=f"{name}-charts.csv",
        mime="text/csv",
        key="dl_charts_csv",
        on_click="ignore",
        help="one row per decision node and hand class: its reaching combos and each "
        "action's frequency (0..1)",
    )


def _tree_cost(solved: Solved) -> TreeExportCost:
    """The whole-tree export's size and time, measured once per solve and iteration."""
    key = (id(solved.game), solved.iteration)
    held = state.get(state.EXPORT_TREE_COST)
    if held is None or held[0] != key:
        held = (key, tree_export_cost(solved.game, solved.average))
        state.put(state.EXPORT_TREE_COST, held)
    return held[1]


def _tree(solved: Solved, fmt: str) -> str:
    try:
        if fmt == "csv":
            return tree_csv(solved.game, solved.average)
        return tree_json(solved.game, solved.average)
    except ExportError as exc:
        return f"error: {exc}\n"


def _save_section(solved: Solved) -> None:
    st.subheader("Save this solve")
    job = solved.job
    if job is not None and job.alive and job.progress.state != PAUSED:
        st.info("Pause or stop the solve to save it (its arrays are being written).")
        return
    engine = job.engine if job is not None else solved.engine
    if engine is None:
        return
    name = _slug(solved.game.name)
    extra = {"settings": solve_settings(job)} if job is not None else _loaded_settings()
    st.download_button(
        "Save solve (.npz)",
        data=lambda: save_solve(engine, solved.source, tuple(solved.history), extra=extra),
        file_name=f"{name}-{engine.iteration}.npz",
        mime="application/octet-stream",
        key="dl_save",
        on_click="ignore",
    )
    st.caption("numpy .npz with JSON metadata (game, algorithm, iteration, history); no pickle.")


def _on_upload() -> None:
    """Load the uploaded file (a callback: runs before the page redraws)."""
    up = state.get(state.LOAD_FILE)
    if up is None:
        return
    try:
        loaded = load_solve(up.getvalue())
    except ExportError as exc:
        state.put(state.LOAD_ERROR, f"{up.name}: {exc}")
        return
    stop_job(state.job())
    state.put(state.JOB, None)
    state.put(state.LOADED, loaded)
    state.put(state.LOAD_ERROR, None)
    state.put(state.EXPLORE_NODE, int(loaded.game.decision_nodes()[0]))


RESUME_ITERATIONS = 100_000  # a resumed solve without a saved limit runs this many more


def solve_settings(job: SolveJob) -> dict:
    """What a save keeps of a solve's settings, for resuming it the same way: its target
    (chips), iteration limit, check interval, and the Solve page's fields as they were."""
    return {
        "target_chips": job.target,
        "max_iterations": job.max_iterations,
        "check_every": job.check_every,
        "widgets": {
            k: v
            for k, v in (state.get(state.JOB_WIDGETS) or {}).items()
            if isinstance(v, (str, bool, int))
        },
    }


def _loaded_settings() -> dict | None:
    loaded = state.get(state.LOADED)
    settings = loaded.meta.get("settings") if loaded is not None else None
    return {"settings": settings} if isinstance(settings, dict) else None


def resume_job(loaded: LoadedSolve, more: int = RESUME_ITERATIONS) -> tuple[SolveJob, str]:
    """A job that carries on ``loaded`` (not started), and a note for the user ("" when
    none). Its own engine goes on, so the algorithm, parameters, pruning state (interval/Total
    RBP bounds, released memory) and a sampling algorithm's generator state continue where the
    save left them; the saved history is kept, and so are the saved target, iteration limit
    and check interval (a save without them: no target, ``more`` iterations). A save that had
    already reached its target resumes without one (it would stop at once)."""
    saved = loaded.meta.get("settings")
    saved = saved if isinstance(saved, dict) else {}
    iteration = loaded.engine.iteration
    raw = saved.get("target_chips")
    # (a hand-made save may hold anything: only a finite positive number is a target)
    target: float | None = None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and 0 < raw < math.inf:
        target = float(raw)
    note = ""
    last = loaded.history[-1].exploitability if loaded.history else None
    if target is not None and last is not None and last <= target:
        note = (
            f"This solve had reached its target ({target:.4g} chips): it resumes without one "
            "— press Stop when you like, or set a target and start a new solve."
        )
        target = None
    limit = saved.get("max_iterations")
    if not isinstance(limit, int) or isinstance(limit, bool) or limit <= iteration:
        limit = iteration + more
    every = saved.get("check_every")
    job = SolveJob(
        loaded.game,
        loaded.engine.rule,
        engine=loaded.engine,
        history=loaded.history,
        target=target,
        max_iterations=limit,
        check_every=every
        if isinstance(every, int) and not isinstance(every, bool) and every >= 1
        else CHECK_EVERY,
        watch=int(loaded.game.decision_nodes()[0]),
    )
    return job, note


def loaded_label(loaded: LoadedSolve) -> str:
    """The saved algorithm with its pruning (where it has a choice) and seed (sampling)."""
    meta = loaded.meta
    name = str(meta.get("algorithm"))
    info = ALGORITHMS.get(name)
    extra = []
    if info is not None and len(info.prunings) > 1 and meta.get("pruning"):
        extra.append(f"{meta['pruning']} pruning")
    if info is not None and info.sampling:
        extra.append(f"seed {meta.get('seed', 0)}")
    return f"{name} ({', '.join(extra)})" if extra else name


def _resume(loaded: LoadedSolve) -> None:
    """Carry on ``loaded`` as this session's solve (a callback, so the Set up and Solve
    fields it fills are set before any widget draws): they show its game and its saved
    settings."""
    job, note = resume_job(loaded)
    source = loaded.meta.get("game", {})
    game_id = S.source_id_for(source)
    settings = loaded.meta.get("settings")
    widgets = settings.get("widgets", {}) if isinstance(settings, dict) else {}
    for key, value in widgets.items():
        if key in RESTORED and key != state.SOURCE:
            state.put(key, value)
    show_on_setup(game_id, loaded.holdem or S.preflop_in(source))
    state.put(state.SETTINGS_GAME, game_id)
    state.put(state.SETTINGS_HOLDEM, loaded.holdem is not None)
    state.put(state.LOADED, None)
    state.put(state.JOB_ENDED, None)
    state.put(state.JOB_NOTE, (job, note) if note else None)
    label = S.sources().get(game_id, loaded.game.name)
    start_solve(job, source, loaded.holdem, game_id, label)
    state.put(state.EXPORT_GO_SOLVE, True)


def _load_section() -> None:
    with st.expander("Load a saved solve", expanded=state.get(state.LOADED) is not None):
        st.file_uploader(
            "Saved solve (.npz): loads as soon as it is uploaded",
            type=["npz"],
            key=state.LOAD_FILE,
            on_change=_on_upload,
        )
        err = state.get(state.LOAD_ERROR)
        if err:
            st.error(err, icon=":material/error:")
        loaded = state.get(state.LOADED)
        if loaded is not None:
            st.success(
                f"Loaded {loaded.game.name}: {loaded_label(loaded)} at iteration "
                f"{loaded.engine.iteration:,}. Explore it, or resume solving."
            )
            st.button("Resume solving", key="btn_resume_loaded", on_click=_resume, args=(loaded,))
    if state.get(state.EXPORT_GO_SOLVE):  # after the callback: show the resumed solve
        state.put(state.EXPORT_GO_SOLVE, False)
        st.switch_page(nav.pages()["solve"])
