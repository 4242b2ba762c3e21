"""The preflop set-up form's fields (stack, tree, raise sizes, blinds, ante) drawn under the
widget keys the caller gives, each field's message under its row. Data in, elements out: the
values come back through the widgets' keys; nothing here starts a solve.

The ranges are not drawn here: Set up draws them with the hold'em form's range widgets."""

from __future__ import annotations

from collections.abc import Mapping

import streamlit as st

from app.components.fields import PERSIST
from app.features.number_fields import number_field
from app.preflop_spec import NUMBERS, TREE_LABELS, tree_names

HELP = {
    "stack_bb": "each player's stack before posting, in big blinds (1 to 50)",
    "sb": "in any unit, the same as the big blind's (the game divides by the big blind)",
    "bb": "the unit of the game: EVs and exploitability read in big blinds",
    "ante": "per player, dead money (it does not count toward a bet); 0 = none",
}


def preflop_fields(keys: Mapping[str, str], errors: Mapping[str, str], tree: str) -> None:
    """Stack, tree and raise sizes on one row, blinds and ante on the next. ``keys`` maps a
    spec field (``stack_bb``, ``tree``, ``raise_sizes``, ``sb``, ``bb``, ``ante``) to its
    widget key; ``errors`` a spec field to its message; ``tree`` is the tree chosen now (the
    raise sizes are only for raise/jam)."""
    st.subheader("Stack and tree")
    c = st.columns([1, 1.2, 1.6])
    number_field(NUMBERS["stack_bb"], keys["stack_bb"], container=c[0], help=HELP["stack_bb"],
                 show_error=False)  # fmt: skip
    c[1].selectbox(
        "Tree",
        tree_names(),
        format_func=lambda t: TREE_LABELS.get(t, t),
        key=keys["tree"],
        persist_state=PERSIST,
        help="push/fold: SB folds or shoves, BB folds or calls. raise/jam: SB may also raise "
        "to a size; BB folds or shoves over it; SB folds or calls (docs/preflop.md)",
    )
    c[2].text_input(
        "Raise sizes (bb)",
        key=keys["raise_sizes"],
        persist_state=PERSIST,
        disabled=tree != "raise-jam",
        help="raise-to amounts in big blinds, comma separated (`2, 2.5`; `2x` = 2 bb); "
        "raise/jam only. A size equal to the all-in is the shove itself",
    )
    _errors(errors, "stack_bb", "tree", "raise_sizes")
    st.subheader("Blinds and ante")
    b = st.columns(3)
    for col, key in zip(b, ("sb", "bb", "ante"), strict=True):
        number_field(NUMBERS[key], keys[key], container=col, help=HELP[key], show_error=False)
    _errors(errors, "sb", "bb", "ante")


def _errors(errors: Mapping[str, str], *fields: str) -> None:
    for f in fields:
        if f in errors:
            st.error(errors[f], icon=":material/error:")
