"""Every session-state key of the app, and the small typed accessors the pages use.

Widgets whose values must survive a page switch are drawn with ``persist_state="session"``
(:data:`app.components.fields.PERSIST`). Non-widget keys hold Python objects: the session's
solve job and race, the explored node, a loaded solve.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from solver.algorithms import Solver
from solver.games import Game
from solver.games.holdem import HoldemSpec
from solver.games.model import DECISION
from solver.run.jobs import Point, SolveJob
from solver.run.race import RaceJob

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
MAX_MEMORY = "hs_max_memory"
RAKE = "hs_rake"  # text: rake in % of the pot (0 = none)
RAKE_CAP = "hs_rake_cap"  # text: rake cap in chips (0 = no cap)
OOP_RANGE = "hs_oop_range"
IP_RANGE = "hs_ip_range"
GRID_PLAYER = "grid_player"  # which range the clickable grid edits ("OOP" / "IP")
GRID_WEIGHT = "grid_weight"  # weight a clicked cell gets
GRID_EDITOR_OPEN = "grid_editor_open"  # the range grid editor's expander is open
GRID_DRAG = "grid_drag"  # what a drag over the paint grid does ("Set weight" / "Clear")
GRID_PAINT = "grid_paint"  # the range brush's last stroke (Streamlit-owned)
BOARD_PICKER_OPEN = "board_picker_open"  # the board card picker's expander is open
LOADED_FROM = "setup_loaded_from"  # the source whose values are in the fields
UPLOAD = "setup_upload"
UPLOADED = "setup_uploaded"  # parsed uploaded Preset (or None)
SETUP_UPLOAD_MESSAGE = "setup_upload_message"
SIZE_PREFIX = "hs_size_"  # + street_player_kind: per-street size overrides
# the preflop form (app/preflop_spec.py; its ranges are OOP_RANGE (SB) and IP_RANGE (BB))
PF_STACK = "pf_stack_bb"  # text: stack in bb
PF_TREE = "pf_tree"  # selectbox: "push-fold" or "raise-jam"
PF_RAISES = "pf_raise_sizes"  # text: raise-to sizes in bb ("2, 2.5x")
PF_SB = "pf_sb"  # text: small blind
PF_BB = "pf_bb"  # text: big blind
PF_ANTE = "pf_ante"  # text: ante per player
# the chart by stack page (app/screens/charts.py): its fields and its background job
CHART_FROM = "chart_from"  # text: first stack (bb)
CHART_TO = "chart_to"  # text: last stack (bb)
CHART_STEP = "chart_step"  # text: step between stacks (bb)
CHART_ANTE = "chart_ante"  # text: ante per player (bb)
CHART_TARGET = "chart_target"  # text: each solve's target (mbb/hand)
CHART_JOB = "chart_job"  # app.features.stack_chart.ChartJob of the session (or None)
CHART_TOKEN = "chart_token"  # the token of the session's chart job
CHART_ENDED = "chart_ended"  # why the chart the URL named is not there any more
CHART_LAST_STATE = "chart_last_state"  # the job state the page last drew its buttons for

# ----- solve widgets -------------------------------------------------------------------------
ALGORITHM = "algo"
PARAM_PREFIX = "algo_param_"  # + parameter name
TARGET = "target_value"
TARGET_UNIT = "target_unit"  # "% pot" or "chips"
MAX_ITERATIONS = "max_iterations"
CHECK_EVERY = "check_every"  # exploitability checked every this many iterations
THREADS = "solver_threads"
THREADS_ONE = "solver_threads_one"  # disabled number input showing 1 (sampling or RBP runs)
PRECISION = "solver_precision"
PRUNING = "solver_pruning"  # selectbox: one of the algorithm's pruning modes
SEED = "solver_seed"  # number input: the sampling algorithms' seed (whole number ≥ 0)
RBP_CHECK_EVERY = "solver_rbp_every"  # number input: interval/Total RBP check_every (≥ 1)
RBP_THRESHOLD = "solver_rbp_threshold"  # number input: Total RBP's sums threshold C (≥ 0)
RBP_FREE_OPPONENT = "solver_rbp_free_opponent"  # checkbox: Total RBP frees the other's regrets
X_AXIS = "curve_x"  # "iterations", "seconds" or "nodes touched" (curves on the Solve page)
SETTINGS_GAME = "settings_game"  # source id of the game the Solve settings belong to
SETTINGS_HOLDEM = "settings_holdem"  # whether that game is a hold'em spot
SETTINGS_KEPT = "settings_kept"  # source id → the Solve settings the user set for that game

# ----- compare widgets (every key starts with COMPARE_PREFIX: kept across pages) -------------
COMPARE_PREFIX = "cmp_"
COMPARE_GAME = "cmp_game"  # selectbox: CURRENT_SETUP or a game source id ("preset:leduc")
COMPARE_ROWS = "cmp_rows"  # how many algorithm rows the page shows (1..6; not a widget)
COMPARE_ALGO = "cmp_algo_"  # + row index: the row's algorithm (selectbox)
COMPARE_PARAM = "cmp_param_"  # + "{row}_{algorithm}_{parameter}": number inputs
COMPARE_PRUNING = "cmp_pruning_"  # + row index: the row's pruning mode (selectbox)
COMPARE_SEED = "cmp_seed_"  # + row index: the row's seed (sampling algorithms; number input)
COMPARE_ITERATIONS = "cmp_iterations"  # iterations per algorithm
COMPARE_TARGETS = "cmp_targets"  # text: chips or % pot, comma separated ("" = defaults)
COMPARE_WORKERS = "cmp_workers"  # worker threads sharing the CPU
COMPARE_STOP_AT_TARGET = "cmp_stop_at_target"  # checkbox
COMPARE_X = "cmp_x"  # radio: "iterations", "seconds" (CPU) or "nodes"
CURRENT_SETUP = "current"  # COMPARE_GAME value: the game of the Set up page

# ----- reports (app/features/batch_run.py names its keys; value widgets and objects use this
# prefix and are kept across pages, buttons and uploads use "reports_")
REPORTS_PREFIX = "rep_"
# reports at any line (app/screens/reports.py; the picker: app/components/line_picker.py)
REPORTS_LINE = "rep_line"  # the picked line: its steps in the API's codes (list[str])
REPORTS_LINE_DB = "rep_line_db"  # the database the line was picked on (path)
REPORTS_LINE_NOTE = "rep_line_note"  # why the picked line went back to the flop, or None
REPORTS_LINE_CARD = "reports_line_card"  # the picker's card selectbox (read by on_change)
REPORTS_LINE_CACHE = "reports_line_cache"  # (key, line view) of the last line drawn
REPORTS_LINE_GROUP = "rep_line_group"  # selectbox: what the line's group table groups by
REPORTS_GRID_FLOP = "rep_grid_flop"  # selectbox: the card grid's flop
REPORTS_GRID_METRIC = "rep_grid_metric"  # selectbox: what colours the card grid
REPORTS_COMPARE_PATH = "rep_compare_path"  # text: a second database to compare (a name)
REPORTS_COMPARE = "rep_compare"  # the second database's path (compared), or None
REPORTS_COMPARE_ERROR = "rep_compare_error"  # why the second database could not be opened
REPORTS_UPLOAD = "reports_upload"  # not kept across pages (file uploaders refuse it)
REPORTS_UPLOAD_NOTE = "reports_upload_note"  # the name the last upload was saved under, in words
REPORTS_OPEN_ERROR = "reports_open_error"  # (flop, why its solve could not be opened) or None
REPORTS_ROWS_CACHE = "reports_rows_cache"  # (path, file signature, rows, spec) of the last read
REPORTS_TABLE = "reports_table"

# ----- Explore's study views and node locks (app/features/study_views.py, locking.py)
GRID_COLOUR = "explore_grid_colour"  # selectbox: "Strategy", "EV", "EV of <action>", …
STUDY_VIEW = "explore_study_view"  # radio: "Hand classes", "Distribution", "Runouts"
DIST_BY = "explore_dist_by"  # radio: "Equity" or "EV"
STUDY_CACHE = "explore_study_cache"  # (strategy id, iteration, node, what) → computed view
LOCKS = "locks"  # Pending: the game's name, its node count and the locks {line: mix}
LOCK_RUN = "lock_run"  # LockRun: the re-solve with locks and the strategy before it
LOCK_ERROR = "lock_error"  # why the last lock or re-solve was refused, or None
LOCK_PREFIX = "lockui_"  # + widget name: the lock panel's widgets

# ----- practice (app/screens/practice.py): widgets kept across pages, the session's drill
PRACTICE_PLAYER = "practice_player"  # radio: 0 or 1, the hero
PRACTICE_SCOPE = "practice_scope"  # radio: "hand", "street" or "node" (trainer.SCOPES)
PRACTICE_RNG = "practice_rng"  # checkbox: RNG mode (Best = the action a draw from the mix picks)
PRACTICE_SEED = "practice_seed"  # number input: the dealing seed (0: a fresh one per session)
PRACTICE_CORRECT = "practice_correct"  # number input: % of the mix from which a play is Correct
PRACTICE_WRONG = "practice_wrong"  # number input: EV lost (% pot) above which a play is Wrong
PRACTICE_BLUNDER = "practice_blunder"  # number input: EV lost (% pot) above which: Blunder
PRACTICE_DRILL = "practice_drill"  # PracticeRun: the session's trainer Drill and its solve
PRACTICE_LAST = "practice_last"  # the last graded solver.study.trainer.Decision (or None)
PRACTICE_ERROR = "practice_error"  # why the last Start was refused, or None
PRACTICE_SHOW_RANGE = "practice_show_range"  # toggle: the last decision node's range grid
PRACTICE_CLASSES = "practice_classes"  # multiselect: hand classes dealt (the dealing filter)
PRACTICE_CELLS = "practice_cells"  # multiselect: grid cells (toy games: cards, ranks) dealt
PRACTICE_MIN_REACH = "practice_min_reach"  # number input: least reach (%) of a dealt hero hand
PRACTICE_SUITS = "practice_suits"  # checkbox: show each hand under a random suit permutation

# ----- objects ---------------------------------------------------------------------------------
JOB = "job"  # the session's current SolveJob (or None)
JOB_SOURCE = "job_source"  # game-source metadata of the job's game (for saving)
JOB_SPEC = "job_spec"  # HoldemSpec of the job's game, or None
JOB_GAME_ID = "job_game_id"  # Set up source id the job's game came from ("preset:…", …)
JOB_LABEL = "job_label"  # the job's game as people call it ("SRP turn: Td9d6h Qc")
JOB_WIDGETS = "job_widgets"  # the Solve fields as they were when the job started
JOB_TOKEN = "job_token"  # the token in the page URL that lets a reload take the job back
JOB_ENDED = "job_ended"  # why the session's job is gone (its page was closed past the grace)
JOB_NOTE = "job_note"  # (job, a note about it while it runs: a resumed solve's), or None
EXPLORE_NODE = "explore_node"  # node id being explored
ANALYSIS_CACHE = "explore_analysis_cache"  # (key, NodeAnalysis): features/node_analysis.py
LOADED_TABLE = "explore_loaded_table"  # ((id of the engine, iteration), NodeTable) of a load
ISO_NOTE = "explore_iso_note"  # (node, card): a suit-isomorphic card dealt, shown as another
START_ERROR = "solve_start_error"  # why the last Solve click did not start, or None
STARTING = "solve_starting"  # (JobStarter, what the page needs to start its job) or None
LIVE_FIGURES = "live_figures"  # {name: (key, figure)} the live view built (app/features/live.py)
LIVE_LAST_STATE = "live_last_state"  # the job state the Solve page last drew its buttons for
CHANCE_CARD = "explore_card"  # selectbox at chance nodes
COMBO_FILTER = "explore_filter"
LOADED = "loaded_solve"  # LoadedSolve from a file (explore/resume)
LOAD_ERROR = "load_error"
LOAD_FILE = "load_file"
RACE = "race"  # the session's RaceJob (or None)
RACE_GAME = "race_game"  # label of the race's game
RACE_DEMO = "race_demo"  # key of the demo the race runs, or None
RACE_ERROR = "race_error"  # why the last Start failed, or None
RACE_DEMO_ERROR = "race_demo_error"  # (demo key, why its click did not start), or None
RACE_LAST_STATE = "race_last_state"  # the race state the page last drew its buttons for
RACE_SCROLL = "race_scroll"  # bring the results into view on the next full run (a race started)
PAGES = "nav_pages"  # this session's pages by name ({name: st.Page}), handed over each run
PAGE_HIDDEN = "page_hidden"  # the browser reported the page hidden
EXPORT_TREE_COST = "export_tree_cost"  # ((game, iteration), TreeExportCost) of the solve shown
EXPORT_GO_SOLVE = "export_go_solve"  # a solve was resumed: switch to the Solve page
# three-player games (app/features/multi_solve.py, multi_study.py; docs/multiway.md)
MULTI_JOB = "multi_job"  # the session's MultiSolveJob (or None)
MULTI_GAME = "multi_game"  # the job's game name ("kuhn3", "leduc3")
MULTI_ALGO = "multi_algo"  # selectbox: a full-width rule or "mccfr-es"
MULTI_ITERATIONS = "multi_iterations"  # number input: max iterations
MULTI_EVERY = "multi_every"  # number input: check every this many iterations
MULTI_TARGET = "multi_target"  # number input: target, the largest Nash distance (chips; 0 none)
MULTI_SEED = "multi_seed"  # number input: mccfr-es's seed
MULTI_ERROR = "multi_error"  # why the last Start was refused, or None
MULTI_LAST_STATE = "multi_last_state"  # the job state the page last drew its buttons for
MULTI_X = "multi_x"  # radio: the curves' x axis ("iterations" or "seconds")
MULTI_PLAYER = "multi_player"  # radio (Explore): 0, 1 or 2
MULTI_NODE = "multi_node"  # selectbox (Explore): the node shown, by index
# the three-way river spot's Set up form (app/features/river3_form.py; docs/multiway.md)
SETUP_PLAYERS = "setup_players"  # radio on the hold'em form: 2 (heads-up) or 3 (three-way river)
R3_BOARD = "r3_board"  # text: five cards
R3_RANGE0 = "r3_range0"  # text area: the range of the first to act (player 1)
R3_RANGE1 = "r3_range1"  # text area: the second to act's
R3_RANGE2 = "r3_range2"  # text area: the last to act's
R3_POT = "r3_pot"  # text: chips in the pot at the start
R3_STACK = "r3_stack"  # text: chips behind each player
R3_BETS = "r3_bets"  # text: bet sizes
R3_RAISES = "r3_raises"  # text: raise sizes
R3_RAISE_CAP = "r3_raise_cap"  # text: raises after the first bet
R3_BIG_BLIND = "r3_big_blind"  # text: the smallest bet (chips)
R3_MAX_MEMORY = "r3_max_memory"  # text: memory cap (MB)


def get(key: str, default: Any = None) -> Any:
    return st.session_state.get(key, default)


def put(key: str, value: Any) -> None:
    st.session_state[key] = value


def job() -> SolveJob | None:
    """The session's solve job; None when there is none or it was released (its session
    was gone past the grace period, see :mod:`solver.run.lifecycle`)."""
    j = st.session_state.get(JOB)
    return j if isinstance(j, SolveJob) and not j.released else None


def race() -> RaceJob | None:
    r = st.session_state.get(RACE)
    return r if isinstance(r, RaceJob) else None


@dataclass
class Solved:
    """What the Explore and Export pages work on: a game with a strategy source."""

    game: Game
    source: dict
    holdem: HoldemSpec | None
    average: Any  # (action_size,) average strategy (read-only copy)
    iteration: int
    history: Sequence[Point]
    engine: Solver | None  # only when no thread can be writing it
    job: SolveJob | None


def solved() -> Solved | None:
    """The session's current solve: its job (the average strategy of its latest iteration,
    copied on demand between two chunks) or a solve loaded from a file. None when there is
    nothing to explore yet."""
    j = job()
    if j is not None:
        average, iteration = j.average_strategy()
        return Solved(
            j.game,
            get(JOB_SOURCE, {}),
            get(JOB_SPEC),
            average,
            iteration,
            j.progress.history,
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


def explored_node(game: Game) -> int:
    """The explored node (:data:`EXPLORE_NODE`) when it is a node of ``game``, else the root:
    a node kept from another game (a re-solve, a loaded file) is never read out of range."""
    node = get(EXPLORE_NODE)
    if isinstance(node, int) and not isinstance(node, bool) and 0 <= node < game.num_nodes:
        return node
    return 0


def watched_node(game: Game) -> int:
    """The explored node when it is a decision node of ``game``, else the first decision
    node: the node a live view and a lock's re-solve watch."""
    node = explored_node(game)
    if game.tree.kind[node] == DECISION:
        return node
    return int(game.decision_nodes()[0])
