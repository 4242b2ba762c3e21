"""Solve: algorithm (full-width CFR rules and Monte Carlo CFR) with its parameters, pruning,
seed, target and limits, Start / Pause / Resume / Stop, and the live view (exploitability
curve by iterations, seconds or nodes touched, the memory held — as a curve for regret-based
pruning runs —, numbers, the watched node's strategy) refreshed twice a second by a fragment
while the solve runs in its background thread."""

from __future__ import annotations

import math
import os
from dataclasses import dataclass, field

import streamlit as st

from app import nav, state
from app import spec as S
from app.components.controls import live_view, pause_resume_stop
from app.components.figures import CURVE_X, curve_figure, human_bytes, memory_figure
from app.components.views import card_table, grid_figure, node_reach
from app.runtime import start
from app.screens.setup import Request, current_request
from solver.algorithms import ALGORITHMS, algorithm_defaults, default_algorithm, make_algorithm
from solver.analysis import investments
from solver.cfr.options import check_options, sentence
from solver.games.model import DECISION, Game
from solver.jobs import FINISHED, PAUSED, RUNNING, Point, Progress, SolveJob, estimate_eta

PRECISIONS = {
    "auto": "auto (float32 for hold'em, float64 for toy games)",
    "float64": "float64",
    "float32": "float32 (half the memory)",
    "compressed": "16-bit compressed (quarter)",
}
LAST_STATE = "live_last_state"  # the job state the page last drew its buttons for
RBP = ("interval", "total")  # pruning modes that need one thread and float32/float64 storage
PRUNING_LABELS = {
    "partial": "partial (exact)",
    "none": "none",
    "interval": "interval RBP",
    "total": "Total RBP",
}
PRUNING_HELP = (
    "**partial** (the default): skip the subtrees the opponent reaches with probability 0 — "
    "the same numbers as none, less work. **none**: walk every subtree. **interval RBP** "
    "(CFR; Brown & Sandholm 2015): also skip actions whose regret is negative for as long as "
    "a bound proves they stay unplayed, then catch them up exactly. **Total RBP** (CFR, CFR+; "
    "Brown & Sandholm 2017): prune actions that are no best response at a check; their "
    "subtrees' regrets are not needed while pruned (rebuilt when pruning ends), so the memory "
    "needed falls (a count: the arrays stay allocated). Interval and "
    "Total RBP run on one thread with float32/float64 storage."
)
DEFAULT_RBP_CHECK_EVERY = 10
DEFAULT_SEED = 0


def first_decision(game: Game) -> int:
    return int(game.decision_nodes()[0])


def watched_node(game: Game) -> int:
    n = state.get(state.EXPLORE_NODE)
    if isinstance(n, int) and 0 <= n < game.num_nodes and game.tree.kind[n] == DECISION:
        return n
    return first_decision(game)


def algorithm_names() -> list[str]:
    """Every algorithm of :data:`solver.algorithms.ALGORITHMS`: full-width first, then
    sampling (registry order within each kind)."""
    return [n for n, i in ALGORITHMS.items() if not i.sampling] + [
        n for n, i in ALGORITHMS.items() if i.sampling
    ]


def _params(algo: str) -> dict[str, float]:
    out = {}
    defaults = algorithm_defaults(algo)
    for name in defaults:
        key = f"{state.PARAM_PREFIX}{algo}_{name}"
        out[name] = float(state.get(key, defaults[name]))
    return out


@dataclass(frozen=True)
class Settings:
    """The solver settings the page's widgets hold, read and checked by the solver's own
    validator (:func:`solver.cfr.options.check_options`). ``errors`` maps a field (a
    parameter's name, "seed", "rbp_check_every", "rbp_threshold", "precision", …) to the
    message shown next to it; Solve stays disabled while there is any. ``threads`` is what
    the solve gets (1 when ``one_thread`` says why)."""

    algorithm: str
    params: dict[str, float]
    pruning: str
    seed: int
    threads: int
    precision: str
    rbp_check_every: int
    rbp_threshold: float
    one_thread: str = ""  # why the solve runs on one thread whatever the Threads field says
    rbp_free_opponent: bool = False
    errors: dict[str, str] = field(default_factory=dict)


def whole_if_integral(value: object) -> object:
    """A number field's value as the validator reads it: 3.0 (how a number field may hold
    3) is the whole number 3; anything else as it is."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def settings() -> Settings:
    """The solver settings from the session state (defaults where a field is not drawn yet),
    with every problem in ``errors``: a parameter's message as the validator words it (the
    field is labelled with the parameter's name), the others as sentences. Fields the chosen
    algorithm and pruning do not use keep what was typed in them, unchecked."""
    algo = str(state.get(state.ALGORITHM))
    if algo not in ALGORITHMS:
        algo = default_algorithm(current_request().spec is not None)
    info = ALGORITHMS[algo]
    params = _params(algo)
    pruning = str(state.get(state.PRUNING))
    if pruning not in info.prunings:
        pruning = info.prunings[0]
    seed = state.get(state.SEED, DEFAULT_SEED) if info.sampling else DEFAULT_SEED
    every = (
        state.get(state.RBP_CHECK_EVERY, DEFAULT_RBP_CHECK_EVERY)
        if pruning in RBP
        else DEFAULT_RBP_CHECK_EVERY
    )
    threshold = state.get(state.RBP_THRESHOLD, 0.0) if pruning == "total" else 0.0
    free = pruning == "total" and bool(state.get(state.RBP_FREE_OPPONENT, False))
    precision = str(state.get(state.PRECISION) or "auto")
    one_thread = ""
    if info.sampling:
        one_thread = "sampling algorithms run on one thread"
    elif pruning in RBP:
        one_thread = f"{PRUNING_LABELS[pruning]} runs on one thread"
    threads = 1 if one_thread else int(state.get(state.THREADS) or 1)
    errors = check_options(
        algo,
        params,
        threads=threads,
        precision=precision,
        pruning=pruning,
        seed=whole_if_integral(seed),
        rbp_check_every=whole_if_integral(every),
        rbp_threshold=threshold,
        rbp_free_opponent=free,
    )
    return Settings(
        algo,
        params,
        pruning,
        int(seed) if "seed" not in errors else DEFAULT_SEED,
        threads,
        precision,
        int(every) if "rbp_check_every" not in errors else DEFAULT_RBP_CHECK_EVERY,
        float(threshold) if "rbp_threshold" not in errors else 0.0,
        one_thread,
        free,
        {k: v if k in params else sentence(v) for k, v in errors.items()},
    )


def render() -> None:
    req = current_request()
    st.title("Solve")
    _summary(req)
    job = state.job()
    running = job is not None and not job.progress.finished
    names = algorithm_names()
    if state.get(state.ALGORITHM) not in ALGORITHMS:  # nothing chosen yet: the game's default
        state.put(state.ALGORITHM, default_algorithm(req.spec is not None))
    c = st.columns([1, 2])
    with c[0]:
        algo = st.selectbox("Algorithm", names, key=state.ALGORITHM, disabled=running)
    info = ALGORITHMS[algo]
    with c[1]:
        st.markdown(f"**{info.kind}** · {info.description}  \n*{info.paper}*")
    defaults = algorithm_defaults(algo)
    if defaults:
        cols = st.columns(len(defaults))
        for col, (name, value) in zip(cols, defaults.items(), strict=True):
            key = f"{state.PARAM_PREFIX}{algo}_{name}"
            if key not in st.session_state:  # exactly, inf and -inf too (DCFR's β = −∞)
                st.session_state[key] = value
            col.number_input(name, key=key, format="%g", disabled=running)
    _solver_options(algo, running)
    cfg = settings()
    for name in defaults:
        if name in cfg.errors:
            st.error(cfg.errors[name], icon=":material/error:")
    holdem = req.spec is not None
    units = ["% pot", "chips"] if holdem else ["chips"]
    if state.get(state.TARGET_UNIT) not in units:
        state.put(state.TARGET_UNIT, units[0])
        state.put(state.TARGET, 0.3 if holdem else 0.001)
    if state.get(state.MAX_ITERATIONS) is None:
        state.put(state.MAX_ITERATIONS, 100_000)
    if state.get(state.THREADS) is None:
        state.put(state.THREADS, 1)
    c = st.columns([1.2, 1, 1, 0.8, 1.2])
    c[0].number_input(
        "Target exploitability (0 = none)",
        min_value=0.0,
        format="%g",
        key=state.TARGET,
        disabled=running,
    )
    c[1].radio("Unit", units, key=state.TARGET_UNIT, horizontal=True, disabled=running)
    c[2].number_input(
        "Max iterations", min_value=1, step=1000, key=state.MAX_ITERATIONS, disabled=running
    )
    with c[3]:
        if cfg.one_thread:  # the Threads field keeps its value for the next full-width solve
            st.number_input(
                "Threads",
                value=1,
                key=state.THREADS_ONE,
                disabled=True,
                help="solver threads per pass",
            )
            st.caption(f"1 thread: {cfg.one_thread}.")
        else:
            st.number_input(
                "Threads",
                min_value=1,
                max_value=max(os.cpu_count() or 1, 1),
                step=1,
                key=state.THREADS,
                disabled=running,
                help="solver threads per pass (hold'em spots with cards still to come split best)",
            )
    if state.get(state.PRECISION) not in PRECISIONS:
        state.put(state.PRECISION, "auto")
    with c[4]:
        st.selectbox(
            "Storage",
            list(PRECISIONS),
            format_func=lambda k: PRECISIONS[k],
            key=state.PRECISION,
            disabled=running,
        )
        if "precision" in cfg.errors:
            st.error(cfg.errors["precision"], icon=":material/error:")
    _controls(req, job, cfg)
    live_view(live, running)


def _solver_options(algo: str, running: bool) -> None:
    """Pruning (the algorithm's modes only), the seed of a sampling algorithm, and the RBP
    settings of interval/Total RBP, each with its error underneath."""
    info = ALGORITHMS[algo]
    if state.get(state.PRUNING) not in info.prunings:
        state.put(state.PRUNING, info.prunings[0])
    for key, default in (
        (state.SEED, DEFAULT_SEED),
        (state.RBP_CHECK_EVERY, DEFAULT_RBP_CHECK_EVERY),
        (state.RBP_THRESHOLD, 0.0),
        (state.RBP_FREE_OPPONENT, False),
    ):
        if state.get(key) is None:
            state.put(key, default)
    pruning = str(state.get(state.PRUNING))
    cfg = settings()
    c = st.columns(4)
    with c[0]:
        st.selectbox(
            "Pruning",
            list(info.prunings),
            format_func=lambda k: PRUNING_LABELS.get(k, k),
            key=state.PRUNING,
            disabled=running or len(info.prunings) == 1,
            help=PRUNING_HELP,
        )
    if info.sampling:
        with c[1]:
            _number_field(
                "Seed", state.SEED, "seed", cfg, running, "%d",
                "fixes every random draw: the same seed repeats the solve exactly "
                "(a whole number ≥ 0)",
            )  # fmt: skip
    if pruning in RBP:
        with c[2]:
            _number_field(
                "RBP: check every (iterations)", state.RBP_CHECK_EVERY, "rbp_check_every", cfg,
                running, "%d",
                "Total RBP: iterations between prune checks (each check costs a best-response "
                "pass per player, counted in nodes touched: 10 suits short solves, 100 long "
                "runs on small games). Interval RBP: an action is pruned only while the bound "
                "holds for at least this many iterations.",
            )  # fmt: skip
    if pruning == "total":
        with c[3]:
            _number_field(
                "RBP: threshold C", state.RBP_THRESHOLD, "rbp_threshold", cfg, running, "%g",
                "Total RBP releases the strategy sums of a pruned action once its average "
                "reach is below C/√T (T: iterations); 0 keeps every sum. C > 0 trades "
                "accuracy for space with CFR+ and stalls plain CFR (the prune checks see the "
                "released average).",
            )  # fmt: skip
            st.checkbox(
                "RBP: free opponent regrets",
                key=state.RBP_FREE_OPPONENT,
                disabled=running,
                help="Also free the other player's regrets at the nodes the pruning player "
                "never reaches while pruned, rebuilt from a best response when it comes back "
                "(our extension of Total RBP): far less memory, slower convergence — after "
                "10,000 Leduc-5 iterations CFR holds 8 % of its regrets instead of 40 % at "
                "2.4× the exploitability, CFR+ 6 % instead of 38 % (BENCHMARKS.md).",
            )


def _number_field(
    label: str, key: str, error: str, cfg: Settings, running: bool, fmt: str, help_text: str
) -> None:
    """A solver-setting number field (whole numbers step 1) and its error under it."""
    st.number_input(
        label,
        step=1 if fmt == "%d" else None,
        format=fmt,
        key=key,
        disabled=running,
        help=help_text,
    )
    if error in cfg.errors:
        st.error(cfg.errors[error], icon=":material/error:")


def _summary(req: Request) -> None:
    line = f"**Game:** {req.label}"
    if req.spec is not None:
        line += f" — board {req.spec.board}, pot {req.spec.pot:g}, stack {req.spec.stack:g}"
    if req.estimate is not None:
        line += f" · {req.estimate.nodes:,} nodes, {req.estimate.memory_mb:,.1f} MB"
    st.markdown(line)
    if req.errors:
        st.error(
            "The set-up has errors: "
            + "; ".join(f"{k}: {v}" for k, v in req.errors.items())
            + ". Fix them on the Set up page.",
            icon=":material/error:",
        )
    nav.link("setup", "Change the game in Set up", ":material/tune:")


def _target_chips(game: Game) -> float | None:
    value = float(state.get(state.TARGET) or 0.0)
    if value <= 0:
        return None
    if state.get(state.TARGET_UNIT) == "% pot" and game.is_holdem:
        return value * game.starting_pot / 100.0
    return value


START_ERROR = "solve_start_error"


def _controls(req: Request, job: SolveJob | None, cfg: Settings) -> None:
    """The control buttons; their work happens in callbacks, before the page redraws."""
    p = job.progress if job is not None else None
    running = p is not None and not p.finished
    c = st.columns(4)
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
    paused = p is not None and p.state == PAUSED
    pause_resume_stop(c, "btn_", paused, running, _pause, _resume, _stop, state.get(START_ERROR))


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
    job = state.job()
    if job is not None:
        job.stop()
        job.join(30.0)


def _start(req: Request) -> None:
    state.put(START_ERROR, None)
    cfg = settings()
    if cfg.errors:
        state.put(START_ERROR, "Cannot start: " + "; ".join(cfg.errors.values()))
        return
    old = state.job()
    if old is not None:
        old.stop()
        old.join(30.0)
    if req.source is None:
        return
    try:
        game = S.build_game(req.source)
        rule = make_algorithm(cfg.algorithm, **cfg.params)
    except ValueError as exc:
        state.put(START_ERROR, f"Cannot start: {exc}")
        return
    node = watched_node(game)
    if old is None or old.game is not game:
        node = first_decision(game)
        state.put(state.EXPLORE_NODE, node)
    try:
        job = SolveJob(
            game,
            rule,
            target=_target_chips(game),
            max_iterations=int(state.get(state.MAX_ITERATIONS) or 100_000),
            watch=node,
            threads=cfg.threads,
            precision=cfg.precision,
            pruning=cfg.pruning,
            seed=cfg.seed,
            rbp_check_every=cfg.rbp_check_every,
            rbp_threshold=cfg.rbp_threshold,
            rbp_free_opponent=cfg.rbp_free_opponent,
        )
    except (ValueError, MemoryError) as exc:
        state.put(START_ERROR, f"Cannot start: {exc}")
        return
    state.put(state.JOB, job)
    state.put(state.JOB_SOURCE, req.source)
    state.put(state.JOB_SPEC, req.spec)
    state.put(state.LOADED, None)
    state.put(LAST_STATE, RUNNING)
    start(job)


def _fmt_time(s: float | None) -> str:
    if s is None or not math.isfinite(s):
        return "—"
    if s < 60:
        return f"{s:.1f} s"
    if s < 3600:
        return f"{int(s // 60)} min {int(s % 60)} s"
    return f"{s / 3600:.1f} h"


def _num(x: float | None, fmt: str) -> str:
    return "—" if x is None or not math.isfinite(x) else format(x, fmt)


def live() -> None:
    """The live view, drawn as a fragment by ``live_view``: only it reruns while the job works."""
    job = state.job()
    if job is None:
        st.info("Press **Solve** to start. The curve and the strategy update live.")
        return
    p = job.progress
    if p.finished and state.get(LAST_STATE) not in FINISHED:
        state.put(LAST_STATE, p.state)
        st.rerun()  # whole page: flip the buttons once
    state.put(LAST_STATE, p.state)
    show_progress(job, p)


def run_label(job: SolveJob) -> str:
    """The algorithm with its parameters, and its pruning and seed where it has a choice."""
    parts = [job.rule.label()]
    info = ALGORITHMS.get(job.rule.name)
    pruning = getattr(job.engine, "pruning", None)
    if info is not None and pruning and len(info.prunings) > 1:
        parts.append(f"{PRUNING_LABELS.get(pruning, pruning)} pruning")
    if info is not None and info.sampling:
        parts.append(f"seed {getattr(job.engine, 'seed', 0)}")
    return " · ".join(parts)


def memory_held(p: Progress) -> int:
    """Bytes the solve holds now (the last check's figure before the first chunk ends; 0 when
    unknown)."""
    if p.memory_bytes > 0:
        return p.memory_bytes
    return p.history[-1].memory_bytes if p.history else 0


def memory_change(history: tuple[Point, ...]) -> str:
    """The memory held at the first and the last check with the change in %, e.g.
    ``36.09 KB → 35.62 KB (−1.3 %)``; "" without two figures."""
    pts = [q for q in history if q.memory_bytes > 0]
    if len(pts) < 2:
        return ""
    a, b = pts[0].memory_bytes, pts[-1].memory_bytes
    pct = 100.0 * (b - a) / a
    return f"{human_bytes(a)} → {human_bytes(b)} ({pct:+.1f} %)".replace("-", "−")


def show_progress(job: SolveJob, p: Progress) -> None:
    game = job.game
    status = {
        RUNNING: "Running",
        PAUSED: "Paused",
        "done": f"Done ({'target reached' if p.stopped_by == 'target' else 'iteration limit'})",
        "stopped": "Stopped",
        "failed": "Failed",
        "ready": "Starting",
    }.get(p.state, p.state)
    st.markdown(f"**{status}** · {run_label(job)}", help="state of the background solve")
    if p.error:
        st.error(p.error)
    eta = estimate_eta(p.history, job.target) if not p.finished else None
    m = st.columns(4)
    m[0].metric("Iteration", f"{p.iteration:,}")
    m[1].metric("Iterations/s", _num(p.iterations_per_s, ",.0f"))
    m[2].metric("Elapsed", _fmt_time(p.elapsed_s))
    if not job.target:
        to_target = "no target"
    elif p.finished and p.stopped_by == "target":
        to_target = "reached"
    else:
        to_target = _fmt_time(eta)  # "—" when there is no estimate (or the run ended short)
    m[3].metric("Time to target", to_target)
    n = st.columns(5)
    n[0].metric("Exploitability (chips)", _num(p.exploitability, ".4g"))
    n[1].metric("% pot", _num(p.pct_pot, ".4g"))
    n[2].metric("mbb/hand", _num(p.mbb, ".4g"))
    n[3].metric("Nodes touched", f"{p.nodes_touched:,}")
    held = memory_held(p)
    n[4].metric(
        "Memory",
        human_bytes(held) if held > 0 else "—",
        help="what the solve needs: regrets, strategy sums and buffers. With Total RBP the "
        "regrets below pruned actions are not counted while pruned (they are rebuilt when "
        "the action returns); the arrays themselves stay allocated",
    )
    holdem = game.is_holdem
    c = st.columns([3, 2])
    with c[0]:
        if state.get(state.X_AXIS) not in CURVE_X:
            state.put(state.X_AXIS, CURVE_X[0])
        x_axis = st.radio("x axis", list(CURVE_X), key=state.X_AXIS, horizontal=True)
        unit, scale = ("% pot", 100.0 / game.starting_pot) if holdem else ("chips", 1.0)
        fig = curve_figure(p.history, x_axis, job.target, unit=unit, scale=scale)
        st.plotly_chart(fig, key="live_curve", width="stretch")
        if getattr(job.engine, "pruning", "") in RBP:
            change = memory_change(p.history)
            st.markdown(
                "**Memory held** at each check" + (f": {change}" if change else ""),
                help="regrets and strategy sums the solve still needs, plus the pruning "
                "bookkeeping (the axis is fitted to the data, not from zero)",
            )
            st.plotly_chart(memory_figure(p.history, x_axis), key="live_memory", width="stretch")
    with c[1]:
        node = p.watched_node
        strat = p.watched_strategy
        if strat is None:
            st.caption("waiting for the first strategy…")
            return
        hist = " ".join(game.history(node)) or "root"
        who = "OOP" if int(game.tree.player[node]) == 0 else "IP"
        if not holdem:
            who = f"player {int(game.tree.player[node])}"
        st.markdown(f"**Live strategy** — {who} at `{hist}` (iteration {p.watched_iteration:,})")
        reach = node_reach(game, node, p.average)[int(game.tree.player[node])]
        if holdem:
            pot = investments(game, node)[0]
            fig = grid_figure(game, node, strat, reach, pot=pot)
            fig.update_layout(height=430)
            st.plotly_chart(fig, key="live_grid", width="stretch")
        else:
            st.dataframe(card_table(game, node, strat, reach), hide_index=True, key="live_table")
