"""The trainer's arguments (:mod:`solver.study.trainer`, :mod:`~solver.study.dealing`,
:mod:`~solver.study.grading`): the error a bad one raises, naming it, and the checks they share.
"""

from __future__ import annotations

import numpy as np
import numpy.typing as npt

from solver.games.model import Game

Array = npt.NDArray[np.float64]


class TrainerError(ValueError):
    """A trainer argument that cannot be used: ``field`` names it (``player``, ``node``,
    ``sigma``, ``seed``, ``rng``, ``line``, ``action``, ``decisions``, a threshold, …); the
    message says what it must be."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field
        self.message = message


def said(value: object, limit: int = 60) -> str:
    """``repr(value)`` cut to ``limit`` characters for a message (an integer too long to
    print in full by its digit count)."""
    if isinstance(value, int) and abs(value) > 10**limit:
        return f"a number of {len(format(abs(value), 'x')) * 4} bits"  # (str() may refuse it)
    try:
        text = repr(value)
    except Exception:  # a repr that fails still gets a message
        text = f"a {type(value).__name__}"
    return text if len(text) <= limit else text[: limit - 1] + "…"


def whole(field: str, value: object, low: int, high: int | None = None) -> int:
    """``value`` as an int in ``[low, high]`` (a Python or numpy integer, not a bool), else
    :class:`TrainerError` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TrainerError(field, f"{field} must be a whole number, not {said(value)}")
    v = int(value)
    if v < low or (high is not None and v > high):
        span = f"{low} to {high:,}" if high is not None else f"{low} or more"
        raise TrainerError(field, f"{field} must be {span}, not {said(v)}")
    return v


def real(field: str, value: object) -> float:
    """``value`` as a finite float (a Python or numpy real, not a bool), else
    :class:`TrainerError` naming ``field``."""
    if isinstance(value, bool) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise TrainerError(field, f"{field} must be a number, not {said(value)}")
    try:
        v = float(value)
    except OverflowError:
        v = float("inf")
    if not np.isfinite(v):
        raise TrainerError(field, f"{field} must be a finite number, not {said(value)}")
    return v


def checked_sigma(game: Game, sigma: object) -> Array:
    """``sigma`` as a writable C-contiguous (action_size,) float64 copy or view, else
    :class:`TrainerError` naming ``sigma``: a profile of the game's size
    whose frequencies are finite and in [0, 1]."""
    want = f"the solve's average strategy, ({game.action_size},) frequencies"
    if sigma is None:
        raise TrainerError("sigma", f"sigma must be {want}, not None")
    try:
        out = np.require(sigma, dtype=np.float64, requirements=("C", "W"))
    except (TypeError, ValueError, OverflowError):
        raise TrainerError("sigma", f"sigma must be {want}, not {type(sigma).__name__}") from None
    if out.shape != (game.action_size,):
        raise TrainerError("sigma", f"sigma must be {want}, not shape {out.shape}")
    if not (np.isfinite(out).all() and (out >= 0).all() and (out <= 1 + 1e-9).all()):
        raise TrainerError("sigma", f"sigma must be {want} in [0, 1]")
    return out
