"""A solve's options, once: :class:`SolveOptions` (every option beyond the game and the
algorithm, with its default), the one validator of them, worded field by field, and
:data:`OPTION_FIELDS`, each option's CLI flag, help, app key and widget kind.

:func:`validate` takes the options whole and returns ``{field: message}`` (empty when
everything is valid; :func:`check_options` is its keyword form for loose values). The
engines raise the first message (:class:`OptionError`, a ValueError naming the field), the
CLI prints it under the flag's name, and the app shows each next to its field. Fields:
``algorithm``, each parameter by its name, ``threads``, ``precision``, ``pruning``,
``seed``, ``rbp_check_every``, ``rbp_threshold``, ``rbp_free_opponent``, ``locks``.

:func:`solver.algorithms.make_solver` is the one gate: it checks the options
(:meth:`SolveOptions.checked`) and hands the engines a :class:`CheckedOptions`, which they
keep without checking again (``engine.options``); a save file and the CLI's JSON carry
:meth:`SolveOptions.to_dict`. Only the public :func:`solver.api.solve` takes loose keyword
options (over its options object); below it everything takes the object whole. One solve
checks its options once, at the gate: the CLI and a Solve click leave their messages to it
(the CLI names the flag); the app's form checks what is typed as it is drawn, for the
messages beside its fields (:meth:`SolveOptions.check`); rule parameters typed as text go
through :func:`parse_param`. Adding an option is its field here, its check in
:func:`validate`, its :data:`OPTION_FIELDS` row, and the code where it acts.
"""

from __future__ import annotations

import math
import numbers
import threading
import weakref
from collections.abc import Mapping
from dataclasses import dataclass, fields
from typing import Any, ClassVar, NamedTuple, SupportsFloat, TypedDict

from solver.cfr.layout import PRUNING
from solver.cfr.locks import LockSet
from solver.cfr.parallel import max_threads
from solver.cfr.registry import (
    ALGORITHMS,
    MCCFR_CS,
    AlgorithmInfo,
    UnknownAlgorithmError,
    algorithm_info,
    info_of,
    rule_object,
)
from solver.cfr.rules import Rule
from solver.cfr.sampling.rules import SamplingRule
from solver.games.model import Game
from solver.games.multi_locks import MultiLocks
from solver.quoting import brief

PRECISIONS = ("auto", "float64", "float32", "compressed")
SAMPLED_PRECISIONS = ("auto", "float64", "float32")
MAX_CHECK_EVERY = 1_000_000
MAX_SEED = 2**64
# Total RBP's sums threshold keeps a per-node × per-hand mark: refused past this size
THRESHOLD_BYTES = 512 * 2**20


class OptionError(ValueError):
    """A solver option that does not hold: ``field`` names it, the message says why."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def _whole(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _number(value: object) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _in_float_range(value: SupportsFloat) -> bool:
    """Whether the number ``value`` is a float or converts to one: False for an integer past
    ±1.8e308 (``10**400``), which ``float()`` and ``math.isnan`` refuse with OverflowError."""
    try:
        float(value)
    except OverflowError:
        return False
    return True


def finite(value: object) -> bool:
    """Whether ``value`` is a real number (numpy's too; not a bool) that is a finite float:
    not NaN, not ±inf, not an integer past the float range."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        return False
    return _in_float_range(value) and math.isfinite(value)


def _resolve(
    algorithm: object, params: Mapping[str, object] | None, errors: dict[str, str]
) -> AlgorithmInfo | None:
    """The algorithm's registry entry (None when unknown), its parameters' messages added."""
    if isinstance(algorithm, (Rule, SamplingRule)):
        if params:
            errors["algorithm"] = "pass parameters inside the rule object or with a rule name"
        errors.update(algorithm.check_params())
        return info_of(algorithm)
    if not isinstance(algorithm, str):
        errors["algorithm"] = f"algorithm must be a name (known: {', '.join(ALGORITHMS)})"
        return None
    try:
        info = algorithm_info(algorithm)
    except UnknownAlgorithmError as exc:
        errors["algorithm"] = str(exc)
        return None
    if params is not None and not isinstance(params, Mapping):
        errors["algorithm"] = f"parameters must be a mapping of name to number, got {params!r}"
        return info
    given = dict(params or {})
    values: dict[str, float] = {}
    for name, value in given.items():
        if name not in info.defaults:
            opts = ", ".join(sorted(info.defaults)) or "none"
            errors[str(name)] = f"{info.name} has no parameter {name!r} (parameters: {opts})"
        elif not _number(value) or value != value:  # (NaN is the one number ≠ itself)
            errors[str(name)] = f"{name} must be a number, got {shown(value)}"
        elif not _in_float_range(value):  # type: ignore[arg-type]
            errors[str(name)] = (
                f"{name} must be a number within the float range (±1.8e308), got {shown(value)}"
            )
        else:
            values[name] = float(value)  # type: ignore[arg-type]
    if len(values) == len(given):
        errors.update(rule_object(info, values).check_params())
    return info


def parse_param(text: str) -> float:
    """A rule parameter typed as text (``"1.5"``, ``"-inf"``, ``"−2"`` with a minus sign):
    its number, or ValueError whose message quotes ``text`` as given and says why —
    ``'x' is not a number`` or, for a finite literal past ±1.8e308 (``1e400``, which
    ``float()`` turns into inf), that it is past the float range. Callers prefix the
    parameter's name (the CLI, race entries and the app's fields alike)."""
    try:
        value = float(text.replace("\u2212", "-"))
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if math.isnan(value):
        raise ValueError(f"{text!r} is not a number")
    if math.isinf(value) and "inf" not in text.lower():  # 1e400: past the float range
        raise ValueError(
            f"{text!r} is past the float range (±1.8e308); write inf or -inf where the "
            "parameter takes an infinite value"
        )
    return value


RBP_LABELS = {"interval": "interval RBP", "total": "Total RBP"}


def shown(value: object) -> str:
    """``value`` as messages quote it: numbers short (``-1``, ``0.5``, ``inf``), anything
    else as Python writes it, cut short (``'2'``, ``None``)."""
    if _number(value):
        try:
            return f"{value:g}"
        except OverflowError:  # an integer past 1e308
            return brief(value)
    return brief(value)


def _whole_error(label: str, value: object, lo: int, hi: int, unit: str = "") -> str | None:
    kind = f"a whole number{unit}"
    if not _whole(value):
        return f"{label} must be {kind} ≥ {lo:,}, got {shown(value)}"
    if value < lo:  # type: ignore[operator]
        return f"{label} must be {kind} ≥ {lo:,}, got {shown(value)}"
    if value > hi:  # type: ignore[operator]
        return f"{label} must be {kind} ≤ {hi:,}, got {shown(value)}"
    return None


def check_options(
    algorithm: object,
    params: Mapping[str, object] | None = None,
    *,
    game: Game | None = None,
    chance_sampling: bool | None = None,
    locked: bool = False,
    **values: object,
) -> dict[str, str]:
    """:func:`validate` of the options ``values`` (field → value; the rest take their
    defaults) for callers that hold loose values (a batch spec, the race form); ``locked``:
    whether locks are asked. TypeError naming a key that is no field."""
    for key in values:
        if key not in OPTION_NAMES:
            raise TypeError(_unknown(key))
    options = SolveOptions(**values)  # type: ignore[arg-type]
    return validate(options, algorithm, params, game=game, chance_sampling=chance_sampling,
                    locked=locked)  # fmt: skip


def validate(
    options: SolveOptions,
    algorithm: object,
    params: Mapping[str, object] | None = None,
    *,
    game: Game | None = None,
    chance_sampling: bool | None = None,
    locked: bool | None = None,
) -> dict[str, str]:
    """Every option of a solve that does not hold, as ``{field: message}`` (module
    docstring): the one validator. ``algorithm``: a registered name (with ``params``) or a
    rule object; ``chance_sampling`` says whether a full-width rule object is run with
    chance sampling (None: only :class:`~solver.cfr.registry.ChanceSampledCFR` is).
    ``game`` (optional) adds the checks that depend on its size; ``locked`` (None: whether
    ``options`` asks locks) whether locks are asked. Messages start with the field's name
    in lower case (``seed must be a whole number ≥ 0, got -1``): callers capitalise or
    prefix them."""
    # (read as any object: a SolveOptions is made as given, its values not yet trusted)
    threads: object = options.threads
    precision: object = options.precision
    pruning: object = options.pruning
    seed: object = options.seed
    rbp_check_every: object = options.rbp_check_every
    rbp_threshold: object = options.rbp_threshold
    rbp_free_opponent: object = options.rbp_free_opponent
    if locked is None:
        locked = options.locked
    errors: dict[str, str] = {}
    info = _resolve(algorithm, params, errors)
    sampled = info is not None and info.sampling
    if chance_sampling and info is not None and not isinstance(algorithm, str):
        sampled = True
    scalar = info is not None and info.sampling and info.name != MCCFR_CS
    name = info.name if info is not None else "this algorithm"
    cores = max_threads()
    bad = _whole_error("threads", threads, 1, cores)
    if bad:
        errors["threads"] = f"{bad} (at most this machine's {cores} cores)"
    elif sampled and threads != 1:
        errors["threads"] = f"{name} runs on one thread (threads=1), got {shown(threads)}"
    allowed = SAMPLED_PRECISIONS if scalar else PRECISIONS
    if not isinstance(precision, str) or precision not in PRECISIONS:
        errors["precision"] = (
            f"precision must be one of {', '.join(PRECISIONS)}, got {shown(precision)}"
        )
    elif precision not in allowed:
        errors["precision"] = (
            f"precision {precision!r} is not available for {name}: it stores float32 or "
            "float64 (no 16-bit compression)"
        )
    mode = None
    if pruning is not None and (not isinstance(pruning, str) or pruning not in PRUNING):
        errors["pruning"] = f"pruning must be one of {', '.join(PRUNING)}, got {shown(pruning)}"
    elif info is not None:
        mode = info.prunings[0] if pruning is None else pruning
        if mode not in info.prunings:
            errors["pruning"] = (
                f"pruning {mode!r} is not available for {name} "
                f"(it takes: {', '.join(info.prunings)})"
            )
            mode = None
    if mode in RBP_LABELS:
        label = RBP_LABELS[mode]
        if "threads" not in errors and threads != 1:
            errors["threads"] = f"{label} (pruning {mode!r}) runs on one thread (threads=1)"
        if "precision" not in errors and precision == "compressed":
            errors["precision"] = f"{label} needs float32 or float64 storage, not compressed"
    bad = _whole_error("seed", seed, 0, MAX_SEED - 1)
    if bad:
        errors["seed"] = bad
    bad = _whole_error("check every", rbp_check_every, 1, MAX_CHECK_EVERY, " of iterations")
    if bad:
        errors["rbp_check_every"] = bad
    number = _number(rbp_threshold) and finite(rbp_threshold)  # (10**400 is not)
    if not number or rbp_threshold < 0:  # type: ignore[operator]
        errors["rbp_threshold"] = (
            "threshold C must be a finite number ≥ 0 (0 keeps every strategy sum), "
            f"got {shown(rbp_threshold)}"
        )
    elif rbp_threshold > 0 and game is not None and mode == "total":  # type: ignore[operator]
        h = int(max(game.hands.cards.shape[1], 1))
        if game.num_nodes * h * 8 > THRESHOLD_BYTES:
            errors["rbp_threshold"] = (
                "threshold C > 0 needs nodes × hands × 8 bytes ≤ 512 MiB on this game; use 0"
            )
    if not isinstance(rbp_free_opponent, bool):
        errors["rbp_free_opponent"] = (
            f"free opponent must be true or false, got {shown(rbp_free_opponent)}"
        )
    elif rbp_free_opponent and mode is not None and mode != "total":
        errors["rbp_free_opponent"] = "freeing the other player's regrets needs pruning 'total'"
    if locked and scalar:
        errors["locks"] = f"locks need a full-width algorithm or mccfr-cs, not {name}"
    elif locked and mode in RBP_LABELS:
        errors["locks"] = f"locks do not combine with {RBP_LABELS[mode]}; use pruning partial"
    return errors


def sentence(message: str) -> str:
    """A message of :func:`check_options` as a sentence for people: capitalised, with a
    full stop."""
    text = message[:1].upper() + message[1:]
    return text if text.endswith(".") else f"{text}."


def raise_first(errors: dict[str, str]) -> None:
    """Raise the first of ``errors`` as an :class:`OptionError` (nothing when empty)."""
    if errors:
        field, message = next(iter(errors.items()))
        raise OptionError(field, message)


class SolverOptions(TypedDict, total=False):
    """The keyword form of :class:`SolveOptions` (every key optional): what the public
    :func:`solver.api.solve` alone takes as keyword arguments, for type checkers (below it,
    :func:`solver.algorithms.make_solver`, :class:`solver.run.jobs.SolveJob` and the engines
    take the options object whole); the fields, defaults and meanings are
    :class:`SolveOptions`'s."""

    threads: int
    precision: str
    pruning: str | None
    seed: int
    rbp_check_every: int
    rbp_threshold: float
    rbp_free_opponent: bool
    locks: Mapping[Any, Any] | LockSet | MultiLocks | None  # (MultiLocks: three players)


@dataclass(frozen=True, eq=False)
class SolveOptions:
    """Every option of a solve beyond its game, algorithm and parameters, with its default.
    Made as given: :meth:`check` (or :meth:`build`) says what does not hold, in
    :func:`check_options`'s words.

    ``threads``: solver threads, 1 to this machine's cores (full-width rules; > 1 splits
    passes below the first chance nodes, or a big river's at its decision nodes: the same
    numbers). ``precision``: storage — "auto", "float64", "float32" or "compressed" (16-bit;
    :class:`~solver.cfr.engine.Engine`). ``pruning``: None (the algorithm's default),
    "none", "partial", "interval" (rules like ``cfr``) or "total" (rules like ``cfr``,
    ``cfr+``). ``seed``: the sampling algorithms' draws, 0 to 2⁶⁴ − 1. ``rbp_check_every``
    (iterations, ≥ 1) and ``rbp_threshold`` (C ≥ 0, chips): Total RBP's check interval and
    sums-release constant (sums below C/√T released); ``rbp_free_opponent``: Total RBP also
    frees the other player's regrets where the pruning player never comes (rebuilt from a
    best response when it does). ``locks``: infosets with a fixed strategy — ``{line: mix}``
    as users write them (:mod:`solver.lockspec`) or a resolved
    :class:`~solver.cfr.locks.LockSet` (what an engine keeps: its current locks)."""

    threads: int = 1
    precision: str = "auto"
    pruning: str | None = None
    seed: int = 0
    rbp_check_every: int = 10
    rbp_threshold: float = 0.0
    rbp_free_opponent: bool = False
    locks: Mapping[Any, Any] | LockSet | None = None

    def __eq__(self, other: object) -> bool:
        """Equal when their :meth:`to_dict` forms are (locks by what they lock: a resolved
        LockSet holds arrays, which compare element by element)."""
        if not isinstance(other, SolveOptions):
            return NotImplemented
        return self.to_dict() == other.to_dict()

    __hash__ = None  # type: ignore[assignment]  # (locks may be a dict)

    @property
    def locked(self) -> bool:
        """Whether any lock is asked (read without trusting ``locks``' type: the API checks
        that, :func:`solver.lockspec.check_locks_type`)."""
        if isinstance(self.locks, LockSet):
            return True
        return isinstance(self.locks, Mapping) and len(self.locks) > 0

    def check(
        self,
        algorithm: object,
        params: Mapping[str, object] | None = None,
        *,
        game: Game | None = None,
        chance_sampling: bool | None = None,
    ) -> dict[str, str]:
        """What does not hold of these options with ``algorithm`` and ``params``, as
        :func:`check_options` words it (``{field: message}``, empty when all is valid)."""
        return validate(self, algorithm, params, game=game, chance_sampling=chance_sampling)

    def checked(
        self,
        algorithm: object,
        params: Mapping[str, object] | None = None,
        *,
        game: Game | None = None,
        chance_sampling: bool | None = None,
    ) -> CheckedOptions:
        """These options checked for ``algorithm`` with ``params`` (and ``game``'s size when
        given), pruning resolved (None: the algorithm's default): a :class:`CheckedOptions`
        the engines take without checking again. The first message of :meth:`check` raises
        :class:`OptionError` naming its field."""
        raise_first(self.check(algorithm, params, game=game, chance_sampling=chance_sampling))
        pruning = self.pruning
        rule = isinstance(algorithm, (Rule, SamplingRule))
        info = info_of(algorithm) if rule else algorithm_info(str(algorithm))  # type: ignore[arg-type]
        if pruning is None:
            pruning = info.prunings[0]
        basis = _Basis(algorithm if rule else info.name, dict(params or {}), game, chance_sampling)
        return _mint(self.unchecked(pruning=pruning), basis)

    def unchecked(self, **changes: Any) -> SolveOptions:
        """A plain :class:`SolveOptions` of these values with ``changes`` (field → value)
        over them: what to change a :class:`CheckedOptions` into (it cannot be replaced)."""
        return SolveOptions(**{**self._values(), **changes})

    def _values(self) -> dict[str, Any]:
        return {f.name: getattr(self, f.name) for f in fields(SolveOptions)}

    @classmethod
    def build(
        cls,
        values: Mapping[str, object],
        algorithm: object,
        params: Mapping[str, object] | None = None,
        *,
        game: Game | None = None,
        base: SolveOptions | None = None,
    ) -> SolveOptions | dict[str, str]:
        """The options ``values`` (field → value) give over ``base`` (None: the defaults),
        checked for ``algorithm`` with ``params`` (and ``game``'s size when given): the
        options, or ``{field: message}`` for every field that does not hold (a key that is
        no field included)."""
        errors = {str(k): _unknown(k) for k in values if k not in OPTION_NAMES}
        if errors:
            return errors
        options = (base if base is not None else cls()).unchecked(**values)
        return options.check(algorithm, params, game=game) or options

    def to_dict(self) -> dict[str, Any]:
        """Every field by name, JSON-ready: resolved locks as their ``{line: mix}`` spec,
        locks as written as a plain dict (what save files and the CLI's JSON carry)."""
        out = {f.name: getattr(self, f.name) for f in fields(self)}
        if isinstance(self.locks, LockSet):
            out["locks"] = dict(self.locks.spec)
        elif isinstance(self.locks, Mapping):
            out["locks"] = dict(self.locks)
        return out

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> SolveOptions:
        """The options of a :meth:`to_dict` mapping (missing fields take their defaults;
        values are not checked here: :meth:`check`); :class:`OptionError` naming a key
        that is no field."""
        for key in data:
            if key not in OPTION_NAMES:
                raise OptionError(str(key), _unknown(key))
        return cls(**data)


_MINTING = threading.local()  # on while SolveOptions.checked makes a CheckedOptions


class _Basis:
    """What a :class:`CheckedOptions` was checked for: the algorithm (its registered name, or
    the rule object itself), its parameters, the game (held weakly: None when checked
    without one) and chance sampling."""

    def __init__(
        self,
        algorithm: object,
        params: dict[str, object],
        game: Game | None,
        chance_sampling: bool | None,
    ) -> None:
        self.algorithm = algorithm
        self.params = params
        self.game = weakref.ref(game) if game is not None else None
        self.chance_sampling = chance_sampling

    def covers(
        self,
        algorithm: object,
        params: Mapping[str, object] | None,
        game: Game,
        chance_sampling: bool | None,
    ) -> bool:
        if self.game is None or self.game() is not game:
            return False
        if self.chance_sampling != chance_sampling or self.params != dict(params or {}):
            return False
        if isinstance(algorithm, str):
            try:
                return algorithm_info(algorithm).name == self.algorithm
            except UnknownAlgorithmError:
                return False
        return algorithm is self.algorithm


@dataclass(frozen=True, eq=False)
class CheckedOptions(SolveOptions):
    """:class:`SolveOptions` that passed :func:`validate` (pruning resolved), made only by
    :meth:`SolveOptions.checked` — the gate, :func:`solver.algorithms.make_solver` — and
    taken by the engines without checking again. ``dataclasses.replace`` of one raises
    TypeError (a changed option is no longer checked): :meth:`~SolveOptions.unchecked`."""

    def __post_init__(self) -> None:
        if not getattr(_MINTING, "on", False):
            raise TypeError(
                "CheckedOptions are made by SolveOptions.checked(); change one with "
                ".unchecked(field=value)"
            )

    # what they were checked for (set by _mint; not a field: to_dict and equality ignore it)
    _basis: ClassVar[_Basis | None] = None

    def without_locks(self) -> CheckedOptions:
        """These options without their locks, still checked (no lock makes none of the
        others fail): what an engine gets when the locks are resolved above it."""
        return _mint(self.unchecked(locks=None), self._basis)

    def holds_for(
        self,
        algorithm: object,
        params: Mapping[str, object] | None,
        game: Game,
        *,
        chance_sampling: bool | None = None,
    ) -> bool:
        """Whether these options were checked for this very ``algorithm`` (the same
        registered name, or the same rule object), ``params``, ``game`` (the same object)
        and ``chance_sampling``: then :func:`solver.algorithms.make_solver` takes them as
        they are, without checking again (a front end that checked them with the game for
        its messages, as the CLI does)."""
        basis = self._basis
        return basis is not None and basis.covers(algorithm, params, game, chance_sampling)


def _mint(options: SolveOptions, basis: _Basis | None = None) -> CheckedOptions:
    """``options`` as a :class:`CheckedOptions` checked for ``basis``: only for values that
    passed :func:`validate` (or lost nothing but their locks since)."""
    _MINTING.on = True
    try:
        made = CheckedOptions(**options._values())
    finally:
        _MINTING.on = False
    object.__setattr__(made, "_basis", basis)
    return made


OPTION_NAMES: tuple[str, ...] = tuple(f.name for f in fields(SolveOptions))
"""The fields of :class:`SolveOptions`, in order: the keyword options every caller takes."""


class OptionField(NamedTuple):
    """A :class:`SolveOptions` field as the CLI and the app show it: ``flag`` the solve
    command's (``--rbp-every``), ``help`` its help text, ``app`` the session key of the
    Solve form's widget (None: no widget there), ``widget`` its kind — "number" (a text
    field read as a number), "select", "checkbox", or "file" (a path the CLI reads)."""

    field: str
    flag: str
    help: str
    app: str | None
    widget: str


OPTION_FIELDS: tuple[OptionField, ...] = tuple(
    OptionField(*row)
    for row in (
        ("threads", "--threads", "solver threads (default 1)", "solver_threads", "number"),
        (
            "precision",
            "--precision",
            "storage: auto (float32 for big hold'em spots, float64 for small ones and "
            "kuhn, leduc, leduc5), float64, float32, compressed (16-bit)",
            "solver_precision",
            "select",
        ),
        (
            "pruning",
            "--pruning",
            "none, partial (default for full-width rules: exact), interval (cfr) or total "
            "(cfr, cfr+); sampled algorithms take none",
            "solver_pruning",
            "select",
        ),
        (
            "seed",
            "--seed",
            "seed of the sampling algorithms (default 0)",
            "solver_seed",
            "number",
        ),
        (
            "rbp_check_every",
            "--rbp-every",
            "Total RBP: iterations between checks (each costs a best-response pass per "
            "player: 100 on long Leduc runs costs no more nodes than partial pruning); "
            "interval RBP: how long a pruning must be able to last",
            "solver_rbp_every",
            "number",
        ),
        (
            "rbp_threshold",
            "--rbp-threshold",
            "Total RBP: release strategy sums below C/sqrt(T) with this C (0 = keep them; "
            "C > 0 trades accuracy for space with cfr+ and stalls cfr, see BENCHMARKS.md)",
            "solver_rbp_threshold",
            "number",
        ),
        (
            "rbp_free_opponent",
            "--rbp-free-opponent",
            "Total RBP: also free the other player's regrets where the pruning player never "
            "comes (rebuilt from a best response when it does; less memory, slower "
            "convergence)",
            "solver_rbp_free_opponent",
            "checkbox",
        ),
        (
            "locks",
            "--locks",
            'node locks: {"LINE": MIX} with LINE the actions (and cards) from the root, '
            'space-separated ("k b:100"; "root" for the root), and MIX {"ACTION": '
            'probability} for every hand, {"HANDS": {"ACTION": probability}} for some, or '
            '"solved" (docs/locking.md)',
            None,
            "file",
        ),
    )
)
"""Every :class:`SolveOptions` field once, in its order, with its CLI flag, help, app key
and widget kind: the solve command's option flags (:func:`solver.cli.parser.add_solve_args`)
and what each gives its field (:func:`solver.cli.args.flag_value`), the flag an error names
(``solver.cli.commands.OPTION_FLAGS``), the Solve form's widgets
(:func:`app.settings.form_rows`) and the settings a reloaded page gets back
(``app.runtime.RESTORED``) are read from it. A new option: its field, its
check in :func:`validate`, its row here, and the code where it acts."""


def cli_default(row: OptionField) -> str | None:
    """The text default of ``row``'s flag: its field's default as the flag is typed (``1``,
    ``auto``, ``0``); None when the field defaults to None (or the flag is a switch)."""
    default = next(f.default for f in fields(SolveOptions) if f.name == row.field)
    if default is None or isinstance(default, bool):
        return None
    return f"{default:g}" if isinstance(default, (int, float)) else str(default)


def _unknown(key: object) -> str:
    return f"unknown option {brief(key)} (options: {', '.join(OPTION_NAMES)})"


def options_with(options: SolveOptions | None, settings: Mapping[str, Any]) -> SolveOptions:
    """``options`` (None: every default) with the keyword options ``settings`` over it (the
    keys are :data:`OPTION_NAMES`; :func:`solver.api.solve`, the one caller with loose
    keywords, names a stray one first: :func:`solver.algorithms.check_option_names`).
    TypeError when ``options`` is not a :class:`SolveOptions`."""
    if options is not None and not isinstance(options, SolveOptions):
        raise TypeError(f"options must be a SolveOptions, got {type(options).__name__}")
    base = options if options is not None else SolveOptions()
    return base.unchecked(**settings) if settings else base
