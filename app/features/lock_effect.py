"""What a re-solve with locks changed, side by side: each player's EV at the root before and
after, EVs per hand class or hand at the root and at each locked node, and the lines whose
action frequencies moved most. Numbers from :mod:`solver.study.lock_effect` and
:mod:`solver.study.analysis` (tested there); this module lays them out."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import streamlit as st

from app import state
from app.components import number_formats as NF
from app.components.downloads import download_row
from app.components.names import line as line_name
from app.components.names import player_name
from app.features.study_views import action_labels, cached, file_name
from solver.games.model import Game
from solver.run.jobs import SolveJob
from solver.study.analysis import NodeAnalysis, analyze
from solver.study.groups import class_groups, hand_groups
from solver.study.lock_effect import ShiftSearch, ev_changes, locked_nodes, top_shifts
from solver.study.views import summaries

Array = npt.NDArray[np.float64]
K = state.LOCK_PREFIX


@dataclass(frozen=True)
class LockRun:
    """A re-solve with locks: its job, the locks, and the baseline its effect is measured
    against — the average strategy (A,) of the last solve *without* these locks (read-only),
    that solve's iteration, exploitability (chips, None when unknown) and its own locks."""

    job: SolveJob
    before: Array
    before_iteration: int
    before_exploitability: float | None
    locks: dict[str, Any]
    warm: bool
    before_locks: dict[str, Any] = field(default_factory=dict)
    before_label: str = "no locks"  # the baseline's locks in words


def _analyses(game: Game, run: LockRun, after: Array, node: int) -> tuple[NodeAnalysis, ...]:
    key = (id(run), id(after), node, "lock_effect")
    return cached(
        key,
        lambda: (
            analyze(game, run.before, node, with_equity=False),
            analyze(game, after, node, with_equity=False),
        ),
    )


def totals_frame(game: Game, before: NodeAnalysis, after: NodeAnalysis) -> pd.DataFrame:
    """Each player's range EV (chips) at a node before and after."""
    rows = []
    for b, a in zip(summaries(before), summaries(after), strict=True):
        rows.append(
            {
                "player": player_name(game, b.player),
                "EV before": b.ev,
                "EV after": a.ev,
                "change": a.ev - b.ev,
            }
        )
    return pd.DataFrame(rows)


def groups_frame(
    game: Game, before: NodeAnalysis, after: NodeAnalysis, player: int, by: str
) -> pd.DataFrame:
    """Per hand class (``by`` "class", hold'em) or per hand: combos and EV before and after."""
    node = before.node
    groups = class_groups(game, node, player) if by == "class" else hand_groups(game, node, player)
    rows = ev_changes(groups, before.players[player], after.players[player])
    return pd.DataFrame(
        [
            {
                "hand" if by == "hand" else "class": r.label,
                "combos before": r.combos_before,
                "combos after": r.combos_after,
                "EV before": r.ev_before,
                "EV after": r.ev_after,
                "change": r.change,
            }
            for r in rows
            if r.combos_before > 0 or r.combos_after > 0
        ]
    )


MIN_REACH = 0.001  # lines a smaller share of deals reaches are left out of the table
SHOWN = 12  # lines in the table


def shifts_frame(
    game: Game, before: Array, after: Array, locked: set[int]
) -> tuple[pd.DataFrame, ShiftSearch]:
    """The lines whose aggregate action frequencies moved most, weighted by how often a
    deal reaches them (largest first; lines reached by fewer than :data:`MIN_REACH` of deals
    left out), on any tree (:func:`solver.study.lock_effect.top_shifts`: most-reached lines
    first, stopping once no line left can enter the list), and how the search went."""
    search = top_shifts(game, before, after, locked=locked, limit=SHOWN, min_reach=MIN_REACH)
    rows = []
    for s in search.shifts:
        names = action_labels(game, s.node)

        def mix(f: Array, names: list[str] = names) -> str:
            return ", ".join(f"{n} {100 * x:.0f}%" for n, x in zip(names, f, strict=True))

        rows.append(
            {
                "line": line_name(game, s.node),
                "player": player_name(game, s.player),
                "locked": "yes" if s.locked else "",
                "largest move (points)": 100 * s.change,
                "reached % of deals (before → after)": (
                    f"{100 * s.reach_before:.1f} → {100 * s.reach_after:.1f}"
                ),
                "before": mix(s.before),
                "after": mix(s.after),
                "combos before": s.combos_before,
                "combos after": s.combos_after,
            }
        )
    return pd.DataFrame(rows), search


def search_words(search: ShiftSearch) -> str:
    """How the lines were found, in a sentence under the table."""
    lines = f"{search.compared:,} of the tree's {search.total:,} lines compared"
    if not search.complete:
        return (
            f"The most-reached lines: {lines}; lines reached by at most "
            f"{100 * search.below:.2g} % of deals were not compared."
        )
    if search.compared == search.total:
        return f"Every line compared ({search.total:,})."
    return (
        f"{lines}, most-reached first: no line left out could have moved enough to enter "
        f"this list (a line's weighted move is at most its reach); lines reached by fewer "
        f"than {100 * MIN_REACH:g} % of deals are left out."
    )


def ev_metric(row: dict[str, Any]) -> tuple[str, str]:
    """A :func:`totals_frame` row as its metric says it, chips with two decimals: the EV
    after, and the change with the EV before (``("87.8", "+1.25 (was 86.55)")``)."""
    after, change, before = (float(row[k]) for k in ("EV after", "change", "EV before"))
    sign = "+" if change >= 0 else "-"  # (st.metric colours a delta by its first character)
    return NF.decimals(after), f"{sign}{NF.decimals(abs(change))} (was {NF.decimals(before)})"


def render_effect(game: Game, run: LockRun, after: Array, node: int) -> None:
    """The before/after section of a finished re-solve with locks."""
    p = run.job.progress
    st.subheader("Effect of the locks")
    ended = "target reached" if p.stopped_by == "target" else f"{p.state}"
    st.caption(
        f"Before: the last solve without these locks, at iteration {run.before_iteration:,} "
        f"({run.before_label}). "
        f"After: the locked game at iteration {p.iteration:,} ({ended}); its exploitability "
        f"({'—' if p.exploitability is None else f'{p.exploitability:.4g}'} chips) and EVs are "
        "those of the locked game. EVs in chips."
    )
    b0, a0 = _analyses(game, run, after, 0)
    totals = totals_frame(game, b0, a0)
    cols = st.columns(len(totals))
    for col, row in zip(cols, totals.to_dict("records"), strict=True):
        value, delta = ev_metric(row)
        col.metric(f"{row['player']} EV at the root", value, delta=delta)
    st.dataframe(
        totals, hide_index=True, key="lock_ev_totals", column_config=NF.table_config(totals)
    )
    download_row("lock_totals", file_name(game, 0, "lock-totals"), table=totals)
    lines = locked_nodes(game, run.locks)
    places = {0: "Start", **{n: f"locked: {line_name(game, n)}" for n in lines}}
    c = st.columns(3)
    where = c[0].selectbox(
        "At", list(places), format_func=lambda n: places[n], key=K + "where",
        index=list(places).index(node) if node in places else 0,
    )  # fmt: skip
    who = c[1].radio(
        "Player", [0, 1], format_func=lambda q: player_name(game, q), key=K + "who",
        horizontal=True,
    )  # fmt: skip
    by = "hand"
    if game.is_holdem:
        by = str(c[2].radio("By", ["class", "hand"], key=K + "by", horizontal=True))
    b, a = _analyses(game, run, after, int(where))
    df = groups_frame(game, b, a, int(who), by)
    st.dataframe(
        df, hide_index=True, key="lock_ev_table", height=300, column_config=NF.table_config(df)
    )
    download_row("lock_evs", file_name(game, int(where), "lock-evs"), table=df)
    st.markdown("**Lines whose frequencies moved most**, weighted by how often they are reached")
    shifts, search = cached(
        (id(run), id(after), "shifts"),
        lambda: shifts_frame(game, run.before, after, set(lines)),
    )
    st.dataframe(shifts, hide_index=True, key="lock_shifts", column_config=NF.table_config(shifts))
    st.caption(search_words(search))
    download_row("lock_shifts", file_name(game, 0, "lock-shifts"), table=shifts)
