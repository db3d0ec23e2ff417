#!/usr/bin/env bash
# Builds the DocC documentation of Curlew, CurlewXML and CurlewTesting (Sources/*/*.docc, with the compiled
# snippets of Snippets/) and fails on any DocC warning: an unresolved ``symbol`` link, a missing
# snippet or slice, an undocumented parameter. The archives go to
# .build/plugins/Swift-DocC/outputs/{Curlew,CurlewXML}.doccarchive.
#   scripts/docs.sh            build the archives
#   scripts/docs.sh --preview  then serve Curlew's on http://localhost:8080 (Ctrl-C to stop)
set -euo pipefail
cd "$(dirname "$0")/.."
# The plugin's and the compiler's scratch folders go under .build, not the system's /tmp.
export TMPDIR="$PWD/.build/docs-tmp"
mkdir -p "$TMPDIR"
trap 'rm -rf "$TMPDIR"' EXIT
swift package --disable-sandbox generate-documentation \
    --target Curlew --target CurlewXML --target CurlewTesting --warnings-as-errors
if [[ "${1:-}" == "--preview" ]]; then
    swift package --disable-sandbox preview-documentation --target Curlew
fi
