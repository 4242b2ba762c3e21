"""Bet-size syntax of commercial solvers, parsed and turned into whole-chip amounts.

Tokens (comma separated, case-insensitive):

* ``33%`` — a bet of 33 % of the pot; as a raise, raise *to* the bet faced plus 33 % of the
  pot after calling (``100%`` is the classic pot-size raise);
* ``2.5x`` — raises only: raise to 2.5 × the bet faced;
* ``a`` — all-in;
* ``3e`` — bets only: the geometric size that gets the stacks in over 3 streets of betting
  that size and being called (with pot P and stack S: f = (((P + 2S)/P)^(1/3) − 1)/2);
* ``120c`` — a bet of 120 chips; as a raise, raise by 120 chips over the bet faced.

Amounts are whole chips (rounded, at least 1); an amount at or above the stack is all-in;
sizes landing on the same amount merge.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["pct", "x", "allin", "geo", "chips"]

_TOKEN = re.compile(r"^(?:(\d+(?:\.\d+)?)(%|x|e|c)|(a|allin|all-in))$")


class SizeError(ValueError):
    """A bet-size text the syntax does not allow; the message names the token."""


@dataclass(frozen=True)
class Size:
    kind: Kind
    value: float = 0.0

    def __str__(self) -> str:
        if self.kind == "allin":
            return "a"
        suffix = {"pct": "%", "x": "x", "geo": "e", "chips": "c"}[self.kind]
        return f"{self.value:g}{suffix}"


def parse_sizes(text: str, *, raise_sizes: bool, field: str = "sizes") -> tuple[Size, ...]:
    """Parse ``"33%, 75%, a"`` into :class:`Size` objects (in the order given, duplicates
    dropped). ``raise_sizes`` allows ``x`` and forbids ``e``. Errors name ``field``."""
    out: list[Size] = []
    for raw in text.split(","):
        tok = raw.strip().lower().replace(" ", "")
        if not tok:
            if raw.strip() == "" and text.strip() == "":
                continue
            raise SizeError(f"{field}: empty size between commas in {text!r}")
        m = _TOKEN.match(tok)
        if m is None:
            raise SizeError(f"{field}: bad size {raw.strip()!r} (use 33%, 2.5x, a, 3e or 120c)")
        if m.group(3):
            size = Size("allin")
        else:
            value = float(m.group(1))
            unit = m.group(2)
            if unit == "%":
                if value <= 0:
                    raise SizeError(f"{field}: size {raw.strip()!r} must be positive")
                size = Size("pct", value)
            elif unit == "x":
                if not raise_sizes:
                    raise SizeError(f"{field}: {raw.strip()!r}: 'x' sizes are for raises only")
                if value <= 1:
                    raise SizeError(f"{field}: raise {raw.strip()!r} must be more than 1x")
                size = Size("x", value)
            elif unit == "e":
                if raise_sizes:
                    raise SizeError(f"{field}: {raw.strip()!r}: 'e' sizes are for bets only")
                if value < 1 or value != int(value):
                    raise SizeError(f"{field}: {raw.strip()!r}: streets must be a whole number ≥ 1")
                size = Size("geo", value)
            else:
                if value < 1:
                    raise SizeError(f"{field}: {raw.strip()!r}: at least 1 chip")
                size = Size("chips", value)
        if size not in out:
            out.append(size)
    return tuple(out)


def format_sizes(sizes: tuple[Size, ...]) -> str:
    return ", ".join(str(s) for s in sizes)


def bet_amount(size: Size, pot: float, stack: float) -> float:
    """Chips a bet of ``size`` puts in (before the all-in cap) with ``pot`` in the middle
    and ``stack`` behind."""
    if size.kind == "allin":
        return stack
    if size.kind == "pct":
        return size.value / 100.0 * pot
    if size.kind == "chips":
        return size.value
    if size.kind == "geo":
        n = size.value
        f = (math.pow((pot + 2.0 * stack) / pot, 1.0 / n) - 1.0) / 2.0
        return f * pot
    raise SizeError(f"{size} is not a bet size")


def raise_to(size: Size, pot: float, bet_faced: float, own_bet: float, stack_total: float) -> float:
    """Street commitment a raise of ``size`` goes to.

    ``pot``: all chips in the middle, this street's bets included; ``bet_faced``: the
    opponent's commitment this street; ``own_bet``: ours; ``stack_total``: the most our
    street commitment can reach (all-in)."""
    if size.kind == "allin":
        return stack_total
    if size.kind == "pct":
        pot_after_call = pot + (bet_faced - own_bet)
        return bet_faced + size.value / 100.0 * pot_after_call
    if size.kind == "x":
        return size.value * bet_faced
    if size.kind == "chips":
        return bet_faced + size.value
    raise SizeError(f"{size} is not a raise size")
