"""Borrowed views (:mod:`solver.cfr.borrow`): the same data without reference counting."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from numba import njit

from solver.cfr.borrow import Ref, borrow, by_ref, deref


class Pair(NamedTuple):
    a: np.ndarray
    b: np.ndarray
    n: int


@njit(inline="always")
def _scale_into(src: np.ndarray, dst: np.ndarray, k: float) -> None:
    for i in range(src.shape[0]):
        dst[i] = src[i] * k


@njit
def _through_borrowed(p: Pair, x: np.ndarray, rounds: int) -> float:
    q = borrow(p)
    y = borrow(x)
    total = 0.0
    for r in range(rounds):  # a helper inlined in a loop: its arguments were counted per call
        _scale_into(q.a, q.b, float(r + 1))
        y[r % y.shape[0]] += q.b[0]
        total += q.b[q.n - 1]
    return total


def test_borrowed_views_read_and_write_the_callers_arrays() -> None:
    a = np.arange(1.0, 6.0)
    p = Pair(a, np.zeros(5), 5)
    x = np.zeros(3)
    total = _through_borrowed(p, x, 4)
    assert total == pytest.approx(5.0 * (1 + 2 + 3 + 4))
    np.testing.assert_array_equal(p.b, a * 4.0)  # written through the borrowed tuple
    np.testing.assert_array_equal(x, [1.0 + 4.0, 2.0, 3.0])  # and through the borrowed array
    # the caller's arrays are intact and still owned by Python after many calls
    for _ in range(1000):
        _through_borrowed(p, x, 2)
    assert p.a.base is None and p.a.flags.owndata
    np.testing.assert_array_equal(p.a, a)


def test_borrow_refuses_what_holds_no_array() -> None:
    from numba.core.errors import TypingError

    @njit
    def bad(v: float) -> float:
        return borrow(v)

    with pytest.raises(TypingError):
        bad(1.0)


# ----- by reference -------------------------------------------------------------------------
@njit
def _fill_from(ref: Ref[Pair], k: float) -> float:  # a callee given the tuple's address
    p = deref(ref)
    for i in range(p.a.shape[0]):
        p.b[i] = p.a[i] * k
    return p.b[p.n - 1] + p.a.shape[0]


@njit
def _by_reference(p: Pair, rounds: int) -> float:
    ref = by_ref(p)
    total = 0.0
    for r in range(rounds):  # one copy of the tuple, its address passed at every call
        total += _fill_from(ref, float(r + 1))
    return total


def test_a_tuple_passed_by_reference_is_the_callers_and_counts_no_reference() -> None:
    import sys

    a = np.arange(1.0, 6.0)
    p = Pair(a, np.zeros(5), 5)
    before = (sys.getrefcount(p.a), sys.getrefcount(p.b))
    total = _by_reference(p, 3)
    assert total == pytest.approx(5.0 * (1 + 2 + 3) + 3 * 5)  # read through the address
    np.testing.assert_array_equal(p.b, a * 3.0)  # and written through it
    # the callee's loaded arrays are borrowed: were they counted as its own, each call would
    # release a reference the caller holds (freed memory, a corrupt heap)
    for _ in range(2000):
        _by_reference(p, 3)
    assert (sys.getrefcount(p.a), sys.getrefcount(p.b)) == before
    np.testing.assert_array_equal(p.a, a)


def test_by_ref_and_deref_refuse_what_is_not_a_tuple_or_its_address() -> None:
    from numba.core.errors import TypingError

    @njit
    def bad_ref(v: np.ndarray) -> object:
        return by_ref(v)

    @njit
    def bad_deref(v: float) -> object:
        return deref(v)  # type: ignore[arg-type]

    with pytest.raises(TypingError):
        bad_ref(np.zeros(2))
    with pytest.raises(TypingError):
        bad_deref(1.0)
