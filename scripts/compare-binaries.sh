#!/usr/bin/env bash
# Runs two iapscreen binaries on the same inputs and compares what they wrote, byte for byte,
# file by file: to show that a restructuring changed no behaviour.
#
#   scripts/compare-binaries.sh OLD_BINARY NEW_BINARY [WORK_DIR]
#
# Prints one line per compared file, `same` or `DIFFERS` (with the first ~20 lines of its
# `diff -u`), then `compare-binaries: N files compared, K differ`. Exit 0 when every file is
# the same, 1 when one differs, 2 on a usage error or when the comparison cannot be set up.
# Each binary's outputs go under WORK_DIR/old and WORK_DIR/new: runs/ holds every run as the
# binary wrote it, compared/ the files compared (normalised where said below), so that
#   diff -r WORK_DIR/old/compared WORK_DIR/new/compared
# shows it all again. WORK_DIR (which must be empty or not exist) is kept; without it a
# temporary directory is used and removed at exit.
#
# What runs, on each side (every run's exit status goes to NAME.status, its stdout and stderr
# to NAME.log, and both are compared too):
#   - the shipped samples/ (with their store events), screened with --ledger none and with a
#     fresh SQLite ledger; reconciled against samples/store-reports; `decode` of
#     receipt-examples.txt;
#   - a generated world (`samples --orders 3000 --seed 7`, written ONCE by the old binary and
#     copied to both sides: every world gets fresh keys), screened on three nights against one
#     SQLite ledger per binary: night 1 the dumps without store events, night 2 the same dumps
#     with the store events (replays and findings seen on the ledger, refunds), night 3 the
#     dumps without events again (refunds the ledger remembers); then `ledger status`;
#   - `explain --order` for ~15 orders picked from the old binary's night-2 findings (one per
#     rule, every kind of refund event first, and a clean order), on a copy of each side's
#     ledger as night 1 left it, with night 2's inputs and store events;
#   - `backtest` of a candidate Rules (the world's Rules with default.rules changed: a
#     severity raised, a rule off, a parameter tightened, a custom rule on user.refunds) on a
#     copy of the night-1 ledger with two reviews recorded; `rules check` and `rules list` of
#     the candidate;
#   - `reconcile` of the world against its store reports and store events;
#   - on PostgreSQL (IAPSCREEN_COMPARE_POSTGRES = a superuser URI, else a throwaway cluster
#     from scripts/postgres-test-cluster.sh when PostgreSQL 15 is installed; else skipped,
#     saying why): one unsharded night, and nights 1 and 2 each as 2 shards run in parallel
#     (`--shard I/2`, one run id) then `merge`, each on a fresh database per binary; every
#     shard's and the merged findings.jsonl, flagged.csv and summary.json are compared.
#
# Not compared, and normalised (only what is time):
#   - report.html is not compared: the page embeds the run's start and end times (backtest.html
#     holds none, and is compared).
#   - summary.json and reconciliation.json lose their top-level started_at, finished_at
#     (wall-clock times) and orders_per_second (orders over the run's duration); every other
#     byte of them is kept as written.
#   - the --metrics file loses the samples of iapscreen_last_run_timestamp_seconds,
#     iapscreen_last_run_duration_seconds, iapscreen_last_success_timestamp_seconds and
#     iapscreen_orders_per_second (their HELP and TYPE lines stay).
#   - `ledger status` prints each run's started/finished time, and `review` the time it
#     recorded: those times become <time>.
# No command run here reads the clock for anything else (there is no --now to pin; only
# `--environment production` is given explicitly). Every path given to a binary is relative
# to the world (or samples) directory it runs in, and each side has its own copy of that
# directory at the same depth, so the paths the outputs name are the same on both sides.
set -euo pipefail

usage() {
  echo "usage: scripts/compare-binaries.sh OLD_BINARY NEW_BINARY [WORK_DIR]" >&2
  exit 2
}
[ $# -ge 2 ] && [ $# -le 3 ] || usage
for b in "$1" "$2"; do
  [ -f "$b" ] && [ -x "$b" ] || { echo "compare-binaries: $b is not an executable file" >&2; exit 2; }
done
old_bin=$(realpath "$1")
new_bin=$(realpath "$2")
if [ $# -eq 3 ]; then
  if [ -e "$3" ] && { [ ! -d "$3" ] || [ -n "$(ls -A "$3")" ]; }; then
    echo "compare-binaries: WORK_DIR $3 must be an empty directory or not exist" >&2
    exit 2
  fi
  mkdir -p "$3"
  work=$(realpath "$3")
  keep_work=1
else
  work=$(mktemp -d "${TMPDIR:-/tmp}/iapscreen-compare.XXXXXX")
  keep_work=0
fi
cd "$(dirname "$0")/.."
root=$PWD

# The same environment for both: no timing lines on stderr, one sort order for globs.
unset IAPSCREEN_TIMINGS
export LC_ALL=C TZ=UTC

pg_uri=""         # superuser URI of the server the PostgreSQL part uses, "" when skipped
pg_why=""         # why it was skipped
pg_started=0      # 1 when this script started the cluster (and so stops it)
pg_external_dbs=() # databases made on IAPSCREEN_COMPARE_POSTGRES's server, dropped at exit
pg_state=$work/postgres-cluster-state # our own cluster's state: never someone else's cluster

cleanup() {
  local status=$?
  for db in "${pg_external_dbs[@]}"; do
    psql "$pg_uri" -qX -c "DROP DATABASE IF EXISTS \"$db\" WITH (FORCE)" >/dev/null 2>&1 || true
  done
  if [ "$pg_started" = 1 ]; then
    IAPSCREEN_TEST_CLUSTER_STATE=$pg_state "$root/scripts/postgres-test-cluster.sh" stop || true
  fi
  [ "$keep_work" = 1 ] || rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# drop_json_keys SRC DST KEY...: SRC's JSON object without the top-level members KEY...,
# every other byte (spacing, number and string spelling, key order) as SRC has it.
drop_json_keys() {
  python3 - "$@" <<'EOF'
import json, sys
src, dst, *drop = sys.argv[1:]
text = open(src, encoding="utf-8").read()
json.loads(text)  # it must be JSON at all
decoder = json.JSONDecoder()
def skip(i):
    while i < len(text) and text[i] in " \t\r\n":
        i += 1
    return i
start = skip(0)
if text[start] != "{":
    sys.exit(f"{src}: not a JSON object")
members = []  # (first byte of the key, end of the value, key)
i = skip(start + 1)
if text[i] != "}":
    while True:
        key, j = json.decoder.scanstring(text, i + 1)
        j = skip(j)
        _, end = decoder.raw_decode(text, skip(j + 1))
        members.append((i, end, key))
        i = skip(end)
        if text[i] == "}":
            break
        i = skip(i + 1)  # the comma
close = i
out = text[: start + 1]
if members:
    out += text[start + 1 : members[0][0]]
    kept = [n for n, m in enumerate(members) if m[2] not in drop]
    for k, n in enumerate(kept):
        if k:
            out += text[members[n - 1][1] : members[n][0]]  # the separator before it
        out += text[members[n][0] : members[n][1]]
    out += text[members[-1][1] : close]
out += text[close:]
open(dst, "w", encoding="utf-8").write(out)
EOF
}

# The sides' directories; set by side().
bin="" side_dir="" runs="" cmp=""
side() {
  bin=$1 side_dir=$work/$2
  runs=$side_dir/runs cmp=$side_dir/compared
  mkdir -p "$runs" "$cmp"
}

# run NAME CMD...: CMD in the current directory; its stdout and stderr to compared/NAME.log,
# its exit status to compared/NAME.status.
run() {
  local name=$1 status=0
  shift
  "$@" >"$cmp/$name.log" 2>&1 </dev/null || status=$?
  echo "$status" >"$cmp/$name.status"
}

# collect NAME FILE...: runs/NAME/FILE into compared/NAME.FILE, summary.json and
# reconciliation.json without their times. A file the run did not write is compared as a
# line saying so, so that it still counts (and differs when the other side wrote it).
collect() {
  local name=$1 f
  shift
  for f in "$@"; do
    if [ ! -f "$runs/$name/$f" ]; then
      echo "(no $f written)" >"$cmp/$name.$f"
    else
      case $f in
        summary.json | reconciliation.json)
          drop_json_keys "$runs/$name/$f" "$cmp/$name.$f" started_at finished_at orders_per_second ;;
        *) cp "$runs/$name/$f" "$cmp/$name.$f" ;;
      esac
    fi
  done
}

# collect_metrics NAME: runs/NAME.prom without the samples that are times or rates of time.
collect_metrics() {
  if [ -f "$runs/$1.prom" ]; then
    local times='last_run_timestamp_seconds|last_run_duration_seconds|last_success_timestamp_seconds|orders_per_second'
    sed -E "/^iapscreen_($times)[ {]/d" "$runs/$1.prom" >"$cmp/$1.metrics.prom"
  else
    echo "(no metrics written)" >"$cmp/$1.metrics.prom"
  fi
}

# copy_ledger FROM TO: a SQLite ledger no process holds, with its write-ahead log if any.
copy_ledger() {
  cp "$runs/$1" "$runs/$2"
  if [ -f "$runs/$1-wal" ]; then cp "$runs/$1-wal" "$runs/$2-wal"; fi
}

reports=(findings.jsonl flagged.csv summary.json)
# The world's inputs of screen, explain and backtest; set in the world's directory, where the
# glob is to match.
world_inputs=()
set_world_inputs() {
  world_inputs=(--rules Rules --orders orders-*.gz --receipts receipts-appstore.csv.gz --environment production)
}

# screen_world NAME LEDGER [FLAG...]: one screen of the side's world; its reports and metrics collected.
screen_world() {
  local name=$1 ledger=$2
  shift 2
  run "$name" "$bin" screen "${world_inputs[@]}" --ledger "$ledger" --out "../runs/$name" \
    --metrics "../runs/$name.prom" --jobs 2 --quiet "$@"
  collect "$name" "${reports[@]}"
  collect_metrics "$name"
}

# The shipped samples: no ledger, a fresh SQLite ledger, reconcile, decode.
run_samples() {
  cd "$side_dir/samples"
  local inputs=(--rules Rules --orders orders-*.gz --receipts receipts-appstore.csv.gz
    --store-events store-events.jsonl.gz --environment production)
  local name
  for name in samples-none samples-sqlite; do
    local ledger=none
    [ "$name" = samples-sqlite ] && ledger=sqlite:../runs/samples.sqlite
    run "$name" "$bin" screen "${inputs[@]}" --ledger "$ledger" --out "../runs/$name" \
      --metrics "../runs/$name.prom" --jobs 2 --quiet --fail-on high
    collect "$name" "${reports[@]}"
    collect_metrics "$name"
  done
  run samples-reconcile "$bin" reconcile --rules Rules --orders orders-*.gz --receipts receipts-appstore.csv.gz \
    --store-report store-reports/* --store-events store-events.jsonl.gz --out ../runs/samples-reconcile
  collect samples-reconcile reconciliation.csv reconciliation.json
  run samples-decode "$bin" decode receipt-examples.txt
}

# Picks, from the old binary's night-2 findings, the orders to explain (one per rule, every
# kind of refund event first, then a clean order of expected.csv) and the two orders to review.
pick_orders() {
  python3 - "$1" "$2" "$work/explain-orders.txt" "$work/review-orders.txt" <<'EOF'
import csv, json, sys
findings, expected, explain_out, review_out = sys.argv[1:]
by_kind, flagged = {}, set()
try:
    for line in open(findings, encoding="utf-8"):
        f = json.loads(line)
        order = f.get("order_id")
        if order is None:
            continue
        flagged.add(order)
        kind = f["rule"]
        if kind == "refunded-after-credit":
            kind += "/" + str((f.get("evidence") or {}).get("event"))
        by_kind.setdefault(kind, []).append(order)
except FileNotFoundError:
    pass
first = ["refund-reversed", "revoked", "store-event-invalid", "replayed-transaction", "orphan-receipt"]
kinds = sorted(k for k in by_kind if k.startswith("refunded-after-credit/"))
kinds += [k for k in first if k in by_kind]
kinds += sorted(k for k in by_kind if k not in kinds)
picked = []
for kind in kinds:
    order = next((o for o in by_kind[kind] if o not in picked), None)
    if order is not None and len(picked) < 14:
        picked.append(order)
for row in csv.DictReader(open(expected, encoding="utf-8")):
    if row["case"] == "clean" and row["order_id"] not in flagged:
        picked.append(row["order_id"])
        break
open(explain_out, "w").write("".join(o + "\n" for o in picked))
reviews = []
for rule, verdict in (("replayed-transaction", "fraud"), ("sandbox-in-production", "legit")):
    if by_kind.get(rule):
        reviews.append(f"{by_kind[rule][0]} {verdict}\n")
open(review_out, "w").write("".join(reviews))
EOF
}

# The generated world: three nights on one ledger, explain, backtest, rules, reconcile.
run_world() {
  cd "$side_dir/world"
  set_world_inputs
  screen_world night1 sqlite:../runs/ledger.sqlite
  copy_ledger ledger.sqlite ledger-night1.sqlite
  screen_world night2 sqlite:../runs/ledger.sqlite --store-events store-events.jsonl.gz --fail-on high
  screen_world night3 sqlite:../runs/ledger.sqlite --fail-on high
  run ledger-status "$bin" ledger status --ledger sqlite:../runs/ledger.sqlite
  sed -i -E 's/(started|finished) [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/\1 <time>/g' "$cmp/ledger-status.log"

  [ -f "$work/explain-orders.txt" ] || pick_orders "$runs/night2/findings.jsonl" expected.csv
  local order verdict
  while read -r order; do
    run "explain-$order" "$bin" explain --order "$order" "${world_inputs[@]}" \
      --store-events store-events.jsonl.gz --ledger sqlite:../runs/ledger-night1.sqlite --jobs 2
    # Whether an index answered, and why not, is no difference in what explain says.
    sed -i '/^iapscreen explain: not using the index in /d' "$cmp/explain-$order.log"
  done <"$work/explain-orders.txt"

  # Reviews on a copy of the night-1 ledger, so that backtest counts verdicts.
  copy_ledger ledger-night1.sqlite ledger-reviewed.sqlite
  while read -r order verdict; do
    run "review-$order" "$bin" review --order "$order" --verdict "$verdict" --by compare-binaries \
      --note "compare-binaries review" --ledger sqlite:../runs/ledger-reviewed.sqlite
    sed -i -E 's/ at [0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z/ at <time>/g' "$cmp/review-$order.log"
  done <"$work/review-orders.txt"
  run backtest "$bin" backtest --rules Rules-candidate --baseline Rules --orders orders-*.gz \
    --receipts receipts-appstore.csv.gz --environment production --store-events store-events.jsonl.gz \
    --ledger sqlite:../runs/ledger-reviewed.sqlite --out ../runs/backtest --jobs 2 --quiet
  collect backtest backtest.csv backtest.json backtest.html
  run rules-check-candidate "$bin" rules check --rules Rules-candidate
  run rules-list-candidate "$bin" rules list --rules Rules-candidate

  run reconcile "$bin" reconcile --rules Rules --orders orders-*.gz --receipts receipts-appstore.csv.gz \
    --store-report store-reports/* --store-events store-events.jsonl.gz --out ../runs/reconcile --fail-on high
  collect reconcile reconciliation.csv reconciliation.json
}

# db_uri NAME: the server's URI with database NAME.
db_uri() {
  python3 -c 'import sys, urllib.parse as u
p = u.urlsplit(sys.argv[1])
print(p._replace(path="/" + sys.argv[2]).geturl())' "$pg_uri" "$1"
}

# new_db NAME: a fresh database NAME on the server; prints its URI.
new_db() {
  psql "$pg_uri" -qX -v ON_ERROR_STOP=1 -c "SET client_min_messages = warning" \
    -c "DROP DATABASE IF EXISTS \"$1\" WITH (FORCE)" -c "CREATE DATABASE \"$1\"" \
    >/dev/null || { echo "compare-binaries: cannot create database $1 on the PostgreSQL server" >&2; exit 2; }
  db_uri "$1"
}

# PostgreSQL: one unsharded night, and nights 1 and 2 as 2 parallel shards each and merge.
run_postgres() {
  cd "$side_dir/world"
  set_world_inputs
  local side=$1 single sharded night i
  # On a server of the user's, the databases are dropped again at exit.
  [ -z "${IAPSCREEN_COMPARE_POSTGRES:-}" ] ||
    pg_external_dbs+=("iapscreen_compare_$$_${side}_single" "iapscreen_compare_$$_${side}_sharded")
  single=$(new_db "iapscreen_compare_$$_${side}_single")
  sharded=$(new_db "iapscreen_compare_$$_${side}_sharded")
  screen_world pg-single "$single" --store-events store-events.jsonl.gz --fail-on high
  for night in 1 2; do
    local events=()
    [ "$night" = 1 ] || events=(--store-events store-events.jsonl.gz)
    for i in 1 2; do
      run "pg-night$night-shard$i" "$bin" screen --shard "$i/2" --run-id "night-$night" "${world_inputs[@]}" \
        "${events[@]}" --ledger "$sharded" --out "../runs/pg-night$night-shard$i" --jobs 2 --quiet \
        --shard-timeout 300 &
    done
    wait
    for i in 1 2; do collect "pg-night$night-shard$i" "${reports[@]}"; done
    run "pg-night$night-merged" "$bin" merge --out "../runs/pg-night$night-merged" --quiet \
      "../runs/pg-night$night-shard1" "../runs/pg-night$night-shard2"
    collect "pg-night$night-merged" "${reports[@]}"
  done
}

# Where the PostgreSQL part runs, if anywhere.
if ! command -v psql >/dev/null; then
  pg_why="no psql on PATH"
elif [ -n "${IAPSCREEN_COMPARE_POSTGRES:-}" ]; then
  pg_uri=$IAPSCREEN_COMPARE_POSTGRES
elif [ -d /usr/lib/postgresql/15/bin ]; then
  if pg_uri=$(IAPSCREEN_TEST_CLUSTER_STATE=$pg_state scripts/postgres-test-cluster.sh start \
    2>"$work/postgres-start.log"); then
    pg_started=1
  else
    pg_uri=""
    pg_why="scripts/postgres-test-cluster.sh start failed: $(tail -n 1 "$work/postgres-start.log")"
  fi
else
  pg_why="IAPSCREEN_COMPARE_POSTGRES is not set and there is no PostgreSQL 15 in /usr/lib/postgresql/15/bin"
fi

echo "compare-binaries: old $old_bin, new $new_bin, outputs in $work" >&2
# One world, written by the old binary, the same bytes for both (every world has fresh keys).
"$old_bin" samples --out "$work/world" --orders 3000 --seed 7 --jobs 2 >"$work/world.log" 2>&1 ||
  { cat "$work/world.log" >&2; echo "compare-binaries: the old binary could not write the world" >&2; exit 2; }
# The candidate Rules for backtest: default.rules with a severity raised (account-mismatch),
# a rule off (orphan-receipt), a parameter tightened (expired-validity) and a custom rule on
# the refunds the ledger and the store events know.
cp -r "$work/world/Rules" "$work/world/Rules-candidate"
cat >"$work/world/Rules-candidate/default.rules" <<'EOF'
# The demo world's rules, changed for compare-binaries' backtest.
rule expired-validity severity medium grace_days 0 max_proof_age_days 7
rule account-mismatch severity critical
rule orphan-receipt off
exempt reviewers from sandbox-in-production
flag high serial-refunder if user.refunds >= 2 say "refunded twice or more"
EOF

for s in old new; do
  if [ "$s" = old ]; then side "$old_bin" old; else side "$new_bin" new; fi
  echo "compare-binaries: running the $s binary" >&2
  cp -r "$work/world" "$side_dir/world"
  cp -r "$root/samples" "$side_dir/samples"
  run_samples
  run_world
  if [ -n "$pg_uri" ]; then run_postgres "$s"; fi
  # Neither binary may write into the directory it runs in (a default ledger or --out).
  (cd "$side_dir/world" && find . -type f | sort | xargs sha256sum) >"$cmp/world-files.txt"
  (cd "$side_dir/samples" && find . -type f | sort | xargs sha256sum) >"$cmp/samples-files.txt"
done
cd "$work"

if [ -z "$pg_uri" ]; then echo "compare-binaries: the PostgreSQL and sharded runs were skipped: $pg_why"; fi
compared=0 differ=0
while read -r f; do
  compared=$((compared + 1))
  if [ -f "old/compared/$f" ] && [ -f "new/compared/$f" ] && cmp -s "old/compared/$f" "new/compared/$f"; then
    echo "same     $f"
  else
    differ=$((differ + 1))
    echo "DIFFERS  $f"
    if [ ! -f "old/compared/$f" ]; then echo "    (only the new binary's run has it)"
    elif [ ! -f "new/compared/$f" ]; then echo "    (only the old binary's run has it)"
    else
      diff -u --label "old/compared/$f" --label "new/compared/$f" "old/compared/$f" "new/compared/$f" |
        head -n 20 | cut -c 1-240 | sed 's/^/    /' || true
    fi
  fi
done < <( (ls old/compared; ls new/compared) | sort -u)
echo "compare-binaries: $compared files compared, $differ differ"
[ "$differ" = 0 ]
