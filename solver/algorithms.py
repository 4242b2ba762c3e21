"""Every algorithm the solver offers (:mod:`solver.cfr.registry`), and the one place a solver
is built for one (:func:`make_solver`): what the API, the CLI, races, jobs and the app call.
Options are checked by :func:`solver.cfr.options.check_options`, whose messages name the
field."""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from typing import Any, TypedDict

from solver.cfr.engine import PRUNING, Engine
from solver.cfr.locks import LockSet
from solver.cfr.options import OptionError, check_options, raise_first
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


class SolverOptions(TypedDict, total=False):
    """How :func:`make_solver` builds a solver, beyond the game and the algorithm; every key
    optional (defaults as in :func:`make_solver`). :func:`solver.api.solve` and
    :class:`solver.run.jobs.SolveJob` take these as keyword arguments and pass them on.

    ``threads``: solver threads (full-width rules; > 1 splits passes below the first chance
    nodes, or a river past :data:`~solver.cfr.parallel.MIN_SPLIT_COST` at its decision nodes;
    at most this machine's cores). ``precision``: storage — "auto", "float64",
    "float32" or "compressed" (16-bit). ``pruning``: None (the algorithm's default), "none",
    "partial", "interval" (rules like ``cfr``) or "total" (rules like ``cfr``, ``cfr+``).
    ``seed``: the sampling algorithms' draws. ``rbp_check_every`` and ``rbp_threshold``:
    Total RBP's check interval and sums-release constant C; ``rbp_free_opponent``: Total
    RBP also frees the other player's regrets where the pruning player never comes (rebuilt
    from a best response when it does)."""

    threads: int
    precision: str
    pruning: str | None
    seed: int
    rbp_check_every: int
    rbp_threshold: float
    rbp_free_opponent: bool
    locks: Mapping[Any, Any] | LockSet | None


def check_option_names(
    caller: str, options: Mapping[str, object], func: Callable[..., Any]
) -> None:
    """TypeError naming ``caller`` (``"solve()"``) and the first key of ``options`` that is
    not a :class:`SolverOptions` key, listing what it takes: ``func``'s own arguments and
    the options — rather than ``make_solver``'s "unexpected keyword argument"."""
    for name in options:
        if name not in SolverOptions.__annotations__:
            params = inspect.signature(func).parameters.values()
            own = [p.name for p in params if p.name != "self" and p.kind != p.VAR_KEYWORD]
            known = ", ".join([*own, *SolverOptions.__annotations__])
            raise TypeError(
                f"{caller} got an unexpected argument {brief(name)} (it takes: {known})"
            )


def make_solver(
    game: Game,
    algorithm: str | AlgorithmRule,
    params: dict[str, float] | None = None,
    *,
    threads: int = 1,
    precision: str = "auto",
    pruning: str | None = None,
    seed: int = 0,
    rbp_check_every: int = 10,
    rbp_threshold: float = 0.0,
    rbp_free_opponent: bool = False,
    locks: Mapping[Any, Any] | LockSet | None = None,
) -> Solver:
    """A solver of ``game`` for ``algorithm`` (a registered name with ``params``, or a rule
    object). ``pruning`` None takes the algorithm's default; ``seed`` fixes the draws of the
    sampling algorithms (ignored by the others); ``threads`` > 1 only for full-width rules;
    ``rbp_*`` tune interval/Total RBP (see :mod:`solver.cfr.pruning`); ``locks`` fixes the
    strategy of some infosets (:mod:`solver.lockspec`; full-width algorithms and
    ``mccfr-cs``, without regret-based pruning). The first option that
    does not hold raises :class:`~solver.cfr.options.OptionError` naming its field;
    an unknown algorithm name raises :class:`UnknownAlgorithmError`."""
    if isinstance(algorithm, str):
        algorithm_info(algorithm)  # UnknownAlgorithmError (a KeyError) for unknown names
    check_locks_type(locks)
    raise_first(
        check_options(
            algorithm,
            params,
            game=game,
            threads=threads,
            precision=precision,
            pruning=pruning,
            seed=seed,
            rbp_check_every=rbp_check_every,
            rbp_threshold=rbp_threshold,
            rbp_free_opponent=rbp_free_opponent,
            locked=bool(locks),
        )
    )
    if isinstance(algorithm, (Rule, SamplingRule)):
        rule: AlgorithmRule = algorithm
    else:
        rule = make_algorithm(algorithm, **dict(params or {}))
    info = info_of(rule)
    pr = info.prunings[0] if pruning is None else pruning
    if isinstance(rule, SamplingRule):
        return SampledEngine(game, rule.name, rule.params(), seed=seed, precision=precision)
    engine = Engine(
        game,
        rule,
        threads=threads,
        precision=precision,
        pruning=pr,
        sampling=info.name == MCCFR_CS,
        seed=seed,
        rbp_check_every=rbp_check_every,
        rbp_threshold=rbp_threshold,
        rbp_free_opponent=rbp_free_opponent,
    )
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
