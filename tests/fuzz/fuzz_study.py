"""Hypothesis strategies and runners for the surfaces issue 45 found unfuzzed: the trainer's
API (``deal``, ``grade``, ``Drill``, ``play``, ``DealFilter``, ``Thresholds``), the push/fold
chart (its API, ``largest``, the chart page's ``stack_list`` and the chart module's own
command line), reports at any line (``report_at`` arguments) and stored tree summaries
(``decode`` of tampered bytes), and ``load_solve``'s keyword.

Valid values stay cheap (a tiny river solved once, a chart of one or two stacks at a loose
target); hostile ones are of every type."""

from __future__ import annotations

import contextlib
import functools
import io
import tempfile
import zlib
from pathlib import Path
from typing import Any

import numpy as np
from fuzz_inputs import ODD_NUMBERS, odd_number, odd_text
from hypothesis import strategies as st

from solver.batch.treedata import MAGIC
from solver.games.holdem import HoldemSpec

RIVER = HoldemSpec(board="Td9d6hQc2s", pot=100, stack=200, oop_range="AA,KK,T9s",
                   ip_range="QQ,AK,98s", bets="50%, a", raises="a")  # fmt: skip
"""A tiny river: a few combos each, one bet size and all-in: solved in milliseconds."""


def _odd() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(ODD_NUMBERS), odd_text(12), odd_number())


@functools.cache
def river_solve() -> Any:
    from solver import solve
    from solver.games.holdem import build_holdem

    return solve(build_holdem(RIVER), "dcfr", iterations=30)


# ----- the trainer -------------------------------------------------------------------------

LINES = ["", "k", "b:50", "k b:50", "b:50 c", "k k", "b:50 r:200", "x", "k b:50 f", "d:2c"]


def deal_args() -> st.SearchStrategy[tuple[Any, Any, Any]]:
    """(player, line, rng) for :func:`solver.study.trainer.deal`."""
    player = st.one_of(st.sampled_from([0, 1]), _odd())
    line = st.one_of(
        st.sampled_from(LINES),
        st.lists(st.sampled_from(["k", "b:50", "c", "f", 5, None]), max_size=3),
        _odd(),
    )
    rng = st.one_of(st.none(), st.integers(0, 2**32), _odd(), st.just([-2, 3]))
    return st.tuples(player, line, rng)


def run_deal(args: tuple[Any, Any, Any]) -> None:
    """``deal`` then ``grade`` the dealt spot with its first action."""
    from solver.study.trainer import deal, grade

    result = river_solve()
    player, line, rng = args
    dealt = deal(result, player, line, rng)
    grade(result, dealt, 0)


def drill_kwargs() -> st.SearchStrategy[dict[str, Any]]:
    """Keyword arguments of :class:`~solver.study.trainer.Drill` (game and sigma included,
    either one plausible or hostile), then a few ``play`` calls."""
    plausible = st.fixed_dictionaries(
        {
            "player": st.sampled_from([0, 1]),
            "scope": st.sampled_from(["hand", "street", "node"]),
            "node": st.integers(0, 3),
            "seed": st.one_of(st.none(), st.integers(0, 99)),
            "rng_mode": st.booleans(),
            "suits": st.booleans(),
            "how": st.sampled_from(["best", "solution", "uniform"]),
            "decisions": st.integers(0, 3),
        }
    )
    hostile_values = {
        "player": _odd(),
        "scope": _odd(),
        "node": st.one_of(_odd(), st.just(10**9)),
        "seed": st.one_of(_odd(), st.just(float("nan"))),
        "deal_filter": st.one_of(_odd(), st.just(5)),
        "thresholds": _odd(),
        "players": st.one_of(_odd(), st.just(("a", 5))),
        "sigma": st.sampled_from(["none", "empty", "short", "nan", "negative"]),
        "how": _odd(),
        "decisions": st.one_of(_odd(), st.just(None)),
    }
    keys = sorted(hostile_values)

    @st.composite
    def build(draw: st.DrawFn) -> dict[str, Any]:
        out = dict(draw(plausible))
        for key in draw(st.lists(st.sampled_from(keys), max_size=2, unique=True)):
            out[key] = draw(hostile_values[key])
        return out

    return build()


def _sigma(kind: Any, good: np.ndarray) -> Any:
    if kind == "none":
        return None
    if kind == "empty":
        return np.zeros(0)
    if kind == "short":
        return good[: good.size // 2].copy()
    if kind == "nan":
        bad = good.copy()
        bad[:3] = np.nan
        return bad
    if kind == "negative":
        return -good
    return good


def run_drill(kwargs: dict[str, Any]) -> None:
    """``Drill(game, sigma, **kwargs)``, then ``play(drill, how, decisions)``."""
    from solver.study.trainer import Drill, play

    result = river_solve()
    args = dict(kwargs)
    how = args.pop("how", "best")
    decisions = args.pop("decisions", 1)
    sigma = _sigma(args.pop("sigma", None) or "good", result.average_strategy())
    drill = Drill(result.game, sigma, **args)
    play(drill, how, decisions)


def filter_args() -> st.SearchStrategy[tuple[Any, Any, Any]]:
    """(classes, cells, min_reach_pct) of a :class:`~solver.study.dealing.DealFilter`, or a
    Thresholds' three numbers when the first is the string ``"thresholds"``."""
    names = st.one_of(
        st.lists(st.sampled_from(["top_pair", "overpair", "AKs", "QQ", "x", ""]), max_size=3).map(
            tuple
        ),
        _odd(),
    )
    return st.one_of(
        st.tuples(names, names, st.one_of(st.floats(-10, 110), _odd())),
        st.tuples(st.just("thresholds"), st.one_of(st.floats(-5, 105), _odd()),
                  st.tuples(st.one_of(st.floats(-1, 10), _odd()),
                            st.one_of(st.floats(-1, 10), _odd()))),
    )  # fmt: skip


def run_filter(args: tuple[Any, Any, Any]) -> None:
    """A DealFilter (then a Drill dealing under it) or a Thresholds."""
    from solver.study.dealing import DealFilter
    from solver.study.grading import Thresholds
    from solver.study.trainer import Drill

    first, second, third = args
    if first == "thresholds":
        Thresholds(second, *third)
        return
    f = DealFilter(first, second, third)
    result = river_solve()
    Drill(result.game, result.average_strategy(), 0, deal_filter=f).new_hand()


# ----- the push/fold chart -------------------------------------------------------------------


def chart_args() -> st.SearchStrategy[tuple[Any, Any, Any]]:
    """(stacks, ante, who/what to read with ``largest``)."""
    stacks = st.one_of(
        st.lists(st.sampled_from([1, 2.5, 10, 20, 50]), min_size=1, max_size=2),
        st.lists(_odd(), max_size=3),
        st.sampled_from([["x"], [None], [10**400], [], "10", None, [0], [51], [-3]]),
    )
    ante = st.one_of(st.sampled_from([0.0, 0.1]), _odd())
    who = st.one_of(st.sampled_from(["SB", "BB"]), st.sampled_from(["", "sb", "CO"]), _odd())
    return st.tuples(stacks, ante, who)


def run_chart(args: tuple[Any, Any, Any]) -> None:
    from solver.study.preflop_chart import push_fold_chart

    stacks, ante, who = args
    chart = push_fold_chart(stacks, ante=ante, target=0.05, max_iterations=40)
    chart.largest(who)


def stack_list_args() -> st.SearchStrategy[tuple[Any, Any, Any]]:
    """(first, last, step) in bb, for the chart page's ``stack_list``."""
    plausible = st.tuples(st.floats(0.5, 60), st.floats(0.5, 60), st.floats(0.05, 5))
    return st.one_of(
        plausible,
        st.tuples(_odd(), _odd(), _odd()),
        st.sampled_from([(1, 49, 1e-75), (1, 50, 1e-3), (1, 1e308, 1), (-5, 5, 1), (1, 20, 0)]),
    )


def run_stack_list(args: tuple[Any, Any, Any]) -> None:
    from app.features.stack_chart import stack_list

    out = stack_list(*args)
    assert len(out) <= 10_000


def chart_argv() -> st.SearchStrategy[list[str]]:
    """Command lines of ``python -m solver.study.preflop_chart``."""
    value = st.one_of(
        st.sampled_from([".j", "1:2:3:4", "51", "nan", "1:20:0", "5, 7.5", "1e999", "-1", "", "x"]),
        odd_text(20),
    )
    flag = st.sampled_from(["--stacks", "--ante", "--nope"])
    return st.lists(st.tuples(flag, value), min_size=1, max_size=2).map(
        lambda pairs: [x for pair in pairs for x in pair]
    )


def run_chart_cli(argv: list[str]) -> None:
    """The chart module's ``main`` in-process: exit 0 accepted, exit 2 with one ``error:``
    line refused; anything else escaped. Each command line starts from one stack (10 bb), so
    an accepted run solves one or two stacks."""
    from fuzz_harness import Refusal

    from solver.study.preflop_chart import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(["--stacks", "10", *argv])
        except SystemExit as exc:  # argparse's own exit
            code = exc.code if isinstance(exc.code, int) else 1
    if code == 0:
        return
    lines = [x for x in err.getvalue().strip().splitlines() if not x.startswith("usage:")]
    if code == 2 and lines and lines[-1].startswith(("error: ", "python -m solver")):
        raise Refusal(lines[-1])
    raise RuntimeError(f"exit {code}: {err.getvalue()[:500]}")


# ----- reports at any line and tree summaries ------------------------------------------------


@functools.cache
def line_database() -> bytes:
    """A real batch database with a tree summary (one tiny flop, solved in-process)."""
    from solver.batch.driver import _store
    from solver.batch.spec import BatchSpec
    from solver.batch.store import BatchStore
    from solver.batch.task import solve_flop

    template = HoldemSpec(board="", pot=100, stack=100, oop_range="AA, KK, T9s",
                          ip_range="QQ, AKs, KQs", bets="a", raises="a")  # fmt: skip
    spec = BatchSpec(template, flops="Ks9s5s", target_pct=5.0, max_iterations=30,
                     name="fuzz-lines")  # fmt: skip
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "lines.db"
        with BatchStore.create_or_open(db, spec) as store:
            for i, flop in enumerate(spec.flop_set()):
                _store(store, flop, i, solve_flop(spec.to_json(), flop.text))
        import sqlite3

        with contextlib.closing(sqlite3.connect(db)) as con:
            con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return db.read_bytes()


def report_at_args() -> st.SearchStrategy[tuple[Any, Any, Any]]:
    """(steps, street, groups) for :func:`solver.batch.linereport.report_at`."""
    steps = st.one_of(
        st.lists(st.sampled_from(["k", "b:100", "c", "f", "d:Kh", "any", "d:Zz", "", 5, None]),
                 max_size=4),
        _odd(),
    )  # fmt: skip
    street = st.one_of(st.sampled_from([None, 1, 2]), _odd())
    groups = st.one_of(
        st.lists(st.sampled_from(["suits", "pairing", "high", "x", 5]), max_size=2), _odd()
    )
    return st.tuples(steps, street, groups)


def run_report_at(args: tuple[Any, Any, Any]) -> None:
    from solver.batch.linereport import report_at

    steps, street, groups = args
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "lines.db"
        db.write_bytes(line_database())
        report_at(str(db), steps, street, groups)


@functools.cache
def tree_blob() -> bytes:
    """One stored tree summary of :func:`line_database`, as the store keeps it."""
    from solver.batch.store import BatchStore
    from solver.batch.treedata import encode

    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "lines.db"
        db.write_bytes(line_database())
        with BatchStore.open(db) as store:
            ts = store.tree("Ks9s5s")
    assert ts is not None
    return encode(ts)


def tree_summary() -> st.SearchStrategy[bytes]:
    """A stored tree summary with its compressed payload edited: flipped bytes, cuts, or a
    JSON header field replaced (labels that are no cards among them)."""

    @st.composite
    def build(draw: st.DrawFn) -> bytes:
        blob = tree_blob()
        how = draw(st.sampled_from(["flip", "cut", "header", "raw"]))
        if how == "raw":
            return bytes(draw(st.binary(max_size=200)))
        magic, payload = blob[: len(MAGIC)], zlib.decompress(blob[len(MAGIC) :])
        data = bytearray(payload)
        if how == "flip":
            for _ in range(draw(st.integers(1, 4))):
                at = draw(st.integers(0, len(data) - 1))
                data[at] = draw(st.integers(0, 255))
        elif how == "cut":
            data = data[: draw(st.integers(0, len(data)))]
        else:
            old = draw(st.sampled_from([b'"d:', b'"k"', b'"c"', b'"min_reach"', b'"arrays"']))
            new = draw(st.sampled_from([b'"d:Zz', b'"q"', b'"', b'"zz"', b'"d:AsAs']))
            data = bytearray(bytes(data).replace(old, new, 1))
        return magic + zlib.compress(bytes(data), 6)

    return build()


def run_decode(blob: bytes) -> None:
    """``decode``, then what a report reads of an accepted summary."""
    from solver.batch.lines import card_ints, flop_line
    from solver.batch.treedata import decode

    ts = decode(blob)
    for steps in (["k", "k", "any"], ["a", "c"], []):
        flop_line(ts, card_ints("Ks9s5s"), steps, None)


def warm_up() -> None:
    """Build what the runners share once (the solved river, the line database and its tree
    summary), so no input is timed with it."""
    river_solve()
    tree_blob()


# ----- load_solve's keyword ---------------------------------------------------------------------


def load_kwargs() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from([64, 512.0, 1, 10**6]), _odd())


def run_load_kwargs(limit: Any) -> None:
    from fuzz_saves import base_saves

    from solver.files.export import load_solve

    load_solve(base_saves()[0], max_memory_mb=limit)


# ----- command lines: drill and report at a line ------------------------------------------------

DRILL_VALUES: dict[str, list[str]] = {
    "--player": ["oop", "ip", "0", "1", "2", "x", ""],
    "--line": ["", "k", "b:50", "k b:50", "zz", "d:2c", "k k", "b:50 c"],
    "--scope": ["node", "street", "hand", "x", ""],
    "--hands": ["0", "3", "-1", "1e9", "nan", "x", "9" * 40],
    "--answer": ["best", "solution", "uniform", "x", ""],
    "--seed": ["0", "-2", "nan", "1.5", "x", "9" * 40],
    "--classes": ["top_pair", "overpair,x", "", "5"],
    "--cells": ["AA", "KK,QQ", "ZZ", ""],
    "--min-reach": ["0", "50", "101", "-1", "nan", "x"],
    "--iterations": ["5", "0", "-5", "x"],
}
"""Flag values of ``drill`` (a tiny river spot built from flags), plausible and hostile."""

REPORT_LINES = ["k k any", "k k", "a c", "a", "k a c", "k k Zz", "k k 2c any", "any", "", "x y z",
                "k k d:As", "k k any any", "b:9999"]  # fmt: skip


COUNTS = ("--iterations", "--hands")
"""Flags whose valid values are work to do: fuzzed with the listed values only (free text
would draw a valid "98765" and time a long solve, not a refusal)."""


def _flag_value(flag: str, values: list[str]) -> st.SearchStrategy[str]:
    listed = st.sampled_from(values)
    return listed if flag in COUNTS else st.one_of(listed, odd_text(12))


def drill_argv() -> st.SearchStrategy[list[str]]:
    """``drill`` on a tiny river spot with up to three flags set, or on a toy game."""
    spot = ["--board", "Td9d6hQc2s", "--pot", "100", "--stack", "200", "--oop-range", "AA,KK,T9s",
            "--ip-range", "QQ,AK,98s", "--bets", "50%, a", "--raises", "a"]  # fmt: skip
    flag = st.sampled_from(sorted(DRILL_VALUES)).flatmap(
        lambda f: _flag_value(f, DRILL_VALUES[f]).map(lambda v: (f, v))
    )
    source = st.sampled_from([spot, ["--game", "kuhn"], ["--game", "leduc"]])

    def argv(src: list[str], flags: list[tuple[str, str]]) -> list[str]:
        out = ["drill", *src, "--iterations", "10", "--hands", "3", "--json"]
        for f, v in flags:
            out += [f, v]
        return out

    return st.builds(argv, source, st.lists(flag, max_size=3))


def report_argv() -> st.SearchStrategy[tuple[str, str | None, str | None, bool]]:
    """(line, street, what to compare with, --json) for ``report DB --line …``."""
    return st.tuples(
        st.one_of(st.sampled_from(REPORT_LINES), odd_text(16)),
        st.sampled_from([None, "turn", "river", "flop"]),
        st.sampled_from([None, "same", "missing"]),
        st.booleans(),
    )


def run_report_line(args: tuple[str, str | None, str | None, bool]) -> None:
    """``python -m solver report DB --line LINE [--street S] [--compare DB2] [--json]``
    in-process on a real database with tree summaries."""
    from fuzz_targets import run_cli

    line, street, compare, as_json = args
    with tempfile.TemporaryDirectory() as tmp:
        db = Path(tmp) / "lines.db"
        db.write_bytes(line_database())
        argv = ["report", str(db), "--line", line]
        if street is not None:
            argv += ["--street", street]
        if compare == "same":
            argv += ["--compare", str(db)]
        elif compare == "missing":
            argv += ["--compare", str(Path(tmp) / "nope.db")]
        if as_json:
            argv.append("--json")
        run_cli(argv)


def run_cli_line(argv: list[str]) -> None:
    """A command line (``drill``, ``exploit``) in-process through :func:`fuzz_targets.run_cli`."""
    from fuzz_targets import run_cli

    run_cli(argv)


EXPLOIT_VALUES: dict[str, list[str]] = {
    "--line": ["", "k", "b:50", "k b:50", "b:50 c", "k k", "zz", "d:2c", "k b:2", "b:2 r:4"],
    "--player": ["0", "1", "oop", "ip", "2", "-1", "x", ""],
    "--iterations": ["5", "0", "-5", "x"],
    "--locks": ["/dev/null", "/nonexistent.json"],
    "--load": ["/dev/zero", "/nonexistent.npz"],
}
"""Flag values of ``exploit``, plausible and hostile."""


def exploit_argv() -> st.SearchStrategy[list[str]]:
    """``exploit`` on a tiny river spot or a toy game with up to three flags set."""
    spot = ["--board", "Td9d6hQc2s", "--pot", "100", "--stack", "200", "--oop-range", "AA,KK,T9s",
            "--ip-range", "QQ,AK,98s", "--bets", "50%, a", "--raises", "a"]  # fmt: skip
    flag = st.sampled_from(sorted(EXPLOIT_VALUES)).flatmap(
        lambda f: _flag_value(f, EXPLOIT_VALUES[f]).map(lambda v: (f, v))
    )
    source = st.sampled_from([spot, ["--game", "kuhn"], ["--game", "leduc"]])

    def argv(src: list[str], flags: list[tuple[str, str]]) -> list[str]:
        out = ["exploit", *src, "--iterations", "10", "--json"]
        for f, v in flags:
            out += [f, v]
        return out

    return st.builds(argv, source, st.lists(flag, max_size=3))
