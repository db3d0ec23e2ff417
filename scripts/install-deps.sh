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
    # bsdutils (`script`: the curlew CLI tests run it in a pseudo-terminal).
    packages+=(nginx-light openssl curl tinyproxy microsocks stunnel4 iproute2 bsdutils)
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
