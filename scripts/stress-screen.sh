#!/usr/bin/env bash
# Runs `iapscreen screen` on one small world many times, a few at a time, and counts how
# the runs ended: a run must exit 0 (or 1 with --fail-on), never by a signal.
#   scripts/stress-screen.sh [BINARY] [RUNS]
# BINARY defaults to $IAPSCREEN_BIN, else the release build (built first); RUNS to
# $STRESS_RUNS, else 2000. Also from the environment: STRESS_PARALLEL (2 at a time),
# STRESS_ORDERS (2000) and STRESS_SEED (7) for the world, STRESS_FAIL_ON (a severity:
# --fail-on, so 1 is expected too), STRESS_LEDGER (sqlite, a fresh ledger per run, or none).
# Exits 1 when a run died by a signal or ended with another status; those runs' stderr is
# kept (the path is printed).
set -euo pipefail
shopt -s nullglob
cd "$(dirname "$0")/.."

bin=${1:-${IAPSCREEN_BIN:-}}
runs=${2:-${STRESS_RUNS:-2000}}
parallel=${STRESS_PARALLEL:-2}
orders=${STRESS_ORDERS:-2000}
seed=${STRESS_SEED:-7}
fail_on=${STRESS_FAIL_ON:-}
ledger=${STRESS_LEDGER:-sqlite}
case $ledger in sqlite | none) ;; *) echo "STRESS_LEDGER is sqlite or none, not '$ledger'" >&2; exit 2 ;; esac
if [ -z "$bin" ]; then
  swift build -c release --product iapscreen >/dev/null
  bin="$(swift build -c release --show-bin-path)/iapscreen"
fi
bin=$(realpath "$bin")

work=$(mktemp -d "${TMPDIR:-/tmp}/iapscreen-stress.XXXXXX")
if ! "$bin" samples --out "$work/world" --orders "$orders" --seed "$seed" >/dev/null 2>"$work/samples.err"; then
  cat "$work/samples.err" >&2
  exit 2
fi

# One run: its own --out and ledger; its status in $work/runs/N.status, its stderr kept
# only when the status is not one expected.
run_one() {
  local i=$1 dir="$work/runs/$1" status=0
  mkdir -p "$dir"
  local args=(screen --rules "$work/world/Rules" --orders "$work/world"/orders-*.gz
    --receipts "$work/world/receipts-appstore.csv.gz" --out "$dir/report")
  if [ "$ledger" = none ]; then args+=(--ledger none); else args+=(--ledger "sqlite:$dir/ledger.sqlite"); fi
  if [ -n "$fail_on" ]; then args+=(--fail-on "$fail_on"); fi
  "$bin" "${args[@]}" >"$dir/stdout" 2>"$dir/stderr" || status=$?
  echo "$status" >"$work/runs/$i.status"
  if [ "$status" -eq 0 ] || { [ -n "$fail_on" ] && [ "$status" -eq 1 ]; }; then rm -rf "$dir"; fi
}
export -f run_one
export work bin ledger fail_on

started=$EPOCHREALTIME
seq 1 "$runs" | xargs -P "$parallel" -I{} bash -c 'run_one {}'
elapsed=$(awk -v a="$started" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')

ok=0 findings=0 other=0 signal=0
declare -A codes=()
for f in "$work"/runs/*.status; do
  s=$(<"$f")
  codes[$s]=$((${codes[$s]:-0} + 1))
  if [ "$s" -eq 0 ]; then ok=$((ok + 1))
  elif [ "$s" -eq 1 ] && [ -n "$fail_on" ]; then findings=$((findings + 1))
  elif [ "$s" -gt 128 ]; then signal=$((signal + 1))
  else other=$((other + 1)); fi
done
total=$((ok + findings + other + signal))
line="stress-screen: $total runs of $orders orders, $parallel at a time, $elapsed s: $ok exit 0"
[ -n "$fail_on" ] && line+=", $findings exit 1 (--fail-on $fail_on)"
line+=", $other other status, $signal by a signal"
echo "$line"
if [ $((other + signal)) -gt 0 ] || [ "$total" -ne "$runs" ]; then
  for s in $(printf '%s\n' "${!codes[@]}" | sort -n); do
    if [ "$s" -gt 128 ]; then
      echo "  status $s (signal $((s - 128)), SIG$(kill -l $((s - 128)) 2>/dev/null || echo '?')): ${codes[$s]} run(s)"
    elif [ "$s" -gt 1 ] || { [ "$s" -eq 1 ] && [ -z "$fail_on" ]; }; then
      echo "  status $s: ${codes[$s]} run(s)"
    fi
  done
  echo "  unexpected runs' stderr kept in $work/runs/*/stderr"
  rm -rf "$work/world"
  exit 1
fi
rm -rf "$work"
