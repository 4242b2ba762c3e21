"""A race's targets: exploitabilities to reach, in chips or in % of a hold'em pot
(:func:`parse_targets`), and the defaults the app and the CLI offer."""

from __future__ import annotations

import math
from dataclasses import dataclass

from solver.cfr.options import finite
from solver.games.model import Game
from solver.quoting import brief
from solver.run.race.entries import number_text

MAX_TARGETS = 6


class TargetError(ValueError):
    """A target list that cannot be used; the message quotes the bad item."""


@dataclass(frozen=True)
class Target:
    """An exploitability to reach: ``chips``, and how it was given (``0.001``, ``0.3%``)."""

    chips: float
    label: str


def game_pot(game: Game) -> float | None:
    """The starting pot (chips) of a hold'em game, None for a toy game: what
    :func:`parse_targets` needs to read ``%`` targets."""
    return game.starting_pot if game.is_holdem else None


def parse_targets(text: str, pot: float | None) -> tuple[Target, ...]:
    """A comma list of exploitabilities: chips (``0.01, 1e-3``) or, when ``pot`` (the
    starting pot of a hold'em game, chips) is given, percentages of it (``1%, 0.3%``).
    Sorted from the easiest (largest) to the hardest; duplicates merged. ``text`` that is not
    text, or a ``pot`` that is not a finite number > 0: :class:`TargetError` naming it."""
    if not isinstance(text, str):
        raise TargetError(f"targets must be text (e.g. '0.01, 0.001'), got {brief(text)}")
    if pot is not None and (not finite(pot) or not pot > 0):
        raise TargetError(
            f"pot must be a finite number of chips > 0 (None: a toy game), got {brief(pot)}"
        )
    items = [t.strip() for t in text.split(",")]
    if not any(items):
        raise TargetError("no target given (e.g. 0.01, 0.001)")
    out: dict[float, Target] = {}
    for item in items:
        if not item:
            raise TargetError("an empty target (targets are separated by commas)")
        pct = item.endswith("%")
        number = item[:-1].strip() if pct else item
        try:
            value = float(number)
        except ValueError:
            raise TargetError(f"{item!r} is not a number") from None
        if not value > 0 or math.isinf(value):
            raise TargetError(f"{item!r}: must be a positive number")
        if pct:
            if pot is None:
                raise TargetError(f"{item!r}: a percentage of the pot needs a hold'em game")
            target = Target(value / 100.0 * pot, f"{number_text(value)}%")
            if not 0 < target.chips < math.inf:  # past the float range, or below it
                raise TargetError(f"{item!r}: {target.chips:g} chips is not a usable target")
        else:
            target = Target(value, number_text(value))
        out.setdefault(target.chips, target)
    if len(out) > MAX_TARGETS:
        raise TargetError(f"at most {MAX_TARGETS} targets, got {len(out)}")
    return tuple(sorted(out.values(), key=lambda t: -t.chips))


DEFAULT_TARGETS_HOLDEM = "1%, 0.3%, 0.1%"
DEFAULT_TARGETS_TOY = "0.01, 0.001, 0.0001"


def default_targets(pot: float | None) -> tuple[Target, ...]:
    """1 %, 0.3 % and 0.1 % of the pot for hold'em (``pot`` given); 0.01, 0.001 and 0.0001
    chips for the toy games."""
    return parse_targets(DEFAULT_TARGETS_TOY if pot is None else DEFAULT_TARGETS_HOLDEM, pot)
