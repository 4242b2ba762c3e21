"""Cards, combos, boards and the Libratus endgame file format (solver/poker/cards.py)."""

from __future__ import annotations

from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from solver.poker.cards import (
    COMBO_INDEX,
    COMBOS,
    CardError,
    LibratusEndgame,
    board_mask,
    card_str,
    cards_mask,
    combo_cards,
    combo_index,
    combo_str,
    format_libratus_endgame,
    parse_board,
    parse_card,
    parse_cards,
    parse_combo,
    parse_libratus_endgame,
    read_libratus_endgame,
    write_libratus_endgame,
)

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "libratus_endgames"
SUBGAMES = [
    ("subgame1.txt", 3, "7s9h9cTc", 500),
    ("subgame2.txt", 3, "Ts6hAh7c", 4780),
    ("subgame3.txt", 4, "4s8hTc9h2s", 500),
    ("subgame4.txt", 4, "JsKs5cQs7d", 3750),
]


# ------------------------------------------------------------------------------------------
# Cards


def test_card_indices() -> None:
    assert [parse_card(t) for t in ("2s", "2h", "2d", "2c", "3s", "Ac")] == [0, 1, 2, 3, 4, 51]
    assert parse_card("As") == 48
    assert parse_card("Td") == 8 * 4 + 2
    for c in range(52):
        assert parse_card(card_str(c)) == c


@pytest.mark.parametrize("text", ["as", "AS", "aS", " As "])
def test_card_case_insensitive(text: str) -> None:
    assert parse_card(text) == 48
    assert card_str(parse_card(text)) == "As"


@pytest.mark.parametrize("text", ["", "A", "Ax", "1s", "10s", "Ass", "ss"])
def test_bad_card(text: str) -> None:
    with pytest.raises(CardError, match="bad card"):
        parse_card(text)


@pytest.mark.parametrize("c", [-1, 52, 100])
def test_card_str_out_of_range(c: int) -> None:
    with pytest.raises(CardError, match="out of range"):
        card_str(c)


@pytest.mark.parametrize("text", ["Td9d6h", "Td 9d 6h", "Td,9d,6h", " td, 9D  6h ", "Td9d 6h"])
def test_parse_cards_separators(text: str) -> None:
    assert parse_cards(text) == (parse_card("Td"), parse_card("9d"), parse_card("6h"))


def test_parse_cards_errors() -> None:
    assert parse_cards("") == ()
    with pytest.raises(CardError, match="card Td appears twice"):
        parse_cards("Td9dtd")
    with pytest.raises(CardError, match="'9x'"):
        parse_cards("Td 9x 6h")
    with pytest.raises(CardError, match="incomplete card '9'"):
        parse_cards("Td9")


def test_parse_board() -> None:
    assert parse_board("Td9d6h") == parse_cards("Td9d6h")
    assert len(parse_board("Td9d6h2c")) == 4
    assert len(parse_board("Td 9d 6h 2c As")) == 5
    for text, n in [("Td9d", 2), ("", 0), ("Td9d6h2cAsKs", 6)]:
        with pytest.raises(CardError, match=f"a board has 3, 4 or 5 cards, got {n}"):
            parse_board(text)
    with pytest.raises(CardError, match="card 6h appears twice"):
        parse_board("Td6h6h")


def test_cards_mask() -> None:
    assert cards_mask("2s2h") == 0b11
    assert cards_mask([51]) == 1 << 51
    assert cards_mask("") == 0
    assert cards_mask(range(52)) == (1 << 52) - 1


# ------------------------------------------------------------------------------------------
# Combos


def test_combos_order() -> None:
    assert COMBOS.shape == (1326, 2)
    assert COMBOS.dtype == np.int32
    assert [tuple(map(int, row)) for row in COMBOS] == list(combinations(range(52), 2))
    readme = {0: "2s2h", 1: "2s2d", 2: "2s2c", 3: "2s3s", 4: "2s3h", 50: "2sAc", 51: "2h2d"}
    readme[1325] = "AdAc"
    for i, text in readme.items():
        assert parse_combo(text) == i
        assert tuple(COMBOS[i]) == tuple(sorted(parse_cards(text)))


def test_combo_index_table() -> None:
    assert COMBO_INDEX.shape == (52, 52)
    assert COMBO_INDEX.dtype == np.int32
    assert np.all(np.diag(COMBO_INDEX) == -1)
    assert np.array_equal(COMBO_INDEX, COMBO_INDEX.T)
    ids = np.arange(1326)
    assert np.array_equal(COMBO_INDEX[COMBOS[:, 0], COMBOS[:, 1]], ids)
    assert combo_index(5, 2) == combo_index(2, 5) == int(COMBO_INDEX[2, 5])
    with pytest.raises(CardError, match="appears twice"):
        combo_index(7, 7)
    with pytest.raises(ValueError):
        COMBOS[0, 0] = 5  # read-only


def test_combo_text() -> None:
    assert combo_str(parse_combo("AsKd")) == "AsKd"
    assert combo_str(parse_combo("kdAS")) == "AsKd"
    assert combo_str(parse_combo("AhAs")) == "AsAh"
    assert combo_str(0) == "2s2h"
    assert combo_str(3) == "3s2s"
    assert combo_str(1325) == "AdAc"
    for i in range(1326):
        assert parse_combo(combo_str(i)) == i
        assert combo_cards(i) == tuple(COMBOS[i])
    with pytest.raises(CardError, match="a combo has 2 cards, got 3"):
        parse_combo("AsKsQs")
    with pytest.raises(CardError, match="appears twice"):
        parse_combo("AsAs")
    with pytest.raises(CardError, match="out of range"):
        combo_str(1326)


def test_board_mask() -> None:
    m = board_mask(parse_board("Td9d6h"))
    assert m.shape == (1326,)
    assert m.dtype == np.bool_
    assert m.sum() == 49 * 48 // 2
    assert not m[parse_combo("Td2c")]
    assert m[parse_combo("Tc2c")]
    assert np.array_equal(board_mask("Td 9d 6h"), m)
    assert board_mask([]).all()
    assert board_mask("Td9d6h2cAs").sum() == 47 * 46 // 2
    with pytest.raises(CardError):
        board_mask([0, 0, 1])


# ------------------------------------------------------------------------------------------
# Libratus endgame files


def _endgame(round_: int = 3, board: str = "7s9h9cTc", pot: int = 500) -> LibratusEndgame:
    rng = np.random.default_rng(0)
    reach = rng.random((2, 1326))
    reach[:, ~board_mask(parse_board(board))] = 0.0
    reach[0, 0] = 0.0  # so that the file text starts "-reach 0.0 "
    return LibratusEndgame(round_, parse_board(board), pot, reach)


@pytest.mark.skipif(not DATA.is_dir(), reason="Libratus endgame data not available")
@pytest.mark.parametrize(("name", "round_", "board", "pot"), SUBGAMES)
def test_read_real_files(name: str, round_: int, board: str, pot: int, tmp_path: Path) -> None:
    eg = read_libratus_endgame(DATA / name)
    assert eg.round == round_
    assert eg.board == parse_board(board)
    assert eg.board_text == board
    assert eg.pot == pot
    assert eg.reach.shape == (2, 1326)
    assert eg.reach.dtype == np.float64
    assert np.all((eg.reach >= 0) & (eg.reach <= 1))
    # Combos holding a board card can't reach the endgame: a check of the combo order.
    blocked = ~board_mask(eg.board)
    assert blocked.sum() == 1326 - (52 - len(eg.board)) * (51 - len(eg.board)) // 2
    assert np.all(eg.reach[:, blocked] == 0.0)
    assert np.all(eg.reach[:, ~blocked].sum(axis=1) > 0)
    # First reach number is player 0's 2s2h.
    first = (DATA / name).read_text().split("-reach")[1].split()[0]
    assert eg.reach[0, 0] == float(first)
    # Write then read gives the same endgame.
    out = tmp_path / name
    write_libratus_endgame(out, eg)
    assert read_libratus_endgame(out) == eg


def test_round_trip_synthetic(tmp_path: Path) -> None:
    for eg in (_endgame(), _endgame(4, "4s8hTc9h2s", 3750)):
        path = tmp_path / "eg.txt"
        write_libratus_endgame(path, eg)
        back = read_libratus_endgame(path)
        assert back == eg
        assert np.array_equal(back.reach, eg.reach)
        assert parse_libratus_endgame(format_libratus_endgame(eg)) == eg
    assert _endgame() != _endgame(pot=600)


def test_java_style_exponent() -> None:
    text = format_libratus_endgame(_endgame()).replace(
        "-reach 0.0 ", "-reach 8.807024899639285E-4 ", 1
    )
    assert parse_libratus_endgame(text).reach[0, 0] == 8.807024899639285e-4


def _broken(old: str, new: str) -> str:
    text = format_libratus_endgame(_endgame())
    assert old in text
    return text.replace(old, new, 1)


@pytest.mark.parametrize(
    ("old", "new", "error", "match"),
    [
        ("-reach 0.0 ", "-reach ", ValueError, "reach: expected 2652 numbers.*got 2651"),
        ("-reach 0.0 ", "-reach 0.0 0.5 ", ValueError, "reach: expected 2652 numbers.*got 2653"),
        ("-reach 0.0 ", "-reach abc ", ValueError, "reach: number 1 is not a number: 'abc'"),
        ("-reach 0.0 ", "-reach -0.5 ", ValueError, "reach: number 1 .*must be a finite"),
        ("-reach 0.0 ", "-reach nan ", ValueError, "reach: number 1 .*must be a finite"),
        ("-board 7s9h9cTc", "-board 7s9h9cTx", CardError, "board: bad card 'Tx'"),
        ("-board 7s9h9cTc", "-board 7s9h9c9c", CardError, "board: card 9c appears twice"),
        ("-board 7s9h9cTc", "-board 7s9h", CardError, "board: a board has 3, 4 or 5 cards"),
        ("-board 7s9h9cTc", "-board 7s9h9cTcAs", CardError, "board: round 3 needs 4 board"),
        ("-board 7s9h9cTc", "-board", ValueError, "board: expected 1 value, got 0"),
        ("-pot 500", "-pot 5x0", ValueError, "pot: not an integer: '5x0'"),
        ("-pot 500", "-pot -5", ValueError, "pot: must be positive"),
        ("-pot 500", "", ValueError, "missing field -pot"),
        ("-round 3", "-round 2", ValueError, "round: must be 3 \\(turn\\) or 4 \\(river\\)"),
        ("-round 3", "-round three", ValueError, "round: not an integer"),
        ("-round 3", "-round 3 -round 3", ValueError, "field -round appears twice"),
        ("-round 3", "-round 3 -stack 200", ValueError, "unknown field '-stack'"),
        ("-round 3", "junk -round 3", ValueError, "expected a field"),
    ],
)
def test_bad_files(old: str, new: str, error: type[Exception], match: str) -> None:
    with pytest.raises(error, match=match):
        parse_libratus_endgame(_broken(old, new), source="x.txt")


def test_error_names_the_file(tmp_path: Path) -> None:
    path = tmp_path / "bad.txt"
    path.write_text(_broken("-pot 500", "-pot zero"))
    with pytest.raises(ValueError, match=r"bad\.txt: pot"):
        read_libratus_endgame(path)


def test_endgame_validation() -> None:
    eg = _endgame()
    assert not eg.reach.flags.writeable
    with pytest.raises(ValueError, match="reach: must have shape"):
        LibratusEndgame(3, eg.board, 500, np.zeros((2, 1325)))
    with pytest.raises(ValueError, match="pot: must be an integer"):
        LibratusEndgame(3, eg.board, 500.5, eg.reach)  # type: ignore[arg-type]
    with pytest.raises(CardError, match="appears twice"):
        LibratusEndgame(3, (0, 0, 1, 2), 500, eg.reach)
