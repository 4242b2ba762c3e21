"""``python -m solver solve --players 3`` on a three-way river spot (docs/multiway.md): JSON
lines with each player's Nash distance in chips and % of the starting pot, NashConv and EV,
the same as the engine's in-process solve and as the independent evaluator on the deal-list
build of the spot; bad flags refused by name with exit code 2."""

from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import run
from multiway_helpers import deal_list_profile, lines

from solver.cfr.holdem3_engine import River3Engine
from solver.cfr.rules import make_rule
from solver.games.holdem3 import River3Spec, river3_multigame, validate
from solver.games.nashconv import nash_report

BOARD = "Ks 7d 2c 9h 3s"
RANGES = ("AA, KK, AK", "QQ, JJ, AQs", "TT, 99, KQs")
SPOT = ("--players", "3", "--board", BOARD, "--pot", "60", "--stack", "200",
        "--range-0", RANGES[0], "--range-1", RANGES[1], "--range-2", RANGES[2],
        "--bets", "50%", "--raises", "a", "--raise-cap", "1")  # fmt: skip
SPEC = River3Spec(BOARD, *RANGES, pot=60, stack=200, bets="50%", raises="a", raise_cap=1)


def test_json_lines_carry_each_players_nash_distance() -> None:
    out = run("solve", *SPOT, "--algorithm", "cfr+", "--iterations", "30", "--every", "10",
              "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    recs = lines(out.stdout)
    assert [r["iteration"] for r in recs] == [0, 10, 20, 30, 30]
    final = recs[-1]
    assert final["final"] is True and final["players"] == 3 and final["pot"] == 60.0
    assert final["game"] == "river3" and final["hands"] == list(validate(SPEC).hands)
    assert final["stopped_by"] == "iterations" and "exploitability" not in final
    eng = River3Engine(SPEC, make_rule("cfr+"))
    eng.iterate(30)
    rep = eng.engine_report()
    dist = np.array(final["nash_distance"])
    np.testing.assert_allclose(dist, rep.nash_distance, rtol=0, atol=1e-12)
    np.testing.assert_allclose(final["nash_distance_pct_pot"], 100 * dist / 60.0, rtol=1e-15)
    assert final["nash_conv"] == pytest.approx(dist.sum(), abs=1e-12)
    np.testing.assert_allclose(final["ev"], rep.value, rtol=0, atol=1e-12)
    assert abs(sum(final["ev"])) < 1e-9  # zero-sum
    # the independent evaluator on the deal list of the same spot, the profile mapped by combo
    mg = river3_multigame(SPEC)
    combos = validate(SPEC).combos
    sigma = deal_list_profile(mg, eng.game.tree.offset, combos, eng.average_profile())
    ref = nash_report(mg, sigma)
    np.testing.assert_allclose(dist, ref.nash_distance, rtol=0, atol=1e-9)
    np.testing.assert_allclose(final["ev"], ref.value, rtol=0, atol=1e-9)


def test_text_output_states_the_spots_size_first() -> None:
    out = run("solve", *SPOT, "--iterations", "10")
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("three-way river: ") and "MB" in first
    assert "NashConv" in out.stdout.splitlines()[-1]


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (("--players", "4"), "--players: expected 2 or 3"),
        (("--range-1", "AKx"), "--range-1: "),
        (("--board", "Ks 7d 2c"), "--board: "),  # (four cards: a turn spot)
        (("--pot", "lots"), "--pot"),
        (("--bets", "50%%%"), "--bets: "),
        (("--oop-range", "AA"), "--oop-range: not for three-player games"),
        (("--algorithm", "mccfr-es"), "--algorithm: mccfr-es runs on kuhn3 and leduc3"),
        (("--game", "kuhn3"), "--game: not with --players 3"),
        (("--max-memory-mb", "0.001"), "--max-memory-mb: "),
        (("--locks", "locks.json"), "--locks: locks.json no such file"),
    ],
)
def test_bad_flags_are_refused_by_name(change: tuple[str, str], words: str) -> None:
    args = list(SPOT)
    if change[0] in args:
        args[args.index(change[0]) + 1] = change[1]
    else:
        args += list(change)
    out = run("solve", *args, "--iterations", "1")
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.startswith(f"error: {words}"), out.stderr
    assert "Traceback" not in out.stderr


def test_spot_flags_need_players_3() -> None:
    out = run("solve", "--game", "kuhn3", "--range-0", "AA", "--iterations", "1")
    assert out.returncode == 2 and out.stderr.startswith("error: --range-0: only with --players 3")
    out = run("solve", "--players", "3", "--board", BOARD, "--iterations", "1")
    assert out.returncode == 2 and out.stderr.startswith("error: --pot: required with --players 3")
