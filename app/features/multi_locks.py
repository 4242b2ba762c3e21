"""The **Locks** expander of the three-player Solve page (issue 49; docs/locking.md,
docs/multiway.md): lock text pasted or uploaded in the heads-up locks file's format,
``{"LINE": MIX}``, resolved against the game (:mod:`solver.games.multi_locks`) and shown
in words ("player 3 at 'k b': K: call 100 %"), applied to the next solve.

A lock that cannot be applied is shown with the resolver's message (naming the line and
hand), and the locks applied before stay. Players are counted from 1 here, as everywhere in
the app (the lock text's lines imply the player: whoever acts there)."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from app import state
from app.components.fields import PERSIST
from app.components.multi_figures import player_label
from solver.cfr.multi_solve import action_word
from solver.games.multi_locks import MultiLockError, MultiLocks, build_multi_locks
from solver.games.multiway import MultiGame

K = "multi_locks_"
TEXT = K + "text"  # text area: the lock text (JSON)
UPLOAD = K + "upload"  # file uploader: a locks file
APPLIED = K + "applied"  # (game name, MultiLocks): what the next solve plays, or None
ERROR = K + "error"  # why the last Apply or upload was refused, or None
MAX_FILE_BYTES = 1_000_000  # as the CLI's --locks (solver.cli.args.MAX_JSON_FILE_BYTES)
UPLOAD_MB = 1  # what the browser sends at most
SHOWN = 40  # lines listed in words; the rest counted
EXAMPLE = '{"k b": {"K": {"c": 1}, "*": {"f": 1}}, "root": {"k": 0.5, "b": 0.5}}'


def applied(name: str) -> MultiLocks | None:
    """The locks applied for the game ``name`` (None: none, or applied to another game)."""
    held = state.get(APPLIED)
    if isinstance(held, tuple) and len(held) == 2 and held[0] == name:
        return held[1] if isinstance(held[1], MultiLocks) else None
    return None


def described(locks: MultiLocks) -> list[str]:
    """The locks in words, one line per player and node: "player 3 at 'k b': K: call
    100 %; J: fold 100 %" (actions played 0 left out)."""
    rows: dict[tuple[int, str], list[str]] = {}
    for s in locks.sets:
        mix = ", ".join(f"{action_word(a)} {100 * p:.3g} %" for a, p in s.mix.items() if p > 0)
        rows.setdefault((s.player, s.line), []).append(f"{s.hand}: {mix}")
    return [f"{player_label(p)} at {line!r}: " + "; ".join(hands)
            for (p, line), hands in rows.items()]  # fmt: skip


def resolve_text(mgame: MultiGame, text: str, profile: Any = None) -> MultiLocks | None:
    """``text`` (the lock JSON) resolved against ``mgame`` (blank: no locks); "solved"
    locks take ``profile``. ValueError with a message for the page."""
    if not text.strip():
        return None
    try:
        spec = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ValueError(f"not JSON ({exc})") from None
    if not isinstance(spec, dict):
        raise ValueError('the locks are one JSON object, {"LINE": MIX, ...}')
    return build_multi_locks(mgame, spec, profile)


def _apply(name: str, mgame: MultiGame, profile: Any) -> None:
    state.put(ERROR, None)
    try:
        locks = resolve_text(mgame, str(state.get(TEXT) or ""), profile)
    except (MultiLockError, ValueError) as exc:
        state.put(ERROR, f"Not applied (the locks before stay): {exc}")
        return
    state.put(APPLIED, None if locks is None else (name, locks))


def _clear() -> None:
    state.put(ERROR, None)
    state.put(APPLIED, None)
    state.put(TEXT, "")


def _upload(name: str, mgame: MultiGame, profile: Any) -> None:
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


def render(name: str, mgame: MultiGame, running: bool, profile: Any = None) -> None:
    """The expander for the game ``name`` (``mgame``); ``profile``: the average profile of
    this game's last solve, for "solved" locks (None: none)."""
    locks = applied(name)
    error = state.get(ERROR)
    count = f" · {len(locks.sets)} information sets locked" if locks is not None else ""
    with st.expander("Locks" + count, expanded=locks is not None or bool(error)):
        st.caption(
            'As a heads-up locks file: `{"LINE": MIX}`. LINE is the node\'s actions from the '
            "root, space-separated (`k` check, `b` bet, `c` call, `f` fold, `r` raise, "
            "`d:Qs` the board card; `root`); whoever acts there is locked. MIX is "
            '`{"ACTION": p}` for every hand, `{"HAND": {"ACTION": p}}` for some (`K`, `Qs`; '
            '`*` the others), or `"solved"` (the last solve\'s strategy). Applied to the next '
            "solve (docs/locking.md)."
        )
        st.text_area(
            "Locks (JSON)",
            key=TEXT,
            height=110,
            placeholder=EXAMPLE,
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
        lines = described(locks)
        shown = "\n".join(f"- {x}" for x in lines[:SHOWN])
        more = f"\n\n… and {len(lines) - SHOWN} more nodes" if len(lines) > SHOWN else ""
        st.markdown("**Applied to the next solve:**\n\n" + shown + more)
