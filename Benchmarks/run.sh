#!/usr/bin/env bash
# Curlew benchmarks: Curlew, AsyncHTTPClient, URLSession, the curl CLI, wrk and a raw-libcurl
# C loop against one local nginx, in alternation, several rounds; prints a table of medians
# and writes results/latest.md and results/latest.json. See docs/benchmarks.md.
#
#   Benchmarks/run.sh                 full run: 3 rounds, the counts of issue 5 (~15 min)
#   Benchmarks/run.sh --quick         smoke test: 1 round, small counts (~3 min after builds)
#   Benchmarks/run.sh --callgrind     instructions per request of small-c1 (Curlew, AHC, C loop)
#
# Options: --rounds N, --clients a,b,..., --scenarios x,y,..., --no-build, --keep-nginx-log.
# Clients: curlew curlew-exec rawcurl wrk curl ahc urlsession (curlew-exec: Curlew with its
# tasks on Session.taskExecutor, the session's own thread).
# Scenarios: small-c1 small-c64 h2-c64 download-stream download-file upload many-streams.
set -euo pipefail

HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
RUN="$HERE/.run"
RESULTS_DIR="$HERE/results"

log() { printf '[bench] %s\n' "$*" >&2; }
loud() { printf '\n[bench] !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n[bench] !!! %s\n[bench] !!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!\n\n' "$*" >&2; }
die() { printf '[bench] error: %s\n' "$*" >&2; exit 1; }

# shellcheck source=scripts/setup.sh
source "$HERE/scripts/setup.sh"
# shellcheck source=scripts/nginx.sh
source "$HERE/scripts/nginx.sh"
# shellcheck source=scripts/clients.sh
source "$HERE/scripts/clients.sh"
# shellcheck source=scripts/callgrind.sh
source "$HERE/scripts/callgrind.sh"

MODE=full ROUNDS=3 SKIP_BUILD=0 CALLGRIND=0 SUBSET=0
CLIENTS="curlew curlew-exec rawcurl wrk curl ahc urlsession"
SCENARIOS="small-c1 small-c64 h2-c64 download-stream download-file upload many-streams"
C1_COUNT=10000 C64_COUNT=50000 H2_COUNT=20000 STREAMS=10000 WRK_SECONDS=5 PAUSE=1
BIG_MIB=1024 UPLOAD_MIB=256 CLIENT_TIMEOUT=600
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) MODE=quick ROUNDS=1 C1_COUNT=2000 C64_COUNT=10000 H2_COUNT=4000 STREAMS=1000 WRK_SECONDS=2 PAUSE=0.3 ;;
        --rounds) ROUNDS=${2:?}; shift ;;
        --clients) CLIENTS=${2//,/ } SUBSET=1; shift ;;
        --scenarios) SCENARIOS=${2//,/ } SUBSET=1; shift ;;
        --no-build) SKIP_BUILD=1 ;;
        --callgrind) CALLGRIND=1 ;;
        -h | --help) sed -n '2,13p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
[[ "$ROUNDS" =~ ^[1-9][0-9]*$ ]] || die "--rounds needs a positive number"

mkdir -p "$RUN" "$RESULTS_DIR"
# One run at a time: runs share .run/ (nginx's pid file, the data, the result lines).
exec 9>"$RUN/lock"
flock -n 9 || die "another Benchmarks/run.sh is running (lock: .run/lock)"
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
[ "$(ulimit -n)" -ge $((STREAMS + 200)) ] ||
    log "warning: only $(ulimit -n) open files allowed; many-streams needs $((STREAMS + 200))"

cleanup() { stop_nginx; rm -f "$RUN/download.bin"; }
trap cleanup EXIT
trap 'exit 130' INT TERM

if [ "$CALLGRIND" = 1 ]; then ensure_tools valgrind; else ensure_tools; fi
build_c_tools
build_swift
make_certificates
make_data
start_nginx
check_nginx

# Facts about the run, for the report.
write_meta() {
    local cpu mem
    cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
    mem=$(awk '/^MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)
    jq -n --arg date "$(date -u '+%Y-%m-%d %H:%M UTC')" \
        --arg machine "$(nproc) cores ($cpu), $mem RAM" \
        --arg kernel "$(uname -sr)" \
        --arg versions "$(swift --version 2>&1 | head -1 | sed 's/ (swift.*//'); AsyncHTTPClient 1.37.0; $(curl --version | head -1 | cut -d' ' -f1-2) (libcurl $(curl --version | head -1 | sed 's/.*libcurl\/\([^ ]*\).*/\1/')); $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2); nginx $(nginx -v 2>&1 | sed 's/.*\///')" \
        --arg mode "$MODE: $ROUNDS round(s), clients in rotating order" \
        --arg counts "small-c1 $C1_COUNT, small-c64 $C64_COUNT, h2-c64 $H2_COUNT, download $BIG_MIB MiB, upload $UPLOAD_MIB MiB, many-streams $STREAMS, wrk ${WRK_SECONDS}s per run" \
        --arg nginx "1 worker process on 127.0.0.1 (client and server share the 2 cores), sendfile, keepalive_requests 100000, TLS 1.3 ECDSA P-256 with HTTP/2" \
        '{date:$date, machine:$machine, kernel:$kernel, versions:$versions, mode:$mode, counts:$counts, nginx:$nginx}' \
        >"$RUN/meta.json"
}

# Copies the latest tables into docs/benchmarks.md between its markers, for full runs of
# every client and scenario only (a quick or partial run never replaces the published table).
update_docs() {
    local doc="$HERE/../docs/benchmarks.md"
    [ -f "$doc" ] && grep -q '<!-- latest-results:begin -->' "$doc" || return 0
    jq -e '.meta.mode | startswith("full")' "$RESULTS_DIR/latest.json" >/dev/null || return 0
    awk -v latest="$RESULTS_DIR/latest.md" '
        /<!-- latest-results:begin -->/ {
            print
            while ((getline line < latest) > 0) {
                if (line ~ /^# /) continue
                if (line ~ /^#+ /) line = "#" line
                print line
            }
            skip = 1
            next
        }
        /<!-- latest-results:end -->/ { skip = 0 }
        !skip { print }' "$doc" >"$doc.tmp" && mv "$doc.tmp" "$doc"
    log "docs/benchmarks.md updated with these results"
}

report() {
    local args=(--meta "$RUN/meta.json" --markdown "$RESULTS_DIR/latest.md" --json "$RESULTS_DIR/latest.json")
    [ -f "$RESULTS_DIR/callgrind.jsonl" ] && args+=(--callgrind "$RESULTS_DIR/callgrind.jsonl")
    "$SWIFT_BIN/bench-report" --results "$RESULTS" "${args[@]}"
}

if [ "$CALLGRIND" = 1 ]; then
    run_callgrind
    if [ -f "$RESULTS_DIR/latest.json" ]; then
        # Re-render the latest tables with the new counts, keeping the last run's figures.
        jq -c '.runs[]' "$RESULTS_DIR/latest.json" >"$RUN/previous.jsonl"
        jq '.meta' "$RESULTS_DIR/latest.json" >"$RUN/meta.json"
        RESULTS="$RUN/previous.jsonl" report >/dev/null
        log "results/latest.md now includes the callgrind counts"
        update_docs
    fi
    exit 0
fi

# Clients that cannot run at all this time are recorded as such, loudly.
active=()
for client in $CLIENTS; do
    case "$client" in
        curlew | curlew-exec) [ "$CURLEW_BUILT" = 1 ] || { loud "$client is not measured: the Curlew client did not build"; continue; } ;;
        ahc | urlsession) [ -x "$SWIFT_BIN/$client-bench" ] || { loud "$client is not measured: it did not build"; continue; } ;;
        rawcurl | wrk | curl) ;;
        *) die "unknown client $client" ;;
    esac
    active+=("$client")
done

write_meta
RESULTS="$RUN/results.jsonl"
: >"$RESULTS"
for client in $CLIENTS; do
    if [[ " ${active[*]} " != *" $client "* ]]; then
        for scenario in $SCENARIOS; do emit_status "$client" "$scenario" error "the client did not build"; done
    fi
done
started=$(date +%s)
for round in $(seq "$ROUNDS"); do
    # Rotate the client order each round so that no client always runs first or last.
    shift_by=$(((round - 1) % ${#active[@]}))
    order=("${active[@]:$shift_by}" "${active[@]:0:$shift_by}")
    log "round $round of $ROUNDS: ${order[*]}"
    for scenario in $SCENARIOS; do
        for client in "${order[@]}"; do run_one "$client" "$scenario"; done
    done
done
log "measured in $(($(date +%s) - started)) s"
report
if [ "$MODE" = full ] && [ "$SUBSET" = 0 ]; then update_docs; fi
