"""Reports: solve the current Set up spot on many flops (a batch on Dask, results in SQLite)
and study the aggregate — the per-flop table (sortable, filterable), action frequencies per
flop, a high-card × texture heatmap, EV against equity, weighted aggregates per texture
group; open a flop's saved solve in Explore; open an existing batch database; export.

The batch runs in a :class:`~solver.batch.job.BatchJob` (its own thread owns the Dask client;
it never calls Streamlit); the page polls its progress and reads the database (WAL: readable
while the batch writes). Session keys: ``rep_*`` (:data:`app.state.REPORTS_PREFIX`, widgets
kept across pages with ``persist_state``) and ``reports_*`` (buttons, uploads, charts: not
kept). Number fields are text fields (:mod:`app.components.fields`): bad text is kept, named,
and Start stays disabled."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import files, nav, runtime, state
from app.components import batch_figures as BF
from app.components import report_columns as RC
from app.components.controls import live_view
from app.components.fields import PERSIST, Number, duration, number_field, read
from app.components.images import html_bytes, image_bytes, image_problem
from app.screens.setup import current_request
from solver.algorithms import ALGORITHMS, default_algorithm
from solver.batch.driver import check_scheduler, check_workers, format_eta
from solver.batch.job import BatchJob
from solver.batch.report import (
    GROUP_KEYS,
    aggregate,
    aggregate_groups,
    class_aggregate,
    class_nodes,
    json_safe,
    table_rows,
    to_csv,
)
from solver.batch.spec import BatchError, BatchSpec, batch_cost, check
from solver.batch.store import BatchStore, FlopRow, read_solve_file
from solver.export import ExportError, load_solve
from solver.flops import CONNECTS, HIGH_CARDS, PAIRINGS, SUBSET_SIZES, SUIT_CLASSES

P = state.REPORTS_PREFIX
JOB = P + "job"  # the session's BatchJob (or None)
DB = P + "db"  # path of the database the report shows (str)
ERROR = P + "error"  # why the last start or open failed
ERROR_INPUTS = P + "error_inputs"  # the inputs it was about (_inputs)
COST = P + "cost"  # ((spec fingerprint, threads, workers), BatchCost) last shown
LAST_STATE = P + "last_state"
FLOPS = P + "flops"
FLOP_LIST = P + "flop_list"
FILTER = P + "filter_"  # + suits / pairing / high / connect
TARGET = P + "target"
ITERATIONS = P + "iterations"
ALGORITHM = P + "algorithm"
WORKERS = P + "workers"
THREADS = P + "threads"
SCHEDULER = P + "scheduler"
DB_PATH = P + "db_path"
SAVE = P + "save"
OPEN_PATH = P + "open_path"
UPLOAD = "reports_upload"  # not kept across pages (file uploaders refuse it)
TABLE = "reports_table"
SHOW = P + "show_"  # + suits / pairing / high: the table's filters
HEAT_METRIC = P + "heat_metric"
GROUP_BY = P + "group_by"
OPEN_FLOP = P + "open_flop"
CLASS_NODE = P + "class_node"

FLOP_SETS = [*(str(n) for n in SUBSET_SIZES), "all", "list"]
FILTER_VALUES = {
    "suits": SUIT_CLASSES,
    "pairing": PAIRINGS,
    "high": HIGH_CARDS,
    "connect": CONNECTS,
}
CORES = os.cpu_count() or 1
TARGET_FIELD = Number("Target (% pot)", 0.01, 100)
ITERATIONS_FIELD = Number("Iteration cap", 1, 1_000_000, whole=True)
WORKERS_FIELD = Number("Workers", 1, 256, whole=True)
THREADS_FIELD = Number("Threads per solve", 1, 256, whole=True)
NUMBER_FIELDS = {
    TARGET: TARGET_FIELD,
    ITERATIONS: ITERATIONS_FIELD,
    WORKERS: WORKERS_FIELD,
    THREADS: THREADS_FIELD,
}


def _inputs() -> tuple[object, ...]:
    """The page's inputs as typed: an error stays shown until one of them changes."""
    keys = (FLOPS, FLOP_LIST, TARGET, ITERATIONS, ALGORITHM, WORKERS, THREADS, SCHEDULER,
            DB_PATH, OPEN_PATH, *(FILTER + k for k in FILTER_VALUES))  # fmt: skip
    return tuple(repr(state.get(k)) for k in keys)


def _fail(message: str | None) -> None:
    """Show ``message`` (None: clear) under the page's inputs as they are now (paths named
    relative to the batch folder, never the server's own)."""
    state.put(ERROR, files.without_paths(message) if message else None)
    state.put(ERROR_INPUTS, _inputs())


def batch_job() -> BatchJob | None:
    j = state.get(JOB)
    return j if isinstance(j, BatchJob) else None


def render() -> None:
    st.title("Reports")
    st.caption(
        "Solve the current spot on many flops at once (Dask workers, results in an SQLite "
        "file) and read the aggregate: how often each player bets on each texture, which "
        "flops favour whom. See docs/batch.md."
    )
    job = batch_job()
    working = job is not None and not job.progress.finished
    with st.expander("New batch from the current spot", expanded=state.get(DB) is None):
        _setup(job, working)
    with st.expander("Open a batch database"):
        _open()
    err = state.get(ERROR)
    if err and state.get(ERROR_INPUTS) == _inputs():
        st.error(err, icon=":material/error:")  # (until the inputs it was about change)
    if state.get(DB) is None:
        st.info("Start a batch or open a batch database to see its report.")
        return
    live_view(_live, working)


# ----- set-up -------------------------------------------------------------------------------


def _setup(job: BatchJob | None, working: bool) -> None:
    req = current_request()
    if req.spec is None:
        st.info("Batches solve a hold'em spot on many flops: pick one on the Set up page.")
        nav.link("setup", "Go to Set up", ":material/tune:")
        return
    errors = {k: v for k, v in req.errors.items() if k != "board"}  # the flop replaces it
    tpl = req.spec
    st.markdown(
        f"**Template:** {req.label} — pot {tpl.pot:g}, stack {tpl.stack:g}, bets "
        f"`{tpl.bets}`, raises `{tpl.raises}` (the board is replaced by each flop)"
    )
    if errors:
        st.error(
            "The set-up has errors: " + "; ".join(f"{k}: {v}" for k, v in errors.items()),
            icon=":material/error:",
        )
    _defaults()
    c = st.columns(3)
    c[0].selectbox(
        "Flops", FLOP_SETS, key=FLOPS, persist_state=PERSIST,
        help="weighted subsets of 25–184 flops, all 1,755, or your own list",
    )  # fmt: skip
    if state.get(FLOPS) == "list":
        c[1].text_input(
            "Flop list", key=FLOP_LIST, placeholder="AhKd7c, Qs8s3d, 9h8h2c",
            persist_state=PERSIST,
        )  # fmt: skip
    f = st.columns(4)
    for col, (key, values) in zip(f, FILTER_VALUES.items(), strict=True):
        col.multiselect(
            key, list(values), key=FILTER + key, placeholder="any", persist_state=PERSIST
        )
    s = st.columns(4)
    bad = [number_field(TARGET_FIELD, TARGET, container=s[0])[1]]
    bad.append(number_field(ITERATIONS_FIELD, ITERATIONS, container=s[1])[1])
    s[2].selectbox("Algorithm", ALGORITHM_NAMES, key=ALGORITHM, persist_state=PERSIST)
    s[3].checkbox(
        "Save each solve", key=SAVE, help="to open a flop in Explore", persist_state=PERSIST
    )
    w = st.columns(4)
    workers, bad_workers = number_field(WORKERS_FIELD, WORKERS, container=w[0])
    threads, bad_threads = number_field(THREADS_FIELD, THREADS, container=w[1])
    bad += [bad_workers, bad_threads]
    scheduler = w[2].text_input(
        "Scheduler", key=SCHEDULER, placeholder="empty: this machine", persist_state=PERSIST,
        help="an existing Dask cluster, e.g. tcp://10.0.0.5:8786",
    ).strip()  # fmt: skip
    # checked as they are typed, named as the page names them (not at Start, as flags)
    try:
        if scheduler:
            check_scheduler(scheduler)
        elif workers is not None and threads is not None:
            check_workers(int(workers), int(threads), names=("Workers", "Threads per solve"))
    except BatchError as exc:
        where = w[2] if scheduler else w[0]
        label = "Scheduler" if scheduler else "Workers"
        where.error(f"{label}: {exc.message}", icon=":material/error:")
        bad.append(exc.message)
    w[3].text_input(
        "Database file", key=DB_PATH, placeholder="<spot>-<settings>.db",
        persist_state=PERSIST,
        help=f"a name in {files.folder_label()}: created, or resumed when it holds the same "
        "batch (docs/batch.md, 'In the app')",
    )  # fmt: skip
    b = st.columns(4)
    b[0].button(
        "Start batch", key="reports_start", type="primary",
        disabled=working or bool(errors) or any(bad),
        on_click=_start, args=(tpl, req.label), width="stretch",
    )  # fmt: skip
    b[1].button(
        "Stop", key="reports_stop", disabled=not working, on_click=_stop, width="stretch"
    )  # fmt: skip
    if not (errors or any(bad) or working):
        _cost(tpl, req.label)


def _cost(template: Any, label: str) -> None:
    """What the batch set up here will cost, before Start: the biggest flop's solve (memory,
    time per iteration) and the most the batch can take (cached per spec and workers)."""
    try:
        spec = spec_from_widgets(template, label)
        workers = int(number(WORKERS)) if not str(state.get(SCHEDULER) or "").strip() else 1
        key = (spec.fingerprint(), spec.threads, workers)
        held = state.get(COST)
        if held is None or held[0] != key:
            check(spec)
            held = (key, batch_cost(spec, workers))
            state.put(COST, held)
    except BatchError:
        return  # Start names it
    c = held[1]
    local = not str(state.get(SCHEDULER) or "").strip()
    text = (
        f"**Before you start:** {c.flops:,} flop{'s' if c.flops != 1 else ''}; the biggest "
        f"({c.biggest}) holds {c.memory_mb:,.0f} MB while it solves and takes about "
        f"{duration(c.seconds_per_iteration)} an iteration here"
    )
    if local:
        text += (
            f"; {c.workers} at once hold up to {c.memory_mb_at_once:,.0f} MB, and every flop "
            f"to the iteration cap would take up to {duration(c.max_seconds)} (a target "
            "usually stops them sooner)."
        )
    else:
        text += " (on this machine's cores; the cluster's may differ)."
    st.info(text, icon=":material/schedule:")


ALGORITHM_NAMES = [n for n, info in ALGORITHMS.items() if not info.sampling]
DEFAULTS: dict[str, Any] = {
    FLOPS: "49",
    TARGET: "1",
    ITERATIONS: "1000",
    ALGORITHM: default_algorithm(True),
    SAVE: True,
    WORKERS: str(min(2, CORES)),
    THREADS: "1",
}


def _defaults() -> None:
    for key, value in DEFAULTS.items():
        if state.get(key) is None:
            state.put(key, value)


def _figure_data(fig: go.Figure, fmt: str) -> Callable[[], bytes]:
    """A download callable: the figure as PNG/SVG (kaleido) or HTML, built on click."""
    return lambda: html_bytes(fig) if fmt == "html" else image_bytes(fig, fmt)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-") or "batch"


def number(key: str) -> float:
    """A number field's value; a bad one raises :class:`BatchError` naming the field (Start
    is disabled then, but a click may race the rerun)."""
    spec = NUMBER_FIELDS[key]
    value, bad = read(spec, key, float(DEFAULTS[key]))
    if bad or value is None:
        raise BatchError(spec.label, bad.removeprefix(f"{spec.label}: "))
    return value


def spec_from_widgets(template: Any, label: str) -> BatchSpec:
    """The batch the set-up widgets describe (not yet checked)."""
    flops = str(state.get(FLOPS) or "49")
    if flops == "list":
        flops = str(state.get(FLOP_LIST) or "").strip()
        if not flops:
            raise BatchError("flops", "type the flops of your list")
    filters = {k: list(state.get(FILTER + k) or []) for k in FILTER_VALUES}
    return BatchSpec(
        template=template,
        flops=flops,
        filters={k: v for k, v in filters.items() if v},
        algorithm=str(state.get(ALGORITHM) or default_algorithm(True)),
        target_pct=float(number(TARGET)),
        max_iterations=int(number(ITERATIONS)),
        threads=int(number(THREADS)),
        save_solves=bool(state.get(SAVE, True)),
        name=label,
    )


def _start(template: Any, label: str) -> None:
    _fail(None)
    try:
        spec = spec_from_widgets(template, label)
        check(spec)
        scheduler = str(state.get(SCHEDULER) or "").strip() or None
        workers = int(number(WORKERS))
        if scheduler is not None:
            scheduler = check_scheduler(scheduler)
        else:
            check_workers(workers, spec.threads, names=("Workers", "Threads per solve"))
        name = str(state.get(DB_PATH) or "").strip()
        if not name:
            name = f"{_slug(label)}-{spec.flops[:12]}-{spec.fingerprint()}.db"
            name = re.sub(r"[, ]+", "-", name)
        path = str(files.in_batch_folder(name))
        Path(path).parent.mkdir(parents=True, exist_ok=True)  # (inside the batch folder)
        if Path(path).exists():
            BatchStore.create_or_open(path, spec).close()  # another spec's file: refused now
    except BatchError as exc:
        _fail(f"Cannot start: {exc.field}: {exc.message}")
        return
    old = batch_job()
    if old is not None:
        old.stop()
        old.join(60.0)
    job = BatchJob(spec, path, workers=workers, scheduler=scheduler)
    state.put(JOB, job)
    state.put(DB, path)
    state.put(LAST_STATE, "starting")
    runtime.registry().add(runtime.session_id(), job)
    job.start()


def _stop() -> None:
    job = batch_job()
    if job is not None:
        job.stop()
        job.join(60.0)


def _open() -> None:
    c = st.columns([3, 1])
    c[0].text_input(
        "Database file", key=OPEN_PATH, placeholder="my-spot.db", persist_state=PERSIST,
        help=f"a name in {files.folder_label()} (docs/batch.md, 'In the app')",
    )  # fmt: skip
    c[1].button("Open", key="reports_open", on_click=_open_path, width="stretch")
    st.file_uploader("or upload one", type=["db", "sqlite"], key=UPLOAD, on_change=_on_upload)


def _open_path() -> None:
    _fail(None)
    try:
        path = files.in_batch_folder(str(state.get(OPEN_PATH) or ""))
    except BatchError as exc:
        _fail(f"Cannot open: {exc.field}: {exc.message}")
        return
    if not path.is_file():
        _fail(f"Cannot open: no database {files.relative_name(path)!r} in "
                  f"{files.folder_label()}.")  # fmt: skip
        return
    _open_db(str(path))


def _on_upload() -> None:
    up = state.get(UPLOAD)
    if up is None:
        return
    path = files.batch_folder() / f"uploaded-{_slug(Path(up.name).stem)}.db"
    path.write_bytes(up.getvalue())
    _open_db(str(path))


def _open_db(path: str) -> None:
    _fail(None)
    try:
        BatchStore.open(path).close()
    except BatchError as exc:
        _fail(f"Cannot open {files.relative_name(path)!r}: {exc.message}")
        return
    job = batch_job()
    if job is not None and job.alive and str(job.db) != path:
        _fail("Stop the running batch before opening another database.")
        return
    state.put(DB, path)


# ----- the live report ------------------------------------------------------------------------


def _live() -> None:
    job = batch_job()
    path = str(state.get(DB))
    if job is not None and str(job.db) == path:
        p = job.progress
        if p.finished and state.get(LAST_STATE) not in ("done", "stopped", "failed"):
            state.put(LAST_STATE, p.state)
            st.rerun()  # whole page: flip the buttons once
        state.put(LAST_STATE, p.state)
        _progress(p)
    if not Path(path).exists():
        return  # the batch has not written its file yet
    try:  # every cell the report uses is checked there: past it nothing raises
        rows, spec = load_rows(path)
    except BatchError as exc:
        st.error(unreadable(path, exc), icon=":material/error:")
        return
    report(rows, spec, Path(path))


def unreadable(path: str, exc: BatchError) -> str:
    """Why a database cannot be shown, naming it as the page does (relative to the batch
    folder: never the server's absolute path) and then the file's problem."""
    name = files.relative_name(path)
    text = exc.message
    for prefix in (f"{path}: ", f"{path} "):
        text = text.removeprefix(prefix)
    return f"Cannot read {name!r}: {text.replace(path, repr(name))}"


ROWS_CACHE = "reports_rows_cache"  # (path, file signature, rows, spec) of the last read


def load_rows(path: str) -> tuple[list[FlopRow], BatchSpec]:
    """The database's rows and spec, read again only when the file (or its WAL) changed."""
    p = Path(path)
    sig = tuple(
        (q.stat().st_mtime_ns, q.stat().st_size) if q.exists() else None
        for q in (p, p.with_name(p.name + "-wal"))
    )
    cached = state.get(ROWS_CACHE)
    if cached is not None and cached[0] == (path, sig):
        return cached[1], cached[2]
    with BatchStore.open(path) as store:
        rows = store.rows()
        spec = store.spec
    state.put(ROWS_CACHE, ((path, sig), rows, spec))
    return rows, spec


def _progress(p: Any) -> None:
    frac = p.done / p.total if p.total else 0.0
    text = f"{p.done:,} / {p.total:,} flops"
    if p.state == "running":
        text += f" · {p.flops_per_min:.1f} flops/min · ETA {format_eta(p.eta_s)}"
    elif p.message:
        text += f" · {p.message}"
    else:
        text += f" · {p.state}"
    st.progress(min(frac, 1.0), text=text)
    if p.failed:
        st.warning(f"{p.failed} flop(s) failed: see the table's error column.")
    if p.state == "failed":
        st.error(files.without_paths(p.error), icon=":material/error:")


def records(rows: list[FlopRow]) -> list[dict[str, Any]]:
    """Table records with OOP's total bet frequency (``oop_bet``) added."""
    recs = table_rows(rows)
    for r in recs:
        if r.get("status") == "done":
            r["oop_bet"] = sum(v for k, v in r.items() if k.startswith(("oop b:", "oop r:")))
    return recs


def report(rows: list[FlopRow], spec: BatchSpec, path: Path) -> None:
    """The report of a batch database: metrics, table, charts, groups, exports."""
    recs = records(rows)
    done = [r for r in recs if r.get("status") == "done"]
    st.subheader(f"{spec.name}: {len(done)} of {len(spec.flop_set())} flops")
    if not done:
        st.info("No flop finished yet.")
        return
    _metrics(done)
    table = _table(recs, rows, path, spec)
    mixes = [c for c in table.columns if c.startswith(("oop ", "ip vs "))]
    figs = _charts(done, mixes, spec, rows)
    _groups(rows, spec)
    _exports(recs, figs, path)


def _weighted(recs: list[dict[str, Any]], col: str) -> float:
    pts = [(r["weight"], r[col]) for r in recs if r.get(col) is not None]
    total = sum(w for w, _ in pts)
    return sum(w * v for w, v in pts) / total if total else float("nan")


def _metrics(done: list[dict[str, Any]]) -> None:
    m = st.columns(5)
    m[0].metric("OOP EV (weighted)", f"{_weighted(done, 'oop_ev'):.2f}")
    m[1].metric("IP EV (weighted)", f"{_weighted(done, 'ip_ev'):.2f}")
    m[2].metric("OOP equity", f"{100 * _weighted(done, 'oop_equity'):.1f}%")
    m[3].metric("OOP bets", f"{100 * _weighted(done, 'oop_bet'):.1f}%")
    m[4].metric("Exploitability (mean)", f"{_weighted(done, 'exploitability_pct_pot'):.2f}% pot")


def _table(
    recs: list[dict[str, Any]], rows: list[FlopRow], path: Path, spec: BatchSpec
) -> pd.DataFrame:
    f = st.columns(3)
    shown = recs
    for col, key in zip(f, ("suits", "pairing", "high"), strict=True):
        picked = col.multiselect(
            f"Show {key}", list(FILTER_VALUES[key]), key=SHOW + key, persist_state=PERSIST
        )
        if picked:
            shown = [r for r in shown if r[key] in picked]
    df = pd.DataFrame(shown)
    event = st.dataframe(
        df, key=TABLE, hide_index=True, on_select="rerun", selection_mode="single-row",
        height=min(420, 38 + 35 * max(len(df), 1)), column_config=_columns(df, spec),
    )  # fmt: skip
    selected = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    _open_in_explore(rows, path, df.iloc[selected[0]]["flop"] if selected else None)
    return df


def _open_in_explore(rows: list[FlopRow], path: Path, picked: str | None) -> None:
    files = {r.flop: r.solve_file for r in rows if r.done and r.solve_file}
    if not files:
        st.caption("Solves were not saved for this batch: tick *Save each solve* to open flops.")
        return
    c = st.columns([2, 1])
    flops = list(files)
    if picked in files:
        state.put(OPEN_FLOP, picked)
    c[0].selectbox(
        "Open a flop's solve (or click its row)", flops, key=OPEN_FLOP, persist_state=PERSIST
    )
    c[1].button(
        "Open in Explore", key="reports_explore", on_click=_explore, args=(path, files),
        width="stretch",
    )  # fmt: skip


def _explore(path: Path, files: dict[str, str]) -> None:
    flop = str(state.get(OPEN_FLOP))
    try:  # only from the database's own .solves folder, size checked before reading
        loaded = load_solve(read_solve_file(path, files.get(flop, "")))
    except (BatchError, ExportError) as exc:
        _fail(f"Cannot open {flop}'s solve: {exc}")
        return
    old = state.job()
    if old is not None:
        old.stop()
        old.join(30.0)
    state.put(state.JOB, None)
    state.put(state.LOADED, loaded)
    state.put(state.EXPLORE_NODE, int(loaded.game.decision_nodes()[0]))
    st.switch_page(nav.pages()["explore"])


HEAT_METRICS = {
    "oop_bet": "OOP bet frequency (%)",
    "oop_ev": "OOP EV (chips)",
    "oop_equity": "OOP equity",
    "oop_eqr": "OOP EQR",
}


def _charts(
    done: list[dict[str, Any]], mixes: list[str], spec: BatchSpec, rows: list[FlopRow]
) -> dict[str, go.Figure]:
    tabs = st.tabs(["OOP's first action", "IP vs check", "Heatmap", "EV vs equity", "Hand classes"])
    pot, stack = float(spec.template.pot), float(spec.template.stack)
    figs = {
        "oop-mix": BF.mix_bars(done, mixes, "oop ", "OOP's first action per flop", pot, stack),
    }
    check_prefix = next((c.split(":")[0] + ": " for c in mixes if c.startswith("ip vs k:")), None)
    with tabs[0]:
        st.plotly_chart(figs["oop-mix"], key="reports_fig_oop")
    with tabs[1]:
        if check_prefix:
            figs["ip-vs-check"] = BF.mix_bars(
                done, mixes, check_prefix, "IP after a check", pot, stack
            )
            st.plotly_chart(figs["ip-vs-check"], key="reports_fig_ip")
        else:
            st.caption("OOP has no check in this tree.")
    with tabs[2]:
        metric = str(
            st.selectbox(
                "Colour by",
                list(HEAT_METRICS),
                format_func=lambda k: HEAT_METRICS[str(k)],
                key=HEAT_METRIC,
                persist_state=PERSIST,
            )
        )
        figs["heatmap"] = BF.heatmap(done, metric, f"{HEAT_METRICS[metric]}: high card × texture")
        st.plotly_chart(figs["heatmap"], key="reports_fig_heat")
    with tabs[3]:
        figs["ev-equity"] = BF.ev_equity(done, float(spec.template.pot))
        st.plotly_chart(figs["ev-equity"], key="reports_fig_scatter")
    with tabs[4]:
        nodes = class_nodes(rows)
        if nodes:
            node = str(
                st.selectbox(
                    "Player and node",
                    nodes,
                    key=CLASS_NODE,
                    persist_state=PERSIST,
                    format_func=lambda n: RC.node_title(str(n), pot, stack),
                )
            )
            agg = class_aggregate(rows, node)
            said = RC.node_title(node, pot, stack)
            title = f"{said}: mix per hand class (weighted over the flops; combos per flop)"
            figs["classes"] = BF.class_bars(agg, title, pot, stack)
            st.plotly_chart(figs["classes"], key="reports_fig_classes")
            st.caption("Hand classes: docs/hand-classes.md. A hand counts in its made class and "
                       "in each of its draw rows.")  # fmt: skip
    return figs


def _columns(df: pd.DataFrame, spec: BatchSpec) -> dict[str, Any]:
    return RC.column_config(df.columns, float(spec.template.pot), float(spec.template.stack))


def _groups(rows: list[FlopRow], spec: BatchSpec) -> None:
    key = st.selectbox("Aggregate by", list(GROUP_KEYS), key=GROUP_BY, persist_state=PERSIST)
    table = []
    groups = {"all flops": aggregate(rows), **aggregate_groups(rows, key)}
    for group, agg in groups.items():
        v = agg["values"]
        rec: dict[str, Any] = {key: group, "flops": agg["flops"], "weight": agg["weight"]}
        rec.update({k: v[k] for k in ("oop_ev", "ip_ev", "oop_equity", "oop_eqr") if k in v})
        rec.update({k: v[k] for k in v if k.startswith("oop ")})
        table.append(rec)
    df = pd.DataFrame(table)
    st.dataframe(df, hide_index=True, key="reports_groups", column_config=_columns(df, spec))


def _exports(recs: list[dict[str, Any]], figs: dict[str, go.Figure], path: Path) -> None:
    stem = path.stem
    c = st.columns(2 + len(figs))
    c[0].download_button(
        "Table CSV", data=lambda: to_csv(recs), file_name=f"{stem}.csv", mime="text/csv",
        key="reports_dl_csv", on_click="ignore",
    )  # fmt: skip
    c[1].download_button(
        "Table JSON", data=lambda: json.dumps(json_safe(recs), indent=1),
        file_name=f"{stem}.json", mime="application/json", key="reports_dl_json", on_click="ignore",
    )  # fmt: skip
    no_images = image_problem()
    formats = ["html"] if no_images else ["png", "svg", "html"]
    for col, (name, fig) in zip(c[2:], figs.items(), strict=True):
        fmt = str(
            col.selectbox(
                name, formats, key=P + "fmt_" + name, persist_state=PERSIST,
                help=no_images or None,
            )
        )  # fmt: skip
        col.download_button(
            f"{name}.{fmt}",
            data=_figure_data(fig, fmt),
            file_name=f"{stem}-{name}.{fmt}",
            key="reports_dl_" + name,
            on_click="ignore",
        )
