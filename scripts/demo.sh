#!/usr/bin/env bash
# Installs what Curlew needs, then runs the tour: an embedded local server, an awaited JSON
# value, a download with a live progress line, and the event stream of a request. Then the
# `curlew` command-line client against the same embedded server. No internet.
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/swiftpm-tmp.sh
source scripts/swiftpm-tmp.sh
scripts/install-deps.sh
cd Examples
swift run Tour

echo
echo "The curlew command-line client, against the demo server:"
swift build --product DemoServe
swift build --product curlew
bin=$(swift build --show-bin-path)
served=$(mktemp)
"$bin/DemoServe" >"$served" &
server_pid=$!
trap 'kill "$server_pid" 2>/dev/null || true; rm -f "$served"; swiftpm_tmp_cleanup' EXIT
for _ in $(seq 1 300); do
    [ -s "$served" ] && break
    sleep 0.1
done
base=$(head -n 1 "$served")
[ -n "$base" ] || { echo "the demo server did not start" >&2; exit 1; }
run() {
    echo
    echo "\$ curlew $*"
    "$bin/curlew" "$@"
}
run --print=hb --pretty=format "$base/users/42"
run --jq-path 'data.items[1].name' "$base/users"
run -v --pretty=format POST "$base/echo" name=Ann age:=42 X-Demo:yes
run --stream "$base/logs.ndjson"
run --xpath '//item/title/text()' "$base/feed.xml"
run --download --output "${TMPDIR:-/tmp}/curlew-demo.bin" "$base/files/demo.bin?size=2000000&rate=4000000"
rm -f "${TMPDIR:-/tmp}/curlew-demo.bin"
run --curl --bearer secret-token "$base/users/42" page==2
echo
echo "\$ printf 'hello from the terminal\\n' | curlew ws ${base/http:/ws:}/chat?name=demo"
printf 'hello from the terminal\n' | "$bin/curlew" ws "${base/http:/ws:}/chat?name=demo"
