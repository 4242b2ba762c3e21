"""Range text, the 13×13 grid and per-combo weights (solver/poker/ranges.py)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from solver.poker.cards import COMBOS, combo_str, parse_combo
from solver.poker.ranges import (
    CLASS_LABELS,
    COMBO_CELL,
    GRID_LABELS,
    RangeError,
    class_combos,
    combo_count,
    grid_from_weights,
    parse_range,
    percent_of_all,
    range_to_text,
    set_cell,
)


def count(text: str) -> float:
    return combo_count(parse_range(text))


def covered(text: str) -> set[str]:
    """Combo texts with a positive weight."""
    return {combo_str(int(i)) for i in np.flatnonzero(parse_range(text))}


def test_issue_example() -> None:
    w = parse_range("AA, KK-TT, 66+, AKs, AQo+, A5s-A2s, KQ, T9s:0.5, AsKs")
    assert w.shape == (1326,)
    assert w.dtype == np.float64
    # 66+ = 9 pairs (54), AKs 4, AKo+AQo 24, A5s..A2s 16, KQ 16, T9s 4 × 0.5.
    assert combo_count(w) == 54 + 4 + 24 + 16 + 16 + 2
    assert set(np.unique(w)) == {0.0, 0.5, 1.0}
    assert w[parse_combo("Th9h")] == 0.5
    assert w[parse_combo("AsKs")] == 1.0
    assert w[parse_combo("AsQs")] == 0.0  # AQs not included
    assert w[parse_combo("5c5d")] == 0.0
    assert w[parse_combo("6c6d")] == 1.0
    assert percent_of_all(w) == pytest.approx(116 / 1326 * 100)
    assert range_to_text(w) == "66+, AKs, AQo+, A5s-A2s, KQ, T9s:0.5"


@pytest.mark.parametrize(
    ("text", "n"),
    [
        ("", 0),
        ("   ", 0),
        ("AA", 6),
        ("KK-TT", 24),
        ("TT-KK", 24),
        ("66+", 54),
        ("22+", 78),
        ("AA+", 6),
        ("AKs", 4),
        ("AKo", 12),
        ("AK", 16),
        ("KA s", 4),
        ("aks", 4),
        ("AQo+", 24),
        ("A5s+", 4 * 9),
        ("KTo+", 12 * 3),
        ("KT+", 16 * 3),
        ("32s+", 4),
        ("A5s-A2s", 16),
        ("A2s-A5s", 16),
        ("KQo-KTo", 36),
        ("KQ-KT", 48),
        ("AsKs", 1),
        ("ahkd", 1),
        ("KdAh", 1),
        ("T9s:0.5", 2),
        ("QQ+:0.25", 4.5),
        ("AK:0", 0),
        ("AA, KK,", 12),
        ("22+, AK, AsKs:0", 78 + 15),
        ("AK, AK:0.5", 8),
        ("AsAh:0.5, AA", 6),
    ],
)
def test_forms(text: str, n: float) -> None:
    assert count(text) == pytest.approx(n)


def test_form_contents() -> None:
    assert covered("A5s+") == {f"A{s}{k}{s}" for k in "56789TJQK" for s in "shdc"}
    assert covered("KTo+") == {f"K{a}{k}{b}" for k in "TJQ" for a in "shdc" for b in "shdc"} - {
        f"K{s}{k}{s}" for k in "TJQ" for s in "shdc"
    }
    assert covered("66+") == {combo_str(int(i)) for p in "6789TJQKA" for i in class_combos(p + p)}
    assert covered("AsKs") == {"AsKs"}
    assert covered("KsAs") == {"AsKs"}
    w = parse_range("AK:0.25, AsKs:1")
    assert w[parse_combo("AsKs")] == 1.0
    assert w[parse_combo("AhKs")] == 0.25
    assert w.sum() == pytest.approx(15 * 0.25 + 1)


@pytest.mark.parametrize(
    ("text", "match"),
    [
        ("AKx", "bad range token 'AKx'"),
        ("A", "bad range token 'A'"),
        ("QQ-", "bad range token 'QQ-'"),
        ("AA, QQ-", "bad range token 'QQ-'"),
        ("AK:2", r"weight 2 out of \[0, 1\] in 'AK:2'"),
        ("T9s:1.5", r"weight 1.5 out of \[0, 1\] in 'T9s:1.5'"),
        ("T9s:-0.1", r"weight -0.1 out of \[0, 1\] in 'T9s:-0.1'"),
        ("T9s:nan", r"weight nan out of \[0, 1\]"),
        ("T9s:abc", "bad weight 'abc' in 'T9s:abc'"),
        ("T9s:", "bad weight '' in 'T9s:'"),
        ("T9s:0.5:1", "bad weight '0.5:1' in 'T9s:0.5:1'"),
        ("XsKs", "bad range token 'XsKs'"),
        ("AsAs", "card As appears twice in 'AsAs'"),
        ("A5s-K2s", "'A5s-K2s' must keep the same high card"),
        ("A5s-A2o", "'A5s-A2o' must keep the same suited/offsuit suffix"),
        ("KK-K2s", "'KK-K2s' must be a range of pairs or of non-pairs"),
        ("AAs", "'AAs'"),
        ("AKs+-AQs", "bad range token"),
        ("AsKsQs", "bad range token 'AsKsQs'"),
        (":0.5", "bad range token ':0.5'"),
    ],
)
def test_errors_name_the_token(text: str, match: str) -> None:
    with pytest.raises(RangeError, match=match):
        parse_range(text)


def test_range_error_is_value_error() -> None:
    with pytest.raises(ValueError):
        parse_range("AKx")


# ------------------------------------------------------------------------------------------
# Canonical text


@pytest.mark.parametrize(
    ("text", "canonical"),
    [
        ("", ""),
        ("AA, KK, QQ", "QQ+"),
        ("KK, QQ, JJ", "KK-JJ"),
        ("AKs, AKo", "AK"),
        ("AKs, AQs, AKo, AQo", "AQ+"),
        ("A2s+, AQo+", "A2s+, AQo+"),
        ("KQs, KJs, KTs", "KTs+"),
        ("A9s, A8s, A7s", "A9s-A7s"),
        ("AK, AsKs:0", "AK, AsKs:0"),
        ("AsKs, AhKh", "AhKh, AsKs"),
        ("72o:0.3", "72o:0.3"),
        ("AA:0.1, KK:0.2", "AA:0.1, KK:0.2"),
    ],
)
def test_canonical_text(text: str, canonical: str) -> None:
    assert range_to_text(parse_range(text)) == canonical


def test_text_snaps_float_noise() -> None:
    w = parse_range("AA:0.1") * 3  # 0.30000000000000004
    assert range_to_text(w) == "AA:0.3"


def test_text_rejects_bad_weights() -> None:
    with pytest.raises(RangeError, match="1326 weights"):
        range_to_text(np.zeros(10))
    w = np.zeros(1326)
    w[0] = 1.5
    with pytest.raises(RangeError, match=r"out of \[0, 1\]"):
        range_to_text(w)


SMALL = st.sampled_from([0.0, 0.25, 0.5, 1.0])
ANY = st.floats(0.0, 1.0, allow_nan=False)


def assert_round_trip(w: np.ndarray) -> None:
    text = range_to_text(w)
    back = parse_range(text)
    np.testing.assert_allclose(back, w, rtol=0, atol=1e-12, err_msg=text)
    assert range_to_text(back) == text


@settings(max_examples=60, deadline=None)
@given(cells=hnp.arrays(np.float64, 169, elements=st.one_of(SMALL, ANY)))
def test_round_trip_class_level(cells: np.ndarray) -> None:
    assert_round_trip(cells[COMBO_CELL])


@settings(max_examples=60, deadline=None)
@given(w=hnp.arrays(np.float64, 1326, elements=st.one_of(SMALL, ANY)))
def test_round_trip_combo_level(w: np.ndarray) -> None:
    assert_round_trip(w)


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), density=st.floats(0.0, 1.0), small=st.booleans())
def test_round_trip_dense(seed: int, density: float, small: bool) -> None:
    rng = np.random.default_rng(seed)
    values = rng.choice([0.25, 0.5, 1.0], 1326) if small else rng.random(1326)
    cells = rng.choice([0.0, 0.5, 1.0], 169)
    w = np.where(rng.random(1326) < density, values, cells[COMBO_CELL])
    assert_round_trip(w)


# ------------------------------------------------------------------------------------------
# Grid and counts


def test_grid_labels() -> None:
    assert len(GRID_LABELS) == 13
    assert all(len(row) == 13 for row in GRID_LABELS)
    assert len(set(CLASS_LABELS)) == 169
    assert GRID_LABELS[0][0] == "AA"
    assert GRID_LABELS[0][1] == "AKs"
    assert GRID_LABELS[1][0] == "AKo"
    assert GRID_LABELS[12][12] == "22"
    assert GRID_LABELS[12][0] == "A2o"
    assert GRID_LABELS[0][12] == "A2s"
    assert GRID_LABELS[4][3] == "JTo"
    sizes = {6: 0, 4: 0, 12: 0}
    seen = np.zeros(1326, dtype=int)
    for i, row in enumerate(GRID_LABELS):
        for j, label in enumerate(row):
            combos = class_combos(label)
            sizes[len(combos)] += 1
            expected = 6 if i == j else 4 if i < j else 12
            assert len(combos) == expected, label
            assert np.all(COMBO_CELL[combos] == i * 13 + j)
            seen[combos] += 1
    assert sizes == {6: 13, 4: 78, 12: 78}
    assert np.all(seen == 1)  # the 169 classes partition the 1,326 combos


def test_class_combos() -> None:
    assert [combo_str(int(i)) for i in class_combos("AA")] == [
        "AsAh", "AsAd", "AsAc", "AhAd", "AhAc", "AdAc"
    ]  # fmt: skip
    assert sorted(combo_str(int(i)) for i in class_combos("AKs")) == [
        "AcKc", "AdKd", "AhKh", "AsKs"
    ]  # fmt: skip
    assert len(class_combos("AK")) == 16
    assert np.array_equal(class_combos("kao"), class_combos("AKo"))
    for label in ("AKx", "AK+", "A", "AsKs", "", "22s"):
        with pytest.raises(RangeError):
            class_combos(label)


def test_grid_from_weights() -> None:
    g = grid_from_weights(parse_range("AA, AKs:0.5, AsKh, T9o:0.25"))
    assert g.shape == (13, 13)
    assert g[0, 0] == 1.0
    assert g[0, 1] == 0.5
    assert g[1, 0] == pytest.approx(1 / 12)
    assert g[5, 4] == 0.25
    assert g.sum() == pytest.approx(1 + 0.5 + 1 / 12 + 0.25)
    assert np.array_equal(grid_from_weights(np.ones(1326)), np.ones((13, 13)))


def test_set_cell() -> None:
    w = parse_range("AA")
    w2 = set_cell(w, "AKo", 0.5)
    assert combo_count(w) == 6  # unchanged
    assert combo_count(w2) == 12
    assert grid_from_weights(w2)[1, 0] == 0.5
    assert combo_count(set_cell(w2, "AA", 0)) == 6
    with pytest.raises(RangeError):
        set_cell(w, "AKo", 1.5)
    with pytest.raises(RangeError):
        set_cell(w, "AKx", 1.0)


def test_counts() -> None:
    assert count("AA") == 6
    assert count("AKs") == 4
    assert combo_count(np.ones(1326)) == 1326
    assert percent_of_all(np.ones(1326)) == 100.0
    assert percent_of_all(parse_range("AA")) == pytest.approx(6 / 1326 * 100)
    aa_ak = parse_range("AA, AK")
    assert combo_count(aa_ak, board="As7d2c") == 3 + 12
    assert combo_count(aa_ak, board=[0, 4, 8]) == 22
    assert combo_count(np.ones(1326), board="Td9d6h") == 1176
    assert len(COMBOS) == sum(len(class_combos(label)) for label in CLASS_LABELS)
