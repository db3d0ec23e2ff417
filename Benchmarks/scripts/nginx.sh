# shellcheck shell=bash
# The local nginx of the benchmarks: configuration, start, stop and a self-check.
# Sourced by run.sh; uses RUN (the run folder) and sets HTTP_PORT, TLS_PORT, SINK_PORT.

# Prints a free TCP port on 127.0.0.1, trying $1 first, then random high ports.
free_port() {
    local port=$1 tries=0
    while (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; do
        port=$((20000 + RANDOM % 30000))
        tries=$((tries + 1))
        [ "$tries" -lt 50 ] || { echo "no free port found" >&2; return 1; }
    done
    echo "$port"
}

# Writes $RUN/nginx/nginx.conf.
#  - worker_processes 1: nginx never takes more than one of the two cores, so every client
#    has at least one core to itself and the figures measure the client, not a fight for CPU.
#  - /upload reads the whole body (proxy request buffering; temp file on tmpfs) before
#    answering, then asks the sink server for the reply without the body: a client cannot
#    get its 200 before nginx has received every byte. The upload log records the length.
#  - /slow trickles an 8 KiB file at 1 KiB/s, so each response lasts about 7 seconds.
#  - /stub_status reports the connections nginx accepted (stub_status module), read before and
#    after each client's run; the upload log's upstream address marks each connection nginx
#    itself opened to the sink, which stub_status counts too.
write_nginx_conf() {
    local temp="$RUN/nginx/temp"
    if [ -d /dev/shm ] && [ -w /dev/shm ]; then
        temp="/dev/shm/curlew-bench-$$"
    fi
    NGINX_TEMP=$temp
    mkdir -p "$RUN/nginx/logs" "$temp"
    cat >"$RUN/nginx/nginx.conf" <<CONF
worker_processes 1;
worker_rlimit_nofile 20000;
pid $RUN/nginx/nginx.pid;
error_log $RUN/nginx/logs/error.log warn;
events { worker_connections 16384; multi_accept on; }
http {
    access_log off;
    default_type application/octet-stream;
    sendfile on;
    tcp_nopush on;
    tcp_nodelay on;
    keepalive_requests 100000;
    keepalive_timeout 300s;
    # Shares one descriptor per file among all requests: with 10,000 slow responses in flight
    # nginx would otherwise need 20,000 descriptors, past this machine's hard limit.
    open_file_cache max=64 inactive=300s;
    client_body_temp_path $temp/body;
    proxy_temp_path $temp/proxy;
    fastcgi_temp_path $temp/fastcgi;
    uwsgi_temp_path $temp/uwsgi;
    scgi_temp_path $temp/scgi;
    log_format upload '\$request_length \$status \$upstream_addr';
    server {
        listen 127.0.0.1:$HTTP_PORT backlog=4096;
        root $RUN/www;
        location = /small { }
        location = /big { }
        location = /slow { limit_rate 1k; }
        location = /stub_status { stub_status; }
        location = /upload {
            client_max_body_size 0;
            proxy_request_buffering on;
            proxy_pass_request_body off;
            proxy_set_header Content-Length "";
            proxy_pass http://127.0.0.1:$SINK_PORT/;
            access_log $RUN/nginx/logs/upload.log upload;
        }
    }
    server {
        listen 127.0.0.1:$SINK_PORT;
        location / { return 200 "ok\n"; }
    }
    server {
        listen 127.0.0.1:$TLS_PORT ssl http2 backlog=4096;
        ssl_certificate $RUN/tls/server.pem;
        ssl_certificate_key $RUN/tls/server.key;
        ssl_protocols TLSv1.2 TLSv1.3;
        ssl_session_cache shared:SSL:1m;
        http2_max_concurrent_streams 256;
        root $RUN/www;
        location = /small { }
        location = /big { }
    }
}
CONF
}

start_nginx() {
    HTTP_PORT=$(free_port 18080)
    SINK_PORT=$(free_port 18081)
    TLS_PORT=$(free_port 18443)
    write_nginx_conf
    : >"$RUN/nginx/logs/error.log"
    nginx -t -q -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" || die "nginx rejected its configuration"
    nginx -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" 9>&- || die "nginx did not start"
    local i
    for i in $(seq 50); do
        curl -sf -o /dev/null "http://127.0.0.1:$HTTP_PORT/small" && break
        sleep 0.1
    done
    log "nginx $(nginx -v 2>&1 | sed 's/.*\///') on 127.0.0.1: http $HTTP_PORT, https+h2 $TLS_PORT"
}

# Prints how many connections nginx has accepted since it started, this read's own included.
nginx_accepts() {
    local text
    text=$(curl -sf --noproxy '*' "http://127.0.0.1:$HTTP_PORT/stub_status") || return 1
    awk 'NR == 3 && $1 ~ /^[0-9]+$/ { print $1; found = 1 } END { exit !found }' <<<"$text"
}

# Prints how many connections nginx opened to its upload sink (one per proxied request).
nginx_upstream_connections() {
    awk '$3 != "" && $3 != "-"' "$RUN/nginx/logs/upload.log" 2>/dev/null | wc -l
}

nginx_alive() {
    [ -f "$RUN/nginx/nginx.pid" ] && kill -0 "$(cat "$RUN/nginx/nginx.pid" 2>/dev/null)" 2>/dev/null
}

# Restarts nginx on the same ports if something outside this run stopped it (on a shared
# machine another process may signal every nginx).
ensure_nginx() {
    nginx_alive && return 0
    loud "nginx is not running any more (stopped from outside this run); restarting it"
    rm -f "$RUN/nginx/nginx.pid"
    nginx -p "$RUN/nginx" -c "$RUN/nginx/nginx.conf" 9>&- || die "nginx did not restart"
    local i
    for i in $(seq 50); do
        curl -sf -o /dev/null "http://127.0.0.1:$HTTP_PORT/small" && return 0
        sleep 0.1
    done
    die "nginx restarted but does not answer"
}

stop_nginx() {
    if [ -f "$RUN/nginx/nginx.pid" ]; then
        local pid
        pid=$(cat "$RUN/nginx/nginx.pid")
        kill -QUIT "$pid" 2>/dev/null || true
        local i
        for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        rm -f "$RUN/nginx/nginx.pid"
    fi
    [ -n "${NGINX_TEMP:-}" ] && [ "${NGINX_TEMP#/dev/shm/curlew-bench-}" != "$NGINX_TEMP" ] &&
        rm -rf "$NGINX_TEMP"
    return 0
}

# Checks every endpoint with curl, including that an upload reaches nginx whole.
check_nginx() {
    local base="http://127.0.0.1:$HTTP_PORT" tls="https://localhost:$TLS_PORT" got
    got=$(curl -sf -o /dev/null -w '%{size_download}' "$base/small") || die "GET /small failed"
    [ "$got" = 1024 ] || die "/small sent $got bytes, not 1024"
    got=$(curl -sf -o /dev/null -r 0-99 -w '%{http_code}' "$base/big") || die "GET /big failed"
    got=$(curl -sf --http2 --cacert "$RUN/tls/ca.pem" -o /dev/null -w '%{http_version} %{size_download}' \
        "$tls/small") || die "GET over TLS with the run's CA failed"
    [ "$got" = "2 1024" ] || die "TLS /small answered '$got', expected HTTP/2 and 1024 bytes"
    : >"$RUN/nginx/logs/upload.log"
    got=$(curl -sf -T "$RUN/upload-check.bin" -o /dev/null -w '%{size_upload}' "$base/upload") ||
        die "PUT /upload failed"
    sleep 0.2
    local logged
    logged=$(awk '{print $1}' "$RUN/nginx/logs/upload.log" | tail -1)
    [ -n "$logged" ] && [ "$logged" -ge "$got" ] ||
        die "nginx logged a $logged-byte request for a $got-byte upload"
    # The connection count is exact: one GET and one upload (plus nginx's connection to the
    # sink) between two stub reads must count as two connections.
    local before after upstream
    before=$(nginx_accepts) || die "nginx's stub_status is not readable"
    upstream=$(nginx_upstream_connections)
    curl -sf -o /dev/null "$base/small" || die "GET /small failed"
    curl -sf -T "$RUN/upload-check.bin" -o /dev/null "$base/upload" || die "PUT /upload failed"
    sleep 0.2
    after=$(nginx_accepts) || die "nginx's stub_status is not readable"
    upstream=$(($(nginx_upstream_connections) - upstream))
    [ $((after - before - 1 - upstream)) = 2 ] ||
        die "stub_status counted $((after - before - 1 - upstream)) connections for 2 ($before → $after, $upstream to the sink)"
    log "nginx check ok: /small 1024 B, /big, TLS h2 with the run's CA, upload read whole ($logged B), connection count exact"
}
