#!/usr/bin/env bash
# Runs the parallel phase of the suite N times (default 10) while the CPU is oversubscribed, and
# prints each run's result: the check that the suite holds on a busy machine (a contributor's
# laptop with builds beside it, a shared CI runner).
#
# Usage: scripts/stress-tests.sh [RUNS] [-- extra `swift test` arguments]
#   STRESS_WORKERS  CPU workers of stress-ng beside the tests (default: 2 per core)
#
# Installs stress-ng when it is missing. Builds the tests once, then for each run starts the
# load, runs `swift test --skip-build --skip 'Memory|Timing|Threads|Descriptors'` with the same
# environment as scripts/test.sh, stops the load, and prints `run K: passed|FAILED (N s)` with
# the names of failed tests. The logs are kept in a temporary folder whose path is printed, and
# removed when every run passed. Exits 1 when any run failed.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/swiftpm-tmp.sh
source scripts/swiftpm-tmp.sh

runs=${1:-10}
[[ $# -gt 0 ]] && shift
[[ "${1:-}" == "--" ]] && shift
workers=${STRESS_WORKERS:-$(( 2 * $(nproc) ))}

scripts/install-deps.sh --tests
if ! command -v stress-ng >/dev/null; then
    sudo=""
    [[ $(id -u) -ne 0 ]] && sudo="sudo"
    DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends stress-ng
fi
swift build --build-tests

export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 all_proxy=socks5://127.0.0.1:9
logs=$(mktemp -d "${TMPDIR:-/tmp}/curlew-stress.XXXXXX")
failed=0
echo "$runs runs of the parallel phase beside $workers stress-ng CPU workers on $(nproc) cores; logs in $logs"
for run in $(seq 1 "$runs"); do
    stress-ng --cpu "$workers" --quiet &
    load=$!
    started=$(date +%s)
    if swift test --skip-build --skip 'Memory|Timing|Threads|Descriptors' "$@" >"$logs/run-$run.log" 2>&1; then
        result=passed
    else
        result=FAILED
        failed=$((failed + 1))
    fi
    kill "$load" 2>/dev/null || true
    wait "$load" 2>/dev/null || true
    summary=$(grep -E '^✔ Test run|^✘ Test run' "$logs/run-$run.log" | tail -1 || true)
    echo "run $run: $result ($(( $(date +%s) - started )) s) $summary"
    if [[ $result == FAILED ]]; then
        grep -E '^✘ Test [^r]' "$logs/run-$run.log" | grep -v 'recorded an issue' | sed 's/^/    /' | head -20 || true
    fi
done
echo "$((runs - failed)) of $runs runs passed under load"
if (( failed == 0 )); then
    rm -rf "$logs"
else
    echo "logs: $logs"
    exit 1
fi
