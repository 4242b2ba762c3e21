"""Fuzz: batch databases read by ``report`` (cell types, schema, encodings, flipped and cut
bytes; with its options), flop lists and filters, race entries and targets, and crafted
files (zip directory bombs, ``/dev/zero`` and other endless or huge files as specs, presets
and locks). Only the project's own errors, raised by its own ``raise`` statements, may come
out (``fuzz_harness.ours``); each input in bounded time and, when refused, bounded memory."""

from __future__ import annotations

import pytest
from fuzz_targets import entries, run_examples

ENTRIES = {e.target.name: e for e in entries()}
# examples per entry point in CI (the benchmark runs ≥ 10,000 in all)
CI_EXAMPLES = {
    "batch databases (report)": 40,
    "flop lists and filters": 30,
    "race entries and targets": 30,
    "crafted files": 12,
}
REFUSED_ONLY = {"crafted files"}  # nothing there is a file to accept


@pytest.mark.parametrize("name", sorted(CI_EXAMPLES))
def test_only_the_projects_errors_escape(name: str) -> None:
    counts = run_examples(ENTRIES[name], CI_EXAMPLES[name])
    assert counts["escaped"] == counts["slow"] == counts["heavy"] == 0, counts
    assert counts["refused"] > 0, counts
    if name not in REFUSED_ONLY:  # both sides reached
        assert counts["accepted"] > 0, counts


def test_a_refusal_must_come_from_a_raise_of_the_project() -> None:
    """The harness's rule: ``int('abc')`` failing on a line of the package is an escape; a
    ``raise`` of the package with a message is a refusal."""
    from fuzz_harness import ours

    from solver.batch import cli as batch_cli
    from solver.poker.flops import FlopError, select

    with pytest.raises(FlopError) as flop:
        select("", None)
    assert ours(flop.value, (FlopError,))
    with pytest.raises(ValueError) as whole:  # re-raised by a `raise … from None` line
        batch_cli._positive_int("--iterations", "abc")
    assert ours(whole.value, (ValueError,))
    # int() failing on line 1 of a package file (its docstring: no raise there)
    with pytest.raises(ValueError) as inner:
        exec(compile("int('abc')", batch_cli.__file__, "exec"), {})
    assert not ours(inner.value, (ValueError,))
