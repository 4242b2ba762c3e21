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
the spec), so a game checked once is built without checking it again. A hold'em source may
also carry bet sizes removed at single nodes (``removed``, a size simplification's tree:
:mod:`solver.study.sizes`), saved beside the spec as ``"removed": {line: [actions]}`` only
when there are some, so a dict without it is the game it always was.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import MISSING, asdict, dataclass, field, fields, replace
from typing import Any

import numpy as np

from solver.games import GAMES, Game, make_game
from solver.games.holdem import betting_tree, build_holdem, validate
from solver.games.preflop import PreflopSetup, PreflopSpec, build_preflop
from solver.games.preflop import validate as validate_preflop
from solver.games.spec import HoldemSetup, HoldemSpec, SpecError
from solver.poker.ranges import range_to_text
from solver.quoting import brief
from solver.tree.betting import ActionNode
from solver.tree.kinds import CHANCE, DECISION

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


# ----- bet sizes removed at single nodes (a simplified tree) ----------------------------------
ANY_CARD = "d:*"
"""A dealt card in a removed size's line: one card-free node stands for every runout."""
MAX_REMOVED_LINES = 4096
"""Most lines a source's ``removed`` may name (a simplification names a few dozen)."""
MAX_LINE_LABELS = 64
"""Most labels in one line of ``removed``."""
MAX_REMOVED_SIZES = 64
"""Most sizes removed at one line."""
_LABEL = re.compile(r"(?:[kcf]|[br]:[0-9]{1,12}|d:\*)\Z")
_SIZE = re.compile(r"[br]:[0-9]{1,12}\Z")

Line = tuple[str, ...]
Removed = tuple[tuple[Line, tuple[str, ...]], ...]
"""Sizes removed, ((line, (action labels...)), ...): lines in order, each line's actions by
chips; a line is the labels from the root of the card-free tree (``b:66`` a bet of 66 chips,
``r:300`` a raise to 300, ``k``/``c``/``f``, :data:`ANY_CARD` for a dealt card)."""


def line_words(line: Line) -> str:
    """A line as text: labels joined by spaces, ``"root"`` for the root."""
    return " ".join(line) if line else "root"


def _chips(label: str) -> int:
    return int(label.split(":")[1])


def removed_from_json(data: object) -> Removed:
    """The :data:`Removed` of a source's ``removed`` object ``{line: [actions]}`` (a line as
    :func:`line_words` writes it; each action a bet ``b:N`` or raise ``r:N`` label), or of a
    mapping ``{line labels: actions}`` as :mod:`solver.study.sizes` holds it. Its form only
    (where the lines are is :func:`prune_sizes`'s check); :class:`SourceError` naming
    ``removed`` for anything else, sized before it is read further."""
    if not isinstance(data, Mapping):
        raise SourceError(f"removed: must be an object {{line: [sizes]}}, got {brief(data)}")
    if len(data) > MAX_REMOVED_LINES:
        raise SourceError(f"removed: {len(data):,} lines, at most {MAX_REMOVED_LINES:,}")
    out: dict[Line, tuple[str, ...]] = {}
    for key, actions in data.items():
        line = _removed_line(key)
        if line in out:
            raise SourceError(f"removed: line {line_words(line)!r} given twice")
        if isinstance(actions, (str, bytes)) or not isinstance(actions, (Sequence, frozenset, set)):
            raise SourceError(
                f"removed: line {line_words(line)!r}: a list of sizes like ['b:66'], got "
                f"{brief(actions)}"
            )
        if not 1 <= len(actions) <= MAX_REMOVED_SIZES:
            raise SourceError(
                f"removed: line {line_words(line)!r}: 1 to {MAX_REMOVED_SIZES} sizes, got "
                f"{len(actions)}"
            )
        for a in actions:
            if not isinstance(a, str) or not _SIZE.match(a):
                raise SourceError(
                    f"removed: line {line_words(line)!r}: {brief(a)} is not a bet or raise "
                    "label (b:66, r:300)"
                )
        if len(set(actions)) != len(actions):
            raise SourceError(f"removed: line {line_words(line)!r}: a size given twice")
        out[line] = tuple(sorted(actions, key=_chips))
    return tuple(sorted(out.items()))


def _removed_line(key: object) -> Line:
    if isinstance(key, str):
        if len(key) > 16 * MAX_LINE_LABELS:
            raise SourceError(f"removed: line {brief(key)} is too long")
        line: Line = () if key.strip() == "root" else tuple(key.split())
    elif isinstance(key, tuple) and all(isinstance(x, str) for x in key):
        line = key
    else:
        raise SourceError(f"removed: a line is text like 'k b:66', got {brief(key)}")
    if len(line) > MAX_LINE_LABELS:
        raise SourceError(f"removed: line {brief(key)} has more than {MAX_LINE_LABELS} labels")
    bad = next((x for x in line if not _LABEL.match(x)), None)
    if bad is not None:
        raise SourceError(f"removed: line {brief(key)}: {brief(bad)} is not an action label")
    return line


def removed_to_json(removed: Removed) -> dict[str, list[str]]:
    """The JSON form of ``removed``: ``{line: [actions]}`` (:func:`removed_from_json`)."""
    return {line_words(line): list(actions) for line, actions in removed}


def _walk(root: ActionNode, line: Line) -> ActionNode | None:
    node: ActionNode | None = root
    for label in line:
        assert node is not None
        if label == ANY_CARD:
            node = node.children[0] if node.kind == CHANCE and node.children else None
        else:
            node = next((c for c in node.children if c.label == label), None)
        if node is None:
            return None
    return node


def prune_sizes(removed: Removed) -> Callable[[ActionNode], None]:
    """What :func:`~solver.games.holdem.build_holdem` takes to drop ``removed`` from the
    card-free tree: every line must be a decision node of the tree as built and every action
    one of its bets or raises (:class:`SpecError` field ``removed`` else); removals go root
    first, and a line that a removal above it cut off is skipped (as the simplification
    that wrote it built its trees: :func:`solver.study.size_trees.pruner`)."""

    def prune(root: ActionNode) -> None:
        for line, actions in removed:
            node = _walk(root, line)
            if node is None or node.kind != DECISION:
                raise SpecError("removed", f"{line_words(line)!r} is no decision of this spot")
            have = {c.label for c in node.children}
            missing = [a for a in actions if a not in have]
            if missing:
                raise SpecError(
                    "removed", f"{missing[0]} is no action at {line_words(line)!r} here"
                )
        for line, actions in sorted(removed, key=lambda x: len(x[0])):
            node = _walk(root, line)
            if node is not None:
                node.children = [c for c in node.children if c.label not in actions]

    return prune


def removed_words(removed: Removed) -> str:
    """The removed sizes in words: ``b:33, b:150 at root; r:300 at k b:66``."""
    return "; ".join(f"{', '.join(actions)} at {line_words(line)}" for line, actions in removed)


@dataclass(frozen=True, eq=False)
class HoldemSource:
    """A hold'em subgame: its spec, its checked setup when it has been validated, and the bet
    sizes removed from its tree (a simplified tree; :data:`Removed`, none by default)."""

    spec: HoldemSpec
    setup: HoldemSetup | None = field(default=None, repr=False)
    removed: Removed = ()
    kind = "holdem"

    def to_dict(self) -> dict[str, Any]:
        """``{"kind": "holdem", "spec": {...}}``, with ``"removed": {line: [actions]}``
        beside the spec when sizes were removed."""
        data: dict[str, Any] = {"kind": "holdem", "spec": asdict(self.spec)}
        if self.removed:
            data["removed"] = removed_to_json(self.removed)
        return data

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
        out = {k: v for k, v in data.items() if k not in _NOT_THE_GAME}
        if self.removed:  # (a key without it is the one it always was)
            out["removed"] = removed_to_json(self.removed)
        return json.dumps(out, sort_keys=True)

    def checked(self) -> HoldemSource:
        """This source with its setup (validated now unless it was, its removed sizes found
        in the card-free tree); :class:`SpecError`."""
        if self.setup is not None:
            return self
        setup = validate(self.spec)
        if self.removed:
            prune_sizes(self.removed)(betting_tree(setup))
        return replace(self, setup=setup)

    def build(self) -> Game:
        """The game (:func:`~solver.games.holdem.build_holdem`), from the checked setup when
        the source carries one (no second validation), without the removed sizes
        (:class:`SpecError` field ``removed`` when they are not in this spot's tree)."""
        prune = prune_sizes(self.removed) if self.removed else None
        return build_holdem(self.setup if self.setup is not None else self.spec, prune)


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


def holdem_from_spec(data: object, check: bool = True, removed: Removed = ()) -> HoldemSource:
    """The :class:`HoldemSource` of a source dict's ``spec`` object (``check``: validated, its
    setup kept) with ``removed`` (:func:`removed_from_json`'s); :class:`SourceError` naming a
    bad field (``hold'em spec pot: ...``)."""
    args = _spec_fields(data, "hold'em", HoldemSpec)
    required = [f.name for f in fields(HoldemSpec) if f.name not in args and _required(f)]
    if required:
        raise SourceError(f"hold'em spec: missing field(s) {', '.join(required)}")
    source = HoldemSource(HoldemSpec(**args), removed=removed)
    try:
        return source.checked() if check else source
    except SpecError as exc:
        where = "" if exc.field == "removed" else "hold'em spec "
        raise SourceError(f"{where}{exc.field}: {exc.message}") from None


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
        # a dict without "removed" is the game it always was; one with it must say what
        removed = removed_from_json(data["removed"]) if "removed" in data else ()
        return holdem_from_spec(data.get("spec"), check, removed)
    raise SourceError(f"unknown game kind {brief(kind)}")


def as_source(source: GameSource | dict[str, Any], check: bool = True) -> GameSource:
    """A typed source as it is; a dict through :func:`from_dict`."""
    if isinstance(source, (ToySource, HoldemSource, PreflopSource)):
        return source
    return from_dict(source, check)
