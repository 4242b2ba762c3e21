"""The app's pure parts, checked directly: number fields, the hand filter's range syntax,
the live pictures (curve and grid), the background warm-up's bookkeeping, same-game keys."""

from __future__ import annotations

import io
import math
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
from PIL import Image

from app import kernels
from app import spec as S
from app.components.fields import Number, show
from app.components.hand_filter import FilterError, card_mask, combo_mask, hand_mask
from app.components.raster import curve_png, grid_picture, log_ticks, nice_ticks, tick_text
from solver.files.presets import load_preset
from solver.poker.cards import COMBOS, combo_str


# ----- number fields ---------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("raw", "value", "error"),
    [
        ("200", 200, ""),
        ("1,000", 1000, ""),
        ("1 000 000", 1_000_000, ""),
        (" 3e2 ", 300, ""),
        (250, 250, ""),
        ("1e12", None, "Pot: must be from 1 to 1,000,000,000, got 1e12."),
        ("abc", None, "Pot: 'abc' is not a number."),
        ("", None, "Pot: enter a whole number from 1 to 1,000,000,000."),
        ("2.5", None, "Pot: must be a whole number, got 2.5."),
        ("nan", None, "Pot: must be a finite number, got nan."),
        (True, None, "Pot: True is not a number."),
        ("1,00", None, "Pot: '1,00' is not a number."),  # not a thousands separator
    ],
)
def test_number_fields_read_text_and_name_the_field(raw: object, value: object, error: str) -> None:
    assert Number("Pot", 1, 1e9, whole=True).parse(raw) == (value, error)


def test_number_notes_and_shown_values() -> None:
    target = Number("Target", 0, note="0 = no target")
    assert target.parse("-1") == (None, "Target: must be ≥ 0, got -1 (0 = no target).")
    assert target.parse("0.3") == (0.3, "")
    assert [show(v) for v in (200, 200.0, 0.3, 12345, 1e-6)] == [
        "200",
        "200",
        "0.3",
        "12,345",
        "1e-06",
    ]
    assert Number("x").parse(show(12345.0)) == (12345.0, "")  # what is shown reads back


# ----- the hand filter -------------------------------------------------------------------------
def _names(mask: np.ndarray) -> set[str]:
    return {combo_str(int(i)) for i in np.flatnonzero(mask)}


def test_filter_reads_the_range_syntax_and_the_words() -> None:
    kk = combo_mask("KK")
    assert kk is not None and int(kk.sum()) == 6
    assert len(_names(combo_mask("AK"))) == 16  # type: ignore[arg-type]
    assert _names(combo_mask("AKs")) == {"AsKs", "AhKh", "AdKd", "AcKc"}  # type: ignore[arg-type]
    suited = combo_mask("suited")
    pairs = combo_mask("pairs")
    offsuit = combo_mask("offsuit")
    assert suited is not None and pairs is not None and offsuit is not None
    assert (int(suited.sum()), int(pairs.sum()), int(offsuit.sum())) == (312, 78, 936)
    assert not np.any(suited & pairs) and np.all(suited | pairs | offsuit)
    both = combo_mask("T9s+, pairs")
    assert both is not None and int(both.sum()) == 4 + 78
    assert combo_mask("  ") is None
    with pytest.raises(FilterError, match="'s' is neither a hand range nor a word"):
        combo_mask("s")


def test_filter_maps_onto_a_players_hands() -> None:
    combos = np.array([i for i in range(len(COMBOS)) if combo_str(i) in ("AsKs", "KsKh", "7c2d")])
    mask = hand_mask("KK, AKs", combos)
    assert mask is not None and list(mask) == [combo_str(i) != "7c2d" for i in combos]
    assert list(card_mask("K", ["Js", "Ks", "Kh", "Qs"])) == [False, True, True, False]  # type: ignore[arg-type]
    assert list(card_mask("qs, J", ["Js", "Ks", "Kh", "Qs"])) == [True, False, False, True]  # type: ignore[arg-type]
    with pytest.raises(FilterError, match="not a card or rank"):
        card_mask("A", ["Js", "Ks"])


# ----- live pictures -------------------------------------------------------------------------
def _image(png: bytes) -> Image.Image:
    img = Image.open(io.BytesIO(png))
    img.load()
    return img


def test_curve_picture_is_a_png_of_the_asked_size() -> None:
    xs = list(range(0, 500, 10))
    ys = [50.0 / (1 + x) for x in xs]
    img = _image(
        curve_png(xs, ys, "iterations", "exploitability (chips)", target=0.2, width=480, height=320)
    )
    assert img.format == "PNG" and img.size == (480, 320)
    reds = np.asarray(img.convert("RGB"))
    assert np.any((reds[..., 0] > 180) & (reds[..., 1] < 100))  # the red curve is drawn
    assert _image(curve_png([], [], "x", "y", width=200, height=100)).size == (200, 100)


def test_axis_ticks() -> None:
    assert log_ticks(0.002, 0.9) == pytest.approx([0.002, 0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5])
    assert log_ticks(1e-6, 10.0) == pytest.approx([1e-6, 1e-5, 1e-4, 1e-3, 1e-2, 0.1, 1.0, 10.0])
    assert nice_ticks(0, 1000) == [0, 200, 400, 600, 800, 1000]
    assert [tick_text(v) for v in (0.003, 250, 12_000, 3_500_000)] == [
        "0.003",
        "250",
        "12K",
        "3.5M",
    ]


def test_grid_picture_colours_the_cells_by_action_mix() -> None:
    mix = np.full((13, 13, 2), np.nan)
    weight = np.zeros((13, 13))
    mix[0, 0] = (1.0, 0.0)  # AA: all the first action (green)
    weight[0, 0] = 6.0  # every combo reaches: a full-height bar
    img = np.asarray(
        _image(
            grid_picture(mix, weight, ["#4bb34b", "#d43d33"], ["Check", "Bet"], width=390)
        ).convert("RGB")
    )
    cell = 390 // 13
    assert img.shape[1] == 13 * cell
    corner = img[cell - 4, 4]  # AA's cell, near its bottom left: the action colour
    assert tuple(corner) == (0x4B, 0xB3, 0x4B)
    other = img[2 * cell - 4, cell + 4]  # KK: nothing reaches, the empty grey
    assert tuple(other) == (0xE6, 0xE6, 0xE6)


# ----- the background warm-up ------------------------------------------------------------------
def test_warmup_runs_the_opening_group_first_and_reports_compiling(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    ran: list[str] = []
    lock = threading.Lock()

    def fake(group: str) -> list[str]:
        with lock:
            ran.append(group)
        say = "compiling" if group == "river" else "loading"
        return [sys.executable, "-c", f"print({say!r})"]

    monkeypatch.setattr(kernels, "group_command", fake)
    monkeypatch.setattr(kernels, "mark_warm", lambda: ran.append("stamp"))
    w = kernels.Warmup()
    assert not w.ready() and w.summary().startswith("Loading the solver's kernels")
    w.run(jobs=2)
    assert (
        ran[0] == "opening"
        and ran[-1] == "stamp"
        and sorted(ran[1:-1]) == sorted(["float32", "float64", "compressed", "parts"])
    )
    assert w.ready() and w.summary() == ""
    assert all(e.is_set() for e in w.events.values())


def test_a_failed_group_releases_its_waiters_without_a_stamp(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    stamped: list[bool] = []
    monkeypatch.setattr(kernels, "group_command", lambda g: [sys.executable, "-c", "exit(3)"])
    monkeypatch.setattr(kernels, "mark_warm", lambda: stamped.append(True))
    w = kernels.Warmup()
    w.run()
    assert w.ready() and set(w.states.values()) == {kernels.FAILED} and not stamped


def test_solves_wait_for_the_group_that_compiles_their_kernels() -> None:
    small = load_preset("srp-river").build().action_size  # "auto": float64 storage
    assert kernels.group_for(False, "cfr", 1, "auto", "partial") == "float64"
    assert kernels.group_for(True, "dcfr-tuned", 1, "auto", "partial", small) == "opening"
    assert kernels.group_for(True, "dcfr-tuned", 2, "auto", "partial", small) == "float64"
    assert kernels.group_for(True, "dcfr-tuned", 2, "auto", "partial") == "float32"  # a big spot
    assert kernels.group_for(True, "cfr+", 1, "float64", "total") == "float64"
    assert kernels.group_for(True, "dcfr", 1, "compressed", "partial") == "compressed"


# ----- games --------------------------------------------------------------------------------
def test_same_game_ignores_name_memory_cap_and_number_types() -> None:
    spec = load_preset("srp-river").holdem
    assert spec is not None
    a = S.holdem_source(spec)
    b = S.holdem_source(replace(spec, name="mine", max_memory_mb=64.0, big_blind=10))
    assert S.same_game(a, b) and S.source_id_for(b) == "preset:srp-river"
    c = S.holdem_source(replace(spec, bets="33%, a"))
    assert not S.same_game(a, c) and S.source_id_for(c) == S.CUSTOM
    assert S.source_id_for({"kind": "toy", "name": "leduc"}) == "preset:leduc"
    assert not S.same_game(a, None)


def test_the_server_does_not_hold_the_gil_for_a_solve() -> None:
    """What Streamlit reads from the repository's config: no full garbage collection after
    every script run (the live view's fragment runs every second; each collection held the
    GIL a solve's thread waited for at the end of its kernel chunk)."""
    root = Path(__file__).resolve().parents[1]
    probe = (
        "from streamlit import config; config.get_config_options(force_reparse=True); "
        "print(config.get_option('runner.postScriptGC'))"
    )
    read = subprocess.run(
        [sys.executable, "-c", probe], cwd=root, capture_output=True, text=True, check=True
    )
    assert read.stdout.strip() == "False"  # Streamlit's default is True


def test_log_axes_are_labelled_in_full_at_1_2_5() -> None:
    """Solve's and Compare's log axes: ticks at 1, 2 and 5 of each decade (decades alone
    past three), labelled in full — no bare "5" for 50 or 0.5, no SI "100μ" — and the
    target's label on its line."""
    from app.components.figures import curve_figure, log_axis, race_figure
    from solver.run.jobs import Point
    from solver.run.race import RacePoint

    axis = log_axis([0.3, 40.0])
    assert axis["tickvals"] == pytest.approx([0.2, 0.5, 1, 2, 5, 10, 20, 50])
    assert axis["ticktext"] == ["0.2", "0.5", "1", "2", "5", "10", "20", "50"]
    wide = log_axis([1e-6, 10.0])
    assert wide["ticktext"] == ["1e-06", "1e-05", "0.0001", "0.001", "0.01", "0.1", "1", "10"]
    pts = [Point(i * 10, 0.1 * i, 50.0 / i) for i in range(1, 30)]
    fig = curve_figure(pts, target=0.3, unit="% pot", scale=1.0)
    y = fig.layout.yaxis
    assert y.type == "log" and all("μ" not in t for t in y.ticktext)
    assert list(y.ticktext) == [f"{v:g}" for v in y.tickvals]
    label = next(a for a in fig.layout.annotations if a.text.startswith("target"))
    assert label.text == "target 0.3 % pot" and label.y == pytest.approx(math.log10(0.3))
    race_pts = [RacePoint(i, 0.01 * i, 10.0 / i, 100 * i, cpu_s=0.01 * i) for i in range(1, 99)]
    race = race_figure([("cfr", race_pts)])
    assert race.layout.xaxis.type == "log" and race.layout.yaxis.type == "log"
    assert all("μ" not in t for t in (*race.layout.xaxis.ticktext, *race.layout.yaxis.ticktext))


# ----- numbers and names as a player reads them ----------------------------------------------
def test_numbers_in_tables_and_text() -> None:
    from app.components.number_formats import column_config, column_format, combos_text
    from app.components.report_columns import column_title
    from app.components.spot_header import amount

    assert combos_text(202.0) == "202 combos" and combos_text(202.44) == "202.4 combos"
    assert combos_text(1234.0) == "1,234 combos"
    assert amount(900, 10) == "900 (90 bb)" and amount(66.5, 10) == "66.5 (6.7 bb)"
    assert amount(200, None) == "200"
    formats = {c: column_format(c) for c in ("EV before", "change", "equity OOP %", "share %",
               "combos after", "EQR", "class", "Check %", "largest move (points)")}  # fmt: skip
    assert formats == {"EV before": "%.2f", "change": "%.2f", "equity OOP %": "%.1f",
                       "share %": "%.1f", "combos after": "%.4g", "EQR": "%.2f", "class": None,
                       "Check %": "%.1f", "largest move (points)": "%.1f"}  # fmt: skip
    assert set(column_config(["class", "x"], numeric=["x"])) == {"x"}  # no float left raw
    # Reports: keys stay, titles in words with the batch's pot and stack (chips)
    assert column_title("oop_ev", 200, 900) == ("OOP EV (chips)", "chips")
    assert column_title("oop b:900", 200, 900) == ("OOP: All-in 900", "%")
    assert column_title("ip vs k: b:100", 200, 900) == ("IP vs check: Bet 50 % (100)", "%")
    assert column_title("ip vs b:100: r:300", 200, 900) == (
        "IP vs bet 50 % (100): Raise to 300",
        "%",
    )
    from app.components.report_columns import node_title

    assert node_title("oop", 200, 900) == "OOP's first action"
    assert node_title("ip vs k", 200, 900) == "IP vs check"
    assert node_title("ip vs b:900", 200, 900) == "IP vs all-in 900"


def test_solve_estimate_is_time_to_the_target() -> None:
    from app.components.solve_estimate import estimate_line, iterations_to

    assert iterations_to(0.3, True, 100_000) == 150  # DCFR on the SRP turn (BENCHMARKS.md)
    assert 250 <= iterations_to(0.1, True, 100_000) <= 300  # 270 measured
    assert iterations_to(0.001, False, 100_000) == 400  # Leduc to 0.001 chips
    assert iterations_to(0.0001, True, 500) == 500  # never past the limit
    assert estimate_line(0.02, 0.3, "% pot", True, 100_000) == "≈ 3.0 s to 0.3 % pot"
    assert estimate_line(0.02, 0.6, "chips", True, 100_000, pot=200) == "≈ 3.0 s to 0.6 chips"
    assert estimate_line(0.0002, 0.3, "% pot", True, 100_000) == "under a second to 0.3 % pot"
    assert (
        estimate_line(0.001, 0, "% pot", True, 1000) == "≈ 1.0 s for 1,000 iterations (no target)"
    )


def test_the_grid_picture_leaves_its_labels_to_text() -> None:
    """The interactive grid's picture has no letters (they are a text trace): an empty grid
    is white and grey only; the live picture keeps its own."""
    import base64

    from app.components.colors import EMPTY
    from app.components.raster import grid_pixels, grid_png

    mix = np.full((13, 13, 2), np.nan)
    weight = np.zeros((13, 13))
    uri = grid_png(mix, weight, ["#4bb34b", "#d43d33"], labels=False)
    px = np.asarray(Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1]))).convert("RGB"))
    grey = tuple(int(EMPTY[k : k + 2], 16) for k in (1, 3, 5))
    assert {tuple(int(v) for v in c) for c in px.reshape(-1, 3)} == {(255, 255, 255), grey}
    assert (grid_pixels(mix, weight, ["#4bb34b", "#d43d33"]) < 100).any()  # letters drawn
