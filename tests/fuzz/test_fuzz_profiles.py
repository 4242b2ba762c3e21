"""Fuzz: opponent profiles (issue 48) — ``Profile.from_dict`` of any value, the profile file
of ``exploit --profile`` (crafted JSON, huge and binary files, flags a profile cannot
re-solve with) and the profile API's functions with bad arguments: every input refused with
the project's own error naming the field or argument (on the CLI one ``error:`` line, exit 2,
before anything is solved), or accepted; none escapes, hangs or takes memory to say no
(``benchmarks/fuzz.py`` runs thousands through the same table)."""

from __future__ import annotations

import pytest
from fuzz_targets import entries, run_examples

ENTRIES = {e.target.name: e for e in entries()}
CI_EXAMPLES = {
    "profiles: from_dict": 60,
    "cli: exploit --profile": 30,
    "api: profiles": 40,
}


@pytest.mark.parametrize("name", sorted(CI_EXAMPLES))
def test_profiles_refuse_with_their_own_errors(name: str) -> None:
    counts = run_examples(ENTRIES[name], CI_EXAMPLES[name])
    assert counts["escaped"] == counts["slow"] == counts["heavy"] == 0, counts
    assert counts["refused"] > 0 and counts["accepted"] > 0, counts
