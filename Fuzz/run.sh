#!/usr/bin/env bash
# Builds every libFuzzer harness in Fuzz/ against the package's module sources and runs
# each one, one at a time, for SECONDS seconds (default 60).
#
#   Fuzz/run.sh [seconds] [target ...]      targets: json base64 receipt plist csv jsonl xml gzip rules storereport events
#                                                    shards explainindex http cursor flaggedblock
#
# Findings (crash-*, leak-*, timeout-*, oom-*) land in Fuzz/out/findings/<target>/; the
# working corpora in Fuzz/out/corpus/<target>/ (seeded from samples/ and the committed
# hostile corpus in Tests/HostileInputTests/Corpus/); logs in Fuzz/out/logs/.
#
# Every target is built and run even when one fails; the exit status is 0 only when every
# harness built and every run ended clean (libFuzzer exit 0, no new finding), else 1.
# .ci/run runs `Fuzz/run.sh 20`.
set -euo pipefail

SECONDS_PER_TARGET="${1:-60}"
shift || true
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/Fuzz/out"
BUILD="$OUT/build"
ALL_TARGETS=(json base64 receipt plist csv jsonl xml gzip rules storereport events shards explainindex http cursor
             flaggedblock)
TARGETS=("${@:-${ALL_TARGETS[@]}}")
[ "$#" -eq 0 ] && TARGETS=("${ALL_TARGETS[@]}")

mkdir -p "$BUILD" "$OUT/logs"
export SWIFT_BACKTRACE=enable=no   # else the Swift runtime's backtracer can hang a crash report

# The C modules (module.modulemap + shim.h) and the headers they need.
CFLAGS=(-I "$ROOT/Sources/CZlib" -I "$ROOT/Sources/CISAL" -I "$ROOT/Sources/CLibXML2" -I "$ROOT/Sources/COpenSSL"
        -I "$ROOT/Sources/CSQLite3" -I "$ROOT/Sources/CLibPQ"
        -Xcc -I/usr/include/libxml2 -Xcc -I/usr/include/postgresql)
# One package name for every module and harness, as SwiftPM gives: Night's `package` API is
# visible only to modules of the same package.
SWIFTFLAGS=(-sanitize=fuzzer,address -parse-as-library -O -swift-version 6 -package-name iapscreen -I "$BUILD"
            "${CFLAGS[@]}")
LIBS=(-lz -lisal -lxml2 -lcrypto -lsqlite3 -lpq)

# Library modules in dependency order (Package.swift); each becomes BUILD/<Module>.swiftmodule
# + .o, instrumented for coverage (fuzzer) and ASan like the harness itself. Night (the
# explain index) needs the ledger's clients and the night's passes too. HTTPMessages (the desk's
# requests) needs only the first two: last, so that adding it rebuilt none of the others.
MODULES=(IAPBasics JSONText Decompression XMLStream StoreCrypto PostgresClient SQLiteClient DumpFormats StoreReports
         ReceiptFormats StoreEvents Screening ReceiptVerification Reporting Reconciliation Consumption Ledger Night
         HTTPMessages)

# The longest input the fuzzer makes for a target: 64 KiB, but 16 KiB for the readers of
# records (dumps, gzip, store reports, Rules, store events). Their cost grows with the
# records an input holds, and a fuzzer rewarded for every new loop count drifts towards
# inputs of ten thousand one-byte lines (65 ms a run at 64 KiB); every cap of Limits.small
# is reached well within 16 KiB, and a signed App Store notification is some 9 KiB.
max_len() {
    case "$1" in
        csv|jsonl|xml|gzip|storereport|rules|events|shards) echo 16384 ;;
        # Room for the seed, a small night's whole index (Fuzz/seeds/explainindex/).
        explainindex) echo 65536 ;;
        # The cursor is refused past 4,096 characters (3,072 bytes decoded): room for both, and no more.
        cursor) echo 8192 ;;
        *) echo 65536 ;;
    esac
}

# Objects built with other flags than these are stale whatever their age: the first module
# is rebuilt, and so every one after it. The flags are kept once every module has them.
REBUILT=0
FLAGS_STAMP="$BUILD/swiftflags"
[ "$(cat "$FLAGS_STAMP" 2>/dev/null)" = "${SWIFTFLAGS[*]} ${LIBS[*]}" ] || REBUILT=1
build_module() {
    local m="$1" stamp="$BUILD/$1.o"
    local srcs
    mapfile -t srcs < <(find "$ROOT/Sources/$m" -name '*.swift' | sort)
    # Rebuild when a source is newer than the object or an earlier module was rebuilt.
    if [ "$REBUILT" = 0 ] && [ -f "$stamp" ] && [ -z "$(find "$ROOT/Sources/$m" -name '*.swift' -newer "$stamp")" ]; then
        return
    fi
    REBUILT=1
    echo "build module $m (${#srcs[@]} files)"
    swiftc "${SWIFTFLAGS[@]}" -module-name "$m" -wmo -num-threads 0 \
        -emit-module -emit-module-path "$BUILD/$m.swiftmodule" \
        -c "${srcs[@]}" -o "$BUILD/$m.o" 2> >(grep -v "Cannot export local symbol" >&2) \
        || { rm -f "$BUILD/$m.o"; echo "module $m did not build: no harness can" >&2; exit 1; }
}

# Returns non-zero (and leaves no binary) when the harness does not build.
build_harness() {
    local t="$1"
    local src="$ROOT/Fuzz/Fuzz${t^}.swift"
    local bin="$BUILD/fuzz-$t"
    # Relink when the harness, FuzzSupport.swift or the modules' archive is newer than the binary.
    if [ -f "$bin" ] && [ -z "$(find "$src" "$ROOT/Fuzz/FuzzSupport.swift" "$ARCHIVE" -maxdepth 0 \
            -newer "$bin")" ]; then
        return 0
    fi
    echo "build harness $t"
    rm -f "$bin"   # never run a stale binary after a failed build
    swiftc "${SWIFTFLAGS[@]}" -module-name "Fuzz${t^}" "$src" "$ROOT/Fuzz/FuzzSupport.swift" \
        "$ARCHIVE" "${LIBS[@]}" -o "$bin" 2>&1 | grep -v "Cannot export local symbol" || true
    [ -x "$bin" ] || { echo "harness $t did not build" >&2; return 1; }
}

# Seed corpora from the repository: sample payloads, decompressed sample dumps, the Rules
# files, and the committed hostile cases.
seed() {
    local t="$1" dir="$OUT/corpus/$t"
    mkdir -p "$dir"
    [ -n "$(ls -A "$dir" 2>/dev/null)" ] && return
    set +o pipefail   # `gunzip | head` ends gunzip early
    local hostile="$ROOT/Tests/HostileInputTests/Corpus"
    case "$t" in
        json)
            grep -E '^\s*\{' "$ROOT/samples/receipt-examples.txt" | head -200 | split -l 1 - "$dir/sample-" || true
            ;;
        base64)
            grep -vE '^\s*(#|$)' "$ROOT/samples/receipt-examples.txt" | head -200 | split -l 1 - "$dir/sample-" || true
            printf '2024-02-29T23:59:59.999Z' > "$dir/ts-1"; printf '1700000000000' > "$dir/ts-2"
            printf '2024-01-01 10:00:00 Etc/GMT' > "$dir/ts-3"; printf '2023-12-31T23:00:00-08:00' > "$dir/ts-4"
            ;;
        receipt)
            grep -vE '^\s*(#|$)' "$ROOT/samples/receipt-examples.txt" | split -l 1 - "$dir/sample-" || true
            ;;
        plist)
            grep -vE '^\s*(#|$)' "$ROOT/samples/receipt-examples.txt" | while read -r line; do
                printf '%s' "$line" | base64 -d 2>/dev/null | head -c 65536 > "$dir/tmp" || true
                if head -c 1 "$dir/tmp" | grep -q '{' && grep -q '" = ' "$dir/tmp"; then
                    mv "$dir/tmp" "$dir/plist-$(sha1sum < "$dir/tmp" 2>/dev/null | cut -c1-12 || echo x)-$RANDOM"
                fi
            done; rm -f "$dir/tmp"
            ;;
        csv)
            for f in "$ROOT"/samples/*.csv.gz; do gunzip -c "$f" | head -40 > "$dir/$(basename "$f" .csv.gz).csv"; done
            gunzip -c "$ROOT/samples/orders-appstore.csv.gz" | head -20 | tr ',' '\t' > "$dir/orders.tsv"
            ;;
        jsonl)
            gunzip -c "$ROOT/samples/orders-play.jsonl.gz" | head -30 > "$dir/orders-play.jsonl"
            ;;
        xml)
            gunzip -c "$ROOT/samples/orders-storekit.xml.gz" | head -60 > "$dir/orders-storekit.xml"
            gunzip -c "$ROOT/samples/orders-storekit.xml.gz" | tail -20 >> "$dir/orders-storekit.xml"
            ;;
        gzip)
            for f in "$ROOT"/samples/*.gz; do
                gunzip -c "$f" | head -c 4000 | gzip -c > "$dir/$(basename "$f")"
            done
            ;;
        storereport)
            for f in "$ROOT"/samples/store-reports/*; do cp "$f" "$dir/"; done
            ;;
        events)
            # Every shape of docs/store-events.md, written by StoreEventsTests/FuzzSeedTests.swift.
            cp "$ROOT"/Fuzz/seeds/events/* "$dir/"
            ;;
        explainindex)
            # Indexes `screen` wrote of the sample night and of one orders dump (Fuzz/README.md says how).
            cp "$ROOT"/Fuzz/seeds/explainindex/*.bin "$dir/"
            ;;
        shards)
            # Worker lines and staged candidates (copies of the hostile corpus's ok cases and more).
            cp "$ROOT"/Fuzz/seeds/shards/* "$dir/"
            ;;
        http)
            # Requests, good and hostile, as the desk's server reads them (Fuzz/FuzzHttp.swift).
            cp "$ROOT"/Fuzz/seeds/http/* "$dir/"
            ;;
        cursor)
            # Queue cursors the encoder wrote, and broken ones (LedgerTests/QueueCursorTests.swift).
            cp "$ROOT"/Fuzz/seeds/cursor/* "$dir/"
            ;;
        flaggedblock)
            # Plain blocks: two orders (one without a receipt), an odd order id, an entry cut short.
            printf '\036"ORD-1"\n[["transaction","1001"]]\n{"rule":"a"}\n{"rule":"b"}\036"ORD-2"\nnull\n{"rule":"c"}' \
                > "$dir/two"
            printf '\036"o\\u001e\\n<b>"\nnull' > "$dir/odd-id"
            printf '\036"ORD-3"' > "$dir/cut"
            printf 'H4sIAAAAAAAA' > "$dir/not-a-block"
            ;;
        rules)
            # One "file" holds several files: each starts with a line `@@ name`.
            for f in "$ROOT"/samples/Rules/*.rules "$ROOT"/samples/Rules/*.csv; do
                { printf '@@ %s\n' "$(basename "$f")"; cat "$f"; } > "$dir/$(basename "$f")"
            done
            { for f in "$ROOT"/samples/Rules/*.rules "$ROOT"/samples/Rules/*.csv; do
                printf '@@ %s\n' "$(basename "$f")"; cat "$f"; done; } > "$dir/all"
            ;;
    esac
    if [ -d "$hostile/$t" ]; then cp "$hostile/$t"/* "$dir"/ 2>/dev/null || true; fi
    # Keep seeds under the max_len the fuzzer uses.
    local max
    max=$(max_len "$t")
    find "$dir" -type f -size +"$((max / 1024))"k -exec truncate -s "$max" {} \;
    set -o pipefail
}

for m in "${MODULES[@]}"; do build_module "$m"; done
printf '%s' "${SWIFTFLAGS[*]} ${LIBS[*]}" > "$FLAGS_STAMP"

# The harnesses link the modules from one archive, so that each takes only the modules it
# uses: libFuzzer walks every linked module's coverage counters after each run, and with
# Night and the ledger's modules in every binary the fast harnesses ran a third slower.
ARCHIVE="$BUILD/modules.a"
if [ ! -f "$ARCHIVE" ] || [ -n "$(find "$BUILD" -maxdepth 1 -name '*.o' -newer "$ARCHIVE")" ]; then
    rm -f "$ARCHIVE"
    (cd "$BUILD" && ar rcs "$ARCHIVE" "${MODULES[@]/%/.o}")
fi
FAILED=()
BUILT=()
for t in "${TARGETS[@]}"; do
    if build_harness "$t"; then BUILT+=("$t"); else FAILED+=("$t (does not build)"); fi
done

# The harnesses read files the seeds name relative to the repository (samples/Rules/trust,
# the dumps an explain index points into).
cd "$ROOT"
for t in "${BUILT[@]}"; do
    seed "$t"
    mkdir -p "$OUT/findings/$t"
    before=$(ls "$OUT/findings/$t" | wc -l)
    dict=()
    [ -f "$ROOT/Fuzz/dict/$t.dict" ] && dict=(-dict="$ROOT/Fuzz/dict/$t.dict")
    echo "== fuzz $t for ${SECONDS_PER_TARGET}s"
    set +e
    "$BUILD/fuzz-$t" "$OUT/corpus/$t" "${dict[@]}" \
        -max_total_time="$SECONDS_PER_TARGET" -max_len="$(max_len "$t")" -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$OUT/findings/$t/" -print_final_stats=1 \
        > "$OUT/logs/$t.log" 2>&1
    rc=$?
    set -e
    # A run stopped by a finding may print no stats or coverage: nothing to grep is no error.
    execs=$(grep -E '^stat::number_of_executed_units' "$OUT/logs/$t.log" | awk '{print $2}' || true)
    rate=$(grep -E '^stat::average_exec_per_sec' "$OUT/logs/$t.log" | awk '{print $2}' || true)
    cov=$(grep -oE 'cov: [0-9]+' "$OUT/logs/$t.log" | tail -1 || true)
    new=$(( $(ls "$OUT/findings/$t" | wc -l) - before ))
    echo "   $t: exit $rc, ${execs:-?} execs, ${rate:-?}/s, ${cov:-cov ?}, new findings: $new"
    echo "$(date -u +%FT%TZ) $t seconds=$SECONDS_PER_TARGET rc=$rc execs=${execs:-?} exec/s=${rate:-?} ${cov:-}" >> "$OUT/summary.txt"
    if [ "$rc" != 0 ] || [ "$new" -gt 0 ]; then
        FAILED+=("$t (exit $rc, $new new finding(s) in Fuzz/out/findings/$t, log Fuzz/out/logs/$t.log)")
    fi
done

if ((${#FAILED[@]})); then
    echo "FAILED: ${FAILED[*]}" >&2
    exit 1
fi
echo "all ${#BUILT[@]} targets clean"
