"""Fuzz: the trainer's API, the push/fold chart (API, stack list, its module's command line),
reports at any line, stored tree summaries and ``load_solve``'s memory keyword: every input
refused with the project's own error naming the argument, or accepted; none escapes, hangs
or takes memory to say no (``benchmarks/fuzz.py`` runs thousands through the same table)."""

from __future__ import annotations

import pytest
from fuzz_targets import entries, run_examples

ENTRIES = {e.target.name: e for e in entries()}
CI_EXAMPLES = {
    "api: trainer deal": 40,
    "api: trainer Drill and play": 40,
    "api: DealFilter and Thresholds": 30,
    "api: push/fold chart": 12,
    "api: chart stack list": 40,
    "cli: preflop chart module": 12,
    "api: report_at": 30,
    "tree summaries": 40,
    "api: load_solve memory": 12,
    "cli: drill": 25,
    "cli: report at a line": 25,
    "cli: exploit": 25,
}


@pytest.mark.parametrize("name", sorted(CI_EXAMPLES))
def test_new_surfaces_refuse_with_their_own_errors(name: str) -> None:
    counts = run_examples(ENTRIES[name], CI_EXAMPLES[name])
    assert counts["escaped"] == counts["slow"] == counts["heavy"] == 0, counts
    assert counts["refused"] > 0, counts
