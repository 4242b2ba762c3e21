"""A solve's options are checked once, by the one gate (make_solver): one CLI solve and one
Solve click each call the validator (solver.cfr.options.validate) exactly once; the layers
below take the options object whole (no loose keywords merged and checked again)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from app_helpers import app, no_threads_left
from cli_helpers import run

from app import state
from solver.cfr import options as options_module


@pytest.fixture
def calls(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[dict[str, Any]]]:
    """Every call of the validator while the test runs: its keyword arguments (``game`` says
    whether it was the gate's check with the game's size)."""
    seen: list[dict[str, Any]] = []
    real = options_module.validate

    def counting(*args: Any, **kwargs: Any) -> dict[str, str]:
        seen.append(kwargs)
        return real(*args, **kwargs)

    monkeypatch.setattr(options_module, "validate", counting)
    yield seen


def test_one_cli_solve_checks_its_options_once(calls: list[dict[str, Any]]) -> None:
    got = run("solve", "--game", "kuhn", "--algorithm", "cfr+", "--iterations", "20",
              "--threads", "1", "--json")  # fmt: skip
    assert got.returncode == 0, got.stderr
    final = json.loads(got.stdout.splitlines()[-1])
    assert final["options"]["threads"] == 1 and final["pruning"] == "partial"
    assert len(calls) == 1 and calls[0]["game"] is not None  # with the game: its size too


def test_a_bad_option_is_still_named_by_its_flag_after_one_check(
    calls: list[dict[str, Any]],
) -> None:
    got = run("solve", "--game", "kuhn", "--algorithm", "mccfr-es", "--threads", "2")
    assert got.returncode == 2 and got.stdout == ""
    assert got.stderr.startswith("error: --threads: mccfr-es runs on one thread"), got.stderr
    got = run("solve", "--game", "kuhn", "--algorithm", "dcfr", "--param", "gamma=-1")
    assert got.returncode == 2 and got.stderr.startswith("error: --param: gamma"), got.stderr
    assert len(calls) == 2


def test_one_solve_click_checks_its_options_once(
    calls: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """From the click to the job made (a toy game: made in the click's callback), the
    validator runs once; the page's own redraws check what is typed for their messages and
    are not counted."""
    from app.screens import solve as screen

    at = app(**{state.SOURCE: "preset:kuhn", state.MAX_ITERATIONS: "30"})
    at.run()
    assert not at.exception
    in_click: list[list[dict[str, Any]]] = []
    start: Callable[..., None] = screen._start

    def counted_start(*args: Any) -> None:
        before = len(calls)
        start(*args)
        in_click.append(calls[before:])

    monkeypatch.setattr(screen, "_start", counted_start)
    at.run()  # the button now calls the counted callback
    at.button(key="btn_solve").click().run()
    try:
        assert not at.exception
        assert not at.session_state[state.START_ERROR]
        assert len(in_click) == 1  # the click happened
        assert len(in_click[0]) == 1 and in_click[0][0]["game"] is not None
        job = state_job(at)
        assert job is not None and job.engine.options.pruning == "partial"
    finally:
        no_threads_left()


def test_a_bad_option_at_the_click_is_refused_by_the_gate(
    calls: list[dict[str, Any]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Were a bad option to reach Solve's callback (the page disables Solve while a field is
    wrong), the gate refuses it with the validator's message, and no job starts."""
    from app import settings as cfgmod

    at = app(**{state.SOURCE: "preset:kuhn"})
    at.run()
    real = cfgmod.settings

    def slipped(holdem: bool, *, check: bool = True) -> cfgmod.Settings:
        got = real(holdem, check=check)
        return got if check else _with_threads(got, 0)

    monkeypatch.setattr(cfgmod, "settings", slipped)
    at.button(key="btn_solve").click().run()
    assert not at.exception
    error = at.session_state[state.START_ERROR]
    assert error.startswith("Cannot start: threads must be a whole number ≥ 1"), error
    assert state_job(at) is None
    no_threads_left()


def _with_threads(cfg: Any, threads: int) -> Any:
    from dataclasses import replace

    return replace(cfg, options=cfg.options.unchecked(threads=threads))


def state_job(at: Any) -> Any:
    """The session's solve job (None before one is made)."""
    return at.session_state[state.JOB] if state.JOB in at.session_state else None  # noqa: SIM401


def test_the_gate_trusts_options_checked_for_this_very_solve_only(
    calls: list[dict[str, Any]],
) -> None:
    """make_solver takes options checked for the same algorithm, parameters and game as
    they are (the CLI checks them with the game for its messages); checked for anything
    else — another game, algorithm or parameters, or without a game — they are checked
    again, so a check for one solve never lets a bad option through to another."""
    from solver.algorithms import make_solver
    from solver.cfr.options import OptionError, SolveOptions
    from solver.games import make_game

    kuhn, leduc = make_game("kuhn"), make_game("leduc")
    checked = SolveOptions(pruning="total").checked("cfr", game=kuhn)
    assert len(calls) == 1
    assert make_solver(kuhn, "CFR", None, checked).options.pruning == "total"  # any case
    assert len(calls) == 1
    make_solver(leduc, "cfr", None, checked)
    assert len(calls) == 2
    with pytest.raises(OptionError, match="pruning 'total' is not available for mccfr-es"):
        make_solver(kuhn, "mccfr-es", None, checked)
    assert len(calls) == 3
    dcfr = SolveOptions().checked("dcfr", {"alpha": 1.0}, game=kuhn)
    make_solver(kuhn, "dcfr", {"alpha": 2.0}, dcfr)
    assert len(calls) == 5
    make_solver(kuhn, "cfr", None, SolveOptions().checked("cfr"))  # checked without a game
    assert len(calls) == 7
