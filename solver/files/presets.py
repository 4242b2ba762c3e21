"""Presets: TOML files in ``presets/`` validated into the same specs the UI and CLI build.

A preset is either a built-in toy game::

    name = "Leduc hold'em"
    game = "leduc"

or a hold'em subgame (every :class:`~solver.games.holdem.HoldemSpec` field may appear under
``[holdem]``; ranges as text, or as 1,326 weights in combo order, ``2s2h, 2s2d, … AdAc``)::

    name = "SRP river"
    game = "holdem"
    [holdem]
    board = "Td9d6hQc2s"
    pot = 200
    stack = 900
    oop_range = "66+, A8s+, ..."
    ip_range = "QQ-22, ..."
    bets = "50%, 100%, a"
    raises = "100%, a"
    rake_pct = 5        # optional: rake in % of the pot (0 to 100; "5%" too), default 0
    rake_cap = 30       # optional: rake cap in chips, 0 (the default) = no cap
    [holdem.sizes.river.oop]
    donks = "33%"

An optional top-level ``players = ["BB", "BTN"]`` names players 0 (out of position) and 1;
the app says those names instead of OOP and IP.

Errors (:class:`PresetError`) name the file and the field.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from solver.games import GAMES, Game, make_game
from solver.games.holdem import HoldemSpec, SpecError, build_holdem, validate
from solver.games.preflop import PreflopSpec, build_preflop
from solver.games.preflop import validate as validate_preflop
from solver.quoting import brief, odd_characters

PRESET_DIR = Path(__file__).resolve().parents[2] / "presets"
MAX_PRESET_BYTES = 1_000_000
NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,99}")
"""A preset name: a file stem in ``presets/`` (letters, digits, ``-`` and ``_``)."""


class PresetError(ValueError):
    """A preset that cannot be used; the message names the file and the field."""


@dataclass
class Preset:
    key: str  # file stem, e.g. "libratus-3-river"
    name: str
    description: str
    game: str  # "kuhn", "leduc", "leduc5" or "holdem"
    holdem: HoldemSpec | None = None
    players: tuple[str, str] | None = None  # players 0 and 1 as people call them ("BB", "BTN")
    preflop: PreflopSpec | None = None  # game = "preflop": a [preflop] section

    def build(self) -> Game:
        if self.holdem is not None:
            return build_holdem(self.holdem)
        if self.preflop is not None:
            return build_preflop(self.preflop)
        return make_game(self.game)


_SPEC_FIELDS = {f.name for f in fields(HoldemSpec)}
RAKE_KEYS = ("rake_pct", "rake_cap")


def _toml(text: str, source: str) -> dict[str, Any]:
    """The TOML document, or :class:`PresetError` for anything the parser refuses
    (including nesting too deep for it and integers too long for Python)."""
    try:
        return tomllib.loads(text)
    except RecursionError:
        raise PresetError(f"{source}: not valid TOML (nested too deeply)") from None
    except ValueError as exc:  # TOMLDecodeError, or an integer past 4,300 digits
        raise PresetError(f"{source}: not valid TOML ({str(exc)[:200]})") from None


def parse_preset_bytes(
    data: bytes,
    key: str = "preset",
    source: str = "preset",
    max_memory_mb: float | None = None,
) -> Preset:
    """:func:`parse_preset` of a file's bytes (an upload): its size is checked before they
    are decoded (decoding 300 MB took 600 MB more), then it must be UTF-8."""
    if len(data) > MAX_PRESET_BYTES:
        raise PresetError(f"{source}: larger than {MAX_PRESET_BYTES:,} bytes")
    try:
        text = bytes(data).decode("utf-8")
    except UnicodeDecodeError:
        raise PresetError(f"{source}: not a UTF-8 text file") from None
    return parse_preset(text, key=key, source=source, max_memory_mb=max_memory_mb)


def parse_preset(
    text: str,
    key: str = "preset",
    source: str = "preset",
    max_memory_mb: float | None = None,
) -> Preset:
    """Validate TOML ``text``; ``source`` names it in error messages. Every field of the
    ``[holdem]`` section is checked by :func:`solver.games.holdem.validate`. With
    ``max_memory_mb`` (the user's cap, for files from elsewhere such as uploads) the file's
    own ``max_memory_mb`` may lower the cap, never raise it."""
    if not isinstance(text, str):
        raise TypeError(f"text must be str, got {type(text).__name__}")
    if len(text) > MAX_PRESET_BYTES or len(text.encode("utf-8", "replace")) > MAX_PRESET_BYTES:
        raise PresetError(f"{source}: larger than {MAX_PRESET_BYTES:,} bytes")
    data = _toml(text, source)
    name = data.get("name", key)
    if not isinstance(name, str):
        raise PresetError(f"{source}: name: must be text, got {brief(name)}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise PresetError(f"{source}: description: must be text, got {brief(description)}")
    game = data.get("game")
    if not isinstance(game, str) or (game not in GAMES and game not in ("holdem", "preflop")):
        known = ", ".join([*GAMES, "holdem", "preflop"])
        raise PresetError(f"{source}: game: must be one of {known}, got {brief(game)}")
    pre = data.get("preflop")
    for rake_key in RAKE_KEYS:  # a rake is a hold'em subgame's field
        if rake_key in data or (isinstance(pre, dict) and rake_key in pre):
            raise PresetError(
                f"{source}: {rake_key}: rake is a hold'em subgame's, under [holdem]; the toy and "
                "preflop games have no rake"
            )
    unknown = set(data) - {"name", "description", "game", "holdem", "players", "preflop"}
    if unknown:
        raise PresetError(f"{source}: unknown field(s) {', '.join(sorted(unknown))}")
    players = _players(data.get("players"), source)
    if "preflop" in data and game != "preflop":
        raise PresetError(f'{source}: preflop: only for game = "preflop"')
    if game == "preflop":
        pspec = _preflop_section(data.get("preflop", {}), name, source)
        return Preset(key, name, description, game, players=players, preflop=pspec)
    if game != "holdem":
        if "holdem" in data:
            raise PresetError(f'{source}: holdem: only for game = "holdem"')
        return Preset(key, name, description, game, players=players)
    section = data.get("holdem")
    if not isinstance(section, dict):
        raise PresetError(f"{source}: holdem: missing [holdem] section")
    bad = set(section) - _SPEC_FIELDS
    if bad:
        raise PresetError(f"{source}: holdem: unknown field(s) {', '.join(sorted(bad))}")
    for required in ("board", "pot", "stack"):
        if required not in section:
            raise PresetError(f"{source}: holdem.{required}: missing")
    args: dict[str, Any] = dict(section)
    args.setdefault("oop_range", "")
    args.setdefault("ip_range", "")
    args.setdefault("name", name)
    if "oop_weights" not in args and not args["oop_range"]:
        raise PresetError(f"{source}: holdem.oop_range: missing")
    if "ip_weights" not in args and not args["ip_range"]:
        raise PresetError(f"{source}: holdem.ip_range: missing")
    saved = args.get("max_memory_mb")
    if max_memory_mb is not None and (saved is None or _above(saved, max_memory_mb)):
        args["max_memory_mb"] = max_memory_mb
    spec = HoldemSpec(**args)
    try:
        validate(spec)
    except SpecError as exc:
        raise PresetError(f"{source}: holdem.{exc.field}: {exc.message}") from None
    return Preset(key, name, description, game, spec, players)


def _preflop_section(section: object, name: str, source: str) -> PreflopSpec:
    """The ``[preflop]`` section (:class:`~solver.games.preflop.PreflopSpec` fields:
    ``stack_bb``, ``tree``, ``raise_sizes``, ``sb``, ``bb``, ``ante``, ``sb_range``,
    ``bb_range``), checked."""
    if not isinstance(section, dict):
        raise PresetError(f"{source}: preflop: must be a [preflop] section")
    known = set(PreflopSpec.__dataclass_fields__) - {"name"}
    bad = set(section) - known
    if bad:
        raise PresetError(f"{source}: preflop: unknown field(s) {', '.join(sorted(bad))}")
    args = dict(section)
    if isinstance(args.get("raise_sizes"), list):
        args["raise_sizes"] = tuple(args["raise_sizes"])
    pspec = PreflopSpec(**args, name=name)
    try:
        validate_preflop(pspec)
    except SpecError as exc:
        raise PresetError(f"{source}: preflop.{exc.field}: {exc.message}") from None
    return pspec


MAX_PLAYER_NAME = 12


def _players(value: object, source: str) -> tuple[str, str] | None:
    """The optional ``players`` field: two short names for players 0 and 1 (``["BB", "BTN"]``:
    the first acts first after the flop), shown instead of OOP and IP."""
    if value is None:
        return None
    ok = (
        isinstance(value, list)
        and len(value) == 2
        and all(isinstance(v, str) and 0 < len(v.strip()) <= MAX_PLAYER_NAME for v in value)
    )
    if not ok or value[0].strip() == value[1].strip():  # type: ignore[index]
        raise PresetError(
            f"{source}: players: must be two different names of 1 to {MAX_PLAYER_NAME} "
            f'characters (e.g. ["BB", "BTN"]), got {brief(value)}'
        )
    return value[0].strip(), value[1].strip()  # type: ignore[index]


def _above(value: object, limit: float) -> bool:
    """Whether a number from a file exceeds ``limit`` (anything else is left to validate)."""
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value > limit


def preset_path(name_or_path: str | Path) -> Path:
    """Where a preset is read from. A :class:`~pathlib.Path`, or text holding a ``/`` or
    ending in ``.toml``, is a path, taken as given; any other text is a preset name — a file
    stem in ``presets/`` of letters, digits, ``-`` and ``_`` (so a name never reaches a file
    outside ``presets/``)."""
    if isinstance(name_or_path, Path):
        return name_or_path
    if not isinstance(name_or_path, str):
        raise TypeError(f"a preset is a name or a path, got {type(name_or_path).__name__}")
    text = name_or_path
    separators = [sep for sep in ("/", os.sep, os.altsep) if sep]
    if any(sep in text for sep in separators) or text.lower().endswith(".toml"):
        return Path(text)
    if not NAME.fullmatch(text):
        raise PresetError(
            f"preset name {brief(text)}: a name has letters, digits, - and _ only"
            f"{odd_characters(text)} (give a file as a path, e.g. ./my-spot.toml)"
        )
    return PRESET_DIR / f"{text}.toml"


def load_preset(name_or_path: str | Path) -> Preset:
    """A preset by name (a file stem in ``presets/``) or by path (:func:`preset_path`)."""
    path = preset_path(name_or_path)
    is_name = isinstance(name_or_path, str) and path.parent == PRESET_DIR
    try:
        if not path.is_file():
            if is_name:
                known = ", ".join(p.key for p in list_presets())
                raise PresetError(f"preset {name_or_path!r} not found (known: {known})")
            raise PresetError(f"preset file {brief(str(path))} not found")
        with path.open("rb") as f:
            raw = f.read(MAX_PRESET_BYTES + 1)
    except OSError as exc:  # unreadable: permissions, a name too long for the system, ...
        raise PresetError(f"{path.name}: cannot be read ({exc.strerror or exc})") from None
    if len(raw) > MAX_PRESET_BYTES:
        raise PresetError(f"{path.name}: larger than {MAX_PRESET_BYTES:,} bytes")
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise PresetError(f"{path.name}: not a UTF-8 text file") from None
    return parse_preset(text, key=path.stem, source=path.name)


def list_presets() -> list[Preset]:
    """Every preset in ``presets/``, sorted by file name (broken files are skipped)."""
    out = []
    for path in sorted(PRESET_DIR.glob("*.toml")):
        try:
            out.append(load_preset(path))
        except PresetError:
            continue
    return out
