"""One player's counterfactual values at many nodes of one game under one profile: the
solver's evaluation walk (``MODE_EVAL``, what :func:`solver.cfr.bestresponse.node_values`
runs) with its arguments checked and built once, for a tree summary's thousands of calls.

:func:`solver.cfr.drive.run_pass` rebuilds its buffers, rows and flags on every call, and
Numba's dispatcher types every argument (namedtuples of dozens of arrays) on every call: both
cost more than the walk below a river node. :class:`EvalWalk` makes the arguments once and,
after a first call through the dispatcher, calls the compiled overload that call chose
(its ``entry_point``, looked up by the arguments' types) — the same machine code with the
same arguments, so the values are the same numbers. Without a compiled overload (Numba's JIT
disabled) it calls ``drive`` as it is.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import numpy.typing as npt

from solver.cfr.bestresponse import _EVAL_STATE, _NO_LEAVES, _NO_RULE
from solver.cfr.drive import (
    _NO_OUT,
    _NO_SYNC,
    _ONE,
    OP_PASS,
    Buffers,
    _fl,
    _leaves,
    _rows,
    _sigma,
    drive,
)
from solver.cfr.layout import (
    MODE_EVAL,
    NO_DRAWS,
    check_strategy,
    game_arrays,
    make_scratch,
    pass_flags,
)
from solver.games.model import Game

Array = npt.NDArray[np.float64]


class EvalWalk:
    """Evaluation walks of ``game`` under ``sigma`` (action_size,), one scratch for all."""

    def __init__(self, game: Game, sigma: Array) -> None:
        sigma = check_strategy(game, sigma)
        self.sc = sc = make_scratch(game)
        self.nh = game.num_hands
        self.game = game_arrays(game)
        self.sigma = _sigma(sigma, _EVAL_STATE.st)
        self.co = _rows(_NO_RULE)
        self.u = _rows(NO_DRAWS)
        self.fl = tuple(_fl(pass_flags(p, MODE_EVAL), sigma) for p in range(2))
        self.buf = Buffers(sc, sc, _leaves(_NO_LEAVES[sc.value.dtype], sc), _NO_OUT, _NO_SYNC)
        self.entry: list[Callable[..., int] | None] = [None, None]  # per player, once known

    def values(self, node: int, player: int, opp_reach: Array, cf: float) -> Array:
        """``player``'s counterfactual values (H[player],) at ``node`` given the opponent's
        reach (H[1 − player],) and the chance factor ``cf`` of the cards dealt on the way:
        what :func:`~solver.cfr.bestresponse.node_values` returns."""
        sc = self.sc
        sc.reach[0, :] = 0.0
        sc.reach[0, : opp_reach.shape[0]] = opp_reach * cf
        args = (OP_PASS, self.game, _EVAL_STATE, int(node), self.sigma, self.co, self.u,
                self.fl[player], self.buf, _ONE)  # fmt: skip
        entry = self.entry[player]
        if entry is None:
            drive(*args)  # through the dispatcher: compiled or loaded from the cache here
            self.entry[player] = _compiled(args)
        else:
            entry(*args)
        return sc.value[0, : self.nh[player]].copy()


def _compiled(args: tuple[object, ...]) -> Callable[..., int]:
    """The compiled overload of ``drive`` the dispatcher runs for ``args`` (module doc);
    ``drive`` itself when there is none."""
    overloads = getattr(drive, "overloads", None)
    typeof = getattr(drive, "typeof_pyval", None)
    if overloads is None or typeof is None:
        return drive
    found = overloads.get(tuple(typeof(a) for a in args))
    return drive if found is None else found.entry_point
