"""``python -m solver solve --players 3`` with a four-card ``--board``: the three-way turn
spot (docs/multiway.md). JSON lines equal the engine's in-process solve and the independent
evaluator on the deal-list build; ``--size river.bets=…`` sets the river apart; bad flags
refused by name with exit code 2."""

from __future__ import annotations

import numpy as np
import pytest
from cli_helpers import run
from multiway_helpers import deal_list_profile, lines

from solver.cfr.holdem3_engine import River3Engine
from solver.cfr.holdem3_turn_build import build_turn3
from solver.cfr.rules import make_rule
from solver.games.holdem3_turn import Turn3Spec, estimate_turn, turn3_multigame, validate_turn
from solver.games.nashconv import nash_report

BOARD = "Ks 7d 2c 9h"
RANGES = ("AA, KhKd", "QQ, AhQh", "TT, 9s9d")
SPOT = ("--players", "3", "--board", BOARD, "--pot", "60", "--stack", "200",
        "--range-0", RANGES[0], "--range-1", RANGES[1], "--range-2", RANGES[2],
        "--bets", "a", "--raises", "a", "--raise-cap", "1")  # fmt: skip
SPEC = Turn3Spec(BOARD, *RANGES, pot=60, stack=200, bets="a", raises="a", raise_cap=1)


def test_json_lines_carry_each_players_nash_distance() -> None:
    out = run("solve", *SPOT, "--algorithm", "cfr+", "--iterations", "20", "--every", "10",
              "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    recs = lines(out.stdout)
    assert [r["iteration"] for r in recs] == [0, 10, 20, 20]
    final = recs[-1]
    est = estimate_turn(SPEC)
    assert final["game"] == "turn3" and final["players"] == 3 and final["pot"] == 60.0
    assert final["hands"] == list(validate_turn(SPEC).hands) and final["nodes"] == est.nodes
    assert final["memory_mb"] == round(est.memory_mb, 3)
    eng = River3Engine(build_turn3(SPEC), make_rule("cfr+"))
    eng.iterate(20)
    rep = eng.engine_report()
    dist = np.array(final["nash_distance"])
    np.testing.assert_allclose(dist, rep.nash_distance, rtol=0, atol=1e-12)
    np.testing.assert_allclose(final["ev"], rep.value, rtol=0, atol=1e-12)
    # the independent evaluator on the deal list, the profile mapped by combo
    mg = turn3_multigame(SPEC)
    combos = validate_turn(SPEC).base.combos
    sigma = deal_list_profile(mg, eng.game.tree.offset, combos, eng.average_profile())
    ref = nash_report(mg, sigma)
    np.testing.assert_allclose(dist, ref.nash_distance, rtol=0, atol=1e-9)
    np.testing.assert_allclose(final["ev"], ref.value, rtol=0, atol=1e-9)


def test_text_output_states_the_spots_size_first() -> None:
    out = run("solve", *SPOT, "--iterations", "2")
    assert out.returncode == 0, out.stderr
    first = out.stdout.splitlines()[0]
    assert first.startswith("three-way turn: ") and "nodes" in first and "MB" in first


def test_river_sizes_apart() -> None:
    out = run("solve", *SPOT, "--size", "river.bets=50%, a", "--iterations", "0", "--json")
    assert out.returncode == 0, out.stderr
    apart = Turn3Spec(BOARD, *RANGES, pot=60, stack=200, bets="a", raises="a", raise_cap=1,
                      river_bets="50%, a")  # fmt: skip
    assert lines(out.stdout)[-1]["nodes"] == estimate_turn(apart).nodes > estimate_turn(SPEC).nodes


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (("--size", "river.bots=50%"), "--size 'river.bots=50%': expected STREET.KIND=SIZES"),
        (("--size", "river.bets=2.5x"), "--size river.bets: "),
        (("--size", "turn.raises=3e"), "--size turn.raises: "),
        (("--bets", "2.5x"), "--bets: "),
        (("--max-memory-mb", "0.01"), "--max-memory-mb: "),
        (("--locks", "locks.json"), "--locks: locks.json no such file"),
    ],
)
def test_bad_flags_are_refused_by_name(extra: tuple[str, str], words: str) -> None:
    out = run("solve", *SPOT, *extra, "--iterations", "1")
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.startswith(f"error: {words}"), out.stderr
    assert "Traceback" not in out.stderr


def test_size_only_on_turn_spots() -> None:
    river = list(SPOT)
    river[river.index("--board") + 1] = BOARD + " 3s"
    out = run("solve", *river, "--size", "river.bets=50%", "--iterations", "1")
    assert out.returncode == 2 and out.stderr.startswith("error: --size: only on three-way turn")
