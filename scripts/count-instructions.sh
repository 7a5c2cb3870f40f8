#!/usr/bin/env bash
# Counts the instructions one `screen` of a bench world takes, under valgrind's cachegrind:
# an A/B for changes too small to show in CPU-seconds on a VM whose speed moves ±10 % from
# minute to minute. The run has one worker (`--jobs 1`): with two, the other worker checks
# signatures without the ES256 key table while one builds it, and how many it checks then
# depends on how valgrind interleaves the threads (the same binary counted 8.8 G and 10.2 G).
# With one, the count is the same to about 0.01 % from run to run. Instructions are not time
# (OpenSSL's assembly and cache misses weigh differently), so confirm a gain with interleaved
# timed runs.
#
#   scripts/count-instructions.sh BINARY [ORDERS]
#
# ORDERS (default 20000; about 25 s under cachegrind) picks the world
# /tmp/iapscreen-bench-world-ORDERS, which `iapscreen-bench screen ORDERS` makes and caches.
# Every signature is verified, with no ledger. Prints the total, then the 25 functions with
# the most instructions; cachegrind's whole output is kept in /tmp/cachegrind-<binary name>.out
# (compare two with `cg_diff A B > D; cg_annotate D`). Needs valgrind (apt-get install -y
# valgrind). Exit 2 on a usage error or a missing world or tool.
set -euo pipefail
if [ $# -lt 1 ] || [ ! -x "$1" ]; then
    echo "usage: scripts/count-instructions.sh BINARY [ORDERS]" >&2
    exit 2
fi
binary=$1
orders=${2:-20000}
world=/tmp/iapscreen-bench-world-$orders
if [ ! -d "$world" ]; then
    echo "count-instructions: no world in $world (make it with: .build/release/iapscreen-bench screen $orders)" >&2
    exit 2
fi
if ! command -v valgrind >/dev/null; then
    echo "count-instructions: valgrind is not installed (apt-get install -y valgrind)" >&2
    exit 2
fi
out=/tmp/cachegrind-$(basename "$binary").out
report=$(mktemp -d)
trap 'rm -rf "$report"' EXIT
valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file="$out" "$binary" screen --jobs 1 \
    --rules "$world/Rules" --orders "$world/orders-appstore.csv.gz" "$world/orders-storekit.xml.gz" \
    "$world/orders-play.jsonl.gz" --receipts "$world/receipts-appstore.csv.gz" --quiet --out "$report" \
    --ledger none 2>&1 | grep "I *refs" | sed 's/^==[0-9]*== *//'
top=$(cg_annotate "$out" 2>/dev/null | grep -E '^ *[0-9,]+ \( *[0-9.]+%\) ' | sed -n '2,26p')
if command -v swift >/dev/null; then echo "$top" | swift demangle --simplified; else echo "$top"; fi
