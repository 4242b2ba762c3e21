"""Compare: race up to six algorithms on one game — any algorithm of
:data:`solver.algorithms.ALGORITHMS` (full-width CFR rules and Monte Carlo CFR) with its
parameters, pruning mode and, for sampling algorithms, seed. Fair CPU sharing
(``solver.run.race``), every exploitability curve overlaid live (log-log; x as iterations, each
algorithm's own CPU seconds, or nodes touched), the table of iterations and CPU seconds to each
target with a winner per target, one-click demos, and downloads (chart PNG/SVG/HTML, table
and curves as CSV).

The form's state and callbacks live in :mod:`app.features.race_form`, the results' figures,
tables and files in :mod:`app.components.race_view`; this page lays them out. A preflop game
races in the Solve page's preflop units: targets in bb (or mbb), curves in mbb/hand."""

from __future__ import annotations

import streamlit as st

from app import spec as S
from app import state
from app.components.fields import PERSIST
from app.components.figures import RACE_X
from app.components.race_view import (
    display_rows,
    export_bytes,
    progress_figure,
    race_results,
    winners_markdown,
)
from app.features import river3_form
from app.features.controls import live_view, pause_resume_stop, redraw_every
from app.features.number_fields import number_field
from app.features.race_form import (
    DEFAULT_GAME,
    DEFAULT_ITERATIONS,
    ITERATIONS,
    WORKERS,
    GameChoice,
    add_row,
    algo_key,
    chosen_targets,
    default_targets_text,
    launch,
    memory_error,
    param_key,
    pause,
    pruning_key,
    remove_row,
    resume,
    row_entries,
    row_pruning,
    rows,
    seed_key,
    stop,
    unused_algorithm,
)
from app.request import current_request
from app.settings import PRUNING_HELP, PRUNING_LABELS, algorithm_names, param_text
from solver.algorithms import ALGORITHMS, algorithm_defaults
from solver.files.export import preflop_source
from solver.games.source import ToySource
from solver.run.jobs import FINISHED, PAUSED, RUNNING
from solver.run.race import DEMOS, MAX_ALGORITHMS, RaceJob, RaceProgress, demo
from solver.study.words import is_preflop

__all__ = [  # (the pure helpers stay importable from the page, as before the split)
    "GameChoice",
    "display_rows",
    "export_bytes",
    "memory_error",
    "progress_figure",
    "render",
    "winners_markdown",
]
DEMO_X = {"mccfr": "nodes", "pruning": "nodes"}  # demos read by nodes touched (else iterations)


# ----- the game -------------------------------------------------------------------------------
def game_choices() -> dict[str, str]:
    """Selectable games: the Set up page's current game, then every preset and toy game."""
    out = {state.CURRENT_SETUP: f"Current set-up: {current_request().label}"}
    out.update(
        {
            k: v
            for k, v in S.sources().items()
            if k not in (S.CUSTOM, S.CUSTOM_PREFLOP) and S.multi_name(k) is None
        }
    )
    return out


def chosen_game() -> GameChoice:
    choice = str(state.get(state.COMPARE_GAME))
    if choice == state.CURRENT_SETUP:
        req = current_request()
        if S.multi_name(state.get(state.SOURCE)) is not None or river3_form.active():  # (3 players)
            return GameChoice(
                req.label,
                None,
                None,
                "Compare races heads-up games; three-player races run from the command "
                "line: python -m solver race --game kuhn3 (or leduc3).",
            )
        if not req.valid or req.source is None:
            errs = "; ".join(f"{k}: {v}" for k, v in req.errors.items()) or "incomplete"
            return GameChoice(
                req.label,
                None,
                None,
                f"The set-up has errors ({errs}); fix them on the "
                "Set up page or pick a preset here.",
            )
        if req.preflop is not None:  # chips are bb: no pot to take a percentage of
            return GameChoice(req.label, req.source.to_dict(), None, preflop=True)
        pot = float(req.spec.pot) if req.spec is not None else None
        return GameChoice(req.label, req.source.to_dict(), pot, spec=req.spec)
    label = S.sources().get(choice, choice)
    toy = S.toy_name(choice)
    if toy is not None:
        return GameChoice(label, ToySource(toy).to_dict(), None)
    preflop = S.preflop_of_source(choice)
    if preflop is not None:
        return GameChoice(label, preflop_source(preflop), None, preflop=True)
    spec = S.spec_of_source(choice)
    if spec is None:
        return GameChoice(label, None, None, f"unknown game {choice!r}")
    return GameChoice(label, S.holdem_source(spec), float(spec.pot), spec=spec)


def _ensure_defaults() -> None:
    if state.get(state.COMPARE_GAME) not in game_choices():
        state.put(state.COMPARE_GAME, DEFAULT_GAME)
    count = rows()
    state.put(state.COMPARE_ROWS, count)
    for i in range(count):
        if state.get(algo_key(i)) not in ALGORITHMS:
            state.put(algo_key(i), unused_algorithm(i, algorithm_names()))
        algo = str(state.get(algo_key(i)))
        state.put(pruning_key(i), row_pruning(i, algo))
        if state.get(seed_key(i)) is None:
            state.put(seed_key(i), "0")
    if state.get(state.COMPARE_ITERATIONS) is None:
        state.put(state.COMPARE_ITERATIONS, str(DEFAULT_ITERATIONS))
    if state.get(state.COMPARE_TARGETS) is None:
        state.put(state.COMPARE_TARGETS, "")
    if state.get(state.COMPARE_WORKERS) is None:
        state.put(state.COMPARE_WORKERS, "2")
    if state.get(state.COMPARE_STOP_AT_TARGET) is None:
        state.put(state.COMPARE_STOP_AT_TARGET, True)
    if state.get(state.COMPARE_X) not in RACE_X:
        state.put(state.COMPARE_X, "iterations")


# ----- callbacks ------------------------------------------------------------------------------
def _add_row() -> None:
    add_row(algorithm_names())


def _start() -> None:
    choice = chosen_game()
    entries, errors = row_entries(rows())
    targets, target_error = chosen_targets(choice)
    problems = [m for m in [*errors, target_error, memory_error(choice, len(entries))] if m]
    if problems:
        state.put(state.RACE_ERROR, "Cannot start: " + "; ".join(problems))
        return
    launch(choice, entries, targets, None)


def _start_demo(key: str) -> None:
    """Fill the form with the demo (so it can be tweaked afterwards) and start it."""
    d = demo(key)
    preset = f"preset:{d.preset}"
    state.put(state.COMPARE_GAME, preset if preset in S.sources() else f"toy:{d.preset}")
    entries = d.entries()
    for i, e in enumerate(entries):
        state.put(algo_key(i), e.name)
        for name, value in e.all_params().items():
            state.put(param_key(i, e.name, name), param_text(value))
        state.put(pruning_key(i), e.pruning or ALGORITHMS[e.name].prunings[0])
        state.put(seed_key(i), str(e.seed))
    state.put(state.COMPARE_ROWS, len(entries))
    state.put(state.COMPARE_X, DEMO_X.get(key, "iterations"))
    state.put(state.COMPARE_ITERATIONS, str(d.iterations))
    state.put(state.COMPARE_TARGETS, d.targets)
    state.put(state.COMPARE_STOP_AT_TARGET, d.stop_at_target)
    choice = chosen_game()
    targets, error = chosen_targets(choice)
    if error:
        state.put(state.RACE_ERROR, f"Cannot start: {error}")
    else:
        launch(choice, entries, targets, key)
    # a setting of "Your race" the demo keeps (workers, ...) blocked it: said by the demo
    blocked = state.get(state.RACE_ERROR)
    state.put(
        state.RACE_DEMO_ERROR,
        (key, f"{str(blocked).rstrip('.')} (in Your race, below).") if blocked else None,
    )


# ----- the page -------------------------------------------------------------------------------
def render() -> None:
    _ensure_defaults()
    st.title("Compare")
    st.caption(
        "Race up to six algorithms on one game. They share the CPU fairly (whoever has used "
        "the least CPU time runs next), each one's own CPU seconds are measured, and "
        "exploitability is checked at the same iterations for all, so the curves compare in "
        "iterations, seconds and nodes touched (docs/app.md, 'Compare')."
    )
    job = state.race()
    drawn = job.progress.state if job is not None else None  # one snapshot for the buttons
    running = drawn is not None and drawn not in FINISHED
    state.put(state.RACE_LAST_STATE, drawn)  # the live view reruns the page only on a change
    from_demo = job is not None and bool(state.get(state.RACE_DEMO))
    _demos(running)
    if from_demo:  # the results go where the eye is: under the demo just clicked
        _results(running)
    st.subheader("Your race")
    choices = game_choices()
    st.selectbox(
        "Game",
        list(choices),
        format_func=lambda k: choices[k],
        key=state.COMPARE_GAME,
        disabled=running,
        persist_state=PERSIST,
    )
    choice = chosen_game()
    if choice.error:
        st.error(choice.error, icon=":material/error:")
    count = rows()
    for i in range(count):
        _row(i, count, running)
    st.button(
        "Add an algorithm",
        key="btn_race_add",
        icon=":material/add:",
        on_click=_add_row,
        disabled=running or count >= MAX_ALGORITHMS,
    )
    _, errors = row_entries(count)
    c = st.columns([1, 2, 1, 1.3], vertical_alignment="bottom")
    _, bad_iterations = number_field(
        ITERATIONS,
        state.COMPARE_ITERATIONS,
        container=c[0],
        disabled=running,
        show_error=False,
    )
    c[1].text_input(
        _targets_label(choice),
        key=state.COMPARE_TARGETS,
        placeholder=f"default: {default_targets_text(choice)}",
        disabled=running,
        persist_state=PERSIST,
        help="comma separated; empty = the default; the table reports iterations and CPU "
        "seconds to each",
    )
    _, bad_workers = number_field(
        WORKERS,
        state.COMPARE_WORKERS,
        container=c[2],
        disabled=running,
        show_error=False,
        help="threads sharing the CPU between the algorithms (no more than your cores)",
    )
    c[3].checkbox(
        "Stop each at the hardest target",
        key=state.COMPARE_STOP_AT_TARGET,
        disabled=running,
        persist_state=PERSIST,
    )
    _, target_error = chosen_targets(choice)
    problems = [
        m
        for m in [*errors, bad_iterations, target_error, bad_workers, memory_error(choice, count)]
        if m
    ]
    for msg in problems:
        st.error(msg, icon=":material/error:")
    _controls(job, not (problems or choice.error))
    if not from_demo:
        _results(running)


def _targets_label(choice: GameChoice) -> str:
    """The targets field's label: the units a target may be given in for the game."""
    if choice.preflop:
        return "Targets (bb, or mbb/hand as '1 mbb')"
    return "Targets (chips" + (", or % of the pot" if choice.pot is not None else "") + ")"


def _results(running: bool) -> None:
    """The live results (a fragment), and once after a start, a scroll that brings them
    into view."""
    job = state.race()
    workers = job.progress.workers if job is not None else 1
    with st.container(key="race_results"):
        live_view(live, running, redraw_every(workers))
    if state.get(state.RACE_SCROLL):
        state.put(state.RACE_SCROLL, False)
        job = state.race()
        st.html(_SCROLL_JS.replace("RACE", str(id(job))), unsafe_allow_javascript=True)


# Once per race (a page run may mount the script again): bring the results into view.
_SCROLL_JS = """<script>
(() => {
  if (window.regretLabScrolled === "RACE") return;
  window.regretLabScrolled = "RACE";
  let tries = 0;
  const go = () => {
    const el = document.querySelector('.st-key-race_results');
    if (el) { el.scrollIntoView({block: 'start'}); return; }
    if (tries++ < 40) setTimeout(go, 50);
  };
  go();
})();
</script>"""


def _demos(running: bool) -> None:
    st.subheader("Demos")
    cols = st.columns(2)
    for i, d in enumerate(DEMOS):
        with cols[i % 2], st.container(border=True):
            st.button(
                d.title,
                key=f"btn_demo_{i}",
                icon=":material/play_arrow:",
                on_click=_start_demo,
                args=(d.key,),
                disabled=running,
                width="stretch",
            )
            st.caption(d.caption)
            blocked = state.get(state.RACE_DEMO_ERROR)
            if blocked and blocked[0] == d.key and state.get(state.RACE_ERROR):
                st.error(blocked[1], icon=":material/error:")


def _row(i: int, rows: int, running: bool) -> None:
    """One algorithm row: the algorithm, its parameters, its pruning mode (when it has a
    choice) and seed (sampling algorithms), and the remove button."""
    c = st.columns([1.3, 3, 1.6, 0.5], vertical_alignment="bottom")
    current = ALGORITHMS[str(state.get(algo_key(i)))]
    algo = c[0].selectbox(
        f"Algorithm {i + 1}",
        algorithm_names(),
        key=algo_key(i),
        disabled=running,
        persist_state=PERSIST,
        help=f"{current.kind}: {current.description}",
    )
    info = ALGORITHMS[algo]
    defaults = algorithm_defaults(algo)
    if defaults:
        cols = c[1].columns([max(5, len(name)) for name in defaults])  # names on one line
        for col, (name, value) in zip(cols, defaults.items(), strict=True):
            key = param_key(i, algo, name)
            if state.get(key) is None:
                state.put(key, param_text(value))
            col.text_input(name, key=key, disabled=running, persist_state=PERSIST)
    else:
        c[1].caption(f"{info.kind} · {info.description}")
    if state.get(pruning_key(i)) not in info.prunings:  # the algorithm changed
        state.put(pruning_key(i), info.prunings[0])
    options = [o for o in (len(info.prunings) > 1, info.sampling) if o]
    slots = c[2].columns(len(options)) if options else []
    k = 0
    if len(info.prunings) > 1:
        slots[k].selectbox(
            "Pruning",
            list(info.prunings),
            format_func=lambda m: PRUNING_LABELS.get(m, m),
            key=pruning_key(i),
            disabled=running,
            help=PRUNING_HELP,
            persist_state=PERSIST,
        )
        k += 1
    if info.sampling:
        slots[k].text_input(
            "Seed",
            key=seed_key(i),
            disabled=running,
            persist_state=PERSIST,
            help="fixes every random draw (a whole number ≥ 0)",
        )
    c[3].button(
        "",
        key=f"btn_race_remove_{i}",
        icon=":material/close:",
        help="remove this algorithm",
        on_click=remove_row,
        args=(i,),
        disabled=running or rows <= 1,
    )


def _controls(job: RaceJob | None, valid: bool) -> None:
    p = job.progress if job is not None else None
    running = p is not None and not p.finished
    c = st.columns(4)
    c[0].button(
        "Start",
        key="btn_race_start",
        type="primary",
        disabled=running or not valid,
        on_click=_start,
        width="stretch",
    )
    paused = p is not None and p.state == PAUSED
    pause_resume_stop(
        c, "btn_race_", paused, running, pause, resume, stop, state.get(state.RACE_ERROR)
    )


def live() -> None:
    """The live view, drawn as a fragment by ``live_view``: only it reruns while the race runs."""
    job = state.race()
    if job is None:
        st.info("Click a demo, or pick a game and algorithms and press **Start**.")
        return
    p = job.progress
    if p.finished and state.get(state.RACE_LAST_STATE) not in FINISHED:
        state.put(state.RACE_LAST_STATE, p.state)
        st.rerun()  # whole page: flip the buttons once
    state.put(state.RACE_LAST_STATE, p.state)
    show_race(p, is_preflop(job.game))


def show_race(p: RaceProgress, preflop: bool = False) -> None:
    """The race's status line, its demo's caption, the x-axis choice, then its results
    (:func:`app.components.race_view.race_results`) in the game's units."""
    status = {
        RUNNING: "Running",
        PAUSED: "Paused",
        "done": "Done",
        "stopped": "Stopped",
        "failed": "Failed",
        "ready": "Starting",
    }.get(p.state, p.state)
    game = str(state.get(state.RACE_GAME) or "")
    st.markdown(
        f"**{status}** · {game} · {len(p.lanes)} algorithms, up to {p.max_iterations:,} "
        f"iterations each, {p.workers} worker thread(s) · {p.wall_s:.1f} s"
    )
    key = state.get(state.RACE_DEMO)
    if key:
        st.caption(demo(str(key)).caption)
    if p.error:
        st.error(p.error, icon=":material/error:")
    x_axis = st.radio(
        "x axis",
        list(RACE_X),
        format_func=lambda k: RACE_X[k],
        key=state.COMPARE_X,
        horizontal=True,
        persist_state=PERSIST,
    )
    race_results(p, x_axis, game, preflop)
