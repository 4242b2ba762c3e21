"""A node's analysis for the pages that show it (Explore, Export): computed under the
solve's latest average strategy and kept in the session until the strategy or the node
changes; the game's hand compatibility matrix kept while the game lives."""

from __future__ import annotations

import threading
import weakref

import numpy as np
import streamlit as st

from app import kernels, state
from app.state import Solved
from solver.games.model import Game
from solver.study.analysis import NodeAnalysis, analyze, compatible

_COMPAT: dict[int, np.ndarray] = {}
_COMPAT_LOCK = threading.Lock()


def _compat(game: Game) -> np.ndarray:
    """The game's hand compatibility matrix, kept while the game lives (games are freed when
    their last solve is: keyed by the object, not by an id a new game could reuse)."""
    key = id(game)
    with _COMPAT_LOCK:
        found = _COMPAT.get(key)
        if found is None:
            found = _COMPAT[key] = compatible(game)
            weakref.finalize(game, _COMPAT.pop, key, None)
        return found


def analysis_for(solved: Solved, node: int) -> NodeAnalysis:
    """The node's analysis under the solve's latest average strategy (kept for reruns until
    the strategy or the node changes)."""
    game = solved.game
    key = (id(solved.average), solved.iteration, node)
    cached = state.get(state.ANALYSIS_CACHE)
    if cached is not None and cached[0] == key:
        return cached[1]
    w = kernels.warmup()
    label = "Analysing the node…"
    if not w.ready():  # a first start: the analysis may have to compile its kernels
        label = f"Analysing the node… {w.summary()} (a first start only: docs/app.md)"
    with st.spinner(label):
        a = analyze(game, solved.average, node, compat=_compat(game))
    state.put(state.ANALYSIS_CACHE, (key, a))
    return a
