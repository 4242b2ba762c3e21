"""Node locking (solver.cfr.locks): locked infosets play their mix, are never updated, and best
responses and exploitability are the locked game's — checked against known values, a
dict-based reference best response, and bit-for-bit storage."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np
import pytest
import reference
from cli_helpers import run
from conftest import game, locked_engine, small_turn

from solver import Engine, make_rule, solve
from solver.algorithms import make_solver
from solver.cfr.bestresponse import expected_values
from solver.cfr.locks import locked_cells
from solver.cfr.options import OptionError, SolveOptions
from solver.files.export import load_solve, save_solve
from solver.games import Game
from solver.lockspec import LockError, build_locks, lock_engine

KUHN_EXPLOIT = {"k": {"k": 1.0}, "b:1": {"f": 1.0}}  # player 2 checks behind, folds to bets


def test_kuhn_first_player_takes_a_chip_from_a_folder_and_the_locked_game_is_solved() -> None:
    for rule in ("cfr", "cfr+", "dcfr", "pcfr+"):
        e = locked_engine(game("kuhn"), rule, KUHN_EXPLOIT)
        e.iterate(300)
        ev = expected_values(e.game, e.average_strategy())
        assert ev[0] == pytest.approx(1.0, abs=1e-3), rule  # it bets every card
        assert 0.0 <= 0.5 * sum(e.best_response_values()) < 1e-3, rule
    r = solve("kuhn", "cfr+", iterations=300, locks=KUHN_EXPLOIT)
    assert r.ev[0] == pytest.approx(1.0, abs=1e-3)
    assert r.strategy(("b:1",))["K"] == {"f": 1.0, "c": 0.0}  # the lock, whatever its regrets


def _locked_storage(e: Engine) -> dict[str, np.ndarray]:
    cells = locked_cells(e.game, e.lockset.locks)  # type: ignore[union-attr]
    st = e.storage
    out = {"regrets": np.array(st.regrets[cells]), "sums": np.array(st.cumulative[cells])}
    if st.strategy.shape[0] > 1:
        out["strategy"] = np.array(st.strategy[cells])
    if st.last_regret.shape[0] > 1:
        out["last_regret"] = np.array(st.last_regret[cells])
    return out


@pytest.mark.parametrize(
    ("name", "rule", "options"),
    [
        ("leduc", "cfr", {}),
        ("leduc", "dcfr", {}),  # discounts: a zero-reach update would touch every cell
        ("leduc", "pcfr+", {}),  # a stored strategy
        ("leduc", "apcfr+", {}),  # adaptive statistics per cell and infoset
        ("leduc", "dcfr", {"pruning": "none"}),
        ("leduc", "mccfr-cs", {"seed": 3}),
        pytest.param(
            "turn", "dcfr", {"threads": 2, "precision": "float64"}, marks=pytest.mark.cores(2)
        ),
    ],
)
def test_locked_cells_never_change_and_the_rest_solves(name: str, rule: str, options: dict) -> None:
    g = _turn() if name == "turn" else game(name)
    e = make_solver(g, rule, options=SolveOptions(**options))
    assert isinstance(e, Engine)
    e.iterate(20)  # a warm state: locked cells hold non-zero regrets and sums
    lines = ["k", "k b:2"] if name == "leduc" else ["root", "k b:100"]
    lock_engine(
        e,
        {lines[0]: "solved", lines[1]: {g.action_labels(g.find(tuple(lines[1].split())))[0]: 1.0}},
    )
    before = _locked_storage(e)
    regrets_before = np.array(e.storage.regrets, dtype=np.float64)
    e.iterate(30)
    after = _locked_storage(e)
    for key in before:
        np.testing.assert_array_equal(before[key], after[key], err_msg=key)
    cells = locked_cells(g, e.lockset.locks)  # type: ignore[union-attr]
    assert not np.array_equal(np.asarray(e.storage.regrets)[~cells], regrets_before[~cells])
    avg = e.average_strategy()
    np.testing.assert_array_equal(avg[cells], e.lockset.locks.strategy[cells])  # type: ignore[union-attr]


def _turn() -> Game:
    return small_turn("AA,KK,T9s,87s,A5s,QJs", "JJ,TT,AK,65s,KQs")


def _reference_strategy(g: Game, sigma: np.ndarray, name: str) -> dict:
    """The engine's flat strategy as the reference's {(player, history, card): row}."""
    out = {}
    for key in reference.infosets(name):
        player, history, card = key
        node, cmap = g.locate(history)
        off, na, nh = g.block(node)
        h = g.map_hand(player, g.hand_names[player].index(card), cmap)
        out[key] = sigma[off + np.arange(na) * nh + h]
    return out


def test_best_response_in_the_locked_game_equals_a_reference_best_response() -> None:
    """Leduc, locks on both players (whole range, per hand, after the board card, and a
    suit-isomorphic card in the line): our (BR₀, BR₁) equal a dict-based best response whose
    responder keeps every locked infoset on its mix."""
    g = game("leduc")
    locks = {
        "k": {"k": 0.2, "b:2": 0.8},
        "b:2": {"Q": {"f": 1.0}, "K": {"c": 0.5, "r:2": 0.5}},
        "k k d:Kh": {"k": 1.0},  # a heart: the stored spade node, hands mapped
        "k k d:Js b:4": {"J": {"c": 1.0}, "*": {"f": 1.0}},
    }
    e = locked_engine(g, "dcfr", locks)
    e.iterate(50)
    sigma = e.average_strategy()
    ref_sigma = _reference_strategy(g, sigma, "leduc")
    lk = e.lockset.locks  # type: ignore[union-attr]
    ours = e.best_response_values()
    for p in range(2):
        locked = {}
        for key in reference.infosets("leduc"):
            player, history, card = key
            if player != p:
                continue
            node, cmap = g.locate(history)
            off, na, nh = g.block(node)
            h = g.map_hand(player, g.hand_names[player].index(card), cmap)
            if lk.hand[int(g.tree.ioffset[node]) + h]:
                locked[key] = lk.strategy[off + np.arange(na) * nh + h]
        assert len(locked) >= 6
        value = reference.best_response(
            "leduc", p, ref_sigma, locked={k: np.asarray(v) for k, v in locked.items()}
        )[0]
        assert ours[p] == pytest.approx(value, abs=1e-10)
        unlocked = reference.best_response("leduc", p, ref_sigma)[0]
        assert unlocked >= value - 1e-12  # locking the responder cannot help it


def test_a_lock_at_the_equilibrium_leaves_the_equilibrium() -> None:
    g = game("leduc")
    e = Engine(g, make_rule("dcfr"))
    e.iterate(2000)
    ev = expected_values(g, e.average_strategy())
    expl = 0.5 * sum(e.best_response_values())
    assert expl < 2e-3
    lock_engine(e, {"k": "solved", "b:2": "solved", "k k d:Qs": "solved"})
    locked_expl = 0.5 * sum(e.best_response_values())
    assert locked_expl <= expl + 1e-12  # the locked game offers fewer deviations
    e.iterate(500)
    ev2 = expected_values(g, e.average_strategy())
    assert ev2[0] == pytest.approx(ev[0], abs=5e-3)
    assert 0.5 * sum(e.best_response_values()) < 2e-3


def test_per_hand_locks_leave_the_other_hands_free() -> None:
    """A river spot, OOP's first decision: aces locked to check; the node's other hands keep
    learning (their strategy moves) while the aces stay on the lock."""
    from solver.games.holdem import HoldemSpec, build_holdem

    g = build_holdem(HoldemSpec(board="Td9d6hQc2s", pot=100, stack=200, oop_range="AA,KK,T9s,87s",
                                ip_range="JJ,AK,KQs", bets="50%, a", raises="a"))  # fmt: skip
    e = locked_engine(g, "dcfr", {"root": {"AA": {"k": 1.0}}})
    node = 0
    off, na, nh = g.block(node)
    first = e.current_strategy()[off : off + na * nh].reshape(na, nh).copy()  # uniform
    e.iterate(40)
    now = e.current_strategy()[off : off + na * nh].reshape(na, nh)
    names = g.hand_names[0]
    aces = [i for i, n in enumerate(names) if n[0] == "A" and n[2] == "A"]
    free = [i for i in range(nh) if i not in aces]
    assert len(aces) == 6
    np.testing.assert_array_equal(now[:, aces], np.array([[1.0] * 6, [0.0] * 6, [0.0] * 6])[:na])
    assert np.abs(now[:, free] - first[:, free]).max() > 0.05


@pytest.mark.parametrize(
    ("locks", "needle"),
    [
        ({"x": {"k": 1.0}}, "lock 'x': no such line"),
        ({"k": {"zz": 1.0}}, "lock 'k': no action 'zz' here (actions: k, b:2)"),
        ({"k": {"k": 0.5, "b:2": 0.4}}, "lock 'k': probabilities sum to 0.9, not 1"),
        ({"b:2": {"K": {"c": 0.7}}}, "lock 'b:2', hand 'K': probabilities sum to 0.7"),
        ({"b:2": {"Z": {"c": 1.0}}}, "lock 'b:2', hand 'Z': no such hand"),
        ({"k k": {"k": 1.0}}, "lock 'k k': is a chance node"),
        ({"k": {"k": -0.5, "b:2": 1.5}}, "probability -0.5 is negative"),
        ({"k": {"k": "1"}}, "is not a probability"),
        ({"k": "maybe"}, "a mix is"),
        ({"k": {"k": 1.0}, "k ": {"k": 1.0}}, "locked twice"),
    ],
)
def test_bad_locks_name_the_line_and_hand(locks: dict, needle: str) -> None:
    with pytest.raises(LockError, match=None) as err:
        build_locks(game("leduc"), locks)
    assert needle in str(err.value)
    with pytest.raises(ValueError, match="lock"):
        solve("leduc", "cfr", iterations=2, locks=locks)


def test_locks_and_options_that_do_not_combine() -> None:
    with pytest.raises(OptionError, match="locks"):
        make_solver(
            game("leduc"), "cfr", options=SolveOptions(pruning="total", locks={"k": {"k": 1.0}})
        )
    with pytest.raises(OptionError, match="full-width"):
        make_solver(game("leduc"), "mccfr-es", options=SolveOptions(locks={"k": {"k": 1.0}}))
    with pytest.raises(LockError, match="'solved' needs a solve"):
        build_locks(game("leduc"), {"k": "solved"})


@pytest.mark.parametrize("target", [0.1, 0.05])
def test_a_warm_resolve_reaches_the_target_in_fewer_iterations(target: float) -> None:
    """A turn spot solved, then IP's response to a check and OOP's to a bet locked as solved:
    re-solving from the solve's regrets, the rule's schedule going on, reaches the target
    within a few iterations; a fresh solve of the same locked game needs about as long as
    the first solve (deterministic in iterations; docs/locking.md has the measurements,
    including locks far from the solution). With the schedule restarted a warm re-solve took
    longer than a fresh one here (58 against 40 iterations to 0.1 chips, the exploitability
    jumping from 0.44 to 23 chips on the way): DCFR's first discounts halve the carried
    regrets every iteration."""
    g = _turn()
    # float32 storage, as "auto" gives a bigger turn (docs/locking.md's measurements)
    kw: dict[str, Any] = {"target_exploitability": target, "check_every": 2,
                          "precision": "float32"}  # fmt: skip
    base = solve(g, "dcfr-tuned", **kw)
    locks = {"k": "solved", "k b:100": "solved"}
    warm = solve(g, "dcfr-tuned", locks=locks, warm_start=base, **kw)
    assert isinstance(warm.engine, Engine) and warm.engine.lockset is not None
    assert warm.engine.schedule_start == base.iteration
    spec = warm.engine.lockset.spec
    fresh = solve(g, "dcfr-tuned", locks=spec, **kw)
    assert warm.stopped_by == fresh.stopped_by == "target"
    assert warm.iteration * 5 < fresh.iteration
    # no jump on the way: every check after the first at most the first's
    curve = [c.exploitability for c in warm.history[1:]]
    assert max(curve) == curve[0]


def test_a_warm_start_goes_on_with_the_rules_schedule() -> None:
    """The warm engine's first iterations take the rule's rows of the iterations after the
    old solve's (two warm starts in a row add up), and a save keeps where the schedule is."""
    base = solve("leduc", "dcfr", iterations=30, check_every=30)
    first = solve("leduc", "dcfr", iterations=7, check_every=7, warm_start=base)
    second = solve("leduc", "dcfr", iterations=5, check_every=5, warm_start=first)
    e = second.engine
    assert isinstance(e, Engine) and e.schedule_start == 37 and e.iteration == 5
    # the same state stepped by hand with rows 38 … 42 of the schedule
    ref = make_solver(game("leduc"), "dcfr")
    assert isinstance(ref, Engine) and isinstance(first.engine, Engine)
    ref.storage = ref.storage._replace(regrets=first.engine.storage.regrets.copy())
    ref.schedule_start = 37
    ref.iterate(5)
    np.testing.assert_array_equal(ref.storage.regrets, e.storage.regrets)
    np.testing.assert_array_equal(ref.storage.cumulative, e.storage.cumulative)
    cold = make_solver(game("leduc"), "dcfr")
    assert isinstance(cold, Engine)
    cold.storage = cold.storage._replace(regrets=first.engine.storage.regrets.copy())
    cold.iterate(5)  # the schedule from its start: other numbers
    assert not np.array_equal(cold.storage.regrets, e.storage.regrets)
    loaded = load_solve(save_solve(e, {"kind": "toy", "name": "leduc"})).engine
    assert isinstance(loaded, Engine) and loaded.schedule_start == 37
    loaded.iterate(3)
    e.iterate(3)
    np.testing.assert_array_equal(loaded.storage.regrets, e.storage.regrets)


def test_saved_solves_keep_their_locks() -> None:
    e = locked_engine(game("leduc"), "dcfr", {"k": {"k": 1.0}, "b:2": {"K": {"c": 1.0}}})
    e.iterate(30)
    loaded = load_solve(save_solve(e, {"kind": "toy", "name": "leduc"})).engine
    assert isinstance(loaded, Engine) and loaded.lockset is not None
    assert loaded.lockset.spec == e.lockset.spec  # type: ignore[union-attr]
    for a, b in zip(loaded.lockset.locks, e.lockset.locks, strict=True):  # type: ignore[union-attr]
        np.testing.assert_array_equal(a, b)
    loaded.iterate(10)
    e.iterate(10)
    np.testing.assert_array_equal(loaded.storage.regrets, e.storage.regrets)


def test_cli_locks_file(tmp_path: Path) -> None:
    good = tmp_path / "locks.json"
    good.write_text(json.dumps(KUHN_EXPLOIT))
    out = run("solve", "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "300",
              "--locks", str(good), "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    final = json.loads(out.stdout.strip().splitlines()[-1])
    assert final["ev"][0] == pytest.approx(1.0, abs=1e-3)
    assert final["locks"] == KUHN_EXPLOIT
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"b:1": {"f": 0.5}}))
    cases = [(bad, "lock 'b:1': probabilities sum to 0.5"), (tmp_path / "no.json", "cannot read")]
    for path, needle in cases:
        out = run("solve", "--game", "kuhn", "--locks", str(path))
        assert out.returncode == 2 and "Traceback" not in out.stderr
        assert out.stderr.startswith("error: --locks: ") and needle in out.stderr
