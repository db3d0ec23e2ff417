# shellcheck shell=bash
# System calls per request of small-c1 under `strace -f -c`. Sourced by run.sh.
#
# Each client runs twice, with SC_SHORT and SC_LONG sequential requests (no warm-up); the
# difference of the two counts of every system call divided by the difference of the requests
# cancels start-up and shutdown, as callgrind.sh does for instructions. strace slows every
# system call down, so contended locks can take a different path (more or fewer futex calls)
# than at full speed, and how often a poll or a read comes back empty depends on timing:
# repeated runs differ by up to about one call per request.

SC_SHORT=200
SC_LONG=10200

# Runs `binary` under strace for `count` requests and prints "name calls" per system call,
# with a "total" line.
strace_counts() { # binary count out-file [extra args]
    local binary=$1 count=$2 out=$3
    shift 3
    timeout 1200 strace -f -c -o "$out" "$binary" --scenario small-c1 \
        --url "http://127.0.0.1:$HTTP_PORT/small" --count "$count" --concurrency 1 --warmup 0 "$@" \
        >"$out.stdout" 2>"$out.stderr" || return 1
    grep -m1 '^{' "$out.stdout" | jq -e '.status == "ok"' >/dev/null || return 1
    # Rows between the two dashed rules: % time, seconds, usecs/call, calls, [errors], name.
    awk '/^-+ / { rule++; next } rule >= 1 && NF >= 5 { print $NF, $4 }' "$out"
}

run_syscalls() {
    local out="$RESULTS_DIR/syscalls.jsonl" dir="$RUN/strace" client binary
    local requests=$((SC_LONG - SC_SHORT))
    mkdir -p "$dir"
    : >"$out"
    local -a extra
    for client in curlew curlew-exec rawcurl ahc; do
        if count_binary "$client"; then
            binary=$COUNT_BINARY extra=("${COUNT_EXTRA[@]}")
        else
            loud "strace: $client did not build; skipped"
            jq -cn --arg c "$client" '{client:$c, requests:0, note:"did not build"}' >>"$out"
            continue
        fi
        log "strace: $client, $SC_SHORT then $SC_LONG sequential requests"
        if strace_counts "$binary" "$SC_SHORT" "$dir/$client-short.out" "${extra[@]}" >"$dir/$client-short.txt" &&
            strace_counts "$binary" "$SC_LONG" "$dir/$client-long.out" "${extra[@]}" >"$dir/$client-long.txt" &&
            grep -q '^total ' "$dir/$client-long.txt"; then
            jq -cn --arg c "$client" --argjson n "$requests" --arg d "$(date -u '+%Y-%m-%d')" \
                --arg commit "$COMMIT" --rawfile short "$dir/$client-short.txt" \
                --rawfile long "$dir/$client-long.txt" '
                def counts: split("\n") | map(select(length > 0) | split(" ") | {(.[0]): (.[1] | tonumber)}) | add // {};
                ($short | counts) as $s | ($long | counts) as $l
                | ([$l, $s] | map(keys[]) | unique | map(select(. != "total"))) as $names
                | {client:$c, requests:$n,
                   syscalls_per_request:((($l.total // 0) - ($s.total // 0)) / $n),
                   per_request:(reduce $names[] as $k ({};
                       ((($l[$k] // 0) - ($s[$k] // 0)) / $n) as $v
                       | if ($v | fabs) >= 0.001 then .[$k] = ($v * 1000 | round / 1000) else . end)),
                   note:"\($d) at \($commit): (\($l.total) − \($s.total)) calls / \($n)"}' >>"$out"
        else
            jq -cn --arg c "$client" --arg e "$(tail -c 200 "$dir/$client-long.out.stderr" 2>/dev/null)" \
                '{client:$c, requests:0, note:("failed: " + $e)}' >>"$out"
        fi
        tail -1 "$out" | jq -c '{client, syscalls_per_request, per_request}' >&2
    done
}
