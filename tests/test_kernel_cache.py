"""The kernel cache is keyed on the source, module by module: an edit to a kernel in one file
reaches a cached kernel in another file that calls it (Numba alone keys a cache on the
caller's file), and leaves the modules that do not depend on it alone."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from solver import jit

# The caller (a cached kernel in solver/cfr/pruning/bounds.py) and the callee it reaches in another
# file: the fold values, scaled by 2 in the scratch copy.
PROBE = (
    "from solver.games import make_game\n"
    "from solver.cfr.pruning.bounds import max_opponent_reach\n"
    "from solver import jit\n"
    "print(jit.module_cache_dir('solver.cfr.pruning.bounds'))\n"
    "print(float(max_opponent_reach(make_game('leduc')).sum()))\n"
)
CALLEE = "fold_rows"


def _run(root: Path) -> tuple[Path, float]:
    env = {k: v for k, v in os.environ.items() if k != "NUMBA_CACHE_DIR"}
    env["PYTHONPATH"] = str(root)
    out = subprocess.run(
        [sys.executable, "-c", PROBE],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=True,
    ).stdout.split()
    return Path(out[-2]), float(out[-1])


def _double_fold_values(pkg: Path) -> Path:
    """Scale every fold value by 2 in the scratch copy's callee; returns its file."""
    for path in sorted(pkg.rglob("*.py")):
        text = path.read_text()
        m = re.search(rf"^def {CALLEE}\(.*?(?=^(?:@|def |class )|\Z)", text, re.S | re.M)
        if not m:
            continue
        body = m.group(0)
        edited = body.replace("out2[orow, h] = u * x", "out2[orow, h] = 2.0 * u * x")
        assert edited != body, f"{CALLEE} no longer writes `out2[orow, h] = u * x`"
        path.write_text(text.replace(body, edited))
        return path
    raise AssertionError(f"no {CALLEE} in {pkg}")


@pytest.mark.slow
def test_callee_edit_reaches_cached_caller(tmp_path: Path) -> None:
    pkg = tmp_path / "solver"
    shutil.copytree(jit.PACKAGE_ROOT, pkg, ignore=shutil.ignore_patterns("__pycache__"))
    first_dir, first = _run(tmp_path)
    assert first == pytest.approx(21.0)
    assert first_dir.parent == pkg / "__pycache__" / "kernels"
    assert any(first_dir.rglob("*.nbi")), "the first run saved nothing to the cache"
    callee = _double_fold_values(pkg)
    assert callee.name != "bounds.py"  # the caller's own file is unchanged
    second_dir, second = _run(tmp_path)
    assert second_dir != first_dir
    assert second == pytest.approx(42.0)


def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    """A package ``pkg`` with these modules (name → source) and a ``jit.py``."""
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    for name, text in {"jit": "X = 1\n", "consts": "C = 3\n", **files}.items():
        (pkg / f"{name}.py").write_text(text)
    return pkg


def test_kernel_sources_follow_imports(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {
        "__init__": "from pkg import api\n",
        "other": "D = 4\n",
        "kern": "from pkg.jit import X\nfrom .consts import C\n",
        "api": "from pkg import kern, other\n",
    })  # fmt: skip
    names = {p.name for p in jit.kernel_sources(pkg)}
    assert names == {"jit.py", "kern.py", "consts.py"}
    before = jit.source_hash(pkg)
    (pkg / "other.py").write_text("D = 5\n")  # no kernel depends on it
    assert jit.source_hash(pkg) == before
    (pkg / "consts.py").write_text("C = 6\n")
    assert jit.source_hash(pkg) != before


def test_import_graph_is_kept_and_follows_edits(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pkg = _package(tmp_path, {
        "__init__": "",
        "low": "from pkg.jit import X\n",
        "high": "from pkg.jit import X\n",
    })  # fmt: skip
    files, deps = jit._graph(pkg)
    memo = jit.cache_root(pkg) / jit.GRAPH_MEMO
    assert memo.is_file() and "pkg.jit" in deps["pkg.high"] and "pkg.low" not in deps["pkg.high"]
    parsed: list[str] = []
    real = jit._imports

    def counting(path: Path, module: str, *args: object, **kw: object) -> set[str]:
        parsed.append(module)
        return real(path, module, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(jit, "_imports", counting)
    assert jit._graph(pkg) == (files, deps) and parsed == []  # read back, nothing parsed
    (pkg / "high.py").write_text("from pkg.jit import X\nfrom pkg import low\n")
    assert "pkg.low" in jit._graph(pkg)[1]["pkg.high"]  # an edit: parsed again
    assert len(parsed) == len(files)
    key = json.loads(memo.read_text())["key"]
    wrong = {"pkg.__init__": [], "pkg.jit": [], "pkg.low": "pkg.jit", "pkg.high": []}
    for bad in ("{", '{"key": 1}', '{"key": "x", "deps": []}', "\0\xff",
                json.dumps({"key": key, "deps": wrong})):  # fmt: skip
        memo.write_text(bad)
        assert "pkg.low" in jit._graph(pkg)[1]["pkg.high"]
        assert "pkg.low" in json.loads(memo.read_text())["deps"]["pkg.high"]  # written anew


def test_module_closures_are_keyed_apart(tmp_path: Path) -> None:
    pkg = _package(tmp_path, {
        "__init__": "",
        "low": "from pkg.jit import X\nfrom pkg.consts import C\n",
        "high": "from pkg.jit import X\nfrom pkg import low\n",
        "apart": "from pkg.jit import X\n",
    })  # fmt: skip
    assert {p.name for p in jit.closure("pkg.high", pkg)} == {
        "jit.py", "high.py", "low.py", "consts.py"
    }  # fmt: skip
    before = {m: jit.module_hash(m, pkg) for m in ("pkg.high", "pkg.low", "pkg.apart")}
    (pkg / "consts.py").write_text("C = 4\n")  # below low and high, not apart
    after = {m: jit.module_hash(m, pkg) for m in before}
    assert after["pkg.high"] != before["pkg.high"] and after["pkg.low"] != before["pkg.low"]
    assert after["pkg.apart"] == before["pkg.apart"]
    (pkg / "high.py").write_text("from pkg.jit import X\nfrom pkg import low\nY = 2\n")
    assert jit.module_hash("pkg.low", pkg) == after["pkg.low"]  # a caller's edit: not below
    (pkg / "jit.py").write_text("X = 2\n")  # the Numba options: everything
    assert jit.module_hash("pkg.apart", pkg) != after["pkg.apart"]


def test_real_closures_are_narrower_than_the_whole() -> None:
    walk = {p.name for p in jit.closure("solver.cfr.walk")}
    assert {"walk.py", "update.py", "terminal.py", "jit.py"} <= walk
    assert "drive.py" not in walk and "parallel.py" not in walk and "api.py" not in walk
    assert "walk.py" in {p.name for p in jit.closure("solver.cfr.drive")}


def test_real_sources_cover_kernel_dependencies() -> None:
    names = {p.relative_to(jit.PACKAGE_ROOT).as_posix() for p in jit.kernel_sources()}
    # the modules whose constants and kernels the cached kernels use
    assert {"jit.py", "poker/handeval.py", "games/model.py", "cfr/rules.py"} <= names
    assert "cli.py" not in names and "run/jobs.py" not in names


def test_old_cache_dirs_removed_when_unused(tmp_path: Path) -> None:
    now = time.time()
    current = tmp_path / "numba-current"
    current.mkdir()
    dirs = []
    for i in range(5):
        d = tmp_path / f"numba-old{i}"
        (d / "sub").mkdir(parents=True)
        (d / "sub" / "f.nbi").write_text("x")
        age = jit.STALE_AFTER_S * (2 + i)
        for p in (d, d / "sub", d / "sub" / "f.nbi"):
            os.utime(p, (now - age, now - age))
        dirs.append(d)
    fresh = tmp_path / "numba-fresh"
    fresh.mkdir()
    other = tmp_path / "unrelated"
    other.mkdir()
    removed = jit._clean_old(current, now)
    # the newest KEEP_OLD older ones stay (fresh, old0), the rest go; nothing else is touched
    assert set(removed) == set(dirs[1:])
    assert current.exists() and fresh.exists() and dirs[0].exists() and other.exists()
    assert not any(d.exists() for d in dirs[1:])


def test_two_processes_saving_one_kernel_keep_both_signatures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two saves of one kernel's cache at once (two warm-up groups compiling two signatures
    of it) keep both: Numba alone reads the index, adds its entry and writes it back, so the
    slower of two saves dropped the other's signature (and both picked one data file). The
    window is widened here by a slow index read; two threads stand in for two processes
    (each opens the lock file itself, so the lock applies between them as between
    processes)."""
    import threading

    from numba.core import caching

    slow_read = caching.IndexDataCacheFile._load_index

    def load_index(self: caching.IndexDataCacheFile) -> dict:
        found = slow_read(self)
        time.sleep(0.2)
        return found

    monkeypatch.setattr(caching.IndexDataCacheFile, "_load_index", load_index)

    def cache_file() -> caching.IndexDataCacheFile:
        return caching.IndexDataCacheFile(str(tmp_path), "probe.kernel-1", ("stamp", 1))

    def save(key: str) -> None:
        cache_file().save(key, f"code for {key}")

    threads = [threading.Thread(target=save, args=(k,)) for k in ("sig-a", "sig-b")]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert cache_file().load("sig-a") == "code for sig-a"
    assert cache_file().load("sig-b") == "code for sig-b"
    assert len(list(tmp_path.glob("*.nbc"))) == 2
