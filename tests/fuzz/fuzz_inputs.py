"""Hypothesis strategies for hostile text and numbers: spec fields, ranges, size strings,
boards, hold'em specs and preset files.

Each strategy mixes plausible values (so inputs reach deep code: the tree builder, the
counting, the builder) with hostile ones: negative, zero, NaN, infinities, huge, text where
a number belongs, wrong types, Unicode look-alikes (the Kelvin sign K, Cyrillic А,
full-width digits), very long text and deep nesting.
"""

from __future__ import annotations

import math
from dataclasses import replace
from pathlib import Path
from typing import Any

from hypothesis import strategies as st

from solver.games.holdem import HoldemSpec

ROOT = Path(__file__).resolve().parents[2]
PRESET_TEXTS = [p.read_text(encoding="utf-8") for p in sorted((ROOT / "presets").glob("*.toml"))]

# ----- numbers and odd values --------------------------------------------------------------

ODD_NUMBERS: list[Any] = [
    0, -1, -0.0, 1, 2, 0.5, 1.5, 1e308, -1e308, 1e-308, 2**31, 2**63, 2**64, 10**30,
    10**400, 10**5000, math.nan, math.inf, -math.inf, True, False, None, "", "12", " 7 ", "1e308",
    "1e999", "nan", "inf", "-5", "lots", "9" * 400, "1_000", "٣", [], {}, [1, 2], {"a": 1},
    "AA", b"12", 3 + 4j,
]  # fmt: skip
"""Values a number field may be given by a file, a form or a script."""


def odd_number() -> st.SearchStrategy[Any]:
    return st.one_of(
        st.sampled_from(ODD_NUMBERS),
        st.integers(),
        st.floats(allow_nan=True, allow_infinity=True),
        st.text(max_size=12),
    )


LOOKALIKES = "K\u212aА\uff21\uff13\u00a0\u200b\u0301٣ßſı%,:+-.xeac"
"""Characters that look like syntax and are not: Kelvin sign, Cyrillic A, full-width A and
3, no-break and zero-width spaces, a combining accent, Arabic-Indic three, ß, long s,
dotless i; then the syntax's own punctuation and letters."""


def odd_text(max_size: int = 40) -> st.SearchStrategy[str]:
    return st.one_of(
        st.text(max_size=max_size),
        st.text(alphabet=LOOKALIKES + "AKQJT98765432shdcoa ", max_size=max_size),
        st.sampled_from(["", ",", ",,", " ", "\n", "9" * 400, "x" * 5000, "\x00", "AA" * 3000]),
    )


# ----- ranges, sizes, boards ---------------------------------------------------------------

RANGE_TOKENS = [
    "AA", "KK-TT", "66+", "AKs", "AKo", "AK", "AQo+", "A5s-A2s", "KQo-KTo", "AsKs", "KAs",
    "T9s:0.5", "22+:0.25", "AhAd:0", "72o", "QJs+", "akS",
]  # fmt: skip
ODD_RANGE_TOKENS = [
    "AKx", "AAs", "AK-QJ", "A5s-K2s", "AsAs", "\u212aK", "AK:1.5", "AK:-0", "AK:nan",
    "AK:1e999", "AK:0.5.5", "AK:", ":0.5", "AA+-", "ＡＡ", "AА", "A\u212as", "99++", "1A",
]  # fmt: skip


def range_text() -> st.SearchStrategy[str]:
    token = st.one_of(st.sampled_from(RANGE_TOKENS), st.sampled_from(ODD_RANGE_TOKENS))
    joined = st.lists(token, max_size=8).flatmap(
        lambda ts: st.sampled_from([", ", ",", " , ", ",,"]).map(lambda sep: sep.join(ts))
    )
    return st.one_of(joined, joined, odd_text())


SIZE_TOKENS = ["33%", "75%", "2.5x", "a", "3e", "120c", "allin", "all-in", "A", "100%", "1e"]
ODD_SIZE_TOKENS = [
    "0%", "1x", "-5%", "1.5e", "0c", "9" * 400 + "%", "9" * 400 + "x", "9" * 400 + "e",
    "9" * 400 + "c", "1e5%", "٣%", "½x", "33 %", "%", "x", "3y", "1000001%", "10001x", "101e",
    "1000000001c", "0.0000001%", "1.0000000000000002x",
]  # fmt: skip


def size_text() -> st.SearchStrategy[str]:
    token = st.one_of(st.sampled_from(SIZE_TOKENS), st.sampled_from(ODD_SIZE_TOKENS))
    joined = st.lists(token, max_size=6).map(", ".join)
    return st.one_of(joined, joined, odd_text())


BOARDS = ["Td9d6hQc2s", "Ks7h2d9c3s", "AsKsQs", "Td9d6hQc", "2c2d2h3s3d", "7h7d2c"]


def board_text() -> st.SearchStrategy[str]:
    card = st.tuples(st.sampled_from("23456789TJQKAx1\u212a"), st.sampled_from("shdcSHDCx"))
    cards = st.lists(card.map("".join), max_size=8)
    return st.one_of(
        st.sampled_from(BOARDS),
        cards.map("".join),
        cards.map(" ".join),
        odd_text(),
    )


# ----- hold'em specs -----------------------------------------------------------------------

RIVER_OR_TURN = ["Td9d6hQc2s", "Ks7h2d9c3s", "2c2d2h3s3d", "Td9d6hQc", "Ks7h2d9c"]
RANGES = ["AA,KK", "QQ+,AKs", "22+,A2s+", "TT-66,AJo+", "AsKs,AhKh:0.5", "JJ", "KK,QQ:0.3"]
SIZES = ["50%, 100%, a", "33%, a", "a", "2.5x, a", "100%", "3e", "120c, a", ""]


def with_hostile(
    plausible: st.SearchStrategy[Any], hostile: dict[str, st.SearchStrategy[Any]]
) -> st.SearchStrategy[Any]:
    """A plausible value with zero to two of its fields (or keys) replaced by hostile values:
    a hostile value in every field would stop every input at the first check."""
    edit = st.sampled_from(sorted(hostile)).flatmap(lambda k: hostile[k].map(lambda v: (k, v)))

    def apply(base: Any, edits: list[tuple[str, Any]]) -> Any:
        if isinstance(base, dict):
            return {**base, **dict(edits)}
        return replace(base, **dict(edits))

    return st.builds(apply, plausible, st.lists(edit, max_size=2))


def sizes_table() -> st.SearchStrategy[Any]:
    street = st.sampled_from(["flop", "turn", "river", "preflop", 3])
    player = st.sampled_from(["oop", "ip", "btn", None])
    kind = st.sampled_from(["bets", "raises", "donks", "checks"])
    value = st.one_of(st.sampled_from(SIZES), size_text(), odd_number())
    kinds = st.dictionaries(kind, value, max_size=3)
    players = st.dictionaries(player, st.one_of(kinds, kinds, odd_number()), max_size=2)
    return st.one_of(
        st.dictionaries(street, st.one_of(players, players, odd_number()), max_size=2),
        odd_number(),
    )


def holdem_spec() -> st.SearchStrategy[HoldemSpec]:
    """Hold'em specs: plausible river and turn spots (a flop now and then: the tree
    counting's worst case), zero to two fields hostile."""
    plausible = st.builds(
        HoldemSpec,
        board=st.sampled_from(RIVER_OR_TURN * 4 + ["Td9d6h"]),
        pot=st.integers(1, 1000),
        stack=st.integers(1, 5000),
        oop_range=st.sampled_from(RANGES),
        ip_range=st.sampled_from(RANGES),
        bets=st.sampled_from(SIZES),
        raises=st.sampled_from(SIZES),
        donks=st.one_of(st.none(), st.sampled_from(SIZES)),
        sizes=st.one_of(st.just({}), st.just({"river": {"oop": {"bets": "33%"}}})),
        big_blind=st.sampled_from([1, 2, 10, 100]),
        raise_cap=st.integers(0, 4),
        add_allin_threshold=st.sampled_from([0.0, 1.5]),
        force_allin_threshold=st.sampled_from([0.0, 0.2]),
        merging_threshold=st.sampled_from([0.0, 0.1]),
        max_memory_mb=st.sampled_from([4096.0, 64.0, 1.0]),
        name=st.just("fuzz"),
        isomorphism=st.booleans(),
        collapse_runouts=st.booleans(),
    )
    weights = st.one_of(
        st.lists(st.floats(0, 1), min_size=1326, max_size=1326),
        st.lists(odd_number(), max_size=5),
        odd_number(),
    )
    number = st.one_of(odd_number(), st.integers())
    hostile: dict[str, st.SearchStrategy[Any]] = {
        "board": board_text(),
        "pot": number,
        "stack": number,
        "oop_range": range_text(),
        "ip_range": range_text(),
        "bets": size_text(),
        "raises": size_text(),
        "donks": size_text(),
        "sizes": sizes_table(),
        "big_blind": number,
        "raise_cap": number,
        "add_allin_threshold": number,
        "force_allin_threshold": number,
        "merging_threshold": number,
        "max_memory_mb": number,
        "name": odd_number(),
        "oop_weights": weights,
        "ip_weights": weights,
        "isomorphism": odd_number(),
        "collapse_runouts": odd_number(),
    }
    return with_hostile(plausible, hostile)


# ----- preset files ------------------------------------------------------------------------

TOML_VALUES = [
    '"x"', "5", "-1", "0", "1e400", "inf", "nan", "true", "[1, 2]", '{river = "x"}',
    "{flop = {oop = false}}", '{river = {oop = {bets = 5}}}', "[" * 3000 + "]" * 3000,
    "9" * 5000, "1979-05-27", '"K\u212a"', '"' + "9" * 400 + '%"', "1e12", '""', "{}",
    '"Td9d6hQc2s"', '"AA"', "[0.5, 0.5]", "3.0", '"50%, 7q"',
]  # fmt: skip
FIELDS = [
    "board", "pot", "stack", "oop_range", "ip_range", "bets", "raises", "donks", "sizes",
    "big_blind", "raise_cap", "add_allin_threshold", "force_allin_threshold",
    "merging_threshold", "max_memory_mb", "name", "oop_weights", "ip_weights", "isomorphism",
    "collapse_runouts", "game", "description", "colour",
]  # fmt: skip


def _mutate(text: str, ops: list[tuple[str, float, str]]) -> str:
    """``text`` with each edit of ``ops`` applied: (kind, where in [0, 1], payload)."""
    for kind, where, payload in ops:
        at = int(where * len(text))
        if kind == "insert":
            text = text[:at] + payload + text[at:]
        elif kind == "delete":
            text = text[:at] + text[at + len(payload) :]
        elif kind == "truncate":
            text = text[:at]
        elif kind == "flip" and text:
            i = min(at, len(text) - 1)
            text = text[:i] + chr((ord(text[i]) ^ (1 << (len(payload) % 7))) or 65) + text[i + 1 :]
        elif kind == "set":  # a field given a hostile value, appended to a section
            name, _, value = payload.partition("=")
            text = text + f"\n{name} = {value}\n"
    return text


def preset_text() -> st.SearchStrategy[str]:
    """Preset files: the project's own, then mutated, truncated, nested, mistyped."""
    setting = st.tuples(st.sampled_from(FIELDS), st.sampled_from(TOML_VALUES)).map("=".join)
    op = st.one_of(
        st.tuples(st.just("insert"), st.floats(0, 1), odd_text(20)),
        st.tuples(st.just("delete"), st.floats(0, 1), st.text(max_size=30)),
        st.tuples(st.just("truncate"), st.floats(0, 1), st.just("")),
        st.tuples(st.just("flip"), st.floats(0, 1), st.text(max_size=6)),
        st.tuples(st.just("set"), st.floats(0, 1), setting),
        st.tuples(st.just("set"), st.floats(0, 1), setting),
    )
    base = st.sampled_from(PRESET_TEXTS)
    return st.one_of(
        base,
        st.builds(_mutate, base, st.lists(op, min_size=1, max_size=3)),
        st.builds(_mutate, base, st.lists(op, min_size=1, max_size=3)),
        st.builds(_mutate, base, st.lists(op, min_size=1, max_size=3)),
        odd_text(200),
        st.integers(1, 5000).map(lambda n: "x = " + "[" * n),
        st.integers(1, 5000).map(lambda n: "a" + ".a" * n + " = 1"),
    )
