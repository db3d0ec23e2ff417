#!/usr/bin/env bash
# Builds and runs Curlew's libFuzzer targets (Fuzz/, see Fuzz/README.md).
#
#   scripts/fuzz.sh --list                 the targets
#   scripts/fuzz.sh --build [TARGET]       build one target (or all of them)
#   scripts/fuzz.sh TARGET SECONDS [ARGS]  build if needed, then fuzz TARGET for SECONDS,
#                                          extra ARGS going to libFuzzer (e.g. -jobs=1, -dict=…)
#   scripts/fuzz.sh TARGET --run FILE...   replay inputs (a crash artifact) without fuzzing
#
# Builds are debug builds (so `@testable import Curlew` works) with
# `-sanitize=fuzzer,address`, in Fuzz/.build. Fuzzing runs under `nice -n 10`, one process.
# The seed corpus Fuzz/Corpus/TARGET/ is read only; what the fuzzer finds goes to
# Fuzz/.corpus/TARGET/ and crash inputs to Fuzz/artifacts/TARGET/ (both git-ignored).
set -euo pipefail
caller=$PWD
cd "$(dirname "$0")/../Fuzz"

targets() {
    for dir in Sources/*/; do
        name=$(basename "$dir")
        case "$name" in FuzzSupport | CFuzzSupport) ;; *) echo "$name" ;; esac
    done
}

usage() {
    sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
    exit 2
}

build() {
    local product=("$@")
    local args=()
    for name in "${product[@]}"; do args+=(--product "$name"); done
    if [ ${#product[@]} -eq 0 ]; then args=(); fi
    # One product per invocation: SwiftPM accepts a single --product.
    if [ ${#product[@]} -le 1 ]; then
        nice -n 10 swift build --scratch-path .build -Xswiftc -sanitize=fuzzer,address "${args[@]}"
    else
        for name in "${product[@]}"; do
            nice -n 10 swift build --scratch-path .build -Xswiftc -sanitize=fuzzer,address --product "$name"
        done
    fi
}

check_target() {
    local name
    for name in $(targets); do [ "$name" = "$1" ] && return 0; done
    if true; then
        echo "unknown target '$1'; targets: $(targets | tr '\n' ' ')" >&2
        exit 2
    fi
}

[ $# -ge 1 ] || usage
case "$1" in
--list)
    targets
    exit 0
    ;;
--build)
    if [ $# -ge 2 ]; then check_target "$2"; build "$2"; else build; fi
    exit 0
    ;;
-*) usage ;;
esac

target=$1
shift
check_target "$target"
[ $# -ge 1 ] || usage
binary=.build/debug/$target
# Rebuild when any source is newer than the binary (SwiftPM's own check is slower).
if [ ! -x "$binary" ] || [ -n "$(find Sources Package.swift ../Sources ../Package.swift -newer "$binary" -print -quit)" ]; then
    build "$target"
fi

# Swift's runtime keeps caches that LeakSanitizer would report at exit: leaks are not checked.
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0}
# Swift's own crash backtracer would race AddressSanitizer's report.
export SWIFT_BACKTRACE=${SWIFT_BACKTRACE:-enable=no}

if [ "$1" = "--run" ]; then
    shift
    files=()
    for file in "$@"; do
        case "$file" in /* | -*) files+=("$file") ;; *) files+=("$caller/$file") ;; esac
    done
    exec nice -n 10 "$binary" "${files[@]}"
fi

seconds=$1
shift
case "$seconds" in '' | *[!0-9]*) usage ;; esac
mkdir -p ".corpus/$target" "artifacts/$target"
exec nice -n 10 "$binary" -max_total_time="$seconds" -print_final_stats=1 -detect_leaks=0 \
    -artifact_prefix="artifacts/$target/" "$@" ".corpus/$target" "Corpus/$target"
