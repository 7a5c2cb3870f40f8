#!/usr/bin/env bash
# A PNG of report.html as headless Chromium draws it (the page's script runs; nothing is
# fetched). The fragment picks the view: filters, sort, opened rows, e.g.
#   scripts/report-screenshot.sh iapscreen-report/report.html shot.png 'rule=replayed-transaction&open=ORD-1'
# Needs chromium: scripts/install-deps.sh --test-tools
set -euo pipefail
if [ $# -lt 2 ]; then
  echo "usage: scripts/report-screenshot.sh REPORT.html OUT.png [FRAGMENT] [WIDTH,HEIGHT]" >&2
  exit 2
fi
page=$(realpath "$1")
out=$(realpath -m "$2")
fragment=${3:-}
size=${4:-1280,2400}
browser=$(command -v chromium || command -v chromium-browser || command -v google-chrome || true)
if [ -z "$browser" ]; then
  echo "chromium is not installed: scripts/install-deps.sh --test-tools (or apt-get install -y chromium)" >&2
  exit 1
fi
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
"$browser" --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run --hide-scrollbars --user-data-dir="$profile" \
  --window-size="$size" --screenshot="$out" "file://$page${fragment:+#$fragment}" 2>/dev/null
echo "$out"
