"""``python -m solver solve --players 3 --board … --locks FILE.json`` on three-way river and
turn spots (issue 49 item 1; docs/locking.md, docs/multiway.md): the heads-up locks file's
format for any player; the final JSON line repeats the locks and says per player which lines
are locked, as for kuhn3; a bad file or lock is one ``error: --locks: …`` line, exit code 2,
nothing solved."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run
from multiway_helpers import lines, write

from solver.cfr.holdem3_build import build_holdem3
from solver.cfr.holdem3_engine import River3Engine, lock_river3
from solver.cfr.holdem3_turn_build import build_turn3
from solver.cfr.rules import make_rule
from solver.cli.args import MAX_JSON_FILE_BYTES
from solver.games.holdem3 import River3Spec, river3_multigame
from solver.games.holdem3_locks import holdem3_lock_lines
from solver.games.holdem3_turn import Turn3Spec
from solver.games.model import DECISION
from solver.games.nashconv import best_response_values

RIVER_BOARD = "Ks 7d 2c 9h 3s"
RIVER_RANGES = ("AA, KK, AK", "QQ, JJ, AQs", "TT, 99, KQs")
TURN_BOARD = "Ks 7d 2c 9h"
TURN_RANGES = ("AA, KhKd", "QQ, AhQh", "TT, 9s9d")
RIVER = River3Spec(RIVER_BOARD, *RIVER_RANGES, pot=60, stack=200, bets="50%", raises="a",
                   raise_cap=1)  # fmt: skip
TURN = Turn3Spec(TURN_BOARD, *TURN_RANGES, pot=60, stack=200, bets="a", raises="a", raise_cap=1)


def spot(board: str, ranges: tuple[str, ...], bets: str) -> tuple[str, ...]:
    return ("--players", "3", "--board", board, "--pot", "60", "--stack", "200",
            "--range-0", ranges[0], "--range-1", ranges[1], "--range-2", ranges[2],
            "--bets", bets, "--raises", "a", "--raise-cap", "1")  # fmt: skip


RIVER_SPOT = spot(RIVER_BOARD, RIVER_RANGES, "50%")
TURN_SPOT = spot(TURN_BOARD, TURN_RANGES, "a")


def test_two_players_locked_on_a_river_from_a_file(tmp_path: Path) -> None:
    """Players 0 and 1 locked to check/call on every node: the final line's numbers are the
    in-process engine's with the same locks, player 2 earns its best response against them
    (the evaluator on the deal list), and the line names the locks."""
    g = build_holdem3(RIVER).game
    spec = holdem3_lock_lines(g, [0, 1], {"check": {"k": 1}, "call": {"c": 1}})
    out = run("solve", *RIVER_SPOT, "--algorithm", "cfr+", "--iterations", "1000",
              "--every", "1000", "--locks", write(tmp_path, spec), "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    recs = lines(out.stdout)
    final = recs[-1]
    assert final["game"] == "river3" and "locks" not in recs[0]
    assert final["locks"] == spec
    by_player = final["locked"]
    assert by_player[2] == [] and sorted(by_player[0] + by_player[1]) == sorted(spec)
    eng = River3Engine(build_holdem3(RIVER), make_rule("cfr+"))
    locks = lock_river3(eng, spec)
    assert locks is not None and final["locked"] == locks.lines(3)
    eng.iterate(1000)
    rep = eng.engine_report()
    np.testing.assert_allclose(final["ev"], rep.value, rtol=0, atol=1e-12)
    np.testing.assert_allclose(final["nash_distance"], rep.nash_distance, rtol=0, atol=1e-12)
    # player 2's best response against the locked two, on the deal list (mapped by combo)
    mg = river3_multigame(RIVER)
    union = np.asarray(mg.meta["union"])
    sigma = np.empty(mg.profile_size)
    t = eng.game.tree
    fixed = np.where(locks.cells, locks.strategy, eng.average_profile())
    for n in np.flatnonzero(mg.kind == DECISION):
        na, p = int(mg.num_children[n]), int(mg.player[n])
        combos = np.asarray(eng.game.meta["combos"][p])  # type: ignore[index]
        block = np.full((na, mg.num_hands), 1.0 / na)
        block[:, np.searchsorted(union, combos)] = fixed[
            t.offset[n] : t.offset[n] + na * combos.size
        ].reshape(na, combos.size)
        sigma[mg.offset[n] : mg.offset[n] + na * mg.num_hands] = block.ravel()
    br = best_response_values(mg, sigma)[2]
    assert final["ev"][2] == pytest.approx(br, abs=2e-3)


def test_a_partial_lock_below_a_river_card_and_the_text_output(tmp_path: Path) -> None:
    """A turn spot: player 0's aces (the ones the Ah leaves) bet after 'k k k d:Ah', its
    other hands free; the solve plays the lock there and says where it is locked."""
    spec = {"k k k d:Ah": {"AA": {"b:200": 1}}}
    path = write(tmp_path, spec)
    out = run("solve", *TURN_SPOT, "--algorithm", "cfr+", "--iterations", "20", "--every", "20",
              "--locks", path, "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    final = lines(out.stdout)[-1]
    assert final["game"] == "turn3"
    assert final["locks"] == spec and final["locked"] == [["k k k d:Ah"], [], []]
    eng = River3Engine(build_turn3(TURN), make_rule("cfr+"))
    locks = lock_river3(eng, spec)
    assert locks is not None and [s.hand for s in locks.sets] == ["AsAd", "AsAc", "AdAc"]
    eng.iterate(20)
    np.testing.assert_allclose(final["ev"], eng.engine_report().value, rtol=0, atol=1e-12)
    text = run("solve", *TURN_SPOT, "--iterations", "2", "--locks", path)
    assert text.returncode == 0, text.stderr
    assert "locked: player 0 at 'k k k d:Ah'" in text.stdout.splitlines()[1]


@pytest.mark.parametrize(
    ("content", "says"),
    [
        ({"k x": {"k": 1}}, "lock 'k x': no such line: after 'k' come k, b:30, not 'x'"),
        ({"root": {"c": 1}}, "lock 'root': no action 'c' here (actions: k, b:30)"),
        ({"root": {"AKx": {"k": 1}}}, "lock 'root', hand 'AKx': not a hand, range or hand class"),
        ({"root": {"QQ": {"k": 1}}}, "lock 'root', hand 'QQ': names no hand that can be"),
        ({"b:30": {"f": 0.5, "c": 0.2}}, "lock 'b:30': probabilities sum to 0.7, not 1"),
        ({"k": "solved"}, "lock 'k': 'solved' needs a solve"),
        ("{not json", "is not JSON"),
        ("[1, 2]", "must hold"),
    ],
)
def test_bad_locks_are_refused_naming_the_flag(tmp_path: Path, content: object, says: str) -> None:
    out = run("solve", *RIVER_SPOT, "--locks", write(tmp_path, content), "--json")
    assert out.returncode == 2, out.stdout
    assert out.stderr.startswith("error: --locks: ") and says in out.stderr, out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_bad_turn_locks_and_large_files_are_refused(tmp_path: Path) -> None:
    cases = [
        (write(tmp_path, {"k k k d:Kh": {"KhKd": {"k": 1}}}),
         "lock 'k k k d:Kh', hand 'KhKd': names no hand that can be at this node"),
        (write(tmp_path, {"k k k": {"k": 1}}, "chance.json"), "lock 'k k k': is a chance node"),
    ]  # fmt: skip
    big = tmp_path / "big.json"
    big.write_text('{"root": {"k": 1}, "pad": "' + "x" * MAX_JSON_FILE_BYTES + '"}', "utf-8")
    cases.append((str(big), f"is larger than {MAX_JSON_FILE_BYTES:,} bytes"))
    for path, says in cases:
        out = run("solve", *TURN_SPOT, "--locks", path, "--json")
        assert out.returncode == 2, path
        assert out.stderr.startswith("error: --locks: ") and says in out.stderr, out.stderr
        assert out.stdout == ""
