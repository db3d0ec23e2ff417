#!/usr/bin/env bash
# Runs the parallel test phase (everything but the Memory and Timing tests) RUNS times and counts crashes:
# runs that ended by a signal (status >= 128) or whose output reports one. Does not build.
#
#   scripts/parallel-runs.sh [RUNS] [--load] [--binary PATH]
#
# --load       keeps one niced busy loop running beside the tests (more scheduling variety).
# --binary     runs a copied test binary directly (e.g. one built before a change) instead of
#              `swift test --skip-build`.
# Logs go to .build/parallel-runs/ (one file per run); a summary line per run is printed.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=20
load=false
binary=""
while (($#)); do
    case "$1" in
        --load) load=true ;;
        --binary) binary="$2"; shift ;;
        *) runs="$1" ;;
    esac
    shift
done

# The tests need what scripts/test.sh installs (nginx, tinyproxy, microsocks, …) and the
# proxies it exports to a dead address.
scripts/install-deps.sh --tests >/dev/null
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 all_proxy=socks5://127.0.0.1:9

logs=.build/parallel-runs
mkdir -p "$logs"
burner=""
if $load; then
    nice -n 19 sh -c 'while :; do :; done' &
    burner=$!
    trap 'kill "$burner" 2>/dev/null' EXIT
fi

crashes=0
failures=0
for ((run = 1; run <= runs; run++)); do
    log="$logs/run-$run.log"
    start=$(date +%s)
    if [[ -n "$binary" ]]; then
        "$binary" --testing-library swift-testing --skip 'Memory|Timing|Threads|Descriptors' >"$log" 2>&1
    else
        swift test --skip-build --skip 'Memory|Timing|Threads|Descriptors' >"$log" 2>&1
    fi
    status=$?
    seconds=$(($(date +%s) - start))
    verdict=passed
    if ((status >= 128)) || grep -qE "Signal [0-9]+|Fatal error|Program crashed|exited with unexpected signal" "$log"; then
        verdict="CRASHED (status $status)"
        crashes=$((crashes + 1))
    elif ((status != 0)); then
        verdict="failed (status $status)"
        failures=$((failures + 1))
    fi
    echo "run $run: $verdict in ${seconds}s"
done
echo "runs: $runs, crashes: $crashes, other failures: $failures (logs in $logs)"
