#!/usr/bin/env bash
# Set everything up, then run every check: ruff (lint + format), mypy and the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh test
if [ -f scripts/ensure_chromium.sh ]; then
  bash scripts/ensure_chromium.sh  # browser tests drive Debian's chromium
fi
export NUMBA_THREADING_LAYER=threadsafe
.venv/bin/ruff check .
.venv/bin/ruff format --check .
.venv/bin/mypy
.venv/bin/python -m pytest "$@"
