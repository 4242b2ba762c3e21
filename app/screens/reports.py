"""Reports: solve the current Set up spot on many flops (a batch on Dask, results in SQLite)
and study the aggregate — the per-flop table (sortable, filterable), action frequencies per
flop, a high-card × texture heatmap, EV against equity, weighted aggregates per texture
group; open a flop's saved solve in Explore; open an existing batch database; export.

The batch runs in a :class:`~solver.batch.job.BatchJob` (its own thread owns the Dask client;
it never calls Streamlit); the page polls its progress and reads the database (WAL: readable
while the batch writes). The batch's session keys, starting and opening live in
:mod:`app.features.batch_run`; the report's parts in :mod:`app.components.batch_report`.
Number fields are text fields (:mod:`app.components.fields`): bad text is kept, named, and
Start stays disabled."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd
import streamlit as st

from app import files, nav, state
from app.components import batch_report as BR
from app.components import line_picker as LP
from app.components import line_report_view as LV
from app.components.batch_report import CLASS_NODE, records
from app.components.fields import PERSIST, duration
from app.features import batch_run as B
from app.features import multi_solve
from app.features.batch_run import (  # (the page's keys, as tests and other pages name them)
    DB,
    DB_PATH,
    ERROR,
    FILTER,
    FLOP_LIST,
    FLOPS,
    ITERATIONS,
    JOB,
    OPEN_PATH,
    SCHEDULER,
    TARGET,
    WORKERS,
)
from app.features.controls import live_view
from app.features.number_fields import number_field
from app.jobs import stop_job
from app.request import current_request
from solver.batch.driver import check_scheduler, check_workers, target_seconds
from solver.batch.job import BatchJob
from solver.batch.linereport import (
    LEGACY_NOTE,
    common_flops,
    line_final,
    line_records,
    report_at,
)
from solver.batch.lines import LineError
from solver.batch.report import GROUP_KEYS
from solver.batch.spec import BatchError, BatchSpec, batch_cost, check
from solver.batch.store import BatchStore, FlopRow
from solver.files.export import ExportError

__all__ = [
    "CLASS_NODE", "DB", "DB_PATH", "ERROR", "FILTER", "FLOPS", "FLOP_LIST", "ITERATIONS",
    "JOB", "OPEN_FLOP", "OPEN_PATH", "SCHEDULER", "TARGET", "WORKERS", "records", "render",
]  # fmt: skip

P = state.REPORTS_PREFIX
SHOW = P + "show_"  # + suits / pairing / high: the table's filters
OPEN_FLOP = P + "open_flop"


def render() -> None:
    st.title("Reports")
    st.caption(
        "Solve the current spot on many flops at once (Dask workers, results in an SQLite "
        "file) and read the aggregate: how often each player bets on each texture, which "
        "flops favour whom. See docs/batch.md."
    )
    multi_solve.heads_up_only("A batch")  # (databases still open below)
    job = B.batch_job()
    working = job is not None and not job.progress.finished
    with st.expander("New batch from the current spot", expanded=state.get(DB) is None):
        _setup(job, working)
    with st.expander("Open a batch database"):
        _open()
    err = B.error()
    if err:
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
    B.set_defaults()
    c = st.columns(3)
    c[0].selectbox(
        "Flops", B.FLOP_SETS, key=FLOPS, persist_state=PERSIST,
        help="weighted subsets of 25–184 flops, all 1,755, or your own list",
    )  # fmt: skip
    if state.get(FLOPS) == "list":
        c[1].text_input(
            "Flop list", key=FLOP_LIST, placeholder="AhKd7c, Qs8s3d, 9h8h2c",
            persist_state=PERSIST,
        )  # fmt: skip
    f = st.columns(4)
    for col, (key, values) in zip(f, B.FILTER_VALUES.items(), strict=True):
        col.multiselect(
            key, list(values), key=FILTER + key, placeholder="any", persist_state=PERSIST
        )
    s = st.columns(4)
    bad = [number_field(B.TARGET_FIELD, TARGET, container=s[0])[1]]
    bad.append(number_field(B.ITERATIONS_FIELD, ITERATIONS, container=s[1])[1])
    s[2].selectbox("Algorithm", B.ALGORITHM_NAMES, key=B.ALGORITHM, persist_state=PERSIST)
    s[3].checkbox(
        "Save each solve", key=B.SAVE, help="to open a flop in Explore", persist_state=PERSIST
    )
    w = st.columns(4)
    workers, bad_workers = number_field(B.WORKERS_FIELD, WORKERS, container=w[0])
    threads, bad_threads = number_field(B.THREADS_FIELD, B.THREADS, container=w[1])
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
            check_workers(int(workers), int(threads), names=B.WORKER_NAMES)
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
        on_click=B.start, args=(tpl, req.label), width="stretch",
    )  # fmt: skip
    b[1].button(
        "Stop", key="reports_stop", disabled=not working, on_click=B.stop, width="stretch"
    )  # fmt: skip
    if not (errors or any(bad) or working):
        _cost(tpl, req.label)


def _cost(template: Any, label: str) -> None:
    """What the batch set up here will cost, before Start: the biggest flop's solve (memory,
    time per iteration) and the most the batch can take (cached per spec and workers)."""
    try:
        spec = B.spec_from_widgets(template, label)
        workers = int(B.number(WORKERS)) if not str(state.get(SCHEDULER) or "").strip() else 1
        key = (spec.fingerprint(), spec.threads, workers)
        held = state.get(B.COST)
        if held is None or held[0] != key:
            check(spec)
            held = (key, batch_cost(spec, workers))
            state.put(B.COST, held)
    except BatchError:
        return  # Start names it
    c = held[1]
    local = not str(state.get(SCHEDULER) or "").strip()
    text = (
        f"**Before you start:** {c.flops:,} flop{'s' if c.flops != 1 else ''}; the biggest "
        f"({c.biggest}) holds {c.memory_mb:,.0f} MB while it solves and takes about "
        f"{duration(c.seconds_per_iteration)} an iteration here, then about "
        f"{duration(c.summary_seconds)} to summarise its tree for reports at any line; the "
        f"database grows by up to {c.disk_mb:,.1f} MB of tree summaries"
    )
    if local:
        text += f"; {c.workers} at once hold up to {c.memory_mb_at_once:,.0f} MB"
        to_target = target_seconds(spec, c)
        if to_target is not None:
            text += (
                f". To {spec.target_pct:g} % of the pot, summarised, the batch takes about "
                f"{duration(to_target)} (every flop counted as the biggest; within about a "
                f"factor of two), and at most {duration(c.max_seconds)} if every flop runs to "
                "the iteration cap."
            )
        else:
            text += (
                f", and every flop to the iteration cap, summarised, would take up to "
                f"{duration(c.max_seconds)}."
            )
    else:
        text += " (on this machine's cores; the cluster's may differ)."
    st.info(text, icon=":material/schedule:")


def _open() -> None:
    c = st.columns([3, 1])
    c[0].text_input(
        "Database file", key=OPEN_PATH, placeholder="my-spot.db", persist_state=PERSIST,
        help=f"a name in {files.folder_label()} (docs/batch.md, 'In the app')",
    )  # fmt: skip
    c[1].button("Open", key="reports_open", on_click=B.open_path, width="stretch")
    st.file_uploader(
        "or upload one", type=["db", "sqlite"], key=state.REPORTS_UPLOAD, on_change=B.on_upload
    )
    note = B.upload_note()
    if note:
        st.caption(note)


# ----- the live report ------------------------------------------------------------------------


def _live() -> None:
    job = B.batch_job()
    path = str(state.get(DB))
    if job is not None and str(job.db) == path:
        p = job.progress
        if p.finished and state.get(B.LAST_STATE) not in ("done", "stopped", "failed"):
            state.put(B.LAST_STATE, p.state)
            st.rerun()  # whole page: flip the buttons once
        state.put(B.LAST_STATE, p.state)
        BR.progress(p)
    if not Path(path).exists():
        return  # the batch has not written its file yet
    try:  # every cell the report uses is checked there: past it nothing raises
        rows, spec = B.load_rows(path)
    except BatchError as exc:
        st.error(BR.unreadable(path, exc), icon=":material/error:")
        return
    report(rows, spec, Path(path))


def report(rows: list[FlopRow], spec: BatchSpec, path: Path) -> None:
    """The report of a batch database: metrics, table, charts, groups, exports."""
    recs = records(rows)
    done = [r for r in recs if r.get("status") == "done"]
    st.subheader(f"{spec.name}: {len(done)} of {len(spec.flop_set())} flops")
    if not done:
        st.info("No flop finished yet.")
        return
    BR.metrics(done)
    table = _table(recs, rows, path, spec)
    mixes = [c for c in table.columns if c.startswith(("oop ", "ip vs "))]
    figs = BR.charts(done, mixes, spec, rows)
    BR.groups(rows, spec)
    BR.exports(recs, figs, path.stem)
    _line_section(spec, path)


def _table(
    recs: list[dict[str, Any]], rows: list[FlopRow], path: Path, spec: BatchSpec
) -> pd.DataFrame:
    f = st.columns(3)
    shown = recs
    for col, key in zip(f, ("suits", "pairing", "high"), strict=True):
        picked = col.multiselect(
            f"Show {key}", list(B.FILTER_VALUES[key]), key=SHOW + key, persist_state=PERSIST
        )
        if picked:
            shown = [r for r in shown if r[key] in picked]
    df = pd.DataFrame(shown)
    event = st.dataframe(
        df, key=state.REPORTS_TABLE, hide_index=True, on_select="rerun",
        selection_mode="single-row",
        height=min(420, 38 + 35 * max(len(df), 1)), column_config=BR.columns(df.columns, spec),
    )  # fmt: skip
    selected = list(getattr(getattr(event, "selection", None), "rows", []) or [])
    _open_in_explore(rows, path, df.iloc[selected[0]]["flop"] if selected else None)
    return df


def _open_in_explore(rows: list[FlopRow], path: Path, picked: str | None) -> None:
    files = {r.flop: r.solve_file for r in rows if r.done and r.solve_file}
    if not files:
        st.caption("Solves were not saved for this batch: tick *Save each solve* to open flops.")
        return
    c = st.columns([2, 1, 1])
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
    c[2].button(
        "Practice this flop", key="reports_practice", on_click=_explore,
        args=(path, files, "practice"), width="stretch", icon=":material/school:",
        help="drill the flop's solve on the Practice page (docs/trainer.md)",
    )  # fmt: skip
    err = B.open_error(state.get(OPEN_FLOP))  # (here: a click reruns only this fragment)
    if err:
        st.error(err, icon=":material/error:")


def _explore(path: Path, files: dict[str, str], page: str = "explore") -> None:
    """Load the picked flop's saved solve as the session's solve (stopping the session's
    own solve) and switch to ``page`` ("explore" or "practice": both study the session's
    solve, from the flop's first decision)."""
    flop = str(state.get(OPEN_FLOP))
    B.fail_open(flop, None)
    try:  # only from the database's own .solves folder, and only a save of this flop's spot
        loaded = B.flop_solve(path, flop, files.get(flop, ""))
    except (BatchError, ExportError) as exc:
        B.fail_open(flop, f"Cannot open {flop}'s solve: {exc}")
        return
    stop_job(state.job())
    state.put(state.JOB, None)
    state.put(state.LOADED, loaded)
    state.put(state.EXPLORE_NODE, int(loaded.game.decision_nodes()[0]))
    st.switch_page(nav.pages()[page])


# ----- the report at any line -------------------------------------------------------------------

LINE = state.REPORTS_LINE
COMPARE = state.REPORTS_COMPARE


def _line_section(spec: BatchSpec, path: Path) -> None:
    """The line picker and the report at the picked line (:mod:`app.components.line_picker`,
    :mod:`app.components.line_report_view`), with a second database to compare."""
    st.subheader("Report at any line")
    st.caption(
        "Follow a line through every flop's tree as Explore follows one: click an action, "
        "pick a turn or river card or *any* (every card, each as often as it comes). The "
        "numbers are at the node the line reaches, weighted over the flops (docs/batch.md)."
    )
    pot, stack = float(spec.template.pot), float(spec.template.stack)
    if state.get(state.REPORTS_LINE_DB) != str(path):  # a line belongs to its database
        state.put(LINE, [])
        state.put(state.REPORTS_LINE_DB, str(path))
    note = state.get(state.REPORTS_LINE_NOTE)
    if note:
        st.info(note, icon=":material/info:")
    _compare_inputs()
    steps = [str(s) for s in state.get(LINE) or []]
    compare = state.get(COMPARE)
    try:
        view = _line_view(str(path), steps, compare)
    except BatchError as exc:
        st.error(BR.unreadable(str(path), exc), icon=":material/error:")
        return
    except LineError as exc:
        if not steps:  # no flop has a tree summary (yet): nothing to walk
            st.info(f"No report at other lines: {files.without_paths(str(exc))}.",
                    icon=":material/info:")  # fmt: skip
            return
        state.put(LINE, [])  # a line kept from before the database changed: back to the flop
        state.put(state.REPORTS_LINE_NOTE, f"The line {_code(steps)!r} is not in this "
                  "database's trees: back to the flop.")  # fmt: skip
        st.rerun()
        return
    if view.get("legacy"):
        st.info(
            f"This database {LEGACY_NOTE}. The charts above show those two decisions.",
            icon=":material/info:",
        )
        return
    records, final = view["records"], view["final"]
    LP.picker(steps, view["next"], pot, stack, int(final["flops"]), _line_back, _line_push,
              state.REPORTS_LINE_CARD, _line_card)  # fmt: skip
    LV.counts(final)
    if view["compare_error"]:
        st.warning(view["compare_error"], icon=":material/compare_arrows:")
    elif compare:
        LV.compare_scope(final, files.relative_name(compare))
    LV.metrics(final)
    at = LP.step_states(steps, pot)[-1]
    agg = final["aggregate"]
    codes = [*agg["mix"], *view["next"]["actions"], *(final.get("difference") or {}).get("mix", {})]
    names = {a: LP.action_name(a, at, stack) for a in codes}
    actor = LV.PLAYERS[agg["player"]] if agg["player"] in (0, 1) else ""
    said = LP.line_text(steps, pot, stack)
    LV.charts(records, final, names, actor, said)
    street = LP.street_of_last_any(steps)
    if street is not None:
        LV.street_view(records, final, names, LP.STREET_OF_CARD[street - 1],
                       state.REPORTS_GRID_FLOP, state.REPORTS_GRID_METRIC)  # fmt: skip
    if compare and final.get("difference"):
        LV.difference(final, names, files.relative_name(compare))
    LV.flop_table(records, names, pot, stack)
    LV.groups(final, state.REPORTS_LINE_GROUP, pot, stack)
    LV.exports(records, final, f"{path.stem}-line-{B.slug(_code(steps) or 'flop')}")


def _code(steps: list[str]) -> str:
    """A line in the API's codes, as ``report --line`` reads it (``k b:33 c any``)."""
    return " ".join(s[2:] if s.startswith("d:") else s for s in steps)


def _signature(path: str) -> tuple[object, ...]:
    p = Path(path)
    return tuple(
        (q.stat().st_mtime_ns, q.stat().st_size) if q.exists() else None
        for q in (p, p.with_name(p.name + "-wal"))
    )


def _line_view(path: str, steps: list[str], compare: str | None) -> dict[str, Any]:
    """The report at ``steps`` (:func:`solver.batch.linereport.report_at`, every group key,
    the next steps offered) as the CLI's records, with ``compare``'s difference; computed
    again only when the line or a database changed. :class:`LineError` for a line the
    database lacks; ``{"legacy": True}`` for a database made before tree summaries."""
    street = LP.street_of_last_any(steps)
    key = (path, _signature(path), tuple(steps), compare,
           _signature(compare) if compare else None)  # fmt: skip
    cached = state.get(state.REPORTS_LINE_CACHE)
    if cached is not None and cached[0] == key:
        return dict(cached[1])
    with BatchStore.open(path) as store:
        legacy = not store.has_trees()
    if legacy:
        view: dict[str, Any] = {"legacy": True}
    else:
        main = report_at(path, steps, street, list(GROUP_KEYS), with_next=True)
        other = None
        problem = None
        if compare:
            name = files.relative_name(compare)
            try:
                other = report_at(compare, steps, street, list(GROUP_KEYS))
            except LineError as exc:
                problem = f"{name} has no flop with this line ({files.without_paths(str(exc))})."
            except BatchError as exc:
                problem = BR.unreadable(compare, exc)
            if other is not None and not common_flops(main, other):
                problem = (f"{name} has no flop in common with this database at this line: "
                           "nothing to compare.")  # fmt: skip
                other = None
        view = {
            "records": line_records(main, other, street),
            "final": line_final(main, other, _code(steps), files.relative_name(path),
                                files.relative_name(compare) if compare else None),
            "next": main["next"],
            "compare_error": problem,
        }  # fmt: skip
    state.put(state.REPORTS_LINE_CACHE, (key, view))
    return view


def _line_back(keep: int) -> None:
    state.put(LINE, list(state.get(LINE) or [])[:keep])
    state.put(state.REPORTS_LINE_NOTE, None)


def _line_push(code: str) -> None:
    state.put(LINE, [*(state.get(LINE) or []), code])
    state.put(state.REPORTS_LINE_NOTE, None)


def _line_card() -> None:
    picked = state.get(state.REPORTS_LINE_CARD)
    state.put(state.REPORTS_LINE_CARD, None)
    if picked:
        _line_push("any" if picked == "any" else "d:" + str(picked))


def _compare_inputs() -> None:
    c = st.columns([3, 1, 1], vertical_alignment="bottom")
    c[0].text_input(
        "Compare with a second database", key=state.REPORTS_COMPARE_PATH,
        placeholder="three-sizes.db", persist_state=PERSIST,
        help=f"a name in {files.folder_label()}: the same spot with other sizes, stacks or "
        "rake, on the same flops or some of them",
    )  # fmt: skip
    c[1].button("Compare", key="reports_compare_open", on_click=_open_compare, width="stretch")
    c[2].button(
        "Stop comparing", key="reports_compare_clear", on_click=_clear_compare,
        disabled=not state.get(COMPARE), width="stretch",
    )  # fmt: skip
    err = state.get(state.REPORTS_COMPARE_ERROR)
    if err:
        st.error(err, icon=":material/error:")
    compare = state.get(COMPARE)
    if compare:
        st.caption(f"Comparing with {files.relative_name(compare)!r}: each difference is this "
                   "database − that one.")  # fmt: skip


def _open_compare() -> None:
    state.put(state.REPORTS_COMPARE_ERROR, None)
    try:
        path = files.in_batch_folder(str(state.get(state.REPORTS_COMPARE_PATH) or ""))
        if not path.is_file():
            raise BatchError("Database file", f"no database {files.relative_name(path)!r} in "
                             f"{files.folder_label()}")  # fmt: skip
        BatchStore.open(path).close()
    except BatchError as exc:
        state.put(state.REPORTS_COMPARE_ERROR,
                  files.without_paths(f"Cannot compare: {exc.message}"))  # fmt: skip
        return
    state.put(COMPARE, str(path))


def _clear_compare() -> None:
    state.put(COMPARE, None)
    state.put(state.REPORTS_COMPARE_ERROR, None)
