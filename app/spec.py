"""Game sources and the hold'em set-up form's logic, without widgets: which games can be
picked, the form's values ↔ a :class:`HoldemSpec`, per-field validation, and a cached
game builder shared by every session."""

from __future__ import annotations

import functools
import json
import threading
import weakref
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import streamlit as st

from app.components.fields import Number, show
from solver.files.presets import Preset, list_presets
from solver.games import GAMES, Game
from solver.games.holdem import (
    SPOT_FIELDS,
    Estimate,
    HoldemSpec,
    SpecError,
    estimate,
    over_memory,
    validate,
)
from solver.games.preflop import PreflopSpec
from solver.games.source import (
    GameSource,
    HoldemSource,
    PreflopSource,
    SourceError,
    ToySource,
    as_source,
)
from solver.games.spec import HoldemSetup
from solver.poker.ranges import range_to_text

TOY_LABELS = {"kuhn": "Kuhn poker", "leduc": "Leduc hold'em", "leduc5": "Leduc-5"}
MULTI_LABELS = {"kuhn3": "Kuhn poker, 3 players", "leduc3": "Leduc hold'em, 3 players"}
"""The three-player toy games (docs/multiway.md): source ids ``multi:<name>``."""
CUSTOM = "custom"
CUSTOM_PREFLOP = "custom-preflop"
PREFLOP_PLAYERS = ("SB", "BB")
DEFAULT_SOURCE = "preset:srp-river"

# Widget key suffix → HoldemSpec field; the form's text/number fields.
FIELDS = {f.form: f.field for f in SPOT_FIELDS}  # form field → spec field
NUMBERS = {  # form field → what its number field accepts (the label names it in messages)
    "pot": Number("Pot (chips)", 1, 1e9, whole=True),
    "stack": Number("Effective stack (chips)", 1, 1e9, whole=True),
    "big_blind": Number("Big blind (chips)", 0.01, 1e9),
    "raise_cap": Number("Raise cap", 0, 50, whole=True),
    "add_allin": Number("Add all-in ≤ × pot", 0, 100, note="0 = off"),
    "force_allin": Number("Force all-in SPR ≤", 0, 100, note="0 = off"),
    "merging": Number("Merge sizes within × pot", 0, 10, note="0 = off"),
    "max_memory": Number("Max memory (MB)", 1, 1e7),
    "rake": Number("Rake (% pot)", 0, 100, note="0 = no rake", percent=True),
    "rake_cap": Number("Rake cap (chips)", 0, 1e9, note="0 = no cap"),
}
UNSET = {  # a form field's value before it is drawn (a page on its own, an older session)
    "max_memory": HoldemSpec.max_memory_mb,
    "rake": HoldemSpec.rake_pct,
    "rake_cap": HoldemSpec.rake_cap,
}
LABELS = {  # spec field → how messages name it
    "board": "Board",
    "bets": "Bets",
    "raises": "Raises",
    "donks": "Donk bets",
    "oop_range": "OOP range",
    "ip_range": "IP range",
    "oop_weights": "OOP range",
    "ip_weights": "IP range",
    **{FIELDS[k]: n.label for k, n in NUMBERS.items()},
}


def label(spec_field: str) -> str:
    """How messages name a spec field (``sizes.river.ip.bets`` → ``River IP bets``)."""
    if spec_field.startswith("sizes."):
        parts = spec_field.split(".")[1:]
        if len(parts) == 3:
            return f"{parts[0].capitalize()} {parts[1].upper()} {parts[2]}"
    return LABELS.get(spec_field, spec_field.replace("_", " "))


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
    "max_memory_mb": 4096.0,
    "rake_pct": 0.0,
    "rake_cap": 0.0,
    "oop_range": "AA",
    "ip_range": "KK",
}


@st.cache_resource(show_spinner=False)
def presets() -> dict[str, Preset]:
    """Every preset in ``presets/``, by key (read once per server)."""
    return {p.key: p for p in list_presets()}


def sources() -> dict[str, str]:
    """Selectable games: id → label. Presets first, then the toy games and a custom spot."""
    out = {f"preset:{k}": p.name for k, p in presets().items()}
    for name in GAMES:
        if f"preset:{name}" not in out:
            out[f"toy:{name}"] = TOY_LABELS.get(name, name)
    for name, text in MULTI_LABELS.items():
        out[f"multi:{name}"] = text
    out[CUSTOM] = "Custom hold'em spot"
    out[CUSTOM_PREFLOP] = "Custom preflop game (push/fold, raise/jam)"
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
        if p is not None and p.holdem is None and p.preflop is None:
            return p.game
    return None


def multi_name(source: object) -> str | None:
    """The three-player toy game a source id stands for (``kuhn3``, ``leduc3``), or None."""
    if isinstance(source, str) and source.startswith("multi:") and source[6:] in MULTI_LABELS:
        return source[6:]
    return None


def is_holdem_spot(source: str, uploaded: Preset | None = None) -> bool:
    """Whether a source id stands for a hold'em subgame (its Solve settings read in % pot):
    neither a toy game (of two or three players) nor a preflop game (chips in big blinds)."""
    if multi_name(source) is not None:
        return False
    return toy_name(source) is None and preflop_of_source(source, uploaded) is None


def preflop_in(source: object) -> PreflopSpec | None:
    """The preflop spec of a game source (typed, or a save's or a solve's metadata), or None
    for any other game or a spec that does not check."""
    got = typed(source) if isinstance(source, dict) else source
    if not isinstance(got, PreflopSource):
        return None
    try:
        return got.checked().spec
    except (SpecError, TypeError, ValueError):
        return None


def typed(source: GameSource | dict | None) -> GameSource | None:
    """A game source typed (a dict from a save or the session read unchecked: its key and
    names need no valid spec), None when it describes no game."""
    if source is None:
        return None
    try:
        return as_source(source, check=False)
    except (SourceError, TypeError):
        return None


def preflop_of_source(source: str, uploaded: Preset | None = None) -> PreflopSpec | None:
    """The preflop spec a source starts from (a preflop preset's, an uploaded one's, or the
    custom preflop game's), None for any other source."""
    from app.preflop_spec import default_spec

    if source == "upload":
        return None if uploaded is None else uploaded.preflop
    if source.startswith("preset:"):
        p = presets().get(source[7:])
        return None if p is None else p.preflop
    return default_spec() if source == CUSTOM_PREFLOP else None


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


def form_values(spec: HoldemSpec) -> dict[str, str]:
    """Form field values (by FIELDS key) for ``spec``, as the fields show them (text);
    weight-given ranges become range text."""
    out: dict[str, str] = {}
    for key, fname in FIELDS.items():
        value = getattr(spec, fname)
        # (text in a number field, "5%" from a preset, is shown as written and parsed later)
        number = key in NUMBERS and not isinstance(value, str)
        out[key] = show(float(value)) if number else str(value or "")
    if spec.oop_weights is not None:
        out["oop_range"] = range_to_text(np.asarray(spec.oop_weights))
    if spec.ip_weights is not None:
        out["ip_range"] = range_to_text(np.asarray(spec.ip_weights))
    return out


def read_numbers(values: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The number fields of form ``values`` parsed: (values with numbers in place, spec
    field → message for each bad one; its value is then a good stand-in so the other fields
    can still be checked)."""
    out = dict(values)
    errors: dict[str, str] = {}
    for key, number in NUMBERS.items():
        raw = values.get(key)
        if raw is None and key in UNSET:  # a field not drawn yet (a page on its own)
            raw = UNSET[key]
        value, error = number.parse(raw)
        if error:
            errors[FIELDS[key]] = error
        out[key] = _GOOD[FIELDS[key]] if error else value
    return out, errors


def spec_from_form(
    values: dict[str, Any], base: HoldemSpec | None, sizes: dict[str, Any] | None = None
) -> HoldemSpec:
    """A spec from form values with numbers in place (see :func:`read_numbers`) and
    per-street override values (see :func:`size_key`); fields the form does not show (the
    name) come from ``base``."""
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
    setup: HoldemSetup | None = None  # the validated spec, when no field is bad


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
        return Checked(spec, errors, est, None if errors else setup)
    return Checked(spec, errors, None)


def source_key(source: GameSource | dict) -> str:
    """The exact source (its dict as JSON): what the game cache is keyed on."""
    data = source if isinstance(source, dict) else source.to_dict()
    return json.dumps(data, sort_keys=True)


def game_key(source: GameSource | dict) -> str:
    """The game a source describes (:meth:`~solver.games.source.HoldemSource.key`): two
    sources with the same key are the same game (a resumed save shown as a custom spot is
    still its game). A dict that describes no game: its JSON."""
    got = typed(source)
    return source_key(source) if got is None else got.key()


def same_game(a: GameSource | dict | None, b: GameSource | dict | None) -> bool:
    """Whether two game sources describe the same game (see :func:`game_key`)."""
    if a is None or b is None:
        return False
    return game_key(a) == game_key(b)


SMALL_GAME = 2_000_000
"""Games with fewer per-action entries than this stay cached for the server's life (the toy
games, rivers: cheap to keep, and the Solve page measures them for its estimate)."""
_GAMES: weakref.WeakValueDictionary[str, Game] = weakref.WeakValueDictionary()
_SMALL: dict[str, Game] = {}
_GAMES_LOCK = threading.Lock()


def build_game(source: GameSource | dict) -> Game:
    """Build (or reuse) the game of a source (a dict: game-source metadata, its spec checked
    by the build; a typed source carrying its checked setup is built without checking it
    again). Games
    are read-only once built, so sessions share them. A big game is kept only while
    something uses it (a solve, a race, a page): when the last solve on it is released its
    memory goes back too; small games stay cached."""
    key = source_key(source)
    with _GAMES_LOCK:
        game = _GAMES.get(key)
        if game is not None:
            return game
        game = as_source(source, check=False).build()  # (a dict's spec: checked by the build)
        _GAMES[key] = game
        if game.action_size < SMALL_GAME:
            _SMALL[key] = game
        return game


def source_id_for(source: GameSource | dict) -> str:
    """The Set up choice a game source stands for: its toy game or preset when one matches
    (the same game), else the custom spot."""
    got = typed(source)
    if isinstance(got, ToySource):
        for key in sources():
            if toy_name(key) == got.name:
                return key
        return default_source()
    if isinstance(got, PreflopSource):
        for key, p in presets().items():
            if p.preflop is not None and same_game(got, PreflopSource(p.preflop)):
                return f"preset:{key}"
        return CUSTOM_PREFLOP
    if got is not None:
        for key, p in presets().items():
            if p.holdem is not None and same_game(got, HoldemSource(p.holdem)):
                return f"preset:{key}"
    return CUSTOM


@functools.lru_cache(maxsize=64)
def _names_of(key: str, kind: str) -> tuple[str, str] | None:
    source = typed(json.loads(key))
    if source is None:
        return None
    preset = presets().get(source_id_for(source).removeprefix("preset:"))
    if preset is not None and preset.players is not None:
        return preset.players
    return PREFLOP_PLAYERS if kind == "preflop" else None


def player_names(source: GameSource | dict | None) -> tuple[str, str] | None:
    """The players' names a game source's preset gives (``("BB", "BTN")``; SB and BB for any
    preflop game), or None (the defaults: OOP and IP, player 0 and player 1)."""
    got = typed(source) if source else None
    if got is None:
        return None
    try:
        return _names_of(source_key(got), got.kind)
    except (TypeError, ValueError, KeyError):
        return None


def holdem_source(spec: HoldemSpec) -> dict:
    """The game-source dict of a hold'em spec (:meth:`HoldemSource.to_dict`)."""
    return HoldemSource(spec).to_dict()
