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
    [holdem.sizes.river.oop]
    donks = "33%"

Errors (:class:`PresetError`) name the file and the field.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, fields
from pathlib import Path
from typing import Any

from solver.games import GAMES, Game, make_game
from solver.games.holdem import HoldemSpec, SpecError, build_holdem, validate

PRESET_DIR = Path(__file__).resolve().parent.parent / "presets"
MAX_PRESET_BYTES = 1_000_000


class PresetError(ValueError):
    """A preset that cannot be used; the message names the file and the field."""


@dataclass
class Preset:
    key: str  # file stem, e.g. "libratus-3-river"
    name: str
    description: str
    game: str  # "kuhn", "leduc", "leduc5" or "holdem"
    holdem: HoldemSpec | None = None

    def build(self) -> Game:
        if self.holdem is not None:
            return build_holdem(self.holdem)
        return make_game(self.game)


_SPEC_FIELDS = {f.name for f in fields(HoldemSpec)}


def parse_preset(text: str, key: str = "preset", source: str = "preset") -> Preset:
    """Validate TOML ``text``; ``source`` names it in error messages."""
    if len(text.encode("utf-8", errors="replace")) > MAX_PRESET_BYTES:
        raise PresetError(f"{source}: larger than {MAX_PRESET_BYTES:,} bytes")
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise PresetError(f"{source}: not valid TOML ({exc})") from None
    name = data.get("name", key)
    if not isinstance(name, str):
        raise PresetError(f"{source}: name: must be text")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise PresetError(f"{source}: description: must be text")
    game = data.get("game")
    if not isinstance(game, str) or (game not in GAMES and game != "holdem"):
        known = ", ".join([*GAMES, "holdem"])
        raise PresetError(f"{source}: game: must be one of {known}, got {game!r}")
    unknown = set(data) - {"name", "description", "game", "holdem"}
    if unknown:
        raise PresetError(f"{source}: unknown field(s) {', '.join(sorted(unknown))}")
    if game != "holdem":
        if "holdem" in data:
            raise PresetError(f'{source}: holdem: only for game = "holdem"')
        return Preset(key, name, description, game)
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
    for text_field in ("board", "oop_range", "ip_range", "bets", "raises", "name"):
        if text_field in args and not isinstance(args[text_field], str):
            raise PresetError(f"{source}: holdem.{text_field}: must be text")
    sizes = args.get("sizes", {})
    if not isinstance(sizes, dict):
        raise PresetError(f"{source}: holdem.sizes: must be a table")
    spec = HoldemSpec(**args)
    try:
        validate(spec)
    except SpecError as exc:
        raise PresetError(f"{source}: holdem.{exc.field}: {exc.message}") from None
    return Preset(key, name, description, game, spec)


def load_preset(name_or_path: str | Path) -> Preset:
    """A preset by file stem (in ``presets/``) or by path."""
    path = Path(name_or_path)
    if not path.suffix and not path.exists():
        path = PRESET_DIR / f"{name_or_path}.toml"
    if not path.is_file():
        known = ", ".join(p.key for p in list_presets())
        raise PresetError(f"preset {str(name_or_path)!r} not found (known: {known})")
    if path.stat().st_size > MAX_PRESET_BYTES:
        raise PresetError(f"{path.name}: larger than {MAX_PRESET_BYTES:,} bytes")
    try:
        text = path.read_text(encoding="utf-8")
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
