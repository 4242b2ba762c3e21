"""Every preset loads, validates, builds and solves a few iterations; broken files get clear
errors naming the file and the field."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from solver import Engine, expected_values, make_rule
from solver.files.presets import PRESET_DIR, PresetError, list_presets, load_preset, parse_preset
from solver.poker.cards import read_libratus_endgame

ALL = sorted(p.stem for p in PRESET_DIR.glob("*.toml"))
DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "libratus_endgames"


def test_the_expected_presets_exist() -> None:
    assert {"kuhn", "leduc", "leduc5", "srp-river", "srp-turn", "srp-flop"} <= set(ALL)
    assert {f"libratus-{k}" for k in range(1, 5)} <= {"-".join(n.split("-")[:2]) for n in ALL}
    assert len(list_presets()) == len(ALL)


@pytest.mark.parametrize("key", ALL)
def test_preset_builds_and_solves_a_few_iterations(key: str) -> None:
    """Every preset, the flop (272k nodes, 0.46 GB) and the big Libratus turn included."""
    preset = load_preset(key)
    game = preset.build()
    engine = Engine(game, make_rule("dcfr"))
    engine.iterate(3)
    br = engine.best_response_values()
    assert np.isfinite(br).all() and sum(br) >= 0.0
    ev = expected_values(game, engine.average_strategy())
    assert ev[0] + ev[1] == pytest.approx(0.0, abs=1e-9 * max(1.0, game.starting_pot))


@pytest.mark.slow
@pytest.mark.parametrize("key", ["srp-flop", "libratus-1-turn"])
def test_big_presets_validate_and_fit_the_memory_budget(key: str) -> None:
    from solver.games.holdem import estimate, validate

    preset = load_preset(key)
    assert preset.holdem is not None
    est = estimate(validate(preset.holdem))
    assert est.memory_mb < preset.holdem.max_memory_mb


@pytest.mark.skipif(not DATA.is_dir(), reason="shared data not present")
@pytest.mark.parametrize("k", [1, 2, 3, 4])
def test_libratus_presets_carry_the_endgame_files(k: int) -> None:
    eg = read_libratus_endgame(DATA / f"subgame{k}.txt")
    [key] = [n for n in ALL if n.startswith(f"libratus-{k}-")]
    preset = load_preset(key)
    spec = preset.holdem
    assert spec is not None
    np.testing.assert_array_equal(np.asarray(spec.oop_weights), eg.reach[0])
    np.testing.assert_array_equal(np.asarray(spec.ip_weights), eg.reach[1])
    assert spec.pot == eg.pot
    assert spec.stack == 20_000 - eg.pot // 2
    assert spec.big_blind == 100


GOOD = """name = "x"
game = "holdem"
[holdem]
board = "Td9d6hQc2s"
pot = 200
stack = 900
oop_range = "AA"
ip_range = "KK"
"""


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("name = ", "not valid TOML"),
        ('game = "chess"', "game: must be one of"),
        ('game = "holdem"', "holdem: missing [holdem] section"),
        (GOOD.replace('board = "Td9d6hQc2s"', 'board = "Td9dTd"'), "holdem.board"),
        (GOOD.replace("pot = 200", "pot = -1"), "holdem.pot"),
        (GOOD.replace('ip_range = "KK"', 'ip_range = "KZ"'), "holdem.ip_range"),
        (GOOD.replace('oop_range = "AA"', 'oop_range = "TdTh"'), "holdem.oop_range"),
        (GOOD + 'bets = "50%, 7q"\n', "holdem.bets"),
        (GOOD + "colour = 3\n", "unknown field(s) colour"),
        (GOOD.replace("stack = 900\n", ""), "holdem.stack: missing"),
        (GOOD + "oop_weights = [0.5, 0.5]\n", "holdem.oop_weights"),
    ],
)
def test_bad_presets_name_the_field(text: str, fragment: str) -> None:
    with pytest.raises(PresetError) as info:
        parse_preset(text, source="upload.toml")
    assert fragment in str(info.value)
    assert str(info.value).startswith("upload.toml")


def test_good_text_preset_parses_and_unknown_name_is_clear() -> None:
    preset = parse_preset(GOOD)
    assert preset.build().num_hands == (6, 6)
    with pytest.raises(PresetError, match="not found"):
        load_preset("no-such-preset")
    with pytest.raises(PresetError, match="larger than"):
        parse_preset("#" * 2_000_000)
