"""Hypothesis strategies and runners for opponent profiles (issue 48,
:mod:`solver.study.profiles`): ``Profile.from_dict`` of any value, the profile JSON file as
``python -m solver exploit --profile FILE`` reads it (wrong types, huge numbers, NaN, deep
nesting, huge and binary files, unknown keys, contradictory stats, with the flags a profile
cannot re-solve with), and the profile API's functions (``plan``, ``compile_profile``,
``apply_profile``, ``readback``) with bad arguments.

A refusal must be the project's own error; on the CLI one ``error:`` line naming
``--profile`` (or the flag), exit 2, printed before any checkpoint: nothing solved first. Only
the contradictions that depend on the solved ranges (a bluff share the range at a node
cannot hold, a whole-range stat beside class stats of the same spots) are said after the
first solve, before the re-solve. Valid values stay cheap: the tiny river of
:mod:`fuzz_study`, 10 iterations."""

from __future__ import annotations

import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np
from fuzz_harness import Refusal
from fuzz_inputs import ODD_NUMBERS, odd_text
from fuzz_study import RIVER, river_solve
from hypothesis import strategies as st

from solver.study.profile_spec import CLASSES, STATS

RIVER_FLAGS = ["--board", RIVER.board, "--pot", str(RIVER.pot), "--stack", str(RIVER.stack),
               "--oop-range", RIVER.oop_range, "--ip-range", RIVER.ip_range,
               "--bets", RIVER.bets, "--raises", RIVER.raises]  # fmt: skip
"""The tiny river spot as ``exploit``'s flags."""

AFTER_SOLVE = ("contradicts the range at", "contradicts the class stats of")
"""The refusals that may come after the first solve: they need its ranges."""

_ODD: list[Any] = [v for v in ODD_NUMBERS if not isinstance(v, (bytes, complex))]


def _odd() -> st.SearchStrategy[Any]:
    return st.one_of(st.sampled_from(_ODD), odd_text(12))


def _nested(depth: int) -> Any:
    out: Any = 1
    for _ in range(depth):
        out = [out]
    return out


def _entry() -> st.SearchStrategy[Any]:
    """One ``stats`` entry: mostly plausible, sometimes of the wrong kind or with an unknown
    key."""
    stat = st.one_of(st.sampled_from([*STATS, "vpip", "CBET", ""]), _odd())
    value = st.one_of(st.sampled_from([0, 30, 50, 75, 100, 50.5, 100.0000001, -0.0]), _odd())
    klass = st.one_of(st.none(), st.sampled_from([*CLASSES, "aces", ""]), _odd())
    plausible = st.builds(
        lambda s, v, k: {"stat": s, "value": v} | ({} if k is None else {"class": k}),
        stat,
        value,
        klass,
    )
    extra = st.builds(lambda e, k, v: {**e, k: v}, plausible, odd_text(8), _odd())
    return st.one_of(plausible, plausible, extra, _odd(), st.just(_nested(30)))


CONTRADICTIONS: list[list[dict[str, Any]]] = [
    [{"stat": "cbet", "value": 50}, {"stat": "river_bet", "value": 30}],
    [{"stat": "fold_to_cbet", "value": 70}, {"stat": "check_raise", "value": 40}],
    [{"stat": "river_bluff", "value": 90}, {"stat": "river_bet", "value": 100}],
    [{"stat": "river_bluff", "value": 10}, {"stat": "river_bet", "value": 5, "class": "nothing"}],
    [{"stat": "river_bet", "value": 0}, {"stat": "river_bet", "value": 100, "class": "two_pair"}],
    [{"stat": "river_bet", "value": 40}, {"stat": "river_bet", "value": 40}],
    [{"stat": "turn_barrel", "value": 50}],
    [{"stat": "fold_to_river_bet", "value": 100}, {"stat": "fold_to_cbet", "value": 0}],
]
"""Stats that cannot all hold on the river spot (or have no spot in it)."""


def profile_data() -> st.SearchStrategy[Any]:
    """A profile's JSON form with up to three fields set to anything, a contradictory or
    long ``stats``, or any value at all."""
    base = {"version": 1, "name": "reg", "player": "ip", "stats": [{"stat": "river_bet",
            "value": 50}]}  # fmt: skip
    stats = st.one_of(
        st.lists(_entry(), max_size=4),
        st.sampled_from(CONTRADICTIONS),
        st.integers(60, 80).map(lambda n: [{"stat": "river_bet", "value": 50}] * n),
        _odd(),
    )
    field = st.one_of(
        st.tuples(st.just("stats"), stats),
        st.tuples(st.sampled_from(["version", "name", "player"]), _odd()),
        st.tuples(st.sampled_from(["player"]), st.sampled_from(["oop", "ip", "OOP", "hero"])),
        st.tuples(odd_text(12), _odd()),  # an unknown key (or a known one, any value)
    )

    @st.composite
    def build(draw: st.DrawFn) -> Any:
        out = dict(base)
        for key, value in draw(st.lists(field, max_size=3)):
            out[key] = value
        return out

    return st.one_of(build(), build(), _odd(), st.just(_nested(40)))


def run_from_dict(data: Any) -> None:
    """``Profile.from_dict``, the profile planned on the river spot, and its JSON form read
    back to the same profile."""
    from solver.study.profiles import Profile, plan

    profile = Profile.from_dict(data)
    assert Profile.from_dict(profile.to_dict()) == profile
    plan(river_solve().game, profile)


def _dumped(data: Any) -> bytes:
    """``data`` as JSON text (NaN and infinities as JavaScript writes them, integers of any
    length)."""
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        return json.dumps(data, default=repr).encode("utf-8")
    finally:
        sys.set_int_max_str_digits(old)


FILE_BYTES = [
    b"", b"{", b"[]", b"null", b"\xff\xfe{}", b"{\"version\": 1e999}", b"{\"version\": NaN}",
    b"[" * 200_000, b"{\"a\":" * 50_000, b" " * 1_100_000, b"{\"version\": " + b"9" * 5000 + b"}",
    b"{\"version\": 1, \"player\": \"ip\", \"stats\": [{\"stat\": \"river_bet\", \"value\": "
    b"Infinity}]}",
]  # fmt: skip
"""Files that are not a profile's JSON at all: empty, cut, binary, nested past the parser,
over the 1,000,000-byte cap, numbers past the float range or 4,300 digits."""

FLAGS: list[list[str]] = [
    [], [], ["--json"], ["--algorithm", "mccfr-es"], ["--algorithm", "mccfr-cs"],
    ["--algorithm", "cfr", "--pruning", "total"], ["--locks", "LOCKS"], ["--load", "SAVE"],
    ["--target", "1%"], ["--line", "k"],
]  # fmt: skip
"""Flags beside ``--profile``; LOCKS is a locks file locking the IP's river bet node."""


def profile_file() -> st.SearchStrategy[tuple[bytes, list[str], bool]]:
    """(the file's bytes, the flags beside it, whether the spot is a toy game)."""
    data = st.one_of(profile_data().map(_dumped), st.sampled_from(FILE_BYTES))
    return st.tuples(data, st.sampled_from(FLAGS), st.sampled_from([False, False, False, True]))


def run_profile_file(args: tuple[bytes, list[str], bool]) -> None:
    """``python -m solver exploit SPOT --iterations 10 --profile FILE [flags]`` in-process:
    exit 0 accepted; exit 2 with one ``error:`` line refused — and only before the solve
    printed a checkpoint, but for :data:`AFTER_SOLVE`; anything else escaped."""
    from solver.cli import main as cli_main

    data, flags, toy = args
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "profile.json"
        path.write_bytes(data)
        locks = Path(tmp) / "locks.json"
        locks.write_text('{"k": {"QQ": {"k": 1}}}')
        given = [str(locks) if f == "LOCKS" else str(Path(tmp) / "x.npz") if f == "SAVE" else f
                 for f in flags]  # fmt: skip
        spot = ["--game", "kuhn"] if toy else RIVER_FLAGS
        argv = ["exploit", *spot, "--iterations", "10", "--profile", str(path), *given]
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = cli_main(argv)
    if code == 0:
        return
    lines = err.getvalue().strip().splitlines()
    if code != 2 or len(lines) != 1 or not lines[0].startswith("error: "):
        raise RuntimeError(f"exit {code}: {err.getvalue()[:500]}")
    if out.getvalue() and not any(words in lines[0] for words in AFTER_SOLVE):
        raise RuntimeError(f"refused after solving: {lines[0]}")
    raise Refusal(lines[0])


# ----- the API's functions ---------------------------------------------------------------


def _valid_profile() -> Any:
    from solver.study.profiles import Profile

    return Profile.from_dict({"version": 1, "player": "ip", "stats": [
        {"stat": "river_bet", "value": 40}, {"stat": "fold_to_cbet", "value": 50}]})  # fmt: skip


def _hand_built() -> st.SearchStrategy[Any]:
    """Profiles built by hand (no ``from_dict``): any part of the wrong kind."""
    from solver.study.profiles import Profile, StatTarget

    target = st.builds(
        StatTarget,
        st.one_of(st.sampled_from([*STATS, "vpip"]), _odd()),
        st.one_of(st.sampled_from([0.0, 50.0, 100.0, 150.0]), _odd()),
        st.one_of(st.none(), st.sampled_from(CLASSES), _odd()),
    )
    return st.builds(
        Profile,
        st.one_of(st.sampled_from(["oop", "ip"]), _odd()),
        st.one_of(st.lists(target, min_size=1, max_size=3).map(tuple), _odd()),
        st.one_of(st.just(""), _odd()),
    )


def api_call() -> st.SearchStrategy[tuple[str, dict[str, Any]]]:
    """(function, its arguments by name), a valid value or a hostile one for each."""
    profile = st.one_of(st.just("valid"), _hand_built(), _odd())
    sigma = st.sampled_from(["good", "short", "nan", "text", "list", "2d", "bool"])
    small = st.one_of(st.integers(0, 12), st.none(), _odd())
    apply = st.fixed_dictionaries(
        {"result": st.one_of(st.just("result"), st.just("result"), _odd()),
         "profile": profile},
        optional={"iterations": small, "target_exploitability": st.one_of(st.none(), _odd()),
                  "rounds": st.one_of(st.integers(1, 2), _odd()),
                  "check_every": st.one_of(st.integers(1, 10), _odd()),
                  "on_round": st.one_of(st.none(), st.just(_said), _odd())},
    )  # fmt: skip
    compile_ = st.fixed_dictionaries(
        {"solved": st.one_of(st.just("result"), st.tuples(st.just("game"), sigma), _odd()),
         "profile": profile},
        optional={"locks": st.one_of(st.none(), _odd()),
                  "bluffs": st.one_of(st.none(), _odd(), st.just({0: "x"}),
                                      st.just({"n": np.zeros(3, dtype=bool)})),
                  "aims": st.one_of(st.none(), _odd(), st.just({0: 50.0}),
                                    st.just({0: float("nan")}), st.just({9: 10}),
                                    st.just({"0": 10}))},
    )  # fmt: skip
    plan_ = st.fixed_dictionaries(
        {"game": st.one_of(st.just("game"), st.just("kuhn"), _odd()), "profile": profile}
    )
    readback_ = st.fixed_dictionaries(
        {"game": st.one_of(st.just("game"), st.just("kuhn"), _odd()), "sigma": sigma,
         "p": st.one_of(st.just("plan"), _odd())}
    )  # fmt: skip
    return st.one_of(
        st.tuples(st.just("apply_profile"), apply),
        st.tuples(st.just("compile_profile"), compile_),
        st.tuples(st.just("plan"), plan_),
        st.tuples(st.just("readback"), readback_),
    )


def _said(k: int, rows: list[Any]) -> None:
    """An ``on_round`` that takes what it is given."""


def _sigma(kind: Any, good: np.ndarray) -> Any:
    return {
        "good": good, "short": good[:-1], "nan": np.where(np.arange(good.size) == 0, np.nan, good),
        "text": "0.5", "list": good.tolist(), "2d": good[None, :], "bool": good > 0.5,
    }[kind]  # fmt: skip


def run_api(call: tuple[str, dict[str, Any]]) -> None:
    """One of the profile API's functions with the drawn arguments ("valid", "result",
    "game", "plan" … stand for the river spot's own)."""
    from solver import make_game
    from solver.study import profiles as P

    name, raw = call
    result = river_solve()
    game, good = result.game, result.average_strategy()
    kwargs = dict(raw)
    stand_in = {
        "valid": _valid_profile(),
        "result": result,
        "game": game,
        "kuhn": make_game("kuhn"),
    }
    for key, value in list(kwargs.items()):
        if isinstance(value, str) and value in stand_in and key != "sigma":
            kwargs[key] = stand_in[value]
    if name == "compile_profile" and isinstance(kwargs["solved"], tuple):
        kwargs["solved"] = (game, _sigma(kwargs["solved"][1], good))
    if name == "readback":
        kwargs["sigma"] = _sigma(kwargs["sigma"], good)
        if kwargs["p"] == "plan":
            kwargs["p"] = P.plan(game, _valid_profile())
    getattr(P, name)(**kwargs)
