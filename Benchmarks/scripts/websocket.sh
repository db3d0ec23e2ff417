#!/usr/bin/env bash
# 1,000 WebSockets on one Curlew session, each echoing one message, all open at once: memory
# and descriptors per connection, wall and CPU time (issue #32). The server is Python's
# `websockets` (Tests/TestServer/Scripts/websocket_echo_server.py; `scripts/install-deps.sh
# --tests` installs it). Prints one JSON line per round, then the medians.
#
#   Benchmarks/scripts/websocket.sh [CONNECTIONS] [ROUNDS] [on|off]   (permessage-deflate offered)
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
connections=${1:-1000}
rounds=${2:-5}
compression=${3:-on}
cd "$here"
swift build -c release --product websocket-bench >/dev/null
bench="$(swift build -c release --show-bin-path)/websocket-bench"
# Every connection has its socket plus its own multi handle's wakeup pair in libcurl 7.88.
ulimit -n $((connections * 4 + 256))
coproc SERVER { exec python3 "$here/../Tests/TestServer/Scripts/websocket_echo_server.py"; }
read -r _ port <&"${SERVER[0]}"
results=$(mktemp)
trap 'exec {SERVER[1]}>&-; wait "$SERVER_PID" 2>/dev/null || true; rm -f "$results"' EXIT
# One round per process: a second round in the same process would reuse the memory malloc
# kept from the first, and measure nothing.
for round in $(seq 1 "$rounds"); do
    "$bench" --url "ws://127.0.0.1:$port/echo" --connections "$connections" --rounds 1 --compression "$compression" \
        | sed "s/\"round\":1/\"round\":$round/" | tee -a "$results"
done
python3 - "$results" <<'PY'
import json, statistics, sys
rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]
def median(key): return statistics.median(row[key] for row in rows)
per_round = ", ".join("%.1f" % row["kibPerConnection"] for row in rows)
print(f"median of {len(rows)} rounds, {rows[0]['connections']} connections, compression {'on' if rows[0]['compression'] else 'off'}: "
      f"{median('kibPerConnection'):.1f} KiB resident (rounds: {per_round}) "
      f"and {median('descriptorsPerConnection'):.2f} descriptors per connection, "
      f"{median('seconds'):.2f} s wall, {median('cpuSeconds'):.2f} s CPU, "
      f"{max(row['failed'] for row in rows)} failed at most")
PY
