#!/usr/bin/env bash
# Installs what the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
swift build --build-tests
# Tests whose names contain "Memory" measure the resident memory of the test process, which
# every test shares; they run afterwards, one at a time, so no other test's allocations count.
swift test --skip-build --skip Memory "$@"
swift test --skip-build --no-parallel --filter Memory "$@"
