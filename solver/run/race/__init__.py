"""Algorithm races: up to six algorithms solving the same game side by side, with fair CPU
sharing, reproducible exploitability curves, and who reaches each target first.

No Streamlit here. One module per concern:

* :mod:`~solver.run.race.entries` — :class:`Entry`, one algorithm with its parameters, parsed
  from ``NAME[:param=value;...]`` by :func:`parse_entry`; :func:`build_engine` is the one
  place an entry becomes a solver.
* :mod:`~solver.run.race.targets` — :class:`Target`, an exploitability to reach, in chips or in
  % of a hold'em pot (:func:`parse_targets`).
* :mod:`~solver.run.race.job` — :class:`RaceJob`, the race in background threads with fair CPU
  sharing (:func:`pick_lane`) and checks at fixed iterations (:func:`check_schedule`).
* :mod:`~solver.run.race.report` — :class:`RaceProgress`, the immutable snapshot a job
  publishes; :func:`standings`, :func:`winners` and the tables read from it.
* :mod:`~solver.run.race.demos` — :data:`DEMOS`, the ready-made races of the app, the CLI and
  ``benchmarks/race.py``.

Every name is re-exported here, so callers import from ``solver.run.race``.
"""

from solver.run.race.demos import DEMOS, Demo, demo
from solver.run.race.entries import (
    MAX_ALGORITHMS,
    Entry,
    EntryError,
    build_engine,
    check_entries,
    parse_entries,
    parse_entry,
)
from solver.run.race.job import (
    DEFAULT_CHUNK_S,
    DEFAULT_ITERATIONS,
    RaceJob,
    check_schedule,
    chunk_size,
    pick_lane,
)
from solver.run.race.report import (
    Lane,
    RacePoint,
    RaceProgress,
    Standing,
    Winner,
    cell_text,
    first_hit,
    markdown_table,
    points_csv,
    race_csv,
    standings,
    table_rows,
    winner_lines,
    winner_rows,
    winners,
)
from solver.run.race.targets import (
    DEFAULT_TARGETS_HOLDEM,
    DEFAULT_TARGETS_TOY,
    MAX_TARGETS,
    Target,
    TargetError,
    default_targets,
    game_pot,
    parse_targets,
)

__all__ = [
    "DEFAULT_CHUNK_S",
    "DEFAULT_ITERATIONS",
    "DEFAULT_TARGETS_HOLDEM",
    "DEFAULT_TARGETS_TOY",
    "DEMOS",
    "MAX_ALGORITHMS",
    "MAX_TARGETS",
    "Demo",
    "Entry",
    "EntryError",
    "Lane",
    "RaceJob",
    "RacePoint",
    "RaceProgress",
    "Standing",
    "Target",
    "TargetError",
    "Winner",
    "build_engine",
    "cell_text",
    "check_entries",
    "check_schedule",
    "chunk_size",
    "default_targets",
    "demo",
    "first_hit",
    "game_pot",
    "markdown_table",
    "parse_entries",
    "parse_entry",
    "parse_targets",
    "pick_lane",
    "points_csv",
    "race_csv",
    "standings",
    "table_rows",
    "winner_lines",
    "winner_rows",
    "winners",
]
