"""The app's background warm-up yields to a solve: every group behind ``opening`` runs niced
(the first solve loads and runs in the server while they start), ``opening`` does not."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import kernels
from solver.run.warmup import GROUPS, NICE_ENV

ROOT = Path(__file__).resolve().parents[1]


def test_groups_behind_opening_are_started_niced(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def fake(group: str) -> list[str]:  # each "group" writes down the niceness it was asked for
        out = tmp_path / group
        code = f"import os; open({str(out)!r}, 'w').write(os.environ.get({NICE_ENV!r}, '-'))"
        return [sys.executable, "-c", code]

    monkeypatch.setattr(kernels, "group_command", fake)
    monkeypatch.setattr(kernels, "mark_warm", lambda: None)
    monkeypatch.setattr(kernels.prefetch, "start", lambda *a: None)
    kernels.Warmup().run(jobs=2)
    asked = {g: (tmp_path / g).read_text() for g in GROUPS}
    assert asked == {g: "0" if g == "opening" else str(kernels.BACKGROUND_NICE) for g in GROUPS}
    assert kernels.BACKGROUND_NICE > 0


def test_a_group_process_adds_the_niceness_it_is_given() -> None:
    probe = (
        "import os; from solver.run import warmup; "
        "warmup.run_group = lambda *a: print(os.getpriority(os.PRIO_PROCESS, 0)); "
        "warmup.main(['--group', 'parts'])"
    )

    def niceness(extra: str | None) -> int:
        env = {k: v for k, v in os.environ.items() if k != NICE_ENV}
        if extra is not None:
            env[NICE_ENV] = extra
        run = subprocess.run(
            [sys.executable, "-c", probe], cwd=ROOT, env=env, capture_output=True, text=True
        )
        assert run.returncode == 0, run.stderr
        return int(run.stdout.strip())

    base = os.getpriority(os.PRIO_PROCESS, 0)
    assert niceness(None) == base
    assert niceness("3") == min(19, base + 3)
    assert niceness("junk") == base  # an unreadable value is ignored, not an error
