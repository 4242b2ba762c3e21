"""Exact heads-up preflop all-in equities, from the project's own evaluator.

For two disjoint hole-card combos ``h`` and ``j`` (indices of :data:`solver.poker.cards.COMBOS`),
``wins[h, j]`` is the number of the C(48, 5) = 1,712,304 five-card boards (none of the four
hole cards) on which ``h`` beats ``j`` (:func:`solver.poker.handeval.rank_packed`); the boards
neither wins are ties. Nothing is sampled.

**How it is made** (:func:`count_wins`; ~20 s of one core here, docs/preflop.md). Board by
board, not matchup by matchup: each board ranks all 1,326 combos once (1,326 evaluations,
not two per matchup), then one branch-free pass adds the board's weight to ``W[h, j]`` for
every pair where ``h`` ranks higher — ``W``'s rows stay in the L1 cache while a batch of
boards goes over them, and the comparisons vectorise (int32 lanes). Only one board per
class of suit permutations is walked (134,459 of the 2,598,960), weighted by the size of its
class; the sum over the 24 suit permutations of ``W`` with rows and columns permuted, divided
by 24, is then the count over every board (the division is exact and is checked). Pairs that
share a card are zeroed.

**How it is stored**: ``solver/data/preflop_equity.npz`` holds one entry per class of
matchups under suit permutations (47,008 unordered pairs) — the pair and both win counts —
and :func:`expand` fills the 1,326 × 1,326 table from them. When that file is missing, the
table is built once into the user's cache with a progress line (:func:`load_wins`).
``python -m solver.poker.preflop_equity --out PATH`` rebuilds the file.
"""

from __future__ import annotations

import argparse
import functools
import itertools
import os
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np
import numpy.typing as npt

from solver.jit import kernel
from solver.poker.cards import COMBO_INDEX, COMBOS, NUM_COMBOS, parse_combo
from solver.poker.handeval import card_bit, rank_packed

IntArray = npt.NDArray[np.int64]
BOARDS_PER_MATCHUP = 1_712_304  # C(48, 5)
NUM_MATCHUP_CLASSES = 47_008  # unordered disjoint combo pairs up to suit permutation
DATA_PATH = Path(__file__).resolve().parent.parent / "data" / "preflop_equity.npz"
FORMAT = 1
_UNRANKED = np.int32(2**31 - 1)  # a combo the board blocks: never beaten, never beats
BATCH = 64  # boards per kernel call: W's row stays in L1 across them (64 was as fast as 16)


# ----- suit permutations -------------------------------------------------------------------
def suit_permutations() -> IntArray:
    """(24, 4): every permutation of the four suits."""
    return np.array(list(itertools.permutations(range(4))), dtype=np.int64)


def card_maps() -> IntArray:
    """(24, 52): card ``c`` → its image under each suit permutation (rank kept)."""
    c = np.arange(52, dtype=np.int64)
    return (c - c % 4)[None, :] + suit_permutations()[:, c % 4]


def combo_maps() -> IntArray:
    """(24, 1326): combo index → the combo index of its image under each suit permutation."""
    cm = card_maps()
    return COMBO_INDEX[cm[:, COMBOS[:, 0]], cm[:, COMBOS[:, 1]]].astype(np.int64)


def canonical_boards(deck: IntArray | None = None) -> tuple[IntArray, IntArray]:
    """One five-card board of ``deck`` (default: all 52 cards; must be closed under suit
    permutations) per class of suit permutations, and each class's size: ``(boards (m, 5),
    orbit (m,))`` with ``orbit.sum()`` = C(len(deck), 5)."""
    cards = np.arange(52, dtype=np.int64) if deck is None else np.asarray(deck, dtype=np.int64)
    boards = np.array(list(itertools.combinations(cards.tolist(), 5)), dtype=np.int64)
    rank, suit = boards // 4, boards % 4
    key = np.full(boards.shape[0], np.iinfo(np.int64).max, dtype=np.int64)
    for perm in suit_permutations():
        image = np.sort(rank * 4 + perm[suit], axis=1)
        k = image[:, 0]
        for i in range(1, 5):
            k = k * 52 + image[:, i]
        np.minimum(key, k, out=key)
    reps, orbit = np.unique(key, return_counts=True)
    out = np.empty((reps.size, 5), dtype=np.int64)
    for i in range(4, -1, -1):
        out[:, i] = reps % 52
        reps = reps // 52
    return out, orbit.astype(np.int64)


# ----- the counting kernel -----------------------------------------------------------------
@kernel
def _accumulate(
    boards: npt.NDArray[np.int64],
    weight: npt.NDArray[np.int64],
    combos: npt.NDArray[np.int64],
    wins: npt.NDArray[np.int32],
    ranks: npt.NDArray[np.int32],
) -> None:
    """wins[h, j] += weight[k] for every board ``boards[k]`` (m, 5) on which combo ``h``
    ranks strictly above combo ``j`` (``combos`` (n, 2); ``wins`` (n, n) int32, in place),
    counting only boards that block neither. ``ranks`` is (≥ m, n) scratch."""
    m = boards.shape[0]
    n = combos.shape[0]
    for k in range(m):
        packed = 0
        for i in range(5):
            packed |= card_bit(boards[k, i])
        for h in range(n):
            both = card_bit(combos[h, 0]) | card_bit(combos[h, 1])
            if packed & both:
                ranks[k, h] = _UNRANKED
            else:
                ranks[k, h] = rank_packed(packed | both)
    for h in range(n):
        row = wins[h]
        for k in range(m):
            rh = ranks[k, h]
            if rh == _UNRANKED:
                continue
            w = np.int32(weight[k])
            rk = ranks[k]
            for j in range(n):  # branch-free: vector lanes
                row[j] += w * np.int32(rh > rk[j])


def accumulate(
    boards: npt.ArrayLike,
    weight: npt.ArrayLike,
    wins: npt.NDArray[np.int32],
    ranks: npt.NDArray[np.int32],
) -> None:
    """Add the weighted boards ``boards`` (m, 5) to ``wins`` (1326, 1326) int32 in place (see
    :func:`_accumulate`); ``ranks`` is (≥ m, 1326) int32 scratch."""
    b = np.ascontiguousarray(boards, dtype=np.int64)
    w = np.ascontiguousarray(weight, dtype=np.int64)
    if b.ndim != 2 or b.shape[1] != 5 or w.shape != (b.shape[0],):
        raise ValueError(f"boards (m, 5) and weight (m,) expected, got {b.shape}, {w.shape}")
    if b.size and (b.min() < 0 or b.max() > 51):
        raise ValueError("boards: card indices must be in 0..51")
    if wins.shape != (NUM_COMBOS, NUM_COMBOS) or wins.dtype != np.int32:
        raise ValueError("wins must be a (1326, 1326) int32 array")
    if ranks.dtype != np.int32 or ranks.shape[0] < b.shape[0] or ranks.shape[1] != NUM_COMBOS:
        raise ValueError("ranks must be (≥ m, 1326) int32 scratch")
    _accumulate(b, w, COMBOS.astype(np.int64), wins, ranks)


def symmetrize(partial: npt.NDArray[np.integer]) -> IntArray:
    """The counts over every board from those over one board per suit class weighted by its
    class size: (1/24) Σ_σ partial[σh, σj]; colliding pairs zeroed. ValueError if a sum is
    not a multiple of 24 (then the classes were wrong)."""
    total = np.zeros((NUM_COMBOS, NUM_COMBOS), dtype=np.int64)
    for cm in combo_maps():
        total += partial[np.ix_(cm, cm)]
    if np.any(total % 24):
        raise ValueError("suit-symmetrised counts are not multiples of 24")
    total //= 24
    total[collisions()] = 0
    return total


@functools.cache
def collisions() -> npt.NDArray[np.bool_]:
    """(1326, 1326): True where two combos share a card (the diagonal included)."""
    c = COMBOS
    return (
        (c[:, None, 0] == c[None, :, 0])
        | (c[:, None, 0] == c[None, :, 1])
        | (c[:, None, 1] == c[None, :, 0])
        | (c[:, None, 1] == c[None, :, 1])
    )


def count_wins(
    deck: IntArray | None = None,
    threads: int = 1,
    progress: Callable[[float], None] | None = None,
) -> IntArray:
    """(1326, 1326) int64: ``[h, j]`` = boards of five cards of ``deck`` (default all 52;
    closed under suit permutations) that block neither combo and on which ``h`` wins.
    ``threads`` share the boards (each its own table: the kernel releases the GIL);
    ``progress`` gets the fraction done after each batch."""
    boards, orbit = canonical_boards(deck)
    parts = np.array_split(np.arange(boards.shape[0]), max(1, threads))
    done = [0]

    def work(idx: IntArray) -> npt.NDArray[np.int32]:
        wins = np.zeros((NUM_COMBOS, NUM_COMBOS), dtype=np.int32)
        ranks = np.empty((BATCH, NUM_COMBOS), dtype=np.int32)
        for s in range(0, idx.size, BATCH):
            sel = idx[s : s + BATCH]
            accumulate(boards[sel], orbit[sel], wins, ranks)
            done[0] += sel.size
            if progress is not None:
                progress(done[0] / boards.shape[0])
        return wins

    with ThreadPoolExecutor(max_workers=len(parts)) as pool:
        tables = list(pool.map(work, parts))
    partial = np.zeros((NUM_COMBOS, NUM_COMBOS), dtype=np.int64)
    for t in tables:
        partial += t
    return symmetrize(partial)


# ----- storage -----------------------------------------------------------------------------
def matchup_classes() -> tuple[IntArray, IntArray]:
    """One unordered pair of disjoint combos ``(a[k], b[k])``, a < b, per class of suit
    permutations (:data:`NUM_MATCHUP_CLASSES` of them), in increasing order."""
    hi, lo = np.triu_indices(NUM_COMBOS, 1)
    keep = ~collisions()[hi, lo]
    hi, lo = hi[keep], lo[keep]
    key = np.full(hi.size, np.iinfo(np.int64).max, dtype=np.int64)
    for cm in combo_maps():
        x, y = cm[hi], cm[lo]
        np.minimum(key, np.minimum(x, y) * NUM_COMBOS + np.maximum(x, y), out=key)
    reps = np.unique(key)
    return reps // NUM_COMBOS, reps % NUM_COMBOS


def compress(wins: IntArray) -> dict[str, npt.NDArray[np.generic]]:
    """The arrays stored for ``wins``: per matchup class its pair and both counts."""
    a, b = matchup_classes()
    return {
        "format": np.array(FORMAT),
        "boards": np.array(BOARDS_PER_MATCHUP),
        "a": a.astype(np.uint16),
        "b": b.astype(np.uint16),
        "wins_a": wins[a, b].astype(np.uint32),
        "wins_b": wins[b, a].astype(np.uint32),
    }


def expand(a: IntArray, b: IntArray, wins_a: IntArray, wins_b: IntArray) -> IntArray:
    """(1326, 1326) int64 wins from the per-class entries (:func:`compress`); ValueError
    unless every disjoint pair is filled and each class agrees with itself."""
    out = np.full((NUM_COMBOS, NUM_COMBOS), -1, dtype=np.int64)
    a, b = a.astype(np.int64), b.astype(np.int64)
    for cm in combo_maps():
        x, y = cm[a], cm[b]
        for p, q, v in ((x, y, wins_a), (y, x, wins_b)):
            seen = out[p, q]
            if np.any((seen >= 0) & (seen != v)):
                raise ValueError("preflop equity file: a matchup class disagrees with itself")
            out[p, q] = v
    coll = collisions()
    if np.any(out[~coll] < 0):
        raise ValueError("preflop equity file: some matchups are missing")
    out[coll] = 0
    return out


def save(path: Path, wins: IntArray) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp.npz")
    np.savez_compressed(tmp, **compress(wins))  # type: ignore[arg-type]
    os.replace(tmp, path)


def read(path: Path) -> IntArray:
    """The table stored at ``path`` (ValueError if it is not one)."""
    with np.load(path, allow_pickle=False) as f:
        if int(f["format"]) != FORMAT or int(f["boards"]) != BOARDS_PER_MATCHUP:
            raise ValueError(f"{path}: not a preflop equity table of format {FORMAT}")
        if f["a"].shape != (NUM_MATCHUP_CLASSES,):
            raise ValueError(f"{path}: expected {NUM_MATCHUP_CLASSES} matchup classes")
        return expand(f["a"], f["b"], f["wins_a"], f["wins_b"])


def cache_path() -> Path:
    """Where a table built on this machine goes when the package has none."""
    home = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return home / "regret-lab" / "preflop_equity.npz"


def _progress_line(fraction: float) -> None:
    print(f"\rpreflop equities: {100 * fraction:5.1f} %", end="", file=sys.stderr, flush=True)


@functools.cache
def load_wins() -> IntArray:
    """The (1326, 1326) win counts, read-only: from the package's file, else from the user's
    cache, else built there once (about half a minute, with a progress line on stderr)."""
    for path in (DATA_PATH, cache_path()):
        if path.exists():
            wins = read(path)
            break
    else:
        print("preflop equities: building the table once (exact, all boards)", file=sys.stderr)
        t0 = time.perf_counter()
        wins = count_wins(threads=min(2, os.cpu_count() or 1), progress=_progress_line)
        print(f"\npreflop equities: done in {time.perf_counter() - t0:.0f} s", file=sys.stderr)
        save(cache_path(), wins)
    wins.flags.writeable = False
    return wins


@functools.cache
def allin_sign() -> npt.NDArray[np.float64]:
    """(1326, 1326): [h, j] = P(h wins) − P(j wins) over the boards, all in preflop; 0 for
    pairs that share a card. Antisymmetric; what an all-in pays per chip each put in."""
    w = load_wins().astype(np.float64)
    out = (w - w.T) / BOARDS_PER_MATCHUP
    out.flags.writeable = False
    return out


def equity(h: int | str, j: int | str) -> float:
    """Combo ``h``'s all-in equity against ``j`` (ties count half): combo indices or text
    such as ``"AsKs"``."""
    a = parse_combo(h) if isinstance(h, str) else int(h)
    b = parse_combo(j) if isinstance(j, str) else int(j)
    if collisions()[a, b]:
        raise ValueError("the two hands share a card")
    w = load_wins()
    win, lose = int(w[a, b]), int(w[b, a])
    return (win + 0.5 * (BOARDS_PER_MATCHUP - win - lose)) / BOARDS_PER_MATCHUP


def main(argv: list[str] | None = None) -> int:
    """``python -m solver.poker.preflop_equity [--out PATH] [--threads N]``: build the table and
    write it (default: the package's file), with the time taken."""
    parser = argparse.ArgumentParser(prog="python -m solver.poker.preflop_equity")
    parser.add_argument("--out", type=Path, default=DATA_PATH)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    t0 = time.perf_counter()
    wins = count_wins(threads=max(1, args.threads), progress=_progress_line)
    seconds = time.perf_counter() - t0
    save(args.out, wins)
    size = args.out.stat().st_size
    print(f"\nwrote {args.out} ({size:,} bytes) in {seconds:.1f} s", file=sys.stderr)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
