"""Node locking in Explore: "Lock this node" (a mix for the whole range; one action's
frequency shifted through the range in the solution's order, :mod:`app.features.shift_lock`;
a mix for picked grid cells / hand classes; an action painted on the 13×13 grid's cells,
:mod:`app.features.paint_lock`; or "as solved"), the
list of locks, markers for the breadcrumb and the tree, "Re-solve with locks" as the session's
background solve (warm from the current solve, or from scratch) with its live curve, and the
effect when it is done (:mod:`app.features.lock_effect`). Locks are checked by the solver's
own :func:`solver.lockspec.build_locks`: a bad one gets its message (line and hand), never a
traceback."""

from __future__ import annotations

import functools
from dataclasses import replace
from typing import Any

import numpy as np
import numpy.typing as npt
import streamlit as st

from app import nav, state
from app.components.colors import EMPTY
from app.components.fields import Number, show
from app.components.figures import curve_figure
from app.components.names import line as line_name
from app.components.names import player_name
from app.components.paint_canvas import LABELS, Cell, paint_canvas, stroke_of
from app.features import paint_lock, shift_lock
from app.features.controls import live_view
from app.features.lock_effect import LockRun, render_effect
from app.features.number_fields import number_field, read
from app.features.study_views import action_labels, node_action_evs
from app.jobs import stop_job
from app.runtime import start_solve
from app.state import Solved
from solver.games.model import DECISION, Game
from solver.lockspec import SOLVED, LockError, build_locks, line_text, parse_line
from solver.poker.handclass import DRAW_LABELS, MADE_LABELS
from solver.run.jobs import FINISHED, RUNNING, SolveJob
from solver.study.analysis import NodeAnalysis, cell_of_hands
from solver.study.groups import class_groups
from solver.study.lock_effect import locked_nodes, relock

Array = npt.NDArray[np.float64]
K = state.LOCK_PREFIX
LIVE_STATE = K + "live_state"  # the re-solve state the live view last drew for
WARM = "the current solve (warm)"
FRESH = "scratch"


# ----- which locks there are -----------------------------------------------------------------
def applied(solved: Solved | None) -> dict[str, Any]:
    """The locks of the current solve's engine (line text → mix as resolved)."""
    if solved is None:
        return {}
    engine = solved.job.engine if solved.job is not None else solved.engine
    lockset = engine.lockset if engine is not None else None
    return dict(lockset.spec) if lockset is not None else {}


def locks_label(game: Game, locks: dict[str, Any]) -> str:
    """A solve's locks in words: ``"locked: IP after check: …; …"``, or ``"no locks"``."""
    if not locks:
        return "no locks"
    return "locked: " + "; ".join(
        f"{line_name(game, n)}: {describe(game, n, locks[line])}"
        for n, line in locked_nodes(game, locks).items()
    )


def pending(game: Game) -> dict[str, Any]:
    """The locks the user has set for ``game`` (a new game starts with the current solve's)."""
    held = state.get(state.LOCKS)
    if held is None or held[0] != (game.name, game.num_nodes):
        held = ((game.name, game.num_nodes), applied(state.solved()))
        state.put(state.LOCKS, held)
    return dict(held[1])


def _set_pending(game: Game, locks: dict[str, Any]) -> None:
    state.put(state.LOCKS, ((game.name, game.num_nodes), dict(locks)))


def locked_ids(game: Game) -> dict[int, str]:
    """Node id → line of every node with a lock (set or in the current solve)."""
    return locked_nodes(game, {**applied(state.solved()), **pending(game)})


def crumb_icon(game: Game, node: int) -> str:
    """The breadcrumb's icon for ``node``: a lock where one is set."""
    if node in locked_ids(game):
        return ":material/lock:"
    return ":material/home:" if node == 0 else ":material/chevron_right:"


def overview_mark(game: Game, node: int) -> str:
    return "🔒 " if node in locked_ids(game) else ""


def describe(game: Game, node: int, mix: Any) -> str:
    """A lock's mix in words: ``Fold 70%, Call 30%``, ``AKs, top_pair: Bet 100 100%``."""

    def words(m: dict[str, float]) -> str:
        names = dict(zip(game.action_labels(node), action_labels(game, node), strict=True))
        return ", ".join(f"{names.get(a, a)} {100 * float(p):.0f}%" for a, p in m.items() if p)

    if isinstance(mix, dict) and mix and all(isinstance(v, dict) for v in mix.values()):
        if len(mix) > 6:
            return f"{len(mix)} hands with their own mixes (e.g. as solved)"
        return "; ".join(f"{k}: {words(v)}" for k, v in mix.items())
    return f"whole range: {words(mix)}" if isinstance(mix, dict) else str(mix)


# ----- the panel -------------------------------------------------------------------------------
def run_of(solved: Solved | None) -> LockRun | None:
    """The re-solve with locks that is the session's current solve, if any."""
    run = state.get(state.LOCK_RUN)
    if isinstance(run, LockRun) and solved is not None and solved.job is run.job:
        return run
    return None


def render(solved: Solved, a: NodeAnalysis) -> None:
    """The lock form at a decision node, the locks, Re-solve, its live curve and its effect."""

    game = solved.game
    locks = pending(game)
    line = line_text(game.history(a.node))
    err = state.get(state.LOCK_ERROR)
    if a.kind == DECISION:
        title = "Lock this node" + (" (locked)" if line in locks else "")
        with st.expander(title, icon=":material/lock:", expanded=line in locks or bool(err)):
            _form(game, a, line, locks)
    if err:
        st.error(err, icon=":material/error:")
    if locks:
        _list(game, locks, solved)
    run = run_of(solved)
    if run is not None:
        p = run.job.progress
        if not p.finished:
            live_view(_live, working=True)
        else:
            average, _ = run.job.average_strategy()
            render_effect(game, run, average, a.node)


def _form(game: Game, a: NodeAnalysis, line: str, locks: dict[str, Any]) -> None:
    assert a.frequencies is not None
    st.caption(
        "Locked hands play the mix you give them, as current and average strategy, and are "
        "never updated; everything else re-solves. Exploitability and EVs are then those of "
        "the **locked game** (a best response may not change a locked hand either): "
        "docs/locking.md."
    )
    node = a.node
    paints = [paint_lock.MODE] if game.is_holdem else []  # (toy games have no grid)
    mode = st.radio(
        "Lock",
        ["Whole range", shift_lock.MODE, *paints, "Picked hands", "As solved"],
        key=K + "mode",
        horizontal=True,
        help="Whole range: every hand plays the mix below. Shift the range: one action's "
        "frequency moves, hands taking it in the order the solution prefers it (highest EV "
        "gain first), so the range stays ranked. Paint the grid: cells painted with an "
        "action play it. Picked hands: a mix for hands, cells or classes. As solved: the "
        "solve's own strategy.",
    )
    names = action_labels(game, node)
    bad = False
    if mode == shift_lock.MODE:
        bad = shift_lock.fields(game, a, names, node_action_evs(game, node))
    elif mode == paint_lock.MODE:
        paint_lock.fields(game, a, names)
    elif mode != "As solved":
        if mode == "Picked hands":
            _pick(game, a)
        cols = st.columns(len(names))
        freqs = [round(100 * float(f), 1) for f in a.frequencies]
        freqs[-1] = round(100 - sum(freqs[:-1]), 1)
        for i, (col, name) in enumerate(zip(cols, names, strict=True)):
            key = f"{K}mix_{node}_{i}"
            if key not in st.session_state:
                st.session_state[key] = max(freqs[i], 0.0)
            # (a text field: what is typed is what is checked, never a stale value behind it)
            bad |= bool(number_field(_percent(name), key, container=col)[1])
    c = st.columns(3)
    c[0].button(
        "Lock as solved" if mode == "As solved" else "Lock",
        key=K + "add",
        type="primary",
        on_click=_add,
        args=(game, node, str(mode), names),
        disabled=bad,
        help="fix the fields above first" if bad else None,
    )
    if line in locks:
        c[1].button("Unlock this node", key=K + "unlock", on_click=_remove, args=(game, line))
        st.markdown(f"Locked: {describe(game, node, locks[line])}")


def _pick_options(game: Game, a: NodeAnalysis) -> list[str]:
    """What can be picked at the node: hold'em, the hand classes and grid cells that hold a
    hand the acting player brings there (a class with none would only be refused); toy
    games, the cards."""
    player = a.player
    reached = a.players[player].reach > 0
    if game.is_holdem:
        classes = [g.key for g in class_groups(game, a.node, player) if (g.mask & reached).any()]
        cells = set(cell_of_hands(game, player)[reached].tolist())
        return [*classes, *(LABELS[c] for c in range(169) if c in cells)]
    names = game.hand_names[player]
    ranks = sorted({n[:-1] for n in names if len(n) > 1}, key=lambda r: names.index(r + "s"))
    return [*names, *ranks] if all(r + "s" in names for r in ranks) else list(names)


def _pick_label(key: str) -> str:
    return MADE_LABELS.get(key) or DRAW_LABELS.get(key) or key


def _pick(game: Game, a: NodeAnalysis) -> None:
    """Which hands the mix is for: grid cells and hand classes (a multiselect; hold'em, a
    click or drag on the grid below it adds the cells under the brush)."""
    options = _pick_options(game, a)
    picked = [p for p in state.get(K + "pick") or [] if p in options]
    state.put(K + "pick", picked)  # (what another node offered and this one does not)
    st.multiselect(
        "Hands: grid cells (AKs, QQ, T9o), hand classes, or cards",
        options,
        format_func=_pick_label,
        key=K + "pick",
        placeholder="pick hands, or click or drag over the grid below",
        # typing AA finds AA, not every label with two a's in it; Enter picks one option
        filter_mode="contains",
        select_all=False,
    )
    if game.is_holdem:
        paint_canvas(
            pick_cells(set(state.get(K + "pick") or []), set(options)),
            key=K + "paint",
            on_stroke=functools.partial(_paint, options),
        )
        st.caption(
            "Click a cell, or drag over cells: the cells the pointer passes over join the "
            "picked hands (greyed: no hand of the player's here)."
        )


def pick_cells(picked: set[str], offered: set[str]) -> list[Cell]:
    """The pick grid's 169 cells (cell ``k`` is ``LABELS[k]``): picked cells red (state
    ``picked``), other cells on offer in the grid's pair/suited/offsuit tints (``free``),
    cells with no hand of the player's at the node greyed (``none``)."""
    out = []
    for k, label in enumerate(LABELS):
        i, j = divmod(k, 13)
        if label in picked:
            out.append(Cell("#d43d33", "#fff", f"{label}: picked", "picked"))
        elif label in offered:
            tint = "#fbe3c4" if i == j else ("#dbe9f7" if i < j else "#f4f4f4")
            out.append(Cell(tint, "#222", f"{label}: free", "free"))
        else:
            out.append(Cell(EMPTY, "#999", f"{label}: no hand here", "none"))
    return out


def _paint(options: list[str]) -> None:
    """A stroke on the pick grid ended: the cells under it that are on offer (``options``)
    join the picked hands, in the order the brush met them."""
    picked = list(state.get(K + "pick") or [])
    for label in stroke_of(state.get(K + "paint")):
        if label in options and label not in picked:
            picked.append(label)
    state.put(K + "pick", picked)


def _percent(name: str) -> Number:
    return Number(f"{name} %", 0.0, 100.0)


def _mix_from_fields(game: Game, node: int, names: list[str]) -> tuple[dict[str, float], str]:
    """The mix the fields at ``node`` give (action label → probability), or ({}, the first
    field's message) when one does not hold a percentage."""
    out = {}
    for i, (label, name) in enumerate(zip(game.action_labels(node), names, strict=True)):
        value, error = read(_percent(name), f"{K}mix_{node}_{i}")
        if error or value is None:
            return {}, error
        if value > 0:
            out[label] = value / 100.0
    return out, ""


def _add(game: Game, node: int, mode: str, names: list[str]) -> None:
    """Add (or change) the lock at ``node``; checked against the game with every other lock,
    so a bad one is refused with the solver's message. Nothing is recorded while a field
    does not hold a percentage."""
    state.put(state.LOCK_ERROR, None)
    mix: dict[str, float] = {}
    if mode in ("Whole range", "Picked hands"):
        mix, error = _mix_from_fields(game, node, names)
        if error:
            state.put(state.LOCK_ERROR, f"Not locked: {error}")
            return
    locks = pending(game)
    line = line_text(game.history(node))
    solved = state.solved()
    average = solved.average if solved is not None else None
    new: Any
    if mode == "As solved":
        try:
            new = build_locks(game, {line: SOLVED}, average).spec[line]
        except LockError as exc:
            state.put(state.LOCK_ERROR, f"Not locked: {_in_words(game, exc)}")
            return
    elif mode == shift_lock.MODE:
        if average is None:
            return
        new, error = shift_lock.lock_spec(game, average, node)
        if error:
            state.put(state.LOCK_ERROR, f"Not locked: {error}")
            return
    elif mode == paint_lock.MODE:
        new, error = paint_lock.lock_spec(game, node, locks.get(line))
        if error:
            state.put(state.LOCK_ERROR, f"Not locked: {line_name(game, node)}: {error}")
            return
    elif mode == "Picked hands":
        picks = list(state.get(K + "pick") or [])
        if not picks:
            where = line_name(game, node)
            state.put(state.LOCK_ERROR, f"Not locked: {where}: pick some hands first")
            return
        old = locks.get(line)
        keep = (
            old if isinstance(old, dict) and all(isinstance(v, dict) for v in old.values()) else {}
        )
        new = {**keep, **{k: dict(mix) for k in picks}}
    else:
        new = mix
    trial = {**locks, line: new}
    try:
        build_locks(game, trial, average)
    except LockError as exc:
        state.put(state.LOCK_ERROR, f"Not locked: {_in_words(game, exc)}")
        return
    _set_pending(game, trial)
    state.put(K + "pick", [])
    paint_lock.clear(game, node)


def _in_words(game: Game, exc: LockError) -> str:
    """A lock's message as the page says things: the line in words (not its codes) and hand
    classes by name (``'two_pair'`` → ``'Two pair'``)."""
    try:
        where = f"lock at {line_name(game, game.find(parse_line(exc.line)))}"
    except (KeyError, ValueError):  # (not a line of this game: as the solver says it)
        where = f"lock {exc.line!r}"
    if exc.hand:
        where += f", hand {exc.hand!r}"
    message = f"{where}: {exc.message}"
    for key, label in {**MADE_LABELS, **DRAW_LABELS}.items():
        message = message.replace(f"'{key}'", f"'{label}'")
    return message


def _remove(game: Game, line: str) -> None:
    locks = pending(game)
    locks.pop(line, None)
    _set_pending(game, locks)
    state.put(state.LOCK_ERROR, None)


def _clear(game: Game) -> None:
    _set_pending(game, {})
    state.put(state.LOCK_ERROR, None)


def _list(game: Game, locks: dict[str, Any], solved: Solved) -> None:
    """The locks, each with its status and a remove button; Re-solve with locks."""
    st.markdown("**Locks**")
    now = applied(solved)
    nodes = {v: k for k, v in locked_nodes(game, locks).items()}
    for i, (line, mix) in enumerate(locks.items()):
        node = nodes.get(line)
        c = st.columns([6, 1])
        status = "in the current solve" if now.get(line) == mix else "re-solve to apply"
        who = player_name(game, int(game.tree.player[node])) if node is not None else "?"
        what = describe(game, node, mix) if node is not None else str(mix)
        where = line_name(game, node) if node is not None else line
        c[0].markdown(f":material/lock: {where} — {who}: {what} · *{status}*")
        c[1].button("Remove", key=f"{K}rm_{i}", on_click=_remove, args=(game, line))
    job = solved.job
    unit, per_chip = _target_unit(game)
    # the fields start from this solve's own target and limit, again for each new solve
    if state.get(K + "defaults_of") != _identity(solved) or state.get(K + "target") is None:
        target, limit = own_limits(solved)
        state.put(K + "target", show(target * per_chip if target else 0))
        state.put(K + "iterations", str(limit))
        state.put(K + "defaults_of", _identity(solved))
    c = st.columns([2, 1.2, 1, 1.2])
    c[0].radio("Start from", [WARM, FRESH], key=K + "from", horizontal=True)
    # the Solve page's unit (% pot on hold'em, chips on the toy games), checked as typed
    bad = bool(number_field(_target_field(unit), K + "target", container=c[1])[1])
    bad |= bool(number_field(ITERATIONS_FIELD, K + "iterations", container=c[2])[1])
    running = job is not None and job.alive
    c[3].button(
        "Re-solve with locks",
        key=K + "resolve",
        type="primary",
        on_click=_resolve,
        help="stops the current solve and runs the locked game in the background",
        width="stretch",
        disabled=bad,
    )
    c[3].button("Clear all locks", key=K + "clear", on_click=_clear, args=(game,), disabled=running)


ITERATIONS_FIELD = Number("Max iterations", 1, 10_000_000, whole=True)
DEFAULT_ITERATIONS = 100_000  # a loaded save that kept no iteration limit


def own_limits(solved: Solved) -> tuple[float | None, int]:
    """The solve's own target (chips; None when it had none) and iteration limit: its job's,
    or what a loaded save kept of its settings (:func:`app.screens.export.solve_settings`:
    ``target_chips``, ``max_iterations``) — never the exploitability it happened to reach."""
    if solved.job is not None:
        return solved.job.target or None, int(solved.job.max_iterations)
    loaded = state.get(state.LOADED)
    meta = getattr(loaded, "meta", None)
    saved = meta.get("settings") if isinstance(meta, dict) else None
    saved = saved if isinstance(saved, dict) else {}
    raw, limit = saved.get("target_chips"), saved.get("max_iterations")
    target: float | None = None
    if isinstance(raw, (int, float)) and not isinstance(raw, bool) and 0 < raw < float("inf"):
        target = float(raw)
    if isinstance(limit, int) and not isinstance(limit, bool) and 1 <= limit <= 10_000_000:
        return target, limit
    return target, DEFAULT_ITERATIONS


def _identity(solved: Solved) -> int:
    """Which solve the re-solve fields were filled for (its job, else the loaded save)."""
    return id(solved.job) if solved.job is not None else id(state.get(state.LOADED))


def _target_unit(game: Game) -> tuple[str, float]:
    """The re-solve target's unit as the Solve page uses it, and its units per chip."""
    if game.is_holdem:
        return "% pot", 100.0 / game.starting_pot
    return "chips", 1.0


def _target_field(unit: str) -> Number:
    return Number(f"Target ({unit}, 0 = none)", 0.0, 100.0 if unit == "% pot" else 1e9)


def _adopt(job: SolveJob, source: dict, spec: Any) -> None:
    """Make ``job`` the session's solve, as the Solve page's Solve does (registered with a
    token, so a reloaded page reattaches to it), and start it."""
    state.put(state.LOADED, None)
    state.put(state.LIVE_LAST_STATE, RUNNING)
    state.put(LIVE_STATE, RUNNING)
    game_id = str(state.get(state.JOB_GAME_ID) or "")
    label = str(state.get(state.JOB_LABEL) or job.game.name)
    start_solve(job, source, spec, game_id, label.removesuffix(" (locked)") + " (locked)")


def _resolve() -> None:
    """Stop the current solve; run its game with the locks, warm from it or from scratch."""
    state.put(state.LOCK_ERROR, None)
    solved = state.solved()
    if solved is None:
        return
    game = solved.game
    locks = pending(game)
    if not locks:
        state.put(state.LOCK_ERROR, "Lock a node first.")
        return
    job = solved.job
    if job is not None and job.alive:
        stop_job(job)
    old = job.engine if job is not None else solved.engine
    if old is None:
        return
    current = np.array(old.average_strategy())
    current.flags.writeable = False
    history = job.progress.history if job is not None else solved.history
    warm = state.get(K + "from", WARM) == WARM
    unit, per_chip = _target_unit(game)
    target, bad_target = read(_target_field(unit), K + "target")
    iterations, bad_iterations = read(ITERATIONS_FIELD, K + "iterations")
    if bad_target or bad_iterations or target is None or iterations is None:
        state.put(state.LOCK_ERROR, f"Cannot re-solve: {bad_target or bad_iterations}")
        return
    try:
        engine = relock(old, locks, warm=warm, average=current)
        new = SolveJob(
            engine.game,
            engine.rule,
            engine=engine,
            target=target / per_chip if target > 0 else None,
            max_iterations=int(iterations),
            watch=state.watched_node(game),
        )
    except (LockError, ValueError, MemoryError) as exc:
        state.put(state.LOCK_ERROR, f"Cannot re-solve: {exc}")
        return
    expl = history[-1].exploitability if history else None
    prev = run_of(solved)
    had = applied(solved)
    if prev is not None and had == locks:
        # the current solve already had these locks: the baseline stays the one before them
        run = replace(prev, job=new, locks=dict(locks), warm=warm)
    else:
        run = LockRun(new, current, int(old.iteration), expl, dict(locks), warm, dict(had),
                      locks_label(game, had))  # fmt: skip
    _adopt(new, solved.source, solved.holdem)
    state.put(state.LOCK_RUN, run)


def _stop(job: SolveJob) -> None:
    stop_job(job)


def _live() -> None:
    """The re-solve's live curve (a fragment while it runs; one full rerun when it ends)."""
    run = run_of(state.solved())
    if run is None:
        return
    job = run.job
    p = job.progress
    if p.finished and state.get(LIVE_STATE) not in FINISHED:
        state.put(LIVE_STATE, p.state)
        st.rerun()
    state.put(LIVE_STATE, p.state)
    game = job.game
    holdem = game.is_holdem
    unit, scale = ("% pot", 100.0 / game.starting_pot) if holdem else ("chips", 1.0)
    expl = "—" if p.exploitability is None else f"{p.exploitability * scale:.4g} {unit}"
    st.markdown(
        f"**Re-solving with locks** (from {'the current solve' if run.warm else 'scratch'}) · "
        f"iteration {p.iteration:,} · exploitability in the locked game {expl}"
    )
    st.plotly_chart(
        curve_figure(p.history, "iterations", job.target, unit=unit, scale=scale),
        key="lock_curve",
        width="stretch",
    )
    c = st.columns([1, 3])
    c[0].button("Stop the re-solve", key=K + "stop", on_click=functools.partial(_stop, job))
    with c[1]:
        nav.link("solve", "The full live view is on the Solve page", ":material/play_arrow:")
