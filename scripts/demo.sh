#!/usr/bin/env bash
# Installs what Curlew needs, then runs the tour: an embedded local server, an awaited JSON
# value, a download with a live progress line, and the event stream of a request. No internet.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/swiftpm-tmp.sh
source scripts/swiftpm-tmp.sh
scripts/install-deps.sh
cd Examples
swift run Tour
