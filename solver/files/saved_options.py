"""A saved solve's options: the one ``"options"`` record a save file carries
(:meth:`~solver.cfr.options.SolveOptions.to_dict`: every option, threads and locks included),
and the keys files carried them in before it — ``pruning``, ``seed``, ``precision`` with
``storage_choice``, ``rbp`` (``check_every``, ``threshold``, ``free_opponent``) and ``locks``.

Those keys are still written (readers of the metadata take them) and are read as they always
were, so an older file loads as before and a bad value is refused in the same words; a file
with the record must agree with them wherever both say something (:func:`disagreement`).
Nothing here raises: :mod:`solver.files.export` turns a message into its ``ExportError``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from solver.cfr.parallel import max_threads
from solver.quoting import brief

# rbp's keys → the SolveOptions fields they carry (the rest of ``rbp`` is pruning state)
RBP_KEYS = {
    "check_every": "rbp_check_every",
    "threshold": "rbp_threshold",
    "free_opponent": "rbp_free_opponent",
}
# what a file from before the record meant by a missing key
OLD_DEFAULTS = {"pruning": "none", "precision": "float64"}


def record(meta: Mapping[str, Any]) -> dict[str, Any] | None:
    """The file's options record (None: a file from before it); ValueError when it is not an
    object."""
    rec = meta.get("options")
    if rec is not None and not isinstance(rec, dict):
        raise ValueError(f"options must be an object, got {brief(rec)}")
    return rec


def legacy_values(meta: Mapping[str, Any]) -> dict[str, Any]:
    """The options the older keys give, by field, for the keys present only. ``precision``:
    "auto" where the file says the solve asked for it (its storage now may be a promoted
    float64: the loader promotes again), else the storage saved."""
    out: dict[str, Any] = {}
    for key in ("pruning", "seed"):
        if key in meta:
            out[key] = meta[key]
    if "precision" in meta:
        precision = meta["precision"]
        auto = meta.get("storage_choice") == "auto" and precision in ("float32", "float64")
        out["precision"] = "auto" if auto else precision
    rbp = meta.get("rbp")
    if isinstance(rbp, dict):
        out.update({field: rbp[key] for key, field in RBP_KEYS.items() if key in rbp})
    return out


def option_values(meta: Mapping[str, Any]) -> dict[str, Any]:
    """What the loader builds the solve's options from (``locks`` apart: they are restored
    after the arrays): the record with the older keys over it (checked as ever), or for a
    file before the record, those keys with the defaults such files had. Threads past this
    machine's cores come down to them (a file saved on a bigger machine: the same numbers)."""
    rec = record(meta)
    values = {**(OLD_DEFAULTS if rec is None else rec), **legacy_values(meta)}
    values.pop("locks", None)
    threads = values.get("threads")
    whole = isinstance(threads, int) and not isinstance(threads, bool)
    if whole and threads > max_threads():  # type: ignore[operator]
        values["threads"] = max_threads()
    return values


def disagreement(meta: Mapping[str, Any]) -> str | None:
    """The first option that the record and the older keys give differently, worded (None:
    they agree, or the file has no record)."""
    rec = record(meta)
    if rec is None:
        return None
    said = legacy_values(meta)
    said["locks"] = meta.get("locks") or None  # (unlocked: no key, or {})
    for field, value in said.items():
        mine = (rec.get(field) or None) if field == "locks" else rec.get(field, value)
        if mine != value:
            return f"options: {field} is {brief(mine)}, the file's other keys say {brief(value)}"
    return None
