"""CFR-family algorithms as small rules: a schedule of per-iteration scalars.

The engine owns the one traversal (:mod:`solver.cfr.walk`). A rule only says, for each
iteration ``t`` (1-based), how to update one infoset's buffers. With ``r`` the instantaneous
regret vector of an infoset and ``R`` its accumulated regrets:

1. regrets ``R ← post(pre(R) + w·r)`` where ``pre`` multiplies positive entries by
   ``pre_pos`` and negative ones by ``pre_neg``, ``post`` likewise with ``post_pos`` and
   ``post_neg``; then ``R ← max(R, 0)`` if ``floor``;
2. the next current strategy ``σ = RM(R·scale + pred·r/(1+α_I))`` (or NormalHedge of its
   positive part), where ``α_I = 0`` unless the rule is ``adaptive``, in which case
   ``α_I = min(sqrt(Σ‖r − m‖² / Σ‖ΔR‖²), alpha_max)`` per infoset (``alpha_max`` when no
   regret has moved), ``m`` the previous instantaneous regret;
3. at the opponent's nodes, the average-strategy sums ``S ← S·decay + avg_weight·π·σ`` with
   ``π`` the owner's reach (CFR+ paper, Algorithm 1).

Every rule here is a frozen dataclass whose ``coefficients(t)`` returns those scalars for a
vector of iterations; :data:`RULES` is the registry the API, CLI and app list.
"""

from __future__ import annotations

import math
import sys
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import ClassVar

import numpy as np
import numpy.typing as npt

# Column indices of a coefficient table (one row per iteration): the rule's schedule only.
# What the engine decides itself (pruning, chance draws, record passes) travels separately
# (:class:`solver.cfr.layout.PassFlags`).
PRE_POS, PRE_NEG, REGRET_WEIGHT, POST_POS, POST_NEG = 0, 1, 2, 3, 4
FLOOR, SCALE, PRED, ADAPTIVE, ALPHA_MAX = 5, 6, 7, 8, 9
DECAY, AVG_WEIGHT, NORMAL_HEDGE = 10, 11, 12
DERIVE = 13  # 1: the next strategy is plain RM(R), so the engine derives it instead of storing
NUM_COEFFICIENTS = 14

# Iterations at which a rule's properties are read off its schedule (see Rule.properties):
# the first hundred and a few far ones.
_PROBE = np.concatenate([np.arange(1.0, 101.0), [1e3, 1e4, 1e5, 1e6]])

FloatArray = npt.NDArray[np.float64]


def _discount(t: FloatArray, power: float) -> FloatArray:
    """t^p / (t^p + 1) elementwise, with p = -inf giving 0 and p = +inf giving 1 (t ≥ 1)."""
    if power == -math.inf:
        return np.zeros_like(t)
    if power == math.inf:
        return np.ones_like(t)
    with np.errstate(over="ignore", divide="ignore"):
        return 1.0 / (1.0 + np.power(t, -power))


def _pdcfr_discount(t: FloatArray, alpha: float) -> FloatArray:
    """PDCFR+'s d(t) = (t−1)^α / ((t−1)^α + 1); d(1) = 0."""
    tm1 = t - 1.0
    out = np.zeros_like(t)
    pos = tm1 > 0
    out[pos] = _discount(tm1[pos], alpha)
    return out


MAX_FLOAT_INT = int(sys.float_info.max)  # the largest integer float() takes


@dataclass(frozen=True)
class Param:
    """The values a rule parameter may take: ``lo ≤ x ≤ hi`` (either bound may be ±inf, and
    then the infinite value itself is allowed only with ``infinite``). ``meaning`` says what
    the parameter does, for messages and help texts."""

    lo: float
    hi: float
    meaning: str
    infinite: bool = False
    whole: bool = False  # only whole numbers

    def check(self, name: str, value: float) -> str | None:
        """A message naming ``name`` when ``value`` is out of range, else None."""
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            return f"{name} must be a number, got {value!r}"
        if isinstance(value, int) and abs(value) > MAX_FLOAT_INT:  # (float() would overflow)
            return (
                f"{name} must be within the float range (±1.8e308), got a "
                f"{value.bit_length()}-bit integer"
            )
        if math.isnan(value):
            return f"{name} must be a number, got {value!r}"
        if math.isinf(value) and not self.infinite:
            return f"{name} must be finite ({self.meaning}), got {value:g}"
        if self.whole and value != math.floor(value):
            return f"{name} must be a whole number ({self.meaning}), got {value:g}"
        if value < self.lo:
            return f"{name} must be ≥ {self.lo:g} ({self.meaning}), got {value:g}"
        if value > self.hi:
            return f"{name} must be ≤ {self.hi:g} ({self.meaning}), got {value:g}"
        return None


@dataclass(frozen=True)
class RuleProperties:
    """What a schedule implies for the engine, read off :meth:`Rule.coefficients` (pure):

    ``plain_rm`` the next strategy is RM(R) (no prediction, scale or NormalHedge);
    ``floors_regrets`` RM+ (regrets floored at 0); ``discounts_regrets`` any regret discount;
    ``constant_regret_weight`` every iteration's regret counts the same; ``discounts_average``
    strategy sums decay; ``average_weights`` "uniform" (constant), "linear" (∝ max(t − d, 0))
    or "other"."""

    plain_rm: bool
    floors_regrets: bool
    discounts_regrets: bool
    constant_regret_weight: bool
    discounts_average: bool
    average_weights: str


def _average_kind(w: FloatArray) -> str:
    if np.all(w == w[0]) and w[0] > 0:
        return "uniform"
    pos = np.flatnonzero(w > 0)
    if pos.size < 2 or np.any(w[: pos[0]] != 0):
        return "other"
    head = _PROBE[pos[0]]
    c = w[pos[0] + 1] - w[pos[0]]
    want = w[pos[0]] + c * (_PROBE[pos[0] :] - head)
    if c > 0 and w[pos[0]] <= c * (1 + 1e-12) and np.allclose(w[pos[0] :], want, rtol=1e-12):
        return "linear"
    return "other"


@dataclass(frozen=True)
class Rule:
    """Base of every rule. Subclasses add their parameters as fields with defaults and
    declare each one's range in ``PARAMS``."""

    name: ClassVar[str] = ""
    description: ClassVar[str] = ""
    paper: ClassVar[str] = ""
    PARAMS: ClassVar[dict[str, Param]] = {}

    def coefficients(self, t: FloatArray) -> FloatArray:
        """Scalars for iterations ``t`` (a float array of 1-based iterations): shape
        ``(len(t), NUM_COEFFICIENTS)``. Pure: depends on ``t`` and the parameters only."""
        c = np.zeros((t.shape[0], NUM_COEFFICIENTS), dtype=np.float64)
        c[:, [PRE_POS, PRE_NEG, REGRET_WEIGHT, POST_POS, POST_NEG, SCALE, DECAY, AVG_WEIGHT]] = 1
        self._fill(np.asarray(t, dtype=np.float64), c)
        plain = (c[:, PRED] == 0) & (c[:, NORMAL_HEDGE] == 0) & (c[:, SCALE] == 1)
        c[:, DERIVE] = plain & (c[:, ADAPTIVE] == 0)
        return c

    @property
    def stores_strategy(self) -> bool:
        """Whether the engine must store the current strategy (predictive and NormalHedge
        rules); otherwise it is RM of the regrets, derived when needed (a third less memory)."""
        return not bool(self.coefficients(np.array([1.0, 2.0]))[:, DERIVE].all())

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        raise NotImplementedError

    @property
    def adaptive(self) -> bool:
        """Whether the rule keeps per-infoset step statistics (and the last regret)."""
        return False

    @property
    def properties(self) -> RuleProperties:
        """:class:`RuleProperties` of this rule's schedule (read at iterations 1–100 and a
        few far ones)."""
        c = self.coefficients(_PROBE)
        ones = [PRE_POS, PRE_NEG, POST_POS, POST_NEG]
        return RuleProperties(
            plain_rm=bool(c[:, DERIVE].all()),
            floors_regrets=bool((c[:, FLOOR] != 0).all()),
            discounts_regrets=bool((c[:, ones] != 1).any()),
            constant_regret_weight=bool((c[:, REGRET_WEIGHT] == c[0, REGRET_WEIGHT]).all()),
            discounts_average=bool((c[1:, DECAY] != 1).any()),
            average_weights=_average_kind(c[:, AVG_WEIGHT]),
        )

    def check_params(self) -> dict[str, str]:
        """{parameter: message} for every parameter outside its declared range."""
        out: dict[str, str] = {}
        for f in fields(self):
            spec = self.PARAMS.get(f.name)
            msg = spec.check(f.name, getattr(self, f.name)) if spec is not None else None
            if msg:
                out[f.name] = msg
        return out

    def params(self) -> dict[str, float]:
        return {f.name: float(getattr(self, f.name)) for f in fields(self)}

    def label(self) -> str:
        ps = ", ".join(f"{k}={v:g}" for k, v in self.params().items())
        return f"{self.name}({ps})" if ps else self.name


@dataclass(frozen=True)
class CFR(Rule):
    name = "cfr"
    description = "Vanilla CFR: regret matching on summed regrets, uniform averaging."
    paper = "Zinkevich, Johanson, Bowling, Piccione 2007"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        pass


@dataclass(frozen=True)
class CFRPlus(Rule):
    delay: float = 0.0
    PARAMS: ClassVar[dict[str, Param]] = {
        "delay": Param(0.0, 1e9, "iterations before averaging starts"),
    }
    name = "cfr+"
    description = "CFR+: regrets floored at zero (RM+), linear averaging after a delay d."
    paper = "Tammelin 2014 (arXiv 1407.5042)"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        c[:, FLOOR] = 1
        c[:, AVG_WEIGHT] = np.maximum(t - self.delay, 0.0)


@dataclass(frozen=True)
class LinearCFR(Rule):
    name = "lcfr"
    description = "Linear CFR: iteration t's regrets and strategy weighted by t; = DCFR(1,1,1)."
    paper = "Brown & Sandholm 2019 (AAAI), Discounted CFR"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        c[:, REGRET_WEIGHT] = t
        c[:, AVG_WEIGHT] = t


def every_kth_average(
    t: FloatArray, k: int, decay: Callable[[FloatArray], FloatArray]
) -> tuple[FloatArray, FloatArray]:
    """(DECAY, AVG_WEIGHT) columns for iterations ``t`` when the average takes only every
    ``k``-th iteration: ``S ← S·decay(t) + σ_t`` every iteration becomes, at iterations
    t = k, 2k, …, ``S ← S·Π_s decay(s) + w·σ_t`` over s = t−k+1 … t, with
    ``w = Σ_s Π_{r>s} decay(r)`` — the weights of the k − 1 skipped iterations folded into
    the one taken — and between them ``S`` untouched (decay 1, weight 0: the engine skips the
    sums there). ``k`` = 1 gives ``decay(t)`` and 1, bit for bit the dense average."""
    dec = np.ones_like(t)
    w = np.zeros_like(t)
    on = np.remainder(t, k) == 0
    ts = t[on]
    d_acc = np.ones_like(ts)
    w_acc = np.zeros_like(ts)
    for j in range(k - 1, -1, -1):  # s = t − j, oldest first
        d = decay(ts - j)
        d_acc = d_acc * d
        w_acc = w_acc * d + 1.0
    dec[on] = d_acc
    w[on] = w_acc
    return dec, w


@dataclass(frozen=True)
class DCFR(Rule):
    alpha: float = 1.5
    beta: float = 0.0
    gamma: float = 2.0
    average_every: float = 1.0
    PARAMS: ClassVar[dict[str, Param]] = {
        "alpha": Param(0.0, math.inf, "positive regrets × t^α/(t^α+1); inf: no discount", True),
        "beta": Param(
            -math.inf, math.inf, "negative regrets × t^β/(t^β+1); -inf zeroes them", True
        ),
        "gamma": Param(0.0, 100.0, "average weights ∝ t^γ"),
        "average_every": Param(
            1.0,
            100.0,
            "the average takes every k-th iteration, the others' weight folded in",
            whole=True,
        ),
    }
    name = "dcfr"
    description = (
        "Discounted CFR: positive regrets × t^α/(t^α+1), negative × t^β/(t^β+1) "
        "(β = -inf zeroes them), average weights ∝ t^γ."
    )
    paper = "Brown & Sandholm 2019 (AAAI), Discounted CFR"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        c[:, POST_POS] = _discount(t, self.alpha)
        c[:, POST_NEG] = _discount(t, self.beta)
        c[:, DECAY], c[:, AVG_WEIGHT] = every_kth_average(
            t, int(self.average_every), lambda s: ((s - 1.0) / s) ** self.gamma
        )


@dataclass(frozen=True)
class DCFRTuned(DCFR):
    """DCFR with the parameters that reach the hold'em benchmark targets first in seconds
    (BENCHMARKS.md, "Which rule first"): negative regrets kept longer (β = 0.1 instead of
    0, which on turn spots lets a discarded action come back too fast and the
    exploitability jump), the average weighted towards late iterations (γ = 4) and taking
    every second iteration only (``average_every`` = 2: the strategy sums, most of a pass's
    memory traffic, are left alone every other iteration — 7–9 % less time per iteration
    on the benchmark turn, as many iterations to each target there and on the flop)."""

    alpha: float = 1.5
    beta: float = 0.1
    gamma: float = 4.0
    average_every: float = 2.0
    name = "dcfr-tuned"
    description = (
        "DCFR(1.5, 0.1, 4) with the average taking every second iteration (the skipped "
        "one's weight folded in): negative regrets discounted more slowly, the average "
        "weighted by t⁴; the default for hold'em subgames (fastest on the benchmark "
        "river, turn and flop)."
    )
    paper = "Brown & Sandholm 2019 (AAAI), Discounted CFR; parameters measured here"


@dataclass(frozen=True)
class DCFRNormalHedge(DCFR):
    name = "dcfr-nh"
    description = "DCFR with NormalHedge instead of regret matching as the local minimizer."
    paper = "Brown & Sandholm 2019 (AAAI), Discounted CFR, section 5"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        super()._fill(t, c)
        c[:, NORMAL_HEDGE] = 1


@dataclass(frozen=True)
class LCFRPlus(Rule):
    name = "lcfr+"
    description = "LCFR+: linear regret weights with the CFR+ floor (the DCFR paper: worse)."
    paper = "Brown & Sandholm 2019 (AAAI), Discounted CFR"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        c[:, REGRET_WEIGHT] = t
        c[:, FLOOR] = 1
        c[:, AVG_WEIGHT] = t


@dataclass(frozen=True)
class OptimisticLCFR(Rule):
    name = "olcfr"
    description = "Optimistic Linear CFR: the next strategy counts the last iteration twice."
    paper = "Brown & Sandholm 2019 (AAAI), Discounted CFR"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        c[:, REGRET_WEIGHT] = t
        c[:, PRED] = t
        c[:, AVG_WEIGHT] = t


@dataclass(frozen=True)
class PCFRPlus(Rule):
    name = "pcfr+"
    description = "Predictive CFR+: RM+ on regrets plus the last regret as prediction; t² avg."
    paper = "Farina, Kroer, Sandholm 2021 (AAAI), Faster Game Solving via Predictive Blackwell"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        c[:, FLOOR] = 1
        c[:, PRED] = 1
        c[:, AVG_WEIGHT] = t * t


@dataclass(frozen=True)
class SAPCFRPlus(Rule):
    alpha: float = 2.0
    PARAMS: ClassVar[dict[str, Param]] = {
        "alpha": Param(0.0, 1e9, "the prediction × 1/(1+α)"),
    }
    name = "sapcfr+"
    description = "Simple Asynchronous PCFR+: PCFR+ with the prediction scaled by 1/(1+α)."
    paper = "Meng et al. 2025 (arXiv 2503.12770), Asynchronous PCFR+"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        c[:, FLOOR] = 1
        c[:, PRED] = 1.0 / (1.0 + self.alpha)
        c[:, AVG_WEIGHT] = t * t


@dataclass(frozen=True)
class APCFRPlus(Rule):
    alpha_max: float = 5.0
    PARAMS: ClassVar[dict[str, Param]] = {
        "alpha_max": Param(0.0, 1e9, "cap of the adaptive step's α"),
    }
    name = "apcfr+"
    description = "Asynchronous PCFR+: per-infoset adaptive step 1/(1+α) on the prediction."
    paper = "Meng et al. 2025 (arXiv 2503.12770), Asynchronous PCFR+"

    @property
    def adaptive(self) -> bool:
        return True

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        c[:, FLOOR] = 1
        c[:, PRED] = 1
        c[:, ADAPTIVE] = 1
        c[:, ALPHA_MAX] = self.alpha_max
        c[:, AVG_WEIGHT] = t * t


@dataclass(frozen=True)
class DCFRPlus(Rule):
    alpha: float = 1.5
    gamma: float = 4.0
    PARAMS: ClassVar[dict[str, Param]] = {
        "alpha": Param(0.0, 100.0, "regrets × (t−1)^α/((t−1)^α+1)"),
        "gamma": Param(0.0, 100.0, "average weights ∝ t^γ"),
    }
    name = "dcfr+"
    description = "DCFR+: RM+ regrets discounted by (t−1)^α/((t−1)^α+1); PDCFR+ without prediction."
    paper = "Xu et al. 2024 (IJCAI), Minimizing Weighted Counterfactual Regret with Optimistic OMD"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        d = _pdcfr_discount(t, self.alpha)
        c[:, PRE_POS] = d
        c[:, PRE_NEG] = d
        c[:, FLOOR] = 1
        c[:, DECAY] = ((t - 1.0) / t) ** self.gamma


@dataclass(frozen=True)
class PDCFRPlus(DCFRPlus):
    alpha: float = 2.3
    gamma: float = 5.0
    name = "pdcfr+"
    description = "Predictive Discounted CFR+: discounted RM+ regrets with a prediction."
    paper = "Xu et al. 2024 (IJCAI), Minimizing Weighted Counterfactual Regret with Optimistic OMD"

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        super()._fill(t, c)  # DCFR+'s discounted RM+ regrets and average
        c[:, SCALE] = _pdcfr_discount(t + 1.0, self.alpha)
        c[:, PRED] = 1


@dataclass(frozen=True)
class APDCFRPlus(PDCFRPlus):
    alpha_max: float = 5.0
    PARAMS: ClassVar[dict[str, Param]] = {
        **PDCFRPlus.PARAMS,
        "alpha_max": Param(0.0, 1e9, "cap of the adaptive step's α"),
    }
    name = "apdcfr+"
    description = "PDCFR+ with APCFR+'s adaptive asynchronous step on the prediction."
    paper = "Meng et al. 2025 (arXiv 2503.12770), appendix C"

    @property
    def adaptive(self) -> bool:
        return True

    def _fill(self, t: FloatArray, c: FloatArray) -> None:
        super()._fill(t, c)
        c[:, ADAPTIVE] = 1
        c[:, ALPHA_MAX] = self.alpha_max


RULES: dict[str, type[Rule]] = {
    cls.name: cls
    for cls in (
        CFR,
        CFRPlus,
        LinearCFR,
        DCFR,
        DCFRTuned,
        PCFRPlus,
        APCFRPlus,
        SAPCFRPlus,
        PDCFRPlus,
        APDCFRPlus,
        DCFRPlus,
        LCFRPlus,
        OptimisticLCFR,
        DCFRNormalHedge,
    )
}


def make_rule(name: str, **params: float) -> Rule:
    """The rule registered as ``name`` with ``params`` overriding its defaults: KeyError for
    an unknown name, ValueError naming the parameter for an unknown one or a value outside
    its declared range (:attr:`Rule.PARAMS`)."""
    key = name.lower()
    if key not in RULES:
        raise KeyError(f"unknown algorithm {name!r}; known: {', '.join(RULES)}")
    cls = RULES[key]
    allowed = {f.name for f in fields(cls)}
    for p, v in params.items():
        if p not in allowed:
            opts = ", ".join(sorted(allowed)) or "none"
            raise ValueError(f"algorithm {key!r} has no parameter {p!r} (parameters: {opts})")
        if isinstance(v, int) and not isinstance(v, bool) and abs(v) > MAX_FLOAT_INT:
            raise ValueError(
                f"parameter {p!r} must be within the float range (±1.8e308), got a "
                f"{v.bit_length()}-bit integer"
            )
        if isinstance(v, bool) or not isinstance(v, (int, float)) or math.isnan(v):
            raise ValueError(f"parameter {p!r} must be a number, got {v!r}")
    rule = cls(**{k: float(v) for k, v in params.items()})
    errors = rule.check_params()
    if errors:
        raise ValueError(f"algorithm {key!r}: {next(iter(errors.values()))}")
    return rule


def rule_defaults(name: str) -> dict[str, float]:
    cls = RULES[name]
    return {f.name: float(f.default) for f in fields(cls)}  # type: ignore[arg-type]
