#!/usr/bin/env bash
# Create .venv (if missing), install Regret Lab with its test extra, and compile the solver's
# kernels into Numba's on-disk cache (about 2 minutes on a fresh 2-core machine, seconds
# after that). Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install --quiet -e '.[test]'
export NUMBA_THREADING_LAYER=${NUMBA_THREADING_LAYER:-threadsafe}
echo "setup: compiling the solver's kernels (first run only: about 2 minutes)" >&2
.venv/bin/python -m solver warmup --jobs 2
