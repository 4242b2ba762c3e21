"""Hypothesis strategies for calls: the Python API's arguments (``solve``, ``SolveJob``,
``make_game``, ``load_preset`` names) including every solver option, and command lines.

Valid argument values are kept small (a few iterations of Kuhn or Leduc) so an accepted
call takes milliseconds; hostile ones are of every type.
"""

from __future__ import annotations

import functools
from typing import Any

from fuzz_inputs import (
    ODD_NUMBERS,
    odd_number,
    odd_text,
    range_text,
    size_text,
    with_hostile,
)
from hypothesis import strategies as st

from solver.games import Game, make_game

ALGORITHM_NAMES = ["cfr", "cfr+", "dcfr", "pcfr+", "mccfr-es", "mccfr-cs", "dcfr-tuned", "lcfr"]


@functools.cache
def kuhn() -> Game:
    return make_game("kuhn")


def _hostile() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(ODD_NUMBERS), odd_text(12), odd_number())


def solve_kwargs() -> st.SearchStrategy[dict[str, Any]]:
    """Arguments of :func:`solver.solve`: plausible ones (a few iterations) with zero to two
    made hostile. ``iterations`` is never None with a target (that solves until the
    target, by contract), and valid counts stay small."""
    plausible = st.fixed_dictionaries(
        {
            "game": st.one_of(st.just("kuhn"), st.just("leduc"), st.builds(kuhn)),
            "algorithm": st.one_of(st.none(), st.sampled_from(ALGORITHM_NAMES)),
            "iterations": st.integers(0, 6),
            "target_exploitability": st.one_of(st.none(), st.sampled_from([0.5, 1e-9])),
            "check_every": st.integers(1, 5),
            "callback": st.sampled_from([None, lambda cp: None, lambda cp: True]),
            "params": st.one_of(st.none(), st.just({})),
            "threads": st.integers(1, 2),
            "precision": st.sampled_from(["auto", "float64", "float32", "compressed"]),
            "pruning": st.sampled_from([None, "none", "partial", "interval", "total"]),
            "seed": st.integers(0, 2**64 - 1),
            "rbp_check_every": st.integers(1, 20),
            "rbp_threshold": st.sampled_from([0.0, 0.1]),
            "rbp_free_opponent": st.booleans(),
        }
    )
    small = st.one_of(_hostile(), st.integers(-3, 50))
    hostile: dict[str, st.SearchStrategy[Any]] = {
        "game": st.one_of(_hostile(), st.sampled_from(["chess", "KUHN", "kuhn ", "\u212auhn"])),
        "algorithm": st.one_of(_hostile(), st.sampled_from(["CFR+", "cfr+ ", "mccfr"])),
        "iterations": small,
        "target_exploitability": _hostile(),
        "check_every": small,
        "callback": st.one_of(_hostile(), st.just(lambda cp: "yes")),
        "params": st.one_of(
            _hostile(),
            st.dictionaries(
                st.sampled_from(["alpha", "beta", "gamma", "delay", "zeta", 1, ""]),
                odd_number(),
                max_size=2,
            ),
        ),
        "threads": small,
        "precision": _hostile(),
        "pruning": _hostile(),
        "seed": st.one_of(_hostile(), st.integers()),
        "rbp_check_every": st.one_of(_hostile(), st.integers()),
        "rbp_threshold": _hostile(),
        "rbp_free_opponent": _hostile(),
    }
    return with_hostile(plausible, hostile)


def job_kwargs() -> st.SearchStrategy[dict[str, Any]]:
    """Arguments of :class:`solver.run.jobs.SolveJob` (constructed, never started)."""
    plausible = st.fixed_dictionaries(
        {"watch": st.integers(-2, 40), "rule": st.sampled_from(ALGORITHM_NAMES)}
    )
    return with_hostile(plausible, {"watch": _hostile(), "rule": _hostile()})


# ----- command lines -----------------------------------------------------------------------

FLAG_VALUES: dict[str, st.SearchStrategy[str]] = {
    "--pot": st.one_of(st.sampled_from(["200", "1e308", "-5", "0", "nan", "9" * 400]), odd_text()),
    "--stack": st.one_of(st.sampled_from(["900", "1000000000000", "1e300", "inf"]), odd_text()),
    "--bets": size_text(),
    "--raises": size_text(),
    "--donks": size_text(),
    "--raise-cap": st.one_of(st.sampled_from(["3", "100", "5000", "-1", "1.5"]), odd_text()),
    "--big-blind": st.one_of(st.sampled_from(["100", "0.001", "1e-300"]), odd_text()),
    "--oop-range": range_text(),
    "--ip-range": range_text(),
    "--max-memory-mb": st.one_of(st.sampled_from(["1", "0.001", "1e12", "nan"]), odd_text()),
    "--merging": st.one_of(st.sampled_from(["0", "0.1", "1e308"]), odd_text()),
    "--size": st.one_of(
        st.builds(
            lambda k, v: f"{k}={v}",
            st.sampled_from(
                [
                    "river.oop.bets",
                    "turn.ip.raises",
                    "flop.oop.donks",
                    "preflop.oop.bets",
                    "river.btn.bets",
                    "river",
                    "a.b.c.d",
                ]
            ),
            size_text(),
        ),
        odd_text(),
    ),
}
SOLVE_VALUES: dict[str, st.SearchStrategy[str]] = {
    "--algorithm": st.one_of(st.sampled_from(ALGORITHM_NAMES), odd_text(12)),
    "--iterations": st.sampled_from(["0", "3", "-1", "1.5", "1e3", "x", "9" * 5000]),
    "--every": st.one_of(st.sampled_from(["1", "0", "-3", "2.5"]), odd_text(8)),
    "--threads": st.sampled_from(["1", "2", "100000", "0", "-1", "two", "1e9"]),
    "--precision": st.one_of(
        st.sampled_from(["auto", "float32", "compressed", "f16"]), odd_text(8)
    ),
    "--pruning": st.one_of(
        st.sampled_from(["none", "partial", "total", "interval", "x"]), odd_text(8)
    ),
    "--seed": st.sampled_from(["0", "-1", "1.5", "18446744073709551616", "x"]),
    "--param": st.one_of(
        st.sampled_from(
            ["alpha=1.5", "gamma=-1", "delay=inf", "x", "=1", "alpha=nan", "alpha=1e999"]
        ),
        odd_text(10),
    ),
    "--target": st.sampled_from(["0.1", "1%", "-1", "0", "nan", "inf", "x%", "%"]),
    "--rbp-every": st.sampled_from(["10", "0", "1e9", "x"]),
    "--rbp-threshold": st.sampled_from(["0", "0.1", "-1", "inf", "nan"]),
}


def _argv(command: str, spot: list[tuple[str, str]], extra: list[tuple[str, str]],
          source: list[str]) -> list[str]:  # fmt: skip
    argv = [command, *source]
    for flag, value in [*spot, *extra]:
        argv += [flag, value]
    if command == "solve" and "--iterations" not in [f for f, _ in extra]:
        argv += ["--iterations", "2"]
    return argv


def command_line() -> st.SearchStrategy[list[str]]:
    """``tree`` and ``solve`` command lines (``solve`` always with a few iterations): a
    river spot from flags with some flags hostile, a toy game, or a preset by odd name."""
    river = ["--board", "Td9d6hQc2s", "--pot", "200", "--stack", "900", "--oop-range", "AA",
             "--ip-range", "KK"]  # fmt: skip
    spot_flag = st.sampled_from(sorted(FLAG_VALUES)).flatmap(
        lambda f: FLAG_VALUES[f].map(lambda v: (f, v))
    )
    solve_flag = st.sampled_from(sorted(SOLVE_VALUES)).flatmap(
        lambda f: SOLVE_VALUES[f].map(lambda v: (f, v))
    )
    source = st.one_of(
        st.just(river),
        st.just(river),
        st.just(["--game", "kuhn"]),
        st.sampled_from(["srp-river", "../presets/kuhn", "/etc/passwd", "kuhn.toml", "\u212a",
                         "x" * 300]).map(lambda p: ["--preset", p]),
        st.sampled_from(["chess", "", "KUHN"]).map(lambda g: ["--game", g]),
    )  # fmt: skip
    tree = st.builds(_argv, st.just("tree"), st.lists(spot_flag, max_size=3), st.just([]),
                     source)  # fmt: skip
    solve = st.builds(_argv, st.just("solve"), st.lists(spot_flag, max_size=2),
                      st.lists(solve_flag, max_size=3), source)  # fmt: skip
    return st.one_of(tree, solve)
