"""The parts of a batch report (the Reports page): the progress bar, the weighted metrics, the
charts' tabs, the per-group table and the downloads. Each takes the database's rows or table
records and draws elements; none reads the session's state or starts work (the page does,
:mod:`app.screens.reports`). Widget keys: ``rep_*`` kept across pages, ``reports_*`` not."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app import files, state
from app.components import batch_figures as BF
from app.components import report_columns as RC
from app.components.fields import PERSIST
from app.components.images import html_bytes, image_bytes, image_problem
from solver.batch.report import (
    GROUP_KEYS,
    aggregate,
    aggregate_groups,
    class_aggregate,
    class_nodes,
    format_eta,
    json_safe,
    table_rows,
    to_csv,
)
from solver.batch.spec import BatchError, BatchSpec
from solver.batch.store import FlopRow

P = state.REPORTS_PREFIX
HEAT_METRIC = P + "heat_metric"  # selectbox: a HEAT_METRICS key
GROUP_BY = P + "group_by"  # selectbox: a GROUP_KEYS key
CLASS_NODE = P + "class_node"  # selectbox: the hand-class chart's player and node
FORMAT = P + "fmt_"  # + figure name: its download format
HEAT_METRICS = {
    "oop_bet": "OOP bet frequency (%)",
    "oop_ev": "OOP EV (chips)",
    "oop_equity": "OOP equity",
    "oop_eqr": "OOP EQR",
}


def unreadable(path: str, exc: BatchError) -> str:
    """Why a database cannot be shown, naming it as the page does (relative to the batch
    folder: never the server's absolute path) and then the file's problem."""
    name = files.relative_name(path)
    text = exc.message
    for prefix in (f"{path}: ", f"{path} "):
        text = text.removeprefix(prefix)
    return f"Cannot read {name!r}: {text.replace(path, repr(name))}"


def progress(p: Any) -> None:
    """A running or finished batch's bar (``p``: :class:`solver.batch.job.BatchProgress`)."""
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


def weighted(recs: list[dict[str, Any]], col: str) -> float:
    """The flops' weighted mean of ``col`` over the records that have it (NaN: none)."""
    pts = [(r["weight"], r[col]) for r in recs if r.get(col) is not None]
    total = sum(w for w, _ in pts)
    return sum(w * v for w, v in pts) / total if total else float("nan")


def metrics(done: list[dict[str, Any]]) -> None:
    m = st.columns(5)
    m[0].metric("OOP EV (weighted)", f"{weighted(done, 'oop_ev'):.2f}")
    m[1].metric("IP EV (weighted)", f"{weighted(done, 'ip_ev'):.2f}")
    m[2].metric("OOP equity", f"{100 * weighted(done, 'oop_equity'):.1f}%")
    m[3].metric("OOP bets", f"{100 * weighted(done, 'oop_bet'):.1f}%")
    m[4].metric("Exploitability (mean)", f"{weighted(done, 'exploitability_pct_pot'):.2f}% pot")


def columns(keys: Iterable[str], spec: BatchSpec) -> dict[str, Any]:
    """The tables' column titles and formats in words, for the batch's pot and stack."""
    return RC.column_config(keys, float(spec.template.pot), float(spec.template.stack))


def charts(
    done: list[dict[str, Any]], mixes: list[str], spec: BatchSpec, rows: list[FlopRow]
) -> dict[str, go.Figure]:
    """The charts' tabs; returns the figures drawn, by download name."""
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
    st.caption(
        "These mixes weight each hand by its own range, as Explore's aggregate frequencies; "
        "the report at any line below gives them as dealt (card removal against the "
        "opponent's range included), so at the same node the two can differ a little."
    )
    return figs


def groups(rows: list[FlopRow], spec: BatchSpec) -> None:
    """The weighted aggregate of all flops and of each group of the chosen key."""
    key = st.selectbox("Aggregate by", list(GROUP_KEYS), key=GROUP_BY, persist_state=PERSIST)
    table = []
    by_group = {"all flops": aggregate(rows), **aggregate_groups(rows, key)}
    for group, agg in by_group.items():
        v = agg["values"]
        rec: dict[str, Any] = {key: group, "flops": agg["flops"], "weight": agg["weight"]}
        rec.update({k: v[k] for k in ("oop_ev", "ip_ev", "oop_equity", "oop_eqr") if k in v})
        rec.update({k: v[k] for k in v if k.startswith("oop ")})
        table.append(rec)
    df = pd.DataFrame(table)
    st.dataframe(df, hide_index=True, key="reports_groups", column_config=columns(df, spec))


def figure_data(fig: go.Figure, fmt: str) -> Callable[[], bytes]:
    """A download callable: the figure as PNG/SVG (kaleido) or HTML, built on click."""
    return lambda: html_bytes(fig) if fmt == "html" else image_bytes(fig, fmt)


def exports(recs: list[dict[str, Any]], figs: dict[str, go.Figure], stem: str) -> None:
    """The table as CSV and JSON and each figure in a chosen format, files named ``stem…``."""
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
                name, formats, key=FORMAT + name, persist_state=PERSIST, help=no_images or None,
            )
        )  # fmt: skip
        col.download_button(
            f"{name}.{fmt}",
            data=figure_data(fig, fmt),
            file_name=f"{stem}-{name}.{fmt}",
            key="reports_dl_" + name,
            on_click="ignore",
        )
