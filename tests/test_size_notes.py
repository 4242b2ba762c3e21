"""A size typed is a size played, or the user is told (issue 33, item 18): every size the
betting tree plays at another amount — raised to the minimum bet or raise, forced or capped
all-in, merged into a larger size — comes back as a :class:`SizeNote`, from the tree layer,
the built game, the CLI's ``tree`` and ``solve`` and the Set up page; and the default big
blind (10 chips, as the srp presets) no longer rewrites ordinary sizes."""

from __future__ import annotations

import json
import subprocess
from dataclasses import replace

from app_helpers import page
from cli_helpers import run

from app import state
from solver.files.presets import load_preset
from solver.games.holdem import HoldemSpec, betting_tree, build_holdem, size_notes, validate
from solver.games.spec import MAX_STACK_BB, SpecError
from solver.tree.betting import SizeNote

# The issue's spot: a 200-chip flop pot, 900 behind, "33%, 75%, a".
ISSUE = HoldemSpec(
    board="Td9d6h", pot=200, stack=900, oop_range="AA, KK", ip_range="QQ, JJ",
    bets="33%, 75%, a", raises="a",
)  # fmt: skip
RIVER = HoldemSpec(
    board="Td9d6hQc2s", pot=200, stack=1000, oop_range="AA, KK", ip_range="QQ, JJ",
    bets="50%", raises="", raise_cap=0,
)  # fmt: skip


def _root_labels(spec: HoldemSpec) -> list[str]:
    return [c.label for c in betting_tree(validate(spec)).children]


def _notes(spec: HoldemSpec, reason: str) -> list[SizeNote]:
    return [n for n in size_notes(validate(spec)) if n.reason == reason]


def test_a_big_blind_of_100_raises_the_33_percent_flop_bet_and_says_so() -> None:
    spec = replace(ISSUE, big_blind=100)
    assert _root_labels(spec) == ["k", "b:100", "b:150", "b:900"]
    flop = [n for n in _notes(spec, "minimum") if n.street == "flop"]
    assert [(n.player, n.kind, n.size, n.chips, n.amount) for n in flop] == [
        ("OOP", "bet", "33%", 66, 100),
        ("IP", "bet", "33%", 66, 100),
    ]
    assert flop[0].big_blind and "one big blind, 100 chips" in flop[0].became
    assert flop[0].text().startswith("flop OOP bet 33% (66 chips) is played as 100 chips")


def test_the_default_big_blind_plays_the_sizes_as_typed() -> None:
    assert ISSUE.big_blind == 10
    assert _root_labels(ISSUE) == ["k", "b:66", "b:150", "b:900"]
    assert _notes(ISSUE, "minimum") == []


def test_every_stack_valid_at_the_old_default_big_blind_stays_valid() -> None:
    deepest = replace(RIVER, stack=100_000 * 100)  # the old limit at the old default (100)
    assert validate(deepest).config.big_blind == 10
    assert MAX_STACK_BB * 10 >= 100_000 * 100
    try:
        validate(replace(RIVER, stack=10**8, big_blind=1))
    except SpecError as exc:
        assert exc.field == "stack"
    else:
        raise AssertionError("a stack of 100,000,000 big blinds must be refused")


def test_a_raise_below_the_last_increment_is_raised_to_it() -> None:
    spec = replace(RIVER, bets="100%", raises="10%", raise_cap=1)
    [note] = [n for n in _notes(spec, "minimum") if n.player == "IP"]
    # facing 200 into 400: 10 % of the 600 after calling is a raise to 260; at least to 400
    assert (note.player, note.kind, note.size, note.chips, note.amount) == (
        "IP", "raise", "10%", 260, 400,
    )  # fmt: skip
    assert "the last bet or raise increment, 200 chips" in note.became and not note.big_blind


def test_the_force_allin_threshold_is_said() -> None:
    spec = replace(RIVER, stack=300, bets="75%", force_allin_threshold=0.5)
    notes = _notes(spec, "force_allin")
    assert [(n.player, n.size, n.chips, n.amount) for n in notes] == [
        ("OOP", "75%", 150, 300),
        ("IP", "75%", 150, 300),
    ]
    assert "force-all-in threshold 0.5" in notes[0].became


def test_a_size_past_the_stack_is_said_to_be_all_in() -> None:
    spec = replace(RIVER, stack=100, bets="75%, a")
    assert _root_labels(spec) == ["k", "b:100"]
    notes = _notes(spec, "stack")
    assert [(n.player, n.size, n.chips, n.amount) for n in notes] == [
        ("OOP", "75%", 150, 100),
        ("IP", "75%", 150, 100),
    ]
    assert not [n for n in size_notes(validate(spec)) if n.size == "a"]  # all-in as typed


def test_a_merged_size_names_the_size_it_became() -> None:
    spec = replace(RIVER, bets="50%, 60%", merging_threshold=0.1)
    assert _root_labels(spec) == ["k", "b:120"]
    notes = _notes(spec, "merged")
    assert [(n.player, n.size, n.chips, n.amount) for n in notes] == [
        ("OOP", "50%", 100, 120),
        ("IP", "50%", 100, 120),
    ]
    assert notes[0].became.startswith("120 chips (merged into the larger size")


def test_notes_count_nodes_once_per_size_and_reason() -> None:
    spec = load_preset("srp-river").holdem  # raises 100%, a: past the stack after two raises
    assert spec is not None
    notes = size_notes(validate(spec))
    keys = [(n.street, n.player, n.kind, n.size, n.reason) for n in notes]
    assert len(keys) == len(set(keys))
    assert [(n.player, n.kind, n.size, n.reason, n.nodes, n.amount) for n in notes] == [
        ("OOP", "raise", "100%", "stack", 2, 900),
        ("IP", "raise", "100%", "stack", 2, 900),
    ]
    assert notes[0].text().endswith("is played as all-in (900 chips: the stack) (at 2 nodes)")


def test_the_built_game_carries_its_notes() -> None:
    spec = replace(RIVER, stack=100, bets="75%, a")
    game = build_holdem(spec)
    assert game.meta["size_notes"] == size_notes(validate(spec))
    assert build_holdem(RIVER).meta["size_notes"] == []


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return run(*args)


SPOT = (
    "--board", "Td9d6hQc2s", "--pot", "200", "--stack", "900", "--oop-range", "AA, KK",
    "--ip-range", "QQ, JJ", "--bets", "33%, 75%, a", "--raises", "a",
)  # fmt: skip


def test_cli_tree_says_which_size_became_what() -> None:
    out = _cli("tree", *SPOT, "--big-blind", "100", "--json")
    assert out.returncode == 0, out.stderr
    info = json.loads(out.stdout)
    assert info["nodes"] > 0  # every field kept
    first = info["size_notes"][0]
    assert {k: first[k] for k in ("street", "player", "kind", "size", "chips", "amount")} == {
        "street": "river", "player": "OOP", "kind": "bet", "size": "33%", "chips": 66,
        "amount": 100,
    }  # fmt: skip
    assert first["reason"] == "minimum" and first["text"].startswith("river OOP bet 33%")
    text = _cli("tree", *SPOT, "--big-blind", "100")
    assert text.returncode == 0, text.stderr
    assert "note: river OOP bet 33% (66 chips) is played as 100 chips" in text.stderr
    assert "--big-blind sets it" in text.stderr
    plain = _cli("tree", *SPOT, "--json")
    assert json.loads(plain.stdout)["size_notes"] == [] and "note:" not in plain.stderr


def test_cli_solve_says_it_too() -> None:
    lines = _cli("solve", *SPOT, "--big-blind", "100", "--iterations", "0", "--json")
    assert lines.returncode == 0, lines.stderr
    final = json.loads(lines.stdout.splitlines()[-1])
    assert final["final"] is True and "ev" in final
    assert [n["size"] for n in final["size_notes"]] == ["33%", "33%"]
    text = _cli("solve", *SPOT, "--big-blind", "100", "--iterations", "0")
    assert text.returncode == 0, text.stderr
    assert text.stderr.count("note: river") == 2


def test_set_up_shows_the_notes_under_the_sizes() -> None:
    at = page("setup")
    at.run()
    at.text_input(key=state.BIG_BLIND).set_value("100")
    at.text_input(key=state.BETS).set_value("33%, 75%, a").run()
    assert not at.exception and not at.error
    notes = [i.value for i in at.info if "played at another amount" in i.value]
    assert len(notes) == 1
    assert "river OOP bet 33% (66 chips) is played as 100 chips" in notes[0]
    assert "Big blind field sets it" in notes[0]
    at.text_input(key=state.BIG_BLIND).set_value("10").run()
    assert not any("bet 33%" in i.value for i in at.info)
