#!/usr/bin/env bash
# Set everything up, then start Regret Lab. Until the Streamlit app lands this runs the CLI
# demo: Leduc hold'em solved live by DCFR to 0.0001 chips, then the same with PCFR+.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
.venv/bin/python -m solver games
.venv/bin/python -m solver solve --game leduc --algorithm dcfr --target 1e-4 --every 100 "$@"
