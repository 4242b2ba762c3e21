"""The house's floors, read from the imports (every ``import`` in a file, type-only and
function-level ones included): the solver's layers import only downward — poker basics ←
games/tree ← cfr ← algorithms/api ← study/files/run ← batch ← cli/app — and in app/ a
screen never imports a screen, a feature (app/features: owns session state, may start a
solve) never imports a screen, and a component (app/components) is pure: no session state,
no feature, screen or runtime."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

POKER = {"solver.quoting", "solver.jit"}  # beside solver.poker: the kernels' options, quoting
API = {"solver", "solver.algorithms", "solver.api", "solver.lockspec"}
CLI = {"solver.__main__", "solver.warmup", "solver.batch.cli"}
FLOORS = ("poker basics", "games/tree", "cfr", "algorithms/api", "study/files/run", "batch")


def floor(module: str) -> int:
    """The solver module's floor: an index into :data:`FLOORS`, or len(FLOORS) for cli/app."""
    if module in POKER or module.startswith("solver.poker"):
        return 0
    if module.startswith(("solver.games", "solver.tree")):
        return 1
    if module.startswith("solver.cfr"):
        return 2
    if module in API:
        return 3
    if module in CLI or module.startswith(("solver.cli", "app")):
        return len(FLOORS)
    if module.startswith("solver.batch"):
        return 5
    if module.startswith(("solver.study", "solver.files", "solver.run")):
        return 4
    raise AssertionError(f"{module}: on no floor (put it in a floor's folder)")


def module_of(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path, module: str, known: set[str]) -> set[str]:
    """The project modules ``path`` imports (``from a import b`` counts ``a.b`` when that is a
    module, else ``a``)."""
    out: set[str] = set()
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                up = package[: len(package) - (node.level - 1)]
                base = ".".join([*up, *([base] if base else [])])
            names = [
                f"{base}.{a.name}" if f"{base}.{a.name}" in known else base for a in node.names
            ]
        else:
            continue
        out |= {n for n in names if n in known and n != module}
    return out


def edges() -> set[tuple[str, str]]:
    files = {
        module_of(p): p
        for top in ("solver", "app")
        for p in (ROOT / top).rglob("*.py")
        if "__pycache__" not in p.parts
    }
    known = set(files)
    return {(m, d) for m, p in files.items() for d in imported(p, m, known)}


def test_solver_layers_import_only_downward() -> None:
    up = sorted(
        f"{m} ({FLOORS[floor(m)]}) imports {d} ({FLOORS[floor(d)]})"
        for m, d in edges()
        if m.startswith("solver") and d.startswith("solver") and floor(d) > floor(m)
    )
    assert not up, "\n".join(up)


def test_the_engine_reads_no_poker_text() -> None:
    """The engine sees arrays: hand names, ranges and hand classes (a lock's text) are
    resolved above it (solver.lockspec)."""
    text = {
        "solver.poker.cards",
        "solver.poker.ranges",
        "solver.poker.handclass",
        "solver.poker.handeval",
    }
    reads = sorted((m, d) for m, d in edges() if m.startswith("solver.cfr") and d in text)
    assert not reads, reads


def test_every_solver_module_stands_on_a_floor() -> None:
    """solver/'s top level holds the public face (api, algorithms, lockspec, cli) and the
    infrastructure (jit, quoting, warmup, prefetch); everything else lives in a floor's folder."""
    for m in {m for e in edges() for m in e if m.startswith("solver")}:
        floor(m)


def test_nothing_below_the_app_imports_it() -> None:
    assert not sorted((m, d) for m, d in edges() if m.startswith("solver") and d.startswith("app"))


def test_screens_never_import_screens() -> None:
    crossings = sorted(
        (m, d) for m, d in edges() if m.startswith("app.screens.") and d.startswith("app.screens.")
    )
    assert not crossings, crossings


@pytest.mark.parametrize("top", ["solver", "app"])
def test_no_import_cycle(top: str) -> None:
    graph: dict[str, set[str]] = {}
    for m, d in edges():
        if m.startswith(top) and d.startswith(top):
            graph.setdefault(m, set()).add(d)
    for start in graph:  # a depth-first walk from each module back to itself
        todo = list(graph[start])
        seen: set[str] = set()
        while todo:
            m = todo.pop()
            assert m != start, f"{start} imports itself through {sorted(seen)}"
            if m not in seen:
                seen.add(m)
                todo.extend(graph.get(m, ()))


def test_the_reader_sees_each_form_of_import(tmp_path: Path) -> None:
    """A crafted games module importing the API and a study module, by both forms, and a
    relative import: all seen, and each is upward."""
    path = tmp_path / "x.py"
    path.write_text(
        "from solver.api import solve\nimport solver.study.views\nfrom ..cfr import walk\n"
    )
    known = {"solver.api", "solver.study.views", "solver.cfr.walk", "solver.cfr"}
    assert imported(path, "solver.games.x", known) == {
        "solver.api",
        "solver.study.views",
        "solver.cfr.walk",
    }
    assert floor("solver.games.x") < floor("solver.api") < floor("solver.study.views")


# Components that still keep session state: the features/ issue 32 moves them to (a new one
# fails here; one made pure must be struck)


def test_components_are_pure() -> None:
    """A component draws what it is given: it reads and writes no session state (it may
    name its widgets' keys from app.state) and imports no feature, screen or runtime (those
    that keep state or start jobs live in app/features)."""
    reads = re.compile(r"session_state|\bstate\.(get|put|job|race|solved)\(")
    impure = [
        p.stem
        for p in (ROOT / "app" / "components").glob("*.py")
        if reads.search(p.read_text(encoding="utf-8"))
    ]
    assert not impure, impure
    up = sorted(
        (m, d)
        for m, d in edges()
        if m.startswith("app.components.")
        and d.startswith(("app.features", "app.screens", "app.runtime"))
    )
    assert not up, up


def test_features_import_no_screen() -> None:
    up = sorted(
        (m, d) for m, d in edges() if m.startswith("app.features.") and d.startswith("app.screens")
    )
    assert not up, up


def test_solver_top_level_is_small() -> None:
    """solver/'s top holds the public face (api, algorithms, lockspec, __init__), the
    infrastructure the kernels share (jit, quoting) and the two commands' doors
    (``python -m solver``, ``python -m solver.warmup``); all else is in a floor's folder."""
    top = sorted(p.name for p in (ROOT / "solver").glob("*.py"))
    assert len(top) <= 8, top
