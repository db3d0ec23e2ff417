#!/usr/bin/env bash
# Installs what the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/swiftpm-tmp.sh
source scripts/swiftpm-tmp.sh
scripts/install-deps.sh --tests
# Tests start processes only through TestServer's SpawnedProcess / ChildProcess: Foundation's
# Process crashed the test process in parallel runs (see SpawnedProcess.swift).
if grep -rnE '(^|[^A-Za-z])(Process\(\)|Process\.run\(|Pipe\(\))' Tests --include='*.swift' \
    | grep -vE '^[^:]+:[0-9]+:[[:space:]]*//' | grep -v '^Tests/TestServer/ChildProcess.swift:'; then
    echo "error: use ChildProcess / SpawnedProcess (Tests/TestServer) instead of Foundation's Process" >&2
    exit 1
fi
# No parallel test bounds elapsed time: it would fail on a busy machine (see the script).
python3 scripts/check-test-clocks.py Tests
swift build --build-tests
# The public API as committed in docs/api (scripts/api-dump.sh): a change to it shows in review.
scripts/api-dump.sh --check
# Tests whose names contain "Memory" measure the resident memory of the test process, which
# every test shares, those with "Threads" count the process's threads, which every session adds
# to, those with "Descriptors" count the process's open descriptors, and those with "Timing"
# hold a drip against a time limit; they run afterwards, one at a time, so no other test's
# allocations, sessions, descriptors or load count.
# The tests run with proxies exported to a dead address: every test talks to loopback servers,
# which Curlew never sends through an environment proxy, and the tools the tests start get an
# environment without them. A test that leaks through a proxy fails here, not on a user's machine.
export http_proxy=http://127.0.0.1:9 https_proxy=http://127.0.0.1:9 all_proxy=socks5://127.0.0.1:9
swift test --skip-build --skip 'Memory|Timing|Threads|Descriptors' "$@"
swift test --skip-build --no-parallel --filter 'Memory|Timing|Threads|Descriptors' "$@"
# The documentation (DocC, both modules) builds without a warning; its snippets were compiled
# by the build above. About 30 s on top of a built tree.
scripts/docs.sh
