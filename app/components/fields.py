"""Number fields that treat bad input like the text fields do: the typed text is kept, a
message names the field, and the page's start button stays disabled until it is fixed.

Streamlit's own number input refuses text it cannot parse (``abc`` vanishes, ``1e12`` became
1) and leaves an out-of-range value unapplied behind "Press Enter to apply", so the server
never learns what was typed. These are text inputs parsed here instead: whole numbers or
decimals, ``1e6`` notation, thousands separators (``1,000,000``; ``1 000``; ``1_000``).

Every widget value that must survive a page switch is kept for the whole session
(``persist_state="session"``, :data:`PERSIST`).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Literal

PERSIST: Literal["session"] = "session"
"""``persist_state`` of every widget whose value outlives its page."""

_THOUSANDS = re.compile(r"^[+-]?\d{1,3}([,_ ]\d{3})+(\.\d*)?$")


@dataclass(frozen=True)
class Number:
    """What a number field accepts: ``label`` names it in messages; bounds are inclusive;
    ``whole`` asks for an integer; ``note`` explains a special value (e.g. "0 = none")."""

    label: str
    minimum: float | None = None
    maximum: float | None = None
    whole: bool = False
    note: str = ""
    percent: bool = False  # text may end in "%" ("5%": 5)

    def parse(self, raw: object) -> tuple[float | None, str]:
        """(value, "") for good input — an int when ``whole`` — or (None, message naming the
        field). Numbers (a preset's, a test's) are checked like text."""
        if isinstance(raw, bool):
            return None, self._say(f"{raw!r} is not a number")
        if isinstance(raw, (int, float)):
            text = format(raw, "g") if isinstance(raw, float) else str(raw)
            value = float(raw)
        else:
            text = str(raw if raw is not None else "").strip()
            if not text:
                return None, self._say(f"enter {self._kind()}{self._bounds()}")
            if self.percent and text.endswith("%"):
                text = text[:-1].strip()
            plain = re.sub(r"[,_ ]", "", text) if _THOUSANDS.match(text) else text
            try:
                value = float(plain)
            except ValueError:
                return None, self._say(f"{text!r} is not a number")
        if not math.isfinite(value):
            return None, self._say(f"must be a finite number, got {text}")
        if self.whole and value != int(value):
            return None, self._say(f"must be a whole number, got {text}")
        if (self.minimum is not None and value < self.minimum) or (
            self.maximum is not None and value > self.maximum
        ):
            return None, self._say(f"must be{self._bounds()}, got {text}")
        return (int(value) if self.whole else value), ""

    def parse_kept(self, raw: object, default: float | None = None) -> tuple[float | None, str]:
        """:meth:`parse` of what a field keeps (``raw``: the session's value under its key),
        ``(default, "")`` while the field has never been drawn (``raw`` None) and a default
        is given."""
        if raw is None and default is not None:
            return default, ""
        return self.parse(raw)

    def _kind(self) -> str:
        return "a whole number" if self.whole else "a number"

    def _bounds(self) -> str:
        lo, hi = self.minimum, self.maximum
        if lo is not None and hi is not None:
            return f" from {show(lo)} to {show(hi)}"
        if lo is not None:
            return f" ≥ {show(lo)}"
        if hi is not None:
            return f" ≤ {show(hi)}"
        return ""

    def _say(self, what: str) -> str:
        note = f" ({self.note})" if self.note else ""
        return f"{self.label}: {what}{note}."


def show(value: float | None) -> str:
    """A number as a field shows it: ``200``, ``0.3``, ``1,000,000``, ``1e-06``."""
    if value is None:
        return ""
    if float(value).is_integer() and abs(value) < 1e15:
        return f"{int(value):,}" if abs(value) >= 10_000 else str(int(value))
    return format(float(value), "g")


def duration(seconds: float) -> str:
    """A time as people read it: ``0.2 ms``, ``38 ms``, ``4.1 s``, ``2.5 min``, ``3.2 h``."""
    if seconds < 0.001:
        return f"{seconds * 1000:.2g} ms"
    if seconds < 1.0:
        return f"{seconds * 1000:.0f} ms"
    if seconds < 120.0:
        return f"{seconds:.1f} s"
    if seconds < 5400.0:
        return f"{seconds / 60:.1f} min"
    return f"{seconds / 3600:.1f} h"
