"""The opponent-profile editor of Explore's best-response view (issue 48; docs/exploit.md,
"Profiles"): the opponent's seat and its stats (c-bet %, fold to c-bet %, … for the whole
range, and per hand class), checked field by field; **Apply** compiles them into
frequency-shift locks against the current solve (:func:`solver.study.profiles.
compile_profile`), puts them beside the other locks (listed in the lock panel) and re-solves
warm in the background as the lock panel's re-solve does (:func:`solver.study.lock_effect.
relock`, the session's job); when it is done each stat's target shows beside what the
locked solve plays. Applying the same profile again compiles against the locked solve,
aiming past what it fell short of. Profiles save and load as small JSON files."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import numpy.typing as npt
import pandas as pd
import streamlit as st

from app import state
from app.components.fields import Number
from app.components.names import line as line_name
from app.components.names import player_name
from app.features import robust_view
from app.features.controls import live_view
from app.features.locking import own_limits, pending
from app.features.number_fields import read
from app.jobs import stop_job
from app.runtime import start_solve
from solver.games.model import Game
from solver.lockspec import LockError
from solver.poker.handclass import DRAW_LABELS, MADE_LABELS
from solver.run.jobs import SolveJob
from solver.study.lock_effect import relock
from solver.study.profiles import (
    CLASSES,
    STATS,
    Plan,
    Profile,
    ProfileError,
    Readback,
    compile_profile,
    locked_sigma,
    readback,
)

Mask = npt.NDArray[np.bool_]
K = state.LOCK_PREFIX + "profile_"
SEAT = K + "seat"  # radio: "oop" or "ip", the opponent's seat
NAME = K + "name"  # text: the profile's name
CLASS_ROWS = K + "classes"  # [(stat, class, value %)]: the per-class entries
CLASS_STAT, CLASS_KEY, CLASS_VALUE = K + "cstat", K + "cclass", K + "cvalue"
UPLOAD = K + "upload"
ERROR = K + "error"  # why the last Apply or load was refused, or None
RUN = K + "run"  # Applied: the profile's re-solve
TABLE_KEY = "profile_readback"
MAX_FILE_BYTES = 100_000  # a profile is a few hundred bytes
UPLOAD_MB = 1  # what the browser sends at most (the uploader's least; not the server's 200 MB)


def value_key(stat: str) -> str:
    """The session key of a whole-range stat's field (text, % or blank)."""
    return f"{K}v_{stat}"


@dataclass
class Applied:
    """A profile's warm re-solve: its job, the profile, its plan (bluff hands kept for the
    next round), the lines it locked, and the readback once the job is done."""

    job: SolveJob
    profile: Profile
    plan: Plan
    lines: set[str]
    rows: list[Readback] | None = None
    aims: dict[int, float] = field(default_factory=dict)
    base: Any = None  # the solve before any profile (its engine): where the risk curve starts


def _field(stat: str) -> Number:
    return Number(STATS[stat].label, 0.0, 100.0, percent=True, note="blank: not used")


def _seat_stats(seat: str) -> list[str]:
    return [k for k, d in STATS.items() if seat in d.seats]


def _class_label(key: str) -> str:
    return MADE_LABELS.get(key) or DRAW_LABELS.get(key) or key


def profile_from_fields() -> tuple[Profile | None, str]:
    """The profile the fields hold, or (None, the first problem naming its field)."""
    seat = str(state.get(SEAT) or "ip")
    stats: list[dict[str, Any]] = []
    for stat in _seat_stats(seat):
        raw = state.get(value_key(stat))
        if raw is None or not str(raw).strip():
            continue
        value, error = read(_field(stat), value_key(stat))
        if error or value is None:
            return None, error
        stats.append({"stat": stat, "value": value})
    for stat, klass, value in state.get(CLASS_ROWS) or []:
        stats.append({"stat": stat, "value": value, "class": klass})
    if not stats:
        return None, "Enter at least one stat."
    data = {"version": 1, "name": str(state.get(NAME) or ""), "player": seat, "stats": stats}
    try:
        return Profile.from_dict(data), ""
    except ProfileError as exc:
        return None, _in_words(exc, stats)


def _in_words(exc: ProfileError, stats: list[dict[str, Any]]) -> str:
    """A profile error with ``stats[i]`` named as the page names the entry."""
    where = exc.field
    if where.startswith("stats[") and "]" in where:
        i = int(where[6 : where.index("]")])
        if 0 <= i < len(stats):
            s = stats[i]
            where = STATS[s["stat"]].label + (
                f" ({_class_label(s['class'])})" if s.get("class") else ""
            )
    return f"{where}: {exc.message}"


def fill(data: object) -> str:
    """Put a profile's JSON form into the fields; "" or the message naming the bad field
    (the fields are left as they were then)."""
    try:
        profile = Profile.from_dict(data)
    except ProfileError as exc:
        return f"Not loaded: {exc}"
    state.put(SEAT, profile.player)
    state.put(NAME, profile.name)
    for stat in STATS:
        state.put(value_key(stat), "")
    rows = []
    for s in profile.stats:
        if s.hand_class is None:
            state.put(value_key(s.stat), f"{s.value:g}")
        else:
            rows.append((s.stat, s.hand_class, s.value))
    state.put(CLASS_ROWS, rows)
    return ""


def _load() -> None:
    state.put(ERROR, None)
    upload = state.get(UPLOAD)
    if upload is None:
        return
    raw = upload.getvalue()
    if len(raw) > MAX_FILE_BYTES:
        state.put(ERROR, f"Not loaded: the file is over {MAX_FILE_BYTES:,} bytes")
        return
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        state.put(ERROR, f"Not loaded: not a JSON file ({exc})")
        return
    state.put(ERROR, fill(data) or None)


def _add_class_row() -> None:
    state.put(ERROR, None)
    stat, klass = state.get(CLASS_STAT), state.get(CLASS_KEY)
    value, error = read(Number("Class stat %", 0.0, 100.0, percent=True), CLASS_VALUE)
    if error or value is None or stat not in STATS or klass not in CLASSES:
        state.put(ERROR, f"Not added: {error or 'pick a stat and a class'}")
        return
    rows = [r for r in state.get(CLASS_ROWS) or [] if (r[0], r[1]) != (stat, klass)]
    state.put(CLASS_ROWS, [*rows, (stat, klass, value)])


def _remove_class_row(i: int) -> None:
    rows = list(state.get(CLASS_ROWS) or [])
    if 0 <= i < len(rows):
        rows.pop(i)
    state.put(CLASS_ROWS, rows)


# ----- applying -------------------------------------------------------------------------------
def _apply(game: Game) -> None:
    """Compile the fields' profile against the current solve and re-solve warm with its
    locks beside the others. Nothing is locked or started while a field is wrong or the
    profile does not fit the spot."""
    state.put(ERROR, None)
    solved = state.solved()
    if solved is None or solved.game is not game:
        return
    profile, error = profile_from_fields()
    if profile is None:
        state.put(ERROR, f"Not applied: {error}")
        return
    job = solved.job
    old = job.engine if job is not None else solved.engine
    if job is not None and job.alive:
        state.put(ERROR, "Not applied: the solve is still running; stop it or let it finish")
        return
    if old is None:
        return
    prev = state.get(RUN)
    prev = prev if isinstance(prev, Applied) else None
    again = prev is not None and prev.profile == profile and prev.rows is not None
    aims = dict(prev.aims) if again and prev is not None else {}
    if again and prev is not None and prev.rows is not None:
        for i, row in enumerate(prev.rows):  # aim past what the last solve fell short of
            if row.achieved is not None and not row.ok:
                aims[i] = min(max(aims.get(i, row.target) + row.target - row.achieved, 0.0), 100.0)
    current = np.array(old.average_strategy())
    try:
        compiled = compile_profile(
            (game, current),
            profile,
            locks=old.lockset,
            aims=aims or None,
            bluffs=prev.plan.bluffs if again and prev is not None else None,
        )
    except ProfileError as exc:
        state.put(ERROR, f"Not applied: {_in_words(exc, _entries(profile))}")
        return
    mine = prev.lines if prev is not None else set()
    others = {k: v for k, v in pending(game).items() if k not in mine}
    clash = sorted(set(others) & set(compiled.locks))
    if clash:
        where = line_name(game, game.find(() if clash[0] == "root" else tuple(clash[0].split())))
        state.put(
            ERROR,
            f"Not applied: {where} is locked already (Locks); the profile locks it too — "
            "remove that lock first",
        )
        return
    locks = {**others, **compiled.locks}
    target, limit = own_limits(solved)
    try:
        engine = relock(old, locks, warm=True, average=current)
        new = SolveJob(
            engine.game,
            engine.rule,
            engine=engine,
            target=target,
            max_iterations=int(limit),
            watch=state.watched_node(game),
        )
    except (LockError, ValueError, MemoryError) as exc:
        state.put(ERROR, f"Not applied: {exc}")
        return
    state.put(state.LOCKS, ((game.name, game.num_nodes), dict(locks)))  # listed with the locks
    state.put(state.LOADED, None)
    label = str(state.get(state.JOB_LABEL) or game.name).removesuffix(" (profile)")
    start_solve(new, solved.source, solved.holdem, str(state.get(state.JOB_GAME_ID) or ""),
                label + " (profile)")  # fmt: skip
    base = prev.base if prev is not None and prev.base is not None and job is prev.job else old
    state.put(RUN, Applied(new, profile, compiled.plan, set(compiled.locks), None, aims, base))


def _entries(profile: Profile) -> list[dict[str, Any]]:
    return [{"stat": s.stat, "class": s.hand_class} for s in profile.stats]


def _stop(job: SolveJob) -> None:
    stop_job(job)


# ----- the panel ------------------------------------------------------------------------------
def render(game: Game, opponent: int) -> None:
    """The editor under the best-response view; ``opponent`` (0 OOP, 1 IP) is the seat it
    starts on: the player not to act at the node."""
    if not game.is_holdem or game.meta.get("preflop"):
        return
    if state.get(SEAT) not in ("oop", "ip"):
        state.put(SEAT, "oop" if opponent == 0 else "ip")
    run = state.get(RUN)
    solved = state.solved()
    mine = isinstance(run, Applied) and solved is not None and solved.job is run.job
    with st.expander("Opponent profile (HUD stats → locks)", icon=":material/person_search:",
                     expanded=mine or bool(state.get(ERROR))):  # fmt: skip
        _form(game)
    if state.get(ERROR):
        st.error(state.get(ERROR), icon=":material/error:")
    if mine:
        assert isinstance(run, Applied)
        if not run.job.progress.finished:
            live_view(_progress, working=True)
        else:
            _readback(game, run)


def _form(game: Game) -> None:
    st.caption(
        "Describe the opponent in the stats players know; Apply turns them into shift locks "
        "at the spots each stat counts (docs/exploit.md) and re-solves warm. Blank: not "
        "used."
    )
    c = st.columns([2, 2])
    names = {"oop": f"{player_name(game, 0)} (OOP)", "ip": f"{player_name(game, 1)} (IP)"}
    c[0].radio("Opponent", ["oop", "ip"], format_func=names.__getitem__, key=SEAT, horizontal=True)
    c[1].text_input("Profile name", key=NAME, max_chars=200)
    seat = str(state.get(SEAT))
    stats = _seat_stats(seat)
    bad = False
    cols = st.columns(4)
    for i, stat in enumerate(stats):
        key = value_key(stat)
        if state.get(key) is None:
            state.put(key, "")
        col = cols[i % 4]
        # (a text field: what is typed is what is checked; blank leaves the stat out)
        col.text_input(_field(stat).label, key=key, help=STATS[stat].where, placeholder="—")
        raw = state.get(key)
        if raw is not None and str(raw).strip():
            error = _field(stat).parse(raw)[1]
            if error:
                col.error(error, icon=":material/error:")
                bad = True
    rows = state.get(CLASS_ROWS) or []
    st.markdown("**Per hand class** (on the board at each spot)")
    for i, (stat, klass, value) in enumerate(rows):
        r = st.columns([6, 1], vertical_alignment="center")
        r[0].markdown(f"{STATS[stat].label} for {_class_label(klass)}: {value:g} %")
        r[1].button("Remove", key=f"{K}crm_{i}", on_click=_remove_class_row, args=(i,))
    r = st.columns([2, 2, 1, 1], vertical_alignment="bottom")  # (Add level with the fields)
    r[0].selectbox("Stat", [s for s in stats if s != "river_bluff"],
                   format_func=lambda s: STATS[s].label, key=CLASS_STAT)  # fmt: skip
    r[1].selectbox("Class", list(CLASSES), format_func=_class_label, key=CLASS_KEY)
    r[2].text_input("%", key=CLASS_VALUE)
    r[3].button("Add", key=K + "cadd", on_click=_add_class_row)
    b = st.columns([2, 2, 3])
    b[0].button(
        "Apply (re-solve warm)",
        key=K + "apply",
        type="primary",
        on_click=_apply,
        args=(game,),
        disabled=bad,
        help="fix the fields above first" if bad else "compile into locks, re-solve warm",
    )
    profile, _ = profile_from_fields()
    if profile is not None:
        b[1].download_button(
            "Save profile (JSON)",
            json.dumps(profile.to_dict(), indent=1),
            file_name=f"{profile.name or 'profile'}.json",
            mime="application/json",
            key=K + "save",
        )
    b[2].file_uploader(
        "Load a profile",
        type=["json"],
        key=UPLOAD,
        on_change=_load,
        max_upload_size=UPLOAD_MB,
        help=f"a profile's JSON file: a few hundred bytes (over {MAX_FILE_BYTES:,} refused)",
    )


def _progress() -> None:
    run = state.get(RUN)
    if not isinstance(run, Applied):
        return
    p = run.job.progress
    if p.finished:
        st.rerun()
    c = st.columns([3, 1])
    c[0].markdown(
        f"**Re-solving with the profile** (warm) · iteration {p.iteration:,}; the targets "
        "show here when it is done"
    )
    c[1].button("Stop", key=K + "stop", on_click=_stop, args=(run.job,))


def rows_of(game: Game, run: Applied) -> list[Readback]:
    """The readback of a finished profile re-solve (computed once per job)."""
    if run.rows is None:
        average, _ = run.job.average_strategy()
        sigma = locked_sigma(game, np.asarray(average), run.job.engine.lockset)
        run.rows = readback(game, sigma, run.plan)
    return run.rows


def readback_frame(rows: list[Readback]) -> pd.DataFrame:
    """One row per stat: stat, class, target %, achieved %, within 1 pp, why not."""
    return pd.DataFrame(
        [
            {
                "stat": STATS[r.stat].label,
                "class": _class_label(r.hand_class) if r.hand_class else "whole range",
                "target %": r.target,
                "achieved %": r.achieved,
                "within 1 pp": r.ok,
                "why not": r.reason,
            }
            for r in rows
        ],
        columns=["stat", "class", "target %", "achieved %", "within 1 pp", "why not"],
    )


def off_notes(rows: list[Readback]) -> list[str]:
    """The stats off by more than 1 pp, in words under the table (whose "why not" column is
    too narrow to read a reason in): one line per reason naming its stats, then what to do."""
    by_reason: dict[str, list[str]] = {}
    for r in rows:
        if not r.ok:
            name = STATS[r.stat].label + (
                f" ({_class_label(r.hand_class)})" if r.hand_class else ""
            )
            by_reason.setdefault(r.reason or "off by more than 1 pp", []).append(name)
    notes = [f"{', '.join(names)}: {reason}." for reason, names in by_reason.items()]
    if any(not r.ok and r.achieved is not None for r in rows):  # (a stat nobody reaches: no)
        notes.append("Apply again to compile against this solve, aiming past the shortfall.")
    return notes


def _readback(game: Game, run: Applied) -> None:
    rows = rows_of(game, run)
    name = f" '{run.profile.name}'" if run.profile.name else ""
    st.markdown(
        f"**Profile{name}: target vs the locked solve** ({len(run.lines)} locked spots, "
        "listed under Locks; the best response above is against it)"
    )
    st.dataframe(
        readback_frame(rows),
        hide_index=True,
        key=TABLE_KEY,
        column_config={
            "target %": st.column_config.NumberColumn(format="%.1f"),
            "achieved %": st.column_config.NumberColumn(format="%.2f"),
        },
    )
    for line in off_notes(rows):
        st.caption(line)
    robust_view.render(game, run)
