#!/usr/bin/env bash
# The browser tests drive Debian's Chromium (Playwright's own browser downloads cannot work offline).
set -euo pipefail
command -v "${CHROMIUM_PATH:-/usr/bin/chromium}" >/dev/null 2>&1 && exit 0
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "Installing Debian's chromium for the browser tests…"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "The browser tests need Chromium: run 'sudo apt-get install chromium' (or set CHROMIUM_PATH)." >&2
  exit 1
fi
