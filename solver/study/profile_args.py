"""The profile API's argument checks: what :func:`~solver.study.profiles.plan`,
:func:`~solver.study.profiles.compile_profile`, :func:`~solver.study.profiles.apply_profile`
and the readback are given, checked before any array is read or anything is solved — a value
of the wrong type is a TypeError naming the argument, one out of range a ValueError naming it
(the profile itself: :func:`solver.study.profile_spec.check_values`).
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np
import numpy.typing as npt

from solver.api import SolveResult
from solver.cfr.locks import LockSet
from solver.cfr.options import finite
from solver.games.model import Game
from solver.quoting import brief

Array = npt.NDArray[np.float64]


def _number(value: object) -> bool:
    """A real number, not a bool (numpy's included)."""
    return not isinstance(value, (bool, np.bool_)) and isinstance(
        value, (int, float, np.integer, np.floating)
    )


def check_game(game: object, name: str = "game") -> Game:
    """``game`` if it is a :class:`~solver.games.model.Game`, else TypeError naming it."""
    if not isinstance(game, Game):
        raise TypeError(f"{name} must be a Game (a built spot), got {brief(game)}")
    return game


def checked_sigma(game: Game, sigma: object, name: str = "sigma") -> Array:
    """``sigma`` as a float64 array of one probability per cell of ``game`` ((A,), finite):
    TypeError naming ``name`` for what is no numeric array, ValueError for the wrong shape or
    a value that is not finite. The shape is read before anything is converted."""
    shape = getattr(sigma, "shape", None)
    if not isinstance(sigma, np.ndarray) or sigma.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must be a numpy array of numbers (the game's flat strategy), "
            f"got {type(sigma).__name__}"
        )
    if shape != (game.action_size,):
        raise ValueError(
            f"{name} must have shape ({game.action_size},) (one number per cell), got {shape}"
        )
    out = np.asarray(sigma, dtype=np.float64)
    if not np.isfinite(out).all():
        raise ValueError(f"{name} holds a number that is not finite")
    return out


def checked_solved(solved: object, locks: object) -> tuple[Game, Array | None]:
    """``compile_profile``'s ``solved`` (a :class:`SolveResult`, or ``(game, sigma)``) and
    ``locks`` (None or a :class:`~solver.cfr.locks.LockSet`): the game and, for a pair, its
    checked sigma."""
    if locks is not None and not isinstance(locks, LockSet):
        raise TypeError(f"locks must be None or the solve's LockSet, got {brief(locks)}")
    if isinstance(solved, SolveResult):
        return solved.game, None
    if not isinstance(solved, tuple) or len(solved) != 2:
        raise TypeError(
            f"solved must be a SolveResult or a (game, sigma) pair, got {brief(solved)}"
        )
    game = check_game(solved[0], "solved[0]")
    return game, checked_sigma(game, solved[1], "solved[1]")


def check_aims(aims: object, entries: int) -> None:
    """``aims``: None or {entry index: percent}, each index one of the profile's ``entries``
    and each percent a finite number in [0, 100]."""
    if aims is None:
        return
    if not isinstance(aims, Mapping):
        raise TypeError(f"aims must be {{entry: percent}} (a mapping), got {brief(aims)}")
    for key, value in aims.items():
        if isinstance(key, (bool, np.bool_)) or not isinstance(key, (int, np.integer)):
            raise TypeError(f"aims: an entry is a whole number, got {brief(key)}")
        if not 0 <= key < entries:
            raise ValueError(f"aims: entry {brief(key)} is not one of the profile's {entries}")
        if not _number(value) or not finite(value) or not 0.0 <= float(value) <= 100.0:
            raise ValueError(f"aims[{key}] must be a percentage 0–100, got {brief(value)}")


def check_bluffs(bluffs: object, hands: int) -> None:
    """``bluffs``: None or {node: (H,) bool mask} of the opponent's ``hands``."""
    if bluffs is None:
        return
    if not isinstance(bluffs, Mapping):
        raise TypeError(f"bluffs must be {{node: mask}} (a mapping), got {brief(bluffs)}")
    for node, mask in bluffs.items():
        if isinstance(node, (bool, np.bool_)) or not isinstance(node, (int, np.integer)):
            raise TypeError(f"bluffs: a node is a whole number, got {brief(node)}")
        if not isinstance(mask, np.ndarray) or mask.dtype != np.bool_ or mask.shape != (hands,):
            raise ValueError(
                f"bluffs[{node}] must be a bool array of the opponent's {hands} hands, "
                f"got {brief(mask)}"
            )


def check_apply(
    result: object,
    iterations: object,
    target_exploitability: object,
    rounds: object,
    check_every: object,
    on_round: object,
) -> None:
    """``apply_profile``'s arguments but the profile: ``result`` a :class:`SolveResult`,
    ``iterations`` None or a whole number ≥ 0, ``target_exploitability`` None or a number of
    chips > 0, ``rounds`` and ``check_every`` whole numbers ≥ 1, ``on_round`` None or
    callable."""
    if not isinstance(result, SolveResult):
        raise TypeError(f"result must be a SolveResult (solve's), got {brief(result)}")
    for name, value, low in (("iterations", iterations, 0), ("rounds", rounds, 1),
                             ("check_every", check_every, 1)):  # fmt: skip
        if name == "iterations" and value is None:
            continue
        if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
            raise TypeError(f"{name} must be a whole number, got {brief(value)}")
        if value < low:
            raise ValueError(f"{name} must be a whole number ≥ {low}, got {brief(value)}")
    if target_exploitability is not None:
        if not _number(target_exploitability):
            raise TypeError(
                f"target_exploitability must be a number, got {brief(target_exploitability)}"
            )
        if not target_exploitability > 0:  # type: ignore[operator]
            raise ValueError(
                f"target_exploitability must be > 0 (chips), got {brief(target_exploitability)}"
            )
    if on_round is not None and not callable(on_round):
        raise TypeError(f"on_round must be callable, got {type(on_round).__name__}")
