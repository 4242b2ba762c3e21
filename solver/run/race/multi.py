"""Races on the three-player toy games (``kuhn3``, ``leduc3``; docs/multiway.md): the same
:class:`~solver.run.race.job.RaceJob` — fair CPU sharing, checks at fixed iterations — over
:class:`~solver.cfr.multi_engine.MultiEngine` (or external sampling), the race's metric being
**NashConv** (the sum of the players' Nash distances), never a two-player exploitability.

:class:`MultiRaceJob` builds each entry's engine (:func:`check_multi_entries` says which
entries a three-player game takes), measures each check by the engine's own best-response
passes (equal to :func:`solver.games.nashconv.nash_report`) into a :class:`MultiRacePoint`,
and :func:`multi_table_rows` is the table read from its snapshots. External sampling draws
from the process's one generator (:mod:`solver.cfr.sampling.multi_es`): a race with one
``mccfr-es`` entry repeats with its seed, two of them share the stream.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import cast

from solver.algorithms import ALGORITHMS, default_pruning
from solver.cfr.multi_solve import ES, MultiSolver, engine_memory, make_multi_engine
from solver.cfr.protocol import Solver
from solver.cfr.sampling.multi_es import MultiESEngine
from solver.cfr.sampling.multi_es import seed as es_seed
from solver.games.model import Game
from solver.games.multiway import ANTE, MultiGame
from solver.run.race.entries import Entry, EntryError, check_entries
from solver.run.race.job import DEFAULT_CHUNK_S, DEFAULT_ITERATIONS, RaceJob, _Run
from solver.run.race.report import RacePoint, RaceProgress, standings
from solver.run.race.targets import Target

__all__ = [
    "METRIC",
    "MultiRaceJob",
    "MultiRacePoint",
    "check_multi_entries",
    "multi_pot",
    "multi_table_rows",
]

METRIC = "nash_conv"  # a three-player race's metric (a heads-up race's: exploitability)


@dataclass(frozen=True)
class MultiRacePoint(RacePoint):
    """One check of one algorithm on a three-player game: the race's record
    (:class:`RacePoint`) with each player's Nash distance and NashConv (chips per game; a
    keyword each). Its ``exploitability`` is NaN — a three-player game has none; targets
    read :attr:`metric`, NashConv."""

    nash_distance: tuple[float, ...] = field(kw_only=True)
    nash_conv: float = field(kw_only=True)
    ev: tuple[float, ...] = field(kw_only=True, default=())

    @property
    def metric(self) -> float:
        return self.nash_conv


def multi_pot(mgame: MultiGame) -> float:
    """The pot before anyone acts, the antes (chips): what ``%`` targets are of."""
    return ANTE * mgame.num_players


def check_multi_entries(entries: Sequence[Entry]) -> tuple[Entry, ...]:
    """``entries`` if a three-player game takes each (a full-width rule with its default
    pruning, or ``mccfr-es``); :class:`EntryError` naming the first that it does not."""
    out = check_entries(entries)
    for e in out:
        if ALGORITHMS[e.name].sampling and e.name != ES:
            raise EntryError(
                f"{e.text!r}: not for three-player games (the full-width rules, or {ES})"
            )
        if e.pruning and e.pruning != default_pruning(e.name) and e.pruning != "none":
            raise EntryError(f"{e.text!r}: pruning: three-player games walk every subtree")
    return out


def _engine(mgame: MultiGame, entry: Entry) -> MultiSolver:
    return make_multi_engine(mgame, entry.name, dict(entry.params), entry.seed)[0]


class MultiRaceJob(RaceJob):
    """Race ``entries`` on the three-player ``mgame`` (the module docstring): as
    :class:`RaceJob`, with ``targets`` in chips of NashConv."""

    def __init__(
        self,
        mgame: MultiGame,
        entries: Sequence[Entry],
        *,
        max_iterations: int = DEFAULT_ITERATIONS,
        targets: Sequence[Target] = (),
        stop_at_target: bool = True,
        workers: int | None = None,
        chunk_s: float = DEFAULT_CHUNK_S,
        warm_up: bool = True,
    ) -> None:
        self.mgame = mgame
        entries = check_multi_entries(entries)

        def factory(_game: Game, entry: Entry) -> Solver:
            # the race loop only iterates an engine and reads its counts; checks are ours
            return cast(Solver, _engine(mgame, entry))

        # (the heads-up Game slot: every method that reads the game is overridden here)
        super().__init__(
            cast(Game, mgame),
            entries,
            max_iterations=max_iterations,
            targets=targets,
            stop_at_target=stop_at_target,
            workers=workers,
            chunk_s=chunk_s,
            warm_up=warm_up,
            engine_factory=factory,
        )

    def _publish(self) -> None:
        """A new snapshot (lock held): no hold'em pot or big blind."""
        self._progress = RaceProgress(
            state=self._state,
            lanes=tuple(r.lane() for r in self._runs),
            targets=self.targets,
            max_iterations=self.max_iterations,
            wall_s=self._wall(),
            workers=self.workers,
            stopped_by=self._stopped_by,
            error=self._error,
        )

    def _warm(self) -> None:
        """Load the kernels each kind of engine calls (untimed)."""
        seen: set[type] = set()
        for run in self._runs:
            kind = type(run.engine)
            if kind in seen or self._stop.is_set():
                continue
            seen.add(kind)
            spare = _engine(self.mgame, run.entry)
            spare.iterate(1)
            spare.measure()
        for run in self._runs:  # the sampler's generator is the process's: seeded again
            if isinstance(run.engine, MultiESEngine):
                es_seed(run.entry.seed)

    def _check(self, run: _Run, cpu_s: float) -> RacePoint:
        """NashConv and the Nash distances of ``run``'s average profile now."""
        eng = cast(MultiSolver, run.engine)
        rep = eng.measure()
        with self._lock:
            wall = self._wall()
        return MultiRacePoint(
            eng.iteration,
            wall,
            math.nan,
            eng.nodes_touched,
            engine_memory(eng),
            cpu_s=cpu_s,
            nash_distance=tuple(float(x) for x in rep.nash_distance),
            nash_conv=float(rep.nash_conv),
            ev=tuple(float(x) for x in rep.value),
        )


def last_nash_conv(points: Sequence[RacePoint]) -> float | None:
    """NashConv (chips) at the last check (None before the first)."""
    return points[-1].metric if points else None


def multi_table_rows(progress: RaceProgress, pot: float) -> list[dict[str, object]]:
    """A three-player race's table as records (None where a target was not reached):
    algorithm label, ``iterations to T`` and ``CPU s to T`` per target (of NashConv), then
    its iterations, CPU seconds, nodes touched, and NashConv in chips and % of ``pot``."""
    out: list[dict[str, object]] = []
    for lane, s in zip(progress.lanes, standings(progress), strict=True):
        row: dict[str, object] = {"algorithm": s.entry.label}
        for t, hit in zip(progress.targets, s.hits, strict=True):
            row[f"iterations to {t.label}"] = None if hit is None else hit.iteration
            row[f"CPU s to {t.label}"] = None if hit is None else hit.cpu_s
        row["iterations"] = s.iteration
        row["CPU s"] = s.cpu_s
        row["nodes touched"] = s.nodes_touched
        nc = last_nash_conv(lane.points)
        row["NashConv (chips)"] = nc
        row["NashConv (% pot)"] = None if nc is None else 100.0 * nc / pot
        out.append(row)
    return out
