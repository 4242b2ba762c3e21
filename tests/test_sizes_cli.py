"""``python -m solver sizes``: the JSON contract, both players, and bad input named by its
flag with exit code 2 before anything is solved."""

from __future__ import annotations

import json

import pytest
from cli_helpers import run
from sizes_helpers import cli_spot

from solver.study import sizes as sizes_mod

SPOT = cli_spot("0.05%")
FIELDS = {"player", "keep", "kept", "removal_regret", "value_full", "value_kept", "loss_chips",
          "loss_pct_pot", "exploitability_superset", "exploitability_final",
          "superset_seconds", "seconds"}  # fmt: skip


def test_json_both_players_end_with_their_final_lines() -> None:
    out = run("sizes", *SPOT, "--player", "both", "--keep", "1", "--json")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.splitlines()]
    finals = [x for x in lines if x.get("final")]
    assert [f["player"] for f in finals] == ["oop", "ip"]
    assert lines[-1]["final"] is True and lines[-1]["player"] == "ip"
    for f in finals:
        assert set(f) >= FIELDS
        line = "root" if f["player"] == "oop" else "k"
        assert len(f["kept"][line]) == 1
        assert set(f["removal_regret"][line]) == {"b:66", "b:150", "b:300", "b:400"}
        assert f["loss_chips"] == pytest.approx(f["value_full"] - f["value_kept"])
        assert f["loss_pct_pot"] == pytest.approx(f["loss_chips"] / 2)
        assert f["loss_chips"] >= -2 * f["exploitability_superset"] / 100 * 200
    # the checks of every solve, named by stage; both players share one superset solve
    stages = {(x["player"], x["stage"]) for x in lines if "stage" in x}
    assert ("oop", "superset") in stages and ("ip", "superset") not in stages


def test_text_says_what_is_kept_and_given_up() -> None:
    out = run("sizes", *SPOT, "--player", "ip", "--keep", "2")
    assert out.returncode == 0, out.stderr
    assert "IP at k: keeps" in out.stdout
    assert "IP gives up" in out.stdout and "% of the pot" in out.stdout


@pytest.mark.parametrize(
    ("extra", "flag"),
    [
        (["--grid", ""], "--grid"),
        (["--keep", "0"], "--keep"),
        (["--keep", "5"], "--keep"),
        (["--grid", "5c, 50%", "--keep", "1"], "--grid"),  # under the big blind
        (["--grid", "50%, 3x"], "--grid"),
        (["--player", "sb"], "--player"),
        (["--nodes", "turn"], "--nodes"),
        (["--raise-grid", "100%"], "--raise-grid"),  # with --nodes root
        (["--target", "-1"], "--target"),
        (["--threads", "0"], "--threads"),
        (["--algorithm", "mccfr-es"], "--algorithm"),
        (["--pot", "x"], "--pot"),
    ],
)
def test_bad_input_exits_2_naming_the_flag(monkeypatch, extra, flag) -> None:
    def nothing(*_a: object, **_k: object) -> None:
        raise AssertionError("solved before the input was checked")

    monkeypatch.setattr(sizes_mod, "solve", nothing)
    out = run("sizes", *SPOT, *extra)
    assert out.returncode == 2, (out.stdout, out.stderr)
    assert out.stderr.startswith(f"error: {flag}:"), out.stderr
    assert "Traceback" not in out.stderr and out.stdout == ""


def test_a_game_or_preset_flag_mix_is_refused() -> None:
    out = run("sizes", "--game", "kuhn")
    assert out.returncode == 2 and out.stderr.startswith("error: --game:")
    out = run("sizes", "--preset", "srp-river", "--pot", "100")
    assert out.returncode == 2 and out.stderr.startswith("error: --pot:")
    out = run("sizes", "--preset", "kuhn")
    assert out.returncode == 2 and out.stderr.startswith("error: --preset:")
    out = run("sizes", "--preset", "srp-river", "--rake", "101")  # the flag's value, not the file's
    assert out.returncode == 2 and out.stderr.startswith("error: --rake:"), out.stderr


def test_help_lists_the_flags() -> None:
    out = run("sizes", "--help")
    assert out.returncode == 0, out.stderr
    for flag in ("--grid", "--raise-grid", "--player", "--nodes", "--keep", "--swap", "--json"):
        assert flag in out.stdout
    assert "25%, 33%" in out.stdout


def test_a_loss_below_zero_reads_as_nothing_measurable() -> None:
    """A negative measured loss is the solves' own error: the words never say a player
    "gives up" a negative amount (docs/sizes.md, "The certificate")."""
    from app.components.sizes_figure import certificate_words

    names = {"root": {"b:66": "33%"}}
    below = certificate_words("oop", {"root": ["b:66"]}, names, -0.007, -0.013, 9)
    above = certificate_words("oop", {"root": ["b:66"]}, names, 0.040, 0.080, 9)
    assert "nothing measurable" in below and "-0.013 chips" not in below.split("(")[0]
    assert "gives up 0.040 % of the pot (0.080 chips)" in above
