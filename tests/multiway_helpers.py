"""Shared pieces of the three-player tests: the JSON lines a ``--json`` solve prints, a
locks file written for ``--locks``, and a per-hand engine's profile carried over to the
deal-list build of the same spot (for the independent evaluator); an AppTest page's texts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt
from streamlit.testing.v1 import AppTest

from solver.cfr.river3_view import River3Game
from solver.games.model import DECISION
from solver.games.multiway import MultiGame


def lines(out: str) -> list[dict[str, Any]]:
    """Each line of ``out`` as a JSON object."""
    return [json.loads(line) for line in out.splitlines()]


def write(tmp_path: Path, content: object, name: str = "locks.json") -> str:
    """``content`` (text as it is, anything else as JSON) in ``tmp_path / name``; its path."""
    path = tmp_path / name
    path.write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")
    return str(path)


def deal_list_profile(
    mg: MultiGame,
    offset: npt.NDArray[np.integer[Any]],
    combos: tuple[npt.NDArray[np.int64], ...],
    profile: npt.NDArray[np.float64],
) -> npt.NDArray[np.float64]:
    """``profile`` of a per-hand build (node ``n``'s ``[action, hand]`` block at
    ``offset[n]``, player ``p``'s hands ``combos[p]``) as the deal-list game ``mg``'s
    (``mg.profile_size``,): each hand by its combo's place in ``mg.meta["union"]``, the
    hands a player cannot hold uniform. Same node numbering in both builds."""
    union = np.asarray(mg.meta["union"])
    sigma = np.empty(mg.profile_size)
    for n in np.flatnonzero(mg.kind == DECISION):
        na, p = int(mg.num_children[n]), int(mg.player[n])
        block = np.full((na, mg.num_hands), 1.0 / na)
        nh = combos[p].size
        block[:, np.searchsorted(union, combos[p])] = profile[
            offset[n] : offset[n] + na * nh
        ].reshape(na, nh)
        sigma[mg.offset[n] : mg.offset[n] + na * mg.num_hands] = block.ravel()
    return sigma


def combos(game: River3Game) -> tuple[npt.NDArray[np.int64], ...]:
    """The three players' combos of a three-way spot's solved game, player 0 first."""
    return tuple(game.combos(p) for p in range(3))


def texts(at: AppTest) -> str:
    """Every message, caption and markdown on an AppTest page, as one text."""
    parts = [x.value for kind in ("info", "warning", "error", "caption", "markdown")
             for x in getattr(at, kind)]  # fmt: skip
    return "\n".join(str(p) for p in parts)
