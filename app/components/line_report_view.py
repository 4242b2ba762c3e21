"""A batch's report at a line (the Reports page's line picker): how many flops have the line
and which lack it, the weighted numbers (how often the line is reached, both players' EV,
equity and EQR), the mix per flop, per hand class and per bet size, the per-flop table, the
groups (textures; with a turn or river card ``any``: the card's rank and what it does to the
board), a street's card grid per flop, a second database's difference, and the downloads.

Data in, elements out: the records are :func:`solver.batch.linereport.line_records` and
:func:`~solver.batch.linereport.line_final`'s (the CLI's ``report --line --json`` lines),
shown in words (actions by ``names`` {code: words}); the downloads keep the codes. Widget
keys come from the page."""

from __future__ import annotations

import itertools
import json
import math
from collections.abc import Sequence
from typing import Any

import pandas as pd
import plotly.graph_objects as go
import streamlit as st

from app.components import batch_figures as BF
from app.components import report_columns as RC
from app.components.fields import PERSIST
from solver.batch.linereport import describe_definitions, flat_record
from solver.batch.lines import RELATIONS
from solver.batch.report import json_safe, to_csv

RELATION_WORDS = {
    "pairs_board": "pairs the board",
    "flush": "completes a flush",
    "straight": "completes a straight",
    "overcard": "overcard",
    "blank": "blank",
}
GROUP_WORDS = {
    "suits": "Suits",
    "pairing": "Pairing",
    "high": "High card",
    "connect": "Connectedness",
    "rank": "Card's rank",
    "relation": "What the card does",
}
PLAYERS = ("OOP", "IP")


def _num(x: object) -> float:
    return float(x) if isinstance(x, (int, float)) and math.isfinite(float(x)) else math.nan


def _pct(x: object, digits: int = 1) -> str:
    v = _num(x)
    return f"{100 * v:.{digits}f}%" if math.isfinite(v) else "—"


def _chips(x: object) -> str:
    v = _num(x)
    return f"{v:.2f}" if math.isfinite(v) else "—"


def is_bet(code: str) -> bool:
    return code.startswith(("b:", "r:"))


def counts(final: dict[str, Any]) -> None:
    """How many flops the numbers are over, and the flops that lack the line, named."""
    n = int(final["flops"])
    missing = list(final.get("without_line") or [])
    no_summary = int(final.get("flops_without_summary") or 0)
    total = n + len(missing) + no_summary
    if missing:
        st.warning(
            f"{len(missing)} of {total} flops lack this line (their trees do not offer it "
            f"there, or it is too rare for their summaries): {', '.join(missing)}. The "
            f"numbers below are over the {n} flop{'s' if n != 1 else ''} that have it.",
            icon=":material/filter_alt:",
        )
    else:
        st.caption(f"All {n} flops have this line." if n != 1 else "The flop has this line.")
    if no_summary:
        st.caption(f"{no_summary} flop(s) have no tree summary (left out).")
    st.caption(f"Definitions: {describe_definitions(final)}.")


def compare_scope(final: dict[str, Any], other: str) -> None:
    """Which flops a comparison is over (those both databases have the line on) and which
    it leaves out, named."""
    common = list(final.get("common_flops") or [])
    if not common:
        return
    left = final.get("left_out") or {}
    parts = [
        f"{', '.join(flops)} (only in {who})"
        for who, flops in (("this database", left.get("this")), (other, left.get("compare")))
        if flops
    ]
    n = len(common)
    said = (
        f"Compared on the {n} flop{'s' if n != 1 else ''} both databases have this line on "
        f"({', '.join(common)}): the metrics and their differences are over "
        f"{'those' if n != 1 else 'it'}."
    )
    if parts:
        st.warning(f"{said} Left out: {'; '.join(parts)}.", icon=":material/compare_arrows:")
    else:
        st.caption(said)
    theirs = (final.get("compare") or {}).get("mix_definition")
    if theirs and theirs != final.get("mix_definition"):
        st.warning(
            f"The two databases define the mix differently ({final.get('mix_definition')} "
            f"here, {theirs} in {other}): run the older batch again to compare mixes.",
            icon=":material/warning:",
        )


def metrics(final: dict[str, Any]) -> None:
    """The weighted numbers at the line; with a second database, this one's over the flops
    both have the line on and the difference as deltas (EV in chips and % of the pot)."""
    d = final.get("difference")
    agg = final["common_aggregate"] if d else final["aggregate"]
    m = st.columns(6)

    def delta(key: str, i: int | None = None, scale: float = 1.0, fmt: str = "+.2f") -> Any:
        if not d:
            return None
        v = d[key] if i is None else d[key][i]
        v = _num(v)
        if not math.isfinite(v):
            return None
        text = f"{scale * v:{fmt}}" + (" points" if scale == 100 else "")
        if key == "ev" and i is not None:
            text += f" ({_num(d['ev_pct_pot'][i]):+.1f}% pot)"
        return text

    m[0].metric("Line reached", _pct(agg["reach"], 2), delta=delta("reach", None, 100, "+.2f"),
                help="how often both players take the line (card steps included), weighted "
                "over the flops")  # fmt: skip
    m[1].metric("OOP EV (line, chips)", _chips(agg["ev"][0]), delta=delta("ev", 0))
    m[2].metric("IP EV (line, chips)", _chips(agg["ev"][1]), delta=delta("ev", 1))
    m[3].metric("OOP equity (line)", _pct(agg["equity"][0]), delta=delta("equity", 0, 100, "+.1f"))
    m[4].metric("OOP EQR (line)", _chips(agg["eqr"][0]), delta=delta("eqr", 0))
    m[5].metric("IP EQR (line)", _chips(agg["eqr"][1]), delta=delta("eqr", 1))


def flop_table(
    records: Sequence[dict[str, Any]], names: dict[str, str], pot: float, stack: float
) -> pd.DataFrame:
    """The per-flop table in words (records keep their codes): textures, reach, the mix,
    EVs, equities, EQRs; with a second database the differences (the flops that differ most
    first, as the records come)."""
    rows = []
    for rec in records:
        row: dict[str, Any] = {k: rec[k] for k in ("flop", "weight", "suits", "pairing")}
        row["reach"] = rec["reach"]
        for a, f in rec["mix"].items():
            row[f"mix {a}"] = f
        for p, who in enumerate(("oop", "ip")):
            for key in ("ev", "equity", "eqr"):
                row[f"{who}_{key}"] = rec[key][p]
        d = rec.get("difference")
        if d:
            row["diff oop_ev"] = d["ev"][0]
            row["diff oop_ev_pct"] = d["ev_pct_pot"][0]
            row["diff ip_ev"] = d["ev"][1]
            row["diff reach"] = d["reach"]
            for a, f in d["mix"].items():
                row[f"diff mix {a}"] = f
        rows.append(row)
    df = pd.DataFrame(rows)
    st.dataframe(
        df, hide_index=True, key="reports_line_table",
        height=min(420, 38 + 35 * max(len(df), 1)), column_config=_columns(df.columns, names,
                                                                           pot, stack),
    )  # fmt: skip
    return df


def _columns(keys: Sequence[str], names: dict[str, str], pot: float, stack: float) -> dict:
    out = RC.column_config(keys, pot, stack)
    pct = st.column_config.NumberColumn
    for k in keys:
        if k == "reach":
            out[k] = pct("Line reached", format="percent")
        elif k.startswith("mix "):
            out[k] = pct(names.get(k[4:], k[4:]), format="percent")
        elif k.startswith("diff mix "):
            out[k] = pct(f"Δ {names.get(k[9:], k[9:])}", format="percent")
        elif k == "diff oop_ev":
            out[k] = pct("Δ OOP EV (chips)", format="%+.2f")
        elif k == "diff oop_ev_pct":
            out[k] = pct("Δ OOP EV (% pot)", format="%+.2f")
        elif k == "diff ip_ev":
            out[k] = pct("Δ IP EV (chips)", format="%+.2f")
        elif k == "diff reach":
            out[k] = pct("Δ line reached", format="percent")
        elif k == "rows":
            out[k] = st.column_config.Column("Group")
    return out


def charts(
    records: Sequence[dict[str, Any]], final: dict[str, Any], names: dict[str, str],
    actor: str, said: str,
) -> dict[str, go.Figure]:  # fmt: skip
    """The mix per flop, per hand class and per size (a decision node's); returns the figures
    drawn by download name."""
    agg = final["aggregate"]
    figs: dict[str, go.Figure] = {}
    if not agg["mix"]:
        st.caption("A card is dealt here: pick one (or any) to see the next decision's mix.")
        return figs
    tabs = st.tabs(["Mix per flop", "Hand classes", "Sizes"])
    with tabs[0]:
        figs["line-mix"] = BF.line_mix_bars(records, agg["mix"], names, f"{actor}'s mix: {said}")
        st.plotly_chart(figs["line-mix"], key="reports_fig_line")
    with tabs[1]:
        cls = {"actions": list(agg["mix"]), "classes": agg["classes"]}
        if any(c["mix"] for c in agg["classes"]):
            figs["line-classes"] = BF.class_bars(
                cls, f"{actor}'s mix per hand class (weighted over the flops)", names=names
            )
            st.plotly_chart(figs["line-classes"], key="reports_fig_line_classes")
        else:
            st.caption("No hand class reaches this line.")
    with tabs[2]:
        sizes = agg.get("sizes")
        if sizes:
            table = [{"size": names.get(a, a), "frequency": f} for a, f in sizes.items()
                     if a != "bets"]  # fmt: skip
            table.append({"size": "all bets and raises", "frequency": sizes["bets"]})
            st.dataframe(
                pd.DataFrame(table), hide_index=True, key="reports_line_sizes",
                column_config={"size": st.column_config.Column("Size"),
                               "frequency": st.column_config.NumberColumn("Frequency",
                                                                          format="percent")},
            )  # fmt: skip
            per_flop = [
                {"flop": r["flop"], **{names.get(a, a): f for a, f in r["mix"].items()
                                       if is_bet(a)}}
                for r in records
            ]  # fmt: skip
            st.dataframe(
                pd.DataFrame(per_flop), hide_index=True, key="reports_line_sizes_flops",
                column_config={n: st.column_config.NumberColumn(n, format="percent")
                               for n in (names.get(a, a) for a in sizes if a != "bets")},
            )  # fmt: skip
        else:
            st.caption("One bet size (or none) here: the mix above says it all.")
    return figs


def groups(final: dict[str, Any], key: str, pot: float, stack: float) -> None:
    """The weighted numbers per group of the picked key (``key``: the selectbox's widget
    key): textures, and with a street's card the card's rank and what it does."""
    options = list(final["groups"])
    if not options:
        return
    by = str(
        st.selectbox(
            "Aggregate by", options, key=key, persist_state=PERSIST,
            format_func=lambda k: GROUP_WORDS.get(str(k), str(k)),
        )
    )  # fmt: skip
    if by not in final["groups"]:
        return
    table = []
    for value, rec in _ordered(by, final["groups"][by]):
        row: dict[str, Any] = {"group": _group_name(by, value), "flops": rec["flops"],
                               "weight": rec["weight"], "reach": rec["reach"]}  # fmt: skip
        for a, f in rec["mix"].items():
            row[f"mix {a}"] = f
        row["oop_ev"], row["ip_ev"] = rec["ev"]
        row["oop_equity"] = rec["equity"][0]
        row["oop_eqr"] = rec["eqr"][0]
        table.append(row)
    df = pd.DataFrame(table)
    cfg = _columns(list(df.columns), {}, pot, stack)
    cfg["group"] = st.column_config.Column(GROUP_WORDS.get(by, by))
    st.dataframe(df, hide_index=True, key="reports_line_groups", column_config=cfg)


def _ordered(by: str, values: dict[str, Any]) -> list[tuple[str, Any]]:
    if by == "relation":
        return [(r, values[r]) for r in RELATIONS if r in values]
    if by == "rank":
        return [(r, values[r]) for r in BF.GRID_RANKS if r in values]
    return list(values.items())


def _group_name(by: str, value: str) -> str:
    if by == "relation":
        return RELATION_WORDS.get(value, value)
    return value


def street_view(
    records: Sequence[dict[str, Any]], final: dict[str, Any], names: dict[str, str],
    street: str, flop_key: str, metric_key: str,
) -> dict[str, go.Figure]:  # fmt: skip
    """The turn (or river) report: the mix per card group (what the card does to the board,
    and its rank) over the flops, and one flop's card grid (``flop_key``: which flop,
    ``metric_key``: what colours it)."""
    figs: dict[str, go.Figure] = {}
    agg = final["aggregate"]
    tabs = st.tabs([f"By {street} card", "Card grid"])
    with tabs[0]:
        rel = final["groups"].get("relation") or {}
        if agg["mix"] and rel:
            rows = [(f"{RELATION_WORDS.get(r, r)} ({_pct(v['reach'], 2)})", v["mix"])
                    for r, v in _ordered("relation", rel)]  # fmt: skip
            figs["line-relation"] = BF.group_bars(
                rows, names, f"The mix by what the {street} card does (how often reached)"
            )
            st.plotly_chart(figs["line-relation"], key="reports_fig_relation")
            ranks = final["groups"].get("rank") or {}
            rows = [(r, v["mix"]) for r, v in _ordered("rank", ranks)]
            figs["line-rank"] = BF.group_bars(rows, names, f"The mix by the {street} card's rank")
            st.plotly_chart(figs["line-rank"], key="reports_fig_rank")
        else:
            st.caption("The groups' numbers are in the table below (Aggregate by).")
    with tabs[1]:
        flops = [r["flop"] for r in records if r.get("cards")]
        if not flops:
            st.caption("No flop deals a card on this line.")
            return figs
        c = st.columns(2)
        flop = str(c[0].selectbox("Flop", flops, key=flop_key, persist_state=PERSIST))
        metrics_ = _grid_metrics(agg, names)
        metric = str(
            c[1].selectbox(
                "Colour by", list(metrics_), key=metric_key, persist_state=PERSIST,
                format_func=lambda k: metrics_.get(str(k), (str(k), ""))[0],
            )
        )  # fmt: skip
        if flop not in flops or metric not in metrics_:
            return figs
        rec = next(r for r in records if r["flop"] == flop)
        values = {card: _grid_value(v, metric) for card, v in rec["cards"].items()}
        if street == "turn":
            values = same_suits(values, flop)
        title, unit = metrics_[metric]
        figs["card-grid"] = BF.card_grid(values, f"{flop}: {title} per {street} card", unit)
        st.plotly_chart(figs["card-grid"], key="reports_fig_grid")
        st.caption(
            f"Blank cells: cards the line never deals on {flop} (on the board, or too rare for "
            "the summary). "
            + (
                "Cards alike under suit symmetry show the same numbers."
                if street == "turn"
                else "Cards alike under suit symmetry are shown once."
            )
        )
    return figs


def same_suits(values: dict[str, float | None], flop: str) -> dict[str, float | None]:
    """A turn's per-card numbers with every card the flop's suit symmetry makes alike filled
    in: the records hold a class of such cards once (on Ks9s5s, Ah stands for Ad and Ac)."""
    from solver.batch.lines import card_ints
    from solver.poker.cards import card_str, parse_card

    board = set(card_ints(flop))
    perms = [
        q
        for q in itertools.permutations(range(4))
        if {(c // 4) * 4 + q[c % 4] for c in board} == board
    ]
    out = dict(values)
    for name, v in values.items():
        c = parse_card(name)
        for q in perms:
            out.setdefault(card_str((c // 4) * 4 + q[c % 4]), v)
    return out


def _grid_metrics(agg: dict[str, Any], names: dict[str, str]) -> dict[str, tuple[str, str]]:
    out: dict[str, tuple[str, str]] = {}
    if any(is_bet(a) for a in agg["mix"]):
        out["bets"] = ("bets and raises (all sizes)", "%")
    for a in agg["mix"]:
        out["act:" + a] = (names.get(a, a), "%")
    out["ev:0"] = ("OOP EV (chips)", "chips")
    out["ev:1"] = ("IP EV (chips)", "chips")
    out["equity:0"] = ("OOP equity", "%")
    out["reach"] = ("how often the line is reached", "%")
    return out


def _grid_value(rec: dict[str, Any], metric: str) -> float | None:
    if metric == "bets":
        return sum(f for a, f in rec["mix"].items() if is_bet(a)) if rec["mix"] else None
    if metric.startswith("act:"):
        return rec["mix"].get(metric[4:]) if rec["mix"] else None
    if metric == "reach":
        return _num(rec["reach"])
    key, i = metric.split(":")
    return _num(rec[key][int(i)])


def difference(final: dict[str, Any], names: dict[str, str], other: str) -> None:
    """The aggregate difference (this database − ``other``) in words."""
    d = final.get("difference")
    if not d:
        return
    parts = [f"{names.get(a, a)} {100 * _num(f):+.1f} points" for a, f in d["mix"].items()]
    n = len(final.get("common_flops") or [])
    st.markdown(
        f"**This database − {other}** (over the {n} flop{'s' if n != 1 else ''} both have "
        f"the line on): line reached {100 * _num(d['reach']):+.2f} points; "
        + ("; ".join(parts) + "; " if parts else "")
        + f"OOP EV {_num(d['ev'][0]):+.2f} chips ({_num(d['ev_pct_pot'][0]):+.2f}% pot), "
        f"IP EV {_num(d['ev'][1]):+.2f} chips ({_num(d['ev_pct_pot'][1]):+.2f}% pot). "
        "The table lists the flops that differ most in OOP's EV first."
    )


def exports(records: Sequence[dict[str, Any]], final: dict[str, Any], stem: str) -> None:
    """What is shown, with the codes: the per-flop table as CSV; the records and the final
    (aggregate, groups, difference) as JSON, the lines of ``report --line --json``."""
    c = st.columns(2)
    c[0].download_button(
        "Line table CSV", data=lambda: csv_text(records), file_name=f"{stem}.csv",
        mime="text/csv", key="reports_line_csv", on_click="ignore",
    )  # fmt: skip
    c[1].download_button(
        "Line report JSON", data=lambda: json_text(records, final), file_name=f"{stem}.json",
        mime="application/json", key="reports_line_json", on_click="ignore",
    )  # fmt: skip


def csv_text(records: Sequence[dict[str, Any]]) -> str:
    return to_csv([flat_record(r) for r in records])


def json_text(records: Sequence[dict[str, Any]], final: dict[str, Any]) -> str:
    return json.dumps(json_safe([*records, final]), indent=1)
