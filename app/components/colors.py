"""Action colours as commercial solvers draw them: fold blue, check/call green, bets and
raises in red shades (darker for bigger amounts), all-in darkest."""

from __future__ import annotations

FOLD = "#3d7fd9"
PASSIVE = "#4bb34b"  # check / call
EMPTY = "#e6e6e6"  # a cell no combo reaches
_REDS = ("#f19a8e", "#e8685a", "#d43d33", "#b0231e", "#8a1414", "#5e0b0b")
CARD_SUIT_COLORS = {"s": "#222222", "h": "#d62728", "d": "#1f77b4", "c": "#2ca02c"}


def _amount(label: str) -> float:
    try:
        return float(label.split(":", 1)[1])
    except (IndexError, ValueError):
        return 0.0


def action_colors(labels: list[str]) -> list[str]:
    """One colour per action label (``f``, ``k``, ``c``, ``b:S``, ``r:S``, others grey)."""
    aggressive = sorted({_amount(a) for a in labels if a.startswith(("b:", "r:"))})
    out = []
    for a in labels:
        if a == "f":
            out.append(FOLD)
        elif a in ("k", "c"):
            out.append(PASSIVE)
        elif a.startswith(("b:", "r:")):
            rank = aggressive.index(_amount(a))
            shift = max(0, len(_REDS) - len(aggressive)) // 2 if len(aggressive) < 4 else 0
            out.append(_REDS[min(rank + shift, len(_REDS) - 1)])
        else:
            out.append("#999999")
    return out
