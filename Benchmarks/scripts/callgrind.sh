# shellcheck shell=bash
# Instructions per request of small-c1 under valgrind --tool=callgrind. Sourced by run.sh.
#
# Each client runs twice, with CG_SHORT and CG_LONG requests; the difference of the two
# instruction totals divided by the difference of the counts cancels start-up, TLS-free
# connection set-up and shutdown, leaving the steady-state cost of one request.
#
# Valgrind 3.19 (Debian 12) cannot read the DWARF 5 that Swift 6 emits and gives up, so each
# binary runs from a copy with its debug info stripped (`strip -g`; the symbol table stays,
# so callgrind_annotate still names functions: pipe it through `swift demangle`).

CG_SHORT=200
CG_LONG=2200

callgrind_total() { # binary count out-file [extra args] → total instructions
    local binary=$1 count=$2 out=$3
    shift 3
    timeout 1200 valgrind --tool=callgrind --callgrind-out-file="$out" "$binary" \
        --scenario small-c1 --url "http://127.0.0.1:$HTTP_PORT/small" --count "$count" \
        --concurrency 1 --warmup 0 "$@" >"$out.stdout" 2>"$out.stderr" || return 1
    awk '/^(summary|totals):/ {print $2; exit}' "$out"
}

run_callgrind() {
    local out="$RESULTS_DIR/callgrind.jsonl" dir="$RUN/callgrind" client binary short long
    mkdir -p "$dir"
    : >"$out"
    local -a extra
    for client in curlew curlew-exec ahc rawcurl; do
        if count_binary "$client"; then
            binary=$COUNT_BINARY extra=("${COUNT_EXTRA[@]}")
        else
            loud "callgrind: $client did not build; skipped"
            jq -cn --arg c "$client" '{client:$c, requests:0, note:"did not build"}' >>"$out"
            continue
        fi
        cp "$binary" "$dir/$client-bin" && strip -g "$dir/$client-bin" && binary="$dir/$client-bin"
        log "callgrind: $client, $CG_SHORT then $CG_LONG sequential requests"
        if short=$(callgrind_total "$binary" "$CG_SHORT" "$dir/$client-short.out" "${extra[@]}") &&
            long=$(callgrind_total "$binary" "$CG_LONG" "$dir/$client-long.out" "${extra[@]}") &&
            [ -n "$short" ] && [ -n "$long" ]; then
            jq -cn --arg c "$client" --argjson n $((CG_LONG - CG_SHORT)) --argjson s "$short" \
                --argjson l "$long" --arg d "$(date -u '+%Y-%m-%d')" --arg commit "$COMMIT" \
                '{client:$c, requests:$n, instructions_per_request:(($l - $s) / $n),
                  note:"\($d) at \($commit): (\($l) − \($s)) instructions / \($n)"}' >>"$out"
        else
            jq -cn --arg c "$client" --arg e "$(tail -c 200 "$dir/$client-long.out.stderr" 2>/dev/null)" \
                '{client:$c, requests:0, note:("failed: " + $e)}' >>"$out"
        fi
        tail -1 "$out" >&2
    done
}
