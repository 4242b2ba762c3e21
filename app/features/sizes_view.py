"""Explore's sizes view (issue 47, docs/sizes.md): pick the player, the nodes, ``k`` and the
grid; see what the run will cost before it starts; it runs in the background
(:mod:`app.features.sizes_job`) with its progress; then per node a chart of each size's
frequency, EV and removal regret with the kept ones marked, and the certificate in words;
"Open the simplified tree" makes a player's simplified tree the session's solve, as a loaded
save (:func:`~app.features.sizes_job.simplified_solve`). Every number is
:func:`solver.study.sizes.simplify_sizes`'s; this module lays them out."""

from __future__ import annotations

import streamlit as st

from app import state
from app.components.sizes_figure import certificate_words, sizes_figure
from app.features.controls import live_view
from app.features.sizes_job import DONE, FAILED, SizesJob, SizesRequest, simplified_solve
from app.jobs import stop_job
from app.runtime import registry, session_id
from app.state import Solved
from solver.games.holdem import SpecError, estimate, over_memory
from solver.run.calibration import cells_of_estimate, iterations_to, load
from solver.study.sizes import DEFAULT_GRID, NODES, Plan, SizesError, SizesResult, plan

JOB = "sizes_job"  # the session's SizesJob (or None)
LAST_STATE = "sizes_last_state"  # the job state the view last drew its buttons for
PLAN_CACHE = "sizes_plan"  # (fields, Plan, Estimate) of the fields last checked
PLAYER, NODES_KEY, KEEP, GRID, RAISE_GRID, TARGET = (
    "sz_player", "sz_nodes", "sz_keep", "sz_grid", "sz_raise_grid", "sz_target",
)  # fmt: skip
SWAP = "sz_swap"
DEFAULT_TARGET = "0.05"  # % pot
WARM_SHARE = 0.25
"""A warm re-solve's time as a share of the superset solve's, for the estimate (srp-river:
about a tenth; a quarter keeps the estimate on the safe side)."""


def current_job() -> SizesJob | None:
    job = state.get(JOB)
    return job if isinstance(job, SizesJob) else None


def render(solved: Solved) -> None:
    """The view, in an expander under Explore's study views (hold'em subgames only)."""
    spec = solved.holdem
    if spec is None or solved.game.meta.get("preflop"):
        return
    with st.expander("Which sizes matter (certified simplification)"):
        st.caption(
            "Solve this spot with a grid of bet sizes, keep the k that matter at each node of "
            "a player, and see what the simplified player gives up against an opponent who "
            "keeps every size (docs/sizes.md)."
        )
        c = st.columns([1, 1, 1, 1])
        c[0].selectbox("Player", ("both", "oop", "ip"), key=PLAYER,
                       format_func=lambda p: p.upper() if p != "both" else "both")  # fmt: skip
        c[1].selectbox("Nodes", NODES, index=1, key=NODES_KEY)
        c[2].number_input("Keep (sizes per node)", 1, 20, 2, key=KEEP)
        c[3].text_input("Target (% pot)", DEFAULT_TARGET, key=TARGET)
        st.text_input("Grid (bet sizes)", DEFAULT_GRID, key=GRID)
        st.text_input("Raise grid (optional; nodes street or all)", "", key=RAISE_GRID)
        st.checkbox("Then try swaps (each kept size against each removed one)", key=SWAP)
        request, the_plan, error = _request(spec, solved)
        job = current_job()
        running = job is not None and job.alive
        if error:
            st.error(error, icon=":material/error:")
        elif the_plan is not None and request is not None and not running:
            st.caption(_estimate(the_plan, request))
        b = st.columns([1, 1, 4])
        b[0].button("Find the sizes", key="sz_start", on_click=_start, args=(request,),
                    disabled=running or request is None, type="primary")  # fmt: skip
        b[1].button("Stop", key="sz_stop", on_click=_stop, disabled=not running)
        live_view(_live, running)


def _request(spec: object, solved: Solved) -> tuple[SizesRequest | None, Plan | None, str]:
    """The request the fields describe, its checked plan, or the first error in words."""
    raw_target = str(state.get(TARGET, DEFAULT_TARGET)).strip().removesuffix("%")
    raise_grid = str(state.get(RAISE_GRID, "") or "").strip() or None
    try:
        pct = float(raw_target)
    except ValueError:
        return None, None, f"Target: {raw_target!r} is not a number"
    if not 0 < pct < float("inf"):
        return None, None, "Target: must be a positive % of the pot"
    try:
        the_plan = _plan(
            spec,
            str(state.get(GRID, DEFAULT_GRID)),
            raise_grid,
            str(state.get(NODES_KEY, "street")),
            int(state.get(KEEP, 2)),
        )
    except SizesError as exc:
        return None, None, f"{exc.field.replace('_', ' ').capitalize()}: {exc.message}"
    except SpecError as exc:
        return None, None, f"The spot: {exc.field}: {exc.message}"
    kept = state.get(PLAN_CACHE)
    if isinstance(kept, tuple) and kept[1] is the_plan:
        refusal = over_memory(kept[2], float(the_plan.setup.spec.max_memory_mb))
        if refusal:
            return None, None, f"The superset tree is too large: {refusal}"
    target = pct / 100.0 * float(the_plan.setup.config.pot)
    threads = 1
    engine = solved.job.engine if solved.job is not None else solved.engine
    if engine is not None:
        threads = int(getattr(engine, "threads", 1) or 1)
    request = SizesRequest(the_plan.setup.spec, the_plan.grid, the_plan.raise_grid,
                           str(state.get(PLAYER, "both")), the_plan.nodes, the_plan.keep,
                           target, threads, bool(state.get(SWAP, False)))  # fmt: skip
    return request, the_plan, ""


def _plan(spec: object, grid: str, raise_grid: str | None, nodes: str, keep: int) -> Plan:
    """:func:`plan` of the fields, kept for the session while they stay the same (Explore
    reruns on every click; a flop's card-free tree and its estimate take a moment)."""
    key = (repr(spec), grid, raise_grid, nodes, keep)
    kept = state.get(PLAN_CACHE)
    if isinstance(kept, tuple) and kept[0] == key:
        return kept[1]
    the_plan = plan(spec, grid, raise_grid, nodes, keep)  # type: ignore[arg-type]
    state.put(PLAN_CACHE, (key, the_plan, estimate(the_plan.setup)))
    return the_plan


def _estimate(the_plan: Plan, request: SizesRequest) -> str:
    """What the run will cost, before it starts: the superset tree's size, its solve's time
    from this machine's cost per hand-cell, and the most warm re-solves greedy may run."""
    kept = state.get(PLAN_CACHE)
    est = kept[2] if isinstance(kept, tuple) and kept[1] is the_plan else estimate(the_plan.setup)
    pct = 100.0 * request.target / float(the_plan.setup.config.pot)
    iterations = iterations_to(pct, True, 20_000)
    superset_s = load().seconds(cells_of_estimate(est), request.threads) * iterations
    grid = len(the_plan.grid.split(","))
    steps = sum(max(0, grid - the_plan.keep) for p in request.players() for _ in the_plan.lines[p])
    resolves = 4 * steps  # at most the confirmations (3) and a re-solve per removal
    if request.swap:  # each kept size against each removed one, per node
        resolves += sum(the_plan.keep * max(0, grid - the_plan.keep)
                        for p in request.players() for _ in the_plan.lines[p])  # fmt: skip
    total = superset_s * (1.0 + WARM_SHARE * resolves)
    lines = sum(len(the_plan.lines[p]) for p in request.players())
    return (
        f"The superset tree: {est.nodes:,} nodes, {est.memory_mb:,.0f} MB; its solve takes "
        f"about {superset_s:,.1f} s here, then at most {resolves} warm re-solves over {lines} "
        f"node(s): about {total:,.0f} s at most (good to a factor of two)."
    )


def _start(request: SizesRequest | None) -> None:
    if request is None:
        return
    stop_job(current_job(), 5.0)
    job = SizesJob(request)
    registry().add(session_id(), job)  # ended like a solve when no page watches it
    state.put(JOB, job.start())
    state.put(LAST_STATE, None)


def _open_simplified(r: SizesResult) -> None:
    """Make ``r``'s simplified tree (its final solve) the session's solve, as a loaded save
    becomes it (a callback: done before the page draws): the solve shown before is
    stopped, Explore opens at the root."""
    loaded = simplified_solve(r)
    stop_job(state.job())
    state.put(state.JOB, None)
    state.put(state.LOADED, loaded)
    state.put(state.LOAD_ERROR, None)
    state.put(state.EXPLORE_NODE, int(loaded.game.decision_nodes()[0]))


def _stop() -> None:
    stop_job(current_job(), 5.0)


def _live() -> None:
    job = current_job()
    if job is None:
        return
    p = job.snapshot()
    if p.finished and state.get(LAST_STATE) != p.state:
        state.put(LAST_STATE, p.state)
        st.rerun()  # whole page, once: flip the buttons
    if not p.finished:
        expl = f", exploitability {p.exploitability_pct:.3f} % pot" if p.exploitability_pct else ""
        st.progress(
            min(0.99, len(p.results) / max(1, len(job.request.players()))),
            text=f"{p.player.upper()}: {p.stage or 'starting'} · {p.solves} solves{expl} · "
            f"{p.elapsed_s:.0f} s",
        )
    if p.state == FAILED:
        st.error(f"The run failed: {p.error}", icon=":material/error:")
    elif p.finished and p.state != DONE:
        st.warning("Stopped.", icon=":material/info:")
    for result in p.results:
        _result(result)


def _result(r: SizesResult) -> None:
    """One player's certificate and its chart per node."""
    grid_size = len(r.grid.split(","))
    st.markdown(certificate_words(r.player, r.kept, r.sizes, r.loss_pct_pot, r.loss_chips,
                                  grid_size))  # fmt: skip
    st.caption(
        f"Error bars: the superset solve's exploitability {r.exploitability_superset:.3f} % "
        f"pot, the final solve's {r.exploitability_final:.3f} % pot (the true loss is at most "
        f"2 × the superset's more). {r.resolves} warm re-solves, {r.seconds:.1f} s."
    )
    loaded = state.get(state.LOADED)
    if loaded is not None and loaded.engine is r.final.engine:
        st.success(
            f"{r.player.upper()}'s simplified tree is the current solve: Explore, Practice, "
            "Export and locks work on it.",
            icon=":material/check:",
        )
    st.button(
        "Open the simplified tree",
        key=f"sz_open_{r.player}",
        on_click=_open_simplified,
        args=(r,),
        help=f"Make {r.player.upper()}'s simplified tree (its final solve) the current solve",
    )
    for line, kept in r.kept.items():
        labels = list(r.removal_regret[line])
        st.plotly_chart(
            sizes_figure(labels, r.sizes[line], kept, r.frequency.get(line, {}),
                         r.action_ev.get(line, {}), r.removal_regret[line], r.confirmed[line]),
            key=f"sz_chart_{r.player}_{line}",
            width="stretch",
        )  # fmt: skip
        st.caption(f"{r.player.upper()} at `{line}`: hatched regrets are best-response bounds.")
