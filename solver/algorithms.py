"""Every algorithm the solver offers (:mod:`solver.cfr.registry`), and the one place a solver
is built for one (:func:`make_solver`): what the API, the CLI, races, jobs and the app call.
Its options are one :class:`~solver.cfr.options.SolveOptions`, checked here once by
:func:`solver.cfr.options.validate`, whose messages name the field (loose keyword options are
the public :func:`solver.api.solve`'s alone)."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any

from solver.cfr.engine import PRUNING, Engine
from solver.cfr.options import (
    OPTION_NAMES,
    CheckedOptions,
    OptionError,
    SolveOptions,
    SolverOptions,
    check_options,
)
from solver.cfr.protocol import Solver
from solver.cfr.registry import (
    ALGORITHMS,
    FULL_WIDTH,
    MCCFR_CS,
    SAMPLING,
    AlgorithmInfo,
    AlgorithmRule,
    ChanceSampledCFR,
    UnknownAlgorithmError,
    algorithm_defaults,
    algorithm_info,
    default_algorithm,
    default_pruning,
    info_of,
    make_algorithm,
)
from solver.cfr.rules import Rule
from solver.cfr.sampling.engine import SampledEngine
from solver.cfr.sampling.rules import SamplingRule
from solver.games.model import Game
from solver.lockspec import check_locks_type, resolve
from solver.quoting import brief


def check_pruning(name: str, pruning: str | None) -> str:
    """``pruning`` (None: the algorithm's default) if ``name`` accepts it, else ValueError."""
    info = algorithm_info(name)
    if pruning is None:
        return info.prunings[0]
    errors = check_options(name, pruning=pruning.strip().lower())
    if "pruning" in errors:
        raise OptionError("pruning", errors["pruning"])
    return pruning.strip().lower()


def check_option_names(
    caller: str, options: Mapping[str, object], func: Callable[..., Any]
) -> None:
    """TypeError naming ``caller`` (``"solve()"``) and the first key of ``options`` that is
    not a :class:`SolveOptions` field, listing what it takes: ``func``'s own arguments and
    the options — rather than Python's "unexpected keyword argument"."""
    for name in options:
        if name not in OPTION_NAMES:
            params = inspect.signature(func).parameters.values()
            own = [p.name for p in params if p.name != "self" and p.kind != p.VAR_KEYWORD]
            known = ", ".join([*own, *OPTION_NAMES])
            raise TypeError(
                f"{caller} got an unexpected argument {brief(name)} (it takes: {known})"
            )


def make_solver(
    game: Game,
    algorithm: str | AlgorithmRule,
    params: dict[str, float] | None = None,
    options: SolveOptions | None = None,
) -> Solver:
    """A solver of ``game`` for ``algorithm`` (a registered name with ``params``, or a rule
    object) with ``options`` (:class:`SolveOptions`, e.g. ``SolveOptions(threads=2,
    pruning="none")``; None: the defaults): the one gate, which checks them once.
    ``pruning`` None takes the algorithm's default; ``seed`` fixes the draws of the sampling
    algorithms (ignored by the others); ``threads`` > 1 only for full-width rules;
    ``rbp_*`` tune interval/Total RBP (see :mod:`solver.cfr.pruning`); ``locks`` fixes the
    strategy of some infosets (:mod:`solver.lockspec`; full-width algorithms and
    ``mccfr-cs``, without regret-based pruning). The first option that does not hold raises
    :class:`~solver.cfr.options.OptionError` naming its field; an unknown algorithm name
    raises :class:`UnknownAlgorithmError`, options that are no :class:`SolveOptions`
    TypeError. Options a front end checked for this very algorithm, parameters and game
    (:meth:`~solver.cfr.options.CheckedOptions.holds_for`: the CLI, for its messages) are
    taken as they are. The solver keeps the options whole (``solver.options``, pruning
    resolved)."""
    if isinstance(algorithm, str):
        algorithm_info(algorithm)  # UnknownAlgorithmError (a KeyError) for unknown names
    if options is not None and not isinstance(options, SolveOptions):
        raise TypeError(f"options must be a SolveOptions, got {type(options).__name__}")
    opts = options if options is not None else SolveOptions()
    check_locks_type(opts.locks)
    if isinstance(opts, CheckedOptions) and opts.holds_for(algorithm, params, game):
        checked = opts  # checked for this very algorithm, parameters and game already
    else:
        checked = opts.checked(algorithm, params, game=game)  # the one check of the options
    if isinstance(algorithm, (Rule, SamplingRule)):
        rule: AlgorithmRule = algorithm
    else:
        rule = make_algorithm(algorithm, **dict(params or {}))
    if isinstance(rule, SamplingRule):
        return SampledEngine(game, rule.name, rule.params(), checked)
    locks = checked.locks
    engine = Engine(game, rule, checked.without_locks(), sampling=info_of(rule).name == MCCFR_CS)
    if locks:  # resolved here, above the engine ("solved" takes the fresh average)
        engine.lock(resolve(game, locks, engine.average_strategy()))
    return engine


__all__ = [
    "ALGORITHMS",
    "FULL_WIDTH",
    "MCCFR_CS",
    "PRUNING",
    "SAMPLING",
    "AlgorithmInfo",
    "AlgorithmRule",
    "ChanceSampledCFR",
    "OptionError",
    "SolveOptions",
    "Solver",
    "SolverOptions",
    "UnknownAlgorithmError",
    "algorithm_defaults",
    "algorithm_info",
    "check_options",
    "check_pruning",
    "default_algorithm",
    "default_pruning",
    "make_algorithm",
    "make_solver",
]
