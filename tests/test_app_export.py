"""AppTest: the Export page offers every download for a finished solve, refuses to save
while the solve's arrays are being written, and loads and resumes sampled and pruned solves.
(Download callables are not run by AppTest; the data functions are tested in test_export.py
and in the browser test.)"""

from __future__ import annotations

import numpy as np
import pytest
from app_helpers import no_threads_left, page

from app import state
from app.screens.export import resume_job
from solver import make_game, make_rule
from solver.algorithms import make_algorithm, make_solver
from solver.cfr.options import SolveOptions
from solver.files.export import load_solve, save_solve
from solver.run.jobs import SolveJob


@pytest.fixture(autouse=True)
def _teardown():
    yield
    no_threads_left()


def test_downloads_for_a_finished_solve() -> None:
    job = SolveJob(make_game("kuhn"), make_rule("cfr"), max_iterations=50).start()
    job.wait_for(lambda q: q.finished)
    at = page("export", **{state.JOB: job, state.JOB_SOURCE: {"kind": "toy", "name": "kuhn"}})
    at.run()
    assert not at.exception
    labels = [b.proto.label for b in at.get("download_button")]
    for want in ("Curve as PNG", "Curve as SVG", "Node as CSV", "Whole tree as JSON"):
        assert want in labels
    assert "Save solve (.npz)" in labels


def test_whole_tree_export_too_big_is_disabled_with_the_reason(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import app.screens.export as export_page

    monkeypatch.setattr(export_page, "MAX_TREE_EXPORT_NODES", 3)  # Kuhn has 4 decision nodes
    job = SolveJob(make_game("kuhn"), make_rule("cfr"), max_iterations=5).start()
    job.wait_for(lambda q: q.finished)
    at = page("export", **{state.JOB: job, state.JOB_SOURCE: {"kind": "toy", "name": "kuhn"}})
    at.run()
    assert not at.exception
    buttons = {b.proto.label: b.proto.disabled for b in at.get("download_button")}
    assert buttons["Whole tree as CSV"] and buttons["Whole tree as JSON"]
    assert not buttons["Node as CSV"]
    assert any("this tree has 4" in c.value for c in at.caption)


def test_running_solve_cannot_be_saved() -> None:
    job = SolveJob(make_game("leduc"), make_rule("cfr"), max_iterations=10**9).start()
    job.wait_for(lambda q: len(q.history) > 0)
    at = page("export", **{state.JOB: job, state.JOB_SOURCE: {"kind": "toy", "name": "leduc"}})
    at.run()
    labels = [b.proto.label for b in at.get("download_button")]
    assert "Save solve (.npz)" not in labels
    assert any("Pause or stop" in i.value for i in at.info)


def test_empty_state() -> None:
    at = page("export")
    at.run()
    assert not at.exception and "Nothing solved yet" in at.info[0].value


@pytest.mark.parametrize(
    ("algorithm", "pruning", "seed", "label"),
    [("mccfr-es", None, 5, "mccfr-es (seed 5)"), ("cfr", "total", 0, "cfr (total pruning)")],
)
def test_sampled_and_pruned_solves_save_load_and_resume(
    algorithm: str, pruning: str | None, seed: int, label: str
) -> None:
    game = make_game("leduc")
    source = {"kind": "toy", "name": "leduc"}
    job = SolveJob(
        game,
        make_algorithm(algorithm),
        max_iterations=100,
        options=SolveOptions(pruning=pruning, seed=seed),
    ).start()
    job.wait_for(lambda q: q.finished)
    job.join(10)
    loaded = load_solve(save_solve(job.engine, source, tuple(job.progress.history)))
    at = page("export", **{state.LOADED: loaded})
    at.run()
    assert not at.exception
    assert any(f"Loaded leduc: {label} at iteration 100." in s.value for s in at.success)
    assert at.button(key="btn_resume_loaded")
    # what "Resume solving" starts: the loaded engine carries on (pruning state, draws) ...
    resumed, note = resume_job(loaded, more=100)
    assert note == ""
    assert resumed.engine is loaded.engine and resumed.progress.iteration == 100
    resumed.start().wait_for(lambda q: q.finished)
    resumed.join(10)
    assert resumed.progress.iteration == 200 and resumed.progress.state == "done"
    assert resumed.progress.history[: len(loaded.history)] == loaded.history
    # ... exactly as one uninterrupted solve of 200 iterations
    straight = make_solver(game, algorithm, options=SolveOptions(pruning=pruning, seed=seed))
    straight.iterate(200)
    assert np.array_equal(straight.storage.regrets, resumed.engine.storage.regrets)
    assert np.array_equal(straight.average_strategy(), resumed.engine.average_strategy())
    assert straight.memory_bytes == resumed.engine.memory_bytes


def test_a_resumed_solve_keeps_its_target_and_settings() -> None:
    """A save keeps the solve's target, limit and check interval and the Solve page's fields;
    resuming carries on with them (the page shows them again)."""
    game = make_game("leduc")
    source = {"kind": "toy", "name": "leduc"}
    job = SolveJob(game, make_rule("cfr"), target=0.05, max_iterations=40, check_every=20)
    job.start().wait_for(lambda q: q.finished)
    job.join(10)
    assert job.progress.stopped_by == "iterations"  # stopped short of its target
    widgets = {state.TARGET: "0.05", state.TARGET_UNIT: "chips", state.ALGORITHM: "cfr"}
    at = page("export", **{state.JOB: job, state.JOB_SOURCE: source, state.JOB_WIDGETS: widgets})
    at.run()
    from app.screens.export import solve_settings

    settings = solve_settings(job)
    assert settings["target_chips"] == 0.05 and settings["check_every"] == 20
    loaded = load_solve(
        save_solve(
            job.engine,
            source,
            tuple(job.progress.history),
            extra={"settings": {**settings, "widgets": widgets}},
        )
    )
    resumed, note = resume_job(loaded)
    assert note == "" and resumed.target == 0.05 and resumed.check_every == 20
    assert resumed.max_iterations == 40 + 100_000  # the saved limit was reached: more room
    resumed.start().wait_for(lambda q: q.finished, timeout=60)
    p = resumed.progress
    assert p.stopped_by == "target" and p.iteration % 20 == 0
    assert p.exploitability is not None and p.exploitability <= 0.05
    # the page's Resume puts the saved fields back and the game on Set up
    at = page(
        "export",
        **{
            state.LOADED: load_solve(
                save_solve(
                    job.engine,
                    source,
                    tuple(job.progress.history),
                    extra={"settings": {**settings, "widgets": widgets}},
                )
            )
        },
    )
    at.run()
    at.button(key="btn_resume_loaded").click().run()
    assert at.session_state[state.TARGET] == "0.05"
    assert at.session_state[state.SOURCE] == "preset:leduc"
    assert at.session_state[state.JOB].target == 0.05


def test_a_save_that_reached_its_target_resumes_without_one() -> None:
    game = make_game("kuhn")
    source = {"kind": "toy", "name": "kuhn"}
    job = SolveJob(game, make_rule("cfr+"), target=0.01).start()
    job.wait_for(lambda q: q.finished, timeout=60)
    job.join(10)
    settings = {"target_chips": 0.01, "max_iterations": job.max_iterations, "check_every": 10}
    loaded = load_solve(
        save_solve(job.engine, source, tuple(job.progress.history), extra={"settings": settings})
    )
    resumed, note = resume_job(loaded)
    assert resumed.target is None and "had reached its target" in note


def test_the_resume_note_shows_while_that_solve_runs_and_then_goes() -> None:
    """ "It resumes without a target" is about the resumed solve: the Solve page shows it
    while that solve runs, not after it ended (it stayed until the next start)."""
    game = make_game("leduc")
    first = SolveJob(game, make_rule("cfr+"), target=0.5).start()
    first.wait_for(lambda q: q.finished, timeout=60)
    first.join(10)
    settings = {"target_chips": 0.5, "max_iterations": 10**6, "check_every": 10}
    loaded = load_solve(save_solve(first.engine, {"kind": "toy", "name": "leduc"},
                                   tuple(first.progress.history),
                                   extra={"settings": settings}))  # fmt: skip
    at = page("export", **{state.LOADED: loaded})
    at.run()
    at.button(key="btn_resume_loaded").click().run()
    job = at.session_state[state.JOB]
    note = at.session_state[state.JOB_NOTE]
    assert note[0] is job and "had reached its target" in note[1]
    solve = page("solve", **{state.JOB: job, state.JOB_NOTE: note,
                             state.SOURCE: "preset:leduc"})  # fmt: skip
    solve.run()
    assert any("had reached its target" in i.value for i in solve.info)
    job.stop()
    job.join(10)
    solve.run()
    assert not any("had reached its target" in i.value for i in solve.info)


def test_the_page_says_the_whole_tree_exports_size_first() -> None:
    from app_helpers import finished_job

    from solver.files.presets import load_preset

    game = load_preset("srp-river").build()
    job = finished_job(game, 10)
    at = page("export", **{state.JOB: job})
    at.run()
    assert not at.exception
    said = [c.value for c in at.caption if c.value.startswith("Whole tree: ")]
    assert said and " rows (one per node and hand" in said[0] and " as CSV or " in said[0]
