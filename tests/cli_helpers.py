"""``python -m solver`` in the test's own process: :func:`solver.cli.main` (what the entry
point calls) with its output captured. A new interpreter per command spends a second or two
importing and loading kernels, most of a CLI test's time; tests of the process itself (its
entry point, signals, hangs) still start one."""

from __future__ import annotations

import contextlib
import io
import subprocess
import traceback

from solver.cli import main


def run(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m solver *args`` in this process: its exit status, stdout and stderr (an
    exception escaping ``main`` is status 1 with its traceback on stderr, as Python's)."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse's usage errors and --help
            code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 1)
        except BaseException:  # a bug: what the interpreter would print
            traceback.print_exc()
            code = 1
    return subprocess.CompletedProcess(["solver", *args], code, out.getvalue(), err.getvalue())
