"""How messages quote what a user gave: short, printable, and never failing themselves."""

from __future__ import annotations

import reprlib
import unicodedata


def brief(value: object) -> str:
    """``value`` as messages quote it: Python's repr, cut short for long text and containers
    (an integer too long for Python to print is named as such)."""
    try:
        return reprlib.repr(value)
    except ValueError:  # str() of an int past 4,300 digits
        return f"a {type(value).__name__} holding an integer of more than 4,300 digits"


def shown_path(path: str) -> str:
    """A path as a one-line message shows it: as given when printable, else quoted
    (:func:`brief`) so a control character (a line break, an escape) cannot split the message
    or reach the terminal."""
    return path if path.isprintable() else brief(path)


def odd_characters(text: str) -> str:
    """What messages add when ``text`` holds characters outside ASCII, which card and range
    syntax never uses: ``" ('K' is U+212A KELVIN SIGN)"`` naming up to three of them (one
    that looks like a letter is not that letter), else ``""``."""
    odd: list[str] = []
    for ch in text:
        if ord(ch) > 127 and ch not in odd:
            odd.append(ch)
            if len(odd) == 3:
                break
    if not odd:
        return ""
    named = ", ".join(
        f"{ch!r} is U+{ord(ch):04X} {unicodedata.name(ch, 'an unnamed character')}" for ch in odd
    )
    return f" ({named})"
