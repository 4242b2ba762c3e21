"""Set up: pick a preset, a toy game, a custom hold'em spot or a preflop game; edit board,
chips, bet sizes (preflop: stack, tree, raise sizes, blinds, ante) and both ranges (text ↔
clickable 13×13 grid); see errors next to their fields and the tree size before solving."""

from __future__ import annotations

import functools

import numpy as np
import streamlit as st

from app import nav, state
from app import preflop_spec as PF
from app import spec as S
from app.components.colors import CARD_SUIT_COLORS
from app.components.fields import PERSIST, duration
from app.components.number_formats import combos_text
from app.components.paint_canvas import LABELS, Cell, paint_canvas, stroke_of
from app.features import river3_form
from app.features.number_fields import number_field
from app.features.preflop_fields import preflop_fields
from app.features.simplified_note import simplified_note
from app.request import PF_WIDGET, WIDGET, Request, current_request, ensure_form, load_source
from solver.files.presets import PresetError, parse_preset_bytes
from solver.games.holdem import SpecError, size_notes
from solver.games.source import HoldemSource
from solver.games.spec import DEFAULT_MAX_MEMORY_MB, HoldemSetup
from solver.poker.cards import RANKS, SUITS, card_str, parse_cards
from solver.poker.ranges import (
    GRID_LABELS,
    RangeError,
    combo_count,
    grid_from_weights,
    parse_range,
    percent_of_all,
    range_to_text,
    set_cell,
)
from solver.run import calibration

_NOTES: dict[int, tuple[HoldemSetup, tuple[str, ...]]] = {}  # id(setup) → (setup, lines)


def _notes_of(setup: HoldemSetup) -> tuple[str, ...]:
    """Each size the spot plays at another amount than asked, as a line (the card-free tree
    only: cheap), kept per checked setup (the request keeps the same setup for a spec)."""
    got = _NOTES.get(id(setup))
    if got is not None and got[0] is setup:
        return got[1]
    try:
        notes = size_notes(setup)
    except SpecError:  # (a checked setup builds its bet tree: kept as a guard)
        notes = []
    lines = tuple(
        n.text() + ("; the Big blind field sets it" if n.big_blind else "") for n in notes
    )
    if len(_NOTES) >= 64:
        _NOTES.pop(next(iter(_NOTES)), None)
    _NOTES[id(setup)] = (setup, lines)
    return lines


def _size_notes(req: Request) -> None:
    """Under the sizes: which size is played as what (minimum bet or raise, all-in, merged),
    from the setup the request's check made (not checked again)."""
    source = req.source
    if req.errors or not isinstance(source, HoldemSource) or source.setup is None:
        return
    lines = _notes_of(source.setup)
    if lines:
        st.info(
            "Sizes played at another amount than typed:\n\n"
            + "\n".join(f"- {line}" for line in lines),
            icon=":material/info:",
        )


def _on_source_change() -> None:
    load_source(str(state.get(state.SOURCE)))


def _field_error(errors: dict[str, str], *fields: str) -> None:
    """The messages of ``fields`` (spec field names), each naming its field."""
    for f in fields:
        if f in errors:
            st.error(errors[f], icon=":material/error:")


def render() -> None:
    ensure_form()
    st.title("Set up a game")
    simplified_note()  # the current solve lacks some sizes (Explore's sizes view)
    choices = S.sources()
    if state.get(state.UPLOADED) is not None:
        choices["upload"] = "Uploaded preset: " + state.get(state.UPLOADED).name
    c1, c2 = st.columns([2, 1])
    with c1:
        st.selectbox(
            "Game or preset",
            list(choices),
            format_func=lambda k: choices[k],
            key=state.SOURCE,
            persist_state=PERSIST,
            on_change=_on_source_change,
        )
    with c2:
        st.file_uploader(
            "Upload a preset (TOML)",
            type=["toml"],
            key=state.UPLOAD,
            on_change=_on_upload,
        )
        msg = state.get(state.SETUP_UPLOAD_MESSAGE)
        if msg:
            st.error(msg, icon=":material/error:")
    source_id = str(state.get(state.SOURCE))
    if source_id.startswith("preset:"):
        p = S.presets().get(source_id[7:])
        if p is not None and p.description:
            st.caption(p.description)
    req = current_request()
    if S.preflop_of_source(source_id, state.get(state.UPLOADED)) is not None:
        _preflop_form(req)
        return
    if S.multi_name(source_id) is not None:
        st.info(
            f"{req.label}: a toy game of three players with fixed rules (OpenSpiel's). A solve "
            "reports each player's Nash distance, not an exploitability (docs/multiway.md). "
            "Head to **Solve** to solve it."
        )
        nav.link("solve", "Go to Solve →", ":material/play_arrow:")
        return
    if req.spec is None:
        st.info(f"{req.label}: a toy game with fixed rules. Head to **Solve** to solve it.")
        nav.link("solve", "Go to Solve →", ":material/play_arrow:")
        return
    _holdem_form(req)


def _on_upload() -> None:
    """Parse an uploaded preset (a callback: it may switch the game before widgets draw)."""
    state.put(state.SETUP_UPLOAD_MESSAGE, None)
    up = state.get(state.UPLOAD)
    if up is None:
        return
    try:
        preset = parse_preset_bytes(
            up.getvalue(),
            key="upload",
            source=up.name,
            max_memory_mb=DEFAULT_MAX_MEMORY_MB,  # a file never raises the memory cap
        )
    except PresetError as exc:
        state.put(state.SETUP_UPLOAD_MESSAGE, str(exc))
        return
    if preset.holdem is None and preset.preflop is None:
        state.put(state.SOURCE, _toy_source(preset.game))
        load_source(str(state.get(state.SOURCE)))
        return
    state.put(state.UPLOADED, preset)
    state.put(state.SOURCE, "upload")
    load_source("upload")


def _toy_source(game: str) -> str:
    for key in S.sources():
        if S.toy_name(key) == game:
            return key
    return S.default_source()


def _preflop_form(req: Request) -> None:
    """Stack, tree, raise sizes, blinds, ante and both ranges of a preflop game."""
    errors = req.errors
    preflop_fields(PF_WIDGET, errors, str(state.get(state.PF_TREE) or ""))
    st.subheader("Ranges")
    c2 = st.columns(2)
    for col, who, key in ((c2[0], "SB", state.OOP_RANGE), (c2[1], "BB", state.IP_RANGE)):
        with col:
            st.text_area(f"{who} range", key=key, height=110, persist_state=PERSIST)
            _field_error(errors, f"{who.lower()}_range")
            _range_stats(str(state.get(key) or ""), "")
    _range_grid_editor(("SB", "BB"))
    st.subheader("Tree")
    if req.valid and req.preflop is not None:
        tree = PF.TREE_LABELS.get(req.preflop.tree, req.preflop.tree)
        st.caption(
            f"Heads-up preflop {tree}: every line that does not fold ends all-in, and each "
            "all-in runs out exactly over every board (docs/preflop.md). Chips are big "
            "blinds: exploitability and EVs read in bb and mbb/hand."
        )
        nav.link("solve", "Ready: go to Solve →", ":material/play_arrow:")
    else:
        st.warning("Fix the fields marked above; Solve stays disabled until then.")


def _holdem_form(req: Request) -> None:
    if river3_form.players_choice() == 3:  # a three-way river spot (docs/multiway.md)
        river3_form.render()
        return
    errors = req.errors
    st.subheader("Board and chips")
    st.text_input(
        "Board (3, 4 or 5 cards)",
        key=state.BOARD,
        persist_state=PERSIST,
        help="e.g. `Td 9d 6h Qc 2s`; flop, turn or river",
    )
    _field_error(errors, "board")
    # tracked, so it stays open across reruns; its 52 buttons render only while open
    picker = st.expander("Pick board cards", key=state.BOARD_PICKER_OPEN, on_change="rerun")
    if picker.open:
        with picker:
            _board_picker()
    c = st.columns(4)
    for col, key in zip(c, ("pot", "stack", "big_blind", "max_memory"), strict=True):
        _number(col, key)
    _field_error(errors, "pot", "stack", "big_blind", "max_memory_mb")
    st.subheader("Bet sizes")
    st.caption(
        "`33%` of the pot, `2.5x` the bet faced (raises), `a` all-in, `3e` geometric over 3 "
        "streets, `120c` chips; comma separated. They apply on every street to both players "
        "unless overridden below."
    )
    b = st.columns(3)
    b[0].text_input("Bets", key=state.BETS, persist_state=PERSIST)
    b[1].text_input("Raises", key=state.RAISES, persist_state=PERSIST)
    b[2].text_input(
        "Donk bets (OOP, turn/river; empty = as bets)", key=state.DONKS, persist_state=PERSIST
    )
    _field_error(errors, "bets", "raises", "donks")
    _street_sizes(errors)
    c4 = st.columns(4)
    for col, key in zip(c4, ("raise_cap", "add_allin", "force_allin", "merging"), strict=True):
        _number(col, key)
    _field_error(errors, "raise_cap", "add_allin_threshold", "force_allin_threshold")
    _field_error(errors, "merging_threshold", "tree")
    _size_notes(req)
    st.subheader("Rake")
    r = st.columns(4)
    for col, key in zip(r[:2], ("rake", "rake_cap"), strict=True):
        _number(col, key)
    _field_error(errors, "rake_pct", "rake_cap")
    if not errors.get("rake_pct") and _positive(state.get(state.RAKE)):
        st.caption(
            "Every fold and showdown is raked. The spot is then not zero-sum: exploitability "
            "is NashConv/2 (half the sum of both players' best-response gains), and the "
            "players' EVs sum to the pot less the expected rake."
        )
    st.subheader("Ranges")
    c2 = st.columns(2)
    for col, who, key in ((c2[0], "OOP", state.OOP_RANGE), (c2[1], "IP", state.IP_RANGE)):
        with col:
            st.text_area(f"{who} range", key=key, height=110, persist_state=PERSIST)
            _field_error(errors, f"{who.lower()}_range")
            _range_stats(str(state.get(key) or ""), str(state.get(state.BOARD) or ""))
    _range_grid_editor()
    st.subheader("Tree")
    if req.estimate is not None and not errors:
        e = req.estimate
        m = st.columns(5)
        m[0].metric("Nodes", f"{e.nodes:,}")
        m[1].metric("Decision nodes", f"{e.decision_nodes:,}")
        m[2].metric("Hands (OOP / IP)", f"{e.hands[0]} / {e.hands[1]}")
        m[3].metric("Memory", f"{e.memory_mb:,.1f} MB")
        cost = calibration.load()
        m[4].metric(
            "Time per iteration",
            "≈ " + duration(cost.seconds(calibration.cells_of_estimate(e))),
            help=calibration_help(cost),
        )
        nav.link("solve", "Ready: go to Solve →", ":material/play_arrow:")
    else:
        st.warning("Fix the fields marked above; Solve stays disabled until then.")


def calibration_help(cost: calibration.Cost) -> str:
    where = "measured on this machine" if cost.measured else "a default until a solve here is timed"
    return (
        f"one thread, from the tree's hand-cells × {cost.ns_per_cell:.2g} ns per hand-cell "
        f"({where}); good to about a factor of two (docs/app.md, 'Estimates')"
    )


NUMBER_HELP = {
    "big_blind": "the smallest bet, and the unit of mbb/hand; srp presets 10, Libratus 100",
    "max_memory": "bigger trees are refused before anything is allocated (the estimate below)",
    "raise_cap": "raises per street after the first bet",
    "add_allin": "offer all-in when the stack is at most this many pots; 0 = off",
    "force_allin": "a bet leaving an SPR at or below this after a call becomes all-in; 0 = off",
    "merging": "of two sizes within this many pots keep the larger; 0 = off",
    "rake": "taken from the pot at every fold and showdown, as Pio, GTO+ and Desktop Postflop "
    "take it (a fold rakes the called pot); 0 = no rake",
    "rake_cap": "the most the rake takes from one pot, in chips; 0 = no cap",
}


def _positive(text: object) -> bool:
    """Whether a rake field's text is a number above 0."""
    value, error = S.NUMBERS["rake"].parse(text)
    return not error and value is not None and value > 0


def _number(col: object, key: str) -> None:
    """The number field of form field ``key`` (its message shows under the row)."""
    number_field(
        S.NUMBERS[key], WIDGET[key], container=col, help=NUMBER_HELP.get(key), show_error=False
    )


def _street_sizes(errors: dict[str, str]) -> None:
    """Per-street, per-player overrides of the sizes above (empty = as above)."""
    overridden = any(k.startswith("sizes.") for k in errors) or any(
        state.get(S.size_key(*slot)) for slot in S.SIZE_SLOTS
    )
    with st.expander("Sizes per street and player", expanded=overridden):
        st.caption("Leave a field empty to use the sizes above.")
        for street in S.STREETS:
            cols = st.columns(6)
            cols[0].markdown(f"**{street.capitalize()}**")
            slots = [s for s in S.SIZE_SLOTS if s[0] == street]
            for col, (_, player, kind) in zip(cols[1:], slots, strict=False):
                col.text_input(
                    f"{player.upper()} {kind}",
                    key=S.size_key(street, player, kind),
                    persist_state=PERSIST,
                    placeholder="as above",
                )
            for key, msg in errors.items():
                if key.startswith(f"sizes.{street}."):
                    st.error(msg, icon=":material/error:")


def _range_stats(text: str, board: str) -> None:
    try:
        w = parse_range(text)
    except (RangeError, ValueError):
        return
    try:
        on_board = combo_count(w, board) if board.strip() else combo_count(w)
    except ValueError:
        on_board = combo_count(w)
    st.caption(
        f"{combos_text(combo_count(w))} ({percent_of_all(w):.1f} % of 1,326); "
        f"{combos_text(on_board)} with the board's cards removed"
    )


def _board_picker() -> None:
    """52 clickable cards (suits coloured); a click adds or removes the card."""
    try:
        current = list(parse_cards(str(state.get(state.BOARD) or "")))
    except ValueError:
        current = []
    css = []
    for r in reversed(range(13)):
        for s in range(4):
            key = f"card_{RANKS[r]}{SUITS[s]}"
            sel = r * 4 + s in current
            bg = CARD_SUIT_COLORS[SUITS[s]]
            css.append(
                f".st-key-{key} button {{color: {'white' if sel else bg}; "
                f"background: {bg if sel else 'white'}; border-color: {bg}; "
                "padding: 0 2px; min-height: 1.8rem;}"
            )
    st.html(f"<style>{''.join(css)}</style>")
    for s in range(4):
        cols = st.columns(13, gap="small")
        for i, r in enumerate(reversed(range(13))):
            card = r * 4 + s
            cols[i].button(
                f"{RANKS[r]}{'♠♥♦♣'[s]}",
                key=f"card_{RANKS[r]}{SUITS[s]}",
                on_click=_toggle_card,
                args=(card,),
            )


def _toggle_card(card: int) -> None:
    try:
        cards = list(parse_cards(str(state.get(state.BOARD) or "")))
    except ValueError:
        cards = []
    if card in cards:
        cards.remove(card)
    elif len(cards) < 5:
        cards.append(card)
    state.put(state.BOARD, " ".join(card_str(c) for c in cards))


def _range_grid_editor(who: tuple[str, str] = ("OOP", "IP")) -> None:
    """Click a cell to set it to the chosen weight (click again to clear it), or paint cells
    with the brush (Drag over cells: the cells the pointer passes over); the text box
    follows. ``who`` names the two ranges (the preflop form's: SB and BB)."""
    # tracked, so it stays open across reruns; its 169 buttons render only while open
    editor = st.expander(
        "Edit a range on the 13×13 grid", key=state.GRID_EDITOR_OPEN, on_change="rerun"
    )
    if not editor.open:
        return
    with editor:
        c = st.columns([1, 2])
        c[0].radio(
            "Range",
            ["OOP", "IP"],
            format_func=dict(zip(("OOP", "IP"), who, strict=True)).__getitem__,
            key=state.GRID_PLAYER,
            horizontal=True,
            persist_state=PERSIST,
        )
        c[1].slider(
            "Weight of a clicked or painted cell",
            0.0,
            1.0,
            1.0,
            0.05,
            key=state.GRID_WEIGHT,
            persist_state=PERSIST,
        )
        key = state.OOP_RANGE if state.get(state.GRID_PLAYER, "OOP") == "OOP" else state.IP_RANGE
        try:
            w = parse_range(str(state.get(key) or ""))
        except (RangeError, ValueError) as exc:
            st.error(f"Fix the range text first: {exc}", icon=":material/error:")
            return
        grid = grid_from_weights(w)
        css = []
        for i in range(13):
            for j in range(13):
                label = GRID_LABELS[i][j]
                v = float(grid[i, j])
                base = "#fbe3c4" if i == j else ("#dbe9f7" if i < j else "#eeeeee")
                bg = f"rgba(212, 61, 51, {0.25 + 0.75 * v:.2f})" if v > 0 else base
                css.append(
                    f".st-key-cell_{label} button {{background: {bg}; padding: 0; "
                    "min-height: 1.7rem; font-size: 0.7rem; border-radius: 2px;}"
                )
        st.html(f"<style>{''.join(css)}</style>")
        click, drag = st.tabs(["Click cells", "Drag over cells"])
        with click:
            for i in range(13):
                cols = st.columns(13, gap="small")
                for j in range(13):
                    label = GRID_LABELS[i][j]
                    cols[j].button(
                        label, key=f"cell_{label}", on_click=_toggle_cell, args=(key, label)
                    )
        with drag:
            st.radio(
                "A click or a drag over cells",
                ["Set weight", "Clear"],
                key=state.GRID_DRAG,
                persist_state=PERSIST,
                horizontal=True,
                help="Set weight: every cell the pointer passes over gets the weight above "
                "(a click on a cell already at that weight clears it, as on Click cells). "
                "Clear: every cell the pointer passes over leaves the range.",
            )
            paint_canvas(
                range_cells(grid),
                key=state.GRID_PAINT,
                on_stroke=functools.partial(_paint_stroke, key),
                size=400,
            )
            st.caption("Click a cell, or drag over cells: the cells the pointer passes over.")
        st.caption(
            "Pairs on the diagonal (orange), suited above it (blue), offsuit below (grey); "
            "red = in range, deeper = higher weight."
        )


def paint_cells(text: str, labels: list[str], weight: float) -> str:
    """The range ``text`` with every class in ``labels`` set to ``weight`` (0 removes it),
    as the shortest range text. Raises RangeError/ValueError on a malformed ``text``."""
    w = parse_range(text)
    for label in labels:
        w = set_cell(w, label, weight)
    return range_to_text(w)


def stroke_range(text: str, labels: list[str], weight: float) -> str:
    """The range ``text`` after a brush stroke over ``labels`` (the cells the pointer passed
    over) with ``weight`` (0: Clear): every cell gets ``weight``, except that a click (one
    cell) on a cell already at ``weight`` clears it, as a click on the Click cells tab does.
    Raises RangeError/ValueError on a malformed ``text``."""
    if len(labels) == 1 and weight > 0:
        i, j = _cell_index(labels[0])
        if abs(float(grid_from_weights(parse_range(text))[i, j]) - weight) < 1e-9:
            weight = 0.0
    return paint_cells(text, labels, weight)


def range_cells(grid: np.ndarray) -> list[Cell]:
    """The brush grid's 169 cells (cell ``k`` is ``LABELS[k]``) for the (13, 13) weights
    ``grid``: cells in the range red, deeper for a higher weight (state ``in``), the others in
    the grid's pair/suited/offsuit tints (``out``)."""
    out = []
    for k, label in enumerate(LABELS):
        i, j = divmod(k, 13)
        v = float(grid[i, j]) if np.isfinite(grid[i, j]) else 0.0
        if v > 0:
            fill = f"rgba(212, 61, 51, {0.25 + 0.75 * v:.2f})"
            out.append(Cell(fill, "#222", f"{label}: weight {v:.2f}", "in"))
        else:
            tint = "#fbe3c4" if i == j else ("#dbe9f7" if i < j else "#eeeeee")
            out.append(Cell(tint, "#222", f"{label}: not in the range", "out"))
    return out


def _paint_stroke(key: str) -> None:
    """A stroke on the brush grid ended: apply it to the range text under ``key``."""
    labels = stroke_of(state.get(state.GRID_PAINT))
    if not labels:
        return
    weight = (
        0.0
        if state.get(state.GRID_DRAG, "Set weight") == "Clear"
        else state.get(state.GRID_WEIGHT, 1.0)
    )
    try:
        state.put(key, stroke_range(str(state.get(key) or ""), labels, float(weight)))
    except (RangeError, ValueError):
        return


def _toggle_cell(key: str, label: str) -> None:
    try:
        w = parse_range(str(state.get(key) or ""))
    except (RangeError, ValueError):
        return
    i, j = _cell_index(label)
    current = float(grid_from_weights(w)[i, j])
    target = float(state.get(state.GRID_WEIGHT, 1.0))
    new = 0.0 if current > 0 and abs(current - target) < 1e-9 else target
    state.put(key, range_to_text(set_cell(w, label, new)))


@functools.cache
def _cell_index(label: str) -> tuple[int, int]:
    for i in range(13):
        for j in range(13):
            if GRID_LABELS[i][j] == label:
                return i, j
    raise KeyError(label)


def weights_grid(text: str) -> np.ndarray | None:
    try:
        return grid_from_weights(parse_range(text))
    except (RangeError, ValueError):
        return None
