"""Every algorithm the solver offers: its kind, parameters, paper and the pruning it takes.

Two kinds share the game model and the storage layout:

* **full-width rules** (:data:`solver.cfr.rules.RULES`: CFR, CFR+, LCFR, DCFR, PCFR+, …) run
  by the vector engine (:class:`~solver.cfr.engine.Engine`) with optional pruning
  (``none``, ``partial`` — the default, exact — ``interval``, ``total``; which rules take the
  last two follows from their schedules: :mod:`solver.cfr.pruning.eligibility`);
* **sampling** algorithms (Monte Carlo CFR, Lanctot et al. 2009): ``mccfr-cs`` samples the
  public cards inside the vector engine (chance sampling; CFR's update); ``mccfr-es``,
  ``mccfr-os`` and ``dmccfr`` walk one dealt pair of hands at a time
  (:class:`~solver.cfr.sampling.engine.SampledEngine`). Each is seeded and repeats exactly.
"""

from __future__ import annotations

from dataclasses import dataclass

from solver.cfr.pruning.eligibility import prunings_for
from solver.cfr.rules import CFR, RULES, Rule, make_rule, rule_defaults
from solver.cfr.sampling.rules import SAMPLERS, SamplingRule, make_sampler

FULL_WIDTH = "full-width"
SAMPLING = "sampling"
MCCFR_CS = "mccfr-cs"

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
    description, the paper, and the pruning options it accepts (the first is its default)."""

    name: str
    kind: str
    defaults: dict[str, float]
    description: str
    paper: str
    prunings: tuple[str, ...]

    @property
    def sampling(self) -> bool:
        return self.kind == SAMPLING


def _registry() -> dict[str, AlgorithmInfo]:
    out: dict[str, AlgorithmInfo] = {}
    for name, cls in RULES.items():
        out[name] = AlgorithmInfo(
            name,
            FULL_WIDTH,
            rule_defaults(name),
            cls.description,
            cls.paper,
            prunings_for(make_rule(name)),
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
    key = name.strip().lower() if isinstance(name, str) else name
    if not isinstance(key, str) or key not in ALGORITHMS:
        raise UnknownAlgorithmError(f"unknown algorithm {name!r} (known: {', '.join(ALGORITHMS)})")
    return ALGORITHMS[key]


def info_of(rule: AlgorithmRule) -> AlgorithmInfo:
    """The registry entry a rule object belongs to; a full-width rule that is not registered
    (a user's own) gets one from its schedule's properties."""
    if isinstance(rule, SamplingRule):
        return ALGORITHMS[rule.name]
    if isinstance(rule, ChanceSampledCFR):
        return ALGORITHMS[MCCFR_CS]
    known = ALGORITHMS.get(rule.name)
    if known is not None and type(rule) is RULES.get(rule.name):
        return known
    return AlgorithmInfo(
        rule.name, FULL_WIDTH, rule.params(), rule.description, rule.paper, prunings_for(rule)
    )


def algorithm_defaults(name: str) -> dict[str, float]:
    return dict(algorithm_info(name).defaults)


def rule_object(info: AlgorithmInfo, params: dict[str, float]) -> AlgorithmRule:
    """The rule object of ``info`` with ``params`` (known names, floats) set, unvalidated:
    its ``check_params()`` says what is out of range."""
    if info.name == MCCFR_CS:
        return ChanceSampledCFR()
    if info.sampling:
        return SamplingRule(info.name, **params)
    return RULES[info.name](**params)


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
