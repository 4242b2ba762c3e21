"""Canonical flops and their weights (every raw flop maps to one of 1,755, weights sum to
22,100, suit relabelling never changes the class), the weighted subsets' frequencies against
the full set, and the filters."""

from __future__ import annotations

import itertools
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from solver.poker import flops as F
from solver.poker.cards import parse_cards


def test_1755_classes_weights_sum_to_all_raw_flops() -> None:
    flops = F.all_flops()
    assert len(flops) == 1755
    assert sum(f.weight for f in flops) == F.NUM_RAW_FLOPS == 22_100
    assert len({f.cards for f in flops}) == 1755
    # every raw flop maps to exactly one class, and each class's weight counts its raw flops
    hits: Counter[tuple[int, int, int]] = Counter()
    for raw in itertools.combinations(range(52), 3):
        hits[F.canonical(raw)] += 1
    assert set(hits) == {f.cards for f in flops}
    assert all(hits[f.cards] == f.weight for f in flops)
    # weights: 4 (monotone, trips), 12 (two-tone unpaired, every paired), 24 (rainbow unpaired)
    assert Counter(f.weight for f in flops) == {4.0: 299, 12.0: 1170, 24.0: 286}
    assert Counter(f.pairing for f in flops) == {"unpaired": 1430, "paired": 312, "trips": 13}


def test_canonical_flops_by_hand() -> None:
    assert F.parse_flop("Ah Kd 7c").text == "AsKh7d"
    assert F.parse_flop("7c Kd Ah").text == "AsKh7d"
    assert F.parse_flop("2c2d2h").text == "2s2h2d"
    assert F.parse_flop("KdKc5d").text == "KsKh5s"
    assert F.parse_flop("9h8h2h").suits == "monotone"
    f = F.parse_flop("Jd Td 9c")
    assert (f.suits, f.pairing, f.high, f.connect, f.weight) == (
        "two-tone",
        "unpaired",
        "J",
        "connected",
        12.0,
    )
    assert F.parse_flop("As 2d 3c").connect == "connected"  # the wheel's ace plays low
    assert F.parse_flop("As 4d 5c").connect == "semi"
    assert F.parse_flop("Ks 8d 3c").connect == "disconnected"
    assert F.parse_flop("8s 8d 7c").connect == "disconnected"


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(0, 51), min_size=3, max_size=3, unique=True),
    st.permutations(range(4)),
)
def test_suit_relabelling_keeps_the_class(cards: list[int], perm: list[int]) -> None:
    moved = [c - (c & 3) + perm[c & 3] for c in cards]
    assert F.canonical(cards) == F.canonical(moved) == F.canonical(moved[::-1])


# Tolerances (percentage points, ranks) of features the re-fit does not target.
SINGLE_HIGH_PP = {25: 5.5, 49: 4.5, 95: 1.5, 184: 1.5}
MEAN_RANK = {25: 0.7, 49: 0.2, 95: 0.2, 184: 0.1}


@pytest.mark.parametrize("n", F.SUBSET_SIZES)
def test_subsets_match_the_full_set(n: int) -> None:
    full = F.all_flops()
    sub = F.subset(n)
    assert len(sub) == n == len({f.cards for f in sub})
    assert sum(f.weight for f in sub) == pytest.approx(22_100, abs=1e-4)  # rounded to 1e-6
    assert all(f.weight > 0 for f in sub)
    # the fitted margins: suit class, pairing, high-card group, connectedness exactly
    for key in ("suits", "pairing", "connect"):
        have, want = F.frequencies(sub, key), F.frequencies(full, key)
        assert have.keys() == want.keys()
        for v in want:
            assert have[v] == pytest.approx(want[v], abs=1e-9), (key, v)
    for group in F.HIGH_GROUPS:
        share = {f: sum(x.weight for x in f if x.high in group) / 22_100 for f in (sub, full)}
        assert share[sub] == pytest.approx(share[full], abs=1e-9), group
    # features the fit does not target, within the stated tolerances
    have_h, want_h = F.frequencies(sub, "high"), F.frequencies(full, "high")
    for v in want_h:
        assert abs(have_h.get(v, 0.0) - want_h[v]) * 100 <= SINGLE_HIGH_PP[n], v
    for i in (1, 2):
        mean = {s: sum(f.weight * f.ranks[i] for f in s) / 22_100 for s in (sub, full)}
        assert abs(mean[sub] - mean[full]) <= MEAN_RANK[n], i


def test_subsets_are_canonical_and_nested_in_the_full_set() -> None:
    index = {f.cards for f in F.all_flops()}
    for n in F.SUBSET_SIZES:
        assert {f.cards for f in F.subset(n)} <= index
    assert F.select("all") == F.all_flops()
    assert F.select(1755) == F.all_flops()


def test_filters() -> None:
    mono = F.select(49, {"suits": ["monotone"]})
    assert mono and all(f.suits == "monotone" for f in mono)
    ace_paired = F.select("all", {"high": {"A"}, "pairing": {"paired"}})
    assert all(f.high == "A" and f.pairing == "paired" for f in ace_paired)
    assert len(ace_paired) == 12 * 2 + 12 * 2  # AAx and xxA (x < A), two-tone or rainbow
    key, values = F.parse_filter("texture=Monotone,two-tone")
    assert (key, values) == ("suits", frozenset({"monotone", "two-tone"}))
    listed = F.select("AhKd7c, Ks Kd 5d, 7c Kd Ah")  # the third is the first again
    assert [f.text for f in listed] == ["AsKh7d", "KsKh5s"]
    assert listed[0].weight == 24.0
    assert [f.text for f in F.select("AhKd7cQs8s3d")] == ["AsKh7d", "Qs8s3h"]


@pytest.mark.parametrize(
    ("flops", "filters", "field", "words"),
    [
        ("50", None, "flops", "no subset of 50"),
        ("AhKd", None, "flops", "whole flops"),
        ("AhKdAh", None, "flops", "twice"),
        ("XxKd7c", None, "flops", "bad card"),
        (25, {"pairing": {"trips"}, "suits": {"monotone"}}, "filter", "no flop"),
    ],
)
def test_bad_flop_sets(flops: str | int, filters: dict | None, field: str, words: str) -> None:
    with pytest.raises(F.FlopError) as err:
        F.select(flops, filters)
    assert err.value.field == field and words in str(err.value)


@pytest.mark.parametrize("text", ["colour=red", "suits=purple", "high=", "suits"])
def test_bad_filters(text: str) -> None:
    with pytest.raises(F.FlopError) as err:
        F.parse_filter(text)
    assert err.value.field == "filter"


def test_lookup_is_the_canonical_class() -> None:
    f = F.lookup(parse_cards("Td9d6h"))
    assert f.text == "Ts9s6h" and f.weight == 12.0 and f.connect == "semi"
