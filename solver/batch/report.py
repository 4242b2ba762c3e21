"""Reports of a batch: the per-flop table and weighted aggregates.

A flop's row (:func:`flop_record`) flattens its summary: ``flop``, ``weight``, the texture
(``suits``, ``pairing``, ``high``, ``connect``), ``ev`` / ``equity`` / ``eqr`` ([OOP, IP]),
``oop_mix`` ({action: frequency}), ``ip_mix`` ({OOP action: {IP action: frequency}}),
``exploitability_pct_pot``, ``iterations``, ``seconds``. The table (:func:`table_rows`) has
one flat column per number (``oop_ev``, ``oop_equity``, ``oop_eqr``, ``oop k``, ``oop b:50``,
``ip vs k: b:100`` …) for CSV and the app.

The **aggregate** over a set of flops is the weighted mean of every number, each flop
weighted by its weight (the raw flops it stands for; in a subset, the re-fitted weight), so
it estimates the value over all 22,100 flops — e.g. OOP's bet frequency is the share of
dealt flops (not of combos) on which the range bets. An action a flop's tree lacks counts as
frequency 0 there. :func:`aggregate_groups` gives the same per texture group.
"""

from __future__ import annotations

import csv
import io
import math
from collections.abc import Iterable, Sequence
from typing import Any

from solver.batch.store import FlopRow
from solver.batch.treedata import MIX_OWN_RANGE

GROUP_KEYS = ("suits", "pairing", "high", "connect")


def flop_record(row: FlopRow) -> dict[str, Any]:
    """The JSON line of a finished flop (the ``batch --json`` and ``report --json`` fields)."""
    s = row.summary
    out: dict[str, Any] = {
        "flop": row.flop,
        "weight": row.weight,
        "suits": row.suits,
        "pairing": row.pairing,
        "high": row.high,
        "connect": row.connect,
        "status": row.status,
    }
    if not row.done:
        out["error"] = row.error
        out["seconds"] = row.seconds
        return out
    out.update(
        {
            "ev": s.get("ev"),
            "equity": s.get("equity"),
            "eqr": s.get("eqr"),
            "oop_mix": s.get("oop_mix", {}),
            "ip_mix": s.get("ip_mix", {}),
            "exploitability_pct_pot": s.get("exploitability_pct_pot"),
            "iterations": s.get("iterations"),
            "seconds": row.seconds,
            "pot": s.get("pot"),
            "memory_bytes": s.get("memory_bytes"),
            "stopped_by": s.get("stopped_by"),
        }
    )
    if row.solve_file:
        out["solve_file"] = row.solve_file
    return out


def numbers(row: FlopRow) -> dict[str, float]:
    """The flop's numbers as flat columns (NaN where missing or null). The row's summary is
    as :meth:`~solver.batch.store.BatchStore.rows` checked it (shapes, finite numbers)."""
    s = row.summary
    out: dict[str, float] = {}
    for p, who in enumerate(("oop", "ip")):
        for key in ("ev", "equity", "eqr"):
            vals = s.get(key) or [None, None]
            v = vals[p] if p < len(vals) else None
            out[f"{who}_{key}"] = float(v) if v is not None else math.nan
    for a, f in (s.get("oop_mix") or {}).items():
        out[f"oop {a}"] = float(f) if f is not None else math.nan
    for a, mix in (s.get("ip_mix") or {}).items():
        for b, f in mix.items():
            out[f"ip vs {a}: {b}"] = float(f) if f is not None else math.nan
    for key in ("exploitability_pct_pot", "iterations"):
        v = s.get(key)
        out[key] = float(v) if v is not None else math.nan
    out["seconds"] = row.seconds
    return out


def mix_columns(rows: Iterable[FlopRow]) -> list[str]:
    """Every action-frequency column of the rows, in first-seen order."""
    cols: dict[str, None] = {}
    for r in rows:
        for k in numbers(r):
            if k.startswith(("oop ", "ip vs ")):
                cols[k] = None
    return list(cols)


def table_rows(rows: Sequence[FlopRow]) -> list[dict[str, Any]]:
    """One flat dict per finished flop (failed flops show their error), for CSV and tables.
    Action columns a flop lacks are 0 (the action does not exist in its tree)."""
    done = [r for r in rows if r.done]
    mixes = mix_columns(done)
    out = []
    for r in rows:
        rec: dict[str, Any] = {
            "flop": r.flop,
            "weight": r.weight,
            "suits": r.suits,
            "pairing": r.pairing,
            "high": r.high,
            "connect": r.connect,
            "status": r.status,
        }
        if r.done:
            nums = numbers(r)
            for k, v in nums.items():
                if not k.startswith(("oop ", "ip vs ")):
                    rec[k] = v
            for k in mixes:
                rec[k] = nums.get(k, 0.0)
        else:
            rec["error"] = r.error
        out.append(rec)
    return out


def aggregate(rows: Iterable[FlopRow]) -> dict[str, Any]:
    """Weighted means over the finished flops of ``rows``: ``{"flops", "weight", "values":
    {column: mean}}`` (NaN-valued entries skip that flop for that column)."""
    done = [r for r in rows if r.done]
    mixes = mix_columns(done)
    sums: dict[str, float] = {}
    weights: dict[str, float] = {}
    for r in done:
        nums = numbers(r)
        for k in mixes:
            nums.setdefault(k, 0.0)
        for k, v in nums.items():
            if math.isnan(v):
                continue
            sums[k] = sums.get(k, 0.0) + r.weight * v
            weights[k] = weights.get(k, 0.0) + r.weight
    values = {k: sums[k] / weights[k] for k in sums if weights[k] > 0}
    return {
        "flops": len(done),
        "weight": sum(r.weight for r in done),
        "values": values,
    }


def aggregate_groups(rows: Sequence[FlopRow], key: str) -> dict[str, dict[str, Any]]:
    """:func:`aggregate` for each value of texture field ``key`` (suits, pairing, high,
    connect), in the order the values first appear."""
    if key not in GROUP_KEYS:
        raise ValueError(f"group by one of {', '.join(GROUP_KEYS)}")
    groups: dict[str, list[FlopRow]] = {}
    for r in rows:
        groups.setdefault(str(getattr(r, key)), []).append(r)
    return {g: aggregate(rs) for g, rs in groups.items()}


def class_nodes(rows: Iterable[FlopRow]) -> list[str]:
    """The nodes with per-class mixes in the summaries (``oop``, ``ip vs k``, …)."""
    out: dict[str, None] = {}
    for r in rows:
        if r.done:
            out.update(dict.fromkeys(r.summary.get("classes", {})))
    return list(out)


def class_aggregate(rows: Iterable[FlopRow], node: str = "oop") -> dict[str, Any]:
    """Per hand class at a root node, over the finished flops: ``{"actions": [...],
    "classes": [{"class", "kind", "combos", "mix": {action: frequency}}]}``. ``combos`` is
    the weighted mean number of (range-weighted) combos of the class per flop; ``mix`` the
    action frequencies over every flop's combos of the class, each flop counted by its
    weight (flop weight × the class's combos on it). Classes in strength order (made, then
    draws)."""
    from solver.poker.handclass import DRAWS, MADE

    order = {k: i for i, k in enumerate((*MADE, *DRAWS))}
    total_w = 0.0
    combos: dict[str, float] = {}
    kinds: dict[str, str] = {}
    mass: dict[str, dict[str, float]] = {}
    actions: list[str] = []
    for r in rows:
        if not r.done:
            continue
        s = r.summary
        node_actions = (s.get("actions") or {}).get(node)
        table = (s.get("classes") or {}).get(node)
        if not node_actions or table is None:
            continue
        total_w += r.weight
        for a in node_actions:
            if a not in actions:
                actions.append(a)
        for c in table:
            key = str(c["class"])
            kinds[key] = str(c["kind"])
            combos[key] = combos.get(key, 0.0) + r.weight * float(c["combos"])
            if c.get("mix") is None:
                continue
            m = mass.setdefault(key, {})
            for a, f in zip(node_actions, c["mix"], strict=True):
                m[a] = m.get(a, 0.0) + r.weight * float(c["combos"]) * float(f)
    classes = []
    for key in sorted(combos, key=lambda k: order.get(k, len(order))):
        w = combos[key]
        mix = {a: mass.get(key, {}).get(a, 0.0) / w for a in actions} if w > 0 else {}
        classes.append({"class": key, "kind": kinds[key], "combos": w / total_w, "mix": mix})
    return {"actions": actions, "classes": classes}


def final_record(rows: Sequence[FlopRow], **extra: Any) -> dict[str, Any]:
    """The last JSON line of ``batch --json`` and ``report --json``; ``mix_definition`` says
    how ``oop_mix``/``ip_mix`` weight the hands: ``own_range``, each by its own range weight
    (Explore's aggregate; a line report's mixes are as dealt, docs/batch.md)."""
    return {
        "final": True,
        **extra,
        "mix_definition": MIX_OWN_RANGE,
        "flops_done": sum(1 for r in rows if r.done),
        "flops_failed": sum(1 for r in rows if not r.done),
        "aggregate": aggregate(rows),
        "groups": {k: aggregate_groups(rows, k) for k in ("suits", "pairing")},
    }


def to_csv(records: Sequence[dict[str, Any]]) -> str:
    """CSV text of flat records (columns: union of keys in first-seen order)."""
    cols: dict[str, None] = {}
    for rec in records:
        cols.update(dict.fromkeys(rec))
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(cols), extrasaction="ignore", lineterminator="\n")
    w.writeheader()
    for rec in records:
        w.writerow({k: _cell(v) for k, v in rec.items()})
    return buf.getvalue()


def _cell(v: Any) -> Any:
    if isinstance(v, float) and math.isnan(v):
        return ""
    return v


def json_safe(obj: Any) -> Any:
    """``obj`` with NaN/inf floats as None (strict JSON)."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj


def text_table(rows: Sequence[FlopRow], limit: int | None = None) -> str:
    """A fixed-width table for the terminal: flop, weight, texture, EVs, equity, OOP's mix,
    exploitability, iterations, seconds; then the weighted aggregate."""
    done = [r for r in rows if r.done]
    mixes = [c for c in mix_columns(done) if c.startswith("oop ")]
    head = ["flop", "weight", "texture", "oop ev", "ip ev", "oop eq", *mixes, "expl %", "iters"]
    lines = ["  ".join(f"{h:>10s}" if i else f"{h:8s}" for i, h in enumerate(head))]
    shown = rows if limit is None else rows[:limit]
    for r in shown:
        if not r.done:
            lines.append(f"{r.flop:8s}  {r.weight:10.2f}  failed: {r.error}")
            continue
        n = numbers(r)
        cells = [
            f"{r.weight:10.2f}",
            f"{(r.suits[:4] + ' ' + r.pairing[:4]):>10s}",
            f"{n['oop_ev']:10.2f}",
            f"{n['ip_ev']:10.2f}",
            f"{100 * n['oop_equity']:9.1f}%",
            *(f"{100 * n.get(c, 0.0):9.1f}%" for c in mixes),
            f"{n['exploitability_pct_pot']:10.3f}",
            f"{n['iterations']:10.0f}",
        ]
        lines.append(f"{r.flop:8s}  " + "  ".join(cells))
    if limit is not None and len(rows) > limit:
        lines.append(f"… {len(rows) - limit} more flops")
    agg = aggregate(rows)["values"]
    if agg:
        cells = [
            f"{sum(r.weight for r in done):10.0f}",
            f"{'all':>10s}",
            f"{agg.get('oop_ev', math.nan):10.2f}",
            f"{agg.get('ip_ev', math.nan):10.2f}",
            f"{100 * agg.get('oop_equity', math.nan):9.1f}%",
            *(f"{100 * agg.get(c, 0.0):9.1f}%" for c in mixes),
            f"{agg.get('exploitability_pct_pot', math.nan):10.3f}",
            f"{agg.get('iterations', math.nan):10.0f}",
        ]
        lines.append(f"{'weighted':8s}  " + "  ".join(cells))
    return "\n".join(lines)


def format_eta(seconds: float | None) -> str:
    """``"12 s"``, ``"4 min"``, ``"2.5 h"``; ``"—"`` when unknown."""
    if seconds is None or not math.isfinite(seconds):
        return "—"
    if seconds < 90:
        return f"{seconds:.0f} s"
    if seconds < 5400:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"
