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

Each number has a ceiling (:data:`MAX_VALUE`: 1,000,000 % of the pot, 10,000x, 100 streets,
1,000,000,000 chips) well past any all-in a spot can have, so every amount stays a finite
number of chips; a text longer than :data:`MAX_TEXT` characters is refused before parsing.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

Kind = Literal["pct", "x", "allin", "geo", "chips"]

_TOKEN = re.compile(r"^(?:(\d+(?:\.\d+)?)(%|x|e|c)|(a|allin|all-in))$")


MAX_TEXT = 2_000
"""Longest size text accepted (characters): a few dozen sizes fit many times over."""
MAX_VALUE = {"pct": 1_000_000.0, "x": 10_000.0, "geo": 100.0, "chips": 1_000_000_000.0}
"""Largest number each kind of size may carry (% of the pot, times the bet, streets, chips)."""
_UNIT = {"pct": "%", "x": "x", "geo": "e", "chips": "c"}
_KIND: dict[str, Kind] = {"%": "pct", "x": "x", "e": "geo", "c": "chips"}


class SizeError(ValueError):
    """A bet-size text the syntax does not allow; the message names the token."""


@dataclass(frozen=True)
class Size:
    kind: Kind
    value: float = 0.0

    def __str__(self) -> str:
        if self.kind == "allin":
            return "a"
        return f"{self.value:g}{_UNIT[self.kind]}"


def parse_sizes(text: str, *, raise_sizes: bool, field: str = "sizes") -> tuple[Size, ...]:
    """Parse ``"33%, 75%, a"`` into :class:`Size` objects (in the order given, duplicates
    dropped). ``raise_sizes`` allows ``x`` and forbids ``e``. Errors name ``field``."""
    if not isinstance(text, str):
        got = type(text).__name__
        raise SizeError(f"{field}: sizes must be text like '33%, 75%, a', not {got}")
    if len(text) > MAX_TEXT:
        raise SizeError(f"{field}: {len(text):,} characters; at most {MAX_TEXT:,}")
    out: list[Size] = []
    for raw in text.split(","):
        tok = raw.strip().lower().replace(" ", "")
        shown = _shown(raw)
        if not tok:
            if raw.strip() == "" and text.strip() == "":
                continue
            raise SizeError(f"{field}: empty size between commas in {_shown(text)}")
        m = _TOKEN.match(tok)
        if m is None:
            raise SizeError(f"{field}: bad size {shown} (use 33%, 2.5x, a, 3e or 120c)")
        if m.group(3):
            size = Size("allin")
        else:
            value = float(m.group(1))
            kind: Kind = _KIND[m.group(2)]
            if kind == "x" and not raise_sizes:
                raise SizeError(f"{field}: {shown}: 'x' sizes are for raises only")
            if kind == "geo" and raise_sizes:
                raise SizeError(f"{field}: {shown}: 'e' sizes are for bets only")
            if not value <= MAX_VALUE[kind]:  # float() of 400 nines is inf
                top = f"{MAX_VALUE[kind]:,.0f}{_UNIT[kind]}"
                raise SizeError(f"{field}: {shown} is too large (at most {top})")
            if kind == "pct" and value <= 0:
                raise SizeError(f"{field}: size {shown} must be positive")
            if kind == "x" and value <= 1:
                raise SizeError(f"{field}: raise {shown} must be more than 1x")
            if kind == "geo" and (value < 1 or value != int(value)):
                raise SizeError(f"{field}: {shown}: streets must be a whole number ≥ 1")
            if kind == "chips" and value < 1:
                raise SizeError(f"{field}: {shown}: at least 1 chip")
            size = Size(kind, value)
        if size not in out:
            out.append(size)
    return tuple(out)


def _shown(raw: str) -> str:
    """A token as messages quote it: stripped, and cut to 40 characters."""
    text = raw.strip()
    return repr(text if len(text) <= 40 else text[:40] + "…")


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
