"""A batch database's rows read checked (:meth:`solver.batch.store.BatchStore.rows`): every
cell the reports use — types, finite numbers, known texture and status values, the summary's
shape (lists of two, mixes of numbers, class rows with their combos and one frequency per
action) and sizes (the caps below). A problem raises :class:`BadCell` naming the column (and
the flop once known); the store turns it into a :class:`~solver.batch.spec.BatchError`."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from typing import Any, NoReturn

from solver.poker.flops import CONNECTS, HIGH_CARDS, NUM_RAW_FLOPS, PAIRINGS, SUIT_CLASSES
from solver.quoting import brief

# What a reader accepts. A batch of every canonical flop has 1,755 rows and a real summary is
# tens of kB: anything past these caps is refused before it is parsed (or shown as a column).
MAX_SUMMARY_BYTES = 1_000_000
MAX_TEXT_BYTES = 65_536  # any other text cell: an error message, a path, a time
MAX_FLOP_CHARS = 16
MAX_LABEL = 100  # characters of a node, action or class name in a summary
MAX_NODES = 100  # nodes with mixes, actions or classes in one summary
MAX_ACTIONS = 64  # actions at one node
MAX_CLASSES = 100  # hand-class rows at one node


@dataclass(frozen=True)
class FlopRow:
    """One finished flop as stored."""

    flop: str
    position: int
    weight: float
    suits: str
    pairing: str
    high: str
    connect: str
    status: str
    error: str
    summary: dict[str, Any]
    seconds: float
    solve_file: str
    finished_at: str

    @property
    def done(self) -> bool:
        return self.status == "done"


class BadCell(Exception):
    """What is wrong with one cell of a row: ``column`` and ``what`` (``flop`` once known)."""

    def __init__(self, column: str, what: str) -> None:
        super().__init__(f"{column}: {what}")
        self.column = column
        self.what = what
        self.flop = ""


def _text(column: str, raw: object, cap: int = MAX_TEXT_BYTES) -> str:
    if raw is None:
        raise BadCell(column, "is NULL, not text")
    if not isinstance(raw, bytes):  # (the SELECT casts every text column to bytes)
        raise BadCell(column, f"is {brief(raw)}, not text")
    if len(raw) > cap:
        raise BadCell(column, f"is longer than {cap:,} bytes")
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        raise BadCell(column, f"is not UTF-8 text ({brief(raw[:24])})") from None


def _number(column: str, raw: object, whole: bool = False) -> float:
    kind = "a whole number" if whole else "a number"
    if isinstance(raw, bytes):
        raise BadCell(column, f"is {brief(raw.decode('utf-8', 'replace'))}, not {kind}")
    if raw is None:
        raise BadCell(column, f"is NULL, not {kind}")
    if whole and not isinstance(raw, int):
        raise BadCell(column, f"is {brief(raw)}, not {kind}")
    if not isinstance(raw, (int, float)) or not math.isfinite(raw):
        raise BadCell(column, f"is {brief(raw)}, not a finite number")
    return raw


def _one_of(column: str, text: str, allowed: tuple[str, ...]) -> str:
    if text not in allowed:
        raise BadCell(column, f"is {brief(text)}, not one of {', '.join(allowed)}")
    return text


def read_row(r: tuple[Any, ...]) -> FlopRow:
    """A stored row (the cells of :data:`_SELECT`) as a checked :class:`FlopRow`."""
    flop = _text("flop", r[0], MAX_FLOP_CHARS)
    if not flop or not flop.isprintable() or not flop.isascii():
        raise BadCell("flop", f"is {brief(flop)}, not a flop")
    try:
        position = int(_number("position", r[1], whole=True))
        weight = float(_number("weight", r[2]))
        if not 0 < weight <= NUM_RAW_FLOPS:
            raise BadCell("weight", f"is {weight!r}, not a flop weight (0 … {NUM_RAW_FLOPS:,})")
        suits = _one_of("suits", _text("suits", r[3]), SUIT_CLASSES)
        pairing = _one_of("pairing", _text("pairing", r[4]), PAIRINGS)
        high = _one_of("high", _text("high", r[5]), HIGH_CARDS)
        connect = _one_of("connect", _text("connect", r[6]), CONNECTS)
        status = _one_of("status", _text("status", r[7]), ("done", "failed"))
        error = _text("error", r[8])
        if r[9] is None:
            raise BadCell("summary", "is NULL, not text")
        # a failed flop's summary is never read (the reports show its error)
        summary = check_summary(r[9]) if status == "done" else {}
        seconds = float(_number("seconds", r[10]))
        if seconds < 0:
            raise BadCell("seconds", f"is {seconds!r}, not a duration")
        solve_file = _text("solve_file", r[11])
        finished_at = _text("finished_at", r[12])
    except BadCell as bad:
        bad.flop = flop
        raise
    return FlopRow(
        flop, position, weight, suits, pairing, high, connect, status, error, summary,
        seconds, solve_file, finished_at,
    )  # fmt: skip


def _refuse_constant(name: str) -> NoReturn:
    raise BadCell("summary", f"holds {name} (only finite numbers or null)")


def check_summary(raw: object) -> dict[str, Any]:
    """A done flop's summary cell (bytes) parsed and checked: every key the reports read
    has its shape (``solver.batch.task``'s module doc); other keys pass unread."""
    text = _text("summary", raw, MAX_SUMMARY_BYTES)
    try:
        s = json.loads(text, parse_constant=_refuse_constant)
    except RecursionError:  # [[[[…]]]]
        raise BadCell("summary", "is JSON nested too deeply") from None
    except ValueError as exc:
        raise BadCell("summary", f"is not JSON ({str(exc)[:100]})") from None
    if not isinstance(s, dict):
        raise BadCell("summary", f"is {brief(s)}, not a JSON object")
    for key in ("ev", "equity", "eqr"):  # [OOP, IP]
        if key in s:
            value = s[key]
            if not isinstance(value, list) or len(value) != 2:
                _wrong(key, value, "a list of 2 numbers (or nulls)")
            for p, v in enumerate(value):
                _opt_number(f"{key}[{p}]", v)
    for key in ("exploitability_pct_pot", "iterations", "pot", "memory_bytes"):
        if key in s:
            _opt_number(key, s[key])
    if s.get("stopped_by") is not None:
        _label("stopped_by", s["stopped_by"])
    if "oop_mix" in s:
        _mix("oop_mix", s["oop_mix"])
    if "ip_mix" in s:
        for node, mix in _object("ip_mix", s["ip_mix"], MAX_NODES).items():
            _mix(f"ip_mix[{node!r}]", mix)
    actions: dict[str, list[str]] = {}
    if "actions" in s:
        for node, labels in _object("actions", s["actions"], MAX_NODES).items():
            where = f"actions[{node!r}]"
            if not isinstance(labels, list) or len(labels) > MAX_ACTIONS:
                _wrong(where, labels, f"a list of up to {MAX_ACTIONS} action names")
            for i, a in enumerate(labels):
                _label(f"{where}[{i}]", a)
            actions[node] = labels
    if "classes" in s:
        for node, table in _object("classes", s["classes"], MAX_NODES).items():
            _classes(f"classes[{node!r}]", table, actions.get(node))
    return s


def _wrong(where: str, value: object, want: str) -> NoReturn:
    raise BadCell("summary", f"{where} is {brief(value)}, not {want}")


_BIG_INT = 2**1023  # an integer past it has no float (math.isfinite raises)


def _finite(v: object) -> bool:
    """A finite JSON number (exact types: true/false are not numbers here)."""
    if type(v) is float:
        return math.isfinite(v)
    return type(v) is int and -_BIG_INT < v < _BIG_INT


def _is_label(v: object) -> bool:
    return type(v) is str and len(v) <= MAX_LABEL


def _opt_number(where: str, v: object) -> None:
    if v is not None and not _finite(v):
        _wrong(where, v, "a finite number (or null)")


def _label(where: str, v: object) -> str:
    if not isinstance(v, str) or len(v) > MAX_LABEL:
        _wrong(where, v, f"a name (text of up to {MAX_LABEL} characters)")
    return v


def _object(where: str, v: object, most: int) -> dict[str, Any]:
    if not isinstance(v, dict) or len(v) > most:
        _wrong(where, v, f"an object of up to {most} entries")
    for k in v:
        _label(f"{where} key", k)
    return v


def _mix(where: str, v: object) -> None:
    """``{action: frequency}``; a frequency may be null (not measured: NaN when solved)."""
    for a, f in _object(where, v, MAX_ACTIONS).items():
        _opt_number(f"{where}[{a!r}]", f)


def _classes(where: str, table: object, actions: list[str] | None) -> None:
    """Hand-class rows at a node: class, kind, combos ≥ 0, and ``mix`` null or one finite
    frequency per action of the node (when the summary names the node's actions)."""
    if not isinstance(table, list) or len(table) > MAX_CLASSES:
        _wrong(where, table, f"a list of up to {MAX_CLASSES} class rows")
    n = len(actions) if actions else 0
    # a quick test per row (a read tests every class row of every flop); what is wrong is
    # worked out only when something is
    for i, c in enumerate(table):
        try:
            mix = c.get("mix")
            ok = (
                _is_label(c["class"])
                and _is_label(c["kind"])
                and _finite(c["combos"])
                and c["combos"] >= 0
                and (
                    mix is None
                    or (
                        type(mix) is list
                        and len(mix) <= MAX_ACTIONS
                        and (not n or len(mix) == n)
                        and all(map(_finite, mix))
                    )
                )
            )
        except (AttributeError, KeyError, TypeError):  # not an object, or a key missing
            ok = False
        if not ok:
            _class_problem(f"{where}[{i}]", c, n)


def _class_problem(at: str, c: object, n: int) -> NoReturn:
    """Name what is wrong with the class row ``c`` (at ``at``)."""
    if not isinstance(c, dict):
        _wrong(at, c, "an object")
    for key in ("class", "kind", "combos"):
        if key not in c:
            raise BadCell("summary", f"{at} has no {key!r}")
    _label(f"{at}.class", c["class"])
    _label(f"{at}.kind", c["kind"])
    combos = c["combos"]
    if not _finite(combos) or combos < 0:
        _wrong(f"{at}.combos", combos, "a finite number ≥ 0")
    mix = c.get("mix")
    if not isinstance(mix, list) or len(mix) > MAX_ACTIONS or (n and len(mix) != n):
        want = f"a list of {n} frequencies (one per action)" if n else "a list of numbers"
        _wrong(f"{at}.mix", mix, want)
    j = next((j for j, f in enumerate(mix) if not _finite(f)), 0)
    _wrong(f"{at}.mix[{j}]", mix[j] if mix else mix, "a finite number")


def mix_names(summary: dict[str, Any]) -> set[str]:
    """The report table's action columns a summary adds (:func:`solver.batch.report.numbers`)."""
    out = {f"oop {a}" for a in summary.get("oop_mix") or {}}
    for a, mix in (summary.get("ip_mix") or {}).items():
        out.update(f"ip vs {a}: {b}" for b in mix)
    return out


def finite_or_null(obj: Any) -> Any:
    """A summary as written: NaN and ±inf (a solve's "not measured") become null."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {k: finite_or_null(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [finite_or_null(v) for v in obj]
    return obj
