"""One validator for solver options (solver.cfr.options.check_options): every field's message,
the engines raising the first, and pruning eligibility read off a rule's schedule."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np
import pytest
from conftest import game

from solver.algorithms import ALGORITHMS, make_solver
from solver.cfr.engine import Engine
from solver.cfr.options import OptionError, SolveOptions, check_options, sentence
from solver.cfr.parallel import max_threads
from solver.cfr.pruning.eligibility import prunings_for
from solver.cfr.rules import AVG_WEIGHT, REGRET_WEIGHT, RULES, Param, Rule, make_rule
from solver.cfr.sampling.engine import SampledEngine


def test_every_registered_algorithm_is_valid_with_its_defaults() -> None:
    for name, info in ALGORITHMS.items():
        assert check_options(name) == {}, name
        for pruning in info.prunings:
            threads = 1 if info.sampling or pruning in ("interval", "total") else max_threads()
            assert check_options(name, pruning=pruning, threads=threads) == {}, (name, pruning)


@pytest.mark.parametrize(
    ("algorithm", "options", "field", "needle"),
    [
        ("nope", {}, "algorithm", "unknown algorithm 'nope'"),
        ("dcfr", {"params": {"zeta": 1.0}}, "zeta", "dcfr has no parameter 'zeta'"),
        ("dcfr", {"params": {"alpha": "x"}}, "alpha", "alpha must be a number, got 'x'"),
        ("dcfr", {"params": {"gamma": -1.0}}, "gamma", "gamma must be ≥ 0"),
        ("dcfr", {"params": {"average_every": 1.5}}, "average_every", "must be a whole number"),
        ("dcfr-tuned", {"params": {"average_every": 0.0}}, "average_every", "must be ≥ 1"),
        ("dcfr", {"params": {"average_every": 1e9}}, "average_every", "must be ≤ 100"),
        ("cfr+", {"params": {"delay": math.inf}}, "delay", "delay must be finite"),
        ("cfr+", {"params": {"delay": -3.0}}, "delay", "delay must be ≥ 0"),
        ("mccfr-os", {"params": {"epsilon": 1.5}}, "epsilon", "epsilon must be in (0, 1]"),
        ("dmccfr", {"params": {"period": -1.0}}, "period", "period must be"),
        ("cfr", {"threads": "2"}, "threads", "threads must be a whole number ≥ 1, got '2'"),
        ("cfr", {"threads": 0}, "threads", "threads must be a whole number ≥ 1, got 0"),
        ("cfr", {"threads": True}, "threads", "got True"),
        ("cfr", {"threads": 100_000}, "threads", "this machine's"),
        pytest.param(
            "mccfr-es",
            {"threads": 2},
            "threads",
            "mccfr-es runs on one thread",
            marks=pytest.mark.cores(2),
        ),
        pytest.param(
            "mccfr-cs",
            {"threads": 2},
            "threads",
            "mccfr-cs runs on one thread",
            marks=pytest.mark.cores(2),
        ),
        pytest.param(
            "cfr",
            {"threads": 2, "pruning": "total"},
            "threads",
            "Total RBP (pruning 'total')",
            marks=pytest.mark.cores(2),
        ),
        ("cfr", {"precision": "fp16"}, "precision", "precision must be one of"),
        ("cfr", {"precision": "compressed", "pruning": "interval"}, "precision", "interval RBP"),
        ("mccfr-es", {"precision": "compressed"}, "precision", "no 16-bit compression"),
        ("cfr+", {"pruning": "interval"}, "pruning", "not available for cfr+"),
        ("cfr", {"pruning": 3}, "pruning", "pruning must be one of"),
        ("cfr", {"seed": -1}, "seed", "seed must be a whole number ≥ 0, got -1"),
        ("cfr", {"seed": 1.5}, "seed", "seed must be a whole number ≥ 0, got 1.5"),
        ("cfr", {"seed": 2**64}, "seed", "seed must be a whole number ≤"),
        ("cfr", {"rbp_check_every": 0}, "rbp_check_every", "check every must be"),
        ("cfr", {"rbp_threshold": math.nan}, "rbp_threshold", "threshold C must be"),
        ("cfr", {"rbp_threshold": -1.0}, "rbp_threshold", "threshold C must be"),
        ("cfr", {"rbp_free_opponent": 1}, "rbp_free_opponent", "true or false"),
        ("cfr", {"rbp_free_opponent": True}, "rbp_free_opponent", "needs pruning 'total'"),
    ],
)
def test_each_bad_option_names_its_field(
    algorithm: str, options: dict, field: str, needle: str
) -> None:
    errors = check_options(algorithm, **options)
    assert field in errors, errors
    assert needle in errors[field]
    assert sentence(errors[field])[0].isupper() and sentence(errors[field]).endswith(".")


def test_every_bad_field_is_reported_at_once() -> None:
    errors = check_options(
        "cfr", threads="2", seed=-1, rbp_check_every=0, rbp_threshold=-0.5, pruning="total",
        precision="compressed",
    )  # fmt: skip
    assert set(errors) == {"threads", "precision", "seed", "rbp_check_every", "rbp_threshold"}


def test_the_engines_raise_the_first_message_with_its_field() -> None:
    g = game("kuhn")
    with pytest.raises(OptionError, match="threads must be") as err:
        Engine(g, make_rule("cfr"), options=SolveOptions(threads=0))
    assert err.value.field == "threads"
    with pytest.raises(OptionError, match="seed must be") as err:
        make_solver(g, "mccfr-es", options=SolveOptions(seed=-4))
    assert err.value.field == "seed"
    with pytest.raises(ValueError, match="epsilon"):
        SampledEngine(g, "mccfr-os", {"epsilon": 0.0})
    with pytest.raises(OptionError, match="gamma"):
        make_solver(g, "dcfr", {"gamma": -1.0})


def test_threshold_refused_on_a_game_too_big_for_its_marks() -> None:
    g = game("leduc")
    assert check_options("cfr", game=g, pruning="total", rbp_threshold=0.1) == {}

    class Big:  # what check_options reads of a game: sizes only
        num_nodes = 10**9
        hands = g.hands

    errors = check_options("cfr", game=Big(), pruning="total", rbp_threshold=0.1)  # type: ignore[arg-type]
    assert "512 MiB" in errors["rbp_threshold"]


def test_non_finite_parameters_pass_where_the_rule_allows_them() -> None:
    assert check_options("dcfr", {"beta": -math.inf, "alpha": math.inf}) == {}
    rule = make_rule("dcfr", beta=-math.inf)
    c = rule.coefficients(np.array([1.0]))
    assert rule.params()["beta"] == -math.inf
    assert c[0, 4] == 0.0  # POST_NEG: β = −∞ zeroes negative regrets (β = −1e9 gives 0.5 at t=1)


def test_registered_rules_take_the_pruning_their_schedules_allow() -> None:
    want = {"cfr": ("partial", "none", "interval", "total"), "cfr+": ("partial", "none", "total")}
    for name in RULES:
        assert prunings_for(make_rule(name)) == want.get(name, ("partial", "none")), name
    assert prunings_for(make_rule("cfr+", delay=50)) == want["cfr+"]


@dataclass(frozen=True)
class _MyCFR(Rule):
    """A user's rule with CFR's schedule under another name."""

    weight: float = 1.0
    name: ClassVar[str] = "my-cfr"
    PARAMS: ClassVar[dict[str, Param]] = {"weight": Param(0.0, 10.0, "regret weight")}

    def _fill(self, t: np.ndarray, c: np.ndarray) -> None:
        c[:, REGRET_WEIGHT] = self.weight


@dataclass(frozen=True)
class _MyLinear(Rule):
    name: ClassVar[str] = "my-linear"

    def _fill(self, t: np.ndarray, c: np.ndarray) -> None:
        c[:, REGRET_WEIGHT] = t
        c[:, AVG_WEIGHT] = t


def test_a_users_rule_with_cfrs_properties_takes_rbp_and_matches_cfr() -> None:
    g = game("leduc")
    assert prunings_for(_MyCFR()) == ("partial", "none", "interval", "total")
    assert prunings_for(_MyLinear()) == ("partial", "none")
    for pruning in ("interval", "total"):
        mine = make_solver(g, _MyCFR(), options=SolveOptions(pruning=pruning))
        cfr = make_solver(g, "cfr", options=SolveOptions(pruning=pruning))
        mine.iterate(200)
        cfr.iterate(200)
        np.testing.assert_array_equal(mine.storage.regrets, cfr.storage.regrets)
    errors = check_options(_MyLinear(), pruning="total")
    assert "not available for my-linear" in errors["pruning"]
    assert "weight must be ≤ 10" in check_options(_MyCFR(weight=11.0))["weight"]
