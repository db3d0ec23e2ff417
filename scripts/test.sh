#!/usr/bin/env bash
# Installs what the tests need, then runs the whole suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --tests
swift build --build-tests
swift test --skip-build "$@"
