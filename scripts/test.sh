#!/usr/bin/env bash
# Installs what the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
# Tests start processes only through TestServer's SpawnedProcess / ChildProcess: Foundation's
# Process crashed the test process in parallel runs (see SpawnedProcess.swift).
if grep -rnE '(^|[^A-Za-z])(Process\(\)|Process\.run\(|Pipe\(\))' Tests --include='*.swift' \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' | grep -v '^Tests/TestServer/ChildProcess.swift:'; then
    echo "error: use ChildProcess / SpawnedProcess (Tests/TestServer) instead of Foundation's Process" >&2
    exit 1
fi
swift build --build-tests
# Tests whose names contain "Memory" measure the resident memory of the test process, which
# every test shares; they run afterwards, one at a time, so no other test's allocations count.
swift test --skip-build --skip Memory "$@"
swift test --skip-build --no-parallel --filter Memory "$@"
