"""The trainer's own arguments (issue 45, "API and CLI arguments"): a bad value of an argument
of :func:`solver.study.trainer.deal`, :func:`~solver.study.trainer.grade`,
:class:`~solver.study.trainer.Drill`, :func:`~solver.study.trainer.play`,
:func:`~solver.study.trainer.answer`, :class:`~solver.study.trainer.DealFilter` or
:class:`~solver.study.trainer.Thresholds` raises the trainer's own
:class:`~solver.study.trainer.TrainerError` whose ``field`` (and message) names the argument —
never a raw TypeError, IndexError or numpy ValueError from inside. Valid calls beside them
still work."""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

from solver import solve
from solver.api import SolveResult
from solver.study.trainer import (
    DealFilter,
    Drill,
    FilterError,
    Thresholds,
    TrainerError,
    answer,
    deal,
    grade,
    play,
)


def bad(value: object) -> Any:
    """``value`` untyped: an argument of a type the signature does not allow, on purpose."""
    return value


@functools.cache
def kuhn() -> SolveResult:
    return solve("kuhn", "dcfr", iterations=50)


def drill(**kwargs: Any) -> Drill:
    r = kuhn()
    args: dict[str, Any] = {"game": r.game, "sigma": r.average_strategy(), "player": 0}
    args.update(kwargs)
    return Drill(**args)


def dealt() -> Drill:
    d = drill(seed=1)
    d.new_hand()
    return d


CASES: list[tuple[str, Callable[[], object], str]] = [
    # deal(solve, player, line, rng)
    ("line as 5.0", lambda: deal(kuhn(), 0, bad(5.0)), "line"),
    ("line holding a number", lambda: deal(kuhn(), 0, bad(["k", 5])), "line"),
    ("line not in the tree", lambda: deal(kuhn(), 0, "k zz"), "line"),
    ("player 5.0", lambda: deal(kuhn(), bad(5.0)), "player"),
    ("player 2", lambda: deal(kuhn(), 2), "player"),
    ("player True", lambda: deal(kuhn(), True), "player"),
    ("rng [-2, 3]", lambda: deal(kuhn(), 0, "", bad([-2, 3])), "rng"),
    ("rng -1", lambda: deal(kuhn(), 0, "", -1), "rng"),
    ("rng [1, 'x']", lambda: deal(kuhn(), 0, "", bad([1, "x"])), "rng"),
    ("rng []", lambda: deal(kuhn(), 0, "", bad([])), "rng"),
    ("rng 1.5", lambda: deal(kuhn(), 0, "", bad(1.5)), "rng"),
    ("rng nan", lambda: deal(kuhn(), 0, "", bad(math.nan)), "rng"),
    ("solve not a solve", lambda: deal(bad("kuhn"), 0), "solve"),
    # grade(solve, dealt, action, thresholds)
    ("action None", lambda: grade(kuhn(), deal(kuhn(), 0, "", 1), bad(None)), "action"),
    ("action 1.5", lambda: grade(kuhn(), deal(kuhn(), 0, "", 1), bad(1.5)), "action"),
    ("action 99", lambda: grade(kuhn(), deal(kuhn(), 0, "", 1), 99), "action"),
    ("action code", lambda: grade(kuhn(), deal(kuhn(), 0, "", 1), "zz"), "action"),
    ("dealt not a deal", lambda: grade(kuhn(), bad("x"), 0), "dealt"),
    (
        "thresholds 'x'",
        lambda: grade(kuhn(), deal(kuhn(), 0, "", 1), 0, bad("x")),
        "thresholds",
    ),
    # Drill(game, sigma, player, scope, node, thresholds, rng_mode, seed, players, filter)
    ("node 10**9", lambda: drill(node=10**9), "node"),
    ("node 10**400", lambda: drill(node=10**400), "node"),
    ("node -1", lambda: drill(node=-1), "node"),
    ("node 1.5", lambda: drill(node=1.5), "node"),
    ("node not the hero's", lambda: drill(scope="node", node=1), "node"),
    ("seed nan", lambda: drill(seed=math.nan), "seed"),
    ("seed -1", lambda: drill(seed=-1), "seed"),
    ("seed 2**64", lambda: drill(seed=2**64), "seed"),
    ("seed 'x'", lambda: drill(seed="x"), "seed"),
    ("deal_filter 5", lambda: drill(deal_filter=5), "deal_filter"),
    ("sigma None", lambda: drill(sigma=None), "sigma"),
    ("sigma empty", lambda: drill(sigma=np.array([])), "sigma"),
    ("sigma []", lambda: drill(sigma=[]), "sigma"),
    ("sigma 'x'", lambda: drill(sigma="x"), "sigma"),
    ("sigma of text", lambda: drill(sigma=["a"] * kuhn().game.action_size), "sigma"),
    ("sigma nan", lambda: drill(sigma=np.full(kuhn().game.action_size, np.nan)), "sigma"),
    ("sigma negative", lambda: drill(sigma=-np.ones(kuhn().game.action_size)), "sigma"),
    (
        "sigma zero",
        lambda: play(drill(sigma=np.zeros(kuhn().game.action_size)), "solution", 3),
        "sigma",
    ),
    ("player 5.0", lambda: drill(player=5.0), "player"),
    ("player 0.0", lambda: drill(player=0.0), "player"),
    ("scope 5", lambda: drill(scope=5), "scope"),
    ("scope 'x'", lambda: drill(scope="x"), "scope"),
    ("thresholds 5", lambda: drill(thresholds=5), "thresholds"),
    ("players one name", lambda: drill(players=("a",)), "players"),
    ("game 'kuhn'", lambda: drill(game="kuhn"), "game"),
    # DealFilter(classes, cells, min_reach_pct)
    ("min_reach_pct 'x'", lambda: DealFilter((), (), bad("x")), "min_reach_pct"),
    ("min_reach_pct nan", lambda: DealFilter((), (), math.nan), "min_reach_pct"),
    ("min_reach_pct None", lambda: DealFilter((), (), bad(None)), "min_reach_pct"),
    ("min_reach_pct 101", lambda: DealFilter((), (), 101.0), "min_reach_pct"),
    ("classes as text", lambda: DealFilter(bad("top_pair")), "classes"),
    ("classes 5", lambda: DealFilter(bad(5)), "classes"),
    ("cells holding 5", lambda: DealFilter((), bad([5])), "cells"),
    # Thresholds(correct_pct, wrong_pct_pot, blunder_pct_pot)
    ("correct_pct 'x'", lambda: Thresholds(bad("x")), "correct_pct"),
    ("correct_pct nan", lambda: Thresholds(math.nan), "correct_pct"),
    ("correct_pct 101", lambda: Thresholds(101.0), "correct_pct"),
    ("wrong_pct_pot None", lambda: Thresholds(3.5, bad(None)), "wrong_pct_pot"),
    ("wrong above blunder", lambda: Thresholds(3.5, 6.0, 5.0), "wrong_pct_pot"),
    ("blunder_pct_pot inf", lambda: Thresholds(3.5, 1.0, math.inf), "blunder_pct_pot"),
    # play(drill, how, decisions), answer(drill, how), Drill.act(action)
    ("decisions None", lambda: play(drill(), "best", bad(None)), "decisions"),
    ("decisions -1", lambda: play(drill(), "best", -1), "decisions"),
    ("decisions 10**9", lambda: play(drill(), "best", 10**9), "decisions"),
    ("decisions 2.5", lambda: play(drill(), "best", bad(2.5)), "decisions"),
    ("how 'x'", lambda: play(drill(), "x", 1), "how"),
    ("how None", lambda: play(drill(), bad(None), 1), "how"),
    ("drill 'x'", lambda: play(bad("x"), "best", 1), "drill"),
    ("answer how 5", lambda: answer(dealt(), bad(5)), "how"),
    ("answer before a deal", lambda: answer(drill(), "best"), "drill"),
    ("act None", lambda: dealt().act(bad(None)), "action"),
    ("act 1.5", lambda: dealt().act(bad(1.5)), "action"),
    ("act 7", lambda: dealt().act(7), "action"),
]


@pytest.mark.parametrize(("case", "call", "field"), CASES, ids=[c[0] for c in CASES])
def test_bad_trainer_arguments_raise_the_trainers_error_naming_them(
    case: str, call: Callable[[], object], field: str
) -> None:
    with pytest.raises(TrainerError) as info:
        call()
    assert info.value.field == field, case
    assert field.split("_")[0] in str(info.value), case
    assert type(info.value) in (TrainerError, FilterError)


def test_filter_errors_are_trainer_errors_naming_the_filter_field() -> None:
    with pytest.raises(FilterError) as info:
        DealFilter((), (), bad("x"))
    assert info.value.field == "min_reach_pct" and isinstance(info.value, ValueError)


def test_valid_trainer_arguments_still_work() -> None:
    """Numpy integers and floats, lists for tuples and a big seed are still taken."""
    r = kuhn()
    d = deal(r, 0, "", np.random.default_rng(3))
    assert grade(r, d, d.actions[0], Thresholds(5, 1, 5)).chosen == 0
    d = deal(r, bad(np.int64(1)), ["k"], bad(np.int64(7)))
    assert grade(r, d, bad(np.int64(1))).chosen == 1
    assert deal(r, 1, ("k",), 2**70).node == r.game.find(["k"])  # a big seed is a seed
    a, b = deal(r, 1, "k", bad([3, 4])), deal(r, 1, "k", np.random.default_rng([3, 4]))
    assert a.hand == b.hand and a.villain == b.villain  # a seed of several words, as numpy
    session = drill(node=np.int64(0), seed=np.int64(4), players=["Hero", "Villain"],
                    deal_filter=DealFilter(bad([]), bad(["K"]), np.float64(0)),
                    thresholds=Thresholds(bad(np.float32(3.5)), 1, 5),
                    sigma=list(r.average_strategy()))  # fmt: skip
    assert len(play(session, "solution", bad(np.int64(5)))) == 5
    assert play(session, "best", 0) == []
    assert DealFilter(cells=bad(["AKs"])).cells == ("AKs",)
    assert Thresholds(0, 0, 0).correct_pct == 0
