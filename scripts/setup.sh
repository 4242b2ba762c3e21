#!/usr/bin/env bash
# Create .venv (if missing) and install Regret Lab into it: `app` (the default for
# scripts/app.sh) installs what the app needs; `test` adds the test tools and compiles the
# solver's kernels into Numba's on-disk cache when they are not there yet; `test-deps` (what
# scripts/test.sh runs, which then compiles beside the linters) installs without compiling
# (BENCHMARKS.md, "Compile time", says how long on a fresh 2-core machine; nothing after
# that but what an edit changes). The app compiles them in the
# background instead, while it is already served. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
WHAT=${1:-test}
case "$WHAT" in
  app) EXTRAS="app" ;;
  test | test-deps) EXTRAS="app,test" ;;
  *) echo "usage: scripts/setup.sh [app|test|test-deps]" >&2; exit 2 ;;
esac
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
.venv/bin/python -m pip install --quiet --upgrade pip >/dev/null 2>&1 || true
.venv/bin/python -m pip install --quiet -e ".[$EXTRAS]"
export NUMBA_THREADING_LAYER=${NUMBA_THREADING_LAYER:-threadsafe}
if [ "$WHAT" = test ] && ! .venv/bin/python -m solver.warmup --check; then
  # says "compiling…" only if Numba actually compiles (a warm cache just loads)
  .venv/bin/python -m solver.warmup --jobs 2
fi
