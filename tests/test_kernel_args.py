"""The hot path's arguments stay grouped (issue 46 §3): no kernel takes more than 12
parameters — the kernels take the NamedTuples they read (``GameArrays``, ``SolveState``,
``Scratch``, ``Hands``, ``Boards``…) whole, borrowed in the walk (:mod:`solver.cfr.borrow`) —
and the walk's set-up before its loop stays short. Read off the sources (no compilation)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOLVER = ROOT / "solver"
DECORATORS = {"kernel", "node_kernel", "called_kernel", "entry_kernel", "ir_inline", "njit"}
MAX_PARAMETERS = 12
MAX_PRELUDE_LINES = 30


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


def kernels(root: Path = SOLVER) -> list[tuple[str, int]]:
    """Every function under ``root`` decorated as a kernel: (``path:name``, parameters)."""
    out = []
    for path in sorted(root.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.FunctionDef):
                continue
            if not any(_decorator_name(d) in DECORATORS for d in node.decorator_list):
                continue
            a = node.args
            count = len(a.posonlyargs) + len(a.args) + len(a.kwonlyargs)
            out.append((f"{path.relative_to(root.parent).as_posix()}:{node.name}", count))
    return out


def prelude_lines(source: str, name: str = "walk") -> int:
    """Lines of function ``name``'s body between its docstring and its first ``while`` loop."""
    tree = ast.parse(source)
    fn = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    body = fn.body
    if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant):
        body = body[1:]
    loop = next(s for s in body if isinstance(s, ast.While))
    return loop.lineno - body[0].lineno


def test_the_scan_sees_the_kernels_and_counts_their_parameters(tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "from solver.jit import kernel, node_kernel\n"
        "@kernel\ndef a(x, y, *, z): pass\n"
        "@node_kernel\ndef b(" + ", ".join(f"p{i}" for i in range(13)) + "): pass\n"
        "def not_a_kernel(" + ", ".join(f"p{i}" for i in range(20)) + "): pass\n"
    )
    assert sorted(n for _, n in kernels(tmp_path)) == [3, 13]
    found = dict(kernels())
    assert found["solver/cfr/drive.py:drive"] >= 5  # the real tree is read
    assert len(found) > 50


def test_no_kernel_takes_more_than_twelve_parameters() -> None:
    over = {name: n for name, n in kernels() if n > MAX_PARAMETERS}
    assert not over, f"kernels over {MAX_PARAMETERS} parameters (group them): {over}"


def test_the_walks_prelude_is_short() -> None:
    src = "def walk(a):\n    '''doc'''\n    x = 1\n    y = 2\n    while True:\n        break\n"
    assert prelude_lines(src) == 2
    n = prelude_lines((SOLVER / "cfr" / "walk.py").read_text(encoding="utf-8"))
    assert n <= MAX_PRELUDE_LINES, f"the walk sets up {n} lines before its loop"
