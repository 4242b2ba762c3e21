"""Explore and Export on a three-player solve (docs/multiway.md): pick a player and one of
its decision nodes, see its average strategy per hand (table and bars; a three-way river
spot: :mod:`app.features.river3_study`, the 13×13 grid); download each player's strategy as
CSV, and all three as JSON. Both read the average profile of the
session's :class:`~solver.run.multi_job.MultiSolveJob` (copied between two chunks while it
runs)."""

from __future__ import annotations

import streamlit as st

from app import nav, state
from app.components.multi_figures import player_label, strategy_bars, strategy_frame
from app.features import river3_study
from app.features.multi_solve import job, label, setup_game
from solver.cfr.multi_solve import ThreeGame, action_word, node_strategy
from solver.cfr.river3_view import River3Game
from solver.files.multi_export import player_csv, strategies_json
from solver.games.multiway import MultiGame
from solver.run.multi_job import MultiSolveJob

NOT_HERE = (
    "Locks, the trainer, reports, bet-size simplification, exploits and saving a solve as "
    ".npz are heads-up only."
)


def wanted() -> bool:
    """Whether Explore and Export show the three-player view: Set up holds such a game."""
    return setup_game() is not None


def _shown() -> MultiSolveJob | None:
    """The session's three-player solve when it is of Set up's game (else a note)."""
    name = setup_game()
    assert name is not None
    j = job()
    if j is None or state.get(state.MULTI_GAME) != name:
        st.info(f"Nothing solved for {label(name)} yet: solve it first.")
        nav.link("solve", "Go to Solve", ":material/play_arrow:")
        return None
    return j


def line_words(game: MultiGame, node: int) -> str:
    hist = game.history(node)
    return " → ".join(action_word(x) for x in hist) if hist else "start"


def render_explore() -> None:
    st.title("Explore")
    j = _shown()
    if j is None:
        return
    g = j.mgame
    sigma, iteration = j.average_profile()
    if isinstance(g, River3Game):
        river3_study.render(j, sigma, iteration)
        st.caption(NOT_HERE)
        return
    running = not j.progress.finished
    st.caption(
        f"{label(str(state.get(state.MULTI_GAME)))} · average profile of iteration "
        f"{iteration:,}" + (" (the solve is still running; this view updates when you act)"
                            if running else "")
    )  # fmt: skip
    players = list(range(g.num_players))
    if state.get(state.MULTI_PLAYER) not in players:
        state.put(state.MULTI_PLAYER, 0)
    player = int(
        st.radio(
            "Player",
            players,
            format_func=lambda p: player_label(p).capitalize(),
            key=state.MULTI_PLAYER,
            horizontal=True,
        )
    )
    nodes = [int(n) for n in g.decision_nodes() if int(g.player[n]) == player]
    node = river3_study.select_node(nodes, lambda n: line_words(g, n))
    table = node_strategy(g, sigma, node)
    st.markdown(
        f"**{player_label(player).capitalize()}** to act after: {line_words(g, node)} — "
        "average strategy per hand (% of its play)"
    )
    c1, c2 = st.columns([2, 3])
    c1.dataframe(strategy_frame(table), hide_index=True, key="multi_strategy_table")
    c2.plotly_chart(strategy_bars(table), key="multi_strategy_bars",
                    config={"displayModeBar": False})  # fmt: skip
    last = j.progress.last
    if last is not None:
        st.caption(
            f"{player_label(player).capitalize()}'s Nash distance at the last check "
            f"(iteration {last.iteration:,}): {last.nash_distance[player]:.3g} chips — what "
            "it would gain by its best deviation, the others fixed (docs/multiway.md)."
        )
    st.caption(NOT_HERE)


def export_files(j: MultiSolveJob) -> list[tuple[str, str, str, str]]:
    """What Export offers: (label, file name, text, mime) — each player's CSV, then the JSON
    of all three, from one copy of the average profile."""
    g: ThreeGame = j.mgame
    sigma, iteration = j.average_profile()
    stem = g.kind if isinstance(g, River3Game) else g.name  # (river3 or turn3)
    out = [
        (
            f"{player_label(p).capitalize()}'s strategy as CSV",
            f"{stem}-player{p + 1}.csv",
            player_csv(g, sigma, p),
            "text/csv",
        )
        for p in range(g.num_players)
    ]
    text = strategies_json(g, sigma, iteration, j.algorithm, j.params, j.progress.last, j.locks)
    out.append(("All three strategies as JSON", f"{stem}-strategies.json", text,
                "application/json"))  # fmt: skip
    return out


def render_export() -> None:
    st.title("Export & save")
    j = _shown()
    if j is None:
        return
    if not j.progress.finished:
        st.info("The solve is still running: the files hold its average profile as of now.")
    st.subheader("Strategies")
    files = export_files(j)
    cols = st.columns(len(files))
    for col, (what, name, text, mime) in zip(cols, files, strict=True):
        col.download_button(what, data=text.encode("utf-8"), file_name=name, mime=mime,
                            on_click="ignore")  # fmt: skip
    river = (
        " On a three-way river a hand is a combo (`AhKd`), the CSV adds its class "
        "(`hand_class`) and the JSON the spot's fields (`spot`)."
        if isinstance(j.mgame, River3Game)
        else ""
    )
    st.caption(
        "CSV: one row per information set (the line to a node and a hand) and action, "
        "players counted from 1. JSON: `strategies[k]` is player k + 1's, line → hand → "
        "action → probability, with the last check's Nash distances and NashConv."
        + river
        + " "
        + NOT_HERE
    )
