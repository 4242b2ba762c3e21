"""The preflop set-up form's logic, without widgets: its fields, a :class:`PreflopSpec` ↔ the
form's values, and per-field validation whose messages name the field (docs/preflop.md).

Units: the stack and the raise sizes are in big blinds; SB, BB and the ante are in one unit of
the user's (the game divides them by the BB). The ranges use the hold'em form's range widgets
(player 0, the SB, in the OOP one; the BB in the IP one), so the 13×13 grid editor serves both.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from app.components.fields import Number, show
from solver.games.preflop import (
    MAX_STACK_BB,
    MIN_STACK_BB,
    TREES,
    PreflopSetup,
    PreflopSpec,
    validate,
)
from solver.games.spec import SpecError
from solver.poker.ranges import range_to_text

TREE_LABELS = {"push-fold": "push/fold", "raise-jam": "raise/jam"}
EVERY_HAND = range_to_text(np.ones(1326))
"""The range text of all 1,326 combos (a preflop range's default)."""

# form field → what its number field accepts (the label names it in messages)
NUMBERS = {
    "stack_bb": Number("Stack (bb)", MIN_STACK_BB, MAX_STACK_BB),
    "sb": Number("Small blind", 0.0, 1e9),
    "bb": Number("Big blind", 0.0, 1e9),
    "ante": Number("Ante (per player)", 0.0, 1e9, note="0 = none"),
}
LABELS = {  # spec field → how messages name it
    **{k: n.label for k, n in NUMBERS.items()},
    "tree": "Tree",
    "raise_sizes": "Raise sizes (bb)",
    "sb_range": "SB range",
    "bb_range": "BB range",
    "name": "Name",
}
_GOOD: dict[str, Any] = {  # stand-ins for a bad field, so the others can still be checked
    "stack_bb": 10.0,
    "tree": "push-fold",
    "raise_sizes": None,
    "sb": 0.5,
    "bb": 1.0,
    "ante": 0.0,
    "sb_range": None,
    "bb_range": None,
}


def default_spec() -> PreflopSpec:
    """The custom preflop game a person starts from: push/fold at 10 bb, blinds 0.5/1."""
    return PreflopSpec(stack_bb=10.0, tree="push-fold", sb=0.5, bb=1.0, ante=0.0)


def _range_text(value: object) -> str:
    if value is None:
        return EVERY_HAND
    if isinstance(value, str):
        return value
    return range_to_text(np.asarray(value, dtype=np.float64))


def _sizes_text(value: object) -> str:
    if value is None:
        return "2"
    if isinstance(value, str):
        return value
    if isinstance(value, (int, float)):
        return show(float(value))
    return ", ".join(show(float(x)) for x in value)  # type: ignore[attr-defined]


def form_values(spec: PreflopSpec) -> dict[str, str]:
    """The form's values (by spec field; text as the fields show it) for ``spec``; weight
    ranges become range text, no range the text of every combo."""
    out = {k: show(float(getattr(spec, k))) for k in NUMBERS}
    out["tree"] = str(spec.tree).strip().lower()
    out["raise_sizes"] = _sizes_text(spec.raise_sizes)
    out["sb_range"] = _range_text(spec.sb_range)
    out["bb_range"] = _range_text(spec.bb_range)
    return out


@dataclass(frozen=True)
class Checked:
    """A spec from the form (None while a number field cannot be read) and every bad field's
    message (spec field → message naming the field)."""

    spec: PreflopSpec | None
    errors: dict[str, str]
    setup: PreflopSetup | None = None  # the validated spec, when no field is bad


def check_form(values: dict[str, Any], name: str = "") -> Checked:
    """Read the form ``values`` (by spec field) and check every field: each bad one is
    reported, then replaced by a good stand-in so the others can still be checked. The raise
    sizes count only with the raise/jam tree."""
    errors: dict[str, str] = {}
    kw: dict[str, Any] = {}
    for key, number in NUMBERS.items():
        value, error = number.parse(values.get(key))
        if error:
            errors[key] = error
        kw[key] = _GOOD[key] if error else value
    tree = str(values.get("tree") or "").strip().lower()
    kw["tree"] = tree
    kw["raise_sizes"] = str(values.get("raise_sizes") or "") if tree == "raise-jam" else None
    for key in ("sb_range", "bb_range"):
        kw[key] = str(values.get(key) or "")
    spec = PreflopSpec(**kw, name=name)
    trial = spec
    setup = None
    for _ in range(len(_GOOD) + 1):
        try:
            setup = validate(trial)
        except SpecError as exc:
            if exc.field in errors or exc.field not in _GOOD:
                errors.setdefault(exc.field, f"{label(exc.field)}: {exc.message}")
                break
            errors[exc.field] = f"{label(exc.field)}: {exc.message}"
            trial = replace(trial, **{exc.field: _GOOD[exc.field]})
            continue
        break
    return Checked(None if errors else spec, errors, None if errors else setup)


def label(spec_field: str) -> str:
    """How messages name a preflop spec field."""
    return LABELS.get(spec_field, spec_field.replace("_", " "))


def tree_names() -> list[str]:
    """The trees the form offers, in :data:`solver.games.preflop.TREES` order."""
    return list(TREES)
