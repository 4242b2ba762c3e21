"""A node's analysis for the pages that show it (Explore, Export): served from the solve's
node table (:mod:`solver.study.node_table`: every upper node's values computed once, after the
solve, by the job's thread; a loaded solve's here, once) and kept in the session until the
strategy or the node changes; the game's hand compatibility matrix kept while the game lives.
While a solve still runs, each node is analysed on its own (its strategy changes anyway)."""

from __future__ import annotations

import threading
import weakref

import numpy as np
import streamlit as st

from app import kernels, state
from app.state import Solved
from solver.games.model import Game
from solver.study import node_table as NT
from solver.study.analysis import NodeAnalysis, compatible

_COMPAT: dict[int, np.ndarray] = {}
_COMPAT_LOCK = threading.Lock()
TABLE_WAIT_S = 600.0  # longest wait for a finished solve's table (its pass is ~an iteration)


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


def compat_of(game: Game) -> np.ndarray:
    """:func:`_compat` for the study views."""
    return _compat(game)


def table_for(solved: Solved) -> NT.NodeTable:
    """The node table to serve ``solved``'s nodes from: a finished job's (waiting while its
    thread builds it), a loaded solve's (built here once, kept in the session), else one
    with no rows (a running solve: every node walked when shown)."""
    job = solved.job
    if job is not None:
        if job.building_table:
            with st.spinner("Preparing every node of the solved tree (one pass over it)…"):
                table = job.node_table(timeout=TABLE_WAIT_S)
        else:
            table = job.node_table()
        if table is not None and table.iteration == solved.iteration:
            return table
        return NT.empty(solved.game, solved.average, solved.iteration)
    key = (id(solved.engine), solved.iteration)
    kept = state.get(state.LOADED_TABLE)
    if kept is not None and kept[0] == key and kept[1].game is solved.game:
        return kept[1]
    with st.spinner("Preparing every node of the solved tree (one pass over it)…"):
        table = NT.build(solved.game, solved.average, solved.iteration)
    state.put(state.LOADED_TABLE, (key, table))
    return table


def analysis_for(solved: Solved, node: int) -> NodeAnalysis:
    """The node's analysis under the solve's latest average strategy (kept for reruns until
    the strategy or the node changes)."""
    game = solved.game
    key = (id(solved.average), solved.iteration, node)
    cached = state.get(state.ANALYSIS_CACHE)
    if cached is not None and cached[0] == key:
        return cached[1]
    table = table_for(solved)
    w = kernels.warmup()
    label = "Analysing the node…"
    if not w.ready():  # a first start: the analysis may have to compile its kernels
        label = f"Analysing the node… {w.summary()} (a first start only: docs/app.md)"
    with st.spinner(label):
        a = NT.analyze_node(table, node, compat=_compat(game))
    state.put(state.ANALYSIS_CACHE, (key, a))
    return a
