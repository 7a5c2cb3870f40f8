#!/usr/bin/env bash
# Screens and explains fixed worlds with one iapscreen binary and writes what they said,
# file by file, into OUT: the golden files of Tests/Golden/expected are this script's
# output from the commit before a change that must not change behaviour, and
# GoldenOutputTests runs it again with the built binary and compares every file.
#   scripts/golden-run.sh BINARY OUT
# The worlds: `samples --orders 600 --seed 11` (fresh keys every time; nothing the tool
# says depends on them) under three Rules (the world's own; every named rule off with
# every parameter changed, a custom rule and a wider exemption; every rule on with other
# severities and parameters), and the shipped samples/. Paths are relative to the world,
# so the outputs do not depend on where it was written.
# Regenerate the golden files (only when a change of behaviour is meant, and say so):
#   swift build && scripts/golden-run.sh .build/debug/iapscreen Tests/Golden/expected
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD

[ $# -eq 2 ] || { echo "usage: scripts/golden-run.sh BINARY OUT" >&2; exit 2; }
bin=$(realpath "$1")
mkdir -p "$2"
out=$(realpath "$2")
golden=$root/Tests/Golden
work=$(mktemp -d "${TMPDIR:-/tmp}/iapscreen-golden.XXXXXX")
trap 'rm -rf "$work"' EXIT

"$bin" samples --out "$work/world" --orders 600 --seed 11 >/dev/null 2>&1
for variant in off tuned; do
  cp -r "$work/world/Rules" "$work/world/Rules-$variant"
  cp "$golden/variants/$variant.rules" "$work/world/Rules-$variant/zz-$variant.rules"
done

# screen WORLD_DIR RULES NAME: findings.jsonl and flagged.csv, and the exit status.
screen() {
  local dir=$1 rules=$2 name=$3 status=0
  (cd "$dir" && "$bin" screen --rules "$rules" --orders orders-*.gz --receipts receipts-appstore.csv.gz \
    --out "$work/out-$name" --ledger none --jobs 2 --quiet --fail-on high) || status=$?
  echo "$status" >"$out/screen-$name.status"
  cp "$work/out-$name/findings.jsonl" "$out/findings-$name.jsonl"
  cp "$work/out-$name/flagged.csv" "$out/flagged-$name.csv"
}
screen "$work/world" Rules world-default
screen "$work/world" Rules-off world-off
screen "$work/world" Rules-tuned world-tuned
cp -r samples "$work/samples"
screen "$work/samples" Rules samples

# explain RULES NAME: every order of Tests/Golden/explain-orders.txt, one after another,
# answered from the explain index screen left in its --out (whose answer is the text of the
# night read again: ExplainIndexTests).
explain() {
  local rules=$1 name=$2 file="$out/explain-$2.txt" order status
  : >"$file"
  while read -r order; do
    [ -n "$order" ] || continue
    status=0
    echo "### $order" >>"$file"
    (cd "$work/world" && "$bin" explain --rules "$rules" --orders orders-*.gz --receipts receipts-appstore.csv.gz \
      --ledger none --jobs 2 --out "$work/out-$name" --order "$order") >>"$file" 2>&1 || status=$?
    echo "### exit $status" >>"$file"
  done <"$golden/explain-orders.txt"
}
explain Rules world-default &
explain Rules-off world-off &
wait
