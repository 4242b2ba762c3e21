"""Hypothesis strategies for node locks (:mod:`solver.lockspec`): the ``locks=`` and
``warm_start=`` arguments of :func:`solver.solve` and the JSON file of ``solve --locks``.
Lines, mixes for every hand, per hand / rank / range / hand class, ``"solved"``; plausible
ones on Kuhn and Leduc (some accepted) with hostile keys, values and types among them."""

from __future__ import annotations

import functools
import json
from typing import Any

import numpy as np
from fuzz_inputs import ODD_NUMBERS, odd_text, with_hostile
from fuzz_saves import RIVER
from hypothesis import strategies as st

from solver import solve
from solver.api import SolveResult
from solver.games import Game
from solver.games.holdem import build_holdem
from solver.quoting import brief

GOOD = [
    {"k": {"k": 1.0}, "b:1": {"f": 1.0}},  # Kuhn: player 2 checks behind, folds to bets
    {"root": {"k": 0.5, "b:2": 0.5}},  # Leduc
    {"b:2": {"K": {"c": 1.0}, "*": {"f": 1}}},
    {"k k d:Js": {"Js": {"b:4": 1.0}}},
    {"root": "solved"},
    {"root": {"k": 1.0}, "b:100": {"AA": {"c": 1.0}, "one_pair": {"f": 0.5, "c": 0.5}}},  # river
    {"k": {"QQ+,AK": {"b:100": 1}, "*": {"k": 1}}},
]
LINES: list[Any] = [
    "root", "", "k", "b:1", "k b:1", "b:2", "k b:2", "b:2 r:2", "k k d:Js", "k k d:Kh",
    "k k d:Xx", "f", "b:2 f", "k k", ("k",), ("b:2", 3), 5, None, "root root", "k " * 200,
    "\u212a", "b:2 r:2 r:2 r:2", "b:100", "k b:100", "b:200", "b:100 r:200",
]  # fmt: skip
ACTIONS: list[Any] = ["k", "b:1", "b:2", "f", "c", "r:2", "b:4", "b:100", "r:200", "", 5, None]
HANDS: list[Any] = ["J", "Q", "K", "Js", "Kh", "Qs", "*", "AsKs", "AA", "top_pair", "xx", 5,
                    "\u212a", "K" * 300, "KhKs", "QQ+,AK", "one_pair", "flush_draw", "22+,A2+",
                    "AK:0.5", "KK-", "*"]  # fmt: skip
PROBABILITIES: list[Any] = [0, 0.5, 1, 1.0, 0.3, 0.7, -0.1, 2, 1 + 1e-7, *ODD_NUMBERS]


def _mix() -> st.SearchStrategy[Any]:
    return st.dictionaries(
        st.sampled_from(ACTIONS), st.sampled_from(PROBABILITIES), min_size=1, max_size=3
    )


def lock_spec() -> st.SearchStrategy[Any]:
    """A ``locks`` argument: a known good spec, one generated from lines and mixes (most of
    them wrong somewhere), or a value of the wrong type."""
    hand_mix = st.dictionaries(st.sampled_from(HANDS), _mix(), min_size=1, max_size=3)
    value = st.one_of(
        _mix(), _mix(), hand_mix, st.sampled_from(["solved", "Solved", ""]),
        st.sampled_from(ODD_NUMBERS),
    )  # fmt: skip
    generated = st.dictionaries(st.sampled_from(LINES), value, max_size=3)
    return st.one_of(
        st.sampled_from(GOOD),
        generated,
        generated,
        st.sampled_from([*ODD_NUMBERS, np.ones(3), "k", ["k"], {"k": np.ones(2)}]),
    )


@functools.cache
def game_named(name: str) -> Game | str:
    """``"river"``: a small hold'em river spot (built once); a toy game's name as it is."""
    return build_holdem(RIVER) if name == "river" else name


@functools.cache
def warm(game: str) -> SolveResult:
    """A two-iteration CFR solve of ``game`` to continue from."""
    return solve(game_named(game), "cfr", iterations=2)


def lock_kwargs() -> st.SearchStrategy[dict[str, Any]]:
    """Arguments of ``solve(game, algorithm, iterations=2, locks=..., warm_start=...)``."""
    plausible = st.fixed_dictionaries(
        {
            "game": st.sampled_from(["kuhn", "leduc", "river"]),
            "algorithm": st.sampled_from(["cfr", "cfr+", "dcfr", "mccfr-cs", "mccfr-es"]),
            "pruning": st.sampled_from([None, "none", "total"]),
            "locks": lock_spec(),
            "warm": st.booleans(),
        }
    )
    hostile = {
        "warm": st.sampled_from([*ODD_NUMBERS[:6], "leduc"]),
        "algorithm": odd_text(8),
        "locks": st.sampled_from(ODD_NUMBERS),
    }
    return with_hostile(plausible, hostile)


def run_lock_kwargs(kwargs: dict[str, Any]) -> None:
    """The call :func:`lock_kwargs` describes; ``warm`` True continues from :func:`warm`
    of the same game (anything else is passed as the warm start itself)."""
    args = dict(kwargs)
    game, algorithm, w = args.pop("game"), args.pop("algorithm"), args.pop("warm")
    if w is True:
        w = warm(game)
    elif w is False:
        w = None
    solve(game_named(game), algorithm, iterations=2, warm_start=w, **args)


def _json_text(spec: Any) -> str:
    try:
        return json.dumps(spec)
    except (TypeError, ValueError):  # tuple keys, arrays, huge integers: their text instead
        return json.dumps(brief(spec))


RAW_FILES: list[bytes] = [
    b"", b"{", b"\xff\xfe{}", b"null", b"[]", b'"root"', b"{" * 100_000,
    b'{"root": ' + b"9" * 5000 + b"}", b'{"root": {"k": 1e999}}', b'{"root": {"k": NaN}}',
    b" " * 1_000_001, b'{"root": {"k": 1}, "root": {"b:1": 1}}', b"\x00" * 64,
]  # fmt: skip


def locks_file() -> st.SearchStrategy[tuple[str, bytes]]:
    """(game, the bytes of a ``--locks`` file)."""
    text = st.one_of(lock_spec().map(_json_text).map(str.encode), st.sampled_from(RAW_FILES))
    return st.tuples(st.sampled_from(["kuhn", "leduc"]), text)
