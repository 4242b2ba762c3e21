"""``python -m solver report DB --line LINE [--street turn|river] [--group KEY]
[--compare DB2] [--json|--csv OUT]``: a batch's report at any line (:mod:`solver.batch.lines`).

Output (``--json``): one line per flop that has the line — ``flop``, ``weight``, the
texture, ``reach``, ``mix`` {action: frequency}, ``ev``/``equity``/``eqr`` [OOP, IP],
``pot``, ``player``, ``sizes`` (where several bet sizes), ``classes``; with ``--street`` a
``cards`` object (each card the tree deals there, suit-isomorphic cards once); with
``--compare`` the flop's ``difference`` (this database − the other), flops that differ
most in EV first — then a last line with ``"final": true``, ``line``, ``aggregate`` (the same
numbers weighted over flops), ``groups`` (per texture group; with ``--street`` also ``rank``
and ``relation`` of the card), the counts (``flops``, ``flops_without_line`` and which), the
definitions (``mix_definition``: ``dealt``, each hand weighted by its reach and the
opponent's reach over the hands it does not block, or ``own_range`` in summaries made before;
``min_reach``: the line-reach cut below which the summaries keep no node), and with
``--compare`` ``common_flops`` (the flops both databases have the line on), ``left_out``
(``{"this": [...], "compare": [...]}``, the flops only one has), ``difference`` (of the two
aggregates over the common flops, EV also in % of the pot), ``common_aggregate`` (this
database's over them) and ``compare`` (the other database's ``aggregate`` over all its
flops, its ``common_aggregate``, ``mix_definition``). Databases with no flop in common are
refused (``error: --compare: …``).

A database made before tree summaries holds only OOP's first action and IP's answer: a line
of at most one action is answered from them (``"legacy": true``), a longer one is refused
saying so.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from typing import Any

from solver.batch.lines import (
    LineError,
    NextSteps,
    Stats,
    card_ints,
    describe_miss,
    difference,
    flop_line,
    next_steps,
    over_flops,
    parse_line,
)
from solver.batch.report import GROUP_KEYS, json_safe, to_csv
from solver.batch.spec import BatchError
from solver.batch.store import BatchStore, FlopRow
from solver.batch.treedata import MIX_DEALT, MIX_OWN_RANGE
from solver.poker.cards import CardError, card_str, parse_card

STREETS = {"turn": 1, "river": 2}
MAX_STEPS = 100  # far deeper than any tree a batch solves
MIXED = "mixed"  # mix_definition of a report over summaries made with different ones
LEGACY_NOTE = (
    "holds only OOP's first action and IP's answer (made before tree summaries): run the "
    "batch again with this version for reports at any line"
)


class _Usage(Exception):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _legacy_stats(row: FlopRow, steps: list[str]) -> Stats | None:
    """A root or one-action line from an old summary's two decisions (None: not held)."""
    s = row.summary
    acts = s.get("actions") or {}
    node = "oop" if not steps else f"ip vs {steps[0]}"
    mix = s.get("oop_mix") if not steps else (s.get("ip_mix") or {}).get(steps[0])
    if mix is None:
        return None
    nan2 = [math.nan, math.nan]

    def nums(key: str) -> list[float]:
        v = s.get(key) if not steps else None
        return [math.nan if x is None else float(x) for x in v] if v else nan2

    reach = 1.0 if not steps else float((s.get("oop_mix") or {}).get(steps[0]) or 0.0)
    out = Stats(reach=reach, mix={a: float(f or 0.0) for a, f in mix.items()}, ev=nums("ev"),
                equity=nums("equity"), eqr=nums("eqr"), pot=float(s.get("pot") or math.nan),
                player=0 if not steps else 1, flops=1)  # fmt: skip
    for c in (s.get("classes") or {}).get(node, []):
        if c.get("mix") is not None:
            m = dict(zip(acts.get(node, []), (float(f) for f in c["mix"]), strict=False))
            out.classes[str(c["class"])] = (float(c["combos"]), m)
    return out


def report_at(
    path: str, steps: list[str], street: int | None, groups: list[str], with_next: bool = False
) -> dict[str, Any]:
    """Per flop and weighted numbers of a database at a line: ``{"rows": [(row, FlopLine)],
    "aggregate": Stats, "groups": {name: {value: Stats}}, "without": [flops],
    "no_summary": [flops], "legacy": bool, "mix_definition": str, "min_reach": float | None}``;
    :class:`LineError` for a line no flop has. ``steps``: :func:`~solver.batch.lines.parse_line`'s
    (cards as ``d:Kh``), ``street``: None, 1 (turn) or 2 (river), ``groups``: texture keys
    (:data:`~solver.batch.report.GROUP_KEYS`); :class:`BatchError` naming the argument else.
    ``with_next``: also ``"next"``, what the flops' trees offer after the line
    (:func:`merge_next`; a line picker's choices)."""
    _check_args(steps, street, groups)
    defs: set[str] = set()
    cuts: set[float] = set()
    with BatchStore.open(path) as store:
        rows = store.rows("done")
        legacy = not store.has_trees()
        found: list[tuple[FlopRow, Any]] = []
        misses: list[tuple[int, list[str]]] = []
        no_summary: list[str] = []
        nexts: list[NextSteps | None] = []
        for row in rows:
            if legacy:
                if len(steps) > 1 or street is not None:
                    raise LineError(f"{path} {LEGACY_NOTE}")
                st = _legacy_stats(row, steps)
                if st is None:
                    misses.append((0, sorted(row.summary.get("oop_mix") or {})))
                    continue
                from solver.batch.lines import FlopLine

                found.append((row, FlopLine(st, {}, {}, {})))
                continue
            ts = store.tree(row.flop)
            if ts is None:
                no_summary.append(row.flop)
                continue
            fl = flop_line(ts, _flop_cards(path, row.flop), steps, street)
            if isinstance(fl, tuple):
                misses.append(fl)
            else:
                found.append((row, fl))
                defs.add(ts.mix_definition)
                cuts.add(ts.min_reach)
                if with_next:
                    nexts.append(next_steps(ts, steps))
    if not found:
        if not rows or not misses:
            raise LineError(f"{path} has no finished flop with a tree summary")
        at, options = max(misses, key=lambda m: m[0])  # the furthest any flop got
        raise LineError(describe_miss(steps, at, options))
    agg = over_flops((fl.stats, r.weight) for r, fl in found)
    out_groups: dict[str, dict[str, Stats]] = {}
    for key in groups:
        vals: dict[str, list[tuple[Stats, float]]] = {}
        for r, fl in found:
            vals.setdefault(str(getattr(r, key)), []).append((fl.stats, r.weight))
        out_groups[key] = {v: over_flops(items) for v, items in vals.items()}
    if street is not None:
        for name, attr in (("rank", "by_rank"), ("relation", "by_relation")):
            vals = {}
            for r, fl in found:
                for v, st in getattr(fl, attr).items():
                    vals.setdefault(v, []).append((st, r.weight))
            out_groups[name] = {v: over_flops(items) for v, items in vals.items()}
    without = sorted({r.flop for r in rows} - {r.flop for r, _ in found} - set(no_summary))
    out = {
        "rows": found, "aggregate": agg, "groups": out_groups, "without": without,
        "no_summary": no_summary, "legacy": legacy,
        "mix_definition": MIX_OWN_RANGE if legacy else (defs.pop() if len(defs) == 1 else MIXED),
        "min_reach": max(cuts) if cuts else None,
    }  # fmt: skip
    if with_next:
        out["next"] = merge_next(nexts)
    return out


def _check_args(steps: object, street: object, groups: object) -> None:
    """:func:`report_at`'s arguments, each refused with :class:`BatchError` naming it."""
    if not isinstance(steps, (list, tuple)):
        raise BatchError("steps", f"must be a list of step labels, not {type(steps).__name__}")
    if len(steps) > MAX_STEPS:
        raise BatchError("steps", f"has {len(steps):,} steps, at most {MAX_STEPS}")
    for st in steps:
        if type(st) is not str or not st or len(st) > 100:
            raise BatchError("steps", f"holds {str(st)[:40]!r}, not an action, card or 'any'")
        if st.startswith("d:"):
            try:
                ok = card_str(parse_card(st[2:])) == st[2:]
            except CardError:
                ok = False
            if not ok:
                raise BatchError("steps", f"{st[:40]!r} is not a card step (d:Kh)")
    if street is not None and (type(street) is not int or street not in STREETS.values()):
        raise BatchError("street", f"must be None, 1 (turn) or 2 (river), not {str(street)[:40]!r}")
    if not isinstance(groups, (list, tuple)) or any(g not in GROUP_KEYS for g in groups):
        raise BatchError("groups", f"must be a list of {', '.join(GROUP_KEYS)}")


def _flop_cards(path: str, flop: str) -> list[int]:
    """A stored flop's three cards; :class:`BatchError` (field ``db``) when its text is not."""
    try:
        cards = card_ints(flop) if len(flop) == 6 else []
    except CardError:
        cards = []
    if len(set(cards)) != 3:
        raise BatchError("db", f"{path}: flop {flop[:20]!r} is not three cards (flops.flop)")
    return cards


def common_flops(main: dict[str, Any], other: dict[str, Any]) -> list[str]:
    """The flops both reports have the line on, in ``main``'s order."""
    theirs = {r.flop for r, _fl in other["rows"]}
    return [r.flop for r, _fl in main["rows"] if r.flop in theirs]


def on_flops(report: dict[str, Any], flops: list[str]) -> Stats:
    """A report's aggregate over ``flops`` alone."""
    keep = set(flops)
    return over_flops((fl.stats, r.weight) for r, fl in report["rows"] if r.flop in keep)


def merge_next(nexts: list[NextSteps | None]) -> dict[str, Any]:
    """The flops' :class:`~solver.batch.lines.NextSteps` as one: ``actions`` and ``cards``
    {label or card: how many flops offer it} (actions in tree order, cards high first),
    ``player`` (who acts; -1 at a chance node) and ``ends`` (flops where nothing is kept
    below the line)."""
    actions: dict[str, int] = {}
    cards: dict[str, int] = {}
    player = -1
    ends = 0
    for n in nexts:
        if n is None:
            continue
        for a in n.actions:
            actions[a] = actions.get(a, 0) + 1
        for c in n.cards:
            cards[c] = cards.get(c, 0) + 1
        if n.player >= 0:
            player = n.player
        ends += not (n.actions or n.cards)
    order = {r: i for i, r in enumerate("AKQJT98765432")}
    cards = dict(sorted(cards.items(), key=lambda kv: (order.get(kv[0][0], 99), kv[0][1])))
    return {"actions": actions, "cards": cards, "player": player, "ends": ends}


def line_records(
    main: dict[str, Any], other: dict[str, Any] | None, street: int | None
) -> list[dict[str, Any]]:
    """The per-flop records of :func:`report_at`'s ``main`` (module doc: what ``--json``
    prints per flop), with ``other``'s difference where that flop has the line too (then
    the flops that differ most in OOP's EV first)."""
    other_rows = {r.flop: fl for r, fl in other["rows"]} if other else {}
    records = []
    for r, fl in main["rows"]:
        rec: dict[str, Any] = {
            "flop": r.flop, "weight": r.weight, "suits": r.suits, "pairing": r.pairing,
            "high": r.high, "connect": r.connect, **fl.stats.record(),
        }  # fmt: skip
        if main["legacy"]:
            rec["legacy"] = True
        if street is not None:
            rec["cards"] = {c: s.record() for c, s in fl.cards.items()}
        if r.flop in other_rows:
            rec["difference"] = difference(fl.stats, other_rows[r.flop].stats)
        records.append(rec)
    if other:  # the flops that differ most first
        records.sort(key=lambda rec: -abs(_num((rec.get("difference") or {}).get("ev", [0])[0])))
    return records


def line_final(
    main: dict[str, Any], other: dict[str, Any] | None, line: str, file: str,
    compare: str | None = None,
) -> dict[str, Any]:  # fmt: skip
    """The last ``--json`` line (module doc) of :func:`report_at`'s ``main`` (and
    ``other``, the ``compare`` database's)."""
    final: dict[str, Any] = {
        "final": True,
        "line": line,
        "flops": len(main["rows"]),
        "flops_without_line": len(main["without"]),
        "without_line": main["without"],
        "flops_without_summary": len(main["no_summary"]),
        "mix_definition": main["mix_definition"],
        "min_reach": main["min_reach"],
        "aggregate": main["aggregate"].record(totals=True),
        "groups": {
            k: {v: s.record(totals=True) for v, s in g.items()} for k, g in main["groups"].items()
        },
    }
    if main["legacy"]:
        final["legacy"] = True
        final["note"] = f"{file} {LEGACY_NOTE}"
    if other:  # on the flops both have: a difference over other flop sets is not the spot's
        common = common_flops(main, other)
        mine = {r.flop for r, _fl in main["rows"]}
        final["common_flops"] = common
        final["left_out"] = {
            "this": [f for f in (r.flop for r, _fl in main["rows"]) if f not in common],
            "compare": [r.flop for r, _fl in other["rows"] if r.flop not in mine],
        }
        final["compare"] = {
            "file": compare, "aggregate": other["aggregate"].record(totals=True),
            "mix_definition": other["mix_definition"],
        }  # fmt: skip
        if common:
            a, b = on_flops(main, common), on_flops(other, common)
            final["difference"] = difference(a, b)
            final["common_aggregate"] = a.record(totals=True)
            final["compare"]["common_aggregate"] = b.record(totals=True)
    return final


def cmd_line_report(args: argparse.Namespace) -> int:
    """The ``report --line`` command (module doc)."""
    try:
        return _run(args)
    except _Usage as u:
        print(f"error: {u.field}: {u.message}", file=sys.stderr)
        return 2


def _run(args: argparse.Namespace) -> int:
    try:
        steps = parse_line(args.line)
    except ValueError as exc:
        raise _Usage("--line", str(exc)) from None
    street = None
    if args.street is not None:
        street = STREETS[args.street]
        if sum(1 for s in steps if s == "any" or s.startswith("d:")) < street:
            raise _Usage("--street", f"the line has no {args.street} card step (a card or any)")
    groups = [args.group] if args.group else ["suits", "pairing"]
    if any(g not in GROUP_KEYS for g in groups):
        raise _Usage("--group", f"one of {', '.join(GROUP_KEYS)}")
    reports = []
    for flag, path in (("FILE", args.file), ("--compare", args.compare)):
        if path is None:
            continue
        try:
            reports.append(report_at(path, steps, street, groups))
        except BatchError as exc:  # (an argument's field: the flag it came from)
            arg = {"steps": "--line", "street": "--street", "groups": "--group"}
            raise _Usage(arg.get(exc.field, flag), exc.message) from None
        except LineError as exc:
            raise _Usage("--line", f"{path}: {exc}" if flag == "--compare" else str(exc)) from None
    main = reports[0]
    other = reports[1] if len(reports) > 1 else None
    if other is not None and not common_flops(main, other):
        there = _few(r.flop for r, _ in other["rows"])
        here = _few(r.flop for r, _ in main["rows"])
        raise _Usage(
            "--compare",
            f"{args.compare} has no flop in common with {args.file} at this line ({there} "
            f"there, {here} here): nothing to compare",
        )
    records = line_records(main, other, street)
    final = line_final(main, other, args.line, args.file, args.compare)
    if args.csv:
        try:
            with open(args.csv, "w", encoding="utf-8") as f:
                f.write(to_csv([flat_record(rec) for rec in records]))
        except OSError as exc:
            raise _Usage("--csv", f"cannot write {args.csv} ({exc.strerror})") from None
    if args.json:
        for rec in records:
            print(json.dumps(json_safe(rec)))
        print(json.dumps(json_safe(final)))
        return 0
    _print_text(records, final, args)
    return 0


def _few(flops: Any, most: int = 5) -> str:
    names = list(flops)
    more = f" and {len(names) - most} more" if len(names) > most else ""
    return ", ".join(names[:most]) + more


def _num(x: object) -> float:
    return float(x) if isinstance(x, (int, float)) and math.isfinite(x) else 0.0


def flat_record(rec: dict[str, Any]) -> dict[str, Any]:
    """A per-flop record as one CSV row (codes: ``oop_ev``, ``mix b:100``, ``diff oop_ev``)."""
    out = {
        k: rec[k] for k in ("flop", "weight", "suits", "pairing", "high", "connect", "reach", "pot")
    }
    for p, who in enumerate(("oop", "ip")):
        for key in ("ev", "equity", "eqr"):
            out[f"{who}_{key}"] = rec[key][p]
    for a, f in rec["mix"].items():
        out[f"mix {a}"] = f
    if "difference" in rec:
        out["diff oop_ev"] = rec["difference"]["ev"][0]
    return out


def _pct(x: float) -> str:
    return f"{100 * x:6.1f}%" if math.isfinite(x) else "     - "


def _print_text(
    records: list[dict[str, Any]], final: dict[str, Any], args: argparse.Namespace
) -> None:
    agg = final["aggregate"]
    acts = list(agg["mix"])
    print(f"# {args.file} at line {args.line!r}: {final['flops']} flops "
          f"({final['flops_without_line']} without the line)")  # fmt: skip
    if final.get("note"):
        print(f"# note: {final['note']}")
    print(f"# {describe_definitions(final)}")
    head = ["flop", "weight", "reach", *acts, "oop ev", "ip ev", "oop eq"]
    print("  ".join(f"{h:>11s}" if i == 0 else f"{h:>9s}" for i, h in enumerate(head)))

    def line(name: str, w: float, r: dict[str, Any]) -> str:
        cells = [f"{name:>11s}", f"{w:9.1f}", _pct(r["reach"]).rjust(9)]
        cells += [_pct(r["mix"].get(a, 0.0)).rjust(9) for a in acts]
        cells += [f"{r['ev'][0]:9.2f}", f"{r['ev'][1]:9.2f}", _pct(r["equity"][0]).rjust(9)]
        return "  ".join(cells)

    for rec in records:
        print(line(rec["flop"], rec["weight"], rec))
    print(line("weighted", sum(r["weight"] for r in records), agg))
    if "sizes" in agg:
        print("sizes: " + ", ".join(f"{a} {100 * f:.1f}%" for a, f in agg["sizes"].items()))
    for key, g in final["groups"].items():
        print(f"\nby {key}:")
        for v, r in g.items():
            print(line(str(v)[:11], r["weight"], r))
    if agg["classes"]:
        print("\nper class (combos, mix):")
        for c in agg["classes"]:
            mix = ", ".join(f"{a} {100 * f:.1f}%" for a, f in c["mix"].items())
            print(f"  {c['class']:>14s}  {c['combos']:7.2f}  {mix}")
    if "difference" in final:
        d = final["difference"]
        mix = ", ".join(f"{a} {100 * f:+.1f}%" for a, f in d["mix"].items())
        print(f"\ndifference vs {args.compare} over the {len(final['common_flops'])} flops both "
              f"have the line on: reach {100 * d['reach']:+.2f}%, {mix}, "
              f"OOP EV {d['ev'][0]:+.2f} ({d['ev_pct_pot'][0]:+.2f}% pot)")  # fmt: skip
        for who, flops in (("this database", final["left_out"]["this"]),
                           (args.compare, final["left_out"]["compare"])):  # fmt: skip
            if flops:
                print(f"left out, only in {who}: {_few(flops, 20)}")
        if final["compare"]["mix_definition"] != final["mix_definition"]:
            print(
                f"note: the mixes are defined differently ({final['mix_definition']} here, "
                f"{final['compare']['mix_definition']} there): run the older batch again"
            )


def describe_definitions(final: dict[str, Any]) -> str:
    """The report's definitions in words: how the mix weights the hands, and the cut."""
    how = {
        MIX_DEALT: "mix as dealt (each hand weighted by its reach and the opponent's range "
        "it does not block)",
        MIX_OWN_RANGE: "mix over the actor's own range (card removal against the "
        "opponent's range ignored; a summary made before the dealt mix)",
        MIXED: "mixes of two definitions (flops summarised by versions before and after the "
        "dealt mix: run the batch again)",
    }.get(str(final.get("mix_definition")), str(final.get("mix_definition")))
    cut = final.get("min_reach")
    if cut is None:
        return how
    return (
        f"{how}; nodes reached on under {100 * cut:g}% of the deals are not kept (a line "
        "below that is left out on that flop)"
    )
