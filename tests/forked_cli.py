"""``python -m solver`` as real processes without an interpreter start each: one interpreter
imports what ``python -m solver`` imports, then forks a child per command line, which runs
``solver/__main__.py`` as ``__main__`` (runpy) with the command's ``sys.argv``, its own
stdout and stderr files, the interpreter's exit (uncaught exception: traceback, status 1;
``SystemExit``'s code) and ``atexit`` handlers. What the imports wrote to stderr is kept
apart (:attr:`ForkedCli.preamble`): a fresh interpreter would have written it before every
command. Each fork saves the second or so a new interpreter spends importing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent

_SERVER = r"""
import atexit, json, os, runpy, signal, sys, tempfile, time, traceback
import solver.cli  # noqa: F401  (what `python -m solver` imports before main runs)
sys.stderr.flush()
ANSWERS = int(os.environ.pop("FORKED_CLI_FD"))
os.write(ANSWERS, b"ready\n")
for line in sys.stdin:
    argv, limit = json.loads(line)
    out = tempfile.TemporaryFile()
    err = tempfile.TemporaryFile()
    pid = os.fork()
    if pid == 0:
        os.close(ANSWERS)
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        sys.stdin = open(0, closefd=False)
        os.dup2(out.fileno(), 1)
        os.dup2(err.fileno(), 2)
        sys.argv = ["solver", *argv]
        code = 0
        try:
            runpy.run_module("solver", run_name="__main__", alter_sys=True)
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:
                print(exc.code, file=sys.stderr)
                code = 1
        except BaseException:
            traceback.print_exc()
            code = 1
        try:
            atexit._run_exitfuncs()
        finally:
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
    deadline = time.monotonic() + limit
    status = None
    while status is None:
        done, st = os.waitpid(pid, os.WNOHANG)
        if done:
            status = os.waitstatus_to_exitcode(st)
        elif time.monotonic() > deadline:
            os.kill(pid, signal.SIGKILL)
            os.waitpid(pid, 0)
            status = "hang"
        else:
            time.sleep(0.02)
    texts = []
    for f in (out, err):
        f.seek(0)
        texts.append(f.read().decode("utf-8", "replace"))
        f.close()
    os.write(ANSWERS, (json.dumps([status, *texts]) + "\n").encode())
"""


class ForkedCli:
    """The forking interpreter, started in :meth:`start` (run it as a context manager)."""

    def __init__(self) -> None:
        self.preamble = ""  # what the imports wrote to stderr (a fresh process's too)
        self._proc: subprocess.Popen[str] | None = None
        self._answers: IO[str] | None = None
        self._err: IO[bytes] | None = None

    def __enter__(self) -> ForkedCli:
        import tempfile

        read_fd, write_fd = os.pipe()
        self._err = tempfile.TemporaryFile()
        env = {
            **os.environ,
            "NUMBA_THREADING_LAYER": "threadsafe",
            "FORKED_CLI_FD": str(write_fd),
        }
        self._proc = subprocess.Popen(
            [sys.executable, "-c", _SERVER],
            cwd=ROOT,
            env=env,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self._err,
            pass_fds=(write_fd,),
            text=True,
        )
        os.close(write_fd)
        self._answers = os.fdopen(read_fd, "r")
        ready = self._answers.readline()
        assert ready == "ready\n", f"the forking interpreter did not start: {self._stderr()}"
        self.preamble = self._stderr()
        return self

    def _stderr(self) -> str:
        assert self._err is not None
        self._err.seek(0)
        return self._err.read().decode("utf-8", "replace")

    def run(self, argv: list[str], timeout: float) -> subprocess.CompletedProcess[str]:
        """``python -m solver *argv`` in a forked child: its exit status ("hang" past
        ``timeout`` seconds, then killed), stdout and stderr."""
        assert self._proc is not None and self._proc.stdin is not None and self._answers
        self._proc.stdin.write(json.dumps([argv, timeout]) + "\n")
        self._proc.stdin.flush()
        line = self._answers.readline()
        assert line, f"the forking interpreter ended: {self._stderr()}"
        status, out, err = json.loads(line)
        return subprocess.CompletedProcess(["solver", *argv], status, out, err)

    def __exit__(self, *exc: object) -> None:
        if self._proc is not None:
            assert self._proc.stdin is not None
            self._proc.stdin.close()
            try:
                self._proc.wait(30)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait(5)
        if self._answers is not None:
            self._answers.close()
        if self._err is not None:
            self._err.close()
