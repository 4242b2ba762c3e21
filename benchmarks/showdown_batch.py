"""Showdowns evaluated together, per board: is the work per (hand, terminal) cheaper when the
showdowns below one river card share their index walks? A prototype kernel against
:func:`~solver.cfr.terminal.showdown_2card`, on a spot's real showdowns (issue 50).

One command::

    .venv/bin/python benchmarks/showdown_batch.py [--spots T1,F1s] [--rounds 25] [--reps 2]
        [--walk float32] [--groups 400] [--widths T,4,8,16,auto] [--json]

Below one river card (one board ``b``) the walk meets several showdown terminals (T1: 3, 11
or 19 per river subtree; F1s: 7) that read the same tables (``order[b]``, ``sd_src[row]``,
``sd_cstart[row]``, ``sd_pack[row]``, ``valid[b]``); only the opponent's reach row and the
amount differ. :func:`showdown_batch` takes the T terminals together: their reach rows,
(T, H) as the walk holds them, are written hand-major into a (H, T) float64 buffer; the two
prefix sums walk each index table once for all T (each step adds T contiguous reaches, T
independent chains); the per-hand loop reads each packed index once and then T-wide
contiguous rows of P and Q; the values go back to the (T, H) rows the walk reads. Each
terminal's sums run in the order :func:`~solver.cfr.terminal.prefix_sums` runs them (its
four blocks, offsets after), and its per-hand terms in ``showdown_2card``'s order, so every
value is the same bits (checked first, ``np.array_equal`` on every output row; and by
``tests/test_showdown_batch.py``).

Variants (``--widths``): ``T``, loops over the group's T terminals as a run-time count
(chunks of at most :data:`LMAX`); ``4``, ``8``, ``16``, chunks of that many lanes with
loops of constant trip count (unrolled; LLVM's vectorisers pack them), the last chunk
padded; ``auto``, chunks of 16 while 16 are left, then 8 (padded), but the last ≤
:data:`ALONE` one ``showdown_2card`` each. What decides it, read in the machine code: the
running sums must be registers (a constant trip count), the loads of a step must come
before its stores (a store to an argument between them keeps LLVM from packing them), every
index unsigned (Numba's negative-index wrap is a select per load), and the per-hand values
must go through a stack buffer (no run-time overlap checks). Width 4's per-hand loop stays
scalar (LLVM packs no contiguous store there), so 4 is no faster than one at a time.

Timed: per spot, ``--groups`` river subtrees (all if fewer; T1 has 432, F1s 12,861) with
their real showdown counts (and each count alone when they differ), and synthetic groups of
T = 1, 2, 4, 8, 16 (the showdowns of a subtree, cycled), each replayed by the kernel once per
terminal (a) and batched (b), both traversers, in alternation (a new order each round),
``--rounds`` rounds of ``--reps`` replays, medians (``--json`` adds the minima); ns per
(hand, terminal) counts the traverser's hands. The reach
rows are the root's opponent reach times a random factor per hand (a fifth of them 0), the
same pool of rows for every group so that both read rows in cache, as the walk's freshly
written rows are. ``transpose`` is the first step of width 8 alone (the reach rows into the
(H, 8) layout), part of the batched times: what a walk writing that layout itself would
save. The projection: an iteration's time with the real groups' best variant, given the
showdowns' share of a one-thread iteration in BENCHMARKS.md (:data:`SHOWDOWN_SHARE`).
Timings on a loaded machine are indicative only.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numba
import numpy as np
import numpy.typing as npt

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the solver package, when run as a script
sys.path.insert(0, str(HERE))

from terminal_simd import stack_f64  # noqa: E402

from solver.cfr.terminal import ShowdownTables, showdown_2card  # noqa: E402
from solver.games.model import CHANCE, SHOWDOWN, Game  # noqa: E402

Array = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]
Int = int | np.int64  # (the replays take numpy integers: the walk's types)

LMAX = 32  # terminals per chunk of the run-time variant (the stack buffers' lanes)
ALONE = 4  # auto width: this few terminals left go one at a time, not padded to 8
LABELS = {0: "T", 4: "4", 8: "8", 16: "16", -1: "auto"}  # the variants: ``width`` codes
SYNTHETIC = (1, 2, 4, 8, 16)  # batch sizes timed beside the real ones
# Showdowns' share of a one-thread float32 iteration, from BENCHMARKS.md "Where the time goes"
# (benchmarks/phases.py at e6fffa3: showdown ms / real ms per iteration; F1s's replays
# overstate the terminals, so its share is an upper bound)
SHOWDOWN_SHARE = {"T1": 5.57 / 13.0, "F1s": 217.2 / 394.9}
_JIT: dict[str, Any] = {"nogil": True, "cache": True}


# ----- the batched kernel ----------------------------------------------------------------------
# Every index is unsigned (np.uint64): a signed one pays Numba's negative-index wrap, a select
# per load that keeps LLVM from vectorising the loops over terminals.
@numba.njit(forceinline=True, **_JIT)
def _prefix_batch(rt: Array, tn: np.uint64, src: npt.NDArray[np.uint16], n: np.uint64,
                  out: Array) -> None:  # fmt: skip
    """For each terminal t < ``tn``: out[k·tn + t] = Σ_{j<k} rt[src[j]·tn + t], k = 0..n, in
    :func:`~solver.cfr.terminal.prefix_sums`' order (four blocks, then offsets)."""
    one = np.uint64(1)
    q = n // np.uint64(4)
    q2 = np.uint64(2) * q
    q3 = np.uint64(3) * q
    acc = stack_f64(128)  # (4 · LMAX: the blocks' running sums, terminal-minor)
    l1 = np.uint64(32)
    l2 = np.uint64(64)
    l3 = np.uint64(96)
    for t in range(tn):
        out[t] = 0.0
        acc[t] = 0.0
        acc[l1 + t] = 0.0
        acc[l2 + t] = 0.0
        acc[l3 + t] = 0.0
    for i in range(q):
        s0 = np.uint64(src[i]) * tn
        s1 = np.uint64(src[q + i]) * tn
        s2 = np.uint64(src[q2 + i]) * tn
        s3 = np.uint64(src[q3 + i]) * tn
        o0 = (i + one) * tn
        o1 = (q + i + one) * tn
        o2 = (q2 + i + one) * tn
        o3 = (q3 + i + one) * tn
        # the loads, then the stores: a store to ``out`` between two loads of ``rt`` (which
        # LLVM cannot prove apart) would keep the loads from being packed into vectors
        for t in range(tn):
            acc[t] += rt[s0 + t]
        for t in range(tn):
            acc[l1 + t] += rt[s1 + t]
        for t in range(tn):
            acc[l2 + t] += rt[s2 + t]
        for t in range(tn):
            acc[l3 + t] += rt[s3 + t]
        for t in range(tn):
            out[o0 + t] = acc[t]
        for t in range(tn):
            out[o1 + t] = acc[l1 + t]
        for t in range(tn):
            out[o2 + t] = acc[l2 + t]
        for t in range(tn):
            out[o3 + t] = acc[l3 + t]
    for j in range(np.uint64(4) * q, n):
        s = np.uint64(src[j]) * tn
        o = (j + one) * tn
        for t in range(tn):
            acc[l3 + t] += rt[s + t]
            out[o + t] = acc[l3 + t]
    for j in range(q + one, q2 + one):
        for t in range(tn):
            out[j * tn + t] += acc[t]
    for t in range(tn):
        acc[t] = acc[t] + acc[l1 + t]  # a0 + a1
    for j in range(q2 + one, q3 + one):
        for t in range(tn):
            out[j * tn + t] += acc[t]
    for t in range(tn):
        acc[t] += acc[l2 + t]  # + a2
    for j in range(q3 + one, n + one):
        for t in range(tn):
            out[j * tn + t] += acc[t]


@numba.njit(forceinline=True, **_JIT)
def _chunk(sdt: ShowdownTables, b: int, trav: int, nt: int, no: int, amounts: Array,
           a0: int, reach: Array, r0: int, tn: np.uint64, cnt: np.uint64, out: Array, o0: int,
           rt: Array, p: Array, qs: Array, cs: Array) -> None:  # fmt: skip
    """Terminals r0..r0+cnt-1 of ``reach`` (their opponent reach rows), amounts
    ``amounts[a0:a0+cnt]`` (chips), into rows o0..o0+cnt-1 of ``out``, computed ``tn`` wide
    (cnt ≤ tn ≤ :data:`LMAX`; the lanes past ``cnt`` are padding: whatever finite reach
    ``rt`` holds there, amount 0, not stored). Scratch, float64, flat and terminal-minor:
    ``rt`` (≥ no·tn), ``p`` (≥ (no+1)·tn), ``qs`` (≥ (2no+1)·tn), ``cs`` (≥ C·tn)."""
    valid, order, sd_row, sd_src, sd_cstart, sd_pack, _ = sdt
    nc = np.uint64(sd_cstart.shape[2] - 1)
    opp = 1 - trav
    row = sd_row[b]
    nou = np.uint64(no)
    ur = np.uint64(r0)
    uo = np.uint64(o0)
    for j in range(nou):  # the walk's (T, H) rows, hand-major
        if cnt == tn:
            for t in range(tn):
                rt[j * tn + t] = reach[ur + t, j]
        else:
            for t in range(cnt):
                rt[j * tn + t] = reach[ur + t, j]
    _prefix_batch(rt, tn, order[b, opp], nou, p)
    _prefix_batch(rt, tn, sd_src[row, trav], np.uint64(2) * nou, qs)
    cst = sd_cstart[row, trav]
    for c in range(nc):
        a = np.uint64(cst[c]) * tn
        e = np.uint64(cst[c + np.uint64(1)]) * tn
        for t in range(tn):
            cs[c * tn + t] = qs[a + t] + qs[e + t]
    top = stack_f64(32)
    amt = stack_f64(32)
    val = stack_f64(32)
    ua = np.uint64(a0)
    for t in range(tn):
        top[t] = p[nou * tn + t]
        amt[t] = amounts[ua + t] if t < cnt else 0.0
    m = np.uint64(0xFFFF)
    pack = sd_pack[row, trav]
    vrow = valid[b, trav]
    for h in range(np.uint64(nt)):
        w0 = pack[h, 0]
        w1 = pack[h, 1]
        k0 = (w0 & m) * tn
        k1 = ((w0 >> np.uint64(16)) & m) * tn
        k2 = ((w0 >> np.uint64(32)) & m) * tn
        k3 = (w0 >> np.uint64(48)) * tn
        k4 = (w1 & m) * tn
        k5 = ((w1 >> np.uint64(16)) & m) * tn
        c0 = ((w1 >> np.uint64(32)) & m) * tn
        c1 = (w1 >> np.uint64(48)) * tn
        vh = vrow[h]
        # into a stack buffer, then to the walk's (T, H) rows: a store to ``out`` in the
        # loop (an argument, as are p, qs, cs) would need run-time overlap checks
        for t in range(tn):
            v = p[k0 + t] + p[k1 + t] - top[t]
            v -= qs[k2 + t] + qs[k3 + t] - cs[c0 + t]
            v -= qs[k4 + t] + qs[k5 + t] - cs[c1 + t]
            val[t] = amt[t] * v * vh
        if cnt == tn:  # (a constant trip count when the chunk is full)
            for t in range(tn):
                out[uo + t, h] = val[t]
        else:
            for t in range(cnt):
                out[uo + t, h] = val[t]


@numba.njit(**_JIT)
def showdown_batch(sdt: ShowdownTables, b: int, trav: int, nt: int, no: int, amounts: Array,
                   a0: int, reach: Array, r0: int, tn: int, out: Array, o0: int, width: int,
                   rt: Array, p: Array, qs: Array, cs: Array) -> int:  # fmt: skip
    """The showdown values of ``tn`` terminals on board ``b`` together: terminal i's opponent
    reach is ``reach[r0 + i]`` (H,), its amount ``amounts[a0 + i]`` (chips), its values go to
    ``out[o0 + i]`` (H,), each the bits of ``showdown_2card`` on that row. ``width`` 4, 8 or
    16: chunks of that many lanes, loops of constant trip count, the last chunk padded;
    0: chunks of ≤ :data:`LMAX`, loops over a run-time count; -1 (auto): chunks of 16 while
    16 are left, then one of 8 (padded), but the last ≤ :data:`ALONE` are left to the caller
    (one ``showdown_2card`` each: cheaper than a chunk of 8 mostly padding). Returns how many
    terminals it evaluated (the first ones). Scratch: see :func:`_chunk`, ``LMAX`` lanes."""
    i = 0
    while i < tn:
        left = tn - i
        w = width
        if width == -1:
            if left <= ALONE:
                break
            w = 16 if left >= 16 else 8
        k = np.uint64(min(LMAX, left) if w == 0 else min(w, left))
        if w == 16:
            _chunk(sdt, b, trav, nt, no, amounts, a0 + i, reach, r0 + i, np.uint64(16), k, out,
                   o0 + i, rt, p, qs, cs)  # fmt: skip
        elif w == 8:
            _chunk(sdt, b, trav, nt, no, amounts, a0 + i, reach, r0 + i, np.uint64(8), k, out,
                   o0 + i, rt, p, qs, cs)  # fmt: skip
        elif w == 4:
            _chunk(sdt, b, trav, nt, no, amounts, a0 + i, reach, r0 + i, np.uint64(4), k, out,
                   o0 + i, rt, p, qs, cs)  # fmt: skip
        else:
            _chunk(sdt, b, trav, nt, no, amounts, a0 + i, reach, r0 + i, k, k, out, o0 + i, rt,
                   p, qs, cs)  # fmt: skip
        i += int(k)
    return i


# ----- the replays -----------------------------------------------------------------------------
# A group is a board's terminals: rows gstart[g]..gstart[g+1]-1 of the terminal lists (board,
# amount); its reach rows start at rstart[g] of ``reach``, its values at the same rows of
# ``out``. Not cached: the per-terminal replay links the solver's kernel in, and a cached copy
# would keep an old one after a solver edit.
@numba.njit(nogil=True)
def replay_single(sdt: ShowdownTables, trav: Int, nt: Int, no: Int, gstart: I64,
                  boards: npt.NDArray[np.int32], amounts: Array, rstart: I64, reach: Array,
                  out: Array, cs: Array, sbuf: Array) -> None:  # fmt: skip
    """(a): ``showdown_2card`` once per terminal (the walk's ``showdown_prefix`` and
    ``showdown_rows``), with the argument types of ``showdown_values``."""
    for g in range(gstart.shape[0] - 1):
        for i in range(gstart[g], gstart[g + 1]):
            r = rstart[g] + i - gstart[g]
            showdown_2card(sdt, np.int64(boards[i]), trav, nt, no, amounts[i], reach, r, out, r,
                           cs, sbuf)  # fmt: skip


@numba.njit(nogil=True)
def replay_batch(sdt: ShowdownTables, trav: Int, nt: Int, no: Int, gstart: I64,
                 boards: npt.NDArray[np.int32], amounts: Array, rstart: I64, reach: Array,
                 out: Array, width: Int, rt: Array, p: Array, qs: Array, cs: Array,
                 cs1: Array, sbuf: Array) -> None:  # fmt: skip
    """(b): :func:`showdown_batch` once per group, then ``showdown_2card`` on the terminals
    it left (auto width: the last few; ``cs1``, ``sbuf``: its scratch)."""
    for g in range(gstart.shape[0] - 1):
        a = gstart[g]
        tn = gstart[g + 1] - a
        r0 = rstart[g]
        done = 0  # (a group auto leaves whole to showdown_2card skips the call: its array
        if width != -1 or tn > ALONE:  # arguments' reference counts show on small groups)
            done = showdown_batch(sdt, np.int64(boards[a]), trav, nt, no, amounts, a, reach,
                                  r0, tn, out, r0, width, rt, p, qs, cs)  # fmt: skip
        for i in range(done, tn):
            showdown_2card(sdt, np.int64(boards[a + i]), trav, nt, no, amounts[a + i], reach,
                           r0 + i, out, r0 + i, cs1, sbuf)  # fmt: skip


@numba.njit(nogil=True, cache=True)
def replay_transpose(no: Int, gstart: I64, rstart: I64, reach: Array, rt: Array) -> None:
    """Only the first step of width 8: each group's reach rows, 8 at a time, into the
    (H, 8) float64 layout (what a walk that wrote that layout itself would save)."""
    nou = np.uint64(no)
    w = np.uint64(8)
    for g in range(gstart.shape[0] - 1):
        tn = gstart[g + 1] - gstart[g]
        for i in range(0, tn, 8):
            cnt = np.uint64(min(8, tn - i))
            ur = np.uint64(rstart[g] + i)
            for j in range(nou):
                if cnt == w:
                    for t in range(w):
                        rt[j * w + t] = reach[ur + t, j]
                else:
                    for t in range(cnt):
                        rt[j * w + t] = reach[ur + t, j]


def scratch(h: int, nc: int) -> tuple[Array, Array, Array, Array]:
    """The batched kernel's scratch for ``h`` hands, ``nc`` cards, :data:`LMAX` lanes."""
    return (np.zeros(h * LMAX), np.zeros((h + 1) * LMAX), np.zeros((2 * h + 1) * LMAX),
            np.zeros(nc * LMAX))  # fmt: skip


def tables(game: Game) -> ShowdownTables:
    b = game.boards
    return ShowdownTables(
        b.valid, b.order, b.sd_row, b.sd_src, b.sd_cstart, b.sd_pack, game.hands.pack
    )


def river_groups(game: Game) -> list[I64]:
    """The showdown nodes below each river card (each chance node's child), in tree order."""
    t = game.tree
    par = game.parents
    shows = np.flatnonzero(t.kind == SHOWDOWN)
    groups: dict[int, list[int]] = {}
    for v in shows.tolist():
        u = v
        while par[u] >= 0 and t.kind[par[u]] != CHANCE:
            u = int(par[u])
        groups.setdefault(u, []).append(v)
    return [np.array(v, dtype=np.int64) for _, v in sorted(groups.items())]


class Groups:
    """Groups of showdown terminals (each on one board) laid out for the replays."""

    def __init__(self, game: Game, groups: list[I64]) -> None:
        t = game.tree
        nodes = np.concatenate(groups)
        for g in groups:
            if (t.board[g] != t.board[g[0]]).any():
                raise ValueError("a group's showdowns are on one board")
        self.nodes = nodes
        self.gstart = np.zeros(len(groups) + 1, dtype=np.int64)
        self.gstart[1:] = np.cumsum([len(g) for g in groups])
        self.boards = np.ascontiguousarray(t.board[nodes])  # int32, as the walk passes it
        self.amounts = np.ascontiguousarray(t.payoff[nodes] - 0.5 * t.rake[nodes])
        self.tmax = int(max(len(g) for g in groups))
        self.count = int(self.gstart[-1])


def random_reach(game: Game, trav: int, n: int, dtype: type[np.floating],
                 seed: int) -> Array:  # fmt: skip
    """(n, H) opponent reach rows: the root's times a factor in (0, 1] per hand, a fifth 0."""
    from solver.cfr.walk import root_reach

    h = game.boards.valid.shape[2]
    root = np.zeros(h)
    root_reach(game.hands, 1 - trav, root)
    rng = np.random.default_rng(seed)
    f = rng.uniform(0.0, 1.0, size=(n, h)) * (rng.uniform(size=(n, h)) >= 0.2)
    return np.ascontiguousarray((root[None, :] * f).astype(dtype))


class Bench:
    """One game's showdown tables, scratch and hand counts for the replays (``dtype``: the
    walk's precision)."""

    def __init__(self, game: Game, dtype: type[np.floating]) -> None:
        hands = game.hands
        if not (hands.cards[:, 0, 1] >= 0).all():
            raise ValueError("two-card hands only")
        self.game = game
        self.dtype = dtype
        self.sdt = tables(game)
        self.nh = [int(x) for x in hands.num_hands]
        h = game.boards.valid.shape[2]
        self.h = h
        self.cs = np.zeros(2 * max(int(hands.num_cards), 1))
        self.sbuf = np.zeros((2, 2 * h + 1))
        self.bscratch = scratch(h, int(game.boards.sd_cstart.shape[2] - 1))

    def single(self, gr: Groups, trav: int, rstart: I64, reach: Array, out: Array) -> None:
        replay_single(self.sdt, np.int64(trav), np.int64(self.nh[trav]),
                      np.int64(self.nh[1 - trav]), gr.gstart, gr.boards, gr.amounts, rstart,
                      reach, out, self.cs, self.sbuf)  # fmt: skip

    def batch(self, gr: Groups, trav: int, rstart: I64, reach: Array, out: Array,
              width: int) -> None:  # fmt: skip
        replay_batch(self.sdt, np.int64(trav), np.int64(self.nh[trav]),
                     np.int64(self.nh[1 - trav]), gr.gstart, gr.boards, gr.amounts, rstart,
                     reach, out, np.int64(width), *self.bscratch, self.cs,
                     self.sbuf)  # fmt: skip

    def same_bits(self, gr: Groups, width: int, seed: int = 1) -> bool:
        """(a) and (b) on distinct reach rows per terminal, both traversers: every output
        row equal (``np.array_equal``)."""
        ok = True
        rstart = np.ascontiguousarray(gr.gstart[:-1])
        for trav in (0, 1):
            reach = random_reach(self.game, trav, gr.count, self.dtype, seed + trav)
            a = np.full((gr.count, self.h), np.nan, dtype=self.dtype)
            b = np.full((gr.count, self.h), np.nan, dtype=self.dtype)
            self.single(gr, trav, rstart, reach, a)
            self.batch(gr, trav, rstart, reach, b, width)
            nt = self.nh[trav]
            ok &= bool(np.array_equal(a[:, :nt], b[:, :nt]))
        return ok

    def timed(self, gr: Groups, widths: list[int], rounds: int,
              reps: int) -> tuple[dict[str, float], dict[str, float]]:  # fmt: skip
        """ns per (traverser hand, terminal), the medians and the minima of ``rounds``:
        "single", each width (:data:`LABELS`) and "transpose" (:func:`replay_transpose`);
        every group reads the same pool of reach rows (in cache) and writes the same rows."""
        rstart = np.zeros(len(gr.gstart) - 1, dtype=np.int64)
        reach = [random_reach(self.game, trav, gr.tmax, self.dtype, 7 + trav) for trav in (0, 1)]
        out = np.zeros((gr.tmax, self.h), dtype=self.dtype)
        keys = ["single", *(LABELS[w] for w in widths), "transpose"]
        width_of = {LABELS[w]: w for w in widths}
        ts: dict[str, list[float]] = {k: [] for k in keys}

        def run(k: str) -> None:
            for trav in (0, 1):
                if k == "single":
                    self.single(gr, trav, rstart, reach[trav], out)
                elif k == "transpose":
                    replay_transpose(np.int64(self.nh[1 - trav]), gr.gstart, rstart,
                                     reach[trav], self.bscratch[0])  # fmt: skip
                else:
                    self.batch(gr, trav, rstart, reach[trav], out, width_of[k])

        for k in keys:
            run(k)  # compiled and in cache
        cells = gr.count * (self.nh[0] + self.nh[1]) * reps
        order = np.random.default_rng(11)
        for _ in range(rounds):
            for i in order.permutation(len(keys)):  # (a new order each round: no variant
                k = keys[i]  # always follows the same one, or a periodic disturbance)
                t0 = time.perf_counter_ns()
                for _ in range(reps):
                    run(k)
                ts[k].append((time.perf_counter_ns() - t0) / cells)
        return ({k: float(np.median(v)) for k, v in ts.items()},
                {k: float(np.min(v)) for k, v in ts.items()})  # fmt: skip


def synthetic(groups: list[I64], size: int, n: int) -> list[I64]:
    """``n`` groups of ``size`` showdowns, each from one river subtree (its first ``size``,
    repeated cyclically when it has fewer): the batch width as a free parameter."""
    out = []
    for i in range(n):
        g = groups[i % len(groups)]
        out.append(g[np.arange(size) % len(g)])
    return out


def spot_report(game: Game, dtype: type[np.floating], args: argparse.Namespace,
                spot: str) -> dict[str, Any]:  # fmt: skip
    """Bits and ns per (hand, terminal) of each set of groups: the real river subtrees (a
    sample of ``--groups``; each size alone too when they differ) and synthetic sizes; the
    projection of the real set's best width onto an iteration."""
    groups = river_groups(game)
    bench = Bench(game, dtype)
    rng = np.random.default_rng(3)
    pick = groups
    if len(groups) > args.groups:
        pick = [groups[i] for i in sorted(rng.choice(len(groups), args.groups, replace=False))]
    sets: dict[str, list[I64]] = {"real": pick}
    sizes = sorted({len(g) for g in groups})
    if len(sizes) > 1:
        for size in sizes:
            sets[f"real T={size}"] = [g for g in pick if len(g) == size]
    n_syn = min(len(groups), max(args.groups // 2, 1))
    for size in SYNTHETIC:
        sets[f"T={size}"] = synthetic(pick, size, n_syn)
    report: dict[str, Any] = {"dtype": np.dtype(dtype).name, "hands": bench.nh,
                              "river subtrees": len(groups), "T per subtree": sizes,
                              "rows": {}}  # fmt: skip
    for name, gs in sets.items():
        if not gs:
            continue
        gr = Groups(game, gs)
        same = {LABELS[w]: bench.same_bits(gr, w) for w in args.widths}
        ns, fastest = bench.timed(gr, args.widths, args.rounds, args.reps)
        best = min((LABELS[w] for w in args.widths), key=lambda k: ns[k])
        report["rows"][name] = {"groups": len(gs), "terminals": gr.count, "same bits": same,
                                "ns": ns, "ns min": fastest, "best": best,
                                "speed-up": ns["single"] / ns[best]}  # fmt: skip
    share = SHOWDOWN_SHARE.get(spot)
    if share is not None:
        real = report["rows"]["real"]
        x = real["speed-up"]
        # the same less the transposition of the reach rows (a walk writing (H, T) itself;
        # an estimate: the transposition is timed at width 8)
        y = real["ns"]["single"] / (real["ns"][real["best"]] - real["ns"]["transpose"])
        report["projection"] = {
            "showdown share": share,
            "speed-up": x,
            "iteration": 1.0 - share * (1.0 - 1.0 / x),
            "speed-up, no transpose": y,
            "iteration, no transpose": 1.0 - share * (1.0 - 1.0 / y),
        }
    return report


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spots", default="T1,F1s", help="R1, T1, F1s, F3")
    parser.add_argument("--rounds", type=int, default=25)
    parser.add_argument("--reps", type=int, default=2)
    parser.add_argument("--groups", type=int, default=400,
                        help="river subtrees timed per spot (a random sample if more)")  # fmt: skip
    parser.add_argument("--widths", default="T,4,8,16,auto",
                        help="batched variants: T (run-time count), 4, 8, 16, auto")  # fmt: skip
    parser.add_argument("--walk", choices=("float32", "float64"), default="float32",
                        help="the walk's precision (float32: the default storage's)")  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.spots = [s.strip() for s in args.spots.split(",") if s.strip()]
    if not args.spots:
        parser.error("--spots: at least one spot expected")
    for name in ("rounds", "reps", "groups"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}: at least 1, got {getattr(args, name)}")
    codes = {v: k for k, v in LABELS.items()}
    names = [w.strip() for w in args.widths.split(",") if w.strip()]
    bad = [w for w in names if w not in codes]
    if bad or not names:
        parser.error(f"--widths: T, 4, 8, 16 or auto, comma-separated; got {args.widths!r}")
    args.widths = [codes[w] for w in dict.fromkeys(names)]
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    import floor  # (benchmarks/: the spots as phases.py builds them)

    bad = floor.unknown_spot(args.spots)
    if bad:
        print(f"error: {bad}", file=sys.stderr)
        return 2
    dtype = np.float32 if args.walk == "float32" else np.float64
    reports = {s: spot_report(floor.build_spot(s), dtype, args, s) for s in args.spots}
    if args.json:
        print(json.dumps(reports, indent=1))
        return 0
    for spot, r in reports.items():
        print(
            f"{spot} ({r['dtype']} walk, hands {r['hands'][0]}/{r['hands'][1]}, "
            f"{r['river subtrees']} river subtrees of {r['T per subtree']} showdowns)"
        )
        keys = list(next(iter(r["rows"].values()))["ns"])
        head = " ".join(f"{k:>9s}" for k in keys)
        print(f"  {'groups':10s} {'terminals':>9s} {'same bits':>9s} {head} {'speed-up':>14s}")
        for name, row in r["rows"].items():
            cols = " ".join(f"{row['ns'][k]:9.3f}" for k in keys)
            same = all(row["same bits"].values())
            print(f"  {name:10s} {row['terminals']:9d} {same!s:>9s} {cols} "
                  f"{row['speed-up']:6.2f}× ({row['best']})")  # fmt: skip
        pr = r.get("projection")
        if pr:
            print(f"  projection: showdowns {pr['showdown share']:.0%} of an iteration, "
                  f"{pr['speed-up']:.2f}× faster: an iteration {pr['iteration']:.3f} of today's; "
                  f"without the transposition {pr['speed-up, no transpose']:.2f}×: "
                  f"{pr['iteration, no transpose']:.3f}")  # fmt: skip
    print(
        "(ns per (traverser hand, terminal), medians; 'transpose': the reach rows into "
        "(H, 8) alone, part of each batched time)"
    )
    return 0


if __name__ == "__main__":
    # the kernels from the module by its name, as the test imports them: Numba's on-disk
    # cache records the module a cached kernel came from
    import showdown_batch

    raise SystemExit(showdown_batch.main())
