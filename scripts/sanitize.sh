#!/usr/bin/env bash
# Builds the whole test suite with a sanitizer and runs it. Usage:
#
#   scripts/sanitize.sh [address|thread] [extra `swift test` arguments, e.g. --filter Cancellation]
#
# address (the default): AddressSanitizer with LeakSanitizer, scratch path .build-asan.
# thread: ThreadSanitizer, scratch path .build-tsan, built with -DCURLEW_TSAN so that Curlew's
#         Mutex is a pthread mutex TSan can see (Sources/Curlew/Support/TSanMutex.swift and
#         docs/SANITIZERS.md explain why, and what TSan still cannot see).
#
# `--sanitize=KIND` makes SwiftPM pass -sanitize=KIND to swiftc, -fsanitize=KIND to clang for
# every C target (CCurlShims, CDecompression, swift-nio's C shims) and the sanitizer runtime to
# the linker, so no -Xcc/-Xlinker flags are needed. libcurl, OpenSSL, zlib, brotli, zstd and
# libxml2 are the system's uninstrumented builds: ASan checks our calls into them (interceptors
# for memcpy, malloc/free and friends) but not their internals.
#
# The tests whose names contain "Memory" are skipped: they bound the resident memory of the test
# process, which is meaningless under a sanitizer (ASan's shadow memory and quarantine, TSan's
# shadow and history buffers multiply RSS several times over).
#
# Exits non-zero if the build or any test fails, or if the log holds any sanitizer report (a
# report that did not stop the process, e.g. a TSan race, still fails the run). The full log is
# kept in .build-asan/sanitize.log or .build-tsan/sanitize.log.
set -euo pipefail
cd "$(dirname "$0")/.."

kind="${1:-address}"
if (( $# > 0 )); then shift; fi
case "$kind" in
    address) scratch=.build-asan; extra=() ;;
    thread) scratch=.build-tsan; extra=(-Xswiftc -DCURLEW_TSAN) ;;
    *) echo "usage: $0 [address|thread] [swift test arguments]" >&2; exit 2 ;;
esac

scripts/install-deps.sh --tests

suppressions="$PWD/scripts/sanitizers"
# Every option is spelled out so that a report fails the run however the environment is set up.
#  - detect_leaks=1: LeakSanitizer at exit; lsan.supp names the third-party frames suppressed.
#  - halt_on_error=1 (ASan): the first memory error aborts with a report and a non-zero status.
#  - detect_stack_use_after_return=0: Swift's async frames live on the heap; the fake-stack mode
#    only costs time here.
#  - TSan: halt_on_error=0 so one run lists every race; exitcode=66 makes the process fail at
#    exit if there was any report. tsan.supp names what is suppressed, and why.
export ASAN_OPTIONS="detect_leaks=1:halt_on_error=1:abort_on_error=0:detect_stack_use_after_return=0:print_suppressions=0:strict_string_checks=0"
export LSAN_OPTIONS="suppressions=$suppressions/lsan.supp:print_suppressions=1"
export TSAN_OPTIONS="halt_on_error=0:exitcode=66:second_deadlock_stack=1:history_size=4:suppressions=$suppressions/tsan.supp:print_suppressions=0"
# Child processes the tests start (nginx, curl, openssl) are not instrumented; they ignore these.

mkdir -p "$scratch"
log="$scratch/sanitize.log"
: >"$log"

build=(swift build --build-tests --sanitize="$kind" --scratch-path "$scratch" ${extra[@]+"${extra[@]}"})
test=(swift test --skip-build --sanitize="$kind" --scratch-path "$scratch" ${extra[@]+"${extra[@]}"})

echo "== ${build[*]}" | tee -a "$log"
"${build[@]}" 2>&1 | tee -a "$log"

status=0
echo "== ${test[*]} --skip Memory $*" | tee -a "$log"
"${test[@]}" --skip Memory "$@" 2>&1 | tee -a "$log" || status=$?

# A sanitizer slows the code 2-15 times, and the machine is shared: tests that bound a wait
# (idle and minimum-speed rules, deadlines) can miss it in the parallel run. Tests that failed
# there run again, one at a time; a test that passes then was a timing casualty, and is listed.
failed=$(grep -E '^✘ Test [A-Za-z0-9_]+\(.*\) (with [0-9]+ test cases? )?failed after' "$log" \
    | sed -E 's/^✘ Test ([A-Za-z0-9_]+)\(.*/\1/' | sort -u | paste -sd'|' - || true)
if (( status != 0 )) && [[ -n "$failed" ]] && ! grep -qE '^==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer)' "$log"; then
    echo "== tests that failed in the parallel run, again one at a time: $failed" | tee -a "$log"
    status=0
    "${test[@]}" --no-parallel --filter "$failed" 2>&1 | tee -a "$log" || status=$?
    if (( status == 0 )); then
        echo "sanitize.sh: passed when run alone (timing under load, not a sanitizer finding): ${failed//|/, }" | tee -a "$log"
    fi
fi

reports=$(grep -cE '^(==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer)|WARNING: ThreadSanitizer|SUMMARY: (AddressSanitizer|LeakSanitizer|ThreadSanitizer|UndefinedBehaviorSanitizer))' "$log" || true)
if (( reports > 0 )); then
    echo "sanitize.sh: $kind sanitizer: $reports report line(s) in $log:" >&2
    grep -E '^SUMMARY: ' "$log" | sort | uniq -c | sort -rn | head -40 >&2 || true
    exit 1
fi
if (( status != 0 )); then
    echo "sanitize.sh: $kind: tests failed (status $status) with no sanitizer report; see $log" >&2
    exit "$status"
fi
echo "sanitize.sh: $kind sanitizer: no reports, all tests passed"
