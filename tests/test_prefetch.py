"""The first solve's compile helper (solver/prefetch.py): its plans are current (every step
is a signature the warm-up compiled, spelled as its types unpickle), it starts only when
the cache is cold, and it compiles each stage from the end until it meets the solve — shown
on a toy plan of kernels in a temporary module, in processes of their own as in use."""

from __future__ import annotations

import base64
import json
import os
import pickle
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from solver import prefetch, warmup

ROOT = Path(__file__).resolve().parents[1]

TOY = """
from numba import njit

OPTS = dict(cache=True, nogil=True)


@njit(**OPTS)
def a(x):
    return x + 1.0


@njit(**OPTS)
def b(x):
    return x * 2.0


@njit(**OPTS)
def c(x):
    return x - 3.0


@njit(**OPTS)
def d(x):
    return x / 4.0


@njit(**OPTS)
def entry(x):
    return d(c(b(a(x))))


@njit(**OPTS)
def later(n):
    return n * n


def run():
    entry(1.0)
    entry(1)  # a second signature of the entry: a second stage (a compiles for an int)
    later(2)
"""


@pytest.mark.parametrize("kind", sorted(prefetch.PLANS))
def test_the_plan_is_the_drivers_and_spells_its_types(kind: str) -> None:
    plan = prefetch.load_plan(prefetch.PLANS[kind])
    assert plan is not None, f"{kind} plan unreadable: python -m solver.prefetch --write"
    # float64 storage: one signature of the driver; float32: its passes, then its checks
    assert len(plan.stages) == {"float64": 1, "float32": 2}[kind]
    for st in plan.stages:
        assert (st.entry.module, st.entry.name) == prefetch.ENTRY
        assert len(st.callees) > 20
    for s in plan.steps():
        assert prefetch.spell(s.types) == s.signature, s.kernel
        assert s.dispatcher() is not None, f"{s.kernel}: no such kernel"


@pytest.mark.parametrize("kind", sorted(prefetch.PLANS))
def test_every_step_is_a_signature_the_warm_up_compiled(kind: str) -> None:
    """A plan step no first solve compiles any more (a kernel's argument types changed)
    would cost the second core for nothing: write the plans again."""
    if not warmup.is_warm():
        pytest.skip("needs the warm cache scripts/test.sh makes first")
    plan = prefetch.load_plan(prefetch.PLANS[kind])
    assert plan is not None
    stale = [
        f"{s.kernel}({s.signature[:80]}…)"
        for s in plan.steps()
        if not prefetch.is_cached(s.dispatcher(), s.types)
    ]
    assert not stale, f"stale plan, run `python -m solver.prefetch --write`: {stale}"


def test_no_helper_on_a_warm_cache_or_when_turned_off(monkeypatch: pytest.MonkeyPatch) -> None:
    if warmup.is_warm():
        for path in prefetch.PLANS.values():
            proc = prefetch.start(path)
            prefetch.stop(proc)
            assert proc is None
    monkeypatch.setattr(prefetch, "_cores", lambda: 2)
    monkeypatch.setenv("REGRET_LAB_PREFETCH", "0")
    assert not prefetch.enabled()
    assert prefetch.start() is None
    monkeypatch.delenv("REGRET_LAB_PREFETCH")
    assert prefetch.enabled()
    monkeypatch.setattr(prefetch, "_cores", lambda: 1)
    assert not prefetch.enabled()  # one core: the helper would halve the solve's


def test_the_plan_follows_the_solve() -> None:
    assert prefetch.plan_for("float64") == prefetch.PLANS["float64"]
    assert prefetch.plan_for("float32") == prefetch.PLANS["float32"]
    assert prefetch.plan_for("float64", sampled=True) is None
    assert prefetch.plan_for("float32", pruning="total") is None  # a float64 walk
    assert prefetch.plan_for("float64", pruning="total") == prefetch.PLANS["float64"]
    assert prefetch.plan_for("compressed") is None
    assert prefetch.plan_for(None) is None


class _Proc:
    """A stand-in for the helper's process: the CLI's wiring, not the helper, is tested."""

    def __init__(self, plan: Path, log: list[str]) -> None:
        self.plan, self.log = plan, log
        log.append(f"start {plan.name}")

    def poll(self) -> int | None:
        return None

    def terminate(self) -> None:
        self.log.append(f"stop {self.plan.name}")

    def wait(self, timeout: float | None = None) -> int:
        return 0


@pytest.mark.parametrize(
    ("argv", "storage", "expected"),
    [
        # guessed float64 before the game is built, and right
        (["--game", "kuhn"], "float64", ["start prefetch_float64.json",
                                          "stop prefetch_float64.json"]),
        # guessed float64, the game says float32: the helper follows
        (["--game", "kuhn"], "float32", ["start prefetch_float64.json",
                                          "stop prefetch_float64.json",
                                          "start prefetch_float32.json",
                                          "stop prefetch_float32.json"]),
        # a sampled rule walks with kernels of its own
        (["--game", "kuhn", "--algorithm", "mccfr-es"], "float64",
         ["start prefetch_float64.json", "stop prefetch_float64.json"]),
        # 16-bit storage: no plan, no helper
        (["--game", "kuhn", "--precision", "compressed"], "compressed", []),
    ],
)  # fmt: skip
def test_the_cli_starts_stops_and_switches_its_helper(
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    argv: list[str],
    storage: str,
    expected: list[str],
) -> None:
    from solver import cli

    log: list[str] = []
    monkeypatch.setattr(prefetch, "start", lambda plan=prefetch.PLAN: _Proc(plan, log))
    monkeypatch.setattr(cli, "auto_precision", lambda *_: storage)
    assert cli.main(["solve", *argv, "--iterations", "1"]) == 0
    assert log == expected
    # a usage error stops it too, and says the same as without a helper
    log.clear()
    assert cli.main(["solve", "--game", "kuhn", "--threads", "-1"]) != 0
    assert log == ["start prefetch_float64.json", "stop prefetch_float64.json"]
    assert "--threads" in capsys.readouterr().err


def test_an_unreadable_plan_means_no_helper(tmp_path: Path) -> None:
    from numba import types

    good = tmp_path / "good.json"
    f64 = prefetch.Step("x", "y", "float64", (types.float64,))
    prefetch.write_plan(prefetch.Plan([prefetch.Stage(f64, [f64])], []), good)
    assert prefetch.load_plan(good) is not None
    text = good.read_text()
    blob = json.loads(text)["stages"][0]["entry"]["types"]
    # a blob that is not base64, and one that would call something other than a type
    evil = base64.b64encode(pickle.dumps(os.getcwd)).decode()
    assert pickle.loads(base64.b64decode(evil)) is os.getcwd  # plain pickle would load it
    for bad_blob in ("!!", evil):
        bad = tmp_path / "bad.json"
        bad.write_text(text.replace(blob, bad_blob))
        assert prefetch.load_plan(bad) is None
        assert prefetch.start(bad) is None
    assert prefetch.load_plan(tmp_path / "missing.json") is None


def _python(code: str, toy: Path, cache: Path) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": f"{toy}:{ROOT}"}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out.stdout + out.stderr


def _helper(plan_file: Path, toy: Path, cache: Path, prelude: str = "") -> str:
    """The helper's work on ``plan_file`` in a process of its own: its log and count."""
    code = f"""
        from pathlib import Path
        from solver import prefetch
        {prelude}
        n = prefetch.compile_from_the_end(prefetch.load_plan(Path({str(plan_file)!r})), print)
        print("compiled", n)
        """
    return _python(code, toy, cache)


@pytest.fixture
def toy_plan(tmp_path: Path) -> tuple[Path, Path]:
    """The toy module's folder and its plan, recorded in a cache of its own (cold)."""
    toy = tmp_path / "toy"
    toy.mkdir()
    (toy / "toyk.py").write_text(TOY)
    plan_file = tmp_path / "plan.json"
    _python(
        f"""
        from pathlib import Path
        from solver import prefetch
        import toyk
        plan = prefetch.record(toyk.run, entry=("toyk", "entry"), package="toyk")
        prefetch.write_plan(plan, Path({str(plan_file)!r}))
        """,
        toy, tmp_path / "record",
    )  # fmt: skip
    return toy, plan_file


def test_the_toy_plan_has_a_stage_per_signature_of_the_entry(toy_plan: tuple[Path, Path]) -> None:
    plan = prefetch.load_plan(toy_plan[1])
    assert plan is not None
    assert [[s.name for s in st.callees] for st in plan.stages] == [["a", "b", "c", "d"], ["a"]]
    assert [s.name for s in plan.after] == ["later"]


def test_helper_compiles_from_the_end_until_it_meets_the_solve(
    toy_plan: tuple[Path, Path], tmp_path: Path
) -> None:
    toy, plan_file = toy_plan
    cache = tmp_path / "cache"
    # the solve saves a (the front of the list) once the helper has begun (its snapshot of
    # the cache, taken first, saw nothing); the helper compiles d, c, b, meets the solve at
    # a, compiles the second stage's a (for an int) and what comes after
    _python("import toyk; toyk.a(1.0)", toy, cache)
    out = _helper(plan_file, toy, cache, prelude="prefetch._cached = lambda s: False")
    assert "met the solve at toyk.a" in out
    assert "compiled 5" in out
    # what it saved is what the solve loads: nothing compiles again
    out = _python(
        """
        import toyk
        toyk.run()
        print("misses", sum(sum(f._cache_misses.values()) for f in (toyk.a, toyk.b, toyk.c,
              toyk.d, toyk.later)))
        """,
        toy, cache,
    )  # fmt: skip
    assert "misses 0" in out


def test_what_was_cached_before_it_began_is_passed_over(
    toy_plan: tuple[Path, Path], tmp_path: Path
) -> None:
    """Kernels an earlier run left (the end of the list: d) are not the solve arriving:
    the helper passes over them and compiles the rest."""
    toy, plan_file = toy_plan
    cache = tmp_path / "cache"
    _python("import toyk; toyk.d(1.0); toyk.later(2)", toy, cache)
    out = _helper(plan_file, toy, cache)
    assert "met the solve" not in out
    assert "compiled 4" in out  # c, b, a; the second stage's a


def test_a_stale_step_is_skipped(tmp_path: Path) -> None:
    """A step whose kernel no longer takes those types is passed over, not fatal."""
    from numba import types

    toy, cache = tmp_path / "toy", tmp_path / "cache"
    toy.mkdir()
    (toy / "toyk.py").write_text(TOY)
    f64 = (types.float64,)
    bad = (types.unicode_type,)
    a = prefetch.Step("toyk", "a", "float64", f64)
    b = prefetch.Step("toyk", "b", "unicode", bad)
    plan = prefetch.Plan(
        [prefetch.Stage(prefetch.Step("toyk", "entry", "float64", f64), [a, b])],
        [prefetch.Step("toyk", "gone", "float64", f64)],
    )
    plan_file = tmp_path / "plan.json"
    prefetch.write_plan(plan, plan_file)
    out = _helper(plan_file, toy, cache)
    assert "toyk.b:" in out  # the typing error, logged
    assert "compiled 1" in out  # a, and nothing for the kernel that is gone
