# shellcheck shell=bash
# Tools, test data, certificates and builds for the benchmarks. Sourced by run.sh.

APT_UPDATED=0
apt_install() {
    command -v apt-get >/dev/null || die "missing $* and no apt-get to install it"
    if [ "$APT_UPDATED" = 0 ]; then
        log "apt-get update"
        DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null || die "apt-get update failed"
        APT_UPDATED=1
    fi
    log "apt-get install $*"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null || die "apt-get install $* failed"
}

# Installs nginx, wrk, curl, openssl, a C compiler, libcurl's headers (and the extra tools
# named as arguments: valgrind, strace), whichever are missing.
ensure_tools() {
    local missing=()
    command -v nginx >/dev/null || missing+=(nginx)
    command -v wrk >/dev/null || missing+=(wrk)
    command -v curl >/dev/null || missing+=(curl)
    command -v openssl >/dev/null || missing+=(openssl)
    command -v jq >/dev/null || missing+=(jq)
    command -v gcc >/dev/null || missing+=(gcc libc6-dev)
    [ -f /usr/include/curl/curl.h ] || [ -f /usr/include/x86_64-linux-gnu/curl/curl.h ] ||
        missing+=(libcurl4-openssl-dev)
    local tool
    for tool in "$@"; do command -v "$tool" >/dev/null || missing+=("$tool"); done
    if [ ${#missing[@]} -gt 0 ]; then apt_install "${missing[@]}"; fi
    command -v swift >/dev/null || die "swift is not on PATH"
}

# A CA and a localhost/127.0.0.1 server certificate signed by it, made fresh for each run.
make_certificates() {
    local dir="$RUN/tls"
    rm -rf "$dir" && mkdir -p "$dir"
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
        -subj "/CN=Curlew benchmark CA" -keyout "$dir/ca.key" -out "$dir/ca.pem" \
        -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign" \
        2>/dev/null || die "openssl could not make the CA"
    openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/CN=localhost" \
        -keyout "$dir/server.key" -out "$dir/server.csr" 2>/dev/null ||
        die "openssl could not make the server key"
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' \
        >"$dir/server.ext"
    openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" \
        -CAcreateserial -days 2 -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null ||
        die "openssl could not sign the server certificate"
}

# Makes a file of $2 MiB of random bytes at $1, unless one of that size is already there.
make_random_file() {
    local path=$1 mib=$2
    if [ -f "$path" ] && [ "$(stat -c %s "$path")" = $((mib * 1048576)) ]; then return 0; fi
    log "writing $mib MiB of random data to ${path#"$HERE"/}"
    head -c $((mib * 1048576)) /dev/urandom >"$path.tmp" && mv "$path.tmp" "$path" ||
        die "could not write $path"
}

make_data() {
    mkdir -p "$RUN/www"
    head -c 1024 /dev/urandom >"$RUN/www/small"
    head -c 8192 /dev/urandom >"$RUN/www/slow"
    head -c 65536 /dev/urandom >"$RUN/upload-check.bin"
    make_random_file "$RUN/www/big" "$BIG_MIB"
    make_random_file "$RUN/upload.bin" "$UPLOAD_MIB"
    BIG_BYTES=$((BIG_MIB * 1048576))
    UPLOAD_BYTES=$((UPLOAD_MIB * 1048576))
}

build_c_tools() {
    mkdir -p "$RUN/bin"
    gcc -O2 -Wall -o "$RUN/bin/rawcurl" "$HERE/C/rawcurl.c" -lcurl || die "rawcurl did not build"
    gcc -O2 -Wall -o "$RUN/bin/runstat" "$HERE/C/runstat.c" || die "runstat did not build"
}

# Builds the Swift products in release mode, one at a time. A product that fails is left
# out of the run with a loud message; so is Curlew when the root package does not load.
build_swift() {
    local product env_prefix=()
    SWIFT_BIN="$HERE/.build/release"
    CURLEW_BUILT=0
    if [ "$SKIP_BUILD" = 1 ]; then
        log "--no-build: using the binaries already in .build/release"
        [ -x "$SWIFT_BIN/curlew-bench" ] && CURLEW_BUILT=1
    else
        log "swift build -c release (the first build of AsyncHTTPClient takes several minutes)"
        # Tried twice: while the root sources are being edited, a first build can fail on a
        # stale plan ("missing inputs") and pass when planned again. The second try drops the
        # cached plan first: SwiftPM 6.3 keeps the root package's file list in it, so files
        # added to the root since the last build are "not in scope" until it is made again.
        if (cd "$HERE" && swift build -c release --product curlew-bench >"$RUN/build-curlew.log" 2>&1) ||
            (cd "$HERE" && rm -f .build/release.yaml .build/release/description.json &&
                swift build -c release --product curlew-bench >"$RUN/build-curlew.log" 2>&1); then
            CURLEW_BUILT=1
        else
            loud "the Curlew client did not build; it is SKIPPED in this run (see .run/build-curlew.log)"
            grep -m 5 -E "error:" "$RUN/build-curlew.log" >&2 || tail -5 "$RUN/build-curlew.log" >&2
            if ! (cd "$HERE" && swift package describe >/dev/null 2>&1); then
                loud "the root package does not load; building the peers with CURLEW_BENCH_PEERS_ONLY=1"
                env_prefix=(env CURLEW_BENCH_PEERS_ONLY=1)
            fi
        fi
        for product in bench-report ahc-bench urlsession-bench; do
            if ! (cd "$HERE" && "${env_prefix[@]}" swift build -c release --product "$product" \
                >"$RUN/build-$product.log" 2>&1); then
                loud "$product did not build; it is SKIPPED (see .run/build-$product.log)"
                grep -m 5 "error:" "$RUN/build-$product.log" >&2 || true
                rm -f "$SWIFT_BIN/$product"
            fi
        done
    fi
    [ -x "$SWIFT_BIN/bench-report" ] || die "bench-report is needed to write the tables"
}
