"""``python -m solver drill`` (solver/cli/drill.py) in process: the records' EVs and grades
against the solve's own per-action EVs and the grade rule applied here, best answers losing
nothing, a saved solve, one node, filters, and one line with exit code 2 for bad flags."""

from __future__ import annotations

import functools
import json
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run

from solver import solve
from solver.algorithms import make_solver
from solver.files.export import save_solve
from solver.games import make_game
from solver.study.trainer import Thresholds, grade_of, pot_at
from solver.study.views import action_evs


def records(*args: str) -> tuple[list[dict], dict]:
    r = run("drill", *args, "--json")
    assert r.returncode == 0, r.stderr
    lines = [json.loads(x) for x in r.stdout.splitlines()]
    assert lines[-1]["final"] is True
    return lines[:-1], lines[-1]


@functools.cache
def leduc_sigma() -> np.ndarray:
    """What the CLI solves for ``--game leduc --iterations 100`` (the same default rule)."""
    return solve(make_game("leduc"), iterations=100).average_strategy()


def test_records_are_the_solves_evs_and_grades() -> None:
    ds, final = records("--game", "leduc", "--iterations", "100", "--player", "ip",
                        "--answer", "uniform", "--hands", "12", "--seed", "4")  # fmt: skip
    g = make_game("leduc")
    sigma = leduc_sigma()
    assert len(ds) == 12 and final["decisions"] == 12 and final["iteration"] == 100
    for d in ds:
        node, cmap = g.locate(d["history"].split())
        h = g.map_hand(1, g.hand_names[1].index(d["solve_hand"]), cmap)
        evs = action_evs(g, sigma, node)[:, h]
        np.testing.assert_allclose(list(d["evs"].values()), evs, atol=1e-12)
        chosen = list(d["evs"]).index(d["action"])
        lost = float(evs.max() - evs[chosen])
        assert d["ev_lost"] == pytest.approx(lost, abs=1e-12)
        mix = float(list(d["mix"].values())[chosen])
        pct = 100 * lost / pot_at(g, node)
        assert d["grade"] == grade_of(pct, 100 * mix, lost <= 1e-9, Thresholds())
    assert final["ev_lost_total"] == pytest.approx(sum(d["ev_lost"] for d in ds))
    assert sum(final["grades"].values()) == 12


def test_best_answers_lose_nothing() -> None:
    ds, final = records("--game", "kuhn", "--iterations", "50", "--answer", "best",
                        "--hands", "25")  # fmt: skip
    assert all(d["ev_lost"] == 0 and d["grade"] == "Best" for d in ds)
    assert final["ev_lost_total"] == 0 and final["grades"]["Best"] == 25


def test_a_saved_solve_one_node_and_a_filter(tmp_path: Path) -> None:
    engine = make_solver(make_game("leduc"), "dcfr")
    engine.iterate(30)
    path = tmp_path / "leduc.npz"
    path.write_bytes(save_solve(engine, {"kind": "toy", "name": "leduc"}))
    ds, final = records("--load", str(path), "--line", "b:2", "--player", "ip",
                        "--cells", "K", "--hands", "8")  # fmt: skip
    assert final["iteration"] == 30 and final["scope"] == "node"
    assert {d["history"] for d in ds} == {"b:2"}
    assert {d["hand"][0] for d in ds} == {"K"}
    text = run("drill", "--load", str(path), "--hands", "3")
    assert text.returncode == 0 and text.stdout.splitlines()[-1].startswith("score: 3 decisions")


@pytest.mark.parametrize(
    ("args", "flag"),
    [
        (["--game", "kuhn", "--player", "xx"], "--player"),
        (["--game", "kuhn", "--answer", "perfect"], "--answer"),
        (["--game", "kuhn", "--hands", "0"], "--hands"),
        (["--game", "kuhn", "--scope", "river"], "--scope"),
        (["--game", "kuhn", "--seed", "x"], "--seed"),
        (["--game", "kuhn", "--line", "b:9"], "--line"),
        (["--game", "kuhn", "--line", "k", "--player", "oop"], "--line"),
        (["--game", "kuhn", "--min-reach", "150"], "--min-reach"),
        (["--game", "kuhn", "--cells", "A"], "--cells"),
        (["--game", "kuhn", "--classes", "top_pair"], "--classes"),
        (["--game", "kuhn", "--iterations", "-3"], "--iterations"),
        (["--load", "/nonexistent/solve.npz"], "--load"),
        (["--load", "x.npz", "--game", "kuhn"], "--load"),
        (["--game", "nope"], "--game"),
    ],
)
def test_bad_flags_get_one_line_and_exit_2(args: list[str], flag: str) -> None:
    r = (
        run("drill", "--iterations", "5", *args)
        if "--iterations" not in args
        else run("drill", *args)
    )
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"error: {flag}") and r.stderr.count("\n") == 1
    assert "Traceback" not in r.stderr and r.stdout == ""


def test_a_filter_that_leaves_nothing_is_said() -> None:
    """At ``k b:1`` (OOP checked, IP bet) OOP's K always reaches less than 100 %: it bets
    some of the time at equilibrium."""
    r = run("drill", "--game", "kuhn", "--iterations", "100", "--line", "k b:1",
            "--cells", "K", "--min-reach", "100")  # fmt: skip
    assert r.returncode == 2 and "leaves nothing to deal" in r.stderr
    assert r.stderr.count("\n") == 1


def test_a_flop_of_a_batch_database(tmp_path: Path) -> None:
    """A batch flop saved with its solve (as the driver writes it) is drilled from the
    database: the records are that solve's hands on that flop."""
    from dataclasses import replace

    from batch_helpers import TEMPLATE, tiny_spec

    from solver.batch.store import BatchStore
    from solver.files.export import game_source
    from solver.games.holdem import build_holdem
    from solver.poker.flops import parse_flop

    db = tmp_path / "b.db"
    spot = replace(TEMPLATE, board="Ks9s5s")
    engine = make_solver(build_holdem(spot), "dcfr")
    engine.iterate(20)
    with BatchStore.create_or_open(db, tiny_spec(save_solves=True)) as store:
        folder = store.solve_dir()
        folder.mkdir()
        (folder / "Ks9s5s.npz").write_bytes(
            save_solve(engine, game_source(engine.game, holdem=spot))
        )
        summary = {"ev": [60.0, 40.0], "equity": [0.6, 0.4], "eqr": [1.0, 1.0],
                   "oop_mix": {"k": 0.5, "b:100": 0.5}}  # fmt: skip
        store.record(parse_flop("Ks9s5s"), 0, summary, seconds=1.0,
                     solve_file=f"{db.name}.solves/Ks9s5s.npz")  # fmt: skip
    ds, final = records("--batch", str(db), "--flop", "Ks 9s 5s", "--hands", "4")
    assert final["iteration"] == 20 and len(ds) == 4
    assert all(d["board"].startswith("Ks 9s 5s") for d in ds)
    r = run("drill", "--batch", str(db), "--flop", "AhKd2c")
    assert r.returncode == 2 and r.stderr.startswith("error: --flop: no saved solve of 'AhKd2c'")
    r = run("drill", "--batch", str(tmp_path / "none.db"), "--flop", "Ks9s5s")
    assert r.returncode == 2 and r.stderr.startswith("error: --batch:")
