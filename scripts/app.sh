#!/usr/bin/env bash
# Set up what the app needs (.venv) and start Regret Lab: the Streamlit app opens on a preset
# spot with Solve one click away, at once — on a fresh install the solver's kernels compile
# in the background (the sidebar says how far; a solve waits for its own kernels only).
# Installs Debian's chromium where it can (PNG/SVG exports render with it; without it the
# Export page says what is missing). Binds to 127.0.0.1 unless REGRET_LAB_ADDRESS says
# otherwise (docs/app.md, "Serving it to others"); port from REGRET_LAB_PORT (default 8501);
# batch databases in batches/ or REGRET_LAB_BATCHES. Extra arguments go to `streamlit run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh app
bash scripts/ensure_chromium.sh || true
export NUMBA_THREADING_LAYER=${NUMBA_THREADING_LAYER:-threadsafe}
exec .venv/bin/python -m streamlit run app/main.py \
  --server.address "${REGRET_LAB_ADDRESS:-127.0.0.1}" \
  --server.port "${REGRET_LAB_PORT:-8501}" \
  --browser.gatherUsageStats false \
  "$@"
