"""Batch solves over many flops on Dask, with results in SQLite and aggregate reports.

- :mod:`solver.batch.spec` — :class:`BatchSpec` (template spot, flop set, solve settings)
  and its validation (:class:`BatchError` names the field);
- :mod:`solver.batch.task` — one flop: build, solve, summarise (what a Dask worker runs);
- :mod:`solver.batch.store` — the SQLite database of a batch (WAL, one row per flop);
- :mod:`solver.batch.driver` — :func:`run_batch`: LocalCluster or a scheduler address,
  biggest flops first, results written as they finish, resume, stop;
- :mod:`solver.batch.report` — per-flop table and weighted aggregates (overall and per
  texture group), CSV/JSON;
- :mod:`solver.batch.summary` — a solved flop's per-node summary of the whole tree, stored
  as :mod:`solver.batch.treedata` checks and compresses it;
- :mod:`solver.batch.lines` and :mod:`solver.batch.linereport` — reports at any line
  (``report --line``), per street and size, and comparisons of two databases;
- :mod:`solver.batch.job` — :class:`BatchJob`, a batch in a background child process that
  the app polls;
- :mod:`solver.batch.cli` — ``python -m solver batch`` and ``python -m solver report``.

See docs/batch.md.
"""

from solver.batch.spec import BatchError, BatchSpec

__all__ = ["BatchError", "BatchSpec"]
