#!/usr/bin/env bash
# Installs the Debian packages Curlew needs that are missing. Usage: install-deps.sh [--tests]
set -euo pipefail

# zlib, brotli and zstd: Curlew decodes content codings itself (docs/ARCHITECTURE.md).
packages=(libcurl4-openssl-dev libxml2-dev pkg-config zlib1g-dev libbrotli-dev libzstd-dev libssl-dev libpsl-dev)
if [[ "${1:-}" == "--tests" ]]; then
    # nginx and openssl for TLS and HTTP/2 tests, the curl CLI for the cURL-command and smoke
    # tests (the test server's encoders use the same zlib, brotli and zstd packages), tinyproxy
    # (HTTP proxy) and microsocks (SOCKS5) for the proxy tests, stunnel4 (TLS in front
    # of tinyproxy: an HTTPS proxy), iproute2 (`ip netns`, veth pairs) for the reachability tests,
    # bsdutils (`script`: the curlew CLI tests run it in a pseudo-terminal), python3-h2 (the
    # HTTP/2 server that reports stream priorities, run with /usr/bin/python3).
    packages+=(nginx-light openssl curl tinyproxy microsocks stunnel4 iproute2 bsdutils python3-h2)
fi

missing=()
for package in "${packages[@]}"; do
    if ! dpkg-query -W -f='${Status}' "$package" 2>/dev/null | grep -q "install ok installed"; then
        missing+=("$package")
    fi
done
# nginx-light or nginx-full both provide /usr/sbin/nginx.
if [[ " ${missing[*]-} " == *" nginx-light "* ]] && [[ -x /usr/sbin/nginx ]]; then
    missing=("${missing[@]/nginx-light}")
fi
missing=(${missing[@]+"${missing[@]}"})

if (( ${#missing[@]} > 0 )); then
    echo "Installing missing packages: ${missing[*]}"
    sudo=""
    if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
    export DEBIAN_FRONTEND=noninteractive
    $sudo apt-get update -qq
    $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# Python modules of the HAR schema check (Tests/CurlewTests/Resources/HAR/validate-har.py):
# jsonschema with the HAR 1.2 schema there, and haralyzer, a HAR reader independent of Curlew.
if [[ "${1:-}" == "--tests" ]]; then
    if ! python3 -c 'import jsonschema, haralyzer' 2>/dev/null; then
        echo "Installing Python modules: jsonschema haralyzer"
        python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore jsonschema haralyzer \
            || python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --break-system-packages jsonschema haralyzer
    fi
    # Python's `websockets` (PyPI) for the WebSocket tests' everyday server
    # (Tests/TestServer/Scripts/websocket_echo_server.py), for the python3 the tests find in PATH;
    # a user install, so that Debian's own Python packages stay as they are.
    if ! python3 -c 'import websockets, sys; sys.exit(0 if int(websockets.__version__.split(".")[0]) >= 14 else 1)' 2>/dev/null; then
        echo "Installing websockets (PyPI) for $(command -v python3)"
        python3 -m pip install --user --quiet 'websockets==17.4' \
            || python3 -m pip install --user --quiet --break-system-packages 'websockets==17.4'
    fi
    # dnslib (PyPI), an independent DNS wire-format codec that checks the test server's own
    # (Tests/TestServer/DNSMessage.swift, behind its DNS-over-HTTPS route).
    if ! python3 -c 'import dnslib' 2>/dev/null; then
        echo "Installing Python modules: dnslib"
        python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore 'dnslib==0.9.26' \
            || python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --break-system-packages 'dnslib==0.9.26'
    fi
    # The Autobahn test suite is not part of `swift test`: scripts/autobahn.sh installs it.
fi
