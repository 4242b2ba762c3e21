"""What an opponent profile is, with no game: its stats (:data:`STATS`, the hand classes
:data:`CLASSES`), its seat, its small JSON form (:meth:`Profile.from_dict`,
:meth:`Profile.to_dict`) and what its values alone say is wrong (:func:`check_values`),
each problem a :class:`ProfileError` naming the field. The stats' definitions are in
:mod:`solver.study.profiles`, which re-exports every name here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from solver.cfr.options import finite
from solver.poker.handclass import DRAWS, MADE
from solver.quoting import brief

VERSION = 1
MAX_STATS = 64  # entries a profile may hold (a file is small)
EPS = 1e-9  # percentages' rounding slack


@dataclass(frozen=True)
class StatDef:
    """A stat: its key, the words players use, the action family it counts (``"bet"``,
    ``"fold"`` or ``"raise"``) and the seats it is defined for."""

    key: str
    label: str
    family: str
    seats: tuple[str, ...]
    where: str  # the nodes, in words (docs and the editor's help)


STATS: dict[str, StatDef] = {
    s.key: s
    for s in (
        StatDef("cbet", "C-bet %", "bet", ("oop", "ip"),
                "bets the first street when nobody has bet yet"),
        StatDef("fold_to_cbet", "Fold to c-bet %", "fold", ("oop", "ip"),
                "folds to the other player's first bet of the first street"),
        StatDef("check_raise", "Check-raise %", "raise", ("oop",),
                "raises after checking, facing the first bet of the first street"),
        StatDef("turn_barrel", "Turn barrel %", "bet", ("oop", "ip"),
                "bets the turn after its flop c-bet was called, nobody having bet yet"),
        StatDef("river_bet", "River bet %", "bet", ("oop", "ip"),
                "bets the river when nobody has bet on the river yet"),
        StatDef("river_bluff", "River bluff share %", "bet", ("oop", "ip"),
                "of its river bets, the share made with under 50 % equity"),
        StatDef("fold_to_river_bet", "Fold to river bet %", "fold", ("oop", "ip"),
                "folds to the other player's first river bet"),
    )
}  # fmt: skip
CLASSES: tuple[str, ...] = (*MADE, *DRAWS)


class ProfileError(ValueError):
    """A profile that cannot be used; ``field`` names the part at fault (``"player"``,
    ``"stats[2].value"``, ``"version"`` …)."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True)
class StatTarget:
    """One stat of a profile: ``value`` a percentage in [0, 100]; ``hand_class`` None for the
    whole range, else a class key of :data:`CLASSES`."""

    stat: str
    value: float
    hand_class: str | None = None

    @property
    def name(self) -> str:
        """``"cbet"`` or ``"cbet[top_pair]"``: how readbacks and messages name the entry."""
        return self.stat if self.hand_class is None else f"{self.stat}[{self.hand_class}]"


@dataclass(frozen=True)
class Profile:
    """An opponent: its seat (``"oop"`` or ``"ip"``) and its stats."""

    player: str
    stats: tuple[StatTarget, ...]
    name: str = ""

    def to_dict(self) -> dict[str, Any]:
        """The small JSON form (``version`` 1)."""
        return {
            "version": VERSION,
            "name": self.name,
            "player": self.player,
            "stats": [
                {"stat": s.stat, "value": s.value}
                | ({"class": s.hand_class} if s.hand_class else {})
                for s in self.stats
            ],
        }

    @staticmethod
    def from_dict(data: object) -> Profile:
        """A profile from its JSON form; :class:`ProfileError` naming the first field that is
        wrong (a stat outside 0–100 %, an unknown stat or class, a stat the seat does not
        have, a stat given twice, two stats that contradict each other)."""
        if not isinstance(data, Mapping):
            raise ProfileError("profile", "a profile is a JSON object")
        known = {"version", "name", "player", "stats"}
        for key in data:
            if key not in known:
                raise ProfileError(
                    _key(key), f"not a profile field (fields: {', '.join(sorted(known))})"
                )
        version = data.get("version")
        if isinstance(version, bool) or not isinstance(version, (int, float)) or version != VERSION:
            raise ProfileError(
                "version", f"{brief(version)} is not a profile version read here ({VERSION})"
            )
        name = data.get("name", "")
        if not isinstance(name, str) or len(name) > 200:
            raise ProfileError("name", "text of at most 200 characters")
        player = data.get("player")
        if not isinstance(player, str) or player not in ("oop", "ip"):
            raise ProfileError("player", f"the opponent's seat, 'oop' or 'ip', got {brief(player)}")
        raw = data.get("stats")
        if not isinstance(raw, list) or not raw:
            raise ProfileError("stats", "a list of {stat, value[, class]}, at least one")
        if len(raw) > MAX_STATS:
            raise ProfileError("stats", f"at most {MAX_STATS} entries, got {len(raw)}")
        stats = tuple(_entry(f"stats[{i}]", e) for i, e in enumerate(raw))
        profile = Profile(str(player), stats, name)
        check_values(profile)
        return profile


def _key(key: object) -> str:
    """A key as a message names the field: as written when it is printable text, else quoted
    (a line break in a key must not split the CLI's one line); at most 40 characters."""
    text = key if isinstance(key, str) and key.isprintable() else brief(key)
    return text[:40]


def _entry(where: str, e: object) -> StatTarget:
    if not isinstance(e, Mapping):
        raise ProfileError(where, "an entry is {stat, value[, class]}")
    for key in e:
        if key not in ("stat", "value", "class"):
            raise ProfileError(f"{where}.{_key(key)}", "not a stat field (stat, value, class)")
    stat = e.get("stat")
    if not isinstance(stat, str) or stat not in STATS:
        raise ProfileError(f"{where}.stat", f"{brief(stat)} is not a stat ({', '.join(STATS)})")
    value = e.get("value")
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ProfileError(f"{where}.value", f"a percentage 0–100, got {brief(value)}")
    try:
        number = float(value)
    except OverflowError:  # an integer past 1e308
        number = math.inf
    if not math.isfinite(number) or not 0.0 <= number <= 100.0:
        raise ProfileError(f"{where}.value", f"{brief(value)} is outside 0–100 %")
    klass = e.get("class")
    if klass is not None and (not isinstance(klass, str) or klass not in CLASSES):
        raise ProfileError(
            f"{where}.class", f"{brief(klass)} is not a hand class ({', '.join(CLASSES)})"
        )
    return StatTarget(str(stat), number, klass)


def check_values(profile: Profile) -> None:
    """What a profile's values alone say is wrong (no game needed): a stat the seat does not
    have, one given twice for the same hands, a bluff share per class, and stats of the same
    nodes that cannot all hold (fold % + check-raise % over 100). A profile built by hand
    (not by :meth:`Profile.from_dict`) is checked field by field first: TypeError for what is
    no :class:`Profile`, :class:`ProfileError` naming the field of a wrong part."""
    _check_parts(profile)
    seen: dict[tuple[str, str | None], int] = {}
    for i, s in enumerate(profile.stats):
        where = f"stats[{i}]"
        d = STATS[s.stat]
        if profile.player not in d.seats:
            raise ProfileError(
                f"{where}.stat",
                f"{s.stat} is not a stat of the {profile.player.upper()} player "
                "(only the player out of position checks and then raises)",
            )
        if s.stat == "river_bluff" and s.hand_class is not None:
            raise ProfileError(
                f"{where}.class", "river_bluff is a share of all river bets; no class"
            )
        key = (s.stat, s.hand_class)
        if key in seen:
            raise ProfileError(where, f"{s.name} is given twice (stats[{seen[key]}] and here)")
        seen[key] = i
    for klass in {s.hand_class for s in profile.stats}:
        f = _find(profile, "fold_to_cbet", klass)
        r = _find(profile, "check_raise", klass)
        if f is not None and r is not None and f[1].value + r[1].value > 100.0 + EPS:
            raise ProfileError(
                f"stats[{r[0]}]",
                f"{r[1].name} {r[1].value:g} % and {f[1].name} {f[1].value:g} % contradict "
                "each other: the same spots, together over 100 %",
            )
    if _find(profile, "river_bluff", None) and any(
        s.stat == "river_bet" and s.hand_class for s in profile.stats
    ):
        i = next(i for i, s in enumerate(profile.stats) if s.stat == "river_bluff")
        raise ProfileError(
            f"stats[{i}]",
            "river_bluff contradicts a river_bet given per class: the bluff "
            "share splits the whole range's bets",
        )


def _check_parts(profile: object) -> None:
    """What :meth:`Profile.from_dict` checks of its input, on a profile built by hand."""
    if not isinstance(profile, Profile):
        raise TypeError(
            f"profile must be a Profile (Profile.from_dict reads one), got {brief(profile)}"
        )
    if not isinstance(profile.player, str) or profile.player not in ("oop", "ip"):
        raise ProfileError(
            "player", f"the opponent's seat, 'oop' or 'ip', got {brief(profile.player)}"
        )
    if not isinstance(profile.name, str) or len(profile.name) > 200:
        raise ProfileError("name", "text of at most 200 characters")
    stats = profile.stats
    if not isinstance(stats, (tuple, list)) or not stats:
        raise ProfileError("stats", "a tuple of StatTarget, at least one")
    if len(stats) > MAX_STATS:
        raise ProfileError("stats", f"at most {MAX_STATS} entries, got {len(stats)}")
    for i, t in enumerate(stats):
        where = f"stats[{i}]"
        if not isinstance(t, StatTarget):
            raise ProfileError(where, f"a StatTarget, got {brief(t)}")
        if not isinstance(t.stat, str) or t.stat not in STATS:
            raise ProfileError(
                f"{where}.stat", f"{brief(t.stat)} is not a stat ({', '.join(STATS)})"
            )
        v = t.value
        if isinstance(v, (bool, np.bool_)) or not isinstance(
            v, (int, float, np.integer, np.floating)
        ):
            raise ProfileError(f"{where}.value", f"a percentage 0–100, got {brief(v)}")
        if not (finite(v) and 0.0 <= v <= 100.0):
            raise ProfileError(f"{where}.value", f"{brief(v)} is outside 0–100 %")
        k = t.hand_class
        if k is not None and (not isinstance(k, str) or k not in CLASSES):
            raise ProfileError(
                f"{where}.class", f"{brief(k)} is not a hand class ({', '.join(CLASSES)})"
            )


def _find(profile: Profile, stat: str, klass: str | None) -> tuple[int, StatTarget] | None:
    for i, s in enumerate(profile.stats):
        if s.stat == stat and s.hand_class == klass:
            return i, s
    return None
