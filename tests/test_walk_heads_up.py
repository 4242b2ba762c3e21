"""A heads-up signature of the walk compiles none of the three-player code (issue 50).

The heads-up game's ``GameArrays.multi`` is a :class:`~solver.cfr.multi.NoMulti`, whose
overloaded steps are empty; every other kernel the driver reaches, called by name, must not
be a three-player one. Both checks read Python code objects and Numba types only: nothing is
compiled (the suite runs with ``--fail-on-compile``).
"""

from __future__ import annotations

import types as pytypes
from collections.abc import Callable, Iterator
from typing import Any, cast

import numba
import pytest
from numba.core.registry import CPUDispatcher

from solver.cfr import drive, multi
from solver.cfr.layout import game_arrays
from solver.cfr.multi_build import build_multi
from solver.games import make_game
from solver.games.multiway import multi_game

THREE_PLAYER = {"solver.cfr.multi", "solver.cfr.toy3_terminal", "solver.cfr.showdown3_terminal"}
STEPS: dict[Callable[..., Any], int] = {
    multi._start_rows: 3,
    multi._chance_rows: 9,
    multi._opponent_rows: 11,
    multi._terminal_rows: 9,
}


def _codes(code: pytypes.CodeType) -> Iterator[pytypes.CodeType]:
    yield code
    for c in code.co_consts:
        if isinstance(c, pytypes.CodeType):
            yield from _codes(c)


def reached_kernels(root: CPUDispatcher) -> dict[str, CPUDispatcher]:
    """Every kernel ``root`` calls by a global name, transitively (``module.qualname``)."""
    seen: dict[str, CPUDispatcher] = {}
    todo = [root]
    while todo:
        disp = todo.pop()
        py = disp.py_func
        name = f"{py.__module__}.{py.__qualname__}"
        if name in seen:
            continue
        seen[name] = disp
        for code in _codes(py.__code__):
            for g in code.co_names:
                obj = py.__globals__.get(g)
                if isinstance(obj, CPUDispatcher):
                    todo.append(obj)
    return seen


def test_the_driver_calls_no_three_player_kernel_by_name() -> None:
    reached = reached_kernels(cast(CPUDispatcher, drive.drive))
    assert "solver.cfr.walk.walk" in reached  # (the walk is reached: the scan follows calls)
    assert "solver.cfr.terminal.showdown_rows" in reached
    assert not [n for n in reached if n.rsplit(".", 1)[0] in THREE_PLAYER]


def test_the_heads_up_game_has_its_own_type() -> None:
    hu = numba.typeof(game_arrays(make_game("kuhn")).multi)
    three = numba.typeof(build_multi(multi_game("kuhn3")).arrays.multi)
    assert hu != three
    assert multi._heads_up(hu) and not multi._heads_up(three)


@pytest.mark.parametrize("step", list(STEPS), ids=lambda s: s.__name__)
def test_a_heads_up_step_is_empty(step: Callable[..., Any]) -> None:
    """Heads-up, each step's implementation names no global (no kernel); three players, it
    calls the three-player kernel."""
    hu = numba.typeof(multi.NO_MULTI)
    three = numba.typeof(build_multi(multi_game("kuhn3")).arrays.multi)
    rest = [None] * (STEPS[step] - 1)  # (the steps choose by the game's type alone)
    assert step(hu, *rest).__code__.co_names == ()
    called = step(three, *rest).__code__.co_names
    assert any(isinstance(getattr(multi, n, None), CPUDispatcher) for n in called)
