"""Compare: race up to six algorithms on one game — any algorithm of
:data:`solver.algorithms.ALGORITHMS` (full-width CFR rules and Monte Carlo CFR) with its
parameters, pruning mode and, for sampling algorithms, seed. Fair CPU sharing
(``solver.race``), every exploitability curve overlaid live (log-log; x as iterations, each
algorithm's own CPU seconds, or nodes touched), the table of iterations and CPU seconds to each
target with a winner per target, one-click demos, and downloads (chart PNG/SVG/HTML, table
and curves as CSV)."""

from __future__ import annotations

import functools
import json
from dataclasses import asdict, dataclass

import plotly.graph_objects as go
import streamlit as st

from app import spec as S
from app import state
from app.components.controls import live_view, pause_resume_stop, redraw_every
from app.components.fields import PERSIST, Number, number_field
from app.components.figures import RACE_X, race_figure
from app.components.images import html_bytes, image_bytes, image_problem
from app.runtime import start
from app.screens.setup import current_request
from app.screens.solve import PRUNING_HELP, algorithm_names
from app.settings import PRUNING_LABELS, SEED, param_text, read_params
from solver.algorithms import ALGORITHMS, algorithm_defaults
from solver.cfr.options import check_options, sentence
from solver.export import preflop_source
from solver.games.holdem import HoldemSpec
from solver.jobs import FINISHED, PAUSED, RUNNING
from solver.race import (
    DEFAULT_TARGETS_HOLDEM,
    DEFAULT_TARGETS_TOY,
    DEMOS,
    MAX_ALGORITHMS,
    Entry,
    EntryError,
    RaceJob,
    RaceProgress,
    Target,
    TargetError,
    cell_text,
    check_entries,
    default_targets,
    demo,
    parse_targets,
    points_csv,
    race_csv,
    table_rows,
    winner_rows,
)

DEFAULT_GAME = "preset:leduc"
DEFAULT_ROWS = ("cfr+", "dcfr")
DEFAULT_ITERATIONS = 2000
DEMO_X = {"mccfr": "nodes", "pruning": "nodes"}  # demos read by nodes touched (else iterations)
FORMATS = {
    "png": ("Chart as PNG", "image/png", "chart.png"),
    "svg": ("Chart as SVG", "image/svg+xml", "chart.svg"),
    "html": ("Chart as HTML", "text/html", "chart.html"),
    "csv": ("Table as CSV", "text/csv", "table.csv"),
    "points": ("Curves as CSV", "text/csv", "curves.csv"),
}


# ----- pure helpers (tested directly) -----------------------------------------------------------
def progress_figure(
    progress: RaceProgress, x_axis: str = "iterations", title: str = ""
) -> go.Figure:
    """The overlaid curves of a race snapshot (% pot for hold'em games, chips otherwise)."""
    pot = progress.starting_pot
    unit, scale = ("% pot", 100.0 / pot) if pot else ("chips", 1.0)
    return race_figure(
        [(lane.entry.label, lane.points) for lane in progress.lanes],
        x_axis,
        [(t.label, t.chips) for t in progress.targets],
        unit=unit,
        scale=scale,
        title=title,
    )


def export_bytes(
    progress: RaceProgress, fmt: str, x_axis: str = "iterations", title: str = ""
) -> bytes:
    """A race as a file: ``png``, ``svg`` or ``html`` (the overlaid chart, light template),
    ``csv`` (the table, :func:`solver.race.race_csv`) or ``points`` (every check)."""
    if fmt == "csv":
        return race_csv(progress)
    if fmt == "points":
        return points_csv(progress)
    fig = progress_figure(progress, x_axis, title)
    if fmt == "html":
        return html_bytes(fig)
    return image_bytes(fig, fmt)


def display_rows(progress: RaceProgress) -> list[dict[str, str]]:
    """The live table as text, with each algorithm's state after its name."""
    out = []
    for lane, row in zip(progress.lanes, table_rows(progress), strict=True):
        cells = {k: cell_text(k, v) for k, v in row.items()}
        state_text = lane.state if not lane.stopped_by else f"{lane.state} ({lane.stopped_by})"
        out.append({"algorithm": cells.pop("algorithm"), "state": state_text, **cells})
    return out


def winners_markdown(progress: RaceProgress) -> str:
    """One bullet per target: the fastest algorithm (CPU seconds) and the fewest
    iterations."""
    lines = []
    for r in winner_rows(progress):
        if r["fastest (CPU s)"] == "not reached":
            lines.append(f"- **{r['target']}**: not reached")
        else:
            lines.append(
                f"- **{r['target']}**: fastest **{r['fastest (CPU s)']}**; fewest iterations "
                f"{r['fewest iterations']}"
            )
    return "\n".join(lines)


# ----- the game and the rows ------------------------------------------------------------------
@dataclass(frozen=True)
class GameChoice:
    """The game a race would run on: ``source`` is None while it cannot be built."""

    label: str
    source: dict | None
    pot: float | None  # hold'em starting pot in chips; None for toy games
    error: str = ""
    spec: HoldemSpec | None = None  # hold'em games: for the memory estimate


@functools.lru_cache(maxsize=32)
def _engine_mb(spec_json: str) -> float | None:
    checked = S.check(HoldemSpec(**json.loads(spec_json)))
    return None if checked.estimate is None else float(checked.estimate.memory_mb)


def memory_error(choice: GameChoice, algorithms: int) -> str:
    """A message when ``algorithms`` engines of a hold'em game would need more than the spec's
    ``max_memory_mb`` together (each engine holds its own regrets and sums); "" otherwise."""
    if choice.spec is None:
        return ""
    per = _engine_mb(json.dumps(asdict(choice.spec), sort_keys=True))
    if per is None or per * algorithms <= choice.spec.max_memory_mb:
        return ""
    return (
        f"Memory: {algorithms} algorithms × {per:,.0f} MB = {per * algorithms:,.0f} MB, over the "
        f"{choice.spec.max_memory_mb:,.0f} MB allowed (max_memory_mb): race fewer algorithms "
        "or a smaller spot."
    )


def game_choices() -> dict[str, str]:
    """Selectable games: the Set up page's current game, then every preset and toy game."""
    out = {state.CURRENT_SETUP: f"Current set-up: {current_request().label}"}
    out.update({k: v for k, v in S.sources().items() if k not in (S.CUSTOM, S.CUSTOM_PREFLOP)})
    return out


def chosen_game() -> GameChoice:
    choice = str(state.get(state.COMPARE_GAME))
    if choice == state.CURRENT_SETUP:
        req = current_request()
        if not req.valid or req.source is None:
            errs = "; ".join(f"{k}: {v}" for k, v in req.errors.items()) or "incomplete"
            return GameChoice(
                req.label,
                None,
                None,
                f"The set-up has errors ({errs}); fix them on the "
                "Set up page or pick a preset here.",
            )
        pot = float(req.spec.pot) if req.spec is not None else None
        return GameChoice(req.label, req.source, pot, spec=req.spec)
    label = S.sources().get(choice, choice)
    toy = S.toy_name(choice)
    if toy is not None:
        return GameChoice(label, {"kind": "toy", "name": toy}, None)
    preflop = S.preflop_of_source(choice)
    if preflop is not None:  # (chips are bb: curves in chips)
        return GameChoice(label, preflop_source(preflop), None)
    spec = S.spec_of_source(choice)
    if spec is None:
        return GameChoice(label, None, None, f"unknown game {choice!r}")
    return GameChoice(label, S.holdem_source(spec), float(spec.pot), spec=spec)


def _algo_key(row: int) -> str:
    return f"{state.COMPARE_ALGO}{row}"


def _param_key(row: int, algo: str, name: str) -> str:
    return f"{state.COMPARE_PARAM}{row}_{algo}_{name}"


def _pruning_key(row: int) -> str:
    return f"{state.COMPARE_PRUNING}{row}"


def _seed_key(row: int) -> str:
    return f"{state.COMPARE_SEED}{row}"


def _row_pruning(row: int, algo: str) -> str:
    """The row's pruning mode, or the algorithm's default when the row holds none of its
    modes (e.g. after switching algorithm)."""
    modes = ALGORITHMS[algo].prunings
    value = state.get(_pruning_key(row))
    return value if value in modes else modes[0]


def _rows() -> int:
    n = state.get(state.COMPARE_ROWS)
    return n if isinstance(n, int) and 1 <= n <= MAX_ALGORITHMS else len(DEFAULT_ROWS)


def _ensure_defaults() -> None:
    if state.get(state.COMPARE_GAME) not in game_choices():
        state.put(state.COMPARE_GAME, DEFAULT_GAME)
    rows = _rows()
    state.put(state.COMPARE_ROWS, rows)
    for i in range(rows):
        if state.get(_algo_key(i)) not in ALGORITHMS:
            state.put(_algo_key(i), _unused_algorithm(i))
        algo = str(state.get(_algo_key(i)))
        state.put(_pruning_key(i), _row_pruning(i, algo))
        if state.get(_seed_key(i)) is None:
            state.put(_seed_key(i), "0")
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


def _unused_algorithm(row: int) -> str:
    if row < len(DEFAULT_ROWS):
        return DEFAULT_ROWS[row]
    used = {state.get(_algo_key(i)) for i in range(row)}
    return next((a for a in algorithm_names() if a not in used), "cfr")


ITERATIONS = Number("Iterations per algorithm", 1, 1e8, whole=True)
WORKERS = Number("Worker threads", 1, MAX_ALGORITHMS, whole=True)


def _params(row: int, algo: str) -> tuple[dict[str, float], str]:
    return read_params(algo, lambda name: _param_key(row, algo, name))


def row_entries(rows: int) -> tuple[tuple[Entry, ...], list[str]]:
    """The rows as race entries, and one message per bad row (or for the whole list)."""
    entries: list[Entry] = []
    errors: list[str] = []
    for i in range(rows):
        algo = str(state.get(_algo_key(i)))
        seed = 0
        if ALGORITHMS[algo].sampling:
            value, bad = SEED.parse(state.get(_seed_key(i), "0"))
            if bad:
                errors.append(f"Algorithm {i + 1}: {bad}")
                continue
            seed = int(value or 0)
        params, bad = _params(i, algo)
        pruning = _row_pruning(i, algo)
        checked = check_options(algo, params, pruning=pruning, seed=seed)
        if bad or checked:
            field, message = ("", bad) if bad else next(iter(checked.items()))
            shown = message if bad or field in params else sentence(message)
            errors.append(f"Algorithm {i + 1}: {shown}")
            continue
        try:
            entries.append(Entry.of(algo, params, pruning=pruning, seed=seed))
        except EntryError as exc:
            errors.append(f"Algorithm {i + 1}: {exc}")
    if not errors:
        try:
            check_entries(entries)
        except EntryError as exc:
            errors.append(f"Algorithms: {exc}")
    return tuple(entries), errors


def chosen_targets(pot: float | None) -> tuple[tuple[Target, ...], str]:
    """The targets field read (empty = the defaults for the game), and its error if any."""
    text = str(state.get(state.COMPARE_TARGETS) or "").strip()
    try:
        return (parse_targets(text, pot) if text else default_targets(pot)), ""
    except TargetError as exc:
        return (), f"Targets: {exc}"


# ----- callbacks ------------------------------------------------------------------------------
def _add_row() -> None:
    rows = _rows()
    if rows < MAX_ALGORITHMS:
        state.put(_algo_key(rows), _unused_algorithm(rows))
        state.put(state.COMPARE_ROWS, rows + 1)


def _remove_row(row: int) -> None:
    """Drop one row; the rows below move up with their algorithms and parameters."""
    rows = _rows()
    if rows <= 1:
        return
    ss = st.session_state
    for j in range(row, rows - 1):
        ss[_algo_key(j)] = ss.get(_algo_key(j + 1))
        ss[_pruning_key(j)] = ss.get(_pruning_key(j + 1))
        ss[_seed_key(j)] = ss.get(_seed_key(j + 1), 0)
        src = f"{state.COMPARE_PARAM}{j + 1}_"
        for key in [k for k in ss if str(k).startswith(src)]:
            ss[f"{state.COMPARE_PARAM}{j}_{str(key)[len(src) :]}"] = ss[key]
    last = rows - 1
    for key in [k for k in ss if str(k).startswith(f"{state.COMPARE_PARAM}{last}_")]:
        del ss[key]
    ss.pop(_algo_key(last), None)
    ss.pop(_pruning_key(last), None)
    ss.pop(_seed_key(last), None)
    state.put(state.COMPARE_ROWS, rows - 1)


def _launch(
    choice: GameChoice,
    entries: tuple[Entry, ...],
    targets: tuple[Target, ...],
    demo_key: str | None,
) -> None:
    state.put(state.RACE_ERROR, None)
    old = state.race()
    if old is not None:
        old.stop()
        old.join(30.0)
    if choice.source is None:
        state.put(state.RACE_ERROR, f"Cannot start: {choice.error}")
        return
    iterations, bad = ITERATIONS.parse(state.get(state.COMPARE_ITERATIONS))
    workers, bad_workers = WORKERS.parse(state.get(state.COMPARE_WORKERS))
    if bad or bad_workers:
        state.put(state.RACE_ERROR, f"Cannot start: {bad or bad_workers}")
        return
    try:
        game = S.build_game(choice.source)
        job = RaceJob(
            game,
            entries,
            max_iterations=int(iterations or DEFAULT_ITERATIONS),
            targets=targets,
            stop_at_target=bool(state.get(state.COMPARE_STOP_AT_TARGET)),
            workers=int(workers or 2),
        )
    except (ValueError, MemoryError) as exc:
        state.put(state.RACE_ERROR, f"Cannot start: {exc}")
        return
    state.put(state.RACE, job)
    state.put(state.RACE_GAME, choice.label)
    state.put(state.RACE_DEMO, demo_key)
    state.put(state.RACE_LAST_STATE, RUNNING)
    state.put(SCROLL, True)
    start(job)


def _start() -> None:
    choice = chosen_game()
    entries, errors = row_entries(_rows())
    targets, target_error = chosen_targets(choice.pot)
    problems = [m for m in [*errors, target_error, memory_error(choice, len(entries))] if m]
    if problems:
        state.put(state.RACE_ERROR, "Cannot start: " + "; ".join(problems))
        return
    _launch(choice, entries, targets, None)


def _start_demo(key: str) -> None:
    """Fill the form with the demo (so it can be tweaked afterwards) and start it."""
    d = demo(key)
    preset = f"preset:{d.preset}"
    state.put(state.COMPARE_GAME, preset if preset in S.sources() else f"toy:{d.preset}")
    entries = d.entries()
    for i, e in enumerate(entries):
        state.put(_algo_key(i), e.name)
        for name, value in e.all_params().items():
            state.put(_param_key(i, e.name, name), param_text(value))
        state.put(_pruning_key(i), e.pruning or ALGORITHMS[e.name].prunings[0])
        state.put(_seed_key(i), str(e.seed))
    state.put(state.COMPARE_ROWS, len(entries))
    state.put(state.COMPARE_X, DEMO_X.get(key, "iterations"))
    state.put(state.COMPARE_ITERATIONS, str(d.iterations))
    state.put(state.COMPARE_TARGETS, d.targets)
    state.put(state.COMPARE_STOP_AT_TARGET, d.stop_at_target)
    choice = chosen_game()
    targets, error = chosen_targets(choice.pot)
    if error:
        state.put(state.RACE_ERROR, f"Cannot start: {error}")
    else:
        _launch(choice, entries, targets, key)
    # a setting of "Your race" the demo keeps (workers, ...) blocked it: said by the demo
    blocked = state.get(state.RACE_ERROR)
    state.put(
        state.RACE_DEMO_ERROR,
        (key, f"{str(blocked).rstrip('.')} (in Your race, below).") if blocked else None,
    )


def _pause() -> None:
    job = state.race()
    if job is not None:
        job.pause()


def _resume() -> None:
    job = state.race()
    if job is not None:
        job.resume()


def _stop() -> None:
    job = state.race()
    if job is not None:
        job.stop()
        job.join(30.0)


# ----- the page -------------------------------------------------------------------------------
SCROLL = "race_scroll"  # bring the results into view on the next full run (a race started)


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
    rows = _rows()
    for i in range(rows):
        _row(i, rows, running)
    st.button(
        "Add an algorithm",
        key="btn_race_add",
        icon=":material/add:",
        on_click=_add_row,
        disabled=running or rows >= MAX_ALGORITHMS,
    )
    _, errors = row_entries(rows)
    default = DEFAULT_TARGETS_TOY if choice.pot is None else DEFAULT_TARGETS_HOLDEM
    c = st.columns([1, 2, 1, 1.3], vertical_alignment="bottom")
    _, bad_iterations = number_field(
        ITERATIONS,
        state.COMPARE_ITERATIONS,
        container=c[0],
        disabled=running,
        show_error=False,
    )
    c[1].text_input(
        "Targets (chips" + (", or % of the pot" if choice.pot is not None else "") + ")",
        key=state.COMPARE_TARGETS,
        placeholder=f"default: {default}",
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
    _, target_error = chosen_targets(choice.pot)
    problems = [
        m
        for m in [*errors, bad_iterations, target_error, bad_workers, memory_error(choice, rows)]
        if m
    ]
    for msg in problems:
        st.error(msg, icon=":material/error:")
    _controls(job, not (problems or choice.error))
    if not from_demo:
        _results(running)


def _results(running: bool) -> None:
    """The live results (a fragment), and once after a start, a scroll that brings them
    into view."""
    job = state.race()
    workers = job.progress.workers if job is not None else 1
    with st.container(key="race_results"):
        live_view(live, running, redraw_every(workers))
    if state.get(SCROLL):
        state.put(SCROLL, False)
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
    current = ALGORITHMS[str(state.get(_algo_key(i)))]
    algo = c[0].selectbox(
        f"Algorithm {i + 1}",
        algorithm_names(),
        key=_algo_key(i),
        disabled=running,
        persist_state=PERSIST,
        help=f"{current.kind}: {current.description}",
    )
    info = ALGORITHMS[algo]
    defaults = algorithm_defaults(algo)
    if defaults:
        cols = c[1].columns([max(5, len(name)) for name in defaults])  # names on one line
        for col, (name, value) in zip(cols, defaults.items(), strict=True):
            key = _param_key(i, algo, name)
            if state.get(key) is None:
                state.put(key, param_text(value))
            col.text_input(name, key=key, disabled=running, persist_state=PERSIST)
    else:
        c[1].caption(f"{info.kind} · {info.description}")
    if state.get(_pruning_key(i)) not in info.prunings:  # the algorithm changed
        state.put(_pruning_key(i), info.prunings[0])
    options = [o for o in (len(info.prunings) > 1, info.sampling) if o]
    slots = c[2].columns(len(options)) if options else []
    k = 0
    if len(info.prunings) > 1:
        slots[k].selectbox(
            "Pruning",
            list(info.prunings),
            format_func=lambda m: PRUNING_LABELS.get(m, m),
            key=_pruning_key(i),
            disabled=running,
            help=PRUNING_HELP,
            persist_state=PERSIST,
        )
        k += 1
    if info.sampling:
        slots[k].text_input(
            "Seed",
            key=_seed_key(i),
            disabled=running,
            persist_state=PERSIST,
            help="fixes every random draw (a whole number ≥ 0)",
        )
    c[3].button(
        "",
        key=f"btn_race_remove_{i}",
        icon=":material/close:",
        help="remove this algorithm",
        on_click=_remove_row,
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
        c, "btn_race_", paused, running, _pause, _resume, _stop, state.get(state.RACE_ERROR)
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
    show_race(p)


def show_race(p: RaceProgress) -> None:
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
    st.plotly_chart(progress_figure(p, x_axis), key="race_chart", width="stretch")
    st.dataframe(display_rows(p), hide_index=True, key="race_table")
    with st.container(key="race_winners"):
        title = "Winners" if p.finished else "Leaders so far"
        st.markdown(
            f"**{title}** per target — fewest CPU seconds; fewest iterations (checks are at "
            "fixed iterations, so ties are listed):\n\n" + winners_markdown(p)
        )
    name = "".join(ch if ch.isalnum() else "-" for ch in game.lower()).strip("-") or "race"
    cols = st.columns(len(FORMATS))
    no_images = image_problem()
    for col, (fmt, (label, mime, suffix)) in zip(cols, FORMATS.items(), strict=True):
        col.download_button(
            label,
            data=functools.partial(export_bytes, p, fmt, x_axis, f"{game}: exploitability"),
            file_name=f"{name}-race-{suffix}",
            mime=mime,
            key=f"dl_race_{fmt}",
            on_click="ignore",
            disabled=bool(no_images) and fmt in ("png", "svg"),
            help=no_images if no_images and fmt in ("png", "svg") else None,
        )
