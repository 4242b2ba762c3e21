"""The **Locks** expander of the three-player Solve page (issue 49; docs/locking.md,
docs/multiway.md): lock text pasted or uploaded in the heads-up locks file's format,
``{"LINE": MIX}``, resolved against the game (:mod:`solver.games.multi_locks`; a three-way
river or turn spot's by :mod:`solver.games.holdem3_locks`) and shown in words ("player 3 at
'k b': K: call 100 %"; a spot's combos grouped by mix and hand class, "AKo ×9"), applied to
the next solve.

A lock that cannot be applied is shown with the resolver's message (naming the line and
hand), and the locks applied before stay. Players are counted from 1 here, as everywhere in
the app (the lock text's lines imply the player: whoever acts there)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import streamlit as st

from app import state
from app.components.fields import PERSIST
from app.components.multi_figures import player_label
from solver.cfr.multi_solve import ThreeGame, action_word, resolve_locks
from solver.cfr.river3_view import River3Game
from solver.files.multi_export import hand_class
from solver.games.multi_locks import MultiLockError, MultiLocks
from solver.games.spec import SpecError
from solver.poker.ranges import GRID_LABELS

_GRID_ORDER = {cell: k for k, cell in enumerate(c for row in GRID_LABELS for c in row)}
"""A hand class's place in the 13×13 grid read row by row (AA, AKs, AQs, …, AKo, KK, …)."""
GameOf = ThreeGame | Callable[[], ThreeGame]
"""The game locks resolve against, or how to get it (a spot built only when locks are applied)."""

K = "multi_locks_"
TEXT = K + "text"  # text area: the lock text (JSON)
UPLOAD = K + "upload"  # file uploader: a locks file
APPLIED = K + "applied"  # (game name, MultiLocks): what the next solve plays, or None
ERROR = K + "error"  # why the last Apply or upload was refused, or None
MAX_FILE_BYTES = 1_000_000  # as the CLI's --locks (solver.cli.args.MAX_JSON_FILE_BYTES)
UPLOAD_MB = 1  # what the browser sends at most
SHOWN = 40  # lines listed in words; the rest counted
EXAMPLE = '{"k b": {"K": {"c": 1}, "*": {"f": 1}}, "root": {"k": 0.5, "b": 0.5}}'
SPOT_EXAMPLE = '{"root": {"AA": {"k": 1}, "*": {"k": 0.5, "b:30": 0.5}}, "k": {"c": 1}}'


def spot_key(spec: object) -> str:
    """The name locks are applied under for a river or turn spot: its every field (locks
    resolved against one spot are never played on another)."""
    return f"river3:{spec!r}"


def applied(name: str) -> MultiLocks | None:
    """The locks applied for the game ``name`` (a toy game's name, or :func:`spot_key`;
    None: none, or applied to another game)."""
    held = state.get(APPLIED)
    if isinstance(held, tuple) and len(held) == 2 and held[0] == name:
        return held[1] if isinstance(held[1], MultiLocks) else None
    return None


def _mix_words(mix: dict[str, float]) -> str:
    return ", ".join(f"{action_word(a)} {100 * p:.3g} %" for a, p in mix.items() if p > 0)


def described(locks: MultiLocks, combos: bool = False) -> list[str]:
    """The locks in words, one line per player and node: "player 3 at 'k b': K: call
    100 %; J: fold 100 %" (actions played 0 left out). ``combos`` (a river or turn spot's
    hands, ``KhAh``): per node each mix once, with the hand classes playing it and their
    combos counted in grid order — "player 1 at 'root': bet 30 100 % — AA ×6, AKs ×3;
    check 100 % — KhAd" (a class of one combo named by it)."""
    if not combos:
        rows: dict[tuple[int, str], list[str]] = {}
        for s in locks.sets:
            rows.setdefault((s.player, s.line), []).append(f"{s.hand}: {_mix_words(s.mix)}")
        return [f"{player_label(p)} at {line!r}: " + "; ".join(hands)
                for (p, line), hands in rows.items()]  # fmt: skip
    nodes: dict[tuple[int, str], dict[str, dict[str, list[str]]]] = {}
    for s in locks.sets:  # node → mix in words → hand class → its combos, in profile order
        by_mix = nodes.setdefault((s.player, s.line), {})
        by_mix.setdefault(_mix_words(s.mix), {}).setdefault(hand_class(s.hand), []).append(s.hand)
    out = []
    for (p, line), by_mix in nodes.items():
        parts = []
        for mix, classes in by_mix.items():
            ordered = sorted(classes.items(), key=lambda kv: _GRID_ORDER[kv[0]])
            hands = ", ".join(c[0] if len(c) == 1 else f"{cls} ×{len(c)}"
                              for cls, c in ordered)  # fmt: skip
            parts.append(f"{mix} — {hands}")
        out.append(f"{player_label(p)} at {line!r}: " + "; ".join(parts))
    return out


def resolve_text(mgame: GameOf, text: str, profile: Any = None) -> MultiLocks | None:
    """``text`` (the lock JSON) resolved against ``mgame`` (a toy game, a river or turn
    spot, or a callable making it; blank: no locks); "solved" locks take ``profile``.
    ValueError with a message for the page."""
    if not text.strip():
        return None
    try:
        spec = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(spec, dict):
        raise ValueError('the locks are one JSON object, {"LINE": MIX, ...}')
    return resolve_locks(mgame() if callable(mgame) else mgame, spec, profile)


def _apply(name: str, mgame: GameOf, profile: Any) -> None:
    state.put(ERROR, None)
    try:
        locks = resolve_text(mgame, str(state.get(TEXT) or ""), profile)
    except (MultiLockError, SpecError, ValueError) as exc:
        state.put(ERROR, f"Not applied (the locks before stay): {exc}")
        return
    state.put(APPLIED, None if locks is None else (name, locks))


def _clear() -> None:
    state.put(ERROR, None)
    state.put(APPLIED, None)
    state.put(TEXT, "")


def _upload(name: str, mgame: GameOf, profile: Any) -> None:
    state.put(ERROR, None)
    upload = state.get(UPLOAD)
    if upload is None:
        return
    raw = upload.getvalue()
    if len(raw) > MAX_FILE_BYTES:
        state.put(ERROR, f"Not loaded: the file is over {MAX_FILE_BYTES:,} bytes")
        return
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        state.put(ERROR, "Not loaded: the file is not UTF-8 text")
        return
    state.put(TEXT, text)
    _apply(name, mgame, profile)


SPOT_HELP = (
    'As a heads-up locks file: `{"LINE": MIX}`. LINE is the node\'s actions from the root, '
    "space-separated (`k` check, `b:30` bet to 30 chips this street, `c` call, `f` fold, "
    "`r:120` raise to 120, on a turn spot `d:Qc` the river card; `root`); whoever acts there "
    'is locked. MIX is `{"ACTION": p}` for every hand, `{"HAND": {"ACTION": p}}` for some — '
    "a combo (`AhKd`), a range (`AKs`, `QQ+`) or a hand class (`top_pair`, `flush_draw`); "
    '`*` the others —, or `"solved"` (the last solve\'s strategy). Applied to the next solve '
    "(docs/locking.md)."
)


def render(
    name: str, mgame: GameOf, running: bool, profile: Any = None, spot: bool = False
) -> None:
    """The expander for the game ``name`` (``mgame``, or a callable making it when locks are
    applied; ``spot``: a river or turn spot's, ``name`` its :func:`spot_key`); ``profile``:
    the average profile of this game's last solve, for "solved" locks (None: none)."""
    spot = spot or isinstance(mgame, River3Game)
    locks = applied(name)
    error = state.get(ERROR)
    count = f" · {len(locks.sets)} information sets locked" if locks is not None else ""
    with st.expander("Locks" + count, expanded=locks is not None or bool(error)):
        st.caption(
            SPOT_HELP
            if spot
            else 'As a heads-up locks file: `{"LINE": MIX}`. LINE is the node\'s actions from '
            "the root, space-separated (`k` check, `b` bet, `c` call, `f` fold, `r` raise, "
            "`d:Qs` the board card; `root`); whoever acts there is locked. MIX is "
            '`{"ACTION": p}` for every hand, `{"HAND": {"ACTION": p}}` for some (`K`, `Qs`; '
            '`*` the others), or `"solved"` (the last solve\'s strategy). Applied to the next '
            "solve (docs/locking.md)."
        )
        st.text_area(
            "Locks (JSON)",
            key=TEXT,
            height=110,
            placeholder=SPOT_EXAMPLE if spot else EXAMPLE,
            disabled=running,
            persist_state=PERSIST,
        )
        c = st.columns([1, 1, 3], vertical_alignment="bottom")
        c[0].button("Apply", key=K + "apply", on_click=_apply, args=(name, mgame, profile),
                    disabled=running, width="stretch")  # fmt: skip
        c[1].button("Clear", key=K + "clear", on_click=_clear, disabled=running, width="stretch")
        c[2].file_uploader(
            "or load a locks file",
            type=["json"],
            key=UPLOAD,
            on_change=_upload,
            args=(name, mgame, profile),
            max_upload_size=UPLOAD_MB,
            disabled=running,
            help=f"the same JSON as `--locks` takes (over {MAX_FILE_BYTES:,} bytes refused)",
        )
        if error:
            st.error(str(error), icon=":material/error:")
        if locks is None:
            st.caption("No locks: every player solves freely.")
            return
        lines = described(locks, combos=spot)
        shown = "\n".join(f"- {x}" for x in lines[:SHOWN])
        more = f"\n\n… and {len(lines) - SHOWN} more nodes" if len(lines) > SHOWN else ""
        st.markdown("**Applied to the next solve:**\n\n" + shown + more)
