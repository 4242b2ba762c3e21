"""Practice: drill the session's solve (its running or finished job, or a save loaded on the
Export page). A hand is dealt from the solution (:mod:`solver.study.trainer`: both ranges' weights,
card removal and the reach of the line), the villain and the cards to come follow the
solution, and each of the hero's decisions is graded by the EV it loses; the session's score
and its decisions download as CSV or JSON. Filters (hand classes, grid cells, a minimum reach)
choose which of the hero's hands are dealt; suits may be shown randomly permuted."""

from __future__ import annotations

import functools
from dataclasses import dataclass

import streamlit as st

from app import nav, state
from app import spec as S
from app.components import names
from app.components.fields import PERSIST
from app.components.practice_views import (
    GRADE_ICONS,
    OFF_TREE,
    OFF_TREE_WHY,
    button_labels,
    cards_html,
    cell_options,
    class_label,
    class_options,
    decision_view,
    score_view,
    table_view,
    worst_frame,
)
from app.components.views import card_table, grid_figure
from app.features import multi_solve
from app.features.locking import applied, locks_label
from app.state import Solved
from solver.cfr.reach import path_reach
from solver.games.model import DECISION, Game
from solver.study.trainer import (
    DealFilter,
    Drill,
    Thresholds,
    pot_at,
    strategy_at,
    suit_permutations,
    to_csv,
    to_json,
)
from solver.study.words import action_names

SCOPE_NAMES = {
    "hand": "Whole hand (from the start)",
    "street": "One street (the Explore node's)",
    "node": "One node (the Explore node)",
}

DEFAULTS: dict[str, object] = {
    state.PRACTICE_PLAYER: 0,
    state.PRACTICE_SCOPE: "hand",
    state.PRACTICE_SEED: 0,
    state.PRACTICE_CORRECT: 3.5,
    state.PRACTICE_WRONG: 1.0,
    state.PRACTICE_BLUNDER: 5.0,
    state.PRACTICE_CLASSES: [],
    state.PRACTICE_CELLS: [],
    state.PRACTICE_MIN_REACH: 0.0,
}


@dataclass
class PracticeRun:
    """The session's drill, the solve it was made from (its game and iteration) and what
    the page calls the solve."""

    drill: Drill
    game: Game
    iteration: int
    label: str


def current(solved: Solved) -> PracticeRun | None:
    """The session's practice run if it practises ``solved``'s game, else None."""
    run = state.get(state.PRACTICE_DRILL)
    if isinstance(run, PracticeRun) and run.game is solved.game:
        return run
    return None


def start(solved: Solved) -> None:
    """Start a session with the settings' values on the solve's current average strategy
    (a fixed copy: a running solve goes on without changing the grades), and deal."""
    game = solved.game
    scope = str(state.get(state.PRACTICE_SCOPE) or "hand")
    node = state.explored_node(game)
    player = int(state.get(state.PRACTICE_PLAYER) or 0)
    if scope == "node" and game.tree.kind[node] == DECISION:
        player = int(game.tree.player[node])  # the hero is who acts there
    seed = int(state.get(state.PRACTICE_SEED) or 0)
    try:
        thresholds = Thresholds(
            float(state.get(state.PRACTICE_CORRECT, 3.5)),
            float(state.get(state.PRACTICE_WRONG, 1.0)),
            float(state.get(state.PRACTICE_BLUNDER, 5.0)),
        )
        deal_filter = DealFilter(
            tuple(state.get(state.PRACTICE_CLASSES) or ()),
            tuple(state.get(state.PRACTICE_CELLS) or ()),
            float(state.get(state.PRACTICE_MIN_REACH) or 0.0),
        )
        drill = Drill(
            game,
            solved.average,
            player,
            scope,
            node,
            thresholds,
            bool(state.get(state.PRACTICE_RNG, False)),
            seed if seed > 0 else None,
            names.of(game),
            deal_filter,
            bool(state.get(state.PRACTICE_SUITS, False)),
        )
        drill.new_hand()
    except ValueError as exc:
        state.put(state.PRACTICE_ERROR, str(exc))
        return
    state.put(state.PRACTICE_ERROR, None)
    state.put(state.PRACTICE_LAST, None)
    state.put(state.PRACTICE_DRILL, PracticeRun(drill, game, solved.iteration, game.name))


def act(drill: Drill, action: int) -> None:
    """The hero plays ``action``: grade it and play on."""
    if drill.waiting:
        state.put(state.PRACTICE_LAST, drill.act(action))


def next_hand(drill: Drill) -> None:
    state.put(state.PRACTICE_LAST, None)
    try:
        drill.new_hand()
    except ValueError as exc:
        state.put(state.PRACTICE_ERROR, str(exc))


def render() -> None:
    st.title("Practice")
    multi_solve.heads_up_only("The trainer")  # (a heads-up solve, if any, is still here)
    solved = state.solved()
    if solved is None:
        st.info("Nothing solved yet: solve a spot (or load a saved solve) to practise it.")
        nav.link("solve", "Go to Solve", ":material/play_arrow:")
        nav.link("export", "Load a saved solve", ":material/save:")
        return
    game = solved.game
    names.remember(game, S.player_names(solved.source))
    run = current(solved)
    _settings(solved, run)
    error = state.get(state.PRACTICE_ERROR)
    if error:
        st.error(f"Cannot practise this: {error}", icon=":material/error:")
    if run is None:
        st.info("Choose who you play and the scope, then start a session.")
        return
    note = ""
    if solved.iteration != run.iteration:
        note = " (the solve has moved on: start a new session to practise its latest strategy)"
    st.caption(
        f"{run.label} · graded against the average strategy of iteration {run.iteration:,}"
        f" ({locks_label(game, applied(solved))}){note}"
    )
    _hand(run.drill)
    st.subheader("Session score")
    drill = run.drill
    s = drill.score()
    score_view(s)
    if s.worst:
        st.markdown("**Worst decisions**")
        st.dataframe(worst_frame(s.worst, s.big_blind), hide_index=True, key="practice_worst")
        row = st.container(horizontal=True, key="practice_worst_links")
        for i, d in enumerate(s.worst):
            if row.button(
                f"#{i + 1} in Explore",
                key=f"practice_explore_{i}",
                icon=":material/account_tree:",
                type="tertiary",
            ):
                state.put(state.EXPLORE_NODE, int(d.node))
                st.switch_page(nav.pages()["explore"])
    _downloads(drill)


def _settings(solved: Solved, run: PracticeRun | None) -> None:
    game = solved.game
    for key, default in DEFAULTS.items():  # (a default beside a session value warns)
        if state.get(key) is None:
            state.put(key, default)
    with st.expander("Session settings", expanded=run is None):
        c = st.columns([1, 2, 1])
        c[0].radio(
            "You play",
            [0, 1],
            format_func=lambda p: names.player_name(game, p),
            key=state.PRACTICE_PLAYER,
            persist_state=PERSIST,
        )
        c[1].radio(
            "Scope",
            list(SCOPE_NAMES),
            format_func=lambda k: SCOPE_NAMES[k],
            key=state.PRACTICE_SCOPE,
            persist_state=PERSIST,
            help="one street and one node start at the node you are at in Explore",
        )
        c[2].checkbox(
            "RNG mode",
            key=state.PRACTICE_RNG,
            persist_state=PERSIST,
            help="Best is the action a random draw from the hand's mix picks, not always "
            "the highest-EV one",
        )
        c[2].number_input(
            "Seed",
            min_value=0,
            step=1,
            key=state.PRACTICE_SEED,
            persist_state=PERSIST,
            help="the same seed deals the same hands to the same answers; 0: a new deal",
        )
        t = st.columns(3)
        t[0].number_input(
            "Correct from (% of the mix)",
            min_value=0.0,
            max_value=100.0,
            step=0.5,
            key=state.PRACTICE_CORRECT,
            persist_state=PERSIST,
        )
        t[1].number_input(
            "Wrong above (EV lost, % pot)",
            min_value=0.0,
            step=0.5,
            key=state.PRACTICE_WRONG,
            persist_state=PERSIST,
        )
        t[2].number_input(
            "Blunder above (EV lost, % pot)",
            min_value=0.0,
            step=0.5,
            key=state.PRACTICE_BLUNDER,
            persist_state=PERSIST,
        )
        _filters(game)
        scope = state.get(state.PRACTICE_SCOPE) or "hand"
        if scope != "hand":
            line = names.line(game, state.explored_node(game))
            st.caption(f"Explore node: {line}")
            nav.link("explore", "Pick another node in Explore", ":material/account_tree:")
        st.button(
            "Start a new session" if run is not None else "Start",
            key="practice_start",
            type="primary",
            icon=":material/school:",
            on_click=start,
            args=(solved,),
        )


def _filters(game: Game) -> None:
    """Which of the hero's hands are dealt, and the suits' permutation."""
    f = st.columns([2, 2, 1])
    if game.is_holdem:
        f[0].multiselect(
            "Deal only these hand classes",
            class_options(),
            format_func=class_label,
            key=state.PRACTICE_CLASSES,
            persist_state=PERSIST,
            placeholder="any class",
            help="what your hand makes (or draws to) on the board where it is dealt",
        )
    f[1].multiselect(
        "… or these grid cells" if game.is_holdem else "Deal only these cards",
        cell_options(game),
        key=state.PRACTICE_CELLS,
        persist_state=PERSIST,
        placeholder="any hand",
        filter_mode="contains",
    )
    f[2].number_input(
        "Min reach (%)",
        min_value=0.0,
        max_value=100.0,
        step=5.0,
        key=state.PRACTICE_MIN_REACH,
        persist_state=PERSIST,
        help="deal only hands that reach the spot where they are dealt at least this often "
        "(range weight × the hand's own frequency of the line)",
    )
    if len(suit_permutations(game)) > 1:
        st.checkbox(
            "Randomise suits",
            key=state.PRACTICE_SUITS,
            persist_state=PERSIST,
            help="show each hand with the suits permuted (the same spot on a board of the "
            "same suit structure; the grades do not change)",
        )
    elif game.is_holdem:
        st.caption("Suits are not randomised: the ranges weigh the suits of a hand differently.")


def _hand(drill: Drill) -> None:
    t = drill.table
    if t is None:
        return
    hero = names.player_name(drill.game, drill.player)
    st.subheader(f"Hand {drill.hand_no}")
    with st.container(key="practice_table"):
        table_view(drill, hero)
    last = state.get(state.PRACTICE_LAST)
    if drill.waiting:
        g = drill.game
        labels = button_labels(drill, action_names(g, t.node), g.action_labels(t.node))
        row = st.container(horizontal=True, key="practice_actions")
        for i, label in enumerate(labels):
            row.button(label, key=f"practice_act_{i}", on_click=act, args=(drill, i))
        if drill.off_tree():
            st.info(f"{OFF_TREE}: {OFF_TREE_WHY}.", icon=":material/alt_route:")
    else:
        villain = 1 - drill.player
        st.html(
            f'<div class="practice-villain">Hand over. '
            f"{names.player_name(drill.game, villain)} had "
            f"{cards_html(drill.hole_cards(villain, shown=True))}</div>"
        )
        st.button(
            "Next hand",
            key="practice_next",
            type="primary",
            icon=":material/playing_cards:",
            on_click=next_hand,
            args=(drill,),
        )
    if last is not None:
        with st.container(border=True, key="practice_last"):
            st.markdown(f"**Your last decision** {GRADE_ICONS[last.grade]}")
            decision_view(last, drill.game.big_blind)
            if st.toggle("Show range", key=state.PRACTICE_SHOW_RANGE, persist_state=PERSIST):
                _range(drill, last.node)


def _range(drill: Drill, node: int) -> None:
    """The solution's strategy at ``node`` for the whole range reaching it (grid for
    hold'em, a card table for the toy games): shown after the decision, not before."""
    g = drill.game
    strategy = strategy_at(g, drill.sigma, node)
    reach = path_reach(g, drill.sigma, node)[int(g.tree.player[node])]
    if g.is_holdem:
        fig = grid_figure(g, node, strategy, reach, pot=pot_at(g, node))
        st.plotly_chart(fig, key="practice_grid", width="stretch")
    else:
        st.dataframe(card_table(g, node, strategy, reach), hide_index=True, key="practice_cards")


def _downloads(drill: Drill) -> None:
    if not drill.decisions:
        return
    bb = drill.game.big_blind
    decisions = tuple(drill.decisions)
    row = st.container(horizontal=True, key="practice_downloads")
    for fmt, fn, mime in (("csv", to_csv, "text/csv"), ("json", to_json, "application/json")):
        row.download_button(
            f"Decisions as {fmt.upper()}",
            data=functools.partial(fn, decisions, bb),
            file_name=f"practice-{drill.game.name}.{fmt}",
            mime=mime,
            key=f"practice_dl_{fmt}",
            on_click="ignore",
            icon=":material/download:",
        )
