"""The first solve's compile helper (solver/run/prefetch.py): its plans are current (every step
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
import warnings
from pathlib import Path

import pytest

from solver.files import safe_types
from solver.run import prefetch, warmup

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
    assert plan is not None, f"{kind} plan unreadable: python -m solver.run.prefetch --write"
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
    assert not stale, f"stale plan, run `python -m solver.run.prefetch --write`: {stale}"


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
    from solver.cli import commands as cli

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
    f64 = prefetch.Step("solver.cfr.update", "regret", "float64", (types.float64,))
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
        with pytest.warns(RuntimeWarning, match="prefetch plan not used"):
            assert prefetch.load_plan(bad) is None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # warned when a helper may run on this machine
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
        from solver.run import prefetch
        {prelude}
        plan = prefetch.load_plan(Path({str(plan_file)!r}), kernels={{"toyk"}})
        n = prefetch.compile_from_the_end(plan, print)
        print("compiled", n)
        """
    return _python(code, toy, cache)


@pytest.fixture(scope="module")
def toy_plan(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    """The toy module's folder and its plan, recorded in a cache of its own (cold); recorded
    once for the module's tests (each reads them, and compiles into a cache of its own)."""
    tmp_path = tmp_path_factory.mktemp("toy_plan")
    toy = tmp_path / "toy"
    toy.mkdir()
    (toy / "toyk.py").write_text(TOY)
    plan_file = tmp_path / "plan.json"
    _python(
        f"""
        from pathlib import Path
        from solver.run import prefetch
        import toyk
        plan = prefetch.record(toyk.run, entry=("toyk", "entry"), package="toyk")
        prefetch.write_plan(plan, Path({str(plan_file)!r}))
        """,
        toy, tmp_path / "record",
    )  # fmt: skip
    return toy, plan_file


def test_the_toy_plan_has_a_stage_per_signature_of_the_entry(toy_plan: tuple[Path, Path]) -> None:
    plan = prefetch.load_plan(toy_plan[1], kernels={"toyk"})
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
    bad = (types.UniTuple(types.float64, 2),)  # b cannot multiply a tuple
    a = prefetch.Step("toyk", "a", "float64", f64)
    b = prefetch.Step("toyk", "b", "UniTuple(float64 x 2)", bad)
    plan = prefetch.Plan(
        [prefetch.Stage(prefetch.Step("toyk", "entry", "float64", f64), [a, b])],
        [prefetch.Step("toyk", "gone", "float64", f64)],
    )
    plan_file = tmp_path / "plan.json"
    prefetch.write_plan(plan, plan_file)
    out = _helper(plan_file, toy, cache)
    assert "toyk.b:" in out  # the typing error, logged
    assert "compiled 1" in out  # a, and nothing for the kernel that is gone


# --- hostile plans: what a plan names is checked before anything is imported ----------------

CANARY = """
from pathlib import Path
Path("canary_ran").write_text("imported")
x = 1
"""


def _plan_text(kernel: str, blob: bytes) -> str:
    step = {"kernel": kernel, "signature": "float64", "types": base64.b64encode(blob).decode()}
    return json.dumps({"format": prefetch.PLAN_FORMAT, "stages": [{"entry": step,
                       "callees": [step]}], "after": []})  # fmt: skip


def _f64_blob() -> bytes:
    from numba import types

    return pickle.dumps((types.float64,), protocol=4)


def _run_in(cwd: Path, code: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """``code`` in a fresh interpreter started in ``cwd`` (which is first on its path, as
    for ``python -c`` and ``python -m`` run there)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "REGRET_LAB_PREFETCH": "1"}
    return subprocess.run(
        [sys.executable, "-c", textwrap.dedent(code)],
        cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False,
    )  # fmt: skip


def test_the_kernel_list_is_the_packages_kernel_modules() -> None:
    """The allow-list is every module of the poker, games and cfr floors that defines
    kernels (imports solver.jit), read from the sources."""
    from solver import jit

    files, deps = jit._graph(jit.PACKAGE_ROOT)
    floors = ("solver.poker.", "solver.games.", "solver.tree.", "solver.cfr.")
    users = {m for m, d in deps.items() if "solver.jit" in d and m.startswith(floors)}
    assert users == prefetch.KERNEL_MODULES
    # the argument classes' modules are imported by the kernels' anyway
    closure = jit._closure_of(sorted(users), files, deps)
    assert closure >= prefetch.ARGUMENT_MODULES


@pytest.mark.parametrize(
    "kernel", ["canary_mod:x", "canary_mod.sub:x", "solver.__main__:main", "os:getcwd",
               "solver.cfr.walk:a:b", "solver.cfr.walk:", "solver.cfr.walk:x.y"],
)  # fmt: skip
def test_a_plan_naming_another_module_is_refused(tmp_path: Path, kernel: str) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(_plan_text(kernel, _f64_blob()))
    with pytest.warns(RuntimeWarning, match="not one of the solver's kernels"):
        assert prefetch.load_plan(plan) is None


def test_the_canary_module_is_never_imported(tmp_path: Path) -> None:
    """A plan naming ``canary_mod`` (in its kernel field, or as a class its types name),
    with a ``canary_mod.py`` in the working directory: not imported by the parent's
    :func:`load_plan` and :func:`start`, nor by the helper run on it."""
    (tmp_path / "canary_mod.py").write_text(CANARY)
    (tmp_path / "kernel.json").write_text(_plan_text("canary_mod:x", _f64_blob()))
    # protocol 2: GLOBAL canary_mod.x, in a one-tuple
    (tmp_path / "types.json").write_text(
        _plan_text("solver.cfr.update:regret", b"\x80\x02ccanary_mod\nx\n\x85.")
    )
    out = _run_in(
        tmp_path,
        """
        import subprocess, sys, warnings
        from pathlib import Path
        from solver.run import prefetch
        prefetch._cores = lambda: 2
        warnings.simplefilter("ignore")
        for name in ("kernel.json", "types.json"):
            print(name, prefetch.load_plan(Path(name)), prefetch.start(Path(name)))
            helper = subprocess.run([sys.executable, "-m", "solver.run.prefetch", "--plan", name])
            print("helper", helper.returncode)
        print("imported" if "canary_mod" in sys.modules else "not imported")
        """,
    )
    assert out.returncode == 0, out.stderr
    assert "kernel.json None None" in out.stdout and "types.json None None" in out.stdout
    assert out.stdout.count("helper 1") == 2  # no plan: the helper ends at once
    assert "not imported" in out.stdout
    assert not (tmp_path / "canary_ran").exists()


def test_a_plan_naming_the_cli_runs_nothing(tmp_path: Path) -> None:
    """Types naming ``solver.__main__`` (importing it runs the CLI, then SystemExit): refused
    on the name, nothing run, no exception out of load_plan."""
    (tmp_path / "plan.json").write_text(
        _plan_text("solver.cfr.update:regret", b"\x80\x02csolver.__main__\nmain\n\x85.")
    )
    out = _run_in(
        tmp_path,
        """
        import sys, warnings
        from pathlib import Path
        from solver.run import prefetch
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always")
            print("plan", prefetch.load_plan(Path("plan.json")))
        print("warned:", seen[0].message)
        print("cli imported:", "solver.__main__" in sys.modules)
        """,
    )
    assert out.returncode == 0, out.stderr
    assert "plan None" in out.stdout
    assert "not a Numba type: solver.__main__.main" in out.stdout
    assert "cli imported: False" in out.stdout
    assert "usage" not in (out.stdout + out.stderr).lower()


def _bomb(levels: int = 40) -> tuple[object, ...]:
    t: tuple[object, ...] = ()
    for _ in range(levels):
        t = (t, t)  # 2**levels tuples written out: hash() would never end
    return t


def test_a_tuple_bomb_is_refused_before_it_is_built(tmp_path: Path) -> None:
    """A 40-level tuple bomb (a few hundred bytes) is refused from its opcodes, in the
    parent's start() and in load_plan; bounded by a timeout, not timed."""
    blob = pickle.dumps(_bomb(), protocol=4)
    assert len(blob) < 1000
    with pytest.raises(safe_types.TypesError, match="too large written out"):
        safe_types.measure(blob)
    (tmp_path / "plan.json").write_text(_plan_text("solver.cfr.update:regret", blob))
    out = _run_in(
        tmp_path,
        """
        import warnings
        from pathlib import Path
        from solver.run import prefetch
        prefetch._cores = lambda: 2
        warnings.simplefilter("ignore")
        print(prefetch.load_plan(Path("plan.json")), prefetch.start(Path("plan.json")))
        """,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    assert "None None" in out.stdout


@pytest.mark.parametrize(
    ("blob", "match"),
    [
        (pickle.dumps((1, "x"), protocol=4), "not a Numba type: int"),
        (pickle.dumps([1], protocol=4), "not a tuple"),
        (pickle.dumps(_bomb(16), protocol=4), "too large written out"),  # 65,535 parts, 17 deep
        (b"\x80\x04K\x01K\x02\x86" + b"\x94h\x00\x86" * 3 + b".", "not a Numba type: tuple"),
        (b"\x80\x04]\x94(h\x00e.", "change an object after using it"),  # a list in itself
        (b"\x80\x04h\x07.", "not a pickle"),  # a reference to nothing
        (b"\x80\x04\x8c\x12numba.core.cgutils\x94\x8c\x03sys\x94\x93\x94.", "not a Numba type"),
        (b"x" * (safe_types.MAX_BYTES + 1), "bytes of pickled types"),
    ],
)
def test_pickled_types_refused(blob: bytes, match: str) -> None:
    with pytest.raises(safe_types.TypesError, match=match):
        safe_types.load_types(blob, prefetch.ARGUMENT_MODULES)


def test_the_plans_types_measure_well_inside_the_limits() -> None:
    """The limits leave the recorded plans room (they are not tuned to refuse them)."""
    for path in prefetch.PLANS.values():
        raw = json.loads(path.read_text())
        steps = [s["entry"] for s in raw["stages"]]
        steps += [c for s in raw["stages"] for c in s["callees"]] + raw["after"]
        for s in steps:
            size, depth = safe_types.measure(base64.b64decode(s["types"]))
            assert size * 4 < safe_types.MAX_NODES and depth * 2 < safe_types.MAX_DEPTH


@pytest.mark.parametrize(
    "text",
    ["[]", "{\"format\": 2}", "{\"format\": 2, \"stages\": [1], \"after\": []}",
     "{\"format\": 2, \"stages\": [], \"after\": [{\"kernel\": 1}]}", "[" * 100_000],
)  # fmt: skip
def test_a_malformed_plan_is_no_helper_and_a_warning(tmp_path: Path, text: str) -> None:
    plan = tmp_path / "plan.json"
    plan.write_text(text)
    with pytest.warns(RuntimeWarning, match="prefetch plan not used"):
        assert prefetch.load_plan(plan) is None


def test_a_fifo_plan_is_refused_without_reading(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs here")
    fifo = tmp_path / "plan.json"
    os.mkfifo(fifo)
    with pytest.warns(RuntimeWarning, match="not a regular file"):
        assert prefetch.load_plan(fifo) is None


def _alive(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie nobody has reaped yet counts as ended)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError, IndexError):
        return False
    return state not in ("Z", "X")


PARENT = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", {child!r}], stdout=subprocess.PIPE, text=True)
print(child.stdout.readline().strip(), child.pid, flush=True)
time.sleep(600)
"""

CHILD = """
import os, sys
sys.path.insert(0, {root!r})
from solver.run import prefetch
print(prefetch.die_with_parent(os.getppid()), flush=True)
t = ()
for _ in range(40):
    t = (t, t)
hash(t)  # holds the GIL for hours: no watching thread could run
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_helper_dies_with_its_sigkilled_parent() -> None:
    """A parent that starts a helper is SIGKILLed while the helper holds the GIL: the kernel
    ends the helper (a bounded wait, polled)."""
    import signal
    import time

    child = CHILD.format(root=str(ROOT))
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT.format(child=child)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert parent.stdout is not None
        how, pid = parent.stdout.readline().split()
        assert how == "prctl"
        helper = int(pid)
        time.sleep(0.5)  # into hash()
        assert _alive(helper)
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 30
        while _alive(helper) and time.monotonic() < deadline:
            time.sleep(0.1)
        gone = not _alive(helper)
    finally:
        parent.kill()
        parent.wait()
    if not gone:
        os.kill(helper, signal.SIGKILL)
    assert gone, "the helper outlived its SIGKILLed parent"


REAL_PARENT = """
import time
from solver.run import prefetch
prefetch._cores = lambda: 2  # a helper even on a one-core machine
proc = prefetch.start(prefetch.PLANS["float64"])
print(proc.pid if proc is not None else "none", flush=True)
time.sleep(600)
"""


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
def test_the_real_helper_dies_with_its_sigkilled_parent(tmp_path: Path) -> None:
    """``prefetch.start`` in a parent on an empty cache (the helper compiles for minutes);
    the parent SIGKILLed: the helper is gone within a bounded wait, polled."""
    import signal
    import time

    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "cache"), "PYTHONPATH": str(ROOT)}
    env.pop("REGRET_LAB_PREFETCH", None)
    parent = subprocess.Popen(
        [sys.executable, "-c", REAL_PARENT], stdout=subprocess.PIPE, text=True, env=env
    )
    helper = None
    try:
        assert parent.stdout is not None
        line = parent.stdout.readline().strip()
        assert line.isdigit(), f"no helper started: {line!r}"
        helper = int(line)
        time.sleep(3.0)  # started (a parent gone earlier ends it too: die_with_parent)
        assert _alive(helper), "the helper ended before its parent did"
        parent.send_signal(signal.SIGKILL)
        parent.wait(timeout=30)
        deadline = time.monotonic() + 30
        while _alive(helper) and time.monotonic() < deadline:
            time.sleep(0.1)
        gone = not _alive(helper)
    finally:
        parent.kill()
        parent.wait()
    if not gone:
        os.kill(helper, signal.SIGKILL)
    assert gone, "the helper outlived its SIGKILLed parent"


def test_the_helper_ties_itself_to_its_parent_first(monkeypatch: pytest.MonkeyPatch) -> None:
    """The helper's main asks for the parent-death signal before it reads its plan."""
    calls: list[object] = []
    monkeypatch.setattr(prefetch, "die_with_parent", lambda parent: calls.append(parent))
    monkeypatch.setattr(prefetch, "load_plan", lambda *a, **k: calls.append("plan"))
    assert prefetch.main(["--plan", "nowhere.json", "--parent", "12345"]) == 1
    assert calls == [12345, "plan"]


def test_a_parent_gone_before_the_helper_ties_itself_ends_it() -> None:
    """The race: the parent ended before the prctl — the re-parented helper sees a parent
    pid other than the one it was given, and ends at once (exit status 1)."""
    code = f"import sys; sys.path.insert(0, {str(ROOT)!r}); from solver.run import prefetch; " \
           "prefetch.die_with_parent(1); print('still here')"  # fmt: skip
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, check=False)  # fmt: skip
    assert out.returncode == 1
    assert "still here" not in out.stdout
