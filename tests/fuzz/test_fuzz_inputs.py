"""Fuzz: hostile text, numbers and files into the spec validator, the tree builder, the range
and size parsers, boards and presets. Only the project's own errors may come out, each input
in bounded time and (when refused) bounded memory (``fuzz_harness``)."""

from __future__ import annotations

import pytest
from fuzz_targets import entries, run_examples

ENTRIES = {e.target.name: e for e in entries()}
# examples per entry point in CI (the benchmark runs ≥ 10,000 in all)
CI_EXAMPLES = {
    "spec fields": 90,
    "ranges": 50,
    "size strings": 50,
    "boards": 30,
    "presets": 60,
    "preset names": 20,
}


@pytest.mark.parametrize("name", sorted(CI_EXAMPLES))
def test_only_the_projects_errors_escape(name: str) -> None:
    counts = run_examples(ENTRIES[name], CI_EXAMPLES[name])
    assert counts["escaped"] == counts["slow"] == counts["heavy"] == 0
    # both sides reached: a suite that only ever refuses (or accepts) proves little
    assert counts["accepted"] > 0 and counts["refused"] > 0, counts
