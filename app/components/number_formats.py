"""Numbers as a player reads them in Explore's tables: chips with two decimals, % with one,
combos without decimals when whole (``167``, not ``167.0``) and with one or two otherwise,
reach as a percentage (``87.80%``, not ``0.878``), ratios with two — never the eight decimals
a table shows by default. Data in, column configs out; the tables' values stay exact (their
CSV and JSON downloads keep every digit)."""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

import streamlit as st

CHIPS = "%.2f"
PERCENT = "%.1f"  # for columns already in % (their name says so)
COMBOS = "%.4g"  # four significant digits, trailing zeros dropped: 167, 167.4, 12.35, 1,326
RATIO = "%.2f"
REACH = "percent"  # a reach in [0, 1] shown ×100 with two decimals: 87.80%


def decimals(x: float, most: int = 2) -> str:
    """A number in text with at most ``most`` decimals and no trailing zeros: ``87.8``
    (not ``87.797``), ``167`` (not ``167.0``), ``-0.25``."""
    if not math.isfinite(x):
        return "—"
    text = f"{x:,.{most}f}".rstrip("0").rstrip(".") if most > 0 else f"{x:,.0f}"
    return "0" if text in ("-0", "") else text


def combos_text(x: float) -> str:
    """Combos in text: ``202 combos`` for a whole number, ``202.4 combos`` otherwise."""
    if not math.isfinite(x):
        return "— combos"
    whole = abs(x - round(x)) < 0.05
    return f"{x:,.0f} combos" if whole else f"{x:,.1f} combos"


def column_format(name: str) -> str | None:
    """The printf format of a table column by its name, or None for text columns: EV and
    change columns in chips, columns named in % (``equity %``, ``share %``, ``Bet 50 % (100)
    %``), combos, EQR, reach."""
    low = name.lower()
    if low.endswith("%") or low.startswith("share") or "equity" in low:
        return PERCENT
    if "combos" in low:
        return COMBOS
    if low.startswith("ev") or low.endswith(" ev") or "change" in low or "(chips)" in low:
        return CHIPS
    if low.startswith("eqr") or "points" in low:
        return RATIO if low.startswith("eqr") else PERCENT
    if low == "reach":
        return REACH
    return None


def column_config(columns: Iterable[Any], numeric: Iterable[Any] = ()) -> dict[str, Any]:
    """``st.dataframe``'s column formats for these columns (by :func:`column_format`);
    ``numeric`` columns no name matches get two decimals."""
    out: dict[str, Any] = {}
    numbers = {str(c) for c in numeric}
    for c in columns:
        fmt = column_format(str(c)) or (RATIO if str(c) in numbers else None)
        if fmt is not None:
            out[str(c)] = st.column_config.NumberColumn(format=fmt)
    return out


def table_config(df: Any) -> dict[str, Any]:
    """:func:`column_config` of a DataFrame (its float columns are the numeric ones)."""
    numeric = [c for c in df.columns if str(df[c].dtype).startswith("float")]
    return column_config(df.columns, numeric)
