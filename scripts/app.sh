#!/usr/bin/env bash
# Set everything up (.venv), then start Regret Lab: the Streamlit app opens on a preset spot
# with Solve one click away. Binds to 127.0.0.1 unless REGRET_LAB_ADDRESS says otherwise;
# port from REGRET_LAB_PORT (default 8501). Extra arguments go to `streamlit run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
export NUMBA_THREADING_LAYER=${NUMBA_THREADING_LAYER:-threadsafe}
exec .venv/bin/python -m streamlit run app/main.py \
  --server.address "${REGRET_LAB_ADDRESS:-127.0.0.1}" \
  --server.port "${REGRET_LAB_PORT:-8501}" \
  --browser.gatherUsageStats false \
  "$@"
