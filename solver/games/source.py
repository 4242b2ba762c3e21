"""The game a request describes, typed: one frozen source per game kind.

A source is what rebuilds a game: a toy game's name (:class:`ToySource`), a hold'em subgame's
spec (:class:`HoldemSource`) or a preflop game's (:class:`PreflopSource`). Each has

- ``to_dict()`` / :func:`from_dict`: the JSON form saves (``meta["game"]``), the app's
  session state and batch files have always held — ``{"kind": "toy", "name": ...}``,
  ``{"kind": "holdem", "spec": {...}}``, ``{"kind": "preflop", "spec": {...}}`` — unchanged;
- ``key()``: the game's identity, so two sources with the same key are the same game however
  they were typed (a resumed save shown as a custom spot is still its game);
- ``build()``: the :class:`~solver.games.model.Game`.

A hold'em or preflop source may carry its checked setup (``setup``: what ``validate`` made of
the spec), so a game checked once is built without checking it again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

from solver.games import GAMES, Game, make_game
from solver.games.holdem import build_holdem, validate
from solver.games.preflop import PreflopSetup, PreflopSpec, build_preflop
from solver.games.preflop import validate as validate_preflop
from solver.games.spec import HoldemSetup, HoldemSpec, SpecError
from solver.poker.ranges import range_to_text
from solver.quoting import brief

KINDS = ("toy", "holdem", "preflop")


class SourceError(ValueError):
    """A game-source dict that does not describe a game; the message names the field
    (``spec.pot``, ``name``, ``kind``)."""


@dataclass(frozen=True, eq=False)
class ToySource:
    """One of the toy games (:data:`solver.games.GAMES`) by name."""

    name: str
    kind = "toy"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "toy", "name": self.name}

    def key(self) -> str:
        return json.dumps(self.to_dict(), sort_keys=True)

    def build(self) -> Game:
        return make_game(self.name)


# Spec fields that do not change the game solved (a different name or memory cap is the
# same game), and how the key reads the number fields: whole or not.
_NOT_THE_GAME = ("name", "max_memory_mb")
_WHOLE = ("pot", "stack", "raise_cap")
_NUMBERS = (
    "pot", "stack", "big_blind", "raise_cap", "add_allin_threshold", "force_allin_threshold",
    "merging_threshold", "rake_pct", "rake_cap",
)  # fmt: skip


def _shown(value: object, whole: bool) -> object:
    """A number as the Set up form shows and reads it back (whole numbers exactly, others to
    six significant digits; ``"5%"`` is 5); text that is no number stays as it is."""
    if isinstance(value, bool):
        return value
    if isinstance(value, str):
        text = value.strip().removesuffix("%").strip().replace(",", "").replace("_", "")
        try:
            return _shown(float(text), whole)
        except ValueError:
            return value.strip()
    if not isinstance(value, (int, float)) or not np.isfinite(value):
        return value
    x = float(value)
    if not (x.is_integer() and abs(x) < 1e15):
        x = float(format(x, "g"))
    return int(x) if whole and x.is_integer() else x


@dataclass(frozen=True, eq=False)
class HoldemSource:
    """A hold'em subgame: its spec, and its checked setup when it has been validated."""

    spec: HoldemSpec
    setup: HoldemSetup | None = field(default=None, repr=False)
    kind = "holdem"

    def to_dict(self) -> dict[str, Any]:
        return {"kind": "holdem", "spec": asdict(self.spec)}

    def key(self) -> str:
        """The spec as the Set up form holds it — numbers as it shows them, ranges as text
        (weights become range text), empty donk sizes as none — name and memory cap aside."""
        s = self.spec
        data = asdict(s)
        for name in _NUMBERS:
            data[name] = _shown(data[name], name in _WHOLE)
        for side in ("oop", "ip"):
            weights = data.pop(f"{side}_weights")
            if weights is not None:
                data[f"{side}_range"] = range_to_text(np.asarray(weights))
            data[f"{side}_weights"] = None
            data[f"{side}_range"] = str(data[f"{side}_range"] or "")
        data["board"] = str(data["board"] or "")
        data["bets"] = str(data["bets"] or "")
        data["raises"] = str(data["raises"] or "")
        data["donks"] = str(data["donks"] or "").strip() or None
        return json.dumps({k: v for k, v in data.items() if k not in _NOT_THE_GAME}, sort_keys=True)

    def checked(self) -> HoldemSource:
        """This source with its setup (validated now unless it was); :class:`SpecError`."""
        return self if self.setup is not None else replace(self, setup=validate(self.spec))

    def build(self) -> Game:
        """The game (:func:`~solver.games.holdem.build_holdem`), from the checked setup when
        the source carries one (no second validation)."""
        return build_holdem(self.setup if self.setup is not None else self.spec)


@dataclass(frozen=True, eq=False)
class PreflopSource:
    """A preflop game: its spec, and its checked setup when it has been validated."""

    spec: PreflopSpec
    setup: PreflopSetup | None = field(default=None, repr=False)
    kind = "preflop"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: raise sizes and range weights as lists of floats."""
        data = asdict(self.spec)
        for key in ("raise_sizes", "sb_range", "bb_range"):
            value = data[key]
            if value is not None and not isinstance(value, str):
                data[key] = [float(x) for x in np.asarray(value, dtype=np.float64).ravel()]
        return {"kind": "preflop", "spec": data}

    def checked(self) -> PreflopSource:
        """This source with its setup (validated now unless it was); :class:`SpecError`."""
        return self if self.setup is not None else replace(self, setup=validate_preflop(self.spec))

    def key(self) -> str:
        """The game however it was typed (``2x`` or ``[2.0]``, a range as text or weights,
        blinds 1/2 or 0.5/1): tree, blinds, ante, stack and sizes in bb and a digest of both
        ranges' weights. A spec that does not check: its dict."""
        try:
            setup = self.checked().setup
        except (SpecError, TypeError, ValueError):
            return json.dumps(self.to_dict(), sort_keys=True)
        assert setup is not None
        digest = hashlib.sha256(b"".join(np.asarray(w).tobytes() for w in setup.weights))
        return json.dumps(
            {
                "kind": "preflop",
                "tree": setup.spec.tree.strip().lower(),
                "sb": setup.sb,
                "ante": setup.ante,
                "stack": setup.stack,
                "sizes": list(setup.sizes),
                "ranges": digest.hexdigest(),
            }
        )

    def build(self) -> Game:
        return build_preflop(self.setup if self.setup is not None else self.spec)


GameSource = ToySource | HoldemSource | PreflopSource


def _spec_fields(data: object, what: str, cls: type) -> dict[str, Any]:
    """The spec object of a source dict, its keys checked: :class:`SourceError` for a missing
    object, an unknown field or a missing one."""
    if not isinstance(data, dict) or not all(isinstance(k, str) for k in data):
        raise SourceError(f"{what} spec missing")
    known = {f.name for f in fields(cls)}
    unknown = sorted(set(data) - known)
    if unknown:
        raise SourceError(f"{what} spec: unknown field(s) {', '.join(unknown)}")
    return dict(data)


def preflop_from_spec(data: object, check: bool = True) -> PreflopSource:
    """The :class:`PreflopSource` of a source dict's ``spec`` object (``check``: validated,
    its setup kept); :class:`SourceError` naming a bad field (``preflop spec stack_bb: ...``)."""
    args = _spec_fields(data, "preflop", PreflopSpec)
    if isinstance(args.get("raise_sizes"), list):
        args["raise_sizes"] = tuple(args["raise_sizes"])
    source = PreflopSource(PreflopSpec(**args))
    try:
        return source.checked() if check else source
    except SpecError as exc:
        raise SourceError(f"preflop spec {exc.field}: {exc.message}") from None


def holdem_from_spec(data: object, check: bool = True) -> HoldemSource:
    """The :class:`HoldemSource` of a source dict's ``spec`` object (``check``: validated, its
    setup kept); :class:`SourceError` naming a bad field (``hold'em spec pot: ...``)."""
    args = _spec_fields(data, "hold'em", HoldemSpec)
    required = [f.name for f in fields(HoldemSpec) if f.name not in args and _required(f)]
    if required:
        raise SourceError(f"hold'em spec: missing field(s) {', '.join(required)}")
    source = HoldemSource(HoldemSpec(**args))
    try:
        return source.checked() if check else source
    except SpecError as exc:
        raise SourceError(f"hold'em spec {exc.field}: {exc.message}") from None


def _required(f: Any) -> bool:
    return f.default is MISSING and f.default_factory is MISSING


def from_dict(data: object, check: bool = True) -> GameSource:
    """The source a game-source dict describes (``check``: its spec validated, the setup
    kept); :class:`SourceError` naming the bad field for anything else (a crafted save's)."""
    if not isinstance(data, dict):
        raise SourceError("game must be an object")
    kind = data.get("kind")
    if kind == "toy":
        name = data.get("name")
        if not isinstance(name, str) or name not in GAMES:
            raise SourceError(f"unknown game {brief(name)}")
        return ToySource(name)
    if kind == "preflop":
        return preflop_from_spec(data.get("spec"), check)
    if kind == "holdem":
        return holdem_from_spec(data.get("spec"), check)
    raise SourceError(f"unknown game kind {brief(kind)}")


def as_source(source: GameSource | dict[str, Any], check: bool = True) -> GameSource:
    """A typed source as it is; a dict through :func:`from_dict`."""
    if isinstance(source, (ToySource, HoldemSource, PreflopSource)):
        return source
    return from_dict(source, check)
