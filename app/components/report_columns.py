"""The Reports tables' columns in words and units: the batch records keep their keys
(``oop_ev``, ``oop k``, ``ip vs k: b:100`` — CSV and JSON exports and scripts read those),
and the page shows each as a player reads it ("OOP EV (chips)", "OOP: Check", "IP vs check:
All-in 100") with its unit: chips with two decimals, frequencies and equities as %, combos and
weights without noise. Data in, column configs out."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import streamlit as st

from solver.study.words import first_street_name

FIXED = {  # key → (title, unit: "chips", "%" (a fraction shown as %), "ratio", "weight",
    # "count" or "" for text)
    "flop": ("Flop", ""),
    "weight": ("Weight (raw flops)", "weight"),
    "flops": ("Flops", "count"),
    "suits": ("Suits", ""),
    "pairing": ("Pairing", ""),
    "high": ("High card", ""),
    "connect": ("Connectedness", ""),
    "status": ("Status", ""),
    "error": ("Error", ""),
    "oop_ev": ("OOP EV (chips)", "chips"),
    "ip_ev": ("IP EV (chips)", "chips"),
    "oop_equity": ("OOP equity", "%"),
    "ip_equity": ("IP equity", "%"),
    "oop_eqr": ("OOP EQR", "ratio"),
    "ip_eqr": ("IP EQR", "ratio"),
    "oop_bet": ("OOP bets (all sizes)", "%"),
    "exploitability_pct_pot": ("Exploitability (% pot)", "ratio"),
    "iterations": ("Iterations", "count"),
    "seconds": ("Seconds", "ratio"),
}


def column_title(key: str, pot: float | None, stack: float | None) -> tuple[str, str]:
    """A record key's title and unit (see :data:`FIXED`); action columns (``oop X``: OOP's
    first action, ``ip vs A: B``: IP's answer B to OOP's A) named as everywhere in the app
    (:func:`solver.study.words.first_street_name` with the batch's pot and stack, chips)."""
    if key in FIXED:
        return FIXED[key]
    if key.startswith("oop "):
        return f"OOP: {first_street_name(key[4:], pot, stack)}", "%"
    if key.startswith("ip vs ") and ": " in key:
        first, answer = key[6:].split(": ", 1)
        facing = first_street_name(first, pot, stack)
        said = first_street_name(answer, pot, stack)
        return f"IP vs {facing[0].lower()}{facing[1:]}: {said}", "%"
    return key, ""


def node_title(node: str, pot: float | None, stack: float | None) -> str:
    """A batch summary's node (``oop``, ``ip vs k``, ``ip vs b:100``) in words: "OOP's first
    action", "IP vs check", "IP vs bet 50 % (100)"."""
    if node == "oop":
        return "OOP's first action"
    if node.startswith("ip vs "):
        facing = first_street_name(node[6:], pot, stack)
        return f"IP vs {facing[0].lower()}{facing[1:]}"
    return node


def _config(title: str, unit: str) -> Any:
    if unit == "chips":
        return st.column_config.NumberColumn(title, format="%.2f")
    if unit == "%":  # fractions in [0, 1]: Streamlit shows them × 100 with a % sign
        return st.column_config.NumberColumn(title, format="percent")
    if unit == "ratio":
        return st.column_config.NumberColumn(title, format="%.2f")
    if unit == "weight":
        return st.column_config.NumberColumn(title, format="%.1f")
    if unit == "count":
        return st.column_config.NumberColumn(title, format="%d")
    return st.column_config.Column(title)


def column_config(keys: Iterable[str], pot: float | None, stack: float | None) -> dict[str, Any]:
    """``st.dataframe``'s ``column_config`` for a Reports table with these record keys."""
    return {k: _config(*column_title(k, pot, stack)) for k in keys}
