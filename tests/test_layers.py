"""The house's floors, read from the imports (every ``import`` in a file, type-only and
function-level ones included). A solver module's floor is its folder — poker ← tree ← games
← cfr ← (the public face: algorithms, api, lockspec) ← study ← files ← run ← batch ← cli —
and the few files at solver/'s top are placed in :data:`TOP_LEVEL`; a module imports only
from its own floor and those below. In app/ the ground floor (app/*.py but the shell that
wires the pages) imports no feature or screen, a screen never imports a screen, a feature
(app/features: owns session state, may start a solve) never imports a screen, and a
component (app/components) is pure: no session state, no feature, screen or runtime, and
no solver module that runs work."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

# solver/'s floors, bottom first: each is a folder of solver/ but API, the public face of
# the top level
FLOORS = ("poker", "tree", "games", "cfr", "api", "study", "files", "run", "batch", "cli")
# the files at solver/'s top: the kernels' options and message quoting beside poker/, the
# public face, and the doors of the two commands (``python -m solver``, ``-m solver.warmup``)
TOP_LEVEL = {
    "jit": "poker",
    "quoting": "poker",
    "__init__": "api",
    "algorithms": "api",
    "api": "api",
    "lockspec": "api",
    "__main__": "cli",
    "warmup": "cli",
}
# app/'s shell: st.navigation over every page (the only ground-floor modules that import
# screens)
SHELL = {"app.main", "app.pages"}
# solver modules that run work (threads, processes, Dask): a component never imports them
RUNNERS = {
    "solver.batch.driver",
    "solver.batch.job",
    "solver.batch.task",
    "solver.run.jobs",
    "solver.run.lifecycle",
    "solver.run.race.job",
}


def floor(module: str) -> int:
    """The solver module's floor: an index into :data:`FLOORS` (its folder under solver/, or
    its place in :data:`TOP_LEVEL`); len(FLOORS) for app/."""
    if module.startswith("app"):
        return len(FLOORS)
    parts = module.split(".")
    assert parts[0] == "solver", module
    name = parts[1] if len(parts) > 1 else "__init__"
    if not (ROOT / "solver" / name).is_dir():  # a file at the top (or the package itself)
        assert name in TOP_LEVEL, f"{module}: on no floor (put it in a floor's folder)"
        return FLOORS.index(TOP_LEVEL[name])
    assert name in FLOORS and name != "api", f"{module}: in no floor's folder ({name}/)"
    return FLOORS.index(name)


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
    up = {
        (m, d)
        for m, d in edges()
        if m.startswith("solver") and d.startswith("solver") and floor(d) > floor(m)
    }
    said = [f"{m} ({FLOORS[floor(m)]}) imports {d} ({FLOORS[floor(d)]})" for m, d in sorted(up)]
    assert not up, "\n".join(said)


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
    """Every module of solver/ is in a floor's folder, or one of :data:`TOP_LEVEL`'s files;
    every folder of solver/ with modules is a floor."""
    for m in {m for e in edges() for m in e if m.startswith("solver")}:
        floor(m)
    for p in (ROOT / "solver").glob("*.py"):
        floor(module_of(p))
    folders = {p.parent.name for p in (ROOT / "solver").glob("*/*.py")}
    assert folders <= set(FLOORS), sorted(folders - set(FLOORS))


def test_the_ground_floor_of_the_app_imports_no_feature_or_screen() -> None:
    """app/*.py (state, settings, spec, request, runtime, …) stand under the features and the
    screens; only the shell (main.py, pages.py) wires the pages together."""
    up = sorted(
        (m, d)
        for m, d in edges()
        if m.startswith("app.")
        and m.count(".") == 1
        and m not in SHELL
        and d.startswith(("app.features", "app.screens"))
    )
    assert not up, up


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


def test_the_shared_floors_are_split() -> None:
    """poker < tree < games, study < files < run: a tree module importing a game's module, or
    a files module a run one, goes up."""
    order = ["solver.poker.cards", "solver.tree.betting", "solver.games.model", "solver.cfr.walk"]
    order += ["solver.api", "solver.study.views", "solver.files.export", "solver.run.jobs"]
    order += ["solver.batch.store", "solver.cli.commands", "app.main"]
    floors = [floor(m) for m in order]
    assert floors == sorted(set(floors)), dict(zip(order, floors, strict=True))
    assert floor("solver.jit") == floor("solver.poker") and floor("solver.warmup") == floor(
        "solver.cli"
    )


# Components that still keep session state: the features/ issue 32 moves them to (a new one
# fails here; one made pure must be struck)


def test_components_are_pure() -> None:
    """A component draws what it is given: it reads and writes no session state (it may
    name its widgets' keys from app.state) and imports no feature, screen or runtime (those
    that keep state or start jobs live in app/features), nor a solver module that runs work
    (:data:`RUNNERS`: what it shows is handed to it)."""
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
    runs = {(m, d) for m, d in edges() if m.startswith("app.components.") and d in RUNNERS}
    assert not runs, sorted(runs)


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


def test_the_layout_page_names_every_module() -> None:
    """docs/layout.md says where code lives: every module of solver/ and app/ is named there
    (the engine's, cfr/, in docs/engine.md)."""
    layout = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    engine = (ROOT / "docs" / "engine.md").read_text(encoding="utf-8")
    unnamed = sorted(
        str(p.relative_to(ROOT))
        for top in ("solver", "app")
        for p in (ROOT / top).rglob("*.py")
        if p.name != "__init__.py"
        and "__pycache__" not in p.parts
        and not re.search(rf"\b{re.escape(p.stem)}\b", engine if "cfr" in p.parts[:-1] else layout)
    )
    assert not unnamed, unnamed
