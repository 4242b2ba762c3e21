"""A race's algorithm entries: :class:`Entry` parsed from ``NAME[:param=value;...]``
(``cfr+:delay=100``, ``dcfr:alpha=1.5;beta=0.5;gamma=2``; case-insensitive) by
:func:`parse_entry`, and :func:`build_engine`, the one place an entry becomes a solver."""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

from solver.algorithms import (
    ALGORITHMS,
    AlgorithmRule,
    SolveOptions,
    check_pruning,
    default_pruning,
    make_algorithm,
    make_solver,
)
from solver.cfr.options import parse_param
from solver.cfr.protocol import Solver
from solver.games.model import Game
from solver.quoting import brief

MAX_ALGORITHMS = 6


class EntryError(ValueError):
    """An algorithm entry that cannot be used; the message quotes the bad part."""


def number_text(v: float) -> str:
    """``v`` as ``%g`` text: how entries, targets and the CSV write numbers."""
    return f"{v:g}"


@dataclass(frozen=True)
class Entry:
    """One racer: a registered algorithm ``name`` (:data:`solver.algorithms.ALGORITHMS`:
    full-width rules and Monte Carlo CFR) with the parameters that differ from its defaults
    (``params``, in the algorithm's order), its ``pruning`` ("" = the algorithm's default),
    the ``seed`` of a sampling algorithm, and a display ``label``.

    Build with :meth:`of` or :func:`parse_entry` (they validate and normalise, so two entries
    describing the same algorithm are equal). ``text`` is the canonical
    ``NAME[:param=value;...;pruning=MODE;seed=N]`` form, the key under which results are
    reported."""

    name: str
    params: tuple[tuple[str, float], ...] = ()
    label: str = ""
    pruning: str = ""
    seed: int = 0

    def __post_init__(self) -> None:
        if not self.label:
            parts = [f"{k}={number_text(v)}" for k, v in self.params]
            if self.pruning:
                parts.append(f"{self.pruning} pruning")
            if self.seed:
                parts.append(f"seed {self.seed}")
            label = f"{self.name} ({', '.join(parts)})" if parts else self.name
            object.__setattr__(self, "label", label)

    @classmethod
    def of(
        cls,
        name: str,
        params: dict[str, float] | None = None,
        source: str = "",
        pruning: str | None = None,
        seed: int = 0,
    ) -> Entry:
        """A validated entry: ``name`` (any case), ``params`` (defaults may be included;
        they are dropped), ``pruning`` (None or the algorithm's default: dropped) and
        ``seed`` (kept for sampling algorithms only). Raises :class:`EntryError` quoting
        ``source`` (or the name)."""
        where = repr(source or name)
        key = name.strip().lower()
        if key not in ALGORITHMS:
            raise EntryError(f"{where}: unknown algorithm {key!r} (known: {', '.join(ALGORITHMS)})")
        given = {k.strip().lower(): v for k, v in (params or {}).items()}
        got = SolveOptions.build({"pruning": pruning, "seed": seed}, key, given)
        if isinstance(got, dict):
            raise EntryError(f"{where}: {next(iter(got.values()))}")
        rule = make_algorithm(key, **{k: float(v) for k, v in given.items()})
        mode = check_pruning(key, pruning)
        info = ALGORITHMS[key]
        defaults = info.defaults
        full = rule.params()
        kept = tuple(
            (k, full[k])
            for k in defaults
            if k in given and not _same(full[k], defaults[k])  # a default adds nothing
        )
        shown = "" if mode == default_pruning(key) else mode
        return cls(key, kept, pruning=shown, seed=seed if info.sampling else 0)

    @property
    def text(self) -> str:
        """``NAME`` or ``NAME:param=value;...`` (parseable by :func:`parse_entry`)."""
        parts = [f"{k}={number_text(v)}" for k, v in self.params]
        if self.pruning:
            parts.append(f"pruning={self.pruning}")
        if self.seed:
            parts.append(f"seed={self.seed}")
        return self.name + (":" + ";".join(parts) if parts else "")

    def rule(self) -> AlgorithmRule:
        """The rule object this entry runs."""
        return make_algorithm(self.name, **dict(self.params))

    def all_params(self) -> dict[str, float]:
        """Every parameter of the algorithm, defaults included."""
        return self.rule().params()

    @property
    def options(self) -> SolveOptions:
        """The options this entry runs with: one solver thread (the race's workers are the
        parallelism), storage "auto", its pruning (resolved) and seed."""
        pruning = self.pruning or default_pruning(self.name)
        return SolveOptions(threads=1, precision="auto", pruning=pruning, seed=self.seed)


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def parse_entry(text: str) -> Entry:
    """``NAME[:param=value;param=value]`` → :class:`Entry` (case-insensitive; values are
    numbers, ``inf``/``-inf`` allowed; besides the algorithm's own parameters,
    ``pruning=none|partial|interval|total`` and, for sampling algorithms, ``seed=N``).
    Errors quote the entry and name the bad part."""
    if not isinstance(text, str):
        raise EntryError(
            f"an algorithm entry must be text (NAME[:param=value;...]), got {brief(text)}"
        )
    raw = text.strip()
    if not raw:
        raise EntryError("empty algorithm entry (expected NAME or NAME:param=value;...)")
    head, sep, rest = raw.partition(":")
    name = head.strip().lower()
    if name not in ALGORITHMS:
        raise EntryError(f"{raw!r}: unknown algorithm {name!r} (known: {', '.join(ALGORITHMS)})")
    allowed = ALGORITHMS[name].defaults
    params: dict[str, float] = {}
    pruning: str | None = None
    seed = 0
    if sep and not rest.strip():
        raise EntryError(f"{raw!r}: nothing after ':' (expected param=value;...)")
    seen: set[str] = set()
    for item in rest.split(";") if sep else []:
        if not item.strip():
            continue
        key, eq, value = item.partition("=")
        key = key.strip().lower()
        if not eq or not key:
            raise EntryError(f"{raw!r}: {item.strip()!r} is not param=value")
        if key in seen:
            raise EntryError(f"{raw!r}: parameter {key!r} given twice")
        seen.add(key)
        if key == "pruning":
            pruning = value.strip().lower()
            continue
        if key == "seed":
            if not ALGORITHMS[name].sampling:
                raise EntryError(f"{raw!r}: seed is for sampling algorithms, not {name}")
            try:
                seed = int(value.strip())
            except ValueError:
                raise EntryError(
                    f"{raw!r}: seed: {value.strip()!r} is not a whole number"
                ) from None
            continue
        if key not in allowed:
            opts = ", ".join(
                [*allowed, "pruning"] + (["seed"] if ALGORITHMS[name].sampling else [])
            )
            raise EntryError(f"{raw!r}: {name} has no parameter {key!r} (parameters: {opts})")
        try:
            number = parse_param(value.strip())
        except ValueError as exc:
            raise EntryError(f"{raw!r}: {key}: {exc}") from None
        params[key] = number
    return Entry.of(name, params, source=raw, pruning=pruning, seed=seed)


def parse_entries(items: str | Sequence[str]) -> tuple[Entry, ...]:
    """A comma-separated list (or a sequence) of entries: 1 to :data:`MAX_ALGORITHMS`, no
    algorithm twice. An entry that is not text is refused (:class:`EntryError` naming it)."""
    if not isinstance(items, str) and not isinstance(items, Sequence):
        raise EntryError(
            f"algorithm entries must be text (cfr,cfr+) or a sequence of texts, got {brief(items)}"
        )
    parts = items.split(",") if isinstance(items, str) else list(items)
    for i, part in enumerate(parts, start=1):
        if not isinstance(part, str):
            raise EntryError(f"entry {i} must be text (NAME[:param=value;...]), got {brief(part)}")
    if not any(p.strip() for p in parts):
        raise EntryError("no algorithm given (e.g. cfr,cfr+,dcfr)")
    out: list[Entry] = []
    for i, part in enumerate(parts, start=1):
        if not part.strip():
            raise EntryError(f"entry {i} is empty (entries are separated by commas)")
        out.append(parse_entry(part))
    return check_entries(out)


def check_entries(entries: Sequence[Entry]) -> tuple[Entry, ...]:
    """``entries`` if there are 1 to :data:`MAX_ALGORITHMS` of them, none twice."""
    if not entries:
        raise EntryError("no algorithm given")
    if len(entries) > MAX_ALGORITHMS:
        raise EntryError(f"at most {MAX_ALGORITHMS} algorithms, got {len(entries)}")
    seen: set[str] = set()
    for e in entries:
        if e.text in seen:
            raise EntryError(f"{e.text!r} listed twice")
        seen.add(e.text)
    return tuple(entries)


def build_engine(game: Game, entry: Entry) -> Solver:
    """The solver for ``entry`` on ``game`` with :attr:`Entry.options`: the one place a race
    builds one."""
    return make_solver(game, entry.name, dict(entry.params), entry.options)
