"""Solve: algorithm (full-width CFR rules and Monte Carlo CFR) with its parameters, pruning,
storage, target, limits and threads; Solve / Pause / Resume / Stop; and the live view of the
background solve (:mod:`app.features.live`), redrawn about once a second by a fragment.

The page shows one game at a time: the running solve's while one runs (with a note when Set
up now holds another game, which opens here once the solve stops), else the Set up page's.
Settings follow the game (:mod:`app.settings`). Before solving, the game line estimates the
time per iteration (:mod:`solver.run.calibration`).

Solve returns at once: the game is built and the solver allocated by a
:class:`~solver.run.jobs.JobStarter` in the background (seconds on a flop), the live view
saying so from the first second; the job is started when it is made."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import streamlit as st

from app import kernels, nav, state
from app import settings as cfgmod
from app import spec as S
from app.components import names
from app.components.fields import PERSIST, Number
from app.components.solve_estimate import estimate_line
from app.components.spot_header import spot_header
from app.features import multi_solve
from app.features.controls import live_view, pause_resume_stop, redraw_every
from app.features.live import show_progress
from app.features.number_fields import number_field
from app.features.simplified_note import simplified_note
from app.jobs import stop_job
from app.request import Request, current_request
from app.runtime import start_solve
from app.settings import (
    Settings,
    algorithm_names,
    chosen_selects,
    default_text,
    form_rows,
    option_widget,
)
from solver.algorithms import ALGORITHMS, AlgorithmInfo, algorithm_defaults, make_algorithm
from solver.cfr.options import OptionField
from solver.games.model import DECISION, Game
from solver.games.source import PreflopSource, ToySource
from solver.poker.cards import card_str, parse_board
from solver.run import calibration
from solver.run.jobs import FINISHED, PAUSED, RUNNING, JobStarter, SolveJob
from solver.study.words import HOLDEM_PLAYERS, is_preflop, spot, start_spot

BACKGROUND_MB = 64.0
"""A spot whose estimate is this big or more is built in the background (a flop's build
takes seconds); smaller ones are made in the click's callback, ready when the page draws."""


def game_id(req: Request) -> str:
    """What "the game" is for settings that follow it: the Set up source id."""
    return str(state.get(state.SOURCE))


def running_job() -> SolveJob | None:
    job = state.job()
    return job if job is not None and not job.progress.finished else None


def shows_job(req: Request, job: SolveJob | None) -> bool:
    """Whether the page shows ``job``'s game: it runs, or it is of the Set up page's game."""
    if job is None:
        return False
    if not job.progress.finished:
        return True
    return S.same_game(state.get(state.JOB_SOURCE), req.source)


def starting() -> JobStarter[SolveJob] | None:
    """The solve being made in the background (Solve pressed, its job not started yet)."""
    got = state.get(state.STARTING)
    return got[0] if got is not None else None


def render() -> None:
    if multi_solve.wanted(running_job() is not None or starting() is not None):
        multi_solve.render()  # three players (docs/multiway.md)
        return
    req = current_request()
    job = state.job()
    drawn = job.progress.state if job is not None else None  # one snapshot for the buttons
    running = drawn is not None and drawn not in FINISHED
    if starting() is not None:  # the new solve's: the last one's job is not shown
        drawn, running, job = RUNNING, True, None
    # the live view flips the buttons (a whole-page rerun) only when it sees another state
    # than this run drew them for: a rerun requested during a full run can leave the
    # fragment's elements twice on the page
    state.put(state.LIVE_LAST_STATE, drawn)
    st.title("Solve")
    ended = state.get(state.JOB_ENDED)
    if ended:
        st.warning(ended, icon=":material/info:")
    note = state.get(state.JOB_NOTE)
    if note and note[0] is job and running:  # (about that solve, while it runs)
        st.info(note[1], icon=":material/info:")
    _header(req, job if shows_job(req, job) else None)
    simplified_note()  # the current solve lacks some sizes (Explore's sizes view)
    holdem = job.game.is_holdem if running and job is not None else req.spec is not None
    cfg = cfgmod.settings(holdem)
    _summary(req, job if running else None, cfg)
    _main_row(cfg, running, holdem, req, job)
    _advanced(cfg, running)
    threads = job.engine.threads if running and job is not None else 1
    live_view(live, running, redraw_every(threads))


def _header(req: Request, job: SolveJob | None) -> None:
    """The spot header (:mod:`app.components.spot_header`) of the solve shown, else of the
    Set up page's game: its start, with the players' names its preset gives."""
    if job is not None:
        game = job.game
        names.remember(game, S.player_names(state.get(state.JOB_SOURCE)))
        the_spot = spot(game, 0, names.of(game))
    elif req.spec is not None and req.source is not None:
        board = tuple(card_str(c) for c in parse_board(req.spec.board))
        players = S.player_names(req.source) or HOLDEM_PLAYERS
        bb = req.spec.big_blind
        the_spot = start_spot(board, req.spec.pot, req.spec.stack, bb, players)
    elif isinstance(req.source, (ToySource, PreflopSource)):
        game = S.build_game(req.source)  # (toy and preflop games are small and cached)
        names.remember(game, S.player_names(req.source))
        the_spot = spot(game, 0, names.of(game))
    else:
        return
    with st.container(key="spot_header"):
        spot_header(the_spot, compact=True)  # (one row: the live view fits a 900 px screen)


def _summary(req: Request, job: SolveJob | None, cfg: Settings) -> None:
    """The game line: the running solve's game, or the Set up page's with its size and an
    estimate of the time to the target (:mod:`app.components.solve_estimate`)."""
    if job is not None and state.get(state.JOB_GAME_ID) is not None:
        label = state.get(state.JOB_LABEL) or job.game.name
        st.markdown(f"**Game:** {label} — solving")
        if not S.same_game(state.get(state.JOB_SOURCE), req.source):
            st.info(
                f"Set up now holds **{req.label}**. This solve keeps its own game: stop it "
                "to solve the new one here.",
                icon=":material/info:",
            )
        return
    line = f"**Game:** {req.label}"
    seconds = None
    threads = cfg.options.threads  # (the speed-up measured on this machine: calibration)
    if req.estimate is not None:
        e = req.estimate
        line += f" · {e.nodes:,} nodes, {e.memory_mb:,.1f} MB"
        seconds = calibration.load().seconds(calibration.cells_of_estimate(e), threads)
    elif isinstance(req.source, (ToySource, PreflopSource)):
        game = S.build_game(req.source)
        seconds = calibration.load().seconds(calibration.cells_of_game(game), threads)
    if seconds is not None:
        pot = req.spec.pot if req.spec is not None else None
        holdem, unit = req.spec is not None, cfg.unit
        if req.preflop is not None:  # chips are bb; iterations as a hold'em spot's in % pot
            holdem, unit, pot = True, "bb", game.starting_pot
        line += " · " + estimate_line(
            seconds, cfg.target, unit, holdem, cfg.max_iterations, pot, threads
        )
    c = st.columns([4, 1.3], vertical_alignment="center")
    c[0].markdown(
        line,
        help="on the Threads set below: the tree's size times a cost per hand-cell measured "
        "on this machine at that many threads, times the iterations DCFR typically needs for "
        "this target (docs/app.md, 'Estimates')",
    )
    with c[1]:
        nav.link("setup", "Change the game", ":material/tune:")
    if req.errors:
        st.error(
            "The set-up has errors: "
            + "; ".join(req.errors.values())
            + " Fix them on the Set up page.",
            icon=":material/error:",
        )


def _main_row(
    cfg: Settings, running: bool, holdem: bool, req: Request, job: SolveJob | None
) -> None:
    """Above the fold: algorithm, target and unit, iteration limit, threads, the seed of a
    sampling algorithm; then Solve, Pause/Resume and Stop. Messages under the row."""
    names = algorithm_names()
    state.put(state.ALGORITHM, cfg.algorithm)
    info = ALGORITHMS[cfg.algorithm]
    units = ["% pot", "chips"] if holdem else ["chips"]
    preflop = req.preflop is not None if job is None or not running else is_preflop(job.game)
    if state.get(state.TARGET_UNIT) not in units:
        state.put(state.TARGET_UNIT, units[0])
    chosen = chosen_selects(info)
    mine = _options_in("main", info, chosen)
    # every label on one line at 1280 px ("Max iterations" is the longest)
    c = st.columns(
        [1.4, 0.9, 1.0, 1.25] + [option_widget(r).width for r in mine] + [0.85, 0.85, 0.85],
        vertical_alignment="bottom",
    )
    c[0].selectbox(
        "Algorithm",
        names,
        key=state.ALGORITHM,
        disabled=running,
        persist_state=PERSIST,
        help=f"**{info.kind}** · {info.description} *{info.paper}* (docs/algorithms.md); its "
        "parameters are under Advanced",
    )
    errors: list[str] = []
    field = _field_maker(running, errors)
    field(
        c[1],
        cfgmod.TARGET,
        state.TARGET,
        "0.3" if holdem else "0.001",
        "stop at this exploitability of the average strategy (in the unit beside); 0 = run "
        "to the limit",
    )
    c[2].radio(
        "Unit",
        units,
        format_func=lambda u: "bb" if preflop and u == "chips" else u,  # preflop chips are bb
        key=state.TARGET_UNIT,
        horizontal=True,
        disabled=running,
        persist_state=PERSIST,
    )
    field(c[3], cfgmod.MAX_ITERATIONS, state.MAX_ITERATIONS, "100000", "stop after this many")
    k = 4
    for row in mine:
        _option(c[k], row, info, chosen, running, field)
        k += 1
    _controls(req, job, cfg, c[k:])
    if cfg.one_thread:
        st.caption(f"1 thread: {cfg.one_thread}.")
    for err in errors:
        st.error(err, icon=":material/error:")


def _advanced_keys() -> tuple[str, ...]:
    """The settings under Advanced (:attr:`Settings.errors` keys): it opens when one is
    wrong — the parameters, the check interval and every option not in the main row."""
    rows = [r.field for r in form_rows() if option_widget(r).section != "main"]
    return ("params", "check_every", *rows)


def _options_in(section: str, info: AlgorithmInfo, chosen: cfgmod.Choices) -> list[OptionField]:
    """The option rows the form draws in ``section`` now (:func:`app.settings.form_rows`,
    those shown for this algorithm and these choices)."""
    return [
        r
        for r in form_rows()
        if option_widget(r).section == section and option_widget(r).shown(info, chosen)
    ]


def _option(
    col: Any,
    row: OptionField,
    info: AlgorithmInfo,
    chosen: cfgmod.Choices,
    running: bool,
    field: Callable[..., None],
) -> None:
    """One solver option's widget in ``col``, by its row's kind (a number field through
    ``field``, whose message goes under its row); one its settings force to its default is
    drawn disabled, showing that default, with why."""
    widget = option_widget(row)
    key = str(row.app)
    help = widget.help or row.help
    why = widget.forced(info, chosen)
    if why:  # the field keeps its value for when it is free again
        col.text_input(
            widget.label, value=default_text(row), key=f"{key}_one", disabled=True,
            help=f"{widget.label} {default_text(row)}: {why}",
        )  # fmt: skip
    elif row.widget == "number":
        spec = widget.number or Number(widget.label)
        field(col, spec, key, default_text(row), help)
    elif row.widget == "select":
        choices = list(widget.choices(info)) if widget.choices is not None else []
        if state.get(key) != chosen[row.field]:
            state.put(key, chosen[row.field])
        col.selectbox(
            widget.label,
            choices,
            format_func=lambda m: widget.names.get(m, m),
            key=key,
            disabled=running or len(choices) == 1,
            help=help,
            persist_state=PERSIST,
        )
    elif row.widget == "checkbox":
        if state.get(key) is None:
            state.put(key, False)
        col.checkbox(widget.label, key=key, disabled=running, persist_state=PERSIST, help=help)


def _field_maker(running: bool, errors: list[str]) -> Callable[..., None]:
    """A number field drawer for the Solve rows: its message goes to ``errors`` (shown under
    the row), its default is put in the session the first time."""

    def field(col: object, spec: cfgmod.Number, key: str, default: str, help: str) -> None:
        if state.get(key) is None:
            state.put(key, default)
        _, err = number_field(
            spec, key, container=col, disabled=running, help=help, show_error=False
        )
        if err:
            errors.append(err)

    return field


def _advanced(cfg: Settings, running: bool) -> None:
    """Folded away by default: the algorithm's parameters (α, β, γ, average_every, …),
    pruning, storage, the check interval and the RBP settings where they apply."""
    info = ALGORITHMS[cfg.algorithm]
    chosen = chosen_selects(info)
    defaults = algorithm_defaults(cfg.algorithm)
    wrong = any(cfg.errors.get(k) for k in _advanced_keys())
    mine = _options_in("advanced", info, chosen)
    labels = [option_widget(r).label.lower() for r in mine]
    title = "Advanced: " + ", ".join([*defaults, *labels, "check every"])
    with st.expander(title, expanded=wrong, icon=":material/tune:"):
        # a parameter's column fits its name on one line (average_every: 13 characters)
        widths = [max(0.7, 0.08 * len(name)) for name in defaults]
        widths += [option_widget(r).width for r in mine] + [1]
        c = st.columns(widths, vertical_alignment="bottom")
        for col, (name, value) in zip(c, defaults.items(), strict=False):
            key = cfgmod.param_key(cfg.algorithm, name)
            if state.get(key) is None:
                state.put(key, cfgmod.param_text(value))
            col.text_input(name, key=key, disabled=running, persist_state=PERSIST)
        errors: list[str] = []
        field = _field_maker(running, errors)
        k = len(defaults)
        for row in mine:
            _option(c[k], row, info, chosen, running, field)
            k += 1
        field(
            c[k],
            cfgmod.CHECK,
            state.CHECK_EVERY,
            "10",
            "iterations between exploitability checks: at every multiple of this (as the "
            "CLI's --every), so the same solve stops at the same iteration on any machine",
        )
        rbp = _options_in("rbp", info, chosen)
        if rbp:  # the regret-based pruning's settings, where the pruning asks them
            cols = st.columns(max(3, len(rbp)), vertical_alignment="bottom")
            for col, row in zip(cols, rbp, strict=False):
                _option(col, row, info, chosen, running, field)
        selects = [r.field for r in mine if r.widget == "select"]
        for key in ("params", *selects):
            if cfg.errors.get(key):
                st.error(cfg.errors[key], icon=":material/error:")
        for err in errors:
            st.error(err, icon=":material/error:")


def _controls(req: Request, job: SolveJob | None, cfg: Settings, c: list) -> None:
    """The control buttons in ``c`` (three columns); their work happens in callbacks,
    before the page redraws."""
    p = job.progress if job is not None else None
    running = (p is not None and not p.finished) or starting() is not None
    c[0].button(
        "Solve",
        key="btn_solve",
        type="primary",
        disabled=running or not req.valid or bool(cfg.errors),
        help=(
            "fix the set-up first"
            if not req.valid
            else ("fix the fields marked in red first" if cfg.errors else None)
        ),
        on_click=_start,
        args=(req,),
        width="stretch",
    )
    paused = p is not None and p.state == PAUSED and starting() is None
    pause_resume_stop([None, *c[1:]], "btn_", paused, running, _pause, _resume, _stop, None)
    if state.get(state.START_ERROR):
        st.error(state.get(state.START_ERROR), icon=":material/error:")


def _pause() -> None:
    job = state.job()
    if job is not None:
        job.pause()
        job.wait_for(lambda q: q.state == PAUSED or q.finished, timeout=30.0)


def _resume() -> None:
    job = state.job()
    if job is not None:
        job.resume()
        job.wait_for(lambda q: q.state != PAUSED, timeout=5.0)


def _stop() -> None:
    made = starting()
    if made is not None:  # not started yet: its job is dropped when made
        made.cancel()
        state.put(state.STARTING, None)
        return
    stop_job(state.job())


def _start(req: Request) -> None:
    state.put(state.START_ERROR, None)
    state.put(state.JOB_ENDED, None)
    # the options are checked once, by the solve's gate (make_solver) as the job is made
    cfg = cfgmod.settings(req.spec is not None, check=False)
    if cfg.errors:
        state.put(state.START_ERROR, "Cannot start: " + " ".join(cfg.errors.values()))
        return
    old = state.job()
    stop_job(old)
    if req.source is None:
        return
    made = starting()
    if made is not None:
        made.cancel()
    old_game = old.game if old is not None and not old.released else None
    explored = state.get(state.EXPLORE_NODE)
    events = kernels.warmup().events
    source = req.source
    start: dict[str, object] = {}  # what the page applies when it starts the job

    def make(say: Callable[[str], None]) -> SolveJob:
        say("building the game tree")
        game = S.build_game(source)
        rule = make_algorithm(cfg.algorithm, **cfg.params)
        node = _watch(game, old_game, explored)
        start["explore"] = None if node == explored and old_game is game else node
        group = kernels.group_for(
            game.is_holdem, cfg.algorithm, cfg.options.threads, cfg.options.precision,
            cfg.pruning, game.action_size,
        )  # fmt: skip
        say("allocating the solver's memory")
        return SolveJob(
            game,
            rule,
            ready=events[group],
            target=cfg.target_chips(game.starting_pot if game.is_holdem else 0.0),
            max_iterations=cfg.max_iterations,
            check_every=cfg.check_every,
            watch=node,
            options=cfg.options,
        )

    what = (start, req.source, req.spec, game_id(req), req.label)
    if req.estimate is None or req.estimate.memory_mb < BACKGROUND_MB:  # quick: made here
        try:
            job = make(lambda _text: None)
        except (ValueError, MemoryError) as exc:
            state.put(state.START_ERROR, f"Cannot start: {exc}")
            return
        _start_job(job, what)
        return
    state.put(state.STARTING, (JobStarter(make).start(), what))


def _watch(game: Game, old_game: Game | None, explored: object) -> int:
    """The node a new solve watches: the explored decision node when the game is the last
    solve's, else the first decision node."""
    if (
        old_game is game
        and isinstance(explored, int)
        and 0 <= explored < game.num_nodes
        and game.tree.kind[explored] == DECISION
    ):
        return explored
    return int(game.decision_nodes()[0])


def _started() -> bool:
    """In the live view: start the job the background starter has made (True: the page must
    redraw), say its error, or say what it is doing (False: still making it)."""
    got = state.get(state.STARTING)
    if got is None:
        return False
    made, (start, source, spec, gid, label) = got
    if not made.done:
        st.info(
            f"**Starting** — {made.phase} ({made.seconds:.0f} s). The live view follows as soon "
            "as the solver runs.",
            icon=":material/hourglass_top:",
        )
        return False
    state.put(state.STARTING, None)
    job = made.job
    if job is None:
        if made.error:
            state.put(state.START_ERROR, f"Cannot start: {made.error}")
        return True
    _start_job(job, (start, source, spec, gid, label))
    return True


def _start_job(job: SolveJob, what: tuple) -> None:
    """Make ``job`` the session's solve and start it (``what``: what :func:`_start` kept for
    it — the explored node to move to, the source, spec, Set up id and label)."""
    start, source, spec, gid, label = what
    if start.get("explore") is not None:
        state.put(state.EXPLORE_NODE, start["explore"])
    state.put(state.LOADED, None)
    state.put(state.LIVE_LAST_STATE, RUNNING)
    start_solve(job, source, spec, gid, label)


def live() -> None:
    """The live view, drawn as a fragment by ``live_view``: only it reruns while the job works."""
    if state.get(state.STARTING) is not None:
        if _started():
            st.rerun()  # whole page: the new job's buttons and view
        return
    job = state.job()
    req = current_request()
    if job is None or not shows_job(req, job):
        if job is not None:
            st.caption(
                f"Your last solve ({state.get(state.JOB_LABEL) or job.game.name}) is still on "
                "the Explore and Export pages."
            )
        st.info("Press **Solve** to start. The curve and the strategy update live.")
        return
    p = job.progress
    if p.finished and state.get(state.LIVE_LAST_STATE) not in FINISHED:
        state.put(state.LIVE_LAST_STATE, p.state)
        _record_speed(job)
        st.rerun()  # whole page: flip the buttons once
    state.put(state.LIVE_LAST_STATE, p.state)
    show_progress(job, p)


def _record_speed(job: SolveJob) -> None:
    """Fold a finished full-width solve's speed into this machine's cost per hand-cell."""
    spi = job.progress.seconds_per_iteration
    info = ALGORITHMS.get(job.rule.name)
    if spi is None or info is None or info.sampling or job.engine.pruning in cfgmod.RBP:
        return
    calibration.record(calibration.cells_of_game(job.game), spi, job.engine.threads)
