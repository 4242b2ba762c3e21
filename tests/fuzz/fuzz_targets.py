"""What the fuzz suite feeds and how each input is run: one :class:`~fuzz_harness.Target`
and one strategy per entry point. ``tests/fuzz/test_*.py`` run a few hundred inputs;
``benchmarks/fuzz.py`` runs ≥ 10,000 through the same table."""

from __future__ import annotations

import contextlib
import io
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from fuzz_batch import batch_spec_text
from fuzz_calls import command_line, job_kwargs, kuhn, solve_kwargs
from fuzz_files import (
    batch_database,
    crafted_file,
    flop_selection,
    race_input,
    run_crafted,
    run_race_input,
    run_report,
    run_select,
)
from fuzz_harness import Refusal, Target, check
from fuzz_inputs import board_text, holdem_spec, odd_text, preset_text, range_text, size_text
from fuzz_locks import lock_kwargs, locks_file, run_lock_kwargs
from fuzz_profiles import (
    api_call,
    profile_data,
    profile_file,
    run_api,
    run_from_dict,
    run_profile_file,
)
from fuzz_saves import saved_file
from fuzz_study import (
    chart_args,
    chart_argv,
    deal_args,
    drill_argv,
    drill_kwargs,
    exploit_argv,
    filter_args,
    load_kwargs,
    report_argv,
    report_at_args,
    run_chart,
    run_chart_cli,
    run_cli_line,
    run_deal,
    run_decode,
    run_drill,
    run_filter,
    run_load_kwargs,
    run_report_at,
    run_report_line,
    run_stack_list,
    stack_list_args,
    tree_summary,
)
from fuzz_study import warm_up as warm_up_study
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from solver import solve
from solver.batch.spec import BatchError, BatchSpec
from solver.batch.spec import check as check_batch
from solver.cli import main as cli_main
from solver.files.export import ExportError, load_solve
from solver.files.presets import PRESET_DIR, PresetError, load_preset, parse_preset
from solver.games.holdem import (
    HoldemSpec,
    SpecError,
    build_holdem,
    estimate,
    over_memory,
    validate,
)
from solver.poker.cards import CardError, parse_board
from solver.poker.flops import FlopError
from solver.poker.ranges import RangeError, parse_range, range_to_text
from solver.run.jobs import SolveJob
from solver.run.race import EntryError, TargetError
from solver.study.profiles import ProfileError
from solver.tree.sizes import SizeError, parse_sizes

BUILD_NODES = 2_000
"""Specs whose tree has at most this many nodes (and fits 64 MB) are built too."""


def run_spec(spec: HoldemSpec) -> None:
    """What the app's set-up form does (validate, count, memory check), then the build for
    small trees."""
    setup = validate(spec)
    est = estimate(setup)
    refusal = over_memory(est, setup.spec.max_memory_mb)
    if refusal:
        raise Refusal(f"max_memory_mb: {refusal}")  # refused, as build_holdem would
    if est.nodes <= BUILD_NODES and est.memory_mb <= 64:
        game = build_holdem(setup)
        assert game.num_nodes == est.nodes


def run_range(text: str) -> None:
    w = parse_range(text)
    again = parse_range(range_to_text(w))
    assert np.allclose(again, w, atol=1e-12, rtol=0)


def run_sizes(args: tuple[str, bool]) -> None:
    parse_sizes(args[0], raise_sizes=args[1])


def run_preset(text: str) -> None:
    preset = parse_preset(text, source="fuzz.toml")
    if preset.holdem is not None:
        estimate(validate(preset.holdem))


def run_preset_name(name: str) -> None:
    """A name without ``/`` or ``.toml`` may only ever read a file in ``presets/``."""
    preset = load_preset(name)
    if "/" not in name and not name.lower().endswith(".toml"):
        assert (PRESET_DIR / f"{preset.key}.toml").is_file()


def run_load(data: bytes) -> None:
    loaded = load_solve(data)
    loaded.engine.iterate(1)  # an accepted file resumes
    assert loaded.engine.iteration >= 1


def run_batch_spec(text: str) -> None:
    """A batch spec file as ``batch --spec`` reads it, checked as before a batch starts."""
    check_batch(BatchSpec.from_json(text))


def run_solve(kwargs: dict[str, Any]) -> None:
    args = dict(kwargs)
    solve(args.pop("game"), args.pop("algorithm"), **args)


def run_job(kwargs: dict[str, Any]) -> None:
    SolveJob(kuhn(), kwargs["rule"], watch=kwargs["watch"])  # built, never started


def run_cli(argv: list[str]) -> None:
    """``python -m solver`` in-process: exit 0 is accepted, 2 (one ``error:`` line) refused;
    anything else, or a traceback, escaped."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = cli_main(argv)
    text = err.getvalue()
    if code == 0:
        return
    lines = text.strip().splitlines()
    if code == 2 and len(lines) == 1 and lines[0].startswith("error: "):
        raise Refusal(lines[0])
    raise RuntimeError(f"exit {code}: {text[:500]}")


def run_locks_file(args: tuple[str, bytes]) -> None:
    """``solve --game G --iterations 2 --locks FILE`` in-process, FILE holding the bytes."""
    game, data = args
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "locks.json"
        path.write_bytes(data)
        run_cli(["solve", "--game", game, "--iterations", "2", "--locks", str(path)])


def warm_up() -> None:
    """Load every kernel and cache the base saves once, so the first input of each entry
    point is not timed with Numba's cache loading (the benchmark calls this first)."""
    from fuzz_saves import RIVER, base_saves

    run_spec(RIVER)
    for data in base_saves():
        run_load(data)
    solve("kuhn", "cfr", iterations=1)
    river = build_holdem(RIVER)
    for algorithm in ("mccfr-es", "mccfr-cs", "cfr"):
        solve(river, algorithm, iterations=1)
    warm_up_study()


@dataclass
class Entry:
    target: Target
    strategy: st.SearchStrategy[Any]
    share: float  # of the benchmark's inputs


def entries() -> list[Entry]:
    """Every fuzzed entry point, its strategy and its share of the benchmark."""

    def t(name: str, call: Callable[[Any], object], *allowed: type[BaseException]) -> Target:
        return Target(name, call, allowed or (ValueError, TypeError, KeyError))

    return [
        Entry(t("spec fields", run_spec, SpecError, Refusal), holdem_spec(), 0.20),
        Entry(t("ranges", run_range, RangeError), range_text(), 0.08),
        Entry(t("size strings", run_sizes, SizeError), st.tuples(size_text(), st.booleans()), 0.08),
        Entry(t("boards", parse_board, CardError), board_text(), 0.04),
        Entry(t("presets", run_preset, PresetError, SpecError), preset_text(), 0.14),
        Entry(
            t("preset names", run_preset_name, PresetError),
            st.one_of(
                odd_text(),
                st.sampled_from(
                    ["srp-river", "kuhn", "../presets/kuhn", "presets/kuhn.toml", "nope"]
                ),
            ),
            0.02,
        ),
        Entry(t("saved solves", run_load, ExportError), saved_file(), 0.16),
        Entry(t("batch specs", run_batch_spec, BatchError), batch_spec_text(), 0.04),
        Entry(t("api: solve", run_solve), solve_kwargs(), 0.10),
        Entry(t("api: SolveJob", run_job), job_kwargs(), 0.02),
        Entry(t("api: locks", run_lock_kwargs), lock_kwargs(), 0.04),
        Entry(t("cli: --locks file", run_locks_file, Refusal), locks_file(), 0.03),
        Entry(t("cli (in-process)", run_cli, Refusal), command_line(), 0.10),
        Entry(t("batch databases (report)", run_report, Refusal), batch_database(), 0.06),
        Entry(
            t("flop lists and filters", run_select, FlopError, BatchError), flop_selection(), 0.03
        ),
        Entry(
            t("race entries and targets", run_race_input, EntryError, TargetError),
            race_input(),
            0.03,
        ),
        Entry(
            t("crafted files", run_crafted, ExportError, PresetError, Refusal), crafted_file(), 0.01
        ),
        # the surfaces issue 45 found unfuzzed: the trainer, the push/fold chart, reports at
        # any line and tree summaries (their runners and strategies: fuzz_study.py)
        Entry(t("api: trainer deal", run_deal), deal_args(), 0.04),
        Entry(t("api: trainer Drill and play", run_drill), drill_kwargs(), 0.04),
        Entry(t("api: DealFilter and Thresholds", run_filter), filter_args(), 0.02),
        Entry(t("api: push/fold chart", run_chart), chart_args(), 0.01),
        Entry(t("api: chart stack list", run_stack_list), stack_list_args(), 0.02),
        Entry(t("cli: preflop chart module", run_chart_cli, Refusal), chart_argv(), 0.01),
        Entry(t("api: report_at", run_report_at), report_at_args(), 0.03),
        Entry(t("tree summaries", run_decode), tree_summary(), 0.03),
        Entry(t("api: load_solve memory", run_load_kwargs), load_kwargs(), 0.01),
        Entry(t("cli: drill", run_cli_line, Refusal), drill_argv(), 0.03),
        Entry(t("cli: report at a line", run_report_line, Refusal), report_argv(), 0.03),
        Entry(t("cli: exploit", run_cli_line, Refusal), exploit_argv(), 0.02),
        # opponent profiles (issue 48; fuzz_profiles.py): the JSON form, the file on the
        # command line, the API's functions
        Entry(t("profiles: from_dict", run_from_dict, ProfileError), profile_data(), 0.03),
        Entry(t("cli: exploit --profile", run_profile_file, Refusal), profile_file(), 0.02),
        Entry(t("api: profiles", run_api), api_call(), 0.02),
    ]


def run_examples(entry: Entry, examples: int) -> dict[str, int]:
    """The tests' run of one entry point: ``examples`` deterministic inputs, each of which
    must be refused or accepted (:func:`fuzz_harness.check`); returns the outcome counts."""

    @settings(
        max_examples=examples,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    @given(entry.strategy)
    def run(value: object) -> None:
        check(entry.target, value)

    run()
    return dict(entry.target.counts)
