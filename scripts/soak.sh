#!/usr/bin/env bash
# A soak run of Curlew against the in-process test server. Usage:
#
#   scripts/soak.sh MINUTES [--concurrency N] [--seed S]
#
# Builds Soak/ (a separate package that depends on the root package by path, like Benchmarks/)
# and runs `curlew-soak`: N requests in flight (default 32) for MINUTES, mixing small GETs,
# /delay/50, POSTs with bodies, `bytes` streams (read to the end, or dropped after one chunk),
# uploads (in memory, streamed, from a temporary file), downloads to temporary files (checked
# and deleted), request.cancel() and task cancellation in flight, and the fault routes
# /fault/close-mid-body, /fault/reset-after-head, /coded?coding=gzip&cut=16, /status/500.
#
# Every minute it prints completions, outcomes by CurlewError.kind, RSS, threads and open file
# descriptors (from /proc/self). It fails (exit 1, last line `VERDICT: FAIL …`) on a lost or
# duplicated completion (per request id, in its own ledger and in Curlew's EventMonitor hooks),
# an unexpected outcome, or growth of memory, threads or descriptors beyond the bounds it prints
# at the start. Soak/Sources/CurlewSoak/main.swift has the details; docs/SOAK.md the last run.
#
# Built in debug mode (what the tests run); CURLEW_SOAK_CONFIGURATION=release for release.
# Run it under `nice -n 10` on a shared machine.
set -euo pipefail
cd "$(dirname "$0")/.."

if (( $# < 1 )); then
    echo "usage: $0 MINUTES [--concurrency N] [--seed S]" >&2
    exit 2
fi

scripts/install-deps.sh --tests
configuration="${CURLEW_SOAK_CONFIGURATION:-debug}"
(cd Soak && swift build -c "$configuration" --product curlew-soak)
binary="$(cd Soak && swift build -c "$configuration" --show-bin-path)/curlew-soak"
# The soak bounds its own time; this only stops a process that no longer ends by itself.
minutes="$1"
limit=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 + 300 }')
exec timeout --signal=KILL "$limit" "$binary" "$@"
