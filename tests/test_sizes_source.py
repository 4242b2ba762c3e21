"""A simplified tree (issue 47) as a game source and a save: ``removed`` round-trips through
the source dict and the save, rebuilds exactly the simplified tree, is refused by its field
when crafted, and sources without it are what they always were."""

from __future__ import annotations

import io
import json
from dataclasses import asdict

import numpy as np
import pytest
from sizes_helpers import GRID, SPEC

from solver.files.export import ExportError, load_solve, save_solve
from solver.games.holdem import build_holdem
from solver.games.source import HoldemSource, SourceError, from_dict
from solver.study.sizes import SizesResult, simplify_sizes


@pytest.fixture(scope="module")
def result() -> SizesResult:
    """IP keeps one size of the grid after OOP checks (its bets at ``k``)."""
    return simplify_sizes(SPEC, GRID, player="ip", nodes="root", keep=1, target=0.2)


def _labels(game) -> list[list[str]]:
    return [game.action_labels(int(n)) for n in game.decision_nodes()]


def test_a_source_without_removed_is_the_dict_it_always_was() -> None:
    source = HoldemSource(SPEC)
    data = source.to_dict()
    assert data == {"kind": "holdem", "spec": asdict(SPEC)}  # no new key
    back = from_dict(json.loads(json.dumps(data)))
    assert isinstance(back, HoldemSource) and back.removed == ()
    assert back.key() == source.key() and "removed" not in source.key()
    assert back.build().num_nodes == build_holdem(SPEC).num_nodes


def test_a_source_with_removed_round_trips_and_rebuilds_the_simplified_tree(result) -> None:
    source = result.source()
    data = json.loads(json.dumps(source.to_dict()))
    kept = result.kept["k"]
    assert len(kept) == 1
    # the removed sizes, by line as the result names them, all but the kept one
    assert data["removed"] == {"k": result.removed["k"]}
    assert sorted([*data["removed"]["k"], *kept]) == sorted(result.removal_regret["k"])
    back = from_dict(data)
    assert isinstance(back, HoldemSource)
    assert back.to_dict() == data and back.key() == source.key()
    assert back.key() != HoldemSource(source.spec).key()  # another game than the superset
    game, final = back.build(), result.final.game
    assert game.num_nodes == final.num_nodes and game.action_size == final.action_size
    assert _labels(game) == _labels(final)
    # IP's node after the check holds the kept size only; the superset holds every size
    k = next(int(c) for c in game.children(0) if game.labels[c] == "k")
    assert [x for x in game.action_labels(k) if x.startswith("b:")] == kept
    full = result.superset.game
    k_full = next(int(c) for c in full.children(0) if full.labels[c] == "k")
    assert len([x for x in full.action_labels(k_full) if x.startswith("b:")]) == 4


@pytest.mark.parametrize(
    "removed",
    [
        None,
        ["b:66"],
        {"k": "b:66"},
        {"k": []},
        {"k": ["k"]},  # not a size: check/call/fold are never removed
        {"k": ["b:66", "b:66"]},
        {"k x": ["b:66"]},
        {"k": [66]},
        {"root": ["b:66"], "": ["b:150"]},  # the root twice
        {f"k{i}": ["b:1"] for i in range(5000)},  # past the cap on lines
        {"k": ["b:999"]},  # no such bet here
        {"k c": ["b:66"]},  # no such line
        {"k b:66": ["b:66"]},  # OOP facing the bet: no bet of its own there
    ],
)
def test_a_crafted_removed_is_refused_naming_the_field(result, removed) -> None:
    data = {**result.source().to_dict(), "removed": removed}
    with pytest.raises(SourceError, match=r"^removed: "):
        from_dict(data)
    with pytest.raises(ExportError, match=r"^metadata: removed: "):
        load_solve(_save_with(result, data))


def _save_with(result: SizesResult, game: dict) -> bytes:
    """The final solve saved with ``game`` as its source (a file crafted by hand)."""
    data = save_solve(result.final.engine, result.source().to_dict(), tuple(result.final.history))
    with np.load(io.BytesIO(data)) as z:
        arrays = {k: z[k] for k in z.files}
    meta = json.loads(str(arrays["meta"]))
    meta["game"] = game
    arrays["meta"] = np.array(json.dumps(meta))
    out = io.BytesIO()
    np.savez_compressed(out, **arrays)
    return out.getvalue()


def test_save_then_load_of_a_simplified_solve_gives_the_same_game_and_numbers(result) -> None:
    final = result.final
    data = save_solve(final.engine, result.source().to_dict(), tuple(final.history))
    loaded = load_solve(data)
    assert loaded.meta["game"]["removed"] == {"k": result.removed["k"]}
    assert loaded.game.num_nodes == final.game.num_nodes
    assert _labels(loaded.game) == _labels(final.game)
    assert np.array_equal(loaded.engine.average_strategy(), final.engine.average_strategy())
    assert np.array_equal(loaded.engine.storage.regrets, final.engine.storage.regrets)
    assert loaded.engine.iteration == final.engine.iteration
    assert [c.exploitability for c in loaded.history] == [c.exploitability for c in final.history]


def test_a_save_naming_the_superset_is_refused_by_its_size(result) -> None:
    """The simplified solve's arrays under the superset's source (no ``removed``): the file
    holds fewer sums than that game, said before it is built."""
    with pytest.raises(ExportError, match="strategy sums"):
        load_solve(_save_with(result, HoldemSource(result.source().spec).to_dict()))
