"""Every algorithm the solver offers, and the one place a solver is built for one.

Two kinds share the game model and the storage layout:

* **full-width rules** (:data:`solver.cfr.rules.RULES`: CFR, CFR+, LCFR, DCFR, PCFR+, …) run
  by the vector engine (:class:`~solver.cfr.engine.Engine`) with optional pruning
  (``none``, ``partial`` — the default, exact — ``interval``, ``total``);
* **sampling** algorithms (Monte Carlo CFR, Lanctot et al. 2009): ``mccfr-cs`` samples the
  public cards inside the vector engine (chance sampling; CFR's update); ``mccfr-es``,
  ``mccfr-os`` and ``dmccfr`` walk one dealt pair of hands at a time
  (:class:`~solver.cfr.sampling.SampledEngine`). Each is seeded and repeats exactly.

:func:`make_solver` is what the API, the CLI, races, jobs and the app call.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypedDict

from solver.cfr.engine import PRUNING, Engine
from solver.cfr.pruning import INTERVAL_RULES, TOTAL_RULES
from solver.cfr.rules import CFR, RULES, Rule, make_rule, rule_defaults
from solver.cfr.sampling import SAMPLERS, SampledEngine, SamplingRule, make_sampler
from solver.games.model import Game

FULL_WIDTH = "full-width"
SAMPLING = "sampling"
MCCFR_CS = "mccfr-cs"

Solver = Engine | SampledEngine
AlgorithmRule = Rule | SamplingRule


@dataclass(frozen=True)
class ChanceSampledCFR(CFR):
    """MCCFR with chance sampling: CFR's update, one public card drawn per chance node
    (:class:`~solver.cfr.engine.Engine` with ``sampling=True``)."""

    name = MCCFR_CS
    description = (
        "Chance-sampling MCCFR: one public card drawn per chance node (importance-weighted), "
        "full width elsewhere; CFR's update."
    )
    paper = "Lanctot, Waugh, Zinkevich, Bowling 2009 (NIPS); Johanson et al. 2012 (AAMAS)"


@dataclass(frozen=True)
class AlgorithmInfo:
    """One algorithm of the registry: its kind, parameters with defaults, a one-line
    description, the paper, and the pruning options it accepts."""

    name: str
    kind: str
    defaults: dict[str, float]
    description: str
    paper: str
    prunings: tuple[str, ...]

    @property
    def sampling(self) -> bool:
        return self.kind == SAMPLING


def _prunings(name: str) -> tuple[str, ...]:
    out = ["partial", "none"]
    if name in INTERVAL_RULES:
        out.append("interval")
    if name in TOTAL_RULES:
        out.append("total")
    return tuple(out)


def _registry() -> dict[str, AlgorithmInfo]:
    out: dict[str, AlgorithmInfo] = {}
    for name, cls in RULES.items():
        out[name] = AlgorithmInfo(
            name, FULL_WIDTH, rule_defaults(name), cls.description, cls.paper, _prunings(name)
        )
    out[MCCFR_CS] = AlgorithmInfo(
        MCCFR_CS,
        SAMPLING,
        {},
        ChanceSampledCFR.description,
        ChanceSampledCFR.paper,
        ("partial", "none"),
    )
    for name, info in SAMPLERS.items():
        out[name] = AlgorithmInfo(
            name, SAMPLING, dict(info.defaults), info.description, info.paper, ("none",)
        )
    return out


ALGORITHMS: dict[str, AlgorithmInfo] = _registry()


class UnknownAlgorithmError(KeyError, ValueError):
    """An algorithm name not in the registry: a KeyError like an unknown game (the API's
    contract) and a ValueError for callers that validate user input."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else "unknown algorithm"


def algorithm_info(name: str) -> AlgorithmInfo:
    """The registry entry of ``name`` (any case); UnknownAlgorithmError naming the known ones."""
    key = name.strip().lower()
    if key not in ALGORITHMS:
        raise UnknownAlgorithmError(f"unknown algorithm {name!r} (known: {', '.join(ALGORITHMS)})")
    return ALGORITHMS[key]


def algorithm_defaults(name: str) -> dict[str, float]:
    return dict(algorithm_info(name).defaults)


def make_algorithm(name: str, **params: float) -> AlgorithmRule:
    """The rule object of ``name`` with ``params`` overriding its defaults (validated)."""
    info = algorithm_info(name)
    if info.name == MCCFR_CS:
        if params:
            raise ValueError(f"algorithm {MCCFR_CS!r} has no parameter {next(iter(params))!r}")
        return ChanceSampledCFR()
    if info.sampling:
        return make_sampler(info.name, **params)
    return make_rule(info.name, **params)


DEFAULT_ALGORITHM = "dcfr"  # Kuhn, Leduc, Leduc-5: the DCFR paper's parameters
DEFAULT_HOLDEM_ALGORITHM = "dcfr-tuned"  # fewest iterations on the hold'em benchmark spots


def default_algorithm(is_holdem: bool) -> str:
    """The algorithm a solve uses when none is named: ``dcfr-tuned`` for hold'em subgames
    (first to every target on the benchmark turn and flop, BENCHMARKS.md), ``dcfr`` for the
    toy games."""
    return DEFAULT_HOLDEM_ALGORITHM if is_holdem else DEFAULT_ALGORITHM


def default_pruning(name: str) -> str:
    """What ``pruning=None`` means for ``name``: partial for the vector engine, none for
    the scalar samplers."""
    return algorithm_info(name).prunings[0]


def check_pruning(name: str, pruning: str | None) -> str:
    """``pruning`` (None: the algorithm's default) if ``name`` accepts it, else ValueError."""
    info = algorithm_info(name)
    if pruning is None:
        return info.prunings[0]
    p = pruning.strip().lower()
    if p not in PRUNING:
        raise ValueError(f"pruning must be one of {', '.join(PRUNING)}, got {pruning!r}")
    if p not in info.prunings:
        raise ValueError(
            f"pruning {p!r} is not available for {info.name} (it takes: {', '.join(info.prunings)})"
        )
    return p


class SolverOptions(TypedDict, total=False):
    """How :func:`make_solver` builds a solver, beyond the game and the algorithm; every key
    optional (defaults as in :func:`make_solver`). :func:`solver.api.solve` and
    :class:`solver.jobs.SolveJob` take these as keyword arguments and pass them on.

    ``threads``: solver threads (full-width rules; > 1 splits passes below the first chance
    nodes). ``precision``: storage — "auto", "float64", "float32" or "compressed" (16-bit).
    ``pruning``: None (the algorithm's default), "none", "partial", "interval" (``cfr``) or
    "total" (``cfr``, ``cfr+``). ``seed``: the sampling algorithms' draws. ``rbp_check_every``
    and ``rbp_threshold``: Total RBP's check interval and sums-release constant C;
    ``rbp_free_opponent``: Total RBP also frees the other player's regrets where the pruning
    player never comes (rebuilt from a best response when it does)."""

    threads: int
    precision: str
    pruning: str | None
    seed: int
    rbp_check_every: int
    rbp_threshold: float
    rbp_free_opponent: bool


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
) -> Solver:
    """A solver of ``game`` for ``algorithm`` (a registered name with ``params``, or a rule
    object). ``pruning`` None takes the algorithm's default; ``seed`` fixes the draws of the
    sampling algorithms (ignored by the others); ``threads`` > 1 only for full-width rules;
    ``rbp_*`` tune interval/Total RBP (see :mod:`solver.cfr.pruning`)."""
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ValueError(f"seed must be a whole number ≥ 0, got {seed!r}")
    if isinstance(algorithm, (Rule, SamplingRule)):
        if params:
            raise ValueError("pass parameters inside the rule object or with a rule name")
        rule: AlgorithmRule = algorithm
    else:
        rule = make_algorithm(algorithm, **dict(params or {}))
    name = rule.name
    pr = check_pruning(name, pruning)
    info = algorithm_info(name)
    if info.sampling and threads != 1:
        raise ValueError(f"{name} runs on one thread (threads=1)")
    if isinstance(rule, SamplingRule):
        return SampledEngine(game, name, rule.params(), seed=seed, precision=precision)
    if pr in ("interval", "total") and threads != 1:
        raise ValueError(f"pruning {pr!r} runs on one thread (threads=1)")
    return Engine(
        game,
        rule,
        threads=threads,
        precision=precision,
        pruning=pr,
        sampling=name == MCCFR_CS,
        seed=seed,
        rbp_check_every=rbp_check_every,
        rbp_threshold=rbp_threshold,
        rbp_free_opponent=rbp_free_opponent,
    )


__all__ = [
    "ALGORITHMS",
    "FULL_WIDTH",
    "MCCFR_CS",
    "SAMPLING",
    "AlgorithmInfo",
    "ChanceSampledCFR",
    "SolverOptions",
    "algorithm_defaults",
    "algorithm_info",
    "check_pruning",
    "default_pruning",
    "make_algorithm",
    "make_solver",
]
