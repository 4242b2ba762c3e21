"""One SolveOptions (solver.cfr.options): every option once with its default, built and checked
once, passed whole to the solvers, kept whole in save files and shown whole in the CLI's JSON;
each bad value worded as the one validator (check_options) words it."""

from __future__ import annotations

import io
import json
import zipfile
from dataclasses import MISSING, fields, replace
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from cli_helpers import run
from conftest import game

from solver.algorithms import make_solver
from solver.api import solve
from solver.cfr.engine import Engine
from solver.cfr.options import (
    OPTION_NAMES,
    OptionError,
    SolveOptions,
    SolverOptions,
    check_options,
)
from solver.cfr.parallel import max_threads
from solver.cfr.rules import make_rule
from solver.cfr.sampling.engine import SampledEngine
from solver.files.export import ExportError, game_source, load_solve, save_solve
from solver.run.jobs import SolveJob
from solver.run.race.entries import build_engine, parse_entry

LOCKS = {"k": {"k": 1.0}, "b:1": {"f": 1.0}}  # Kuhn: player 2 checks behind, folds to bets
# A bad value of each field, with an algorithm it is bad for
BAD: list[tuple[str, str, Any]] = [
    ("threads", "cfr", 0),
    ("precision", "cfr", "fp16"),
    ("pruning", "cfr", "sometimes"),
    ("seed", "mccfr-es", -1),
    ("rbp_check_every", "cfr", 0),
    ("rbp_threshold", "cfr", -1.0),
    ("rbp_free_opponent", "cfr", 1),
    ("locks", "mccfr-es", LOCKS),
]


def test_every_field_has_a_default_and_one_name_list() -> None:
    for f in fields(SolveOptions):
        assert f.default is not MISSING or f.default_factory is not MISSING, f.name
    assert tuple(f.name for f in fields(SolveOptions)) == OPTION_NAMES
    assert tuple(SolverOptions.__annotations__) == OPTION_NAMES  # the keyword form, same keys
    assert [field for field, _, _ in BAD] == list(OPTION_NAMES)
    assert SolveOptions().check("cfr") == {}


@pytest.mark.parametrize(
    "options",
    [
        SolveOptions(),
        SolveOptions(threads=3, precision="float32", pruning="total", seed=2**64 - 1,
                     rbp_check_every=7, rbp_threshold=0.25, rbp_free_opponent=True),
        SolveOptions(pruning="none", locks=LOCKS),
    ],
)  # fmt: skip
def test_to_dict_from_dict_round_trip(options: SolveOptions) -> None:
    data = options.to_dict()
    assert list(data) == list(OPTION_NAMES)
    assert SolveOptions.from_dict(json.loads(json.dumps(data))) == options
    assert SolveOptions.from_dict({}) == SolveOptions()
    with pytest.raises(OptionError, match="unknown option 'colour'") as err:
        SolveOptions.from_dict({**data, "colour": 1})
    assert err.value.field == "colour"


@pytest.mark.parametrize(("field", "algorithm", "bad"), BAD)
def test_a_bad_value_of_each_field_names_it_in_the_validators_words(
    field: str, algorithm: str, bad: Any
) -> None:
    g = game("kuhn")
    words = {"locked": True} if field == "locks" else {field: bad}
    expected = check_options(algorithm, **words)[field]
    got = SolveOptions.build({field: bad}, algorithm)
    assert isinstance(got, dict) and got[field] == expected
    assert SolveOptions(**{field: bad}).check(algorithm)[field] == expected
    for call in (
        lambda: make_solver(g, algorithm, None, SolveOptions(**{field: bad})),
        lambda: solve(g, algorithm, iterations=1, options=SolveOptions(**{field: bad})),
    ):
        with pytest.raises(OptionError) as err:
            call()
        assert err.value.field == field and str(err.value) == expected


def test_build_gives_the_options_or_every_error() -> None:
    got = SolveOptions.build({"pruning": "total", "rbp_check_every": 3}, "cfr")
    assert got == SolveOptions(pruning="total", rbp_check_every=3)
    base = SolveOptions(seed=4)
    assert SolveOptions.build({"threads": 1}, "mccfr-es", base=base) == replace(base, threads=1)
    errors = SolveOptions.build({"seed": -1, "rbp_check_every": 0}, "cfr")
    assert isinstance(errors, dict) and set(errors) == {"seed", "rbp_check_every"}
    assert SolveOptions.build({"colour": 1}, "cfr") == {
        "colour": f"unknown option 'colour' (options: {', '.join(OPTION_NAMES)})"
    }


def test_options_whole_or_as_solve_keywords_give_the_same_solver_bit_for_bit() -> None:
    g = game("leduc")
    opts = SolveOptions(pruning="total", rbp_check_every=7, rbp_free_opponent=True)
    a = make_solver(g, "cfr", None, opts)
    b = make_solver(
        g, "cfr", options=SolveOptions(pruning="total", rbp_check_every=7, rbp_free_opponent=True)
    )
    c = Engine(g, a.rule, opts)
    # the public solve() alone takes keyword options, over its options object
    d = solve(g, "cfr", iterations=0, options=SolveOptions(pruning="none"), pruning="total",
              rbp_check_every=7, rbp_free_opponent=True).engine  # fmt: skip
    for e in (a, b, c, d):
        e.iterate(30)
        np.testing.assert_array_equal(e.storage.regrets, a.storage.regrets)
        assert e.options == opts
    assert isinstance(make_solver(g, "cfr"), Engine) and make_solver(g, "cfr").options == (
        SolveOptions(pruning="partial")
    )  # the pruning it runs, resolved


@pytest.mark.parametrize("make", ["make_solver", "Engine", "SampledEngine", "SolveJob"])
def test_below_solve_options_come_whole_not_as_keywords(make: str) -> None:
    """make_solver, the engines and SolveJob take one options object; a loose keyword
    option is refused (Python's TypeError naming it), not merged and checked again."""
    g = game("kuhn")
    calls = {
        "make_solver": lambda: make_solver(g, "cfr", threads=1),  # type: ignore[call-arg]
        "Engine": lambda: Engine(g, make_rule("cfr"), threads=1),  # type: ignore[call-arg]
        "SampledEngine": lambda: SampledEngine(g, "mccfr-es", seed=1),  # type: ignore[call-arg]
        "SolveJob": lambda: SolveJob(g, make_rule("cfr"), seed=1),  # type: ignore[call-arg]
    }
    with pytest.raises(TypeError, match="unexpected keyword argument"):
        calls[make]()
    with pytest.raises(TypeError, match="options must be a SolveOptions, got dict"):
        make_solver(g, "cfr", None, {"threads": 1})  # type: ignore[arg-type]


def test_every_solver_answers_the_protocol_directly() -> None:
    g = game("kuhn")
    sampled = make_solver(g, "mccfr-es", options=SolveOptions(seed=3))
    assert isinstance(sampled, SampledEngine)
    assert sampled.options == SolveOptions(seed=3, pruning="none")
    assert (sampled.pruning, sampled.seed, sampled.threads) == ("none", 3, 1)
    assert sampled.lockset is None and sampled.schedule_start == 0
    assert sampled.storage_choice == "auto" and sampled.precision == "float64"
    locked = make_solver(g, "cfr", options=SolveOptions(locks=LOCKS))
    assert locked.lockset is not None and locked.options.locks is locked.lockset
    assert locked.options.to_dict()["locks"] == LOCKS
    assert isinstance(locked, Engine)
    locked.lock(None)
    assert locked.options.locks is None and locked.options.to_dict()["locks"] is None
    entry = parse_entry("mccfr-es:seed=5")
    assert build_engine(g, entry).options == entry.options == SolveOptions(pruning="none", seed=5)


def _meta(data: bytes) -> dict:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        return json.loads(str(np.load(io.BytesIO(z.read("meta.npy")))))


def _with_meta(data: bytes, meta: dict) -> bytes:
    with zipfile.ZipFile(io.BytesIO(data)) as z:
        members = {n: z.read(n) for n in z.namelist()}
    buf = io.BytesIO()
    np.lib.format.write_array(buf, np.array(json.dumps(meta)))
    members["meta.npy"] = buf.getvalue()
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as z:
        for name, payload in members.items():
            z.writestr(name, payload)
    return out.getvalue()


@pytest.mark.parametrize(
    ("name", "algorithm", "options"),
    [
        ("leduc", "cfr", SolveOptions(precision="float64", pruning="total", rbp_check_every=7,
                                      rbp_threshold=0.01, rbp_free_opponent=True)),
        ("kuhn", "cfr", SolveOptions(threads=min(2, max_threads()), pruning="none",
                                     locks=LOCKS)),
        ("kuhn", "mccfr-es", SolveOptions(seed=11)),
    ],
)  # fmt: skip
def test_a_save_file_keeps_the_options_whole(
    name: str, algorithm: str, options: SolveOptions
) -> None:
    g = game(name)
    e = make_solver(g, algorithm, None, options)
    e.iterate(12)
    data = save_solve(e, game_source(g))
    meta = _meta(data)
    assert meta["options"] == e.options.to_dict()
    assert set(meta["options"]) == set(OPTION_NAMES)
    loaded = load_solve(data).engine
    assert loaded.options == e.options
    assert loaded.options.to_dict() == e.options.to_dict()
    # a file from before the record: the older keys alone (threads were not saved then)
    old = {k: v for k, v in meta.items() if k != "options"}
    again = load_solve(_with_meta(data, old)).engine.options
    assert again == replace(e.options, threads=1)
    np.testing.assert_array_equal(
        load_solve(_with_meta(data, old)).engine.average_strategy(), e.average_strategy()
    )


def test_a_save_file_whose_record_and_older_keys_disagree_is_refused() -> None:
    g = game("kuhn")
    e = make_solver(g, "mccfr-es", options=SolveOptions(seed=3))
    e.iterate(5)
    data = save_solve(e, game_source(g))
    meta = _meta(data)
    with pytest.raises(ExportError, match="options: seed is 4, the file's other keys say 3"):
        load_solve(_with_meta(data, {**meta, "options": {**meta["options"], "seed": 4}}))
    with pytest.raises(ExportError, match="options must be an object"):
        load_solve(_with_meta(data, {**meta, "options": [1]}))
    with pytest.raises(ExportError, match=r"bad solver settings .*unknown option 'colour'"):
        load_solve(_with_meta(data, {**meta, "options": {**meta["options"], "colour": 1}}))


def test_threads_past_this_machines_cores_come_down_on_load() -> None:
    g = game("kuhn")
    e = make_solver(g, "cfr", options=SolveOptions(pruning="none"))
    data = save_solve(e, game_source(g))
    meta = _meta(data)
    many = {**meta, "options": {**meta["options"], "threads": 10**6}}
    assert load_solve(_with_meta(data, many)).engine.threads == max_threads()


def test_the_cli_json_shows_the_options_whole(tmp_path: Path) -> None:
    out = run(
        "solve", "--game", "leduc", "--algorithm", "cfr", "--pruning", "total",
        "--rbp-every", "7", "--rbp-threshold", "0.01", "--rbp-free-opponent",
        "--precision", "float64", "--iterations", "20", "--every", "10", "--json",
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    final = json.loads(out.stdout.splitlines()[-1])
    assert final["options"] == {
        "threads": 1, "precision": "float64", "pruning": "total", "seed": 0,
        "rbp_check_every": 7, "rbp_threshold": 0.01, "rbp_free_opponent": True, "locks": None,
    }  # fmt: skip
    assert final["pruning"] == "total" and final["seed"] == 0  # (the older fields stay)
    path = tmp_path / "locks.json"
    path.write_text(json.dumps(LOCKS))
    out = run("solve", "--game", "kuhn", "--algorithm", "cfr", "--iterations", "5",
              "--locks", str(path), "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    final = json.loads(out.stdout.splitlines()[-1])
    assert list(final["options"]) == list(OPTION_NAMES)
    assert final["options"]["locks"] == final["locks"] == LOCKS
    assert final["options"]["pruning"] == "partial"
    out = run("race", "--game", "kuhn", "--algorithms", "cfr,mccfr-es:seed=3",
              "--iterations", "10", "--json")  # fmt: skip
    assert out.returncode == 0, out.stderr
    finals = [json.loads(line) for line in out.stdout.splitlines() if '"final"' in line]
    assert [f["options"]["pruning"] for f in finals] == ["partial", "none"]
    assert [f["options"]["seed"] for f in finals] == [0, 3]
