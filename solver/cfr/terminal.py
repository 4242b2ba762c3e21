"""Terminal values in the vector walk: what the traverser's hands get at a fold, a showdown
or an all-in runout, given the opponent's reach vector, with card removal.

Folds are O(n) by inclusion–exclusion over the cards of each hand; showdowns sweep the
hands in strength order (two-card hands: two prefix sums, see :func:`showdown_2card`). The
walk calls the ``*_rows`` helpers (inlined) on whole arrays with rows by index; the public
entry points :func:`fold_values` and :func:`showdown_values` read the same arrays from the
game's NamedTuples. :func:`fixed_payoff` and :func:`showdown_payoff` are the same payoffs for
one dealt pair of hands (the scalar samplers). All amounts are chips.

**Rake** (``Tree.rake``, r chips at a terminal): a fold pays its winner ``A − r``; a showdown
pays ``A − r`` to the winner, ``−A`` to the loser and ``−r/2`` to each on a tie, which per
pair of hands is ``(A − r/2)·sign − r/2``. So the walk values a raked showdown or runout as
the unraked one worth ``A − r/2`` plus a fold-style term worth ``−r/2`` per compatible
opponent hand (:func:`fold_rows`, O(n)); an unraked terminal skips the term and takes the
same path, bit for bit, as before rake existed.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
import numpy.typing as npt

from solver.cfr.borrow import Ref, by_ref, deref
from solver.cfr.floats import Floats
from solver.games.model import Boards, Hands
from solver.jit import called_kernel, called_kernel_py, kernel, node_kernel, node_kernel_py

Array = npt.NDArray[np.float64]
# Integer arguments that recursive kernel calls pass as ``np.int64(...)``: a plain literal
# there is typed ``Literal[int]`` and gives the call a second signature.
Int = int | np.int64


class FoldTables(NamedTuple):
    """The arrays a fold reads (of :class:`~solver.games.model.Hands` and ``Boards``): only
    these, so the call does not carry every field of both."""

    cards: npt.NDArray[np.int32]  # (2, H, 2) each hand's cards (-1: a one-card hand)
    same: npt.NDArray[np.int32]  # (2, H) the opponent's hand with the same cards, or -1
    pack: npt.NDArray[np.uint64]  # (2, H) the cards packed for the two-bank sums
    valid: Array  # (B, 2, H) 1.0 where a hand does not collide with board b


class ShowdownTables(NamedTuple):
    """The arrays a two-card showdown reads (of ``Boards``: :func:`showdown_2card`), and a
    fold beside it (:func:`fold_prefix`)."""

    valid: Array  # (B, 2, H)
    order: npt.NDArray[np.int32]  # (B, 2, H) hands in strength order on board b
    sd_row: npt.NDArray[np.int32]  # (B,) the board's row of the tables below, or -1
    sd_src: npt.NDArray[np.uint16]  # (R, 2, 2H) hands grouped by card
    sd_cstart: npt.NDArray[np.int32]  # (R, 2, C + 1) each card's group
    sd_pack: npt.NDArray[np.uint64]  # (R, 2, H) the counts below/above, packed
    pack: npt.NDArray[np.uint64]  # (2, H) Hands.pack: each hand's cards (fold_prefix)


# how the walk hands them to the showdown's and fold's calls (:func:`~solver.cfr.borrow.by_ref`)
ShowdownRef = Ref[ShowdownTables]


@called_kernel_py
def fold_values(
    hands: Hands,
    boards: Boards,
    b: Int,
    trav: Int,
    u: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
) -> None:
    """out2[orow, h] = u · (opponent reach reach2[rrow] of hands compatible with h); O(n)
    inclusion–exclusion (:func:`fold_rows`, called, not inlined)."""
    fold_rows(FoldTables(hands.cards, hands.same, hands.pack, boards.valid), b, trav,
              hands.num_hands[1 - trav], hands.num_hands[trav], hands.num_cards, u, reach2,
              rrow, out2, orow, cs)  # fmt: skip


@node_kernel
def fold_rows(
    ft: FoldTables,
    b: Int,
    trav: Int,
    no: Int,
    nt: Int,
    nc: Int,
    u: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
) -> None:
    """Fold values on whole arrays (``ft``: :class:`FoldTables`) with rows by index: a row
    view costs an atomic reference-count increment and decrement unless the arrays are
    borrowed (:mod:`solver.cfr.borrow`), more than a hand's arithmetic here. ``cs`` is (2·C,).
    Two-card hands (hold'em) sum the opponent reach per card in two banks (even and odd
    hands) merged after — hands sharing a card sit next to each other, and with one bank each
    add waits for the previous store; hands of one card (-1 in the second slot) take the
    checked loops."""
    cards, same, pack, valid = ft
    opp = 1 - trav
    for c in range(2 * nc):
        cs[c] = 0.0
    total = 0.0
    if cards[0, 0, 1] >= 0 and cards[1, 0, 1] >= 0:
        m = np.uint64(0xFFFF)
        s16 = np.uint64(16)
        for j in range(no):
            r = reach2[rrow, j]
            total += r
            bank = np.uint64((j & 1) * nc)
            w = pack[opp, j]
            cs[bank + (w & m)] += r
            cs[bank + ((w >> s16) & m)] += r
        for c in range(nc):
            cs[c] += cs[nc + c]
        for h in range(nt):
            w = pack[trav, h]
            x = total - cs[w & m] - cs[(w >> s16) & m]
            sm = w >> np.uint64(32)  # same + 1
            if sm != 0:
                x += reach2[rrow, sm - np.uint64(1)]
            out2[orow, h] = u * x * valid[b, trav, h]
        return
    for j in range(no):
        r = reach2[rrow, j]
        if r != 0.0:
            total += r
            for k in range(2):
                c = cards[opp, j, k]
                if c >= 0:
                    cs[c] += r
    for h in range(nt):
        x = total
        n = 0
        for k in range(2):
            c = cards[trav, h, k]
            if c >= 0:
                x -= cs[c]
                n += 1
        if n == 2:
            sm = same[trav, h]
            if sm >= 0:
                x += reach2[rrow, sm]
        out2[orow, h] = u * x * valid[b, trav, h]


@kernel
def showdown_values(
    hands: Hands,
    boards: Boards,
    b: Int,
    trav: Int,
    amount: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
    cs2: Array,
) -> None:
    """out2[orow, h] = amount · (reach of compatible weaker hands − reach of compatible
    stronger), on the fields of ``hands`` and ``boards``: :func:`showdown_2card` (prefix
    sums) for two-card hands on a board with a showdown layout, as the walk does, else
    :func:`showdown_generic`. ``cs`` holds ≥ C entries."""
    if hands.cards[0, 0, 1] >= 0 and hands.cards[1, 0, 1] >= 0 and boards.sd_row[b] >= 0:
        sbuf = np.empty((2, 2 * reach2.shape[1] + 1))
        nt = hands.num_hands[trav]
        no = hands.num_hands[1 - trav]
        sdt = ShowdownTables(boards.valid, boards.order, boards.sd_row, boards.sd_src,
                             boards.sd_cstart, boards.sd_pack, hands.pack)  # fmt: skip
        showdown_2card(sdt, b, trav, nt, no, amount, reach2, rrow, out2, orow, cs, sbuf)
        return
    showdown_generic(hands, boards, b, trav, amount, reach2, rrow, out2, orow, cs, cs2)


@node_kernel
def showdown_generic(
    hands: Hands,
    boards: Boards,
    b: Int,
    trav: Int,
    amount: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
    cs2: Array,
) -> None:
    """Showdown values for hands of one or two cards, on whole arrays with rows by index
    (see :func:`fold_rows`). One ascending sweep for wins and one descending sweep for
    losses over hands sorted by strength; per-card running sums remove the hands that share
    a card with ``h``."""
    cards, order, rank, valid = hands.cards, boards.order, boards.rank, boards.valid
    opp = 1 - trav
    nt = hands.num_hands[trav]
    no = hands.num_hands[opp]
    # wins: opponent hands strictly weaker
    cs[:] = 0.0
    cum = 0.0
    j = 0
    for i in range(nt):
        h = order[b, trav, i]
        rh = rank[b, trav, h]
        while j < no and rank[b, opp, order[b, opp, j]] < rh:
            o = order[b, opp, j]
            r = reach2[rrow, o]
            cum += r
            for k in range(2):
                c = cards[opp, o, k]
                if c >= 0:
                    cs[c] += r
            j += 1
        x = cum
        for k in range(2):
            c = cards[trav, h, k]
            if c >= 0:
                x -= cs[c]
        out2[orow, h] = x
    # losses: opponent hands strictly stronger
    cs2[:] = 0.0
    cum = 0.0
    jj = no - 1
    for i in range(nt - 1, -1, -1):
        h = order[b, trav, i]
        rh = rank[b, trav, h]
        while jj >= 0 and rank[b, opp, order[b, opp, jj]] > rh:
            o = order[b, opp, jj]
            r = reach2[rrow, o]
            cum += r
            for k in range(2):
                c = cards[opp, o, k]
                if c >= 0:
                    cs2[c] += r
            jj -= 1
        x = cum
        for k in range(2):
            c = cards[trav, h, k]
            if c >= 0:
                x -= cs2[c]
        out2[orow, h] = amount * (out2[orow, h] - x) * valid[b, trav, h]


@called_kernel
def prefix_sums(
    reach2: Array,
    rrow: Int,
    src: npt.NDArray[np.integer],
    s0: Int,
    s1: Int,
    n: Int,
    out2: Array,
    orow: Int,
) -> None:
    """out2[orow, k] = Σ_{j<k} reach2[rrow, src[s0, s1, j]] for k = 0..n.

    Four blocks summed side by side (four independent chains of dependent adds instead of
    one, which would set the pace at one add's latency per entry), then offset. Indices are
    unsigned, read and written (a signed index pays Numba's negative-index wrap)."""
    one = np.uint64(1)
    nu = np.uint64(n)
    q = nu // np.uint64(4)
    q2 = np.uint64(2) * q
    q3 = np.uint64(3) * q
    out2[orow, 0] = 0.0
    a0 = 0.0
    a1 = 0.0
    a2 = 0.0
    a3 = 0.0
    for i in range(q):
        k = np.uint64(i)
        a0 += reach2[rrow, np.uint32(src[s0, s1, k])]
        out2[orow, k + one] = a0
        a1 += reach2[rrow, np.uint32(src[s0, s1, q + k])]
        out2[orow, q + k + one] = a1
        a2 += reach2[rrow, np.uint32(src[s0, s1, q2 + k])]
        out2[orow, q2 + k + one] = a2
        a3 += reach2[rrow, np.uint32(src[s0, s1, q3 + k])]
        out2[orow, q3 + k + one] = a3
    for j in range(np.uint64(4) * q, nu):
        a3 += reach2[rrow, np.uint32(src[s0, s1, j])]
        out2[orow, j + one] = a3
    for j in range(q + one, q2 + one):
        out2[orow, j] += a0
    x = a0 + a1
    for j in range(q2 + one, q3 + one):
        out2[orow, j] += x
    x += a2
    for j in range(q3 + one, nu + one):
        out2[orow, j] += x


@called_kernel
def showdown_2card(
    sdt: ShowdownTables,
    b: Int,
    trav: Int,
    nt: Int,
    no: Int,
    amount: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
    sbuf: Array,
) -> None:
    """Showdown values for two-card hands by prefix sums (whole arrays, rows by index: see
    :func:`fold_rows`).

    With the opponent's hands in strength order, P[k] is the reach of the k weakest; with
    them grouped by card (strength order within a card), Q's differences give each card's
    reach below any strength. The board's layout (``Boards.sd_*``, built once) holds, per
    traverser hand, how many opponent hands are weaker and not stronger overall and within
    the groups of its two cards, so

        wins − losses = P[lo] + P[hi] − P[n] − Σ_{c ∈ hand} (Q[lo_c] + Q[hi_c] − Q[s_c] − Q[e_c])

    (``s_c``, ``e_c``: the card's group). The hand with the same two cards is never strictly
    weaker or stronger, so nothing is added back. Two prefix sums and one pass over the
    traverser's hands, against two merge sweeps whose every step waited on the last.
    ``sbuf`` is (2, 2H + 1) scratch: P in row 0, Q in row 1; ``cs`` (≥ C,). The two steps,
    :func:`showdown_prefix` then :func:`showdown_rows`, are the walk's own: a fold beside
    the showdown reads the same prefix sums (:func:`fold_prefix`)."""
    sdr = by_ref(sdt)
    showdown_prefix(sdr, b, trav, no, reach2, rrow, sbuf)
    showdown_rows(sdr, b, trav, nt, no, amount, out2, orow, cs, sbuf)


@node_kernel
def showdown_prefix(
    sdr: ShowdownRef, b: Int, trav: Int, no: Int, reach2: Array, rrow: Int, sbuf: Array
) -> None:
    """:func:`showdown_2card`'s prefix sums of the opponent's reach row ``reach2[rrow]`` on
    board ``b``: P (strength order) in ``sbuf[0, :no + 1]``, Q (grouped by card) in
    ``sbuf[1, :2·no + 1]``."""
    sdt = deref(sdr)
    prefix_sums(reach2, rrow, sdt.order, b, 1 - trav, no, sbuf, np.int64(0))
    prefix_sums(reach2, rrow, sdt.sd_src, sdt.sd_row[b], trav, 2 * no, sbuf, np.int64(1))


@called_kernel
def showdown_rows(
    sdr: ShowdownRef,
    b: Int,
    trav: Int,
    nt: Int,
    no: Int,
    amount: float,
    out2: Array,
    orow: Int,
    cs: Array,
    sbuf: Array,
) -> None:
    """:func:`showdown_2card`'s values from its prefix sums, already in ``sbuf``
    (:func:`showdown_prefix`): out2[orow, h] for the traverser's ``nt`` hands."""
    sdt = deref(sdr)
    valid, sd_row, sd_cstart, sd_pack = sdt.valid, sdt.sd_row, sdt.sd_cstart, sdt.sd_pack
    nc = sd_cstart.shape[2] - 1  # the cards in the deck
    row = sd_row[b]
    qa = sbuf[1, np.uint32(sd_cstart[row, trav, 0])]
    for c in range(nc):  # each card's group ends where the next one's starts: one read each
        qb = sbuf[1, np.uint32(sd_cstart[row, trav, c + 1])]
        cs[c] = qa + qb
        qa = qb
    top = sbuf[0, no]
    m = np.uint64(0xFFFF)
    for h in range(nt):
        w0 = sd_pack[row, trav, h, 0]
        w1 = sd_pack[row, trav, h, 1]
        v = sbuf[0, w0 & m] + sbuf[0, (w0 >> np.uint64(16)) & m] - top
        v -= (
            sbuf[1, (w0 >> np.uint64(32)) & m]
            + sbuf[1, w0 >> np.uint64(48)]
            - cs[(w1 >> np.uint64(32)) & m]
        )
        v -= sbuf[1, w1 & m] + sbuf[1, (w1 >> np.uint64(16)) & m] - cs[w1 >> np.uint64(48)]
        out2[orow, h] = amount * v * valid[b, trav, h]


@called_kernel
def fold_prefix(
    sdr: ShowdownRef,
    b: Int,
    trav: Int,
    nt: Int,
    no: Int,
    u: float,
    reach2: Array,
    rrow: Int,
    out2: Array,
    orow: Int,
    cs: Array,
    sbuf: Array,
) -> None:
    """:func:`fold_rows`' values for two-card hands, out2[orow, h] = u · (opponent reach
    compatible with h), from the prefix sums of the same reach row a showdown beside the
    fold computes (:func:`showdown_prefix`, in ``sbuf``) instead of a pass over the
    opponent's hands: the total is P's last entry, each card's reach Q's rise across the
    card's group, then fold_rows' inclusion–exclusion per hand. ``cs`` (≥ C,) scratch. The
    sums run in another order than fold_rows', so the last bits can differ."""
    sdt = deref(sdr)
    valid, sd_row, sd_cstart, pack = sdt.valid, sdt.sd_row, sdt.sd_cstart, sdt.pack
    nc = sd_cstart.shape[2] - 1
    row = sd_row[b]
    total = sbuf[0, no]
    qa = sbuf[1, np.uint32(sd_cstart[row, trav, 0])]
    for c in range(nc):
        qb = sbuf[1, np.uint32(sd_cstart[row, trav, c + 1])]
        cs[c] = qb - qa
        qa = qb
    m = np.uint64(0xFFFF)
    for h in range(nt):
        w = pack[trav, h]
        x = total - cs[w & m] - cs[(w >> np.uint64(16)) & m]
        sm = w >> np.uint64(32)  # same + 1
        if sm != 0:
            x += reach2[rrow, sm - np.uint64(1)]
        out2[orow, h] = u * x * valid[b, trav, h]


@node_kernel_py
def runout_rows(
    eq_opp: Array, amount: float, nt: Int, no: Int, reach2: Floats, rrow: Int, out2: Floats,
    orow: Int, acc2: Array,
) -> None:  # fmt: skip
    """All-in before the river: out2[orow, h] = amount · Σ_j eq[h, j] · reach2[rrow, j], with
    ``eq`` (H, H) the mean over the cards to come of sign(strength h − strength j) (0 where
    the hands collide).

    Given the opponent's matrix ``eq_opp`` = ``Boards.runout_eq[r, opp]`` = −eqᵀ: rows by
    opponent hand, so the sum runs over j outermost and every hand h accumulates side by side
    (vector lanes; a dot product per h is a chain of dependent adds that no vector can
    shorten without reordering the sum). Each h still adds its terms in j order, and
    negation is exact, so the values are those of the per-h dot product bit for bit. The
    sums run in float64 in ``acc2[0]`` (≥ nt,), whatever ``out2``'s precision."""
    for h in range(nt):
        acc2[0, h] = 0.0
    for j in range(no):
        r = reach2[rrow, j] * 1.0
        if r == 0.0:
            continue  # adds 0 (never a −0: the sums start at +0)
        for h in range(nt):
            acc2[0, h] += eq_opp[j, h] * r
    neg = -amount
    for h in range(nt):
        out2[orow, h] = neg * acc2[0, h] + 0.0  # + 0.0: a zero value is +0 as before


@kernel
def fixed_payoff(payoff: float, rake: float, trav: Int) -> float:
    """``trav``'s payoff at a FIXED terminal whose ``payoff`` is player 0's, the ``rake``
    (chips) taken from the winner's gain (``x − 0.0`` is ``x``: no rake, the same bits)."""
    u = payoff if trav == 0 else -payoff
    if u > 0.0:
        u -= rake
    return u


@kernel
def showdown_payoff(amount: float, rake: float, mine: Int, theirs: Int) -> float:
    """The payoff of a showdown worth ``amount`` for a hand of strength ``mine`` against one
    of strength ``theirs`` (higher wins), the ``rake`` (chips) taken from the pot: the winner
    gets ``amount − rake``, the loser ``−amount``, a tie ``−rake / 2`` each (0 unraked)."""
    if mine > theirs:
        return amount - rake
    if mine < theirs:
        return -amount
    return 0.0 if rake == 0.0 else -0.5 * rake
