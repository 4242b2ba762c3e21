"""A race's results as the Compare page shows them: the overlaid exploitability curves, the
table of iterations and CPU seconds to each target, the winners, and the download files.
Pure: a :class:`~solver.run.race.RaceProgress` snapshot in, figures, rows, bytes or elements out
(nothing here starts a race or reads the session).

Units follow the Solve page: a hold'em spot's exploitability reads in % of its starting pot;
a preflop game's chips are big blinds, so its curve reads in mbb/hand and its table in bb and
mbb/hand (a percentage of the blinds means nothing); a toy game's in chips."""

from __future__ import annotations

import csv
import functools
import io
from dataclasses import dataclass, replace

import plotly.graph_objects as go
import streamlit as st

from app.components.figures import race_figure
from app.components.images import html_bytes, image_bytes, image_problem
from solver.run.race import RaceProgress, cell_text, points_csv, race_csv, table_rows, winner_rows

FORMATS = {
    "png": ("Chart as PNG", "image/png", "chart.png"),
    "svg": ("Chart as SVG", "image/svg+xml", "chart.svg"),
    "html": ("Chart as HTML", "text/html", "chart.html"),
    "csv": ("Table as CSV", "text/csv", "table.csv"),
    "points": ("Curves as CSV", "text/csv", "curves.csv"),
}
CHIPS_COLUMN = "exploitability (chips)"  # solver.run.race.table_rows' final exploitability
BB_COLUMN = "exploitability (bb)"
MBB_COLUMN = "exploitability (mbb/hand)"


@dataclass(frozen=True)
class RaceUnit:
    """The unit a race's curves read in (``name``) and its factor from chips (``scale``)."""

    name: str
    scale: float


def race_unit(progress: RaceProgress, preflop: bool = False) -> RaceUnit:
    """mbb/hand for a preflop game (chips are bb: ×1000), % pot for a hold'em spot
    (×100 / starting pot), chips for a toy game."""
    if preflop:
        return RaceUnit("mbb/hand", 1000.0)
    pot = progress.starting_pot
    return RaceUnit("% pot", 100.0 / pot) if pot else RaceUnit("chips", 1.0)


def progress_figure(
    progress: RaceProgress, x_axis: str = "iterations", title: str = "", preflop: bool = False
) -> go.Figure:
    """The overlaid curves of a race snapshot in :func:`race_unit`'s unit, targets dotted."""
    unit = race_unit(progress, preflop)
    return race_figure(
        [(lane.entry.label, lane.points) for lane in progress.lanes],
        x_axis,
        [(t.label, t.chips) for t in progress.targets],
        unit=unit.name,
        scale=unit.scale,
        title=title,
    )


def _in_bb(row: dict[str, object]) -> dict[str, object]:
    """A table row of a preflop race: its chips column read as bb, then as mbb/hand."""
    out: dict[str, object] = {}
    for key, value in row.items():
        if key != CHIPS_COLUMN:
            out[key] = value
            continue
        out[BB_COLUMN] = value
        out[MBB_COLUMN] = None if value is None else 1000.0 * float(value)  # type: ignore[arg-type]
    return out


def race_rows(progress: RaceProgress, preflop: bool = False) -> list[dict[str, object]]:
    """:func:`solver.run.race.table_rows`, with a preflop race's final exploitability in bb and
    mbb/hand instead of chips and % pot."""
    if not preflop:
        return table_rows(progress)
    return [_in_bb(r) for r in table_rows(replace(progress, starting_pot=0.0))]


def table_csv(progress: RaceProgress, preflop: bool = False) -> bytes:
    """:func:`solver.run.race.race_csv` (UTF-8), with a preflop race's columns as in
    :func:`race_rows` (numbers unrounded, empty where not reached)."""
    if not preflop:
        return race_csv(progress)
    text = race_csv(replace(progress, starting_pot=0.0)).decode("utf-8")
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows:
        return text.encode("utf-8")
    converted = [_in_bb({k: (v if v != "" else None) for k, v in r.items()}) for r in rows]
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(converted[0]), lineterminator="\n")
    w.writeheader()
    for r in converted:
        w.writerow({k: "" if v is None else v for k, v in r.items()})
    return buf.getvalue().encode("utf-8")


def curves_csv(progress: RaceProgress, preflop: bool = False) -> bytes:
    """:func:`solver.run.race.points_csv`; a preflop race names its exploitability column
    ``exploitability_bb`` (its chips are bb)."""
    data = points_csv(progress)
    if not preflop:
        return data
    head, _, rest = data.partition(b"\n")
    return head.replace(b",exploitability", b",exploitability_bb") + b"\n" + rest


def export_bytes(
    progress: RaceProgress,
    fmt: str,
    x_axis: str = "iterations",
    title: str = "",
    preflop: bool = False,
) -> bytes:
    """A race as a file: ``png``, ``svg`` or ``html`` (the overlaid chart, light template),
    ``csv`` (the table, :func:`table_csv`) or ``points`` (every check, :func:`curves_csv`)."""
    if fmt == "csv":
        return table_csv(progress, preflop)
    if fmt == "points":
        return curves_csv(progress, preflop)
    fig = progress_figure(progress, x_axis, title, preflop)
    if fmt == "html":
        return html_bytes(fig)
    return image_bytes(fig, fmt)


def display_rows(progress: RaceProgress, preflop: bool = False) -> list[dict[str, str]]:
    """The live table as text, with each algorithm's state after its name."""
    out = []
    for lane, row in zip(progress.lanes, race_rows(progress, preflop), strict=True):
        cells = {k: cell_text(k, v) for k, v in row.items()}
        state_text = lane.state if not lane.stopped_by else f"{lane.state} ({lane.stopped_by})"
        out.append({"algorithm": cells.pop("algorithm"), "state": state_text, **cells})
    return out


def winners_markdown(progress: RaceProgress) -> str:
    """One bullet per target: the fastest algorithm (CPU seconds) and the fewest
    iterations."""
    lines = []
    for r in winner_rows(progress):
        if r["fastest (CPU s)"] == "not reached":
            lines.append(f"- **{r['target']}**: not reached")
        else:
            lines.append(
                f"- **{r['target']}**: fastest **{r['fastest (CPU s)']}**; fewest iterations "
                f"{r['fewest iterations']}"
            )
    return "\n".join(lines)


def race_results(progress: RaceProgress, x_axis: str, game: str, preflop: bool = False) -> None:
    """The chart (x as ``x_axis``), the table, the winners per target and the downloads of
    ``progress``, a race on the game labelled ``game``."""
    p = progress
    st.plotly_chart(progress_figure(p, x_axis, preflop=preflop), key="race_chart", width="stretch")
    st.dataframe(display_rows(p, preflop), hide_index=True, key="race_table")
    with st.container(key="race_winners"):
        title = "Winners" if p.finished else "Leaders so far"
        st.markdown(
            f"**{title}** per target — fewest CPU seconds; fewest iterations (checks are at "
            "fixed iterations, so ties are listed):\n\n" + winners_markdown(p)
        )
    name = "".join(ch if ch.isalnum() else "-" for ch in game.lower()).strip("-") or "race"
    cols = st.columns(len(FORMATS))
    no_images = image_problem()
    for col, (fmt, (label, mime, suffix)) in zip(cols, FORMATS.items(), strict=True):
        col.download_button(
            label,
            data=functools.partial(
                export_bytes, p, fmt, x_axis, f"{game}: exploitability", preflop
            ),
            file_name=f"{name}-race-{suffix}",
            mime=mime,
            key=f"dl_race_{fmt}",
            on_click="ignore",
            disabled=bool(no_images) and fmt in ("png", "svg"),
            help=no_images if no_images and fmt in ("png", "svg") else None,
        )
