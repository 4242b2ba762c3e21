"""Fuzz sample for CI: every class of issue 45's crafted files once (each schema edit with
one of the reading commands in turn, each kind of saved solve a database names, each
``drill --load`` target), judged by the suite's harness — refused by the project's own
error, never escaped, slow or heavy. The benchmark draws more through the "crafted files"
entry point."""

from __future__ import annotations

import pytest
from fuzz_harness import Target, check
from fuzz_hostile_db import LOADS, READS, SCHEMA_EDITS, SOLVE_FILES, run_hostile
from fuzz_targets import Refusal

READ_NAMES = sorted(READS)
CASES = [
    *(("schema", e, READ_NAMES[i % len(READ_NAMES)]) for i, e in enumerate(sorted(SCHEMA_EDITS))),
    *(("solve file", k, "drill --batch") for k in SOLVE_FILES),
    *(("load", k, "drill --load") for k in LOADS),
]
TARGET = Target("hostile files", run_hostile, (Refusal,))


@pytest.mark.parametrize("case", CASES, ids=["/".join(c) for c in CASES])
def test_each_hostile_file_is_refused(case: tuple[str, str, str]) -> None:
    before = TARGET.counts["refused"]
    check(TARGET, case)
    assert TARGET.counts["refused"] == before + 1, TARGET.worst
