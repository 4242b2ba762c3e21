"""Certified size simplification as a background job (:func:`solver.study.sizes.simplify_sizes`
for one player or both, in a thread), publishing how far it got and, once done, the results.
The thread never calls Streamlit: the page reads :meth:`SizesJob.snapshot` in a fragment.

It ends as the chart job does (:mod:`app.features.stack_chart`): on :meth:`SizesJob.stop`
(seen at the next check of the solve running), when the app's job registry finds no page has
watched it for the grace period, and at process exit (tracked; a daemon thread)."""

from __future__ import annotations

from dataclasses import dataclass, field

from solver.api import Checkpoint
from solver.files.export import FORMAT, VERSION, LoadedSolve
from solver.games.holdem import HoldemSpec
from solver.run.lifecycle import StudyThread
from solver.study.sizes import PLAYERS, SizesResult, simplify_sizes

RUNNING, DONE, STOPPED, FAILED = "running", "done", "stopped", "failed"


class _Stopped(Exception):
    """Raised from the progress callback to leave the solves early."""


@dataclass(frozen=True)
class SizesProgress:
    """What the page shows: the state, the player and solve running (``stage``), solves
    started, the last check's exploitability (% pot), seconds since the start, the results
    so far (one per player done) and why it failed."""

    state: str
    player: str = ""
    stage: str = ""
    solves: int = 0
    exploitability_pct: float | None = None
    elapsed_s: float = 0.0
    results: tuple[SizesResult, ...] = field(default=())
    error: str = ""

    @property
    def finished(self) -> bool:
        return self.state != RUNNING


@dataclass(frozen=True)
class SizesRequest:
    """What to simplify (the arguments of :func:`simplify_sizes`, ``player`` may be both)."""

    spec: HoldemSpec
    grid: str
    raise_grid: str | None
    player: str
    nodes: str
    keep: int
    target: float  # chips
    threads: int = 1
    swap: bool = False  # a pass of swaps after greedy

    def players(self) -> tuple[str, ...]:
        return PLAYERS if self.player == "both" else (self.player,)


class SizesJob(StudyThread[SizesProgress]):
    """Runs a :class:`SizesRequest` (checked beforehand with
    :func:`solver.study.sizes.plan`); satisfies :class:`solver.run.lifecycle.Job` (``join``
    and ``alive`` are :class:`~solver.run.lifecycle.ThreadOwner`'s)."""

    thread_name = "sizes"

    def __init__(self, request: SizesRequest) -> None:
        super().__init__(SizesProgress(RUNNING))
        self.request = request

    def _run(self) -> None:
        r = self.request
        pot = float(r.spec.pot)
        results: list[SizesResult] = []

        def progress(player: str, stage: str, cp: Checkpoint) -> None:
            if self._stop.is_set():
                raise _Stopped
            started = self._progress.solves + (1 if cp.iteration == 0 else 0)  # a solve's first
            self._publish(player=player, stage=stage, solves=started,
                          exploitability_pct=100.0 * cp.exploitability / pot)  # fmt: skip

        try:
            superset = None
            for player in r.players():

                def report(stage: str, cp: Checkpoint, p: str = player) -> None:
                    progress(p, stage, cp)

                result = simplify_sizes(
                    r.spec, r.grid, r.raise_grid, player, r.nodes, r.keep, target=r.target,
                    threads=r.threads, superset=superset, swap=r.swap, progress=report,
                )  # fmt: skip
                superset = result.superset
                results.append(result)
                self._publish(results=tuple(results))
        except _Stopped:
            self._publish(state=STOPPED)
            return
        except Exception as exc:  # shown on the page; the thread ends cleanly
            self._publish(state=FAILED, error=f"{type(exc).__name__}: {exc}")
            return
        self._publish(state=DONE, results=tuple(results))


def simplified_solve(result: SizesResult) -> LoadedSolve:
    """``result``'s final solve of the simplified tree as a loaded save holds it (its game,
    engine and checks; metadata naming the source with the removed sizes, the algorithm and
    its settings), to become the session's solve as a loaded file does."""
    final = result.final
    source = result.source()
    engine = final.engine
    meta = {"format": FORMAT, "version": VERSION, "game": source.to_dict(),
            "algorithm": engine.rule.name, "params": engine.rule.params(),
            "iteration": int(engine.iteration), "pruning": str(engine.pruning),
            "seed": int(engine.seed)}  # fmt: skip
    return LoadedSolve(final.game, source.spec, engine, tuple(final.history), meta)
