#!/usr/bin/env bash
# Install Debian's chromium when `chromium` is missing: the browser tests drive it through
# Playwright and kaleido renders PNG/SVG exports with it. Never downloads Playwright's own
# browsers. Needs root (or sudo) and apt; prints a warning and carries on otherwise (the
# browser tests then skip, and the app's PNG/SVG exports say what is missing).
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then
  exit 0
fi
SUDO=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then SUDO="sudo -n"; else
    echo "ensure_chromium: chromium missing and no root or password-less sudo: install it with" \
      "'sudo apt-get install chromium' for PNG/SVG exports (browser tests skip without it)" >&2
    exit 0
  fi
fi
if ! command -v apt-get >/dev/null 2>&1; then
  echo "ensure_chromium: chromium missing and no apt-get; browser tests will skip" >&2
  exit 0
fi
echo "ensure_chromium: installing Debian chromium (about 30 s)" >&2
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium >/dev/null
command -v chromium >/dev/null
