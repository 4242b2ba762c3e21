"""The floor: this machine's memory bandwidth and the bytes one CFR iteration must move.

One command (issue 50, "Measure first", item 1)::

    .venv/bin/python benchmarks/floor.py [--spots T1,F1s,F3] [--threads 1,2]
        [--storage float32,float64,compressed] [--triad-mb 768] [--reps 10]
        [--warmup 2] [--iterations 4] [--no-solve] [--json]

**(a) Bandwidth.** A STREAM-style triad ``a[i] = b[i] + s·c[i]`` over three float64 arrays
(``--triad-mb`` in all, default 3 × 256 MB, far beyond the 32 MB L3 of the machine the
issue was measured on), compiled with Numba (``nogil``), best of ``--reps``. ``n`` threads
are ``n`` Python threads each calling the nogil kernel on its own contiguous ``1/n`` of the
arrays — the engine's own threading model (pool threads calling nogil kernels), not Numba's
``prange``. GB/s is reported two ways: the STREAM convention, 24 bytes per element (read b,
c; write a), and with the write-allocate read of ``a`` counted (32 bytes per element: an
ordinary x86 store reads the line before writing it; Numba emits no non-temporal stores).
The floor uses the second: the walk's storage updates are read-modify-writes (a line read,
then written back — no hidden traffic), so its bytes are counted the way the 32-byte triad
counts its own; if a CPU skips the write-allocate read, that figure overstates its bandwidth
by a third and the floor comes out lower — still a lower bound. A second triad as large as
each spot's own footprint (its storage, tree and tables, when that is under 4× the L3)
gives the bandwidth at that working-set size: T1's float32 storage (~17 MB) fits in a
32 MB L3, so its floor at DRAM bandwidth is not its floor.

**(b) Bytes per iteration**, from the built tree, for the engine's default hold'em rule
(``dcfr-tuned``: regret matching derived from the regrets, the average taking every second
iteration) and each storage type. An iteration is two passes (traverser 0, then 1: the
alternating update). Per pass for traverser ``t`` (``nt`` its hands, ``no`` the opponent's,
``A`` a node's actions, ``s`` the storage's bytes per cell — 8 float64, 4 float32, 2 for the
16-bit "compressed" int16/uint16 — and ``w`` the walk's bytes per float: 4 over float32
storage, else 8), what :mod:`solver.cfr.walk` touches at each node:

* **decision node of t** (:func:`~solver.cfr.decision.mixed_values`, then
  :func:`~solver.cfr.update.update_node`): regrets ``A·nt`` read and written (``2·A·nt·s``;
  the update re-reads the block the values' mix just read: from L1/L2, counted once);
  compressed adds its scale (8 read, 8 written). Vectors ``(4·A·nt + 2·nt)·w``: each
  child's values read and stored as action values, the action values read by the mix and by
  the update, the node's values written and read by the update.
* **decision node of the opponent** (:func:`~solver.cfr.update.strategy_rows`,
  :func:`~solver.cfr.decision.opponent_child`, :func:`~solver.cfr.update.add_sums`):
  regrets ``A·no`` read (the strategy derived from them, ``A·no·s``: two sweeps over the
  block, counted once); on an iteration the
  average takes, the strategy sums read and written (``2·A·no·s``; skipped otherwise —
  weighted here by 1 / ``average_every``), compressed with its scale. Vectors: the derived
  strategy written (``A·no``), per child the reach and strategy rows read and the child's
  reach written (``3·A·no``), the children's values read and summed into the node's
  (``2·A·nt + (A − 1)·nt``), and on an averaging iteration the reach and strategy read again
  (``no + A·no``), all ``·w``.
* **chance node** (:mod:`solver.cfr.chance`): its values zeroed (``nt``); per card dealt the
  reach read and written (``2·no``), the child's values read and added (``3·nt``), per
  suit-isomorphic image the values gathered and added (``3·nt``), all ``·w``; tables: per
  card the board's ``valid`` rows of both players (8 bytes a hand), per image the image's
  ``valid`` row and its permutation row (4 bytes a hand).
* **fold** (:func:`~solver.cfr.terminal.fold_rows`): tables ``Hands.pack`` of both players
  and ``valid`` (8 bytes a hand); vectors the reach read, the same-cards hands' reach
  gathered, the values written.
* **showdown** (:func:`~solver.cfr.terminal.showdown_2card`): tables the opponent's
  strength ``order`` (4 bytes a hand), ``sd_src`` (two 2-byte entries a hand), ``sd_cstart``
  (``C + 1`` int32), ``sd_pack`` (16 bytes a hand), ``valid``, ``sd_row``; vectors the
  reach gathered three times (``3·no``) and the values written.
* **all-in runout** (:func:`~solver.cfr.terminal.runout_rows`): the ``(no, nt)`` float64
  equity matrix (every opponent hand reached), the reach read, the values written. A raked
  showdown or runout adds a fold's bytes and a row added.
* **tree**: the per-node fields each kind reads (kind, board, player, offsets, children,
  payoff, rake, chance weights, isomorphism entries: 21–30 bytes a node, 20 a card dealt).

Not counted: a helper's internal scratch (card sums, prefix sums, per-hand totals, the
runout's float64 accumulator, the 16-bit storage's float64 block): a few KB, in L1. The
model is the full walk: partial pruning skips subtrees the opponent never reaches (late in
a solve, many) and gives them only the regrets' discount; the measured run prints the share
of nodes it touched. A pass split over two threads also walks the upper tree (above the first
chance nodes) once more for the reach, which re-reads its opponent regrets: a small share,
not counted — the floor is the algorithm's, not the split's.

``touched`` is every byte above, each table read per visit; ``floor bytes`` is what must come
from memory when nothing stays cached between passes: the storage traffic (regrets, sums,
scales), the tree fields, and each table row once per pass (a board's rows are reused from
cache within its subtree; vectors are one row per depth, always in cache). Floor time per
iteration = floor bytes / bandwidth, at 1 and 2 threads.

**(c) Ours** (unless ``--no-solve``): ``Engine(game, dcfr-tuned, threads, precision)``
in this process, ``--warmup`` iterations (kernels loaded, pages touched), then
``--iterations`` timed (even counts: half of them average); no exploitability checks. The
table prints ms per iteration, ours / floor, and the nodes touched (``Engine.nodes_touched``:
nodes walked plus decision nodes given the zero-reach update) per 2 × N, the full walk's
count. Timings mean nothing on a loaded machine: run it alone.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import platform
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType

import numba
import numpy as np
import numpy.typing as npt

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the solver package, when run as a script

from solver.cfr.rules import make_rule  # noqa: E402
from solver.games.model import CHANCE, DECISION, FIXED, RUNOUT, SHOWDOWN, Game  # noqa: E402

KINDS = ("decision (traverser)", "decision (opponent)", "chance", "fold", "showdown", "runout")
CATEGORIES = ("regrets", "sums", "scales", "tree", "tables", "vectors")
STORAGE_BYTES = {"float64": 8, "float32": 4, "compressed": 2}
# the third spot: F1s's flop and ranges with three bet sizes
EXTRA_SPOTS = {"F3": {"board": "Td9d6h", "bets": "33%, 75%, a", "raises": "a"}}
DEFAULT_L3 = 32 << 20
RULE = "dcfr-tuned"  # the engine's default hold'em rule, the one measured
RULE_AVERAGE_EVERY = int(getattr(make_rule(RULE), "average_every", 1))


# ----- (a) the triad ------------------------------------------------------------------------
@numba.njit(nogil=True, cache=False)
def triad(a: npt.NDArray[np.float64], b: npt.NDArray[np.float64], c: npt.NDArray[np.float64],
          s: float, lo: int, hi: int) -> None:  # fmt: skip
    """a[i] = b[i] + s·c[i] for lo ≤ i < hi (GIL released: threads run it side by side)."""
    for i in range(lo, hi):
        a[i] = b[i] + s * c[i]


@dataclass
class Triad:
    """Best time of a triad over ``elements`` float64s per array on ``threads`` threads."""

    mb: float  # the three arrays together, MB (10⁶ bytes)
    threads: int
    elements: int
    seconds: float

    @property
    def gbs_stream(self) -> float:
        """GB/s by the STREAM convention: 24 bytes per element (read b, c; write a)."""
        return 24.0 * self.elements / self.seconds / 1e9

    @property
    def gbs_write_allocate(self) -> float:
        """GB/s with the write-allocate read of ``a`` counted: 32 bytes per element."""
        return 32.0 * self.elements / self.seconds / 1e9


def measure_triad(mb: float, threads: int, reps: int) -> Triad:
    """The triad over three arrays of ``mb`` MB together, ``threads`` threads each on its own
    contiguous part, best of ``reps`` (pages touched first). Checks the result."""
    n = max(int(mb * 1e6 / 24.0), threads)
    a = np.full(n, 0.0)  # (np.full writes every page: np.zeros's stay unmapped)
    b = np.full(n, 1.0)
    c = np.full(n, 2.0)
    s = 3.0
    cuts = [n * k // threads for k in range(threads + 1)]
    triad(a, b, c, s, 0, min(n, 16))  # compile outside the timing
    best = float("inf")
    with ThreadPoolExecutor(threads) as pool:
        for _ in range(reps):
            t0 = time.perf_counter()
            futures = [pool.submit(triad, a, b, c, s, cuts[k], cuts[k + 1]) for k in range(threads)]
            for f in futures:
                f.result()
            best = min(best, time.perf_counter() - t0)
    if not np.array_equal(a, b + s * c):
        raise RuntimeError("the triad computed a wrong result")
    return Triad(3 * n * 8 / 1e6, threads, n, best)


# ----- (b) the byte model -------------------------------------------------------------------
@dataclass
class ByteModel:
    """Bytes one iteration (two passes) reads and writes, per node kind and category
    (module docstring), for one storage type; ``nodes`` per kind and pass."""

    precision: str
    average_every: int
    kinds: dict[str, dict[str, float]] = field(
        default_factory=lambda: {k: dict.fromkeys(CATEGORIES, 0.0) for k in KINDS}
    )
    nodes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(KINDS, 0))
    tables_unique: float = 0.0  # each table row once per pass, both passes

    def total(self, category: str) -> float:
        return sum(row[category] for row in self.kinds.values())

    @property
    def storage(self) -> float:
        return self.total("regrets") + self.total("sums") + self.total("scales")

    @property
    def touched(self) -> float:
        return sum(self.total(c) for c in CATEGORIES)

    @property
    def floor_bytes(self) -> float:
        """What must come from memory: storage, tree fields, each table row once a pass."""
        return self.storage + self.total("tree") + self.tables_unique


def _hands(game: Game) -> None:
    """ValueError unless both players hold two-card hands (the hold'em walk's terminals)."""
    cards = game.hands.cards
    if cards.shape[1] == 0 or cards[0, 0, 1] < 0 or cards[1, 0, 1] < 0:
        raise ValueError(f"{game.name}: the byte model covers two-card (hold'em) games only")


def iteration_bytes(game: Game, precision: str, average_every: int = 2) -> ByteModel:
    """The byte model of one iteration of a rule that plays RM of its regrets (the
    strategy derived, not stored) over ``game`` with ``precision`` storage ("float64",
    "float32", "compressed"), the average taking every ``average_every``-th iteration."""
    return pass_bytes(game, precision, average_every, (0, 1))


def pass_bytes(
    game: Game, precision: str, average_every: int = 2, travs: tuple[int, ...] = (0,)
) -> ByteModel:
    """:func:`iteration_bytes` of the passes for the traversers ``travs`` only."""
    if precision not in STORAGE_BYTES:
        raise ValueError(f"precision: one of {', '.join(STORAGE_BYTES)}, got {precision!r}")
    if average_every < 1:
        raise ValueError(f"average_every must be ≥ 1, got {average_every}")
    _hands(game)
    m = ByteModel(precision, average_every)
    for trav in travs:
        _add_pass(game, trav, m)
    return m


def _add_pass(game: Game, trav: int, m: ByteModel) -> None:
    t = game.tree
    s = float(STORAGE_BYTES[m.precision])
    w = 4.0 if m.precision == "float32" else 8.0
    quant = m.precision == "compressed"
    avg = 1.0 / m.average_every
    nt = float(game.hands.num_hands[trav])
    no = float(game.hands.num_hands[1 - trav])
    nc = float(game.hands.num_cards)
    kind = t.kind
    acts = t.num_children.astype(np.float64)
    k = m.kinds

    def node_count(name: str, mask: npt.NDArray[np.bool_]) -> int:
        n = int(np.count_nonzero(mask))
        m.nodes[name] += n
        return n

    # the traverser's decision nodes
    mine = (kind == DECISION) & (t.player == trav)
    n_m = node_count("decision (traverser)", mine)
    a_m = float(acts[mine].sum())
    row = k["decision (traverser)"]
    row["regrets"] += 2 * a_m * nt * s
    row["scales"] += 16.0 * n_m if quant else 0.0
    row["vectors"] += (4 * a_m * nt + 2 * n_m * nt) * w
    row["tree"] += 30.0 * n_m
    # the opponent's decision nodes
    theirs = (kind == DECISION) & (t.player != trav)
    n_o = node_count("decision (opponent)", theirs)
    a_o = float(acts[theirs].sum())
    row = k["decision (opponent)"]
    row["regrets"] += a_o * no * s
    row["sums"] += avg * 2 * a_o * no * s
    row["scales"] += avg * 16.0 * n_o if quant else 0.0
    row["vectors"] += (4 * a_o * no + 2 * a_o * nt + (a_o - n_o) * nt) * w
    row["vectors"] += avg * (n_o * no + a_o * no) * w
    row["tree"] += 30.0 * n_o
    # chance nodes and the cards they deal
    chance = kind == CHANCE
    n_c = node_count("chance", chance)
    parents = game.parents
    dealt = np.flatnonzero((parents >= 0) & (kind[np.maximum(parents, 0)] == CHANCE))
    n_cards = float(dealt.size)
    iso = t.iso_count[dealt]
    n_iso = float(iso.sum())
    row = k["chance"]
    row["vectors"] += (n_c * nt + n_cards * (2 * no + 3 * nt) + n_iso * 3 * nt) * w
    row["tables"] += n_cards * (no + nt) * 8 + n_iso * nt * (8 + 4)
    row["tree"] += 13.0 * n_c + 20.0 * n_cards + 8.0 * n_iso
    # terminals
    same = float(np.count_nonzero(game.hands.same[trav, : int(nt)] >= 0))
    fold_tables = (no + nt) * 8 + nt * 8
    fold_vectors = (no + same + nt) * w
    folds = kind == FIXED
    n_f = node_count("fold", folds)
    row = k["fold"]
    row["tables"] += n_f * fold_tables
    row["vectors"] += n_f * fold_vectors
    row["tree"] += 21.0 * n_f
    shows = kind == SHOWDOWN
    n_s = node_count("showdown", shows)
    raked_s = float(np.count_nonzero(shows & (t.rake != 0.0)))
    row = k["showdown"]
    row["tables"] += n_s * (4 * no + 4 * no + 4 * (nc + 1) + 16 * nt + 8 * nt + 4)
    row["vectors"] += n_s * (3 * no + nt) * w
    row["tree"] += 21.0 * n_s
    row["tables"] += raked_s * fold_tables
    row["vectors"] += raked_s * (fold_vectors + 3 * nt * w)
    runs = kind == RUNOUT
    n_r = node_count("runout", runs)
    raked_r = float(np.count_nonzero(runs & (t.rake != 0.0)))
    row = k["runout"]
    row["tables"] += n_r * no * nt * 8
    row["vectors"] += n_r * (no + nt) * w
    row["tree"] += 25.0 * n_r
    row["tables"] += raked_r * fold_tables
    row["vectors"] += raked_r * (fold_vectors + 3 * nt * w)
    # every table row once (what must come from memory when nothing stays cached)
    opp = 1 - trav
    h = game.hands.num_hands
    trav_boards = [t.board[folds | shows], t.board[dealt]]
    iso_entries = np.concatenate(
        [np.arange(t.iso_start[c], t.iso_start[c] + t.iso_count[c]) for c in dealt[iso > 0]]
        or [np.zeros(0, dtype=np.int64)]
    ).astype(np.int64)
    if raked_s or raked_r or n_f:
        m.tables_unique += float(h[0] + h[1]) * 8  # Hands.pack
    if iso_entries.size:
        trav_boards.append(t.iso_board[iso_entries])
        m.tables_unique += np.unique(t.iso_perm[iso_entries]).size * nt * 4  # Hands.perm
    fold_boards = t.board[folds | ((shows | runs) & (t.rake != 0.0))]
    valid_trav = np.unique(np.concatenate([*trav_boards, fold_boards]))
    valid_opp = np.unique(t.board[dealt])
    m.tables_unique += valid_trav.size * float(h[trav]) * 8 + valid_opp.size * float(h[opp]) * 8
    sd_boards = np.unique(t.board[shows])
    m.tables_unique += sd_boards.size * (4 * no + 4 * no + 4 * (nc + 1) + 16 * nt + 4)
    m.tables_unique += np.unique(t.runout[runs]).size * no * nt * 8


# ----- (c) ours -----------------------------------------------------------------------------
@functools.cache
def _holdem() -> ModuleType:
    """benchmarks/holdem.py (the spots' boards, sizes and ranges), loaded by its path."""
    spec = importlib.util.spec_from_file_location("_floor_holdem", HERE / "holdem.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def spot_spec(name: str) -> dict[str, str]:
    """The board and sizes of spot ``name`` (:mod:`benchmarks.holdem`'s R1, T1, F1s, or
    F3 here); ranges, pot and stack are the peer README's."""
    spots = {**_holdem().SPOTS, **EXTRA_SPOTS}
    if name not in spots:
        raise KeyError(name)
    return spots[name]


def unknown_spot(spots: list[str]) -> str | None:
    """The ``--spots`` error for the first name :func:`spot_spec` does not know, else None."""
    for s in spots:
        try:
            spot_spec(s)
        except KeyError:
            return f"--spots: unknown spot {s!r} (R1, T1, F1s, F3)"
    return None


def build_spot(name: str) -> Game:
    """Spot ``name`` built: pot 200, stack 900, the peer README's ranges."""
    from solver.games.holdem import HoldemSpec, build_holdem

    s = spot_spec(name)
    h = _holdem()
    return build_holdem(HoldemSpec(board=s["board"], pot=200, stack=900, oop_range=h.OOP,
                                   ip_range=h.IP, bets=s["bets"], raises=s["raises"]))  # fmt: skip


def storage_bytes(game: Game, precision: str) -> int:
    """The regrets and strategy sums of a solve (what the engine allocates for them)."""
    return 2 * game.action_size * STORAGE_BYTES[precision]


def available_bytes() -> int:
    try:
        return int(os.sysconf("SC_AVPHYS_PAGES") * os.sysconf("SC_PAGE_SIZE"))
    except (ValueError, OSError):
        return 1 << 62


def measure_ours(
    game: Game, precision: str, threads: int, warmup: int, iterations: int
) -> tuple[float, float]:
    """(ms per iteration, nodes touched per iteration / the full walk's 2 × N) of
    ``dcfr-tuned`` on ``game``, ``warmup`` iterations first, then ``iterations`` timed."""
    from solver import Engine, SolveOptions

    eng = Engine(game, make_rule(RULE), options=SolveOptions(threads=threads, precision=precision))
    eng.iterate(warmup)
    n0 = eng.nodes_touched
    t0 = time.perf_counter()
    eng.iterate(iterations)
    ms = (time.perf_counter() - t0) * 1e3 / iterations
    walked = (eng.nodes_touched - n0) / (2.0 * game.num_nodes * iterations)
    return ms, walked


def l3_bytes() -> int:
    """The last-level cache's size (sysfs), or 32 MB when it cannot be read."""
    base = Path("/sys/devices/system/cpu/cpu0/cache")
    best = 0
    for idx in base.glob("index*"):
        try:
            text = (idx / "size").read_text().strip()
        except OSError:
            continue
        mult = {"K": 1 << 10, "M": 1 << 20, "G": 1 << 30}.get(text[-1:], 1)
        digits = text[:-1] if text[-1:] in "KMG" else text
        if digits.isdigit():
            best = max(best, int(digits) * mult)
    return best or DEFAULT_L3


# ----- the command --------------------------------------------------------------------------
def _ints(text: str, name: str, parser: argparse.ArgumentParser) -> list[int]:
    try:
        out = [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        parser.error(f"{name}: whole numbers separated by commas, got {text!r}")
    if not out:
        parser.error(f"{name}: at least one value expected")
    return out


def parse(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spots", default="T1,F1s,F3", help="R1, T1, F1s, F3")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--storage", default="float32,float64,compressed")
    parser.add_argument("--triad-mb", type=float, default=768.0,
                        help="the three triad arrays together, MB")  # fmt: skip
    parser.add_argument("--reps", type=int, default=10)
    parser.add_argument("--warmup", type=int, default=2)
    parser.add_argument("--iterations", type=int, default=4)
    parser.add_argument("--no-solve", action="store_true", help="the floor only")
    parser.add_argument("--no-footprint", action="store_true",
                        help="no triad at each spot's footprint (DRAM bandwidth only)")  # fmt: skip
    parser.add_argument("--json", action="store_true", help="one JSON object, no tables")
    args = parser.parse_args(argv)
    args.spots = [s.strip() for s in args.spots.split(",") if s.strip()]
    for s in args.spots:
        try:
            spot_spec(s)
        except KeyError:
            parser.error(f"--spots: unknown spot {s!r} (R1, T1, F1s, F3)")
    if not args.spots:
        parser.error("--spots: at least one spot expected")
    args.threads = _ints(args.threads, "--threads", parser)
    cores = os.cpu_count() or 1
    for n in args.threads:
        if not 1 <= n <= cores:
            parser.error(f"--threads: each between 1 and this machine's {cores} cores, got {n}")
    args.storage = [s.strip() for s in args.storage.split(",") if s.strip()]
    for s in args.storage:
        if s not in STORAGE_BYTES:
            parser.error(f"--storage: one of {', '.join(STORAGE_BYTES)}, got {s!r}")
    if not args.storage:
        parser.error("--storage: at least one storage type expected")
    if not args.triad_mb > 0.0:
        parser.error(f"--triad-mb: must be > 0, got {args.triad_mb:g}")
    if args.triad_mb * 1e6 > 0.5 * available_bytes():
        parser.error(f"--triad-mb: {args.triad_mb:g} MB is over half of the "
                     f"{available_bytes() / 1e6:,.0f} MB of free memory")  # fmt: skip
    if args.reps < 1:
        parser.error(f"--reps: must be ≥ 1, got {args.reps}")
    if args.warmup < 0:
        parser.error(f"--warmup: must be ≥ 0, got {args.warmup}")
    if args.iterations < 2 or args.iterations % 2 or args.warmup % 2:
        parser.error("--iterations (≥ 2) and --warmup: even numbers (dcfr-tuned's average "
                     "takes every second iteration)")  # fmt: skip
    return args


def _mb(x: float) -> str:
    return f"{x / 1e6:,.1f}"


def main(argv: list[str] | None = None) -> int:
    args = parse(argv)
    commit = subprocess.run(["git", "-C", str(HERE), "rev-parse", "--short", "HEAD"],
                            capture_output=True, text=True).stdout.strip()  # fmt: skip
    l3 = l3_bytes()
    out: dict = {"commit": commit, "cores": os.cpu_count(), "l3_bytes": l3, "rule": RULE,
                 "bandwidth": [], "spots": []}  # fmt: skip
    bw_rows: list[str] = []
    byte_rows: list[str] = []
    floor_rows: list[str] = []

    def progress(text: str) -> None:
        print(f"# {text}", file=sys.stderr, flush=True)

    def bandwidth(label: str, mb: float, threads: int) -> Triad:
        tr = measure_triad(mb, threads, args.reps)
        out["bandwidth"].append({"label": label, "mb": tr.mb, "threads": threads,
                                 "seconds": tr.seconds, "gbs_stream": tr.gbs_stream,
                                 "gbs_write_allocate": tr.gbs_write_allocate})  # fmt: skip
        bw_rows.append(f"| {label} | {threads} | {tr.mb:,.1f} | {tr.gbs_stream:.2f} | "
                       f"{tr.gbs_write_allocate:.2f} |")  # fmt: skip
        progress(bw_rows[-1])
        return tr

    dram = {n: bandwidth("memory", args.triad_mb, n) for n in args.threads}
    for spot in args.spots:
        t0 = time.perf_counter()
        game = build_spot(spot)
        build_s = time.perf_counter() - t0
        progress(f"{spot}: {game.num_nodes:,} nodes, built in {build_s:.1f} s")
        for prec in args.storage:
            m = iteration_bytes(game, prec, average_every=RULE_AVERAGE_EVERY)
            entry: dict = {"spot": spot, "storage": prec, "build_s": build_s,
                           "nodes": game.num_nodes, "action_size": game.action_size,
                           "storage_bytes": storage_bytes(game, prec),
                           "kinds": m.kinds, "nodes_per_pass": m.nodes,
                           "tables_unique": m.tables_unique, "floor_bytes": m.floor_bytes,
                           "touched_bytes": m.touched, "rows": []}  # fmt: skip
            for kind in KINDS:
                r = m.kinds[kind]
                scales = f" (+{_mb(r['scales'])} scales)" if r["scales"] else ""
                byte_rows.append(
                    f"| {spot} | {prec} | {kind} | {m.nodes[kind] // 2:,} | "
                    f"{_mb(r['regrets'])}{scales} | {_mb(r['sums'])} | {_mb(r['tree'])} | "
                    f"{_mb(r['tables'])} | {_mb(r['vectors'])} | {_mb(sum(r.values()))} |"
                )
            sc = m.total("scales")
            total_scales = f" (+{_mb(sc)} scales)" if sc else ""
            byte_rows.append(
                f"| {spot} | {prec} | **total** | {sum(m.nodes.values()) // 2:,} | "
                f"{_mb(m.total('regrets'))}{total_scales} | {_mb(m.total('sums'))} | "
                f"{_mb(m.total('tree'))} | {_mb(m.total('tables'))} (once a pass: "
                f"{_mb(m.tables_unique)}) | {_mb(m.total('vectors'))} | {_mb(m.touched)} |"
            )
            footprint = storage_bytes(game, prec) + m.total("tree") / 2 + m.tables_unique / 2
            for n in args.threads:
                near: Triad | None = None
                if not args.no_footprint and footprint < 4 * l3:
                    near = bandwidth(f"{spot} {prec} footprint", footprint / 1e6, n)
                floor_ms = m.floor_bytes / (dram[n].gbs_write_allocate * 1e9) * 1e3
                near_ms = m.floor_bytes / (near.gbs_write_allocate * 1e9) * 1e3 if near else None
                row: dict = {"threads": n, "floor_ms": floor_ms, "floor_ms_footprint": near_ms,
                             "ours_ms": None, "walked": None}  # fmt: skip
                if not args.no_solve:
                    need = storage_bytes(game, prec) * 1.2
                    if need > 0.8 * available_bytes():
                        row["skipped"] = f"skipped: needs ~{need / 1e6:,.0f} MB"
                    else:
                        ms, walked = measure_ours(game, prec, n, args.warmup, args.iterations)
                        row["ours_ms"], row["walked"] = ms, walked
                        progress(f"{spot} {prec} {n} thread(s): {ms:.2f} ms an iteration")
                entry["rows"].append(row)
                ours = row["ours_ms"]
                cells = [
                    f"{near_ms:.2f}" if near_ms is not None else "-",
                    row.get("skipped") or ("-" if ours is None else f"{ours:.2f}"),
                    "-" if ours is None else f"{ours / floor_ms:.2f}",
                    "-" if ours is None or near_ms is None else f"{ours / near_ms:.2f}",
                    "-" if row["walked"] is None else f"{100 * row['walked']:.0f} %",
                ]
                floor_rows.append(f"| {spot} | {prec} | {n} | {_mb(m.floor_bytes)} | "
                                  f"{floor_ms:.2f} | {' | '.join(cells)} |")  # fmt: skip
            out["spots"].append(entry)
        del game
    if args.json:
        print(json.dumps(out))
        return 0
    print(f"# {platform.machine()}, {os.cpu_count()} cores, L3 {l3 / 2**20:.0f} MiB, numba "
          f"{numba.__version__}, commit {commit or '?'}; rule {RULE}; triad best of "
          f"{args.reps}, threads: Python threads on a nogil kernel, each its own part")  # fmt: skip
    print("\n| triad | threads | MB (3 arrays) | GB/s (24 B/elt, STREAM) | GB/s (32 B/elt, "
          "write-allocate counted) |\n|---|---:|---:|---:|---:|")  # fmt: skip
    print("\n".join(bw_rows))
    print("\n| spot | storage | node kind | nodes a pass | regrets MB | sums MB | tree MB | "
          "tables MB (per visit) | vectors MB | touched MB |\n"
          "|---|---|---|---:|---:|---:|---:|---:|---:|---:|")  # fmt: skip
    print("\n".join(byte_rows))
    print("\n| spot | storage | threads | floor MB/it | floor ms/it (memory) | floor ms/it "
          "(footprint) | ours ms/it | ours / floor (memory) | ours / floor (footprint) | "
          "nodes touched |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")  # fmt: skip
    print("\n".join(floor_rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
