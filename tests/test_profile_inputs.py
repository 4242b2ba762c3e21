"""Bad input to opponent profiles (issue 48; found by tests/fuzz/fuzz_profiles.py): a profile
file's key with a line break, wrong kinds of version or seat, profiles built by hand with
unknown stats or values outside 0–100 %, the API's functions given the wrong kind of
argument (``check_every=0`` used to loop forever), and ``exploit --profile`` with flags the
warm re-solve cannot take — each refused with the project's own error naming the field or
argument; on the CLI one ``error:`` line, exit 2, before anything is solved."""

from __future__ import annotations

import json
import math
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_helpers import run

from solver import solve
from solver.api import SolveResult
from solver.games.holdem import HoldemSpec, build_holdem
from solver.games.model import Game
from solver.study import profiles
from solver.study.profiles import (
    Profile,
    ProfileError,
    StatTarget,
    apply_profile,
    plan,
    readback,
)

RIVER = HoldemSpec(board="Td9d6hQc2s", pot=100, stack=200, oop_range="AA,KK,T9s",
                   ip_range="QQ,AK,98s", bets="50%, a", raises="a")  # fmt: skip
SPOT = ["--board", "Td9d6hQc2s", "--pot", "100", "--stack", "200", "--oop-range", "AA,KK,T9s",
        "--ip-range", "QQ,AK,98s", "--bets", "50%, a", "--raises", "a",
        "--iterations", "10"]  # fmt: skip
_api: Any = profiles  # (the calls below give arguments of the wrong type on purpose)
GOOD = {"version": 1, "player": "ip", "stats": [{"stat": "river_bet", "value": 50}]}


@cache
def _river() -> SolveResult:
    return solve(build_holdem(RIVER), "dcfr", iterations=20)


def _good() -> Profile:
    return Profile.from_dict(GOOD)


# ----- the JSON form -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({**GOOD, "pla\nyer": "ip"}, "'pla\\nyer'"),
        ({**GOOD, "stats": [{"stat": "river_bet", "value": 50, "cl\rass": "x"}]},
         "stats[0].'cl\\rass'"),
    ],
)  # fmt: skip
def test_a_key_with_a_line_break_is_quoted(data: dict[str, Any], field: str) -> None:
    """The key is named quoted, so the CLI's message stays one line."""
    with pytest.raises(ProfileError) as err:
        Profile.from_dict(data)
    assert err.value.field == field
    assert "\n" not in str(err.value) and "\r" not in str(err.value)


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({**GOOD, "version": True}, "version"),
        ({**GOOD, "version": np.array([1, 1])}, "version"),
        ({**GOOD, "player": np.array(["ip", "oop"])}, "player"),
        ({**GOOD, "player": ["ip"]}, "player"),
    ],
)
def test_version_and_seat_of_the_wrong_kind(data: dict[str, Any], field: str) -> None:
    with pytest.raises(ProfileError) as err:
        Profile.from_dict(data)
    assert err.value.field == field


def test_the_json_form_still_reads_version_1() -> None:
    assert Profile.from_dict({**GOOD, "version": 1.0}) == _good()


# ----- profiles built by hand --------------------------------------------------------------


@pytest.mark.parametrize(
    ("stats", "field"),
    [
        ((StatTarget("vpip", 20.0),), "stats[0].stat"),
        ((StatTarget("river_bet", math.nan),), "stats[0].value"),
        ((StatTarget("river_bet", 150.0),), "stats[0].value"),
        ((StatTarget("river_bet", "50"),), "stats[0].value"),  # type: ignore[arg-type]
        ((StatTarget("river_bet", 50.0, "aces"),), "stats[0].class"),
        ((StatTarget("river_bet", 50.0), "cbet"), "stats[1]"),
        ((), "stats"),
    ],
)
def test_a_profile_built_by_hand_is_checked(stats: Any, field: str) -> None:
    """``plan`` (and so ``compile_profile`` and ``apply_profile``) checks what ``from_dict``
    would have: an unknown stat was a KeyError, a NaN or 150 % target compiled silently."""
    with pytest.raises(ProfileError) as err:
        plan(_river().game, Profile("ip", stats))
    assert err.value.field == field


def test_a_seat_built_by_hand_is_checked() -> None:
    with pytest.raises(ProfileError) as err:
        plan(_river().game, Profile("hero", _good().stats))
    assert err.value.field == "player"


# ----- the API's arguments -----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "error", "words"),
    [
        ({"check_every": 0}, ValueError, "check_every"),  # looped forever
        ({"check_every": 2.5}, TypeError, "check_every"),
        ({"iterations": "x"}, TypeError, "iterations"),
        ({"iterations": -1}, ValueError, "iterations"),
        ({"target_exploitability": "x"}, TypeError, "target_exploitability"),
        ({"target_exploitability": math.nan}, ValueError, "target_exploitability"),
        ({"rounds": 0}, ValueError, "rounds"),
        ({"on_round": 5}, TypeError, "on_round"),
    ],
)
def test_apply_profile_arguments(kwargs: dict[str, Any], error: type, words: str) -> None:
    with pytest.raises(error, match=words):
        apply_profile(_river(), _good(), **kwargs)


@pytest.mark.parametrize(
    ("call", "error", "words"),
    [
        (lambda r: _api.apply_profile(None, _good()), TypeError, "result"),
        (lambda r: _api.apply_profile(r, {"version": 1}), TypeError, "profile"),
        (lambda r: _api.plan(None, _good()), TypeError, "game"),
        (lambda r: _api.compile_profile(5, _good()), TypeError, "solved"),
        (lambda r: _api.compile_profile((r.game, r.average_strategy()[:-1]), _good()),
         ValueError, r"solved\[1\]"),
        (lambda r: _api.compile_profile((r.game, [0.5] * r.game.action_size), _good()),
         TypeError, r"solved\[1\]"),
        (lambda r: _api.compile_profile(r, _good(), aims={0: math.nan}), ValueError, "aims"),
        (lambda r: _api.compile_profile(r, _good(), aims={7: 10.0}), ValueError, "aims"),
        (lambda r: _api.compile_profile(r, _good(), bluffs={0: "x"}), ValueError, "bluffs"),
        (lambda r: _api.compile_profile(r, _good(), locks={"k": {}}), TypeError, "locks"),
        (lambda r: _api.readback(r.game, r.average_strategy(), 0), TypeError, "p must be a Plan"),
        (lambda r: _api.readback(r.game, r.average_strategy()[:3], _api.plan(r.game, _good())),
         ValueError, "sigma"),
    ],
)  # fmt: skip
def test_the_apis_arguments(call: Any, error: type, words: str) -> None:
    """Each was an AttributeError, an unpacking or numpy error, or went on with nonsense."""
    with pytest.raises(error, match=words):
        call(_river())


def test_a_plan_of_another_game_is_refused() -> None:
    result = _river()
    other: Game = build_holdem(
        HoldemSpec(board="Td9d6hQc", pot=100, stack=200, oop_range="AA", ip_range="QQ",
                   bets="a", raises="a")
    )  # fmt: skip
    p = plan(other, Profile.from_dict({**GOOD, "stats": [{"stat": "river_bet", "value": 50}]}))
    with pytest.raises(ValueError, match="plan of another game"):
        readback(result.game, result.average_strategy(), p)


# ----- the command line --------------------------------------------------------------------


def _file(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    ("flags", "words"),
    [
        (["--algorithm", "mccfr-es"], "--profile: the profile is re-solved warm from the solve, "
                                      "which mccfr-es cannot continue"),
        (["--algorithm", "cfr", "--pruning", "total"], "--profile: the profile's locks do not "
                                                        "combine with --pruning total"),
        (["--algorithm", "cfr", "--pruning", "interval"], "--profile: the profile's locks do "
                                                           "not combine with --pruning interval"),
        (["--locks", "LOCKS"], "--profile: --locks locks 'k' already"),
    ],
)  # fmt: skip
def test_what_the_re_solve_cannot_take_is_refused_before_the_solve(
    tmp_path: Path, flags: list[str], words: str
) -> None:
    """These were said after the first solve (its checkpoints printed)."""
    profile = _file(tmp_path, "p.json", json.dumps(GOOD))
    locks = _file(tmp_path, "l.json", '{"k": {"QQ": {"k": 1}}}')
    given = [locks if f == "LOCKS" else f for f in flags]
    r = run("exploit", *SPOT, "--profile", profile, *given)
    assert r.returncode == 2, r.stderr
    assert r.stderr.startswith(f"error: {words}"), r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and r.stdout == ""  # nothing solved


def test_mccfr_cs_still_takes_a_profile(tmp_path: Path) -> None:
    profile = _file(tmp_path, "p.json", json.dumps(GOOD))
    r = run("exploit", *SPOT, "--algorithm", "mccfr-cs", "--profile", profile, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout.splitlines()[-1])["profile"][0]["stat"] == "river_bet"


def test_a_key_with_a_line_break_is_one_cli_line(tmp_path: Path) -> None:
    profile = _file(tmp_path, "p.json", json.dumps({**GOOD, "a\nb": 1}))
    r = run("exploit", *SPOT, "--profile", profile)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr == "error: --profile: 'a\\nb': not a profile field (fields: name, player, " \
        "stats, version)\n"  # fmt: skip
