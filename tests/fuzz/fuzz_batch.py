"""Hypothesis strategy for batch specs (the JSON a ``batch --spec`` file, the app and a
batch database hold): the srp-flop template on a flop subset, then hostile values for its
settings and for its template's fields."""

from __future__ import annotations

import json
from typing import Any

from fuzz_inputs import ODD_NUMBERS, odd_text, range_text, size_text
from hypothesis import strategies as st

from solver.batch.spec import BatchSpec
from solver.files.presets import load_preset

FLOP_SETS = ["25", "49", "95", "all", "AhKd7c, Qs8s3d", "AhAd", "Ah Kd 7c", "7", "", "ALL"]
FILTERS = [
    {}, {"suits": ["monotone"]}, {"high": ["A", "K"]}, {"suits": ["x"]}, {"colour": ["red"]},
    {"suits": "monotone"}, {"pairing": []}, [], "suits=monotone",
]  # fmt: skip
SETTINGS: dict[str, st.SearchStrategy[Any]] = {
    "flops": st.one_of(st.sampled_from(FLOP_SETS), odd_text(), st.sampled_from(ODD_NUMBERS)),
    "filters": st.one_of(st.sampled_from(FILTERS), st.sampled_from(ODD_NUMBERS)),
    "algorithm": st.one_of(
        st.sampled_from(["cfr", "dcfr", "mccfr-es", None]),
        odd_text(12),
        st.sampled_from(ODD_NUMBERS),
    ),
    "target_pct": st.sampled_from(ODD_NUMBERS),
    "max_iterations": st.sampled_from(ODD_NUMBERS),
    "check_every": st.sampled_from(ODD_NUMBERS),
    "threads": st.sampled_from(ODD_NUMBERS),
    "save_solves": st.sampled_from(ODD_NUMBERS),
    "name": st.sampled_from(ODD_NUMBERS),
}
TEMPLATE: dict[str, st.SearchStrategy[Any]] = {
    "pot": st.sampled_from(ODD_NUMBERS),
    "stack": st.sampled_from(ODD_NUMBERS),
    "oop_range": range_text(),
    "ip_range": st.sampled_from(["AsKs", "AA,KK", "22+", "AhKh:0.5"]),
    "bets": size_text(),
    "raise_cap": st.sampled_from([*ODD_NUMBERS, 50]),
    "max_memory_mb": st.sampled_from(ODD_NUMBERS),
    "sizes": st.sampled_from([{"river": "x"}, {"flop": {"oop": False}}, [], "x"]),
}


HUGE = "__huge_integer__"


def _json_safe(value: Any) -> Any:
    """``value`` as JSON can carry it (complex numbers and bytes become text; an integer too
    long for ``json.dumps`` becomes a marker that :func:`_spec_text` replaces by its digits,
    which ``json.loads`` then refuses to read)."""
    if isinstance(value, int) and value.bit_length() > 10_000:
        return HUGE
    return value if not isinstance(value, (complex, bytes)) else str(value)


def _spec_text(edits: list[tuple[str, Any]], extra: str) -> str:
    template = load_preset("srp-flop").holdem
    assert template is not None
    data = json.loads(BatchSpec(template=template, flops="25").to_json())
    for key, value in edits:
        where, _, name = key.rpartition(".")
        (data["template"] if where else data)[name] = _json_safe(value)
    text = json.dumps(data).replace(f'"{HUGE}"', "9" * 5000)
    return text if not extra else text[: len(text) // 2] + extra


def batch_spec_text() -> st.SearchStrategy[str]:
    edit = st.one_of(
        st.sampled_from(sorted(SETTINGS)).flatmap(lambda k: SETTINGS[k].map(lambda v: (k, v))),
        st.sampled_from(sorted(TEMPLATE)).flatmap(
            lambda k: TEMPLATE[k].map(lambda v: (f"template.{k}", v))
        ),
    )
    return st.one_of(
        st.builds(_spec_text, st.lists(edit, max_size=2), st.just("")),
        st.builds(_spec_text, st.lists(edit, max_size=2), st.just("")),
        st.builds(_spec_text, st.just([]), odd_text(10)),
        odd_text(50),
    )
