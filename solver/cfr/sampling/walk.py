"""The scalar walk of sampled CFR: one dealt pair of hands per pass, chance and (external
sampling) the opponent's actions sampled, the traverser's actions tried (external sampling)
or sampled with exploration (outcome sampling). It shares the vector engine's regret step,
regret matching and terminal payoffs; the notes on scale and suit isomorphism are in
:mod:`solver.cfr.sampling`."""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.cfr.borrow import borrow
from solver.cfr.layout import GameArrays
from solver.cfr.sampling.draws import DealTable, Draws, choose, deal
from solver.cfr.sampling.rules import MODE_ES
from solver.cfr.terminal import fixed_payoff, showdown_payoff
from solver.cfr.update import next_regret, regret, regret_matching
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN, Game
from solver.jit import kernel

Array = npt.NDArray[np.float64]


class SampledStorage(NamedTuple):
    """Everything a sampled solve carries between iterations (``A`` = action size).

    ``regrets`` and ``cumulative`` use the ``[action, hand]`` blocks of
    :mod:`solver.games.model`; regrets are per-deal chips (see the module's "Scale")."""

    regrets: Array  # (A,) accumulated sampled regrets R
    cumulative: Array  # (A,) average-strategy sums S
    rng: npt.NDArray[np.uint64]  # (1,) splitmix64 state
    period: Array  # (2,) dmccfr: [nodes touched in the current period, its index t (1-based)]


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
    tot: Array  # (2, H) regret matching's per-hand sums


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
        np.zeros((2, int(max(game.hands.cards.shape[1], 1)))),
    )


@kernel
def push(
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
def _discount_due(
    R: Array, S: Array, per: Array, period: float, disc: Array, t0: int
) -> bool:  # fmt: skip
    """Discounted MCCFR: for every period completed (``per`` = [nodes touched in the current
    period, its index t]) multiply the regrets and sums by ``disc[t − t0]`` while the table
    lasts. False when a completed period is left that the table does not cover."""
    while per[0] >= period:
        m = int(per[1]) - t0
        if m >= disc.shape[0]:
            return False
        fr = disc[m, 0]
        fs = disc[m, 1]
        for i in range(R.shape[0]):
            R[i] = R[i] * fr
            S[i] = S[i] * fs
        per[0] -= period
        per[1] += 1.0
    return True


class Discount(NamedTuple):
    """Discounted MCCFR's schedule as :func:`run_sampled` takes it: a period ends every
    ``period`` nodes touched (0: no discounting); ``factors`` (M, 2) the regrets' and the
    sums' factors of periods ``t0``, ``t0 + 1``, …"""

    period: float
    factors: Array
    t0: int


@kernel
def run_sampled(
    game: GameArrays,
    st: SampledStorage,
    table: DealTable,
    dr: Draws,
    wk: Work,
    mode: int,
    eps: float,
    discount: Discount,
    iterations: int,
    only: int,
    done: npt.NDArray[np.int64],
) -> int:
    """Run up to ``iterations`` iterations — a pass for traverser 0, then one for traverser
    1, or with ``only`` = 0 or 1 just that traverser's pass — updating ``st`` in place.
    ``mode``: ``MODE_ES`` or ``MODE_OS``; ``eps``: outcome sampling's exploration. Returns
    the nodes touched; ``done[0]`` the iterations run; ``wk.value[trav]`` holds each pass's
    sampled root value.

    With ``discount.period`` > 0, discounted MCCFR: every ``period`` nodes touched a period
    ends, and at the end of the iteration that completes it the regrets and sums are
    multiplied by the rule's factors for it, ``factors[t − t0]`` for period ``t`` (the
    schedule :meth:`SamplingRule.discount`, tabulated by the caller from period ``t0`` on). When the
    table runs out the call stops after that iteration, the periods still due pending
    (``st.period``); the next call applies them first.

    A pass deals (h0, h1), then walks depth first with an explicit stack (``wk``; recursion
    does not survive Numba's cache): row ``d`` holds the node at depth ``d``, its hands in the
    node's frame, and outcome sampling's traverser, opponent and sampling reach of it (1 for
    external sampling). Every array is read out of its NamedTuple once per call, here: each
    field read costs a reference-count update, and per pass those measured more than a small
    game's whole pass (so the walk is not a function taking the NamedTuples)."""
    tree, hands, boards = game.tree, game.hands, game.boards
    period, disc, t0 = discount
    # borrowed (solver.cfr.borrow): the deal reads them once a pass without reference counts
    hands, table, dr = borrow((hands, table, dr))
    kind_ = tree.kind
    player_ = tree.player
    first_ = tree.first_child
    nchild_ = tree.num_children
    offset_ = tree.offset
    payoff_ = tree.payoff
    rake_ = tree.rake
    board_ = tree.board
    cweight_ = tree.chance_weight
    iso_start = tree.iso_start
    iso_count = tree.iso_count
    iso_board = tree.iso_board
    iso_perm = tree.iso_perm
    runout_ = tree.runout
    num_hands = hands.num_hands
    perm = hands.perm
    valid = boards.valid
    rank = boards.rank
    runout_eq = boards.runout_eq
    R = st.regrets
    S = st.cumulative
    per = st.period
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
    tot = wk.tot
    touched = 0
    nop = np.zeros(1, dtype=np.int8)  # no pruned cells
    done[0] = 0
    if period > 0.0 and not _discount_due(R, S, per, period, disc, t0):
        return touched
    for it in range(iterations):
        start = touched
        for trav in range(2):
            if only >= 0 and trav != only:
                continue
            h0, h1 = deal(hands, table, dr, buf)
            push(stack, hand, reach, 0, 0, h0, h1, 1.0, 1.0, 1.0)
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
                        c = choose(rng, ctl, script, options, probs, prob, buf, 0, n)
                        i = 0
                        for k in range(nc):
                            child = first + k
                            if i == c:
                                push(stack, hand, reach, d + 1, child, a0, a1,
                                      reach[d, 0], reach[d, 1], reach[d, 2])  # fmt: skip
                            i += 1
                            for e in range(iso_start[child], iso_start[child] + iso_count[child]):
                                if i == c:
                                    row = iso_perm[e]
                                    push(stack, hand, reach, d + 1, child, perm[row, 0, a0],
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
                        regret_matching(R, off, nc, nh, hp, hp + 1, nop, False, sig, d, 0, tot)
                        mine = reach[d, 0]
                        opp = reach[d, 1]
                        samp = reach[d, 2]
                        if mode == MODE_ES and p == trav:
                            kk[d] = 0
                            push(stack, hand, reach, d + 1, first, a0, a1, mine, opp, samp)
                        elif p != trav:
                            if mode == MODE_ES:
                                for a in range(nc):
                                    S[off + a * nh + hp] += sig[d, a]
                            a = choose(rng, ctl, script, options, probs, prob, sig, d, nc)
                            kk[d] = a
                            s_a = sig[d, a]
                            push(stack, hand, reach, d + 1, first + a, a0, a1, mine,
                                  opp * s_a, samp * s_a)  # fmt: skip
                        else:
                            for a in range(nc):
                                q[d, a] = eps / nc + (1.0 - eps) * sig[d, a]
                            a = choose(rng, ctl, script, options, probs, prob, q, d, nc)
                            kk[d] = a
                            push(stack, hand, reach, d + 1, first + a, a0, a1,
                                  mine * sig[d, a], opp, samp * q[d, a])  # fmt: skip
                        d += 1
                        continue
                    # terminal
                    ht = a0 if trav == 0 else a1
                    ho = a1 if trav == 0 else a0
                    if kind == FIXED:
                        val = fixed_payoff(payoff_[node], rake_[node], trav)
                    elif kind == SHOWDOWN:
                        b = board_[node]
                        rt = rank[b, trav, ht]
                        val = showdown_payoff(payoff_[node], rake_[node], rt,
                                              rank[b, 1 - trav, ho])  # fmt: skip
                    elif kind == RUNOUT:  # (A − r/2)·E[sign] − r/2: win A − r, lose −A, tie −r/2
                        val = payoff_[node] * runout_eq[runout_[node], trav, ht, ho]
                        rk = rake_[node]
                        if rk != 0.0:
                            val = (payoff_[node] - 0.5 * rk) * runout_eq[
                                runout_[node], trav, ht, ho] - 0.5 * rk  # fmt: skip
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
                                push(stack, hand, reach, d + 1, first + k + 1, a0, a1,
                                      reach[d, 0], reach[d, 1], reach[d, 2])  # fmt: skip
                                d += 1
                                enter = True
                                continue
                            val = 0.0
                            for a in range(nc):
                                val += sig[d, a] * av[d, a]
                            for a in range(nc):  # CFR's regret step on the sampled values
                                i = off + a * nh + hp
                                R[i] = next_regret(R[i] * 1.0, regret(av[d, a], val), 1.0, 1.0,
                                                   1.0, 1.0, 1.0, False)  # fmt: skip
                        else:
                            mine = reach[d, 0]
                            opp = reach[d, 1]
                            samp = reach[d, 2]
                            a = kk[d]
                            ca = ret / q[d, a]
                            val = sig[d, a] * ca
                            w = opp / samp
                            for b in range(nc):  # importance-weighted: regret weight π_o / s
                                cv = ca if b == a else 0.0
                                i = off + b * nh + hp
                                R[i] = next_regret(R[i] * 1.0, cv - val, 1.0, 1.0, w, 1.0, 1.0,
                                                   False)  # fmt: skip
                                S[i] += mine * sig[d, b] / samp
                # the node at depth d is finished with value ``val``
                if d == 0:
                    break
                ret = val
                enter = False
                d -= 1
            value[trav] = val
        done[0] = it + 1
        if period > 0.0:
            per[0] += touched - start
            if not _discount_due(R, S, per, period, disc, t0):
                break
    wk.touched[0] += touched
    return touched
