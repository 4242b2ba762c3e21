"""Set one action's frequency for a whole range by *shifting*, as Pio and GTO Wizard lock:
"bet 60 % instead of 35 %" moves hands into the action in the order of the solution's own
preference — highest EV gain of the action first — so the range stays ranked, where a flat
lock gives every hand the same mix.

Pure NumPy on one decision node's numbers (no tree walk): the strategy ``(num_actions, H)``,
the acting player's reach ``(H,)`` and each hand's EV gain of the action ``(H,)`` chips (the
action's EV minus the hand's EV at the node, :func:`solver.study.views.action_evs`).
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

Array = npt.NDArray[np.float64]

TOLERANCE = 1e-12


def frequency(strategy: Array, reach: Array, action: int) -> float:
    """The reach-weighted frequency of ``action`` over the range, in [0, 1] (0 when nothing
    reaches)."""
    total = float(reach.sum())
    return float(reach @ strategy[action]) / total if total > 0 else 0.0


def shift(strategy: Array, reach: Array, gain: Array, action: int, target: float) -> Array:
    """The strategy ``(num_actions, H)`` with ``action``'s frequency over the range moved to
    ``target`` (in [0, 1]) by shifting: to raise it, hands take the action in order of
    ``gain`` (highest first), each as far as it can before the next one starts; to lower it,
    hands leave it in the opposite order. A hand's other actions keep their proportions
    (a hand that played only ``action`` moves to the range's mix of the others; uniform when
    the range plays none). Hands that do not reach (``reach`` 0) keep their mix. NaN gains
    count as 0. The input is not changed."""
    if not 0.0 <= target <= 1.0:
        raise ValueError(f"target must be a frequency in [0, 1], got {target!r}")
    na = strategy.shape[0]
    if not 0 <= action < na:
        raise ValueError(f"action must be 0 to {na - 1}, got {action!r}")
    out = np.array(strategy, dtype=np.float64, copy=True)
    total = float(reach.sum())
    if total <= 0:
        return out
    need = (target - frequency(strategy, reach, action)) * total  # reach mass to move
    g = np.where(np.isfinite(gain), gain, 0.0)
    order = np.argsort(-g if need > 0 else g, kind="stable")
    others = [b for b in range(na) if b != action]
    if not others:  # (one action: nothing to shift)
        return out
    mass = reach @ strategy[others].T  # (len(others),) the range's mix of the others
    fallback = mass / mass.sum() if mass.sum() > 0 else np.full(len(others), 1.0 / len(others))
    for h in order:
        if abs(need) <= TOLERANCE * total:
            break
        r = float(reach[h])
        if r <= 0:
            continue
        p = float(out[action, h])
        room = r * (1.0 - p) if need > 0 else r * p
        take = min(room, abs(need))
        if take <= 0:
            continue
        q = p + take / r if need > 0 else p - take / r
        rest = out[others, h]
        left = 1.0 - p
        if left > TOLERANCE:
            out[others, h] = rest * ((1.0 - q) / left)
        else:
            out[others, h] = fallback * (1.0 - q)
        out[action, h] = q
        need -= take if need > 0 else -take
    return out
