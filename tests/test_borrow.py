"""Borrowed views (:mod:`solver.cfr.borrow`): the same data without reference counting."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import pytest
from numba import njit

from solver.cfr.borrow import borrow


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
