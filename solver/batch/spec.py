"""What a batch is: a template spot (any hold'em spec; its board is replaced by each flop), a
flop set (subset size or list, and filters), and the solve settings of every flop.

:func:`check` validates everything a batch needs before anything starts and raises
:class:`BatchError` naming the field: the template's own fields (as :func:`validate` names
them), ranges that are not suit-symmetric (canonical flops stand for their isomorphs only
then), a flop set that is unknown or empty after the filters, a target or iteration cap that
is not a positive number, and a tree over the memory cap on the set's biggest flop.

A spec's :meth:`BatchSpec.identity` — everything that changes a flop's numbers — is what a
database is tied to; threads per solve and the number of workers are not part of it (one
thread or several give the same numbers).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any, TypeVar

import numpy as np

from solver.algorithms import algorithm_info, default_algorithm
from solver.cfr.options import check_options
from solver.games.holdem import HoldemSpec, SpecError, estimate, over_memory, validate
from solver.poker.cards import COMBO_INDEX, COMBOS
from solver.poker.flops import Flop, FlopError, parse_filter, select
from solver.poker.ranges import parse_range
from solver.quoting import brief

DEFAULT_TARGET_PCT = 1.0
_NUMERIC = (
    "pot",
    "stack",
    "big_blind",
    "raise_cap",
    "add_allin_threshold",
    "force_allin_threshold",
    "merging_threshold",
    "max_memory_mb",
    "rake_pct",
    "rake_cap",
)
DEFAULT_MAX_ITERATIONS = 1000
_T = TypeVar("_T")


class BatchError(ValueError):
    """Bad batch input; ``field`` names it (a spec field, ``flops``, ``filter``, ``db``,
    ``scheduler``, ``workers``, …) and the message says what is wrong."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class BatchSpec:
    """A batch: ``template`` (its board is ignored), the flop set, and per-flop solve
    settings. ``target_pct`` is the exploitability target in % of the starting pot (None:
    run ``max_iterations``); ``threads`` is Numba threads per solve."""

    template: HoldemSpec
    flops: str = "49"  # "25", "49", "95", "184", "all" or a list of flops
    filters: dict[str, list[str]] = field(default_factory=dict)
    algorithm: str | None = None  # None: the hold'em default
    target_pct: float | None = DEFAULT_TARGET_PCT
    max_iterations: int = DEFAULT_MAX_ITERATIONS
    check_every: int = 10
    threads: int = 1
    save_solves: bool = False
    name: str = "batch"

    @property
    def algorithm_name(self) -> str:
        return self.algorithm or default_algorithm(True)

    def identity(self) -> dict[str, Any]:
        """Everything that decides a flop's numbers (JSON-able): a database holds one."""
        tpl = asdict(replace(self.template, board=""))
        tpl.pop("name", None)
        for key in _NUMERIC:  # "100" from the command line is 100 from the app
            with contextlib.suppress(TypeError, ValueError):  # validate() names a bad one
                value = tpl[key]
                if isinstance(value, str) and key == "rake_pct":  # "5%" is 5
                    value = value.strip().removesuffix("%")
                tpl[key] = float(value)
        if tpl.get("rake_pct") == 0.0:  # no rake: the identity of databases before rake
            tpl.pop("rake_pct")
            tpl.pop("rake_cap")
        return {
            "template": tpl,
            "flops": self.flops.strip().lower(),
            "filters": {k: sorted(v) for k, v in sorted(self.filters.items())},
            "algorithm": self.algorithm_name,
            "target_pct": self.target_pct,
            "max_iterations": self.max_iterations,
            "check_every": self.check_every,
        }

    def fingerprint(self) -> str:
        text = json.dumps(self.identity(), sort_keys=True)
        return hashlib.sha256(text.encode()).hexdigest()[:16]

    def to_json(self) -> str:
        data = asdict(self)
        return json.dumps(data, sort_keys=True)

    @classmethod
    def from_json(cls, text: str) -> BatchSpec:
        """The spec a ``batch --spec`` file (or a database) holds; :class:`BatchError` naming
        the field for anything that is not JSON, an unknown template field, or a setting of
        the wrong type (the values themselves are checked by :func:`check`)."""
        try:
            data = json.loads(text)
        except (ValueError, RecursionError) as exc:  # RecursionError: [[[[…]]]] nesting
            raise BatchError("spec", f"not JSON ({exc})") from None
        if not isinstance(data, dict) or not isinstance(data.get("template"), dict):
            raise BatchError("spec", "not a batch spec (an object with a template object)")
        template = {"board": "", **data["template"]}  # (each flop replaces the board)
        known = {f.name for f in fields(HoldemSpec)}
        unknown = sorted(str(k) for k in template if k not in known)
        if unknown:
            raise BatchError("template", f"unknown field(s) {brief(', '.join(unknown))}")
        missing = [f.name for f in fields(HoldemSpec) if f.name not in template and
                   f.default is MISSING and f.default_factory is MISSING]  # fmt: skip
        if missing:
            raise BatchError("template", f"missing field(s) {', '.join(missing)}")
        filters = data.get("filters") or {}
        if not isinstance(filters, dict) or not all(
            isinstance(vs, list) for vs in filters.values()
        ):
            raise BatchError("filters", f"must be an object of lists, got {brief(filters)}")
        target = data.get("target_pct")
        algorithm = data.get("algorithm")
        return cls(
            template=HoldemSpec(**template),
            flops=_setting(data, "flops", _text, "49"),
            # checked as the CLI's --filter values are (unknown keys and values refused)
            filters=parse_filters([f"{k}={','.join(map(str, v))}" for k, v in filters.items()]),
            algorithm=None if algorithm is None else _setting(data, "algorithm", _text, ""),
            target_pct=None if target is None else _setting(data, "target_pct", _number, 0.0),
            max_iterations=_setting(data, "max_iterations", _whole, DEFAULT_MAX_ITERATIONS),
            check_every=_setting(data, "check_every", _whole, 10),
            threads=_setting(data, "threads", _whole, 1),
            save_solves=_setting(data, "save_solves", _flag, False),
            name=_setting(data, "name", _text, "batch"),
        )

    def flop_set(self) -> tuple[Flop, ...]:
        """The flops of the batch (with their weights), :class:`BatchError` if none."""
        try:
            return select(self.flops, self.filters)
        except FlopError as exc:
            raise BatchError(exc.field, exc.message) from None

    def spot(self, flop: Flop | str) -> HoldemSpec:
        """The template on one flop."""
        text = flop.text if isinstance(flop, Flop) else flop
        return replace(self.template, board=text, name=f"{self.name} {text}")


def _text(value: object) -> str:
    if not isinstance(value, str):
        raise TypeError("must be text")
    return value


def _number(value: object) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError("must be a number")
    return float(value)  # OverflowError for an integer past 1e308


def _whole(value: object) -> int:
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError("must be a whole number")
    return value


def _flag(value: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError("must be true or false")
    return value


def _setting(data: dict[str, Any], name: str, convert: Callable[[object], _T], default: _T) -> _T:
    """``data[name]`` (``default`` when absent) through ``convert``; BatchError naming it."""
    value = data.get(name, default)
    try:
        return convert(value)
    except (TypeError, ValueError, OverflowError) as exc:
        raise BatchError(name, f"{exc}, got {brief(value)}") from None


def parse_filters(items: list[str] | tuple[str, ...]) -> dict[str, list[str]]:
    """``["suits=monotone", "high=A,K"]`` → ``{"suits": [...], "high": [...]}`` (checked;
    a key given twice keeps the values both allow). Items that are not text, or ``items``
    itself text or no list: :class:`BatchError` (field ``filter``)."""
    if not isinstance(items, (list, tuple)):
        raise BatchError("filter", f"expected a list of KEY=VALUE texts, got {brief(items)}")
    out: dict[str, set[str]] = {}
    for item in items:
        try:
            key, values = parse_filter(item)
        except FlopError as exc:
            raise BatchError(exc.field, exc.message) from None
        out[key] = out[key] & values if key in out else set(values)
    return {k: sorted(v) for k, v in out.items()}


def _suit_symmetric(weights: np.ndarray) -> bool:
    """Whether every suit permutation maps the (1326,) range weights onto themselves."""
    for a, b in ((0, 1), (1, 2), (2, 3)):  # adjacent transpositions generate every permutation
        cmap = np.arange(52)
        sa, sb = cmap % 4 == a, cmap % 4 == b
        cmap = np.where(sa, cmap - a + b, np.where(sb, cmap - b + a, cmap))
        image = COMBO_INDEX[cmap[COMBOS[:, 0]], cmap[COMBOS[:, 1]]]
        if not np.allclose(weights, weights[image]):
            return False
    return True


def check(spec: BatchSpec, estimate_memory: bool = True) -> tuple[Flop, ...]:
    """Validate ``spec``; return its flops. Raises :class:`BatchError` naming the field."""
    # the solver's own option checks (threads against the workers' cores come below: a
    # cluster's workers may have more cores than this machine)
    errors = check_options(spec.algorithm_name, threads=1)
    for name, message in errors.items():
        raise BatchError(name, message)
    if algorithm_info(spec.algorithm_name).sampling and spec.threads > 1:
        raise BatchError("threads", f"{spec.algorithm_name} runs on one thread")
    if spec.target_pct is not None and not (0 < spec.target_pct < 1e6):
        raise BatchError("target", f"must be a positive % of the pot, got {spec.target_pct!r}")
    if not 1 <= spec.max_iterations <= 10_000_000:
        raise BatchError("iterations", f"must be 1 … 10,000,000, got {spec.max_iterations!r}")
    if not 1 <= spec.check_every <= 1_000_000:
        raise BatchError("check_every", f"must be ≥ 1, got {spec.check_every!r}")
    if not 1 <= spec.threads <= 256:
        raise BatchError("threads", f"threads per solve must be 1 … 256, got {spec.threads!r}")
    flops = spec.flop_set()
    trial = spec.spot(flops[0])
    try:
        validate(trial)
    except SpecError as exc:
        if exc.field == "board":  # the template's board never counts
            raise BatchError("flops", exc.message) from None
        raise BatchError(exc.field, exc.message) from None
    for name, w in zip(("oop_range", "ip_range"), range_weights(spec), strict=True):
        if not _suit_symmetric(w):
            raise BatchError(
                name,
                "is not suit-symmetric (e.g. a single suited combo); a canonical flop stands "
                "for its isomorphic flops only when every suit relabelling maps each range "
                "onto itself",
            )
    if estimate_memory:
        biggest = by_size(spec, flops)[0]
        try:  # the tree is counted under its node limits (docs/input-limits.md)
            est = estimate(validate(spec.spot(biggest)))
        except SpecError as exc:
            raise BatchError(exc.field, f"on {biggest.text}: {exc.message}") from None
        refusal = over_memory(est, float(spec.template.max_memory_mb))
        if refusal:
            raise BatchError("max_memory_mb", f"on {biggest.text}: {refusal}")
    return flops


def range_weights(spec: BatchSpec) -> tuple[np.ndarray, np.ndarray]:
    """Both ranges of the template as (1326,) weights, before any board card is removed."""
    out = []
    for name in ("oop", "ip"):
        given = getattr(spec.template, f"{name}_weights")
        if given is not None:
            out.append(np.asarray(given, dtype=np.float64))
        else:
            out.append(parse_range(getattr(spec.template, f"{name}_range")))
    return out[0], out[1]


def by_size(spec: BatchSpec, flops: Sequence[Flop]) -> list[Flop]:
    """``flops`` biggest solve first: rainbow before two-tone before monotone (suit
    isomorphism deals fewer turn cards on the latter), unpaired before paired before trips,
    then by the product of the combos both ranges keep on the flop."""
    weights = range_weights(spec)
    suits = {"rainbow": 2, "two-tone": 1, "monotone": 0}
    pairing = {"unpaired": 2, "paired": 1, "trips": 0}

    def key(flop: Flop) -> tuple[int, int, int]:
        blocked = np.zeros(len(COMBOS), dtype=bool)
        for c in flop.cards:
            blocked |= (COMBOS[:, 0] == c) | (COMBOS[:, 1] == c)
        live = 1
        for w in weights:
            live *= int(np.count_nonzero((w > 0) & ~blocked))
        return suits[flop.suits], pairing[flop.pairing], live

    return sorted(flops, key=key, reverse=True)


SUMMARY_ITERATIONS = 50
"""A flop's tree summary (:mod:`solver.batch.summary`, one thread) costs at most about this
many solver iterations of its tree on one thread (``benchmarks/batch.py summary``)."""
SUMMARY_BYTES_PER_NODE = 12
"""A flop's stored tree summary per node of its tree, bytes: a little above what
``benchmarks/batch.py summary`` measures on srp-flop flops."""


@dataclass(frozen=True)
class BatchCost:
    """What a batch will cost, said before it starts: its flops, the biggest one's solve
    (memory in MB, seconds per iteration on this machine), its tree summary (seconds, MB on
    disk), and the most the whole batch can take at its iteration cap with ``workers``
    solving at once (a target usually stops each flop sooner)."""

    flops: int
    biggest: str
    memory_mb: float  # one solve of the biggest flop
    seconds_per_iteration: float  # the biggest flop's, one solve, its threads
    workers: int
    max_seconds: float  # every flop to the iteration cap and summarised, ``workers`` at once
    summary_seconds: float = 0.0  # the biggest flop's tree summary
    summary_mb: float = 0.0  # the biggest flop's tree summary on disk

    @property
    def memory_mb_at_once(self) -> float:
        return self.memory_mb * min(self.workers, self.flops)

    @property
    def disk_mb(self) -> float:
        """The database's tree summaries, every flop counted as the biggest (MB)."""
        return self.summary_mb * self.flops


def batch_cost(spec: BatchSpec, workers: int) -> BatchCost:
    """:class:`BatchCost` of a checked ``spec`` (:func:`check`) with ``workers`` solving at
    once, from the biggest flop's tree (:func:`by_size`) and the machine's measured cost per
    hand-cell (:mod:`solver.run.calibration`); every flop is counted as the biggest, its summary
    as :data:`SUMMARY_ITERATIONS` one-thread iterations and :data:`SUMMARY_BYTES_PER_NODE`."""
    from solver.run.calibration import cells_of_estimate, load

    flops = spec.flop_set()
    biggest = by_size(spec, flops)[0]
    est = estimate(validate(spec.spot(biggest)))
    cost = load()
    per_iteration = cost.seconds(cells_of_estimate(est), spec.threads)
    summary_s = SUMMARY_ITERATIONS * cost.seconds(cells_of_estimate(est), 1)
    rounds = -(-len(flops) // max(workers, 1))
    return BatchCost(
        flops=len(flops),
        biggest=biggest.text,
        memory_mb=est.memory_mb,
        seconds_per_iteration=per_iteration,
        workers=workers,
        max_seconds=rounds * (spec.max_iterations * per_iteration + summary_s),
        summary_seconds=summary_s,
        summary_mb=SUMMARY_BYTES_PER_NODE * est.nodes / 1e6,
    )
