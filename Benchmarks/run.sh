#!/usr/bin/env bash
# Curlew benchmarks: Curlew, AsyncHTTPClient, URLSession, the curl CLI, wrk and a raw-libcurl
# C loop against one local nginx, in alternation, several rounds; prints a table of medians
# and writes results/latest.md and results/latest.json. See docs/benchmarks.md.
#
#   Benchmarks/run.sh                 full run: 5 rounds, the counts of issue 5 (~25 min)
#   Benchmarks/run.sh --quick         smoke test: 1 round, small counts (~3 min after builds)
#   Benchmarks/run.sh --callgrind     instructions per request of small-c1 (Curlew, AHC, C loop)
#   Benchmarks/run.sh --syscalls      system calls per request of small-c1 under strace
#
# Options: --rounds N, --clients a,b,..., --scenarios x,y,..., --no-build.
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
# shellcheck source=scripts/syscalls.sh
source "$HERE/scripts/syscalls.sh"

MODE=full ROUNDS=5 ROUNDS_GIVEN=0 SKIP_BUILD=0 CALLGRIND=0 SYSCALLS=0 SUBSET=0
CLIENTS="curlew curlew-exec rawcurl wrk curl ahc urlsession"
SCENARIOS="small-c1 small-c64 h2-c64 download-stream download-file upload many-streams"
C1_COUNT=10000 C64_COUNT=50000 H2_COUNT=20000 STREAMS=10000 WRK_SECONDS=5 PAUSE=1
BIG_MIB=1024 UPLOAD_MIB=256 CLIENT_TIMEOUT=600
while [ $# -gt 0 ]; do
    case "$1" in
        --quick) MODE=quick C1_COUNT=2000 C64_COUNT=10000 H2_COUNT=4000 STREAMS=1000 WRK_SECONDS=2 PAUSE=0.3 ;;
        --rounds) ROUNDS=${2:?} ROUNDS_GIVEN=1; shift ;;
        --clients) CLIENTS=${2//,/ } SUBSET=1; shift ;;
        --scenarios) SCENARIOS=${2//,/ } SUBSET=1; shift ;;
        --no-build) SKIP_BUILD=1 ;;
        --callgrind) CALLGRIND=1 ;;
        --syscalls) SYSCALLS=1 ;;
        -h | --help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) die "unknown option $1 (see --help)" ;;
    esac
    shift
done
if [ "$MODE" = quick ] && [ "$ROUNDS_GIVEN" = 0 ]; then ROUNDS=1; fi
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

# The code measured: the commit, "+dirty" when files other than the harness's own output
# differ from it. Read before the build, so that later edits cannot slip in unnamed.
source_commit() {
    local commit
    commit=$(git -C "$HERE/.." rev-parse --short HEAD 2>/dev/null) || { echo "unknown (not a git checkout)"; return 0; }
    if [ -n "$(git -C "$HERE/.." status --porcelain -- . ':(exclude)Benchmarks/.run' \
        ':(exclude)Benchmarks/results' ':(exclude)docs/benchmarks.md' 2>/dev/null)" ]; then
        commit+="+dirty"
    fi
    echo "$commit"
}
COMMIT=$(source_commit)
log "measuring commit $COMMIT"

if [ "$CALLGRIND" = 1 ]; then
    ensure_tools valgrind
elif [ "$SYSCALLS" = 1 ]; then
    ensure_tools strace
else
    ensure_tools
fi
build_c_tools
build_swift
# The verdict rule and the round pairing, checked on fixed inputs before anything is measured.
"$SWIFT_BIN/bench-report" --self-test >&2 || die "bench-report's self-test failed: its verdicts cannot be trusted"
make_certificates
make_data
start_nginx
check_nginx

# The clients of `active` that can run scenario $1, rotated by round $2 (from 1): one row of a
# cyclic Latin square per scenario, so over a multiple of their number of rounds each client
# takes each place equally often.
scenario_order() {
    local scenario=$1 round=$2 client runnable=()
    for client in "${active[@]}"; do
        [ -n "$(na_reason "$client" "$scenario")" ] || runnable+=("$client")
    done
    [ ${#runnable[@]} -gt 0 ] || return 0
    local shift_by=$(((round - 1) % ${#runnable[@]}))
    echo "${runnable[@]:$shift_by}" "${runnable[@]:0:$shift_by}"
}

# The mode line: rounds, and the scenarios whose places are not balanced by them.
mode_line() {
    local scenario order unbalanced=() line
    for scenario in $SCENARIOS; do
        read -ra order <<<"$(scenario_order "$scenario" 1)"
        if [ ${#order[@]} -gt 1 ] && [ $((ROUNDS % ${#order[@]})) != 0 ]; then
            unbalanced+=("$scenario (${#order[@]})")
        fi
    done
    line="$MODE: $ROUNDS round(s); each scenario's client order rotates by one place per round (cyclic Latin square)"
    if [ ${#unbalanced[@]} -gt 0 ]; then
        local joined
        joined=$(printf '%s, ' "${unbalanced[@]}")
        line+="; $ROUNDS is not a multiple of the client count of ${joined%, }, so there the clients do not take each place equally often"
    fi
    echo "$line"
}

# Facts about the run, for the report. `complete` is "yes" only for every client and scenario.
write_meta() {
    local cpu mem complete=no
    cpu=$(awk -F': ' '/^model name/ {print $2; exit}' /proc/cpuinfo)
    mem=$(awk '/^MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo)
    [ "$SUBSET" = 0 ] && complete=yes
    jq -n --arg date "$(date -u '+%Y-%m-%d %H:%M UTC')" \
        --arg commit "$COMMIT" \
        --arg machine "$(nproc) cores ($cpu), $mem RAM" \
        --arg kernel "$(uname -sr)" \
        --arg versions "$(swift --version 2>&1 | head -1 | sed 's/ (swift.*//'); AsyncHTTPClient 1.37.0; $(curl --version | head -1 | cut -d' ' -f1-2) (libcurl $(curl --version | head -1 | sed 's/.*libcurl\/\([^ ]*\).*/\1/')); $(wrk -v 2>&1 | head -1 | cut -d' ' -f1-2); nginx $(nginx -v 2>&1 | sed 's/.*\///')" \
        --arg mode "$(mode_line)" \
        --arg complete "$complete" \
        --arg counts "small-c1 $C1_COUNT, small-c64 $C64_COUNT, h2-c64 $H2_COUNT, download $BIG_MIB MiB, upload $UPLOAD_MIB MiB, many-streams $STREAMS, wrk ${WRK_SECONDS}s per run" \
        --arg nginx "1 worker process on 127.0.0.1 (client and server share the 2 cores), sendfile, keepalive_requests 100000, TLS 1.3 ECDSA P-256 with HTTP/2" \
        --arg limits "every client opens at most as many connections as requests in flight (1, 64, or the streams of many-streams); conns in the tables is what nginx's stub_status counted" \
        '{date:$date, commit:$commit, machine:$machine, kernel:$kernel, versions:$versions, mode:$mode,
          complete:$complete, counts:$counts, nginx:$nginx, limits:$limits}' \
        >"$RUN/meta.json"
}

# Copies the latest tables into docs/benchmarks.md between its markers, for full runs of
# every client and scenario only (a quick or partial run never replaces the published table).
update_docs() {
    local doc="$HERE/../docs/benchmarks.md"
    [ -f "$doc" ] && grep -q '<!-- latest-results:begin -->' "$doc" || return 0
    jq -e '(.meta.mode | startswith("full")) and .meta.complete == "yes"' "$RESULTS_DIR/latest.json" \
        >/dev/null || return 0
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

ROUNDS_FILE="$RUN/rounds.jsonl"
report() {
    local args=(--meta "$RUN/meta.json" --markdown "$RESULTS_DIR/latest.md" --json "$RESULTS_DIR/latest.json")
    [ -f "$RESULTS_DIR/callgrind.jsonl" ] && args+=(--callgrind "$RESULTS_DIR/callgrind.jsonl")
    [ -f "$RESULTS_DIR/syscalls.jsonl" ] && args+=(--syscalls "$RESULTS_DIR/syscalls.jsonl")
    [ -f "$ROUNDS_FILE" ] && args+=(--rounds "$ROUNDS_FILE")
    "$SWIFT_BIN/bench-report" --results "$RESULTS" "${args[@]}"
}

# Re-renders the latest tables with new counts, keeping the last run's figures, rounds and meta.
rerender_latest() {
    [ -f "$RESULTS_DIR/latest.json" ] || return 0
    jq -c '.runs[]' "$RESULTS_DIR/latest.json" >"$RUN/previous.jsonl"
    jq '.meta' "$RESULTS_DIR/latest.json" >"$RUN/meta.json"
    jq -c '(.rounds // [])[]' "$RESULTS_DIR/latest.json" >"$ROUNDS_FILE"
    RESULTS="$RUN/previous.jsonl" report >/dev/null
    log "results/latest.md now includes the $1 counts"
    update_docs
}

if [ "$CALLGRIND" = 1 ] || [ "$SYSCALLS" = 1 ]; then
    if [ "$CALLGRIND" = 1 ]; then run_callgrind; rerender_latest callgrind; fi
    if [ "$SYSCALLS" = 1 ]; then run_syscalls; rerender_latest strace; fi
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
: >"$ROUNDS_FILE"
for client in $CLIENTS; do
    if [[ " ${active[*]} " != *" $client "* ]]; then
        for scenario in $SCENARIOS; do emit_status "$client" "$scenario" error "the client did not build"; done
    fi
done
started=$(date +%s)
for round in $(seq "$ROUNDS"); do
    read -r load1 load5 load15 _ </proc/loadavg
    orders='{}'
    for scenario in $SCENARIOS; do
        read -ra order <<<"$(scenario_order "$scenario" "$round")"
        orders=$(jq -c --arg s "$scenario" '.[$s] = $ARGS.positional' --args "${order[@]}" <<<"$orders")
    done
    jq -cn --argjson r "$round" --argjson l1 "$load1" --argjson l5 "$load5" --argjson l15 "$load15" \
        --argjson o "$orders" '{round:$r, load_1m:$l1, load_5m:$l5, load_15m:$l15, orders:$o}' >>"$ROUNDS_FILE"
    log "round $round of $ROUNDS (load $load1 $load5 $load15)"
    for scenario in $SCENARIOS; do
        read -ra order <<<"$(scenario_order "$scenario" "$round")"
        [ ${#order[@]} -eq 0 ] || log "  $scenario order: ${order[*]}"
        position=0
        for client in "${order[@]}"; do
            position=$((position + 1))
            run_one "$client" "$scenario" "$round" "$position"
        done
        # The clients that cannot run the scenario: one n/a line each, for the tables.
        for client in "${active[@]}"; do
            [[ " ${order[*]} " == *" $client "* ]] || run_one "$client" "$scenario" "$round" 0
        done
    done
done
log "measured in $(($(date +%s) - started)) s"
report
if [ "$MODE" = full ] && [ "$SUBSET" = 0 ]; then update_docs; fi
