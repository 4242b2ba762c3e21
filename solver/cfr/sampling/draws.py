"""Where a sampled pass's randomness comes from: the deal of a pair of hands and every choice
after it, from a splitmix64 generator (Steele, Lea, Flood 2014) whose state lives in the
solve's storage, or scripted (tests enumerate every outcome of a pass exactly)."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.games.model import Game, Hands
from solver.jit import kernel

Array = npt.NDArray[np.float64]

MAX_REJECT = 64  # deal: rejection draws of the second hand before an exact linear draw

_INV_2_53 = 1.0 / 9007199254740992.0


class DealTable(NamedTuple):
    """What the deal sampler needs (``H0``, ``H1`` hands): the first hand is drawn from its
    marginal, the second from its range restricted to hands compatible with the first."""

    m0: Array  # (H0,) w0(h0)·Σ_{h1 compatible} w1(h1): marginal weight of player 0's hand
    cdf0: Array  # (H0,) cumulative sums of m0
    w1: Array  # (H1,) w1 with hands blocked by the initial board zeroed
    cdf1: Array  # (H1,) cumulative sums of w1


class Draws(NamedTuple):
    """Source of a pass's random choices.

    With ``ctl[0] = 0`` every choice comes from the splitmix64 state ``rng``. With
    ``ctl[0] = 1`` (scripted, for tests) choice ``k`` is ``script[k]`` for ``k < ctl[2]`` and the
    first option of positive probability after that (written to ``script[k]``, so ``script``
    ends up holding every choice made); ``ctl[1]`` counts the choices made,
    ``options[k]`` and ``probs[k, :options[k]]`` record each choice's options and their
    probabilities, and ``prob[0]`` the product of the probabilities of the choices made.
    ``ctl[0]`` becomes 2 when a choice did not fit ``options``/``probs`` (its record is lost;
    :func:`run_scripted_pass` raises then). A ``raise`` inside the kernel would cost more than
    a whole node on every draw, taken or not."""

    rng: npt.NDArray[np.uint64]  # (1,)
    ctl: npt.NDArray[np.int64]  # (3,) [scripted, choices made, scripted choices]
    script: npt.NDArray[np.int64]  # (K,)
    options: npt.NDArray[np.int64]  # (K,)
    probs: Array  # (K, M)
    prob: Array  # (1,)


def deal_table(game: Game) -> DealTable:
    """The :class:`DealTable` of ``game``. Drawing h0 with probability m0[h0] / Σ m0 and then
    h1 with probability w1[h1] / Σ_{h1' compatible with h0} w1[h1'] deals a compatible pair
    with probability w0(h0)·w1(h1) / Σ m0 = ``Hands.norm``·w0(h0)·w1(h1)."""
    hands = game.hands
    n0, n1 = game.num_hands
    b0 = int(game.tree.board[0])
    w0 = hands.weights[0, :n0] * game.boards.valid[b0, 0, :n0]
    w1 = hands.weights[1, :n1] * game.boards.valid[b0, 1, :n1]
    c0 = hands.cards[0, :n0]
    c1 = hands.cards[1, :n1]
    clash = np.zeros((n0, n1), dtype=bool)
    for k in range(c0.shape[1]):
        for m in range(c1.shape[1]):
            clash |= (c0[:, k, None] >= 0) & (c0[:, k, None] == c1[None, :, m])
    m0 = w0 * ((~clash).astype(np.float64) @ w1)
    if not m0.sum() > 0:
        raise ValueError("no pair of hands can be dealt together")
    return DealTable(m0, np.cumsum(m0), np.ascontiguousarray(w1), np.cumsum(w1))


def random_draws(seed_state: npt.NDArray[np.uint64]) -> Draws:
    """Draws from the generator state ``seed_state`` ((1,) uint64, advanced in place)."""
    return Draws(
        seed_state,
        np.zeros(3, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.zeros(1, dtype=np.int64),
        np.zeros((1, 1)),
        np.ones(1),
    )


def scripted_draws(script: list[int], capacity: int = 512, width: int = 2048) -> Draws:
    """Draws that follow ``script`` (then the first possible option) and record every choice:
    at most ``capacity`` choices of at most ``width`` options each."""
    arr = np.zeros(capacity, dtype=np.int64)
    arr[: len(script)] = script
    return Draws(
        np.zeros(1, dtype=np.uint64),
        np.array([1, 0, len(script)], dtype=np.int64),
        arr,
        np.zeros(capacity, dtype=np.int64),
        np.zeros((capacity, width)),
        np.ones(1),
    )


@kernel
def next_u64(state: npt.NDArray[np.uint64]) -> np.uint64:
    """splitmix64 (Steele, Lea, Flood 2014): advance ``state[0]`` and return 64 random bits."""
    x = state[0] + np.uint64(0x9E3779B97F4A7C15)
    state[0] = x
    z = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def uniform(state: npt.NDArray[np.uint64]) -> float:
    """A uniform float in [0, 1): the top 53 bits of the next output."""
    return float(next_u64(state) >> np.uint64(11)) * _INV_2_53


@kernel
def uniforms(state: npt.NDArray[np.uint64], n: int) -> Array:
    """``n`` uniforms in [0, 1) from ``state`` (advanced in place); for tests."""
    out = np.empty(n)
    for i in range(n):
        out[i] = uniform(state)
    return out


@kernel
def choose(
    rng: npt.NDArray[np.uint64],
    ctl: npt.NDArray[np.int64],
    script: npt.NDArray[np.int64],
    options: npt.NDArray[np.int64],
    probs: Array,
    prob: Array,
    w2: Array,
    row: int,
    n: int,
) -> int:
    """Index of one of ``w = w2[row, :n]`` (non-negative weights, some positive) drawn with
    probability ∝ its weight: the first whose running sum exceeds u·total, or as scripted
    (the first six arguments are the fields of :class:`Draws`)."""
    total = 0.0
    for i in range(n):
        total += w2[row, i]
    if ctl[0] != 0:
        pos = ctl[1]
        ctl[1] = pos + 1
        c = -1
        for i in range(n):
            if w2[row, i] > 0.0:
                c = i
                break
        if pos < ctl[2]:
            c = script[pos]
        elif pos < script.shape[0]:
            script[pos] = c
        prob[0] *= w2[row, c] / total
        if pos < options.shape[0] and n <= probs.shape[1]:  # else: overflow, see Draws
            options[pos] = n
            for i in range(n):
                probs[pos, i] = w2[row, i] / total
        else:
            ctl[0] = 2
        return c
    x = uniform(rng) * total
    acc = 0.0
    last = -1
    for i in range(n):
        x_i = w2[row, i]
        if x_i > 0.0:
            acc += x_i
            last = i
            if x < acc:
                return i
    return last


@kernel
def bisect(cdf: Array, n: int, x: float) -> int:
    """First index whose cumulative weight exceeds ``x`` (the last positive one if none)."""
    lo = 0
    hi = n
    while lo < hi:
        mid = (lo + hi) // 2
        if cdf[mid] > x:
            hi = mid
        else:
            lo = mid + 1
    i = min(lo, n - 1)
    while i > 0 and cdf[i] == cdf[i - 1]:
        i -= 1
    return i


@kernel
def compatible(cards: npt.NDArray[np.int32], h0: int, h1: int) -> bool:
    """Whether player 0's hand h0 and player 1's hand h1 share no card (``Hands.cards``)."""
    for k in range(cards.shape[2]):
        c = cards[0, h0, k]
        if c >= 0:
            for m in range(cards.shape[2]):
                if cards[1, h1, m] == c:
                    return False
    return True


@kernel
def deal(hands: Hands, table: DealTable, dr: Draws, buf: Array) -> tuple[int, int]:
    """One pair (h0, h1) with probability ∝ w0(h0)·w1(h1) over compatible pairs (``table``),
    drawn from ``dr``; ``buf`` (1, ≥ H) scratch.

    Random draws: h0 by bisection of its marginal's cumulative sums, h1 by rejection from
    player 1's range (exact: accepted draws follow the range restricted to compatible hands),
    after :data:`MAX_REJECT` rejections one exact draw from that restricted range. Scripted
    draws: the same two choices as explicit distributions."""
    m0, cdf0, w1, cdf1 = table
    rng, ctl, script, options, probs, prob = dr
    cards = hands.cards
    n0 = hands.num_hands[0]
    n1 = hands.num_hands[1]
    if ctl[0] != 0:
        for h in range(n0):
            buf[0, h] = m0[h]
        h0 = choose(rng, ctl, script, options, probs, prob, buf, 0, n0)
    else:
        h0 = bisect(cdf0, n0, uniform(rng) * cdf0[n0 - 1])
        for _ in range(MAX_REJECT):
            h1 = bisect(cdf1, n1, uniform(rng) * cdf1[n1 - 1])
            if w1[h1] > 0.0 and compatible(cards, h0, h1):
                return h0, h1
    for j in range(n1):
        buf[0, j] = w1[j] if compatible(cards, h0, j) else 0.0
    return h0, choose(rng, ctl, script, options, probs, prob, buf, 0, n1)


@kernel
def sample_deals(
    hands: Hands, table: DealTable, rng: npt.NDArray[np.uint64], buf: Array, n: int
) -> npt.NDArray[np.int64]:
    """``n`` deals (n, 2) drawn as a pass draws them (``rng`` advanced in place; ``buf`` is
    :attr:`Work.buf`); for tests of the deal's distribution."""
    out = np.empty((n, 2), dtype=np.int64)
    ctl = np.zeros(3, dtype=np.int64)
    script = np.zeros(1, dtype=np.int64)
    options = np.zeros(1, dtype=np.int64)
    dr = Draws(rng, ctl, script, options, np.zeros((1, 1)), np.ones(1))
    for i in range(n):
        h0, h1 = deal(hands, table, dr, buf)
        out[i, 0] = h0
        out[i, 1] = h1
    return out
