# shellcheck shell=bash
# Runs one client in one scenario and appends one JSON result line to $RESULTS.
# Sourced by run.sh. The Swift clients and the C ceiling print their own line; for the curl
# CLI and wrk the line is built here from runstat's wall/CPU/RSS figures and their output.
# run_one then adds the round, the client's place in it, the load average before the run and
# the connections nginx accepted from the client during it.

# Which clients can run which scenario; anything else is recorded as n/a with the reason.
na_reason() {
    local client=$1 scenario=$2
    case "$client:$scenario" in
        wrk:small-c1 | wrk:small-c64) ;;
        wrk:h2-c64) echo "wrk has no HTTP/2" ;;
        wrk:*) echo "wrk is the ceiling for small requests only" ;;
        curl:many-streams) echo "curl --parallel caps concurrency at 300" ;;
        rawcurl:download-file | rawcurl:upload) echo "the C loop is the ceiling for requests; curl CLI is the transfer reference" ;;
        curlew-exec:download-file | curlew-exec:upload | curlew-exec:many-streams)
            echo "the same as Curlew: the body moves on the session thread either way" ;;
        urlsession:h2-c64) echo "FoundationNetworking on Linux cannot trust a custom CA (no server-trust challenge; its CA-file variable is Android-only)" ;;
    esac
}

# Scenario parameters: URL, count, concurrency, warm-up, extra flags.
scenario_params() {
    local scenario=$1
    local http="http://127.0.0.1:$HTTP_PORT" tls="https://127.0.0.1:$TLS_PORT"
    P_CACERT="" P_FILE=""
    case "$scenario" in
        small-c1) P_URL="$http/small" P_COUNT=$C1_COUNT P_CONC=1 P_WARM=200 ;;
        small-c64) P_URL="$http/small" P_COUNT=$C64_COUNT P_CONC=64 P_WARM=640 ;;
        h2-c64) P_URL="$tls/small" P_COUNT=$H2_COUNT P_CONC=64 P_WARM=640 P_CACERT="$RUN/tls/ca.pem" ;;
        download-stream) P_URL="$http/big" P_COUNT=1 P_CONC=1 P_WARM=0 ;;
        download-file) P_URL="$http/big" P_COUNT=1 P_CONC=1 P_WARM=0 P_FILE="$RUN/download.bin" ;;
        upload) P_URL="$http/upload" P_COUNT=1 P_CONC=1 P_WARM=0 P_FILE="$RUN/upload.bin" ;;
        many-streams) P_URL="$http/slow" P_COUNT=$STREAMS P_CONC=$STREAMS P_WARM=0 ;;
    esac
}

emit() { echo "$1" >>"$RESULTS"; }

emit_status() { # client scenario status note
    emit "$(jq -cn --arg c "$1" --arg s "$2" --arg st "$3" --arg n "$4" \
        '{client:$c, scenario:$s, status:$st, note:$n}')"
}

# Runs a binary that prints its own result line; checks sizes the binary cannot know.
run_self_reporting() {
    local client=$1 scenario=$2 binary=$3 out="$RUN/out.json" err="$RUN/err.txt"
    local args=(--scenario "$scenario" --url "$P_URL" --count "$P_COUNT" --concurrency "$P_CONC"
        --warmup "$P_WARM")
    [ -n "$P_CACERT" ] && args+=(--cacert "$P_CACERT")
    [ "$client" = rawcurl ] && [ "$scenario" = h2-c64 ] && args+=(--h2)
    # The curl CLI's own receive buffer size (100 KiB), so the C loop is its equal on downloads.
    [ "$client" = rawcurl ] && [ "$scenario" = download-stream ] && args+=(--buffer-size 102400)
    [ -n "$P_FILE" ] && [ "$client" != rawcurl ] && args+=(--file "$P_FILE")
    [ "$client" = curlew-exec ] && args+=(--executor session)
    local code=0
    timeout "$CLIENT_TIMEOUT" "$binary" "${args[@]}" >"$out" 2>"$err" || code=$?
    local line
    line=$(grep -m1 '^{' "$out" || true)
    if [ -z "$line" ] || ! jq -e . >/dev/null 2>&1 <<<"$line"; then
        local why="exit $code"
        [ "$code" = 124 ] && why="timed out after ${CLIENT_TIMEOUT}s"
        emit_status "$client" "$scenario" error "$why: $(tail -c 300 "$err" | tr '\n' ' ')"
        return
    fi
    emit "$(verify_bytes "$line")"
}

# Marks a result as an error when the bytes moved are not the file's size.
verify_bytes() {
    local line=$1 expected=""
    case "$P_URL" in
        */big) expected=$BIG_BYTES ;;
        */upload) expected=$UPLOAD_BYTES ;;
    esac
    if [ -n "$expected" ] && [ "$(jq -r .status <<<"$line")" = ok ]; then
        local got
        got=$(jq -r '.bytes // 0' <<<"$line")
        if [ "$got" != "$expected" ]; then
            line=$(jq -c --arg n "moved $got bytes, expected $expected" '.status="error" | .note=$n' <<<"$line")
        fi
    fi
    if [ -n "$P_FILE" ] && [ "$P_URL" = "${P_URL%/upload}" ]; then
        local size
        size=$(stat -c %s "$P_FILE" 2>/dev/null || echo 0)
        [ "$size" = "$BIG_BYTES" ] ||
            line=$(jq -c --arg n "the downloaded file has $size bytes" '.status="error" | .note=$n' <<<"$line")
        rm -f "$P_FILE"
        sync # so that the next client does not pay for this one's writeback
    fi
    echo "$line"
}

# Writes a curl config file of $1 GETs of $2 (cached per count and URL).
curl_config() {
    local count=$1 url=$2 file="$RUN/curl-$1-$(echo "$2" | tr -c 'a-z0-9' '_').conf"
    if [ ! -f "$file" ]; then
        awk -v n="$count" -v u="$url" 'BEGIN { for (i = 0; i < n; i++) printf "url = \"%s\"\noutput = \"/dev/null\"\n", u }' >"$file"
    fi
    echo "$file"
}

# The curl CLI: one process per scenario run; latencies from -w per transfer.
run_curl() {
    local client=curl scenario=$1 stat="$RUN/stat.txt" out="$RUN/curl-out.txt" err="$RUN/err.txt"
    local args=(-s -S --no-progress-meter)
    local kind=requests
    case "$scenario" in
        small-c1) args+=(--config "$(curl_config "$P_COUNT" "$P_URL")") ;;
        small-c64) args+=(--parallel --parallel-immediate --parallel-max 64 --config "$(curl_config "$P_COUNT" "$P_URL")") ;;
        h2-c64) args+=(--http2 --cacert "$P_CACERT" --parallel --parallel-max 64 --config "$(curl_config "$P_COUNT" "$P_URL")") ;;
        download-stream) kind=bytes args+=(-o /dev/null "$P_URL") ;;
        download-file) kind=bytes args+=(-o "$P_FILE" "$P_URL") ;;
        upload) kind=bytes args+=(-T "$P_FILE" -o /dev/null "$P_URL") ;;
    esac
    local code=0
    timeout "$CLIENT_TIMEOUT" "$RUN/bin/runstat" "$stat" curl "${args[@]}" \
        -w '%{http_code} %{time_total} %{size_download} %{size_upload}\n' >"$out" 2>"$err" || code=$?
    if [ ! -s "$stat" ] || [ "$code" != 0 ]; then
        emit_status curl "$scenario" error "exit $code: $(tail -c 300 "$err" | tr '\n' ' ')"
        rm -f "$stat"
        return
    fi
    local wall cpu rss
    read -r wall cpu rss _ <"$stat"
    rm -f "$stat"
    local failed ok
    failed=$(awk '$1 !~ /^2/' "$out" | wc -l)
    ok=$(awk '$1 ~ /^2/' "$out" | wc -l)
    if [ "$kind" = requests ]; then
        local p50 p99
        read -r p50 p99 < <(awk '$1 ~ /^2/ {print $2}' "$out" | sort -g | awk '{v[NR]=$1}
            END { i50=int(NR*0.5+0.999999); i99=int(NR*0.99+0.999999); printf "%.4f %.4f\n", v[i50]*1000, v[i99]*1000 }')
        emit "$(jq -cn --arg s "$scenario" --argjson n "$P_COUNT" --argjson c "$P_CONC" \
            --argjson wall "$wall" --argjson cpu "$cpu" --argjson rss "$rss" --argjson ok "$ok" \
            --argjson failed "$failed" --argjson p50 "$p50" --argjson p99 "$p99" \
            '{client:"curl", scenario:$s, status:(if $failed > 0 then "error" else "ok" end),
              count:$n, concurrency:$c, seconds:$wall, req_per_s:($ok/$wall), p50_ms:$p50,
              p99_ms:$p99, cpu_s_per_1000:($cpu/$n*1000), peak_rss_kib:$rss, errors:$failed,
              note:"one curl process; wall time includes its start and config parsing"}')"
    else
        local bytes
        bytes=$(awk '{ if ($4 > $3) print $4; else print $3 }' "$out" | tail -1)
        emit "$(verify_bytes "$(jq -cn --arg s "$scenario" --argjson wall "$wall" --argjson cpu "$cpu" \
            --argjson rss "$rss" --argjson bytes "${bytes%.*}" --argjson failed "$failed" \
            '{client:"curl", scenario:$s, status:(if $failed > 0 then "error" else "ok" end), count:1,
              seconds:$wall, bytes:$bytes, mb_per_s:($bytes/1e6/$wall), cpu_s_per_1000:($cpu*1000),
              peak_rss_kib:$rss, errors:$failed}')")"
    fi
}

# wrk: duration-based, one thread (nginx has the other core), latency from its Lua hook.
run_wrk() {
    local scenario=$1 stat="$RUN/stat.txt" out="$RUN/wrk-out.txt" err="$RUN/err.txt" code=0
    timeout "$CLIENT_TIMEOUT" "$RUN/bin/runstat" "$stat" wrk -t1 -c"$P_CONC" -d"${WRK_SECONDS}s" \
        -s "$HERE/scripts/wrk-report.lua" "$P_URL" >"$out" 2>"$err" || code=$?
    local summary
    summary=$(sed -n 's/^WRKJSON //p' "$out")
    if [ "$code" != 0 ] || [ -z "$summary" ] || [ ! -s "$stat" ]; then
        emit_status wrk "$scenario" error "exit $code: $(tail -c 300 "$err" | tr '\n' ' ')"
        rm -f "$stat"
        return
    fi
    local wall cpu rss
    read -r wall cpu rss _ <"$stat"
    rm -f "$stat"
    emit "$(jq -c --arg s "$scenario" --argjson c "$P_CONC" --argjson cpu "$cpu" --argjson rss "$rss" \
        '{client:"wrk", scenario:$s, status:(if .errors > 0 then "error" else "ok" end),
          count:.requests, concurrency:$c, seconds:(.duration_us/1e6),
          req_per_s:(.requests/(.duration_us/1e6)), p50_ms:(.p50_us/1000), p99_ms:(.p99_us/1000),
          cpu_s_per_1000:($cpu/.requests*1000), peak_rss_kib:$rss, errors:.errors,
          note:"duration-based run; conns include the one wrk opens to probe the address first"}' <<<"$summary")"
}

# Adds the JSON object $2 to every result line after the first $1 lines.
annotate_results() {
    local keep=$1 extra=$2
    { head -n "$keep" "$RESULTS"; tail -n +"$((keep + 1))" "$RESULTS" | jq -c --argjson x "$extra" '. + $x'; } \
        >"$RESULTS.tmp" && mv "$RESULTS.tmp" "$RESULTS"
}

# run_one CLIENT SCENARIO ROUND POSITION: one run, its result line annotated.
run_one() {
    local client=$1 scenario=$2 round=$3 position=$4 reason lines_before
    reason=$(na_reason "$client" "$scenario")
    if [ -n "$reason" ]; then
        lines_before=$(wc -l <"$RESULTS")
        emit_status "$client" "$scenario" n/a "$reason"
        annotate_results "$lines_before" "{\"round\":$round}"
        return
    fi
    scenario_params "$scenario"
    printf '  %-16s %-11s ' "$scenario" "$client" >&2
    local attempt load accepts_before accepts_after upstream_before upstream_after opened
    for attempt in 1 2; do
        ensure_nginx
        lines_before=$(wc -l <"$RESULTS")
        read -r load _ </proc/loadavg
        accepts_before=$(nginx_accepts) || accepts_before=""
        upstream_before=$(nginx_upstream_connections)
        case "$client" in
            curl) run_curl "$scenario" ;;
            wrk) run_wrk "$scenario" ;;
            rawcurl) run_self_reporting rawcurl "$scenario" "$RUN/bin/rawcurl" ;;
            curlew) run_self_reporting curlew "$scenario" "$SWIFT_BIN/curlew-bench" ;;
            curlew-exec) run_self_reporting curlew-exec "$scenario" "$SWIFT_BIN/curlew-bench" ;;
            ahc) run_self_reporting ahc "$scenario" "$SWIFT_BIN/ahc-bench" ;;
            urlsession) run_self_reporting urlsession "$scenario" "$SWIFT_BIN/urlsession-bench" ;;
        esac
        accepts_after=$(nginx_accepts) || accepts_after=""
        upstream_after=$(nginx_upstream_connections)
        # accepts counts every connection nginx took: the client's, the second stub read's own
        # (the first one's is already in accepts_before) and nginx's own to the upload sink.
        opened=null
        if [ -n "$accepts_before" ] && [ -n "$accepts_after" ]; then
            opened=$((accepts_after - accepts_before - 1 - (upstream_after - upstream_before)))
        fi
        annotate_results "$lines_before" \
            "{\"round\":$round,\"position\":$position,\"load_1m\":$load,\"connections_opened\":$opened}"
        if nginx_alive || [ "$attempt" = 2 ]; then break; fi
        # The server died under this client: its figures mean nothing, so run it again.
        head -n "$lines_before" "$RESULTS" >"$RESULTS.tmp" && mv "$RESULTS.tmp" "$RESULTS"
        loud "nginx stopped during $client $scenario; that attempt is discarded and run again"
    done
    tail -1 "$RESULTS" | jq -r '[.status,
        (if .scenario | test("^(small|h2)") then "\(.req_per_s // 0 | floor) req/s  p99 \(.p99_ms // 0 | . * 1000 | round / 1000) ms"
         elif .scenario == "many-streams" then "\(.rss_per_stream_kib // 0 | . * 10 | round / 10) KiB/stream  \(.mean_in_flight // 0 | floor) open on average  \(.seconds // 0 | floor) s"
         else "\(.mb_per_s // 0 | floor) MB/s  peak \((.peak_rss_kib // 0) / 1024 | floor) MiB" end),
        "conns \(.connections_opened // "?")  load \(.load_1m // "?")",
        (if .status != "ok" then (.note // "")[0:150] else empty end)] | join("  ")' >&2
    # Let sockets in TIME_WAIT and dirty pages settle a little between clients.
    sleep "$PAUSE"
}

# The binary the counting modes (callgrind.sh, syscalls.sh) run for CLIENT, in COUNT_BINARY,
# and its extra arguments, in COUNT_EXTRA; fails (with COUNT_BINARY empty) when it did not build.
# shellcheck disable=SC2034 # COUNT_EXTRA is read by callgrind.sh and syscalls.sh.
count_binary() {
    COUNT_BINARY="" COUNT_EXTRA=()
    case "$1" in
        curlew) if [ "$CURLEW_BUILT" = 1 ]; then COUNT_BINARY="$SWIFT_BIN/curlew-bench"; fi ;;
        curlew-exec)
            if [ "$CURLEW_BUILT" = 1 ]; then COUNT_BINARY="$SWIFT_BIN/curlew-bench"; fi
            COUNT_EXTRA=(--executor session)
            ;;
        ahc) COUNT_BINARY="$SWIFT_BIN/ahc-bench" ;;
        rawcurl) COUNT_BINARY="$RUN/bin/rawcurl" ;;
    esac
    [ -n "$COUNT_BINARY" ] && [ -x "$COUNT_BINARY" ]
}
