"""Every session-state key of the app, and the small typed accessors the pages use.

Widget keys that must survive a page switch are listed in :data:`PERSISTENT` and re-assigned
on every run by :func:`keep_widgets` (Streamlit forgets the state of widgets that a run does
not draw). Non-widget keys hold Python objects: the session's solve job, the explored node,
a loaded solve.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import streamlit as st

from solver.cfr.engine import Engine
from solver.games import Game
from solver.games.holdem import HoldemSpec
from solver.jobs import Point, SolveJob

# ----- set-up widgets ----------------------------------------------------------------------
SOURCE = "setup_source"  # selectbox: "preset:<key>" or "toy:<name>" or "custom"
BOARD = "hs_board"
POT = "hs_pot"
STACK = "hs_stack"
BIG_BLIND = "hs_big_blind"
BETS = "hs_bets"
RAISES = "hs_raises"
DONKS = "hs_donks"
RAISE_CAP = "hs_raise_cap"
ADD_ALLIN = "hs_add_allin"
FORCE_ALLIN = "hs_force_allin"
MERGING = "hs_merging"
OOP_RANGE = "hs_oop_range"
IP_RANGE = "hs_ip_range"
GRID_PLAYER = "grid_player"  # which range the clickable grid edits ("OOP" / "IP")
GRID_WEIGHT = "grid_weight"  # weight a clicked cell gets
LOADED_FROM = "setup_loaded_from"  # the source whose values are in the fields
UPLOAD = "setup_upload"
UPLOADED = "setup_uploaded"  # parsed uploaded Preset (or None)
SIZE_PREFIX = "hs_size_"  # + street_player_kind: per-street size overrides

# ----- solve widgets -------------------------------------------------------------------------
ALGORITHM = "algo"
PARAM_PREFIX = "algo_param_"  # + parameter name
TARGET = "target_value"
TARGET_UNIT = "target_unit"  # "% pot" or "chips"
MAX_ITERATIONS = "max_iterations"
THREADS = "solver_threads"
PRECISION = "solver_precision"
X_AXIS = "curve_x"  # "iterations" or "seconds"

# ----- objects ---------------------------------------------------------------------------------
JOB = "job"  # the session's current SolveJob (or None)
JOB_SOURCE = "job_source"  # game-source metadata of the job's game (for saving)
JOB_SPEC = "job_spec"  # HoldemSpec of the job's game, or None
EXPLORE_NODE = "explore_node"  # node id being explored
CHANCE_CARD = "explore_card"  # selectbox at chance nodes
COMBO_FILTER = "explore_filter"
LOADED = "loaded_solve"  # LoadedSolve from a file (explore/resume)
LOAD_ERROR = "load_error"
LOAD_FILE = "load_file"

PERSISTENT = (
    SOURCE,
    BOARD,
    POT,
    STACK,
    BIG_BLIND,
    BETS,
    RAISES,
    DONKS,
    RAISE_CAP,
    ADD_ALLIN,
    FORCE_ALLIN,
    MERGING,
    OOP_RANGE,
    IP_RANGE,
    GRID_PLAYER,
    GRID_WEIGHT,
    ALGORITHM,
    TARGET,
    TARGET_UNIT,
    MAX_ITERATIONS,
    THREADS,
    PRECISION,
    X_AXIS,
)


def keep_widgets() -> None:
    """Re-assign persistent widget values so they survive pages that do not draw them."""
    ss = st.session_state
    for key in list(ss.keys()):
        if key in PERSISTENT or str(key).startswith((PARAM_PREFIX, SIZE_PREFIX)):
            ss[key] = ss[key]


def get(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def put(key: str, value: Any) -> None:
    st.session_state[key] = value


def job() -> SolveJob | None:
    j = st.session_state.get(JOB)
    return j if isinstance(j, SolveJob) else None


@dataclass
class Solved:
    """What the Explore and Export pages work on: a game with a strategy source."""

    game: Game
    source: dict
    holdem: HoldemSpec | None
    average: Any  # (action_size,) average strategy (read-only copy)
    iteration: int
    history: tuple[Point, ...]
    engine: Engine | None  # only when no thread can be writing it
    job: SolveJob | None


def solved() -> Solved | None:
    """The session's current solve: its job (latest published average strategy) or a solve
    loaded from a file. None when there is nothing to explore yet."""
    j = job()
    if j is not None:
        p = j.progress
        if p.average is not None:
            return Solved(
                j.game,
                get(JOB_SOURCE, {}),
                get(JOB_SPEC),
                p.average,
                p.average_iteration,
                p.history,
                None if j.alive else j.engine,
                j,
            )
    loaded = get(LOADED)
    if loaded is not None:
        return Solved(
            loaded.game,
            loaded.meta.get("game", {}),
            loaded.holdem,
            loaded.engine.average_strategy(),
            loaded.engine.iteration,
            loaded.history,
            loaded.engine,
            None,
        )
    return None
