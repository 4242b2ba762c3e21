"""The 1,755 strategically distinct flops, their weights, textures, subsets and filters.

**Canonical flops.** Two flops are the same spot when a permutation of the four suits maps
one onto the other (for ranges that are themselves suit-symmetric, as range text is). Of the
C(52, 3) = 22,100 raw flops, 1,755 classes remain. Each class is named by its *canonical*
flop: the three cards sorted high to low with the suits relabelled in order of first
appearance (spades, hearts, diamonds; for a paired flop, the relabelling whose sorted card
tuple is smallest). Its **weight** is the number of raw flops it stands for: unpaired
monotone 4, two-tone 12, rainbow 24; paired 12; trips 4. The weights sum to 22,100.

**Textures** (:class:`Flop` fields): ``suits`` — ``monotone`` (one suit), ``two-tone`` or
``rainbow``; ``pairing`` — ``unpaired``, ``paired`` or ``trips``; ``high`` — the highest rank
character (``"A"`` … ``"2"``); ``connect`` — ``connected`` (three distinct ranks within a
window of three, the ace also low: 987, QJT, A23), ``semi`` (within a window of five: a
straight is possible with two hole cards, e.g. T86, AQJ, 542) or ``disconnected`` (every paired
and trips flop too).

**Subsets** of 25, 49, 95 and 184 flops (:func:`subset`), our own method, deterministic:

1. *Strata*: suits × pairing (six non-empty cells: rainbow / two-tone / monotone unpaired,
   rainbow / two-tone paired, trips). Each stratum gets flops in proportion to its weight
   (largest remainder), at least one.
2. *Spread*: inside a stratum the flops are ordered by connectedness, then high, middle and
   low card (high to low); the stratum's ``n`` flops are the ones at the cumulative-weight
   midpoints ``(k + ½) / n``, k = 0 … n − 1 — a systematic sample that covers every high card
   in proportion.
3. *Re-fit*: the chosen flops' weights are raked (iterative proportional fitting) until the
   subset's weighted frequencies of the strata, of the high-card groups (:data:`HIGH_GROUPS`),
   of connectedness and of the middle card's group (2–6, 7–T, J–A) equal the full set's (to
   1e-9), then scaled to sum to 22,100 (rounded to 1e-6), so a weighted mean over the
   subset estimates the mean over all 1,755 flops. (A margin cell the sample missed is
   first filled by swapping in that cell's heaviest flop.)

``tests/test_flops.py`` checks those frequencies and, within stated tolerances, features the
fit does not target (each single high card, the mean middle and low card); BENCHMARKS.md
shows how close each subset's aggregate of a solved spot comes to the 1,755-flop value.

**Filters** (:func:`apply_filters`): by ``suits``, ``pairing``, ``high``, ``connect`` (each a
set of allowed values); an explicit list of flops is :func:`parse_flop_list`.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache

import numpy as np

from solver.poker.cards import RANKS, SUITS, CardError, parse_cards
from solver.quoting import brief

NUM_RAW_FLOPS = 22_100
SUBSET_SIZES = (25, 49, 95, 184)
ALL = 1755

SUIT_CLASSES = ("monotone", "two-tone", "rainbow")
PAIRINGS = ("unpaired", "paired", "trips")
CONNECTS = ("connected", "semi", "disconnected")
HIGH_CARDS = tuple(RANKS[::-1])  # "A", "K", ..., "2"
HIGH_GROUPS: tuple[tuple[str, ...], ...] = (
    ("A",),
    ("K",),
    ("Q",),
    ("J",),
    ("T",),
    ("9",),
    ("8",),
    ("7", "6", "5", "4", "3", "2"),
)
"""The high-card groups a subset's weights are fitted to (the rarer low highs pooled)."""

FILTER_KEYS = {
    "suits": SUIT_CLASSES,
    "pairing": PAIRINGS,
    "high": HIGH_CARDS,
    "connect": CONNECTS,
}
"""Filter keys and their allowed values (``texture`` is accepted as a synonym of ``suits``,
``paired`` of ``pairing``)."""
_KEY_SYNONYMS = {"texture": "suits", "paired": "pairing", "highcard": "high", "high_card": "high"}


class FlopError(ValueError):
    """Bad flop-set input; ``field`` names it (``flops``, ``filter``, …)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class Flop:
    """One canonical flop: ``cards`` (3 card indices, high to low), its weight (raw flops it
    stands for; in a subset, the re-fitted weight) and its texture."""

    cards: tuple[int, int, int]
    weight: float
    suits: str
    pairing: str
    high: str
    connect: str

    @property
    def text(self) -> str:
        """``"AsKh7d"`` (canonical suits)."""
        return "".join(RANKS[c >> 2] + SUITS[c & 3] for c in self.cards)

    @property
    def ranks(self) -> tuple[int, int, int]:
        return (self.cards[0] >> 2, self.cards[1] >> 2, self.cards[2] >> 2)

    @property
    def texture(self) -> str:
        """A short texture label, e.g. ``"two-tone unpaired"``, ``"rainbow paired"``."""
        return f"{self.suits} {self.pairing}"

    def group_of(self, key: str) -> str:
        """The value of a texture field by filter key (``suits``, ``pairing``, ``high``,
        ``connect``)."""
        return str(getattr(self, _KEY_SYNONYMS.get(key, key)))


def canonical(cards: Sequence[int]) -> tuple[int, int, int]:
    """The canonical form of a flop (3 distinct card indices): sorted high to low, suits
    relabelled in order of first appearance (spades, hearts, diamonds)."""
    if len(cards) != 3 or len(set(cards)) != 3:
        raise FlopError("flops", "a flop is three distinct cards")
    ordered = sorted(cards, key=lambda c: (c >> 2, -(c & 3)), reverse=True)
    # ties in rank: every suit order of a pair is one class; try each and keep the least
    best: tuple[int, int, int] | None = None
    for perm in _rank_tie_orders(ordered):
        relabel: dict[int, int] = {}
        out = []
        for c in perm:
            s = c & 3
            if s not in relabel:
                relabel[s] = len(relabel)
            out.append((c >> 2) * 4 + relabel[s])
        key = (out[0], out[1], out[2])
        cand = tuple(sorted(key, key=lambda c: (c >> 2, -(c & 3)), reverse=True))
        if best is None or cand < best:
            best = cand  # type: ignore[assignment]
    assert best is not None
    return best


def _rank_tie_orders(cards: list[int]) -> list[list[int]]:
    """Every order of ``cards`` (sorted by rank, high first) that keeps the rank order."""
    out = []
    for perm in itertools.permutations(cards):
        if all((perm[i] >> 2) >= (perm[i + 1] >> 2) for i in range(2)):
            out.append(list(perm))
    return out


def _texture(cards: tuple[int, int, int]) -> tuple[str, str, str, str]:
    ranks = sorted({c >> 2 for c in cards}, reverse=True)
    nsuits = len({c & 3 for c in cards})
    suits = SUIT_CLASSES[nsuits - 1]
    pairing = PAIRINGS[3 - len(ranks)]
    high = RANKS[ranks[0]]
    connect = "disconnected"
    if len(ranks) == 3:
        spans = [ranks[0] - ranks[2]]
        if ranks[0] == 12:  # the ace plays low too: A32 spans 3-2-A
            low = sorted([-1, ranks[1], ranks[2]])
            spans.append(low[2] - low[0])
        span = min(spans)
        connect = "connected" if span == 2 else "semi" if span <= 4 else "disconnected"
    return suits, pairing, high, connect


@cache
def all_flops() -> tuple[Flop, ...]:
    """The 1,755 canonical flops with their weights (raw flops each stands for), ordered
    high card first (by the canonical card tuple, descending)."""
    counts: dict[tuple[int, int, int], int] = {}
    for raw in itertools.combinations(range(52), 3):
        key = canonical(raw)
        counts[key] = counts.get(key, 0) + 1
    out = [Flop(k, float(w), *_texture(k)) for k, w in counts.items()]
    out.sort(key=lambda f: f.cards, reverse=True)
    return tuple(out)


@cache
def _index() -> dict[tuple[int, int, int], Flop]:
    return {f.cards: f for f in all_flops()}


def lookup(cards: Sequence[int]) -> Flop:
    """The canonical flop (with its full weight) that ``cards`` stands for."""
    return _index()[canonical(cards)]


def parse_flop(text: str) -> Flop:
    """A flop from text (``"Ah Kd 7c"``), as its canonical flop; :class:`FlopError` if bad."""
    try:
        cards = parse_cards(text)
    except CardError as exc:
        raise FlopError("flops", f"{text!r}: {exc}") from None
    if len(cards) != 3:
        raise FlopError("flops", f"{text!r}: a flop has 3 cards, got {len(cards)}")
    return lookup(cards)


def parse_flop_list(text: str) -> tuple[Flop, ...]:
    """Flops from a list: comma- or semicolon-separated (``"AhKd7c, Ks Kd 5d"``), or
    space-separated six-character flops (``"AhKd7c Qs8s3d"``), or one run of cards taken
    three at a time (``"AhKd7cQs8s3d"``). Each canonical flop once (isomorphic repeats are
    dropped), in the order given. The list is one text (a list of texts is refused)."""
    if not isinstance(text, str):
        raise FlopError(
            "flops", f"the flop list must be text such as 'AhKd7c, Qs8s3d', got {brief(text)}"
        )
    items = [t.strip() for t in text.replace(";", ",").split(",") if t.strip()]
    if len(items) == 1:
        words = items[0].split()
        if len(words) > 1 and all(len(w) == 6 for w in words):
            items = words
        else:
            run = "".join(words)
            if len(run) % 6:
                raise FlopError("flops", f"{text!r}: expected whole flops of three cards")
            items = [run[i : i + 6] for i in range(0, len(run), 6)]
    if not items:
        raise FlopError("flops", "the list is empty")
    seen: dict[tuple[int, int, int], Flop] = {}
    for t in items:
        f = parse_flop(t)
        seen.setdefault(f.cards, f)
    return tuple(seen.values())


# ----- subsets ------------------------------------------------------------------------------


def _stratum(f: Flop) -> tuple[str, str]:
    return (f.suits, f.pairing)


def _high_group(f: Flop) -> int:
    for i, g in enumerate(HIGH_GROUPS):
        if f.high in g:
            return i
    raise AssertionError(f.high)


def _middle_group(f: Flop) -> int:
    """The middle card (second highest of the three): 2–6, 7–T or J–A."""
    r = f.ranks[1]
    return 0 if r <= 4 else 1 if r <= 8 else 2


_MARGINS = (
    lambda f: _stratum(f),
    lambda f: _high_group(f),
    lambda f: f.connect,
    _middle_group,
)


def _allocate(shares: Mapping[tuple[str, str], float], n: int) -> dict[tuple[str, str], int]:
    """Largest-remainder allocation of ``n`` by ``shares`` (summing to 1), each ≥ 1."""
    keys = sorted(shares)
    alloc = {k: max(1, int(shares[k] * n)) for k in keys}
    while sum(alloc.values()) < n:
        k = max(keys, key=lambda k: (shares[k] * n - alloc[k], k))
        alloc[k] += 1
    while sum(alloc.values()) > n:
        k = min((k for k in keys if alloc[k] > 1), key=lambda k: (shares[k] * n - alloc[k], k))
        alloc[k] -= 1
    return alloc


def _rake(flops: Sequence[Flop], weights: np.ndarray, full: Sequence[Flop]) -> np.ndarray:
    """Iterative proportional fitting of ``weights`` to the full set's margins."""
    total = sum(f.weight for f in full)
    w = weights.astype(np.float64).copy()
    margins = []
    for key in _MARGINS:
        target: dict[object, float] = {}
        for f in full:
            target[key(f)] = target.get(key(f), 0.0) + f.weight / total
        labels = [key(f) for f in flops]
        missing = set(target) - set(labels)
        if missing:
            raise AssertionError(f"subset misses margin cells {missing}")
        margins.append((labels, target))
    for _ in range(2000):
        worst = 0.0
        for labels, target in margins:
            s = w.sum()
            have: dict[object, float] = {}
            for lab, x in zip(labels, w, strict=True):
                have[lab] = have.get(lab, 0.0) + x / s
            worst = max(worst, max(abs(have[k] - target[k]) for k in target))
            w = np.array(
                [x * target[lab] / have[lab] for lab, x in zip(labels, w, strict=True)],
                dtype=np.float64,
            )
        if worst < 1e-12:
            break
    return np.round(w * (total / w.sum()), 6)


def _missing(chosen: Sequence[Flop], full: Sequence[Flop]) -> list[tuple[int, object]]:
    """(margin, cell) pairs the full set has and ``chosen`` lacks."""
    out = []
    for m, key in enumerate(_MARGINS):
        have = {key(f) for f in chosen}
        out += [(m, cell) for cell in dict.fromkeys(key(f) for f in full) if cell not in have]
    return out


def _cover(
    chosen: list[Flop], orders: Mapping[tuple[str, str], list[Flop]], full: Sequence[Flop]
) -> list[Flop]:
    """Swap picks until every margin cell has a flop (the raking needs one in each): the
    missing cell's heaviest flop comes from the stratum with the most picks, replacing the
    pick nearest to it in that stratum's order whose removal leaves no new gap."""
    chosen = list(chosen)
    for _ in range(50):
        gaps = _missing(chosen, full)
        if not gaps:
            return chosen
        m, cell = gaps[0]
        key = _MARGINS[m]
        counts = {s: sum(1 for f in chosen if _stratum(f) == s) for s in orders}
        for s in sorted(orders, key=lambda s: (-counts[s], s)):
            cands = [f for f in orders[s] if key(f) == cell and f not in chosen]
            if not cands or counts[s] < 2:
                continue
            new = max(cands, key=lambda f: (f.weight, f.cards))
            pos = orders[s].index(new)
            picks = sorted(
                (f for f in chosen if _stratum(f) == s),
                key=lambda f: abs(orders[s].index(f) - pos),
            )
            for old in picks:
                trial = [new if f == old else f for f in chosen]
                if len(_missing(trial, full)) < len(gaps):
                    chosen = trial
                    break
            else:
                continue
            break
        else:
            raise AssertionError(f"cannot cover margin cell {cell!r}")
    raise AssertionError("cannot cover every margin cell")


@cache
def subset(n: int) -> tuple[Flop, ...]:
    """The weighted subset of ``n`` flops (one of :data:`SUBSET_SIZES`, or 1755 for all);
    see the module doc for the method. Weights sum to 22,100."""
    full = all_flops()
    if n == ALL:
        return full
    if n not in SUBSET_SIZES:
        sizes = ", ".join(str(s) for s in (*SUBSET_SIZES, ALL))
        raise FlopError("flops", f"no subset of {n} flops (use {sizes}, 'all' or a list)")
    by_stratum: dict[tuple[str, str], list[Flop]] = {}
    for f in full:
        by_stratum.setdefault(_stratum(f), []).append(f)
    shares = {k: sum(f.weight for f in v) / NUM_RAW_FLOPS for k, v in by_stratum.items()}
    alloc = _allocate(shares, n)
    chosen: list[Flop] = []
    orders: dict[tuple[str, str], list[Flop]] = {}
    for key in sorted(by_stratum):
        members = sorted(
            by_stratum[key],
            key=lambda f: (-CONNECTS.index(f.connect), f.ranks[0], f.ranks[1], f.ranks[2]),
            reverse=True,
        )
        orders[key] = members
        w = np.array([f.weight for f in members])
        cum = np.cumsum(w) / w.sum()
        k = alloc[key]
        picks: list[int] = []
        for j in range(k):
            i = int(np.searchsorted(cum, (j + 0.5) / k))
            while i in picks:  # tiny strata: the next unused flop
                i = (i + 1) % len(members)
            picks.append(i)
        chosen += [members[i] for i in sorted(picks)]
    chosen = _cover(chosen, orders, full)
    w0 = np.array([f.weight for f in chosen])
    w = _rake(chosen, w0, full)
    out = [
        Flop(f.cards, float(x), f.suits, f.pairing, f.high, f.connect)
        for f, x in zip(chosen, w, strict=True)
    ]
    out.sort(key=lambda f: f.cards, reverse=True)
    return tuple(out)


def frequencies(flops: Iterable[Flop], key: str) -> dict[str, float]:
    """Weighted frequency of each value of texture field ``key`` over ``flops``."""
    fl = list(flops)
    total = sum(f.weight for f in fl)
    out: dict[str, float] = {}
    for f in fl:
        v = f.group_of(key)
        out[v] = out.get(v, 0.0) + f.weight / total
    return out


# ----- filters --------------------------------------------------------------------------------


def parse_filter(text: str) -> tuple[str, frozenset[str]]:
    """``"suits=monotone,two-tone"`` → ``("suits", {...})``; values are checked."""
    if not isinstance(text, str):
        raise FlopError("filter", f"a filter must be text KEY=VALUE[,VALUE…], got {brief(text)}")
    key, eq, raw = text.partition("=")
    key = key.strip().lower()
    key = _KEY_SYNONYMS.get(key, key)
    if not eq or key not in FILTER_KEYS:
        keys = ", ".join(FILTER_KEYS)
        raise FlopError("filter", f"{text!r}: expected KEY=VALUE[,VALUE…] with KEY one of {keys}")
    allowed = FILTER_KEYS[key]
    values = set()
    for v in raw.split(","):
        v = v.strip()
        if not v:
            continue
        match = next((a for a in allowed if a.lower() == v.lower()), None)
        if match is None:
            raise FlopError("filter", f"{key}: unknown value {v!r} (use {', '.join(allowed)})")
        values.add(match)
    if not values:
        raise FlopError("filter", f"{key}: no value given")
    return key, frozenset(values)


def apply_filters(
    flops: Iterable[Flop], filters: Mapping[str, Iterable[str]] | None
) -> tuple[Flop, ...]:
    """The flops whose texture matches every filter (key → allowed values: a filter key of
    :data:`FILTER_KEYS` or a synonym → a collection of its values as text). A filter that
    is not such a mapping, an unknown key or value: :class:`FlopError` (field ``filter``)."""
    out = list(flops)
    bad = next((f for f in out if not isinstance(f, Flop)), None)
    if bad is not None:
        raise FlopError("flops", f"expected Flop objects, got {brief(bad)}")
    if filters is not None and not isinstance(filters, Mapping):
        raise FlopError(
            "filter", f"filters must be a mapping of key to values, got {brief(filters)}"
        )
    for key, values in (filters or {}).items():
        name = _KEY_SYNONYMS.get(key, key) if isinstance(key, str) else key
        if name not in FILTER_KEYS:
            keys = ", ".join(FILTER_KEYS)
            raise FlopError("filter", f"unknown filter key {brief(key)} (use {keys})")
        if isinstance(values, str) or not isinstance(values, Iterable):
            raise FlopError("filter", f"{name}: expected a list of values, got {brief(values)}")
        wanted = list(values)
        for v in wanted:
            if not isinstance(v, str) or v not in FILTER_KEYS[name]:
                use = ", ".join(FILTER_KEYS[name])
                raise FlopError("filter", f"{name}: unknown value {brief(v)} (use {use})")
        allowed = set(wanted)
        out = [f for f in out if f.group_of(name) in allowed]
    return tuple(out)


def select(
    flops: str | int | None = 49, filters: Mapping[str, Iterable[str]] | None = None
) -> tuple[Flop, ...]:
    """A flop set: ``flops`` is a subset size (25, 49, 95, 184), ``1755``/``"all"``, or an
    explicit list of flops as text; then ``filters``. :class:`FlopError` when nothing is
    left."""
    if flops is None:
        flops = 49
    if isinstance(flops, str):
        text = flops.strip().lower()
        if text == "all":
            base = all_flops()
        elif text.isascii() and text.isdigit():  # ('²'.isdigit() is True)
            base = subset(int(text))
        else:
            base = parse_flop_list(flops)
    elif isinstance(flops, (int, np.integer)) and not isinstance(flops, (bool, np.bool_)):
        base = subset(int(flops))
    else:
        raise FlopError(
            "flops",
            f"must be a subset size ({', '.join(map(str, SUBSET_SIZES))}), 1755, 'all' or a "
            f"list of flops as text, got {brief(flops)}",
        )
    out = apply_filters(base, filters)
    if not out:
        shown = "; ".join(f"{k}={','.join(sorted(v))}" for k, v in (filters or {}).items())
        raise FlopError("filter", f"no flop of the set is left after {shown}")
    return out
