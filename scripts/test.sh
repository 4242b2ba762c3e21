#!/usr/bin/env bash
# Set everything up, then run every check: ruff (lint + format), mypy and the whole test suite,
# which must compile no kernel the warm-up did not (--fail-on-compile).
#
#   bash scripts/test.sh            # everything (what .ci/run runs)
#   bash scripts/test.sh --quick    # after an edit: lint and the engine's tests (no browser,
#                                   # app, CLI, batch or fuzz tests; ~2 min on a warm cache)
# Tests run in one process per core (pytest-xdist, ``-n auto``); extra arguments go to pytest
# (``-n 0`` runs them in this one process).
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=0
if [ "${1:-}" = "--quick" ]; then
  QUICK=1
  shift
fi
export NUMBA_THREADING_LAYER=threadsafe
# every test worker, app server, CLI run and Dask worker imports the checkout: with
# PYTHONDONTWRITEBYTECODE set, each compiled every module from source again (collecting the
# suite took 2.4x as long); bytecode goes to __pycache__, which git ignores
unset PYTHONDONTWRITEBYTECODE
if [ "$QUICK" = 1 ]; then
  [ -x .venv/bin/pytest ] || bash scripts/setup.sh test
  .venv/bin/ruff check .
  exec .venv/bin/python -m pytest -n auto -x -m "not slow" --ignore=tests/browser --ignore=tests/fuzz \
    --ignore-glob="tests/test_app_*" --ignore-glob="tests/test_batch*" \
    --ignore=tests/test_cli.py --ignore=tests/test_hostile_input.py \
    --ignore=tests/test_kernel_cache.py "$@"
fi
bash scripts/setup.sh test-deps
# the kernels compile (two processes) while chromium is checked and the linters run: the
# warm-up leaves a core idle at times, and the linters need no kernel
WARM=""
if ! .venv/bin/python -m solver.warmup --check; then
  .venv/bin/python -m solver.warmup --jobs 2 &
  WARM=$!
fi
status=0
if [ -f scripts/ensure_chromium.sh ]; then
  bash scripts/ensure_chromium.sh || status=$?  # browser tests drive Debian's chromium
fi
[ "$status" = 0 ] && { .venv/bin/ruff check . || status=$?; }
[ "$status" = 0 ] && { .venv/bin/ruff format --check . || status=$?; }
[ "$status" = 0 ] && { .venv/bin/mypy || status=$?; }
if [ -n "$WARM" ]; then
  if [ "$status" != 0 ]; then
    kill "$WARM" 2>/dev/null || true  # its group processes follow their parent out
  fi
  if ! wait "$WARM"; then
    [ "$status" != 0 ] || status=1  # the warm-up failed (it said which group)
  fi
fi
[ "$status" = 0 ] || exit "$status"
# whole modules per worker, the longest first (tests/conftest.py, LONGEST_FIRST)
.venv/bin/python -m pytest -n auto --dist loadscope --no-loadscope-reorder --fail-on-compile \
  --durations=15 "$@"
