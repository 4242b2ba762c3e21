"""The Solve page on a three-player game (``kuhn3``, ``leduc3``, or Set up's three-way river
or turn spot, :mod:`app.features.river3_form`; docs/multiway.md): its settings, the Locks
expander (:mod:`app.features.multi_locks`), Solve / Pause / Stop, and the live view — one
Nash-distance curve per player and NashConv, never a two-player exploitability — over a
background
:class:`~solver.run.multi_job.MultiSolveJob`. Also the note a heads-up-only page shows when
Set up holds a three-player game.

The page shows the three-player view while such a solve runs, or when Set up holds a
three-player game and no heads-up solve runs (:func:`wanted`)."""

from __future__ import annotations

import functools
from typing import Any

import streamlit as st

from app import nav, state
from app import spec as S
from app.components.multi_figures import MULTI_X, curve_names, nash_figure, player_label
from app.features import multi_locks, multi_reload, river3_form
from app.features.controls import live_view, pause_resume_stop
from app.jobs import stop_job
from solver.cfr.multi_solve import ES, MULTI_DEFAULT_ALGORITHM
from solver.cfr.river3_view import River3Game
from solver.cfr.rules import RULES
from solver.games.multiway import MultiGame, multi_game
from solver.games.spec import SpecError
from solver.run.jobs import FINISHED, PAUSED
from solver.run.multi_job import MultiSolveJob

ALGORITHMS = (*RULES, ES)
CAPTION = (
    "Each player's **Nash distance** is what that player would gain by its best deviation "
    "while the other two keep their strategies; NashConv is their sum, and 0 means a Nash "
    "equilibrium. With three players CFR carries no guarantee: its average need not "
    "converge to an equilibrium, and curves may level off above zero (docs/multiway.md, "
    "*What is true in three-player games*)."
)
HEADS_UP_ONLY = (
    "{what} is heads-up only: Set up holds {game}, a three-player game. Three-player games "
    "are solved, explored and exported on the Solve, Explore and Export pages "
    "(docs/multiway.md)."
)


@functools.cache
def game(name: str) -> MultiGame:
    """The three-player game ``name`` (built once per server: small, and never changed)."""
    return multi_game(name)


def job() -> MultiSolveJob | None:
    """The session's three-player solve (None: none, or released with its session)."""
    j = state.get(state.MULTI_JOB)
    return j if isinstance(j, MultiSolveJob) and not j.released else None


def setup_game() -> str | None:
    """The three-player game Set up holds (``kuhn3``, ``leduc3``, or ``river3``: the
    hold'em form with 3 players), or None."""
    if river3_form.active():
        return river3_form.NAME
    return S.multi_name(state.get(state.SOURCE))


def label(name: str) -> str:
    """How the pages name the three-player game ``name``."""
    return river3_form.label() if name == river3_form.NAME else S.MULTI_LABELS[name]


def algorithms(name: str | None) -> tuple[str, ...]:
    """The algorithms offered on ``name``: a river spot takes the full-width rules only."""
    return tuple(RULES) if name == river3_form.NAME else ALGORITHMS


def wanted(heads_up_busy: bool) -> bool:
    """Whether the Solve page shows the three-player view: a three-player solve runs, or Set
    up holds a three-player game and no heads-up solve runs or is starting. (First, a
    reloaded page takes its three-player solve back: :func:`multi_reload.reattach`.)"""
    multi_reload.reattach()
    j = job()
    if j is not None and not j.progress.finished:
        return True
    return not heads_up_busy and setup_game() is not None


def heads_up_only(what: str) -> bool:
    """On a heads-up-only page (``what``: "The trainer", …): a note when Set up holds a
    three-player game; True when it did."""
    name = setup_game()
    if name is None:
        return False
    st.info(HEADS_UP_ONLY.format(what=what, game=label(name)), icon=":material/group:")
    return True


# ----- the page --------------------------------------------------------------------------------
def render() -> None:
    """The Solve page for a three-player game."""
    j = job()
    drawn = j.progress.state if j is not None else None
    running = drawn is not None and drawn not in FINISHED
    state.put(state.MULTI_LAST_STATE, drawn)
    st.title("Solve")
    ended = state.get(multi_reload.ENDED)
    if ended:
        st.info(str(ended), icon=":material/info:")
    shown = state.get(state.MULTI_GAME) if running else setup_game()
    if shown is None:  # (a heads-up game on Set up, no three-player solve running)
        return
    g = j.mgame if running and j is not None else None  # (a running spot: its own name)
    name = river3_form.game_label(g) if isinstance(g, River3Game) else label(shown)
    st.markdown(f"**Game:** {name}" + (" — solving" if running else ""))
    if running and setup_game() != shown:
        st.info(
            "Set up now holds another game; it opens here once this solve stops.",
            icon=":material/info:",
        )
    if shown == river3_form.NAME:
        _river3_summary(running)
    _settings(running, shown)
    if shown == river3_form.NAME:
        _spot_locks(running)
    else:
        multi_locks.render(shown, game(shown), running, _last_profile(shown))
    bad_spot = shown == river3_form.NAME and not running and not river3_form.read().valid
    cols = st.columns([1, 1, 1, 3])
    cols[0].button(
        "Solve",
        key="multi_start",
        type="primary",
        disabled=running or bad_spot,  # (a bad river spot: fixed on Set up first)
        on_click=_start,
        width="stretch",
    )
    pause_resume_stop(
        cols,
        "multi_",
        drawn == PAUSED,
        running,
        _pause,
        _resume,
        _stop,
        state.get(state.MULTI_ERROR),
    )
    st.caption(
        "The trainer, Compare's races, reports, bet-size simplification and exploits are "
        "heads-up only (three-player races: `python -m solver race --game kuhn3`)."
    )
    live_view(live, running)


def _river3_summary(running: bool) -> None:
    """The spot the page solves: the running job's, else Set up's (its estimate)."""
    j = job()
    if running and j is not None:
        g = j.mgame
        assert isinstance(g, River3Game)
        spec, est = g.spec, g.estimate
    else:
        form = river3_form.read()
        if not form.valid or form.spec is None or form.estimate is None:
            st.warning("Set up's three-way spot has a bad field: fix it there first.",
                       icon=":material/error:")  # fmt: skip
            nav.link("setup", "Go to Set up", ":material/tune:")
            return
        spec, est = form.spec, form.estimate
    st.caption(river3_form.summary(spec, est))


def _settings(running: bool, name: str) -> None:
    offered = algorithms(name)
    if state.get(state.MULTI_ALGO) not in offered:
        state.put(state.MULTI_ALGO, MULTI_DEFAULT_ALGORITHM)
    c = st.columns(5)
    c[0].selectbox(
        "Algorithm",
        offered,
        key=state.MULTI_ALGO,
        disabled=running,
        help="the full-width CFR rules, or external-sampling MCCFR (mccfr-es; not on river "
        "spots yet)",
    )
    c[1].number_input(
        "Max iterations", 1, 1_000_000, 1000, 100, key=state.MULTI_ITERATIONS, disabled=running
    )
    c[2].number_input(
        "Check every", 1, 100_000, 10, 10, key=state.MULTI_EVERY, disabled=running,
        help="iterations between two measures of the Nash distances",
    )  # fmt: skip
    c[3].number_input(
        "Target (chips)",
        0.0,
        10.0,
        0.0,
        0.001,
        format="%.4f",
        key=state.MULTI_TARGET,
        disabled=running,
        help="stop once every player's Nash distance is at most this (0: no target); "
        "with three players it may never be reached",
    )
    c[4].number_input(
        "Seed", 0, 2**31 - 1, 0, 1, key=state.MULTI_SEED,
        disabled=running or state.get(state.MULTI_ALGO) != ES, help="mccfr-es's draws",
    )  # fmt: skip


def _spot_locks(running: bool) -> None:
    """The Locks expander on a river or turn spot: the running job's spot, else Set up's
    (built only when locks are applied); none while Set up's spot has a bad field."""
    j = job()
    if running and j is not None:
        g = j.mgame
        assert isinstance(g, River3Game)
        multi_locks.render(multi_locks.spot_key(g.spec), g, running, spot=True)
        return
    form = river3_form.read()
    if not form.valid or form.spec is None:
        return  # (the summary above says to fix Set up)
    spec = form.spec
    multi_locks.render(multi_locks.spot_key(spec), lambda: river3_form.game(spec), running,
                       _last_profile(river3_form.NAME), spot=True)  # fmt: skip


def _last_profile(name: str) -> Any:
    """The average profile of this session's finished solve of ``name`` (what "solved"
    locks take), or None."""
    j = job()
    if j is None or state.get(state.MULTI_GAME) != name or not j.progress.finished:
        return None
    if isinstance(j.mgame, River3Game):  # (a spot's: only while Set up holds the same spot)
        form = river3_form.read()
        if not form.valid or form.spec != j.mgame.spec:
            return None
    return j.average_profile()[0]


def _start() -> None:
    state.put(state.MULTI_ERROR, None)
    name = setup_game()
    if name is None:
        state.put(state.MULTI_ERROR, "Set up holds no three-player game.")
        return
    algo = str(state.get(state.MULTI_ALGO) or MULTI_DEFAULT_ALGORITHM)
    target = float(state.get(state.MULTI_TARGET) or 0.0)
    river = name == river3_form.NAME
    spot: MultiGame | River3Game
    if river:
        form = river3_form.read()
        if not form.valid or form.spec is None:
            first = next(iter(form.errors.values()), "a field is bad")
            state.put(state.MULTI_ERROR, f"Fix Set up first — {first}")
            return
        try:  # (the engine's arrays: built once per spot and kept)
            spot = river3_form.game(form.spec)
        except SpecError as exc:
            state.put(state.MULTI_ERROR, f"Cannot solve: {exc}")
            return
    else:
        spot = game(name)
    stop_job(job())
    try:
        j = MultiSolveJob(
            spot,
            algo,
            seed=int(state.get(state.MULTI_SEED) or 0) if algo == ES else 0,
            target=target if target > 0 else None,
            max_iterations=int(state.get(state.MULTI_ITERATIONS) or 1000),
            check_every=int(state.get(state.MULTI_EVERY) or 10),
            locks=multi_locks.applied(
                multi_locks.spot_key(spot.spec) if isinstance(spot, River3Game) else name
            ),
        )
    except (ValueError, TypeError) as exc:
        state.put(state.MULTI_ERROR, f"Cannot solve: {exc}")
        return
    multi_reload.register(j, name)  # (a reload takes it back; the reaper ends it once unwatched)
    state.put(state.MULTI_JOB, j)
    state.put(state.MULTI_GAME, name)
    state.put(state.MULTI_NODE, None)
    j.start()


def _pause() -> None:
    j = job()
    if j is not None:
        j.pause()
        j.wait_for(lambda q: q.state == PAUSED or q.finished, timeout=30.0)


def _resume() -> None:
    j = job()
    if j is not None:
        j.resume()
        j.wait_for(lambda q: q.state != PAUSED, timeout=5.0)


def _stop() -> None:
    stop_job(job())


def live() -> None:
    """The live view (a fragment): status, each player's Nash distance, the curves."""
    j = job()
    if j is None or (state.get(state.MULTI_GAME) != setup_game() and j.progress.finished):
        st.caption("Press **Solve** to solve this game.")
        return
    p = j.progress
    if p.state != state.get(state.MULTI_LAST_STATE):
        st.rerun()  # the buttons flip: the whole page
    last = p.last
    status = p.state.capitalize() + (f" ({p.stopped_by})" if p.stopped_by else "")
    speed = f" · {p.iterations_per_s:,.0f} iterations/s" if p.iterations_per_s else ""
    st.markdown(f"**{status}** · iteration {p.iteration:,} · {p.elapsed_s:.1f} s{speed}")
    if p.error:
        st.error(f"The solve failed: {p.error}", icon=":material/error:")
    if j.locks is not None:
        who = ", ".join(player_label(k) for k in j.locks.players())
        verb = "Solved" if p.finished else "Solving"
        st.caption(f"{verb} with locks: {len(j.locks.sets)} information sets of {who}.")
    if last is None:
        st.caption("First check…")
        return
    names = curve_names(len(last.nash_distance))
    cols = st.columns(len(names))
    for k, d in enumerate(last.nash_distance):
        cols[k].metric(names[k], f"{d:.3g} chips", f"{100 * d / j.pot:.3g} % pot",
                       delta_color="off", delta_arrow="off")  # fmt: skip
    cols[-1].metric("NashConv", f"{last.nash_conv:.3g} chips",
                    f"{100 * last.nash_conv / j.pot:.3g} % pot", delta_color="off",
                    delta_arrow="off")  # fmt: skip
    ev = ", ".join(f"{player_label(k)} {v:+.4f}" for k, v in enumerate(last.ev))
    st.caption(f"EV per game (chips): {ev}. The pot before anyone acts: {j.pot:g} chips.")
    x = st.radio("x axis", MULTI_X, key=state.MULTI_X, horizontal=True)
    river = isinstance(j.mgame, River3Game)  # (% of the starting pot, as GTO Wizard quotes)
    fig = nash_figure(p.history, str(x or "iterations"), j.target, pot=j.pot if river else None)
    st.plotly_chart(fig, key="multi_curve", config={"displayModeBar": False})
    st.caption(CAPTION)
    if p.finished:
        nav.link("explore", "Explore the strategies →", ":material/account_tree:")
