"""Game sources and the hold'em set-up form's logic, without widgets: which games can be
picked, the form's values ↔ a :class:`HoldemSpec`, per-field validation, and a cached
game builder shared by every session."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import streamlit as st

from solver.games import GAMES, Game, make_game
from solver.games.holdem import (
    Estimate,
    HoldemSpec,
    SpecError,
    build_holdem,
    estimate,
    over_memory,
    validate,
)
from solver.presets import Preset, list_presets
from solver.ranges import range_to_text

TOY_LABELS = {"kuhn": "Kuhn poker", "leduc": "Leduc hold'em", "leduc5": "Leduc-5"}
CUSTOM = "custom"
DEFAULT_SOURCE = "preset:srp-river"

# Widget key suffix → HoldemSpec field; the form's text/number fields.
FIELDS = {
    "board": "board",
    "pot": "pot",
    "stack": "stack",
    "big_blind": "big_blind",
    "bets": "bets",
    "raises": "raises",
    "donks": "donks",
    "raise_cap": "raise_cap",
    "add_allin": "add_allin_threshold",
    "force_allin": "force_allin_threshold",
    "merging": "merging_threshold",
    "oop_range": "oop_range",
    "ip_range": "ip_range",
}
_GOOD = {  # values that replace a bad field so the others can still be checked
    "board": "2s3h4d5c7s",
    "pot": 100,
    "stack": 100,
    "big_blind": 1.0,
    "bets": "50%",
    "raises": "100%",
    "donks": None,
    "raise_cap": 1,
    "add_allin_threshold": 0.0,
    "force_allin_threshold": 0.0,
    "merging_threshold": 0.0,
    "oop_range": "AA",
    "ip_range": "KK",
}


@st.cache_resource(show_spinner=False)
def presets() -> dict[str, Preset]:
    """Every preset in ``presets/`` by key (read once per server)."""
    return {p.key: p for p in list_presets()}


def sources() -> dict[str, str]:
    """Selectable games: id → label. Presets first, then the toy games and a custom spot."""
    out = {f"preset:{k}": p.name for k, p in presets().items()}
    for name in GAMES:
        if f"preset:{name}" not in out:
            out[f"toy:{name}"] = TOY_LABELS.get(name, name)
    out[CUSTOM] = "Custom hold'em spot"
    return out


def default_source() -> str:
    keys = list(sources())
    return DEFAULT_SOURCE if DEFAULT_SOURCE in keys else keys[0]


def toy_name(source: str) -> str | None:
    """The toy game a source id stands for, or None for a hold'em source."""
    if source.startswith("toy:"):
        return source[4:]
    if source.startswith("preset:"):
        p = presets().get(source[7:])
        if p is not None and p.holdem is None:
            return p.game
    return None


def spec_of_source(source: str, uploaded: Preset | None = None) -> HoldemSpec | None:
    """The hold'em spec a source starts from (a preset's, or a blank custom spot)."""
    if source == "upload" and uploaded is not None:
        return uploaded.holdem
    if source.startswith("preset:"):
        p = presets().get(source[7:])
        return None if p is None else p.holdem
    if source == CUSTOM:
        return HoldemSpec(
            board="Td9d6hQc2s",
            pot=200,
            stack=900,
            oop_range="66+, A8s+, AJo+, KQs",
            ip_range="QQ-22, AQs-A2s, ATo+, KJo+",
            big_blind=10,
        )
    return None


STREETS = ("flop", "turn", "river")
SIZE_SLOTS = tuple(
    (street, player, kind)
    for street in STREETS
    for player in ("oop", "ip")
    for kind in ("bets", "raises", "donks")
    if kind != "donks" or (player == "oop" and street != "flop")
)
"""Per-street, per-player size overrides the form offers (``HoldemSpec.sizes`` entries)."""


def size_key(street: str, player: str, kind: str) -> str:
    """Widget key of one per-street size override."""
    return f"hs_size_{street}_{player}_{kind}"


def size_values(spec: HoldemSpec) -> dict[str, str]:
    """Widget values of the per-street overrides of ``spec`` ("" = not overridden)."""
    out = {}
    for street, player, kind in SIZE_SLOTS:
        out[size_key(street, player, kind)] = (
            spec.sizes.get(street, {}).get(player, {}).get(kind, "")
        )
    return out


def sizes_from_values(values: dict[str, Any]) -> dict[str, dict[str, dict[str, str]]]:
    """``HoldemSpec.sizes`` from override widget values; empty fields are left out."""
    out: dict[str, dict[str, dict[str, str]]] = {}
    for street, player, kind in SIZE_SLOTS:
        text = str(values.get(size_key(street, player, kind)) or "").strip()
        if text:
            out.setdefault(street, {}).setdefault(player, {})[kind] = text
    return out


def form_values(spec: HoldemSpec) -> dict[str, Any]:
    """Form field values (by FIELDS key) for ``spec``; weight-given ranges become text."""
    out: dict[str, Any] = {}
    for key, fname in FIELDS.items():
        out[key] = getattr(spec, fname)
    if spec.oop_weights is not None:
        out["oop_range"] = range_to_text(np.asarray(spec.oop_weights))
    if spec.ip_weights is not None:
        out["ip_range"] = range_to_text(np.asarray(spec.ip_weights))
    out["donks"] = spec.donks or ""
    for k in ("pot", "stack", "raise_cap"):
        out[k] = int(out[k])
    for k in ("big_blind", "add_allin", "force_allin", "merging"):
        out[k] = float(out[k])
    return out


def spec_from_form(
    values: dict[str, Any], base: HoldemSpec | None, sizes: dict[str, Any] | None = None
) -> HoldemSpec:
    """A spec from form values (and per-street override values, see :func:`size_key`);
    fields the form does not show (memory cap, name) come from ``base``."""
    kw = {fname: values[key] for key, fname in FIELDS.items()}
    kw["donks"] = (kw["donks"] or "").strip() or None
    spec = base if base is not None else HoldemSpec("", 0, 0, "", "")
    over = sizes_from_values(sizes) if sizes is not None else spec.sizes
    return replace(spec, **kw, sizes=over, oop_weights=None, ip_weights=None)


@dataclass(frozen=True)
class Checked:
    spec: HoldemSpec
    errors: dict[str, str]  # spec field → message
    estimate: Estimate | None


def check(spec: HoldemSpec) -> Checked:
    """Validate every field: each bad field is reported (then replaced by a good value so the
    others can still be checked). With no error, the tree size estimate."""
    errors: dict[str, str] = {}
    trial = spec
    for _ in range(len(_GOOD) + 4):
        try:
            setup = validate(trial)
        except SpecError as exc:
            if exc.field.startswith("sizes.") and exc.field.count(".") == 3:
                _, street, player, kind = exc.field.split(".")
                errors[exc.field] = exc.message
                sizes = {s: {p: dict(k) for p, k in v.items()} for s, v in trial.sizes.items()}
                sizes.get(street, {}).get(player, {}).pop(kind, None)
                trial = replace(trial, sizes=sizes)
                continue
            field = exc.field
            if field in errors or field not in _GOOD:
                errors.setdefault(exc.field, exc.message)
                break
            errors[field] = exc.message
            trial = replace(trial, **{field: _GOOD[field]})  # type: ignore[arg-type]
            continue
        if errors:
            return Checked(spec, errors, None)
        try:
            est = estimate(setup)
        except SpecError as exc:
            return Checked(spec, {exc.field: exc.message}, None)
        refusal = over_memory(est, float(spec.max_memory_mb))
        if refusal:
            errors["max_memory_mb"] = refusal
        return Checked(spec, errors, est)
    return Checked(spec, errors, None)


def source_key(source: dict) -> str:
    return json.dumps(source, sort_keys=True)


@st.cache_resource(show_spinner=False, max_entries=6)
def _build(key: str) -> Game:
    source = json.loads(key)
    if source["kind"] == "toy":
        return make_game(source["name"])
    return build_holdem(HoldemSpec(**source["spec"]))


def build_game(source: dict) -> Game:
    """Build (or reuse) the game for game-source metadata (see :mod:`solver.export`).
    Games are read-only once built, so sessions share them."""
    return _build(source_key(source))


def holdem_source(spec: HoldemSpec) -> dict:
    return {"kind": "holdem", "spec": asdict(spec)}
