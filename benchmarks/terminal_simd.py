"""Do the terminals' per-hand loops pay in SIMD lanes? The kernels against variants whose last
loop LLVM does vectorise, on a spot's real terminals (issue 50).

One command::

    .venv/bin/python benchmarks/terminal_simd.py [--spots T1,F1s] [--rounds 15] [--reps 3]
        [--walk float32] [--width 0] [--remarks] [--json]

Each traverser hand's value in the last loop of :func:`~solver.cfr.terminal.showdown_2card`
and of :func:`~solver.cfr.terminal.fold_rows` is its own sum, so one SIMD lane per hand adds
the same terms in the same order: the same bits. LLVM does not vectorise those loops as the
kernels are written: its remark is ``loop not vectorized: cannot identify array bounds``
(``--remarks``). A vectorised loop that stores to ``out2`` while it loads from ``sbuf``,
``cs`` or ``reach2`` at data-dependent positions needs run-time checks that the arrays do
not overlap, and a gathered address has no bounds to check; Numba marks no array argument
``noalias``. The variants here remove the store from that loop: each block of
:data:`LANES` hands is computed into a buffer on the stack (:func:`stack_f64`, memory no
argument can point to), then scaled and stored in a second, contiguous loop. LLVM then
vectorises both, the first with ``vgatherqpd`` (the count of gathers in the machine code is
printed). ``--width N`` forces N lanes (LLVM's ``-force-vector-width``; 0: its choice).

Timed: each spot's folds and showdowns (every node of the kind, both traversers, the opponent
reach at the root, in ``--walk`` precision) replayed by the kernels and by the variants, in
alternation, ``--rounds`` rounds of ``--reps`` replays; medians, variant / kernel. The
variants' values are checked against the kernels' bit for bit first. Timings mean nothing on
a loaded machine.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast

import numba
import numpy as np
import numpy.typing as npt
from numba import types
from numba.core import cgutils
from numba.extending import intrinsic

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the solver package, when run as a script

from solver.cfr.terminal import (  # noqa: E402
    FoldTables,
    ShowdownTables,
    fixed_payoff,
    fold_rows,
    prefix_sums,
    showdown_2card,
)
from solver.games.model import FIXED, SHOWDOWN, Game  # noqa: E402

Array = npt.NDArray[np.float64]
I64 = npt.NDArray[np.int64]

LANES = 32  # hands per block: the stack buffer's float64 entries (256 bytes)
# (not cached: with --remarks or --width they must compile in this process)
_JIT: dict[str, Any] = {"nogil": True}


@intrinsic
def _stack_f64(typingctx: Any, n: Any) -> Any:
    """A (n,) float64 array in the calling function's stack frame (``n`` a literal int): no
    allocation, no reference count, and memory LLVM knows no argument points to."""
    if not isinstance(n, types.IntegerLiteral):
        return None
    size = int(n.literal_value)
    arr = types.Array(types.float64, 1, "C")

    def codegen(context: Any, builder: Any, sig: Any, args: Any) -> Any:
        ptr = cgutils.alloca_once(builder, context.get_value_type(types.float64), size=size)
        ary = context.make_array(arr)(context, builder)
        item = context.get_constant(types.intp, 8)
        shape = cgutils.pack_array(builder, [context.get_constant(types.intp, size)])
        context.populate_array(ary, data=ptr, shape=shape,
                               strides=cgutils.pack_array(builder, [item]), itemsize=item,
                               meminfo=None)  # fmt: skip
        return ary._getvalue()

    return arr(n), codegen


stack_f64 = cast(Callable[[int], Array], _stack_f64)  # (to type checkers: what kernels see)


@numba.njit(**_JIT)
def showdown_lanes(sdt: ShowdownTables, b: int, trav: int, nt: int, no: int, amount: float,
                   reach2: Array, rrow: int, out2: Array, orow: int, cs: Array,
                   sbuf: Array) -> None:  # fmt: skip
    """:func:`~solver.cfr.terminal.showdown_2card` with its last loop in blocks of
    :data:`LANES` hands: each hand's terms as the kernel adds them, into a stack buffer,
    then ``amount · v · valid`` stored to ``out2[orow]``."""
    valid, order, sd_row, sd_src, sd_cstart, sd_pack, _ = sdt
    nc = sd_cstart.shape[2] - 1
    opp = 1 - trav
    row = sd_row[b]
    prefix_sums(reach2, rrow, order, b, opp, no, sbuf, np.int64(0))
    prefix_sums(reach2, rrow, sd_src, row, trav, 2 * no, sbuf, np.int64(1))
    qa = sbuf[1, np.uint32(sd_cstart[row, trav, 0])]
    for c in range(nc):
        qb = sbuf[1, np.uint32(sd_cstart[row, trav, c + 1])]
        cs[c] = qa + qb
        qa = qb
    top = sbuf[0, no]
    m = np.uint64(0xFFFF)
    buf = stack_f64(32)  # (LANES: a literal here)
    for base in range(0, nt, LANES):
        n = min(LANES, nt - base)
        for lane in range(n):
            w0 = sd_pack[row, trav, base + lane, 0]
            w1 = sd_pack[row, trav, base + lane, 1]
            v = sbuf[0, w0 & m] + sbuf[0, (w0 >> np.uint64(16)) & m] - top
            v -= (
                sbuf[1, (w0 >> np.uint64(32)) & m]
                + sbuf[1, w0 >> np.uint64(48)]
                - cs[(w1 >> np.uint64(32)) & m]
            )
            v -= sbuf[1, w1 & m] + sbuf[1, (w1 >> np.uint64(16)) & m] - cs[w1 >> np.uint64(48)]
            buf[lane] = v
        for lane in range(n):
            out2[orow, base + lane] = amount * buf[lane] * valid[b, trav, base + lane]


@numba.njit(**_JIT)
def fold_lanes(ft: FoldTables, b: int, trav: int, no: int, nt: int, nc: int, u: float,
               reach2: Array, rrow: int, out2: Array, orow: int, cs: Array) -> None:  # fmt: skip
    """:func:`~solver.cfr.terminal.fold_rows`' two-card path (hold'em only) with its last loop
    in blocks of :data:`LANES` hands through a stack buffer (the same-hand term a masked
    gather)."""
    _, _, pack, valid = ft
    opp = 1 - trav
    for c in range(2 * nc):
        cs[c] = 0.0
    total = 0.0
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
    buf = stack_f64(32)
    for base in range(0, nt, LANES):
        n = min(LANES, nt - base)
        for lane in range(n):
            w = pack[trav, base + lane]
            x = total - cs[w & m] - cs[(w >> s16) & m]
            sm = w >> np.uint64(32)
            if sm != 0:
                x += reach2[rrow, sm - np.uint64(1)]
            buf[lane] = x
        for lane in range(n):
            out2[orow, base + lane] = u * buf[lane] * valid[b, trav, base + lane]


@numba.njit(**_JIT)
def replay_kernels(tree: Any, ft: FoldTables, sdt: ShowdownTables, trav: int, nt: int, no: int,
                   nc: int, nodes: I64, reach2: Array, out: Array, cs: Array,
                   sbuf: Array) -> None:  # fmt: skip
    """The kernels over ``nodes`` (folds or showdowns; no rake term), node i's values in
    ``out[i]`` (reach in ``reach2[0]``)."""
    for i in range(nodes.shape[0]):
        node = nodes[i]
        b = tree.board[node]  # int32, as the walk passes it (no new signature)
        if tree.kind[node] == FIXED:
            u0 = fixed_payoff(tree.payoff[node], tree.rake[node], trav)
            fold_rows(ft, b, trav, no, nt, nc, u0, reach2, np.int64(0), out, np.int64(i), cs)
        else:
            amount = tree.payoff[node] - 0.5 * tree.rake[node]
            showdown_2card(sdt, b, trav, nt, no, amount, reach2, np.int64(0), out,
                           np.int64(i), cs, sbuf)  # fmt: skip


@numba.njit(**_JIT)
def replay_lanes(tree: Any, ft: FoldTables, sdt: ShowdownTables, trav: int, nt: int, no: int,
                 nc: int, nodes: I64, reach2: Array, out: Array, cs: Array,
                 sbuf: Array) -> None:  # fmt: skip
    """:func:`replay_kernels` with the variants."""
    for i in range(nodes.shape[0]):
        node = nodes[i]
        b = tree.board[node]  # int32, as the walk passes it (no new signature)
        if tree.kind[node] == FIXED:
            u0 = fixed_payoff(tree.payoff[node], tree.rake[node], trav)
            fold_lanes(ft, b, trav, no, nt, nc, u0, reach2, np.int64(0), out, np.int64(i), cs)
        else:
            amount = tree.payoff[node] - 0.5 * tree.rake[node]
            showdown_lanes(sdt, b, trav, nt, no, amount, reach2, np.int64(0), out,
                           np.int64(i), cs, sbuf)  # fmt: skip


class Terminals:
    """A game's folds and showdowns and the arrays to replay them (``dtype``: the walk's)."""

    def __init__(self, game: Game, dtype: type[np.floating]) -> None:
        from solver.cfr.walk import root_reach

        hands, boards, t = game.hands, game.boards, game.tree
        shows = t.kind == SHOWDOWN
        if not (hands.cards[:, 0, 1] >= 0).all() or (boards.sd_row[t.board[shows]] < 0).any():
            raise ValueError("the variants cover two-card hands with a showdown layout")
        self.tree = t
        self.ft = FoldTables(hands.cards, hands.same, hands.pack, boards.valid)
        self.sdt = ShowdownTables(boards.valid, boards.order, boards.sd_row, boards.sd_src,
                                  boards.sd_cstart, boards.sd_pack, hands.pack)  # fmt: skip
        ids = np.arange(game.num_nodes, dtype=np.int64)
        self.nodes = {"fold": ids[t.kind == FIXED], "showdown": ids[shows]}
        self.nh = [int(x) for x in hands.num_hands]
        self.nc = int(hands.num_cards)
        h = boards.valid.shape[2]
        self.reach = []
        for trav in (0, 1):
            r = np.zeros(h)
            root_reach(hands, 1 - trav, r)
            self.reach.append(np.asarray(r[None, :], dtype=dtype))
        self.out = {k: np.zeros((max(len(v), 1), h), dtype=dtype) for k, v in self.nodes.items()}
        self.cs = np.zeros(2 * max(self.nc, 1))
        self.sbuf = np.zeros((2, 2 * h + 1))

    def run(self, lanes: bool, kind: str, trav: int, reach2: Array | None = None) -> Array:
        """Replay ``kind``'s nodes for ``trav`` (the root reach unless ``reach2`` (1, H)):
        the values, one row per node (the replay's own buffer)."""
        fn = replay_lanes if lanes else replay_kernels
        nodes = self.nodes[kind]
        out = self.out[kind]
        r = self.reach[trav] if reach2 is None else reach2
        fn(self.tree, self.ft, self.sdt, np.int64(trav), np.int64(self.nh[trav]),
           np.int64(self.nh[1 - trav]), np.int64(self.nc), nodes, r, out, self.cs,
           self.sbuf)  # fmt: skip
        return out


def gathers(dispatcher: Any) -> int:
    """How many gather instructions the machine code of ``dispatcher``'s first signature
    holds (its callees linked in)."""
    return len(re.findall(r"\bv(p)?gather", dispatcher.inspect_asm(dispatcher.signatures[0])))


def spot_report(game: Game, dtype: type[np.floating], rounds: int, reps: int,
                label: bool = False) -> dict[str, Any]:  # fmt: skip
    """Bits and timings of one game: per kind, variant / kernel (medians of ``rounds``);
    ``label``: say on stderr which replay compiles first (LLVM's remarks follow)."""
    tm = Terminals(game, dtype)
    out: dict[str, Any] = {"dtype": np.dtype(dtype).name, "nodes": {}, "same_bits": {}}
    for lanes in (False, True):
        if label:
            print(f"--- {'the variants' if lanes else 'the kernels'}: compiling",
                  file=sys.stderr, flush=True)  # fmt: skip
        for kind in tm.nodes:
            tm.run(lanes, kind, 0)
    for kind, nodes in tm.nodes.items():
        out["nodes"][kind] = len(nodes)
        same = True
        for trav in (0, 1):
            a = tm.run(False, kind, trav).copy()
            same &= a.tobytes() == tm.run(True, kind, trav).tobytes()
        out["same_bits"][kind] = bool(same)
    out["gathers"] = {"kernels": gathers(replay_kernels), "lanes": gathers(replay_lanes)}
    ratio = {}
    for kind, nodes in tm.nodes.items():
        if len(nodes) == 0:
            continue
        ts: dict[bool, list[float]] = {False: [], True: []}
        for _ in range(rounds):
            for lanes in (False, True):
                t0 = time.perf_counter_ns()
                for _ in range(reps):
                    tm.run(lanes, kind, 0)
                    tm.run(lanes, kind, 1)
                ts[lanes].append(float(time.perf_counter_ns() - t0))
        ratio[kind] = float(np.median(ts[True]) / np.median(ts[False]))
    out["lanes_over_kernels"] = ratio
    return out


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spots", default="T1,F1s", help="R1, T1, F1s, F3")
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--width", type=int, default=0, help="force N lanes (0: LLVM's choice)")
    parser.add_argument("--remarks", action="store_true",
                        help="LLVM's loop-vectorize remarks as the replays compile")  # fmt: skip
    parser.add_argument("--walk", choices=("float32", "float64"), default="float32",
                        help="the walk's precision (float32: the default storage's)")  # fmt: skip
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    args.spots = [s.strip() for s in args.spots.split(",") if s.strip()]
    if not args.spots:
        parser.error("--spots: at least one spot expected")
    for name in ("rounds", "reps"):
        if getattr(args, name) < 1:
            parser.error(f"--{name}: at least 1, got {getattr(args, name)}")
    if args.width not in (0, 1, 2, 4, 8, 16):
        parser.error(f"--width: 0, 1, 2, 4, 8 or 16, got {args.width}")
    return args


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    import floor  # (benchmarks/: the spots as phases.py builds them)
    import llvmlite.binding as ll

    bad = floor.unknown_spot(args.spots)
    if bad:
        print(f"error: {bad}", file=sys.stderr)
        return 2
    dtype = np.float32 if args.walk == "float32" else np.float64
    # LLVM's options are the process's: set before anything here compiles
    if args.width:
        ll.set_option("", f"-force-vector-width={args.width}")
    if args.remarks:
        ll.set_option("", "--pass-remarks=loop-vectorize")
        ll.set_option("", "--pass-remarks-missed=loop-vectorize")
        ll.set_option("", "--pass-remarks-analysis=loop-vectorize")
    reports = {}
    for i, spot in enumerate(args.spots):
        game = floor.build_spot(spot)
        reports[spot] = spot_report(game, dtype, args.rounds, args.reps, args.remarks and i == 0)
    if args.json:
        print(json.dumps(reports, indent=1))
        return 0
    print(f"{'spot':5s} {'walk':8s} {'kind':9s} {'nodes':>6s} {'same bits':>9s} "
          f"{'gathers k/l':>11s} {'lanes / kernel':>14s}")  # fmt: skip
    for spot, r in reports.items():
        g = r["gathers"]
        for kind, n in r["nodes"].items():
            ratio = r["lanes_over_kernels"].get(kind)
            print(f"{spot:5s} {r['dtype']:8s} {kind:9s} {n:6d} {r['same_bits'][kind]!s:>9s} "
                  f"{g['kernels']:5d}/{g['lanes']:<5d} "
                  f"{'-' if ratio is None else f'{ratio:.3f}':>14s}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
