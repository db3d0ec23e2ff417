#!/usr/bin/env bash
# Runs the Autobahn test suite (autobahntestsuite 0.8.2, Python 2.7 under pyenv) against Curlew's
# WebSocket client: starts its fuzzing server on 127.0.0.1:9001, runs the client driver
# (Tests/CurlewTests/AutobahnClientTests.swift, skipped by a plain `swift test`) over every case
# of 1.* to 13.*, then summarizes reports/clients/index.json. Installs the suite when missing.
# With --write, the summary also replaces docs/autobahn.md. Takes several minutes.
# Usage: scripts/autobahn.sh [--write] [case pattern, default "*"]
set -euo pipefail
cd "$(dirname "$0")/.."
write=false
if [[ "${1:-}" == "--write" ]]; then write=true; shift; fi
cases="${1:-*}"
export PYENV_VERSION=2.7.18
if ! python -c 'import autobahntestsuite' 2>/dev/null; then
    # Twisted and friends pinned by the suite's own requirements resolve on Python 2.7 as they are.
    python -m pip install --user --quiet autobahntestsuite==0.8.2
fi
wstest="$(python -c 'import site; print(site.USER_BASE)')/bin/wstest"
work=$(mktemp -d "${TMPDIR:-/tmp}/curlew-autobahn.XXXXXX")
server=""
cleanup() {
    if [[ -n "$server" ]]; then kill "$server" 2>/dev/null || true; wait "$server" 2>/dev/null || true; fi
    rm -rf "$work"
}
trap cleanup EXIT
cat >"$work/spec.json" <<SPEC
{"url": "ws://127.0.0.1:9001", "outdir": "$work/reports/clients", "cases": ["$cases"],
 "exclude-cases": [], "exclude-agent-cases": {}}
SPEC
(cd "$work" && exec python "$wstest" -m fuzzingserver -s spec.json >"$work/server.log" 2>&1) &
server=$!
for _ in $(seq 1 300); do
    if (exec 3<>/dev/tcp/127.0.0.1/9001) 2>/dev/null; then break; fi
    if ! kill -0 "$server" 2>/dev/null; then cat "$work/server.log" >&2; exit 1; fi
    sleep 0.2
done
unset PYENV_VERSION
swift build --build-tests 2>&1 | grep -E 'error|warning: ' | grep -v 'unhandled; explicitly declare' || true
# A copy of the test binary runs, not `swift test`: SwiftPM would hold the build folder's lock for
# the run's minutes, and a rebuild meanwhile could not replace a running binary.
cp "$(swift build --show-bin-path)/CurlewPackageTests.xctest" "$work/"
CURLEW_AUTOBAHN_URL=ws://127.0.0.1:9001 "$work/CurlewPackageTests.xctest" --testing-library swift-testing \
    --filter AutobahnClientTests >"$work/client.log" 2>&1 || { tail -20 "$work/client.log" >&2; }
summary=$(python3 scripts/autobahn-summary.py "$work/reports/clients/index.json")
echo "$summary"
if $write; then echo "$summary" >docs/autobahn.md; fi
# Fails when any case FAILED (the summary's last line says how many).
! grep -q '^FAILED cases: [1-9]' <<<"$summary"
