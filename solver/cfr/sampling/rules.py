"""The sampled algorithms (Monte Carlo CFR) as rules: a name, parameters and, for discounted
MCCFR, a discount schedule. See :mod:`solver.cfr.sampling` for the walks."""

from __future__ import annotations

import sys
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

FloatArray = npt.NDArray[np.float64]

MODE_ES = 0  # external sampling (also discounted MCCFR)
MODE_OS = 1  # outcome sampling
MAX_PERIOD = 1e15  # dmccfr: nodes touched per discounting period


MAX_FLOAT_INT = int(sys.float_info.max)  # the largest integer float() takes


@dataclass(frozen=True)
class SamplerInfo:
    """A sampled algorithm: its parameters with defaults, a one-line description, the paper."""

    name: str
    mode: int
    defaults: dict[str, float]
    description: str
    paper: str


SAMPLERS: dict[str, SamplerInfo] = {
    "mccfr-es": SamplerInfo(
        "mccfr-es",
        MODE_ES,
        {},
        "External-sampling MCCFR: sample the deal, chance and the opponent's actions; "
        "try every traverser action.",
        "Lanctot, Waugh, Zinkevich, Bowling 2009 (NIPS)",
    ),
    "mccfr-os": SamplerInfo(
        "mccfr-os",
        MODE_OS,
        {"epsilon": 0.6},
        "Outcome-sampling MCCFR: one trajectory per pass, the traverser exploring "
        "ε-uniformly; importance-weighted updates.",
        "Lanctot, Waugh, Zinkevich, Bowling 2009 (NIPS)",
    ),
    "dmccfr": SamplerInfo(
        "dmccfr",
        MODE_ES,
        {"period": 0.0},
        "Discounted MCCFR: external sampling; after period t of nodes touched, all regrets "
        "and strategy sums × t/(t+1) (period 0 = the tree's node count).",
        "Brown & Sandholm 2019 (AAAI)",
    ),
}


@dataclass(frozen=True)
class SamplingRule:
    """The algorithm of a :class:`SampledEngine`, shaped like :class:`~solver.cfr.rules.Rule`
    for the code that reports one (``name``, ``params()``, ``label()``).

    ``epsilon``: exploration of outcome sampling, in (0, 1]. ``period``: nodes touched per
    discounting period of ``dmccfr`` (≥ 0; 0 = the number of nodes of the game's tree).
    Parameters that the algorithm does not use keep their defaults and are not reported."""

    name: str
    epsilon: float = 0.6
    period: float = 0.0

    def __post_init__(self) -> None:
        if self.name not in SAMPLERS:
            raise ValueError(
                f"unknown sampled algorithm {self.name!r}; known: {', '.join(SAMPLERS)}"
            )

    def check_params(self) -> dict[str, str]:
        """{parameter: message} for the algorithm's parameters outside their ranges."""
        out: dict[str, str] = {}
        for k in self.info.defaults:
            v = getattr(self, k)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                out[k] = f"{k} must be a number, got {v!r}"
            elif isinstance(v, int) and abs(v) > MAX_FLOAT_INT:  # (float() would overflow)
                out[k] = (
                    f"{k} must be within the float range (±1.8e308), got a "
                    f"{v.bit_length()}-bit integer"
                )
            elif np.isnan(v):
                out[k] = f"{k} must be a number, got {v!r}"
            elif k == "epsilon" and not 0.0 < v <= 1.0:
                out[k] = f"epsilon must be in (0, 1] (exploration of outcome sampling), got {v:g}"
            elif k == "period" and not 0.0 <= v <= MAX_PERIOD:
                out[k] = (
                    f"period must be a number of nodes touched from 0 to {MAX_PERIOD:g} "
                    f"(0: the tree's node count), got {v:g}"
                )
        return out

    @property
    def info(self) -> SamplerInfo:
        return SAMPLERS[self.name]

    @property
    def description(self) -> str:
        return self.info.description

    @property
    def paper(self) -> str:
        return self.info.paper

    def params(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in self.info.defaults}

    def discount(self, t: FloatArray) -> FloatArray:
        """(len(t), 2): the factors by which the regrets (column 0) and the strategy sums
        (column 1) are multiplied when discounting period ``t`` (1-based) ends: t/(t+1) for
        ``dmccfr`` (the DCFR paper's discounted MCCFR), 1 for the others. Pure."""
        t = np.asarray(t, dtype=np.float64)
        f = t / (t + 1.0) if self.name == "dmccfr" else np.ones_like(t)
        return np.ascontiguousarray(np.stack([f, f], axis=1))

    def label(self) -> str:
        ps = ", ".join(f"{k}={v:g}" for k, v in self.params().items())
        return f"{self.name}({ps})" if ps else self.name


def make_sampler(name: str, **params: float) -> SamplingRule:
    """The sampled algorithm ``name`` with ``params`` overriding its defaults (ValueError for an
    unknown name or parameter, or a value out of range)."""
    key = name.lower()
    if key not in SAMPLERS:
        raise ValueError(f"unknown sampled algorithm {name!r}; known: {', '.join(SAMPLERS)}")
    allowed = SAMPLERS[key].defaults
    values: dict[str, float] = {}
    for p, v in params.items():
        if p not in allowed:
            opts = ", ".join(sorted(allowed)) or "none"
            raise ValueError(f"algorithm {key!r} has no parameter {p!r} (parameters: {opts})")
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_FLOAT_INT:
            raise ValueError(
                f"parameter {p!r} must be within the float range (±1.8e308), got a "
                f"{v.bit_length()}-bit integer"
            )
        if isinstance(v, bool) or not isinstance(v, (int, float)) or np.isnan(v):
            raise ValueError(f"parameter {p!r} must be a number, got {v!r}")
        values[p] = float(v)
    rule = SamplingRule(key, **values)
    errors = rule.check_params()
    if errors:
        raise ValueError(next(iter(errors.values())))
    return rule
