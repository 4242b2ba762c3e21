"""The Solve page's settings: what its fields accept, reading and checking them, and the
settings that follow the game.

**Settings follow the game.** Target, its unit, the algorithm and the check interval are per
game: when the page's game changes (a preset picked on Set up, a solve loaded, …) they go to
that game's defaults (:func:`game_defaults`: 0.3 % of the pot and ``dcfr-tuned`` for hold'em
spots, 0.001 chips and ``dcfr`` for the toy games, checks every 10 iterations), unless the
user set them for that game earlier in the session, in which case those come back. A running
solve keeps its game: the switch waits until it has stopped (:func:`follow_game`).

**The opening preset tells its convergence story.** The app opens on a river spot
(:data:`OPENING`) that DCFR solves to 0.3 % pot in about 90 iterations, a fraction of a
second: checked every 10 iterations its curve has 10 points and its replay is over at once.
There the exploitability is checked at every iteration (:data:`OPENING_CHECK_EVERY`), so the
first solve a newcomer runs draws a curve of ~90 points that the finished chart's replay
plays over a few seconds (one frame per check up to its frame count).
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, fields
from typing import Any

from app import state
from app.components.fields import Number, show
from app.spec import DEFAULT_SOURCE
from solver.algorithms import ALGORITHMS, AlgorithmInfo, algorithm_defaults, default_algorithm
from solver.cfr.options import (
    OPTION_FIELDS,
    OptionField,
    SolveOptions,
    check_options,
    cli_default,
    parse_param,
    sentence,
)
from solver.cfr.parallel import max_threads
from solver.run.jobs import CHECK_EVERY

RBP = ("interval", "total")  # pruning modes that need one thread and float32/float64 storage
PRUNING_LABELS = {
    "partial": "partial (exact)",
    "none": "none",
    "interval": "interval RBP",
    "total": "Total RBP",
}
DEFAULT_MAX_ITERATIONS = 100_000

TARGET = Number("Target", 0, 1e9, note="0 = no target")
MAX_ITERATIONS = Number("Max iterations", 1, 1e9, whole=True)
THREADS = Number("Threads", 1, max_threads(), whole=True)
CHECK = Number("Check every", 1, 1e6, whole=True)
SEED = Number("Seed", 0, 2**32 - 1, whole=True)
RBP_CHECK = Number("RBP: check every (iterations)", 1, 1e6, whole=True)
RBP_THRESHOLD = Number("RBP: threshold C", 0, 1e9, note="0 keeps every strategy sum")

PRECISIONS = {
    "auto": "auto (float32 for big hold'em spots, float64 for small ones, long solves, toys)",
    "float64": "float64",
    "float32": "float32 (half the memory)",
    "compressed": "16-bit compressed (quarter)",
}
PRUNING_HELP = (
    "**partial** (the default): skip what the opponent never reaches — the same numbers as "
    "none, less work. **none**: walk every subtree. **interval RBP** (CFR) and **Total RBP** "
    "(CFR, CFR+): regret-based pruning, on one thread with float32/float64 storage. What each "
    "does and costs: docs/pruning.md."
)

Choices = Mapping[str, str]
"""The form's select values so far, by field (``{"pruning": "total", "precision": "auto"}``):
what decides whether the other options are drawn."""


def _always(info: AlgorithmInfo, chosen: Choices) -> bool:
    return True


def _not_forced(info: AlgorithmInfo, chosen: Choices) -> str:
    return ""


def _one_thread(info: AlgorithmInfo, chosen: Choices) -> str:
    """Why a solve runs on one thread whatever the Threads field says ("": it need not)."""
    if info.sampling:
        return "sampling algorithms run on one thread"
    pruning = str(chosen.get("pruning"))
    return f"{PRUNING_LABELS[pruning]} runs on one thread" if pruning in RBP else ""


@dataclass(frozen=True)
class OptionWidget:
    """How the Solve form draws one solver option — an :data:`OPTION_FIELDS` row with an app
    key, whose key, widget kind ("number", "select", "checkbox") and default the row gives —
    beyond the row: its ``label``; its ``section`` ("main": the row above the fold, "advanced":
    under Advanced, "rbp": the row under those; drawn in :data:`OPTION_WIDGETS`' order);
    ``number``, what a number field accepts (None: any number of its field's type);
    ``help`` ("": the row's, the CLI's); a select's ``choices`` for an algorithm and the
    ``names`` it shows them by; ``shown`` whether it is drawn (not drawn: its default);
    ``forced`` why it takes its default whatever is typed ("": it need not; drawn disabled,
    under its key + ``_one``); ``width``, its column's."""

    label: str
    section: str = "advanced"
    number: Number | None = None
    help: str = ""
    choices: Callable[[AlgorithmInfo], Sequence[str]] | None = None
    names: Mapping[str, str] = field(default_factory=dict)
    shown: Callable[[AlgorithmInfo, Choices], bool] = _always
    forced: Callable[[AlgorithmInfo, Choices], str] = _not_forced
    width: float = 0.85


OPTION_WIDGETS: dict[str, OptionWidget] = {
    "threads": OptionWidget(
        "Threads",
        "main",
        THREADS,
        "solver threads per pass (turn and flop spots split best)",
        forced=_one_thread,
    ),
    "seed": OptionWidget(
        "Seed",
        "main",
        SEED,
        "fixes every random draw: the same seed repeats the solve exactly",
        shown=lambda info, chosen: info.sampling,
        width=0.8,
    ),
    "pruning": OptionWidget(
        "Pruning",
        help=PRUNING_HELP,
        choices=lambda info: info.prunings,
        names=PRUNING_LABELS,
        width=1.3,
    ),
    "precision": OptionWidget(
        "Storage", choices=lambda info: list(PRECISIONS), names=PRECISIONS, width=1.5
    ),
    "rbp_check_every": OptionWidget(
        RBP_CHECK.label,
        "rbp",
        RBP_CHECK,
        "Total RBP: iterations between prune checks; interval RBP: how long a pruning must be "
        "able to last (docs/pruning.md)",
        shown=lambda info, chosen: chosen.get("pruning") in RBP,
    ),
    "rbp_threshold": OptionWidget(
        RBP_THRESHOLD.label,
        "rbp",
        RBP_THRESHOLD,
        "release the strategy sums of a pruned action below C/√T (docs/pruning.md)",
        shown=lambda info, chosen: chosen.get("pruning") == "total",
    ),
    "rbp_free_opponent": OptionWidget(
        "RBP: free opponent regrets",
        "rbp",
        help="also free the other player's regrets where the pruning player never comes "
        "(our extension of Total RBP; less memory, slower convergence: docs/pruning.md)",
        shown=lambda info, chosen: chosen.get("pruning") == "total",
    ),
}
"""The Solve form's look of the options :data:`OPTION_FIELDS` gives an app key, by field, in
the order each section draws them. Optional: a row with an app key and no entry here is
drawn all the same (:func:`option_widget`: under Advanced, labelled by its field)."""

_DEFAULTS: dict[str, Any] = {f.name: f.default for f in fields(SolveOptions)}


def option_widget(row: OptionField) -> OptionWidget:
    """How the form draws ``row`` (:data:`OPTION_WIDGETS`, or under Advanced by its field's
    name when it has no entry there)."""
    got = OPTION_WIDGETS.get(row.field)
    if got is not None:
        return got
    label = row.field.replace("_", " ").capitalize()
    default = _DEFAULTS[row.field]
    whole = isinstance(default, int) and not isinstance(default, bool)
    return OptionWidget(
        label, number=Number(label, whole=whole) if row.widget == "number" else None
    )


def form_rows() -> list[OptionField]:
    """Every :data:`OPTION_FIELDS` row the Solve form draws (those with an app key), in
    drawing order: :data:`OPTION_WIDGETS`' order, then the table's."""
    rows = [r for r in OPTION_FIELDS if r.app is not None]
    order = list(OPTION_WIDGETS)
    return sorted(rows, key=lambda r: order.index(r.field) if r.field in order else len(order))


def default_text(row: OptionField) -> str:
    """The text a number field of ``row`` starts with (its field's default, as the CLI's
    flag shows it)."""
    return cli_default(row) or ""


def chosen_selects(info: AlgorithmInfo) -> dict[str, str]:
    """Each select option's value in the session, or its first choice for ``info``'s
    algorithm when it holds none of them (what the form then shows)."""
    out: dict[str, str] = {}
    for row in form_rows():
        widget = option_widget(row)
        if row.widget == "select" and widget.choices is not None:
            choices = list(widget.choices(info))
            value = state.get(str(row.app))
            out[row.field] = value if value in choices else choices[0]
    return out


FOLLOW = (state.ALGORITHM, state.TARGET, state.TARGET_UNIT, state.CHECK_EVERY)
"""The widgets whose values belong to a game (see the module docstring)."""

OPENING = DEFAULT_SOURCE
"""The game the app opens on (:data:`app.spec.DEFAULT_SOURCE`, the ``srp-river`` preset)."""
OPENING_CHECK_EVERY = 1
"""Its check interval: every iteration, so its quick first solve has a curve to replay."""


def _read(spec: Number, key: str, default: float | None = None) -> tuple[float | None, str]:
    """The number field's value under ``key`` as :meth:`Number.parse_kept` checks it."""
    return spec.parse_kept(state.get(key), default)


def game_defaults(holdem: bool, game_id: str | None = None) -> dict[str, str]:
    """Target, unit, algorithm and check interval a game opens with (``game_id``: a source
    id; the opening game checks every iteration)."""
    every = OPENING_CHECK_EVERY if game_id == OPENING else CHECK_EVERY
    if holdem:
        return {
            state.ALGORITHM: default_algorithm(True),
            state.TARGET: "0.3",
            state.TARGET_UNIT: "% pot",
            state.CHECK_EVERY: str(every),
        }
    return {
        state.ALGORITHM: default_algorithm(False),
        state.TARGET: "0.001",
        state.TARGET_UNIT: "chips",
        state.CHECK_EVERY: str(every),
    }


def follow_game(game_id: str, holdem: bool, busy: bool) -> None:
    """Give the settings of :data:`FOLLOW` to the game ``game_id`` (a source id) when it is
    not the game they belong to: what differs from the old game's defaults is kept for that
    game, then the new game's kept values (or its defaults) come in. Nothing moves while
    ``busy`` (a solve runs on the old game)."""
    owner = state.get(state.SETTINGS_GAME)
    if owner == game_id or busy:
        return
    kept: dict[str, dict[str, Any]] = dict(state.get(state.SETTINGS_KEPT) or {})
    if owner is not None:
        old_defaults = game_defaults(bool(state.get(state.SETTINGS_HOLDEM)), owner)
        mine = {k: state.get(k) for k in FOLLOW if state.get(k) not in (None, old_defaults[k])}
        if mine:
            kept[owner] = mine
        else:
            kept.pop(owner, None)
    values = {**game_defaults(holdem, game_id), **kept.get(game_id, {})}
    for k, v in values.items():
        state.put(k, v)
    state.put(state.SETTINGS_KEPT, kept)
    state.put(state.SETTINGS_GAME, game_id)
    state.put(state.SETTINGS_HOLDEM, holdem)


def param_key(algo: str, name: str) -> str:
    return f"{state.PARAM_PREFIX}{algo}_{name}"


def param_text(value: float) -> str:
    """A rule parameter as its field shows it (``-inf`` allowed: DCFR's β)."""
    return show(value) if math.isfinite(value) else ("-inf" if value < 0 else "inf")


def read_params(
    algo: str, key_of: Callable[[str], str] | None = None, *, check: bool = True
) -> tuple[dict[str, float], str]:
    """The algorithm's parameters from their fields (``key_of(name)`` → widget key; default:
    the Solve page's) — defaults where never drawn — and the first problem ("" when the rule
    accepts them: :func:`solver.cfr.options.check_options` words it; with ``check`` False
    only text that is no number, the caller checking the values with its options)."""
    out: dict[str, float] = {}
    for name, default in algorithm_defaults(algo).items():
        raw = state.get(key_of(name) if key_of is not None else param_key(algo, name))
        if raw is None:
            out[name] = default
            continue
        text = str(raw).strip()
        try:
            out[name] = parse_param(text)
        except ValueError as exc:
            return out, f"{name}: {exc}."
    if not check:
        return out, ""
    checked = check_options(algo, out)  # worded for a field labelled with the name
    return out, next(iter(checked.values())) if checked else ""


@dataclass(frozen=True)
class Settings:
    """The solver settings the page's fields hold, read and checked. ``options`` is the one
    :class:`~solver.cfr.options.SolveOptions` the solve gets (threads 1 when ``one_thread``
    says why; pruning resolved). ``errors`` maps a field ("params", "target",
    "max_iterations", "threads", "check_every", "seed", "rbp_check_every", "rbp_threshold",
    "precision", …: the fields of :func:`solver.cfr.options.check_options`) to the message
    shown next to it; Solve stays disabled while there is any."""

    algorithm: str
    params: dict[str, float]
    options: SolveOptions
    target: float  # as typed, in ``unit`` (0: no target)
    unit: str
    max_iterations: int
    check_every: int
    one_thread: str = ""  # why the solve runs on one thread whatever the Threads field says
    errors: dict[str, str] = field(default_factory=dict)

    @property
    def pruning(self) -> str:
        """The pruning mode (the options', always given here)."""
        return str(self.options.pruning)

    def target_chips(self, starting_pot: float) -> float | None:
        """The target in chips (None: no target); % pot needs the hold'em starting pot."""
        if self.target <= 0:
            return None
        if self.unit == "% pot" and starting_pot > 0:
            return self.target * starting_pot / 100.0
        return self.target


def settings(holdem: bool, *, check: bool = True) -> Settings:
    """The solver settings from the session state (defaults where a field was never drawn),
    with every problem in ``errors``. ``check`` False leaves the options and parameters to
    the solve's one gate (:func:`solver.algorithms.make_solver`, whose OptionError names the
    field): what Solve's click does, the page having shown each message beside its field."""
    algo = str(state.get(state.ALGORITHM))
    if algo not in ALGORITHMS:
        algo = default_algorithm(holdem)
    info = ALGORITHMS[algo]
    errors: dict[str, str] = {}
    params, errors["params"] = read_params(algo, check=False)  # (checked below, once)
    target, errors["target"] = _read(TARGET, state.TARGET, 0.3 if holdem else 0.001)
    unit = str(state.get(state.TARGET_UNIT) or ("% pot" if holdem else "chips"))
    if unit not in (("% pot", "chips") if holdem else ("chips",)):
        unit = "% pot" if holdem else "chips"
    limit, errors["max_iterations"] = _read(
        MAX_ITERATIONS, state.MAX_ITERATIONS, DEFAULT_MAX_ITERATIONS
    )
    every, errors["check_every"] = _read(CHECK, state.CHECK_EVERY, CHECK_EVERY)
    chosen = chosen_selects(info)
    values: dict[str, Any] = dict(chosen)
    one_thread = ""
    for row in form_rows():  # every option the form draws, read as its kind is
        widget = option_widget(row)
        key, default = str(row.app), _DEFAULTS[row.field]
        why = widget.forced(info, chosen)
        if row.field == "threads":
            one_thread = why
        if row.widget == "select" or why or not widget.shown(info, chosen):
            continue  # (a select: read above; the others keep their defaults)
        if row.widget == "checkbox":
            values[row.field] = bool(state.get(key, default))
        elif row.widget == "number":
            spec = widget.number or Number(widget.label)
            value, errors[row.field] = _read(spec, key, default)
            if value is not None:
                values[row.field] = value
    options = SolveOptions(**values)
    # what the fields parsed is checked by the solver's own validator (the CLI's words)
    checked = options.check(algo, None if errors["params"] else params) if check else {}
    for name, message in checked.items():
        key = "params" if name in params else name
        if not errors.get(key):
            errors[key] = message if name in params else sentence(message)
    return Settings(
        algo,
        params,
        options,
        float(target or 0.0),
        unit,
        int(limit or DEFAULT_MAX_ITERATIONS),
        int(every or CHECK_EVERY),
        one_thread,
        {k: v for k, v in errors.items() if v},
    )


def algorithm_names() -> list[str]:
    """Every algorithm of :data:`solver.algorithms.ALGORITHMS`: full-width first, then
    sampling (registry order within each kind)."""
    return [n for n, i in ALGORITHMS.items() if not i.sampling] + [
        n for n, i in ALGORITHMS.items() if i.sampling
    ]
