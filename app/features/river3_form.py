"""Set up's three-way hold'em river or turn spot (issue 49; docs/multiway.md): the hold'em
form's **Players** choice (2 or 3) and, with 3, the spot's own form — three ranges in acting
order, a five-card board (the river) or a four-card one (the turn, with the river's sizes
beside the turn's), pot, stack, bet and raise sizes — with each bad field's message under it
(naming the field) and the estimate (nodes, hands per player, memory) before Solve. The
fields are kept for the session (``persist_state``), apart from the heads-up form's, so
switching between 2 and 3 players loses nothing typed.

The form reads into a :class:`~solver.games.holdem3.River3Spec` or
:class:`~solver.games.holdem3_turn.Turn3Spec`, checked without building anything big
(:func:`~solver.games.holdem3.checked`, :func:`~solver.games.holdem3_turn.checked_turn`: the
card-free trees and the memory); the engine's arrays
(:func:`~solver.cfr.river3_view.river3_game`) are built when a solve starts."""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import streamlit as st

from app import nav, state
from app import spec as S
from app.components.fields import PERSIST, Number
from app.components.number_formats import combos_text
from app.components.river3_figures import POSITIONS
from app.features.number_fields import number_field
from solver.cfr.river3_view import River3Game, Spot3Spec, river3_game
from solver.games.holdem3 import River3Estimate, River3Spec, checked
from solver.games.holdem3_turn import Turn3Estimate, Turn3Spec, checked_turn
from solver.games.spec import DEFAULT_MAX_MEMORY_MB, SpecError, machine_memory_mb
from solver.poker.ranges import RangeError, combo_count, parse_range

NAME = "river3"  # the three-player pages' name of the spot, river or turn (beside "kuhn3")
LABEL = "Three-way hold'em river"
TURN_LABEL = "Three-way hold'em turn"
# the river's sizes of a turn spot (blank: the turn's); keys beside app/state.py's R3_ ones
R3_RIVER_BETS = "r3_river_bets"
R3_RIVER_RAISES = "r3_river_raises"
TURN_ONLY = ("river_bets", "river_raises")  # Turn3Spec fields a River3Spec does not have
PLAYERS = (2, 3)
RANGE_KEYS = (state.R3_RANGE0, state.R3_RANGE1, state.R3_RANGE2)
KEYS = {  # River3Spec field → widget key
    "board": state.R3_BOARD,
    "range0": state.R3_RANGE0,
    "range1": state.R3_RANGE1,
    "range2": state.R3_RANGE2,
    "pot": state.R3_POT,
    "stack": state.R3_STACK,
    "bets": state.R3_BETS,
    "raises": state.R3_RAISES,
    "raise_cap": state.R3_RAISE_CAP,
    "big_blind": state.R3_BIG_BLIND,
    "max_memory_mb": state.R3_MAX_MEMORY,
    "river_bets": R3_RIVER_BETS,
    "river_raises": R3_RIVER_RAISES,
}
DEFAULTS = {  # a small spot that solves in seconds (docs/multiway.md's example)
    "board": "Ks 7d 2c 9h 3s",
    "range0": "AA, KK, AK",
    "range1": "QQ, JJ, AQs",
    "range2": "TT, 99, KQs",
    "pot": "60",
    "stack": "200",
    "bets": "50%, 100%, a",
    "raises": "100%, a",
    "raise_cap": "3",
    "big_blind": "10",
    "max_memory_mb": f"{DEFAULT_MAX_MEMORY_MB:g}",
    "river_bets": "",
    "river_raises": "",
}
NUMBERS = {  # what each number field accepts (its label names it in messages)
    "pot": Number("Pot (chips)", 1, 1e9, whole=True),
    "stack": Number("Effective stack (chips)", 1, 1e9, whole=True),
    "big_blind": Number("Big blind (chips)", 0.01, 1e9),
    "raise_cap": Number("Raise cap", 0, 50, whole=True),
    "max_memory_mb": Number("Max memory (MB)", 1, machine_memory_mb()),
}
LABELS = {  # how messages name a River3Spec field
    "board": "Board",
    "range0": "Range of player 1 (first to act)",
    "range1": "Range of player 2 (second to act)",
    "range2": "Range of player 3 (last to act)",
    "bets": "Bets",
    "raises": "Raises",
    "river_bets": "River bets",
    "river_raises": "River raises",
    "tree": "Tree",
    "name": "Name",
    **{f: n.label for f, n in NUMBERS.items()},
}


def range_label(player: int) -> str:
    """The range field of ``player`` (0-based) by its place in the acting order."""
    return f"Player {player + 1} range ({POSITIONS[player]})"


@dataclass(frozen=True)
class Form:
    """What the form describes now: ``spec`` (None while a field is bad), ``errors`` (spec
    field → message naming it) and, when good, the ``estimate``."""

    spec: Spot3Spec | None
    errors: dict[str, str]
    estimate: River3Estimate | Turn3Estimate | None

    @property
    def turn(self) -> bool:
        return isinstance(self.spec, Turn3Spec)

    @property
    def valid(self) -> bool:
        return self.spec is not None and not self.errors


# ----- state -----------------------------------------------------------------------------------
def ensure() -> None:
    """Give each field its default the first time the form is seen in a session."""
    for field, key in KEYS.items():
        if state.get(key) is None:
            state.put(key, DEFAULTS[field])


def holdem_source() -> bool:
    """Whether Set up's source shows the hold'em form (neither a toy, a three-player toy nor
    a preflop game)."""
    src = str(state.get(state.SOURCE) or "")
    if S.toy_name(src) is not None or S.multi_name(src) is not None:
        return False
    return S.preflop_of_source(src, state.get(state.UPLOADED)) is None


def active() -> bool:
    """Whether Set up holds a three-way spot (river or turn): the hold'em form with 3
    players."""
    return state.get(state.SETUP_PLAYERS) == 3 and holdem_source()


_CHECKS: OrderedDict[Spot3Spec, Form] = OrderedDict()
_GAMES: OrderedDict[Spot3Spec, River3Game] = OrderedDict()
_KEPT = 16
_LOCK = threading.Lock()


def _checked(spec: Spot3Spec) -> Form:
    """``spec`` checked (the card-free trees and the memory only), kept for the last specs."""
    with _LOCK:
        got = _CHECKS.get(spec)
        if got is not None:
            return got
    est: River3Estimate | Turn3Estimate
    try:
        if isinstance(spec, Turn3Spec):
            _tsetup, _plan, est = checked_turn(spec)
        else:
            _setup, _tree, est = checked(spec)
        form = Form(spec, {}, est)
    except SpecError as exc:
        form = Form(spec, {exc.field: f"{LABELS.get(exc.field, exc.field)}: {exc.message}"}, None)
    with _LOCK:
        _CHECKS[spec] = form
        while len(_CHECKS) > _KEPT:
            _CHECKS.popitem(last=False)
    return form


def read() -> Form:
    """The form's fields read and checked (every number by its field; then the spot)."""
    ensure()
    errors: dict[str, str] = {}
    values: dict[str, object] = {}
    for field, key in KEYS.items():
        raw = state.get(key)
        if field in NUMBERS:
            value, error = NUMBERS[field].parse(raw)
            if error:
                errors[field] = error
            values[field] = value
        else:
            values[field] = str(raw or "")
    if errors:
        return Form(None, errors, None)
    cards = len(str(values["board"]).replace(",", " ").split())
    if cards not in (4, 5):
        message = f"four cards (a turn) or five (a river), got {cards}"
        return Form(None, {"board": f"{LABELS['board']}: {message}"}, None)
    spec: Spot3Spec
    if cards == 4:  # a turn: a blank river size is the turn's
        for f in TURN_ONLY:
            values[f] = str(values[f]).strip() or None
        spec = Turn3Spec(**values)  # type: ignore[arg-type]
    else:
        spec = River3Spec(**{k: v for k, v in values.items() if k not in TURN_ONLY})  # type: ignore[arg-type]
    form = _checked(spec)
    return Form(None, form.errors, None) if form.errors else form


def is_turn_board(text: object) -> bool:
    """Whether the board field holds four cards (counted, not parsed): a turn spot."""
    return len(str(text or "").replace(",", " ").split()) == 4


def label() -> str:
    """The spot's name on the three-player pages: a river's, or a turn's (four cards)."""
    return TURN_LABEL if is_turn_board(state.get(state.R3_BOARD)) else LABEL


def game_label(g: River3Game) -> str:
    """The name of a built spot (a running solve's): a river's, or a turn's."""
    return TURN_LABEL if g.is_turn else LABEL


def summary(spec: Spot3Spec, est: River3Estimate | Turn3Estimate) -> str:
    """One line on the spot and its size (the Solve page's caption)."""
    sizes = f"bets {spec.bets} · raises {spec.raises}"
    if isinstance(spec, Turn3Spec):
        sizes = (
            f"turn bets {spec.bets} · raises {spec.raises} · river bets "
            f"{spec.river_bets or spec.bets} · raises {spec.river_raises or spec.raises}"
        )
    return (
        f"Board {spec.board} · pot {spec.pot:g} · stack {spec.stack:g} · {sizes} · "
        f"{est.nodes:,} nodes · hands {' / '.join(map(str, est.hands))} · "
        f"{est.memory_mb:,.1f} MB. % pot: of the pot before anyone acts."
    )


def game(spec: Spot3Spec) -> River3Game:
    """The spot built for the engine (kept for the last specs; a SpecError names a field)."""
    with _LOCK:
        got = _GAMES.get(spec)
        if got is not None:
            return got
    built = river3_game(spec)
    with _LOCK:
        _GAMES[spec] = built
        while len(_GAMES) > 4:
            _GAMES.popitem(last=False)
    return built


# ----- the form --------------------------------------------------------------------------------
def players_choice() -> int:
    """The hold'em form's **Players** radio: 2 (heads-up, the form below) or 3 (this
    module's form). Returns the choice."""
    if state.get(state.SETUP_PLAYERS) not in PLAYERS:
        state.put(state.SETUP_PLAYERS, 2)
    return int(
        st.radio(
            "Players",
            PLAYERS,
            key=state.SETUP_PLAYERS,
            horizontal=True,
            persist_state=PERSIST,
            format_func=lambda n: "2 (heads-up)" if n == 2 else "3 (three-way)",
            help="3: a three-way river or turn spot — three ranges in acting order, a five- "
            "or four-card board, equal stacks; each player's Nash distance is reported "
            "(docs/multiway.md)",
        )
    )


def _errors(form: Form, *fields: str) -> None:
    for f in fields:
        if f in form.errors:
            st.error(form.errors[f], icon=":material/error:")


def _range_stats(text: str, board: str) -> None:
    try:
        w = parse_range(text)
        on_board = combo_count(w, board)
    except (RangeError, ValueError):
        return
    st.caption(f"{combos_text(combo_count(w))}; {combos_text(on_board)} with the board's "
               "cards removed")  # fmt: skip


def render() -> None:
    """The three-way spot's form, its messages and its estimate."""
    ensure()
    form = read()
    turn = is_turn_board(state.get(state.R3_BOARD))
    st.caption(
        "Three players on the river or the turn (a four-card board: the river is dealt by "
        "chance, every card), in acting order: player 1 acts first, player 3 last. "
        "Equal stacks (no side pots); a fold leaves the other two to play on. A solve "
        "reports each player's Nash distance, not an exploitability (docs/multiway.md)."
    )
    st.subheader("Board and chips")
    st.text_input(
        "Board (5 cards: the river; 4: the turn)",
        key=state.R3_BOARD,
        persist_state=PERSIST,
        help="e.g. `Ks 7d 2c 9h 3s`, or `Ks 7d 2c 9h`",
    )
    _errors(form, "board")
    c = st.columns(4)
    for col, field in zip(c, ("pot", "stack", "big_blind", "max_memory_mb"), strict=True):
        number_field(NUMBERS[field], KEYS[field], container=col, show_error=False)
    _errors(form, "pot", "stack", "big_blind", "max_memory_mb")
    st.subheader("Bet sizes")
    st.caption("`50%` of the pot, `2.5x` the bet faced (raises), `a` all-in, `120c` chips; "
               "comma separated; the same for the three players.")  # fmt: skip
    b = st.columns(3)
    street = "Turn " if turn else ""
    b[0].text_input(f"{street}bets".capitalize(), key=state.R3_BETS, persist_state=PERSIST)
    b[1].text_input(f"{street}raises".capitalize(), key=state.R3_RAISES, persist_state=PERSIST)
    number_field(NUMBERS["raise_cap"], state.R3_RAISE_CAP, container=b[2], show_error=False,
                 help="raises after the first bet, per street")  # fmt: skip
    if turn:
        r = st.columns(3)
        r[0].text_input(
            "River bets",
            key=R3_RIVER_BETS,
            persist_state=PERSIST,
            placeholder="blank: the turn's",
            help="the river's bet sizes",
        )
        r[1].text_input(
            "River raises",
            key=R3_RIVER_RAISES,
            persist_state=PERSIST,
            placeholder="blank: the turn's",
            help="the river's raise sizes",
        )
    _errors(form, "bets", "raises", "raise_cap", "river_bets", "river_raises", "tree")
    st.subheader("Ranges, in acting order")
    cols = st.columns(3)
    board = str(state.get(state.R3_BOARD) or "")
    for p, (col, key) in enumerate(zip(cols, RANGE_KEYS, strict=True)):
        with col:
            st.text_area(range_label(p), key=key, height=110, persist_state=PERSIST)
            _errors(form, f"range{p}")
            _range_stats(str(state.get(key) or ""), board)
    _errors(form, "name")
    st.subheader("Tree")
    if form.valid and form.estimate is not None:
        e = form.estimate
        m = st.columns(4)
        m[0].metric("Nodes", f"{e.nodes:,}")
        if isinstance(e, Turn3Estimate):
            st.caption(f"Both streets: the turn's {e.turn_nodes:,} nodes, then "
                       f"{e.chance_nodes:,} chance node(s) dealing each of "
                       f"{e.river_cards} river cards (no suit isomorphism).")  # fmt: skip
        m[1].metric("Decision nodes (P1 / P2 / P3)", " / ".join(f"{n:,}" for n in e.decision_nodes))
        m[2].metric("Hands (P1 / P2 / P3)", " / ".join(str(h) for h in e.hands))
        m[3].metric("Memory", f"{e.memory_mb:,.1f} MB")
        nav.link("solve", "Ready: go to Solve →", ":material/play_arrow:")
    else:
        st.warning("Fix the fields marked above; Solve stays disabled until then.")
