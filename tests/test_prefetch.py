"""The first solve's compile helper (solver/prefetch.py): its plans are current (every step
is a signature the warm-up compiled, spelled as its types unpickle), it starts only when
the cache is cold, and it compiles each stage from the end until it meets the solve — shown
on a toy plan of kernels in a temporary module, in processes of their own as in use."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from solver import prefetch, warmup

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
            assert prefetch.start(path) is None
        with prefetch.helping("float32") as helper:
            assert helper.plan == prefetch.PLANS["float32"] and helper.proc is None
            helper.use("compressed")  # no plan for 16-bit storage
            assert helper.plan is None
    monkeypatch.setenv("REGRET_LAB_PREFETCH", "0")
    assert prefetch.start() is None
    assert prefetch.plan_for("float64") == prefetch.PLANS["float64"]
    assert prefetch.plan_for("float64", sampled=True) is None
    assert prefetch.plan_for("compressed") is None
    assert prefetch.plan_for(None) is None


def test_an_unreadable_plan_means_no_helper(tmp_path: Path) -> None:
    bad = tmp_path / "plan.json"
    bad.write_text('{"format": 2, "stages": [{"entry": {"kernel": "x:y", "types": "!!"}}]}')
    assert prefetch.load_plan(bad) is None
    assert prefetch.load_plan(tmp_path / "missing.json") is None
    assert prefetch.start(bad) is None


def _python(code: str, toy: Path, cache: Path) -> str:
    env = {**os.environ, "NUMBA_CACHE_DIR": str(cache), "PYTHONPATH": f"{toy}:{os.getcwd()}"}
    out = subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        env=env, capture_output=True, text=True, timeout=300, check=False,
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    return out.stdout + out.stderr


def _helper(plan_file: Path, toy: Path, cache: Path) -> str:
    """The helper's work on ``plan_file`` in a process of its own: its log and count."""
    code = f"""
        from pathlib import Path
        from solver import prefetch
        n = prefetch.compile_from_the_end(prefetch.load_plan(Path({str(plan_file)!r})), print)
        print("compiled", n)
        """
    return _python(code, toy, cache)


def test_helper_compiles_from_the_end_until_it_meets_the_solve(tmp_path: Path) -> None:
    toy, cache, other = tmp_path / "toy", tmp_path / "cache", tmp_path / "record"
    toy.mkdir()
    (toy / "toyk.py").write_text(TOY)
    plan_file = tmp_path / "plan.json"
    # the plan, recorded in a cache of its own (a cold compile)
    _python(
        f"""
        from solver import prefetch
        import toyk
        plan = prefetch.record(toyk.run, entry=("toyk", "entry"), package="toyk")
        prefetch.write_plan(plan, __import__("pathlib").Path({str(plan_file)!r}))
        """,
        toy, other,
    )  # fmt: skip
    plan = prefetch.load_plan(plan_file)
    assert plan is not None
    assert [[s.name for s in st.callees] for st in plan.stages] == [["a", "b", "c", "d"], ["a"]]
    assert [s.name for s in plan.after] == ["later"]
    # the solve has compiled a (the front of the list); the helper then compiles d, c, b,
    # meets the solve at a, compiles the second stage's a (for an int) and what comes after
    _python("import toyk; toyk.a(1.0)", toy, cache)
    out = _helper(plan_file, toy, cache)
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
