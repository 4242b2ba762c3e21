"""Hand ranges: range text, the 13×13 hand-class grid and per-combo weights.

A range is a (1326,) float64 array of weights in [0, 1], one per two-card combo in the order of
:data:`solver.poker.cards.COMBOS`.

Range text is a comma-separated list of tokens (whitespace anywhere is ignored, empty text is the
empty range). Each token sets the weight of the combos it covers; later tokens override earlier
ones, so ``"AK, AsKs:0"`` is AK without the suited ace of spades.

=================  ====================================================================
``AA``             a pair (6 combos)
``KK-TT``          pairs from KK down to TT (either order)
``66+``            66 up to AA
``AKs`` ``AKo``    suited (4 combos) / offsuit (12 combos) class
``AK``             both (16 combos)
``AQo+``           kicker up to one below the high card: AQo, AKo (also ``A5s+``, ``KT+``)
``A5s-A2s``        same high card, kickers 5 down to 2 (also ``KQo-KTo``, ``KQ-KT``)
``AsKs``           one specific combo (either card order, suits any case)
``token:0.5``      weight suffix on any token, a number in [0, 1] (default 1)
=================  ====================================================================

Rank letters are case-insensitive; a class's ranks may be written in either order (``KAs``).

The grid: :data:`GRID_LABELS` ``[i][j]`` with rows and columns by rank descending (A, K, ..., 2);
``i == j`` pairs, ``i < j`` suited (``"AKs"`` at row A, column K), ``i > j`` offsuit (``"AKo"`` at
row K, column A).
"""

from __future__ import annotations

import re
from collections.abc import Iterable

import numpy as np
import numpy.typing as npt

from solver.poker.cards import (
    COMBOS,
    NUM_COMBOS,
    RANKS,
    CardError,
    board_mask,
    card_str,
    combo_index,
    combo_str,
    parse_card,
)
from solver.quoting import odd_characters

__all__ = [
    "CLASS_LABELS",
    "COMBO_CELL",
    "GRID_LABELS",
    "RANKS_DESC",
    "RangeError",
    "class_combos",
    "combo_count",
    "grid_from_weights",
    "parse_range",
    "percent_of_all",
    "range_to_text",
    "set_cell",
]

Weights = npt.NDArray[np.float64]
"""(1326,) float64 weights in [0, 1], combo order as :data:`solver.poker.cards.COMBOS`."""


class RangeError(ValueError):
    """Bad range text or weights; the message names the offending token."""


RANKS_DESC = RANKS[::-1]
"""``"AKQJT98765432"``: grid row/column ``i`` is rank index ``12 - i``."""


def _cell(high: int, low: int, suited: bool) -> tuple[int, int]:
    """Grid (row, col) of a class given rank indices ``high >= low``."""
    if high == low:
        return 12 - high, 12 - high
    if suited:
        return 12 - high, 12 - low
    return 12 - low, 12 - high


def _label(row: int, col: int) -> str:
    if row == col:
        return RANKS_DESC[row] * 2
    if row < col:
        return RANKS_DESC[row] + RANKS_DESC[col] + "s"
    return RANKS_DESC[col] + RANKS_DESC[row] + "o"


GRID_LABELS: list[list[str]] = [[_label(i, j) for j in range(13)] for i in range(13)]
"""13×13 class labels: ``GRID_LABELS[0][0] == "AA"``, ``[0][1] == "AKs"``, ``[1][0] == "AKo"``."""

CLASS_LABELS: list[str] = [label for row in GRID_LABELS for label in row]
"""The 169 class labels, row-major over the grid (flat cell index ``row * 13 + col``)."""


def _build_combo_cell() -> npt.NDArray[np.int32]:
    c1, c2 = COMBOS[:, 0], COMBOS[:, 1]
    low, high = c1 // 4, c2 // 4  # c1 < c2 => rank(c1) <= rank(c2)
    suited = (c1 % 4) == (c2 % 4)
    row = np.where(suited | (low == high), 12 - high, 12 - low)
    col = np.where(suited | (low == high), 12 - low, 12 - high)
    cell = (row * 13 + col).astype(np.int32)
    cell.flags.writeable = False
    return cell


COMBO_CELL = _build_combo_cell()
"""(1326,) int32, read-only: flat grid cell (``row * 13 + col``) of each combo."""

_CELL_COMBOS: list[npt.NDArray[np.intp]] = [
    np.flatnonzero(np.equal(COMBO_CELL, k)) for k in range(len(CLASS_LABELS))
]
_CELL_SIZES = np.bincount(COMBO_CELL, minlength=169).astype(np.float64)


# --------------------------------------------------------------------------------------------
# Weights helpers


def _check_weights(weights: npt.ArrayLike) -> Weights:
    """``weights`` as a (1326,) float64 array in [0, 1] (may share memory with the input)."""
    w = np.asarray(weights, dtype=np.float64)
    if w.shape != (NUM_COMBOS,):
        raise RangeError(f"a range has {NUM_COMBOS} weights, got shape {w.shape}")
    if not np.all((w >= 0.0) & (w <= 1.0)):  # also rejects NaN
        k = int(np.flatnonzero(~((w >= 0.0) & (w <= 1.0)))[0])
        raise RangeError(f"weight {w[k]!r} of {combo_str(k)} out of [0, 1]")
    return w


def _check_weight(w: float) -> float:
    value = float(w)
    if not 0.0 <= value <= 1.0:
        raise RangeError(f"weight {w!r} out of [0, 1]")
    return value


# --------------------------------------------------------------------------------------------
# Parsing

_R = "[2-9TJQKA]"
# ASCII: with Unicode case folding the Kelvin sign (U+212A) would match a K and fail later
_CLASS_RE = re.compile(rf"({_R})({_R})([SO]?)(\+?)", re.IGNORECASE | re.ASCII)
_DASH_RE = re.compile(rf"({_R})({_R})([SO]?)-({_R})({_R})([SO]?)", re.IGNORECASE | re.ASCII)
_COMBO_RE = re.compile(rf"({_R}[SHDC])({_R}[SHDC])", re.IGNORECASE | re.ASCII)
_WHITESPACE = re.compile(r"\s+")


def _cut(text: str) -> str:
    """``text`` cut to 40 characters for messages."""
    return text if len(text) <= 40 else text[:40] + "…"


def _shown(text: str) -> str:
    """``text`` as messages quote it: repr, cut to 40 characters."""
    return repr(_cut(text))


def _rank(ch: str) -> int:
    return RANKS.index(ch.upper())


def _class_cells(high: int, lows: Iterable[int], suffix: str) -> list[int]:
    """Flat cells of non-pair classes ``high`` + each of ``lows``; suffix ``"s"``, ``"o"``, ``""``
    (both)."""
    cells = []
    for low in lows:
        for suited in (True, False):
            if suffix == "" or (suffix == "s") == suited:
                row, col = _cell(high, low, suited)
                cells.append(row * 13 + col)
    return cells


def _pair_cells(ranks: Iterable[int]) -> list[int]:
    return [(12 - r) * 14 for r in ranks]


def _token_combos(body: str, token: str) -> npt.NDArray[np.intp]:
    """Combo indices covered by token ``body`` (``token`` is the full text for messages)."""
    m = _COMBO_RE.fullmatch(body)
    if m:
        a, b = parse_card(m[1]), parse_card(m[2])
        if a == b:
            raise RangeError(f"card {card_str(a)} appears twice in {token!r}")
        return np.array([combo_index(a, b)], dtype=np.intp)

    cells: list[int]
    m = _CLASS_RE.fullmatch(body)
    if m:
        r1, r2, suffix, plus = _rank(m[1]), _rank(m[2]), m[3].lower(), m[4]
        if r1 == r2:
            if suffix:
                raise RangeError(f"a pair has no suited/offsuit suffix in {token!r}")
            cells = _pair_cells(range(r1, 13) if plus else [r1])
        else:
            high, low = max(r1, r2), min(r1, r2)
            cells = _class_cells(high, range(low, high) if plus else [low], suffix)
        return np.concatenate([_CELL_COMBOS[k] for k in cells])

    m = _DASH_RE.fullmatch(body)
    if m:
        a1, a2, sa, b1, b2, sb = m.groups()
        ra1, ra2, rb1, rb2 = _rank(a1), _rank(a2), _rank(b1), _rank(b2)
        pair_a, pair_b = ra1 == ra2, rb1 == rb2
        if pair_a and pair_b and not sa and not sb:
            lo, hi = sorted((ra1, rb1))
            cells = _pair_cells(range(lo, hi + 1))
        elif pair_a or pair_b:
            raise RangeError(f"{token!r} must be a range of pairs or of non-pairs")
        else:
            high_a, high_b = max(ra1, ra2), max(rb1, rb2)
            if high_a != high_b:
                raise RangeError(f"{token!r} must keep the same high card")
            if sa.lower() != sb.lower():
                raise RangeError(f"{token!r} must keep the same suited/offsuit suffix")
            lo, hi = sorted((min(ra1, ra2), min(rb1, rb2)))
            cells = _class_cells(high_a, range(lo, hi + 1), sa.lower())
        return np.concatenate([_CELL_COMBOS[k] for k in cells])

    raise RangeError(f"bad range token {_shown(token)}{odd_characters(token)}")


def parse_range(text: str) -> Weights:
    """(1326,) float64 weights in [0, 1] of range text (syntax in the module docstring).

    Raises :class:`RangeError` whose message names the bad token, e.g. ``bad range token 'AKx'``
    or ``weight 1.5 out of [0, 1] in 'T9s:1.5'``.
    """
    if not isinstance(text, str):
        raise RangeError(f"range text must be a string, got {type(text).__name__}")
    weights = np.zeros(NUM_COMBOS, dtype=np.float64)
    for raw in _WHITESPACE.sub("", text).split(","):
        if not raw:
            continue  # tolerate "AA,,KK" and a trailing comma
        body, colon, weight_text = raw.partition(":")
        weight = 1.0
        if colon:
            try:
                weight = float(weight_text)
            except ValueError:
                raise RangeError(f"bad weight {_shown(weight_text)} in {_shown(raw)}") from None
            if not 0.0 <= weight <= 1.0:  # also rejects nan
                raise RangeError(f"weight {_cut(weight_text)} out of [0, 1] in {_shown(raw)}")
        try:
            combos = _token_combos(body, raw)
        except CardError as e:  # not expected (the regexes admit valid cards only)
            raise RangeError(f"{e} in {_shown(raw)}") from None
        weights[combos] = weight
    return weights


# --------------------------------------------------------------------------------------------
# Canonical text

_SNAP_DECIMALS = 9
_SNAP_TOLERANCE = 1e-12


def _snap(w: Weights) -> Weights:
    """Weights rounded to 1e-9 where that moves them by at most 1e-12 (float noise such as
    0.30000000000000004 -> 0.3); other weights are kept exactly."""
    rounded = np.round(w, _SNAP_DECIMALS)
    return np.where(np.abs(rounded - w) <= _SNAP_TOLERANCE, rounded, w)


_SUFFIX_ORDER = {"": 0, "s": 1, "o": 2}


def _suffix(w: float) -> str:
    return "" if w == 1.0 else f":{w!r}"


def _runs(values: list[float]) -> list[tuple[int, int, float]]:
    """Maximal runs ``(start, stop, value)`` (stop exclusive) of equal non-zero values."""
    runs = []
    start = 0
    while start < len(values):
        stop = start + 1
        while stop < len(values) and values[stop] == values[start]:
            stop += 1
        if values[start] != 0.0:
            runs.append((start, stop, values[start]))
        start = stop
    return runs


def _cell_base(values: Weights) -> float:
    """The weight to write for a whole class given its combos' ``values``: the one needing the
    fewest tokens (class token unless 0, plus one combo token per combo differing from it)."""
    uniq, counts = np.unique(values, return_counts=True)
    best, best_key = 0.0, (int(np.count_nonzero(values)), False, 0.0)
    for u, n in zip(uniq.tolist(), counts.tolist(), strict=True):
        key = ((1 if u != 0.0 else 0) + len(values) - n, u != 0.0, -u)
        if key < best_key:
            best, best_key = u, key
    return best


def range_to_text(weights: npt.ArrayLike) -> str:
    """Short canonical range text that :func:`parse_range` turns back into ``weights``.

    Weights are first snapped to 1e-9 when within 1e-12 of it (so float noise groups), otherwise
    written exactly (``repr``), so the round trip is exact to 1e-12. Each class gets the weight
    needing the fewest tokens; equal-weight neighbouring classes are grouped into ``66+``,
    ``KK-TT``, ``A5s+``, ``A5s-A2s`` forms (suffix-less ``AQ+`` when suited and offsuit runs
    coincide); combos differing from their class weight follow as specific combos (``AsKs:0``).
    The empty range is ``""``.
    """
    w = _snap(_check_weights(weights))
    base = np.zeros(169, dtype=np.float64)
    exceptions: list[int] = []
    for k, combos in enumerate(_CELL_COMBOS):
        values = w[combos]
        base[k] = _cell_base(values)
        exceptions.extend(int(i) for i in combos[values != base[k]])
    grid = base.reshape(13, 13)

    tokens: list[str] = []
    # Pairs, by rank index 0..12 (deuce..ace): runs written high to low.
    pairs = [float(grid[12 - r, 12 - r]) for r in range(13)]
    for start, stop, value in reversed(_runs(pairs)):
        bottom, top = RANKS[start] * 2, RANKS[stop - 1] * 2
        if start == stop - 1:
            text = top
        elif stop == 13:
            text = bottom + "+"
        else:
            text = f"{top}-{bottom}"
        tokens.append(text + _suffix(value))

    # Non-pairs, by high card A..3; kickers by rank index 0..high-1.
    for high in range(12, 0, -1):
        suited = [float(grid[12 - high, 12 - low]) for low in range(high)]
        offsuit = [float(grid[12 - low, 12 - high]) for low in range(high)]
        s_runs, o_runs = _runs(suited), _runs(offsuit)
        both = set(s_runs) & set(o_runs)
        runs = [(r, "") for r in both]
        runs += [(r, "s") for r in s_runs if r not in both]
        runs += [(r, "o") for r in o_runs if r not in both]
        runs.sort(key=lambda item: (-item[0][1], _SUFFIX_ORDER[item[1]]))
        h = RANKS[high]
        for (start, stop, value), sfx in runs:
            if start == stop - 1:
                text = f"{h}{RANKS[start]}{sfx}"
            elif stop == high:
                text = f"{h}{RANKS[start]}{sfx}+"
            else:
                text = f"{h}{RANKS[stop - 1]}{sfx}-{h}{RANKS[start]}{sfx}"
            tokens.append(text + _suffix(value))

    for i in sorted(exceptions, reverse=True):
        value = float(w[i])
        tokens.append(combo_str(i) + (":0" if value == 0.0 else _suffix(value)))
    return ", ".join(tokens)


# --------------------------------------------------------------------------------------------
# Grid and counts


def class_combos(label: str) -> npt.NDArray[np.intp]:
    """Combo indices (ascending) of a class label: ``"AA"`` (6), ``"AKs"`` (4), ``"AKo"`` (12),
    ``"AK"`` (16). Rank letters are case-insensitive and may come in either order."""
    m = _CLASS_RE.fullmatch(label.strip()) if isinstance(label, str) else None
    if m is None or m[4]:
        raise RangeError(f"bad class label {label!r}")
    return np.sort(_token_combos(m[0], label))


def grid_from_weights(weights: npt.ArrayLike) -> npt.NDArray[np.float64]:
    """(13, 13) float64: mean combo weight of each grid cell (layout as :data:`GRID_LABELS`)."""
    w = _check_weights(weights)
    sums = np.bincount(COMBO_CELL, weights=w, minlength=169)
    return (sums / _CELL_SIZES).reshape(13, 13)


def set_cell(weights: npt.ArrayLike, label: str, w: float) -> Weights:
    """A new (1326,) weights array: ``weights`` with every combo of class ``label`` set to
    ``w`` (in [0, 1])."""
    out = np.array(_check_weights(weights), dtype=np.float64)
    out[class_combos(label)] = _check_weight(w)
    return out


def combo_count(weights: npt.ArrayLike, board: str | Iterable[int] | None = None) -> float:
    """Weighted number of combos (sum of weights), skipping combos that share a card with
    ``board`` (text or card indices) if given: ``"AA"`` -> 6.0, ``"AKs"`` -> 4.0."""
    w = _check_weights(weights)
    if board is not None:
        w = w[board_mask(board)]
    return float(w.sum())


def percent_of_all(weights: npt.ArrayLike) -> float:
    """Weighted combo count as a percentage of all 1,326 combos (0..100)."""
    return combo_count(weights) / NUM_COMBOS * 100.0
