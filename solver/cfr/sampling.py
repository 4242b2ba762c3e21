"""Monte Carlo CFR: external sampling, outcome sampling and discounted MCCFR in one scalar walk.

The vector engine (:mod:`solver.cfr.kernels`) walks the public tree with one entry per private
hand. Sampled CFR (Lanctot, Waugh, Zinkevich, Bowling 2009, "Monte Carlo Sampling for Regret
Minimization in Extensive Games", NIPS) instead walks the same tree for ONE dealt pair of hands
``(h0, h1)`` and samples what the traverser does not control. A pass for traverser ``i``:

1. **deal**: draws ``(h0, h1)`` with probability ``norm · w0(h0) · w1(h1)`` (range weights) over
   the pairs sharing no card with each other or with the initial board;
2. **chance**: at a chance node draws one card uniformly among the cards compatible with both
   hands and the board (``chance_weight`` each), suit-isomorphic images included: drawing an
   image walks on in the canonical child with both hands mapped through ``Hands.perm``;
3. at **decision nodes** it follows the algorithm (``mode``):

   * external sampling (``mccfr-es``): the traverser tries every action, the opponent samples
     one from its current strategy σ (regret matching of its regrets, uniform when none is
     positive). At the traverser's node ``R(I, a) += v(a) − v(I)`` with ``v(I) = Σ_a σ(a) v(a)``
     (``v`` the sampled per-deal payoffs in chips); at the opponent's node its strategy sums get
     ``S(I, a) += σ(a)``: the "simple" average of Lanctot 2009 and OpenSpiel's
     ``external_sampling_mccfr`` (no reach weighting; unbiased because the opponent reaches
     ``I`` with the probability of its own strategy);
   * outcome sampling (``mccfr-os``): one trajectory. The traverser samples from
     ``q = ε·uniform + (1 − ε)·σ`` and the opponent from σ; with ``π_i``, ``π_o``, ``s`` the
     traverser's, the opponent's and the sampling reach of the node (products of σ and q along
     the path, chance left out), ``u`` the tail estimate returned by the child of the sampled
     action ``a*`` and ``c(a) = u / q(a*)`` for ``a = a*``, 0 otherwise,
     ``v̂ = Σ_a σ(a) c(a)``; then ``R(I, a) += (c(a) − v̂) · π_o / s`` and
     ``S(I, a) += π_i · σ(a) / s`` at the traverser's nodes, and ``v̂`` is returned
     (OpenSpiel's ``outcome_sampling_mccfr``, baseline 0);
   * discounted MCCFR (``dmccfr``, Brown & Sandholm 2019, "Solving Imperfect-Information Games
     via Discounted Regret Minimization", AAAI, section "Discounted Monte Carlo CFR"): external
     sampling, with the run cut into periods of ``period`` nodes touched; when period ``t``
     ends every accumulated regret and strategy sum (both players) is multiplied by
     ``t / (t + 1)``. Periods are checked at iteration ends: an iteration that finishes
     periods ``t … t + k − 1`` applies all ``k`` factors.

An iteration is a pass with traverser 0 then one with traverser 1 (alternating updates).
"Nodes touched" counts every node a pass enters, chance nodes and terminals included.

**Scale.** The vector engine's counterfactual values carry the chance of the deal
(``norm · w_opp``); sampled values are per deal. Expected increments of one pass relate to the
full-width CFR pass of the same state (``tests/test_sampling.py`` checks both to 1e-12): for an
infoset ``I = (node, h)`` of player ``p``

* regrets (traverser ``p``, ES and OS): ``E[ΔR(I, a)] = w_p(h) · m(node) · ΔR_cfr(I, a)``;
* sums (ES: opponent ``p``; OS: traverser ``p``): ``E[ΔS(I, a)] = M_p(node, h) · m(node) ·
  ΔS_cfr(I, a)`` where ``ΔS_cfr`` is what the CFR pass of the other player adds and
  ``M_p(node, h) = Σ w_{1−p}(k)`` over the other player's hands ``k`` compatible with ``h``
  and the node's board (OS: only those ``k`` whose own strategy reaches the node — a
  trajectory never passes an opponent action of probability 0, as in OpenSpiel);

``m(node)`` is the node's suit-isomorphism multiplicity (:attr:`Game.multiplicity`): a canonical
subtree receives the samples of every card it stands for (exact when the state above the
chance node is suit-symmetric, as CFR keeps it from a symmetric start). The factors are
constant per infoset (OS sums: while the opponent's support is), so regret matching and
the normalised average are those of CFR in expectation. Deviation from OpenSpiel's outcome
sampling: chance (the deal and the cards) is left out of the sampling reach ``s`` of the
average-strategy increment, as it cancels out of the regret weight ``π_o / s``. OpenSpiel
divides by it, which counts an infoset's histories instead of weighing them by their
chance: also a constant per infoset, but not the CFR relation above.

**Suit isomorphism: the samplers solve the full game.** Sampled strategies above an iso
chance node are not exactly suit-symmetric (sampling noise), so a canonical infoset below it
would tie two real infosets reached with different probabilities — an imperfect-recall
abstraction — and the vector engine's mirrored evaluation (exact only for symmetric
strategies) would report values of a different game: on Leduc, external sampling's EVs
summed to 0.07 instead of 0, and it stalled at 0.07–0.09 chips exploitability at 1M
iterations against 0.02 on the full tree (as OpenSpiel's C++ external sampling).
:class:`SampledEngine` therefore builds the game again with every card dealt
(:meth:`Game.without_isomorphism`; a game that cannot be rebuilt is refused). The walk
below still handles iso children as described (tested with ``full_game=False``).

Randomness comes from a splitmix64 generator whose 64-bit state lives in the engine's storage,
so a run is reproducible from its seed whichever thread calls the kernel (Numba's own
``np.random`` state is per thread). For tests the draws can instead be *scripted* (see
:class:`Draws`): each choice is taken from a list, and the options and their probabilities are
recorded, so every sample outcome of a pass can be enumerated exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.cfr.engine import best_response_values, make_scratch
from solver.cfr.kernels import NOISE, normalize_strategy, regret_matching_all
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN, Boards, Game, Hands, Tree
from solver.jit import inline_kernel, kernel

Array = npt.NDArray[np.float64]

MODE_ES = 0  # external sampling (also discounted MCCFR)
MODE_OS = 1  # outcome sampling

MAX_REJECT = 64  # deal: rejection draws of the second hand before an exact linear draw

_INV_2_53 = 1.0 / 9007199254740992.0


# ----- the registry -------------------------------------------------------------------------
@dataclass(frozen=True)
class SamplerInfo:
    """A sampled algorithm: its parameters with defaults, a one-line description, the paper."""

    name: str
    mode: int
    defaults: dict[str, float]
    description: str
    paper: str


SAMPLERS: dict[str, SamplerInfo] = {
    "mccfr-es": SamplerInfo(
        "mccfr-es",
        MODE_ES,
        {},
        "External-sampling MCCFR: sample the deal, chance and the opponent's actions; "
        "try every traverser action.",
        "Lanctot, Waugh, Zinkevich, Bowling 2009 (NIPS)",
    ),
    "mccfr-os": SamplerInfo(
        "mccfr-os",
        MODE_OS,
        {"epsilon": 0.6},
        "Outcome-sampling MCCFR: one trajectory per pass, the traverser exploring "
        "ε-uniformly; importance-weighted updates.",
        "Lanctot, Waugh, Zinkevich, Bowling 2009 (NIPS)",
    ),
    "dmccfr": SamplerInfo(
        "dmccfr",
        MODE_ES,
        {"period": 0.0},
        "Discounted MCCFR: external sampling; after period t of nodes touched, all regrets "
        "and strategy sums × t/(t+1) (period 0 = the tree's node count).",
        "Brown & Sandholm 2019 (AAAI)",
    ),
}


@dataclass(frozen=True)
class SamplingRule:
    """The algorithm of a :class:`SampledEngine`, shaped like :class:`~solver.cfr.rules.Rule`
    for the code that reports one (``name``, ``params()``, ``label()``).

    ``epsilon``: exploration of outcome sampling, in (0, 1]. ``period``: nodes touched per
    discounting period of ``dmccfr`` (≥ 0; 0 = the number of nodes of the game's tree).
    Parameters that the algorithm does not use keep their defaults and are not reported."""

    name: str
    epsilon: float = 0.6
    period: float = 0.0

    def __post_init__(self) -> None:
        if self.name not in SAMPLERS:
            raise ValueError(
                f"unknown sampled algorithm {self.name!r}; known: {', '.join(SAMPLERS)}"
            )
        if not (0.0 < self.epsilon <= 1.0):
            raise ValueError(f"epsilon must be in (0, 1], got {self.epsilon!r}")
        if not (self.period >= 0.0) or not np.isfinite(self.period):
            raise ValueError(f"period must be a number ≥ 0 (nodes touched), got {self.period!r}")

    @property
    def info(self) -> SamplerInfo:
        return SAMPLERS[self.name]

    @property
    def description(self) -> str:
        return self.info.description

    @property
    def paper(self) -> str:
        return self.info.paper

    def params(self) -> dict[str, float]:
        return {k: float(getattr(self, k)) for k in self.info.defaults}

    def label(self) -> str:
        ps = ", ".join(f"{k}={v:g}" for k, v in self.params().items())
        return f"{self.name}({ps})" if ps else self.name


def make_sampler(name: str, **params: float) -> SamplingRule:
    """The sampled algorithm ``name`` with ``params`` overriding its defaults (ValueError for an
    unknown name or parameter, or a value out of range)."""
    key = name.lower()
    if key not in SAMPLERS:
        raise ValueError(f"unknown sampled algorithm {name!r}; known: {', '.join(SAMPLERS)}")
    allowed = SAMPLERS[key].defaults
    values: dict[str, float] = {}
    for p, v in params.items():
        if p not in allowed:
            opts = ", ".join(sorted(allowed)) or "none"
            raise ValueError(f"algorithm {key!r} has no parameter {p!r} (parameters: {opts})")
        if isinstance(v, bool) or not isinstance(v, (int, float)) or np.isnan(v):
            raise ValueError(f"parameter {p!r} must be a number, got {v!r}")
        values[p] = float(v)
    return SamplingRule(key, **values)


# ----- kernel data --------------------------------------------------------------------------
class SampledStorage(NamedTuple):
    """Everything a sampled solve carries between iterations (``A`` = action size).

    ``regrets`` and ``cumulative`` use the ``[action, hand]`` blocks of
    :mod:`solver.games.model`; regrets are per-deal chips (see the module's "Scale")."""

    regrets: Array  # (A,) accumulated sampled regrets R
    cumulative: Array  # (A,) average-strategy sums S
    rng: npt.NDArray[np.uint64]  # (1,) splitmix64 state
    period: Array  # (2,) dmccfr: [nodes touched in the current period, its index t (1-based)]


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


class Work(NamedTuple):
    """Scratch of the walk (``D`` = tree depth + 2, ``A`` = most actions)."""

    sig: Array  # (D, A) current strategy at the node of each depth
    q: Array  # (D, A) outcome sampling: the traverser's sampling distribution
    av: Array  # (D, A) external sampling: the traverser's action values
    buf: Array  # (1, max(C + chance images, H)) weights of one choice
    touched: npt.NDArray[np.int64]  # (1,) nodes entered
    node: npt.NDArray[np.int64]  # (D,) node at each depth of the walk
    hand: npt.NDArray[np.int64]  # (D, 2) the two hands at that node, in its frame
    k: npt.NDArray[np.int64]  # (D,) action being walked (ES traverser) or sampled
    reach: Array  # (D, 3) outcome sampling: traverser, opponent and sampling reach
    value: Array  # (2,) sampled root value of the last pass of each traverser (chips)


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


def max_chance_cards(game: Game) -> int:
    """The most cards one chance node of ``game`` deals (canonical children and images)."""
    t = game.tree
    most = 0
    for n in np.flatnonzero(t.kind == CHANCE):
        kids = game.children(int(n))
        most = max(most, len(kids) + int(t.iso_count[kids.start : kids.stop].sum()))
    return most


def make_work(game: Game) -> Work:
    """Scratch for one walk over ``game``."""
    depth = game.max_depth + 2
    a = max(game.max_actions, 1)
    width = max(max_chance_cards(game), int(game.hands.cards.shape[1]), 1)
    return Work(
        np.zeros((depth, a)),
        np.zeros((depth, a)),
        np.zeros((depth, a)),
        np.zeros((1, width)),
        np.zeros(1, dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
        np.zeros((depth, 2), dtype=np.int64),
        np.zeros(depth, dtype=np.int64),
        np.ones((depth, 3)),
        np.zeros(2),
    )


# ----- kernels ------------------------------------------------------------------------------
@inline_kernel
def _next_u64(state: npt.NDArray[np.uint64]) -> np.uint64:
    """splitmix64 (Steele, Lea, Flood 2014): advance ``state[0]`` and return 64 random bits."""
    x = state[0] + np.uint64(0x9E3779B97F4A7C15)
    state[0] = x
    z = (x ^ (x >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@inline_kernel
def _uniform(state: npt.NDArray[np.uint64]) -> float:
    """A uniform float in [0, 1): the top 53 bits of the next output."""
    return float(_next_u64(state) >> np.uint64(11)) * _INV_2_53


@kernel
def uniforms(state: npt.NDArray[np.uint64], n: int) -> Array:
    """``n`` uniforms in [0, 1) from ``state`` (advanced in place); for tests."""
    out = np.empty(n)
    for i in range(n):
        out[i] = _uniform(state)
    return out


@inline_kernel
def _choose(
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
    x = _uniform(rng) * total
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


@inline_kernel
def _bisect(cdf: Array, n: int, x: float) -> int:
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


@inline_kernel
def _compatible(cards: npt.NDArray[np.int32], h0: int, h1: int) -> bool:
    """Whether player 0's hand h0 and player 1's hand h1 share no card (``Hands.cards``)."""
    for k in range(cards.shape[2]):
        c = cards[0, h0, k]
        if c >= 0:
            for m in range(cards.shape[2]):
                if cards[1, h1, m] == c:
                    return False
    return True


@inline_kernel
def _deal(
    num_hands: npt.NDArray[np.int64],
    cards: npt.NDArray[np.int32],
    m0: Array,
    cdf0: Array,
    w1: Array,
    cdf1: Array,
    rng: npt.NDArray[np.uint64],
    ctl: npt.NDArray[np.int64],
    script: npt.NDArray[np.int64],
    options: npt.NDArray[np.int64],
    probs: Array,
    prob: Array,
    buf: Array,
) -> tuple[int, int]:
    """One pair (h0, h1) with probability ∝ w0(h0)·w1(h1) over compatible pairs
    (``m0``, ``cdf0``, ``w1``, ``cdf1``: a :class:`DealTable`; then the fields of
    :class:`Draws`).

    Random draws: h0 by bisection of its marginal's cumulative sums, h1 by rejection from
    player 1's range (exact: accepted draws follow the range restricted to compatible hands),
    after :data:`MAX_REJECT` rejections one exact draw from that restricted range. Scripted
    draws: the same two choices as explicit distributions."""
    n0 = num_hands[0]
    n1 = num_hands[1]
    if ctl[0] != 0:
        for h in range(n0):
            buf[0, h] = m0[h]
        h0 = _choose(rng, ctl, script, options, probs, prob, buf, 0, n0)
    else:
        h0 = _bisect(cdf0, n0, _uniform(rng) * cdf0[n0 - 1])
        for _ in range(MAX_REJECT):
            h1 = _bisect(cdf1, n1, _uniform(rng) * cdf1[n1 - 1])
            if w1[h1] > 0.0 and _compatible(cards, h0, h1):
                return h0, h1
    for j in range(n1):
        buf[0, j] = w1[j] if _compatible(cards, h0, j) else 0.0
    return h0, _choose(rng, ctl, script, options, probs, prob, buf, 0, n1)


@inline_kernel
def _current_strategy(R: Array, off: int, na: int, nh: int, h: int, out: Array, d: int) -> None:
    """out[d, :na] = regret matching of hand h's regrets at the block ``off``: positive parts
    normalised, uniform when none is positive (as the vector engine)."""
    tot = 0.0
    for a in range(na):
        r = R[off + a * nh + h] * 1.0
        if r > 0.0:
            tot += r
    for a in range(na):
        r = R[off + a * nh + h] * 1.0
        out[d, a] = (r / tot if r > 0.0 else 0.0) if tot > 0.0 else 1.0 / na


@inline_kernel
def _push(
    stack: npt.NDArray[np.int64],
    hand: npt.NDArray[np.int64],
    reach: Array,
    d: int,
    child: int,
    h0: int,
    h1: int,
    mine: float,
    opp: float,
    samp: float,
) -> None:
    """Put ``child`` at depth ``d`` of the walk's stack (``Work.node``, ``.hand``, ``.reach``),
    to be entered next."""
    stack[d] = child
    hand[d, 0] = h0
    hand[d, 1] = h1
    reach[d, 0] = mine
    reach[d, 1] = opp
    reach[d, 2] = samp


@kernel
def run_sampled(
    tree: Tree,
    hands: Hands,
    boards: Boards,
    st: SampledStorage,
    table: DealTable,
    dr: Draws,
    wk: Work,
    mode: int,
    eps: float,
    period: float,
    iterations: int,
    only: int,
) -> int:
    """Run ``iterations`` iterations — a pass for traverser 0, then one for traverser 1, or
    with ``only`` = 0 or 1 just that traverser's pass — updating ``st`` in place; with
    ``period`` > 0 discount as discounted MCCFR after every iteration that completes a
    period. ``mode``: ``MODE_ES`` or ``MODE_OS``; ``eps``: outcome sampling's exploration.
    Returns the nodes touched; ``wk.value[trav]`` holds each pass's sampled root value.

    A pass deals (h0, h1), then walks depth first with an explicit stack (``wk``; recursion
    does not survive Numba's cache): row ``d`` holds the node at depth ``d``, its hands in the
    node's frame, and outcome sampling's traverser, opponent and sampling reach of it (1 for
    external sampling). Every array is read out of its NamedTuple once per call, here: each
    field read costs a reference-count update, and per pass those measured more than a small
    game's whole pass (so the walk is not a function taking the NamedTuples)."""
    kind_ = tree.kind
    player_ = tree.player
    first_ = tree.first_child
    nchild_ = tree.num_children
    offset_ = tree.offset
    payoff_ = tree.payoff
    board_ = tree.board
    cweight_ = tree.chance_weight
    iso_start = tree.iso_start
    iso_count = tree.iso_count
    iso_board = tree.iso_board
    iso_perm = tree.iso_perm
    runout_ = tree.runout
    num_hands = hands.num_hands
    cards = hands.cards
    perm = hands.perm
    valid = boards.valid
    rank = boards.rank
    runout_eq = boards.runout_eq
    R = st.regrets
    S = st.cumulative
    per = st.period
    m0, cdf0, w1, cdf1 = table
    rng, ctl, script, options, probs, prob = dr
    sig = wk.sig
    q = wk.q
    av = wk.av
    buf = wk.buf
    stack = wk.node
    hand = wk.hand
    kk = wk.k
    reach = wk.reach
    value = wk.value
    touched = 0
    for _ in range(iterations):
        start = touched
        for trav in range(2):
            if only >= 0 and trav != only:
                continue
            h0, h1 = _deal(
                num_hands, cards, m0, cdf0, w1, cdf1, rng, ctl, script, options, probs, prob, buf
            )
            _push(stack, hand, reach, 0, 0, h0, h1, 1.0, 1.0, 1.0)
            d = 0
            enter = True
            ret = 0.0
            val = 0.0
            while True:
                node = stack[d]
                kind = kind_[node]
                first = first_[node]
                nc = nchild_[node]
                a0 = hand[d, 0]
                a1 = hand[d, 1]
                if enter:
                    touched += 1
                    if kind == CHANCE:
                        # every card compatible with both hands: canonical children, images
                        n = 0
                        for k in range(nc):
                            child = first + k
                            cb = board_[child]
                            w = cweight_[child]
                            ok = valid[cb, 0, a0] > 0.0 and valid[cb, 1, a1] > 0.0
                            buf[0, n] = w if ok else 0.0
                            n += 1
                            for e in range(iso_start[child], iso_start[child] + iso_count[child]):
                                ib = iso_board[e]
                                ok = valid[ib, 0, a0] > 0.0 and valid[ib, 1, a1] > 0.0
                                buf[0, n] = w if ok else 0.0
                                n += 1
                        c = _choose(rng, ctl, script, options, probs, prob, buf, 0, n)
                        i = 0
                        for k in range(nc):
                            child = first + k
                            if i == c:
                                _push(stack, hand, reach, d + 1, child, a0, a1,
                                      reach[d, 0], reach[d, 1], reach[d, 2])  # fmt: skip
                            i += 1
                            for e in range(iso_start[child], iso_start[child] + iso_count[child]):
                                if i == c:
                                    row = iso_perm[e]
                                    _push(stack, hand, reach, d + 1, child, perm[row, 0, a0],
                                          perm[row, 1, a1], reach[d, 0], reach[d, 1],
                                          reach[d, 2])  # fmt: skip
                                i += 1
                        d += 1
                        continue
                    if kind == DECISION:
                        p = player_[node]
                        hp = a0 if p == 0 else a1
                        nh = num_hands[p]
                        off = offset_[node]
                        _current_strategy(R, off, nc, nh, hp, sig, d)
                        mine = reach[d, 0]
                        opp = reach[d, 1]
                        samp = reach[d, 2]
                        if mode == MODE_ES and p == trav:
                            kk[d] = 0
                            _push(stack, hand, reach, d + 1, first, a0, a1, mine, opp, samp)
                        elif p != trav:
                            if mode == MODE_ES:
                                for a in range(nc):
                                    S[off + a * nh + hp] += sig[d, a]
                            a = _choose(rng, ctl, script, options, probs, prob, sig, d, nc)
                            kk[d] = a
                            s_a = sig[d, a]
                            _push(stack, hand, reach, d + 1, first + a, a0, a1, mine,
                                  opp * s_a, samp * s_a)  # fmt: skip
                        else:
                            for a in range(nc):
                                q[d, a] = eps / nc + (1.0 - eps) * sig[d, a]
                            a = _choose(rng, ctl, script, options, probs, prob, q, d, nc)
                            kk[d] = a
                            _push(stack, hand, reach, d + 1, first + a, a0, a1,
                                  mine * sig[d, a], opp, samp * q[d, a])  # fmt: skip
                        d += 1
                        continue
                    # terminal
                    ht = a0 if trav == 0 else a1
                    ho = a1 if trav == 0 else a0
                    if kind == FIXED:
                        val = payoff_[node] if trav == 0 else -payoff_[node]
                    elif kind == SHOWDOWN:
                        b = board_[node]
                        rt = rank[b, trav, ht]
                        ro = rank[b, 1 - trav, ho]
                        x = payoff_[node]
                        val = x if rt > ro else (-x if rt < ro else 0.0)
                    elif kind == RUNOUT:
                        val = payoff_[node] * runout_eq[runout_[node], trav, ht, ho]
                    else:
                        val = 0.0
                elif kind == CHANCE:
                    val = ret
                else:
                    # a decision node whose child just returned ``ret``
                    p = player_[node]
                    if p != trav:
                        val = ret
                    else:
                        hp = a0 if p == 0 else a1
                        nh = num_hands[p]
                        off = offset_[node]
                        if mode == MODE_ES:
                            k = kk[d]
                            av[d, k] = ret
                            if k + 1 < nc:
                                kk[d] = k + 1
                                _push(stack, hand, reach, d + 1, first + k + 1, a0, a1,
                                      reach[d, 0], reach[d, 1], reach[d, 2])  # fmt: skip
                                d += 1
                                enter = True
                                continue
                            val = 0.0
                            for a in range(nc):
                                val += sig[d, a] * av[d, a]
                            for a in range(nc):
                                r = av[d, a] - val
                                if abs(r) <= NOISE * (abs(av[d, a]) + abs(val)):
                                    r = 0.0
                                R[off + a * nh + hp] += r
                        else:
                            mine = reach[d, 0]
                            opp = reach[d, 1]
                            samp = reach[d, 2]
                            a = kk[d]
                            ca = ret / q[d, a]
                            val = sig[d, a] * ca
                            w = opp / samp
                            for b in range(nc):
                                cv = ca if b == a else 0.0
                                R[off + b * nh + hp] += (cv - val) * w
                                S[off + b * nh + hp] += mine * sig[d, b] / samp
                # the node at depth d is finished with value ``val``
                if d == 0:
                    break
                ret = val
                enter = False
                d -= 1
            value[trav] = val
        if period > 0.0:
            per[0] += touched - start
            while per[0] >= period:
                t = per[1]
                f = t / (t + 1.0)
                for i in range(R.shape[0]):
                    R[i] = R[i] * f
                    S[i] = S[i] * f
                per[0] -= period
                per[1] = t + 1.0
    wk.touched[0] += touched
    return touched


# ----- the engine ---------------------------------------------------------------------------
class SampledEngine:
    """A sampled-CFR solve (``mccfr-es``, ``mccfr-os``, ``dmccfr``) with the interface of
    :class:`~solver.cfr.engine.Engine` that races, jobs and the API use.

    ``params`` override the algorithm's defaults (:data:`SAMPLERS`); ``seed`` (an integer
    ≥ 0) fixes every draw, so equal seeds repeat a run exactly. ``precision``: "float64",
    "float32" (storage only, the walk computes in float64) or "auto" (float32 for hold'em
    subgames, float64 for the toy games). The walk is serial: ``threads`` is 1.
    ``full_game``: solve ``game`` with every card dealt (:meth:`Game.without_isomorphism`;
    ``self.game`` is that game). False keeps its suit isomorphism — only for testing the
    walk's mirrored children: the strategies are then an imperfect-recall abstraction that
    the vector engine evaluates as another game."""

    threads = 1

    def __init__(
        self,
        game: Game,
        name: str,
        params: dict[str, float] | None = None,
        seed: int = 0,
        precision: str = "auto",
        full_game: bool = True,
    ) -> None:
        self.rule = make_sampler(name, **(params or {}))
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)):
            raise ValueError(f"seed must be an integer ≥ 0, got {seed!r}")
        if not 0 <= int(seed) < 2**64:
            raise ValueError(f"seed must be an integer in [0, 2**64), got {seed!r}")
        if precision == "auto":
            precision = "float32" if game.is_holdem else "float64"
        if precision not in ("float32", "float64"):
            raise ValueError(
                f"precision must be 'auto', 'float32' or 'float64' for sampled CFR, "
                f"got {precision!r}"
            )
        # every card dealt: a sampled strategy is not suit-symmetric, and the iso tree's
        # mirrored children would evaluate (and train) it as the wrong game (module docstring)
        if full_game:
            game = game.without_isomorphism()
        self.game = game
        self.seed = int(seed)
        self.precision = precision
        dtype = np.float64 if precision == "float64" else np.float32
        size = game.action_size
        self.storage = SampledStorage(
            regrets=np.zeros(size, dtype=dtype),
            cumulative=np.zeros(size, dtype=dtype),
            rng=np.array([self.seed], dtype=np.uint64),
            period=np.array([0.0, 1.0]),
        )
        self.table = deal_table(game)
        self.work = make_work(game)
        self._eval_scratch = make_scratch(game)
        self.iteration = 0
        self.nodes_touched = 0

    @property
    def mode(self) -> int:
        return self.rule.info.mode

    @property
    def period_nodes(self) -> float:
        """Nodes touched per discounting period (0: no discounting)."""
        if self.rule.name != "dmccfr":
            return 0.0
        return float(self.rule.period) if self.rule.period > 0 else float(self.game.num_nodes)

    def iterate(self, n: int = 1) -> int:
        """Run ``n`` iterations; returns the nodes they touched."""
        if n < 0:
            raise ValueError("iterations must be ≥ 0")
        if n == 0:
            return 0
        g = self.game
        touched = int(
            run_sampled(
                g.tree, g.hands, g.boards, self.storage, self.table,
                random_draws(self.storage.rng), self.work, self.mode,
                float(self.rule.epsilon), self.period_nodes, int(n), -1,
            )
        )  # fmt: skip
        self.iteration += n
        self.nodes_touched += touched
        return touched

    @property
    def memory_bytes(self) -> int:
        return int(sum(a.nbytes for a in self.storage))

    def average_strategy(self) -> Array:
        """Average strategy σ̄ (action_size,): sums normalised per infoset, uniform if zero."""
        out = np.empty(self.game.action_size)
        normalize_strategy(
            self.game.tree, self.game.hands, self.storage.cumulative.astype(np.float64), out
        )
        return out

    def current_strategy(self) -> Array:
        """Current strategy σ (action_size,): regret matching of the sampled regrets."""
        out = np.empty(self.game.action_size)
        regret_matching_all(
            self.game.tree, self.game.hands, self.storage.regrets.astype(np.float64), out
        )
        return out

    def best_response_values(self) -> tuple[float, float]:
        """(BR₀, BR₁) in chips against the average strategy (exact, full-width walks)."""
        return best_response_values(self.game, self.average_strategy(), self._eval_scratch)


def sampled_pass(
    game: Game,
    storage: SampledStorage,
    trav: int,
    name: str,
    draws: Draws,
    epsilon: float = 0.6,
    work: Work | None = None,
    table: DealTable | None = None,
) -> int:
    """One pass of the sampled algorithm ``name`` for traverser ``trav`` with ``draws``
    (random or scripted), updating ``storage`` in place; returns the nodes touched. For tests
    and analysis: :meth:`SampledEngine.iterate` runs whole iterations. ``work.value[trav]``
    (pass ``work`` to read it) holds the pass's sampled root value."""
    if trav not in (0, 1):
        raise ValueError(f"trav must be 0 or 1, got {trav!r}")
    rule = make_sampler(name, **({"epsilon": epsilon} if name == "mccfr-os" else {}))
    wk = work if work is not None else make_work(game)
    tab = table if table is not None else deal_table(game)
    g = game
    touched = int(
        run_sampled(
            g.tree, g.hands, g.boards, storage, tab, draws, wk, rule.info.mode,
            float(rule.epsilon), 0.0, 1, int(trav),
        )
    )  # fmt: skip
    if draws.ctl[0] == 2:
        raise ValueError("scripted draws: more choices or options than the Draws can record")
    return touched


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
    probs = np.zeros((1, 1))
    prob = np.ones(1)
    m0, cdf0, w1, cdf1 = table
    for i in range(n):
        h0, h1 = _deal(
            hands.num_hands, hands.cards, m0, cdf0, w1, cdf1, rng, ctl, script, options, probs,
            prob, buf,
        )  # fmt: skip
        out[i, 0] = h0
        out[i, 1] = h1
    return out
