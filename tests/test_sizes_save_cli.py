"""``python -m solver sizes --save FILE``: the simplified tree's final solve as a normal save,
which ``exploit --load`` and ``drill --load`` open with the simplified actions only; ``--save``
with both players or into no folder is refused by its flag before anything is solved."""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run
from sizes_helpers import cli_spot

from solver.files.export import load_solve
from solver.study import sizes as sizes_mod

SPOT = cli_spot("0.1%")


def test_save_then_exploit_and_drill_load_open_the_simplified_tree(tmp_path, monkeypatch) -> None:
    finals = []
    simplify = sizes_mod.simplify_sizes

    def keep_result(*a: object, **k: object) -> sizes_mod.SizesResult:
        finals.append(simplify(*a, **k))  # type: ignore[arg-type]
        return finals[-1]

    monkeypatch.setattr(sizes_mod, "simplify_sizes", keep_result)
    path = tmp_path / "simplified.npz"
    out = run("sizes", *SPOT, "--player", "ip", "--keep", "1", "--save", str(path), "--json")
    assert out.returncode == 0, out.stderr
    final = json.loads(out.stdout.splitlines()[-1])
    assert final["final"] is True and final["saved"] == str(path)
    (kept,) = final["kept"]["k"]
    removed = final["removed"]["k"]
    assert len(removed) == 3 and kept not in removed

    loaded = load_solve(path.read_bytes())
    assert loaded.meta["game"]["removed"] == {"k": removed}
    (result,) = finals
    assert np.array_equal(loaded.engine.average_strategy(), result.final.average_strategy())

    out = run("exploit", "--load", str(path), "--line", "k", "--json")
    assert out.returncode == 0, out.stderr
    record = json.loads(out.stdout.splitlines()[-1])
    assert record["actions"] == ["k", kept]  # IP's node without the removed sizes
    assert record["iteration"] == result.final.engine.iteration

    out = run("drill", "--load", str(path), "--player", "ip", "--line", "k", "--hands", "5",
              "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    rows = [json.loads(x) for x in out.stdout.splitlines()]
    assert rows[-1]["final"] is True and rows[-1]["decisions"] == 5
    assert all(len(r["mix"]) == 2 for r in rows[:-1])  # check and the kept size (of five)


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        (["--player", "both"], "--player oop or ip"),
        ([], "--player oop or ip"),  # both is the default
    ],
)
def test_save_with_both_players_is_refused_before_solving(
    tmp_path, monkeypatch, extra, message
) -> None:
    def nothing(*_a: object, **_k: object) -> None:
        raise AssertionError("solved before the input was checked")

    monkeypatch.setattr(sizes_mod, "solve", nothing)
    out = run("sizes", *SPOT, *extra, "--save", str(tmp_path / "x.npz"))
    assert out.returncode == 2 and out.stderr.startswith("error: --save: "), out.stderr
    assert message in out.stderr and not (tmp_path / "x.npz").exists()


def test_save_into_no_folder_is_refused_before_solving(tmp_path, monkeypatch) -> None:
    def nothing(*_a: object, **_k: object) -> None:
        raise AssertionError("solved before the input was checked")

    monkeypatch.setattr(sizes_mod, "solve", nothing)
    for target in (tmp_path / "none" / "x.npz", tmp_path):
        out = run("sizes", *SPOT, "--player", "ip", "--save", str(target))
        assert out.returncode == 2 and out.stderr.startswith("error: --save: "), out.stderr
        assert "Traceback" not in out.stderr
