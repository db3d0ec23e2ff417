#!/usr/bin/env bash
# Line coverage of Sources/Curlew and Sources/CurlewXML, per file, lowest first, plus totals.
#
#   scripts/coverage.sh [--no-run] [extra `swift test` arguments, e.g. --filter Suite]
#
# Builds the tests with coverage into their own scratch path (.build-coverage), so the normal
# .build is not rebuilt, then runs the parallel phase only (`--skip Memory`): the Memory tests
# measure resident memory and add no coverage of their own that matters here. The profile data
# the run writes (codecov/*.profraw) is merged with `llvm-profdata` and read with `llvm-cov report`.
# --no-run reports the profile data of the previous run without building or running.
# Instrumented code is slower: tests with timing bounds may fail here and pass in the normal
# build. The coverage of such a run is still reported, with a warning and a failing status.
set -euo pipefail
cd "$(dirname "$0")/.."

scratch=.build-coverage
run=true
if [[ "${1:-}" == "--no-run" ]]; then
    run=false
    shift
fi

# llvm-cov ships next to the Swift toolchain's swift binary.
swift_bin=$(dirname "$(readlink -f "$(command -v swift)")")
llvm_cov="$swift_bin/llvm-cov"
if [[ ! -x "$llvm_cov" ]]; then
    llvm_cov=$(command -v llvm-cov || true)
fi
if [[ -z "$llvm_cov" ]]; then
    echo "error: llvm-cov not found next to $swift_bin/swift nor on PATH" >&2
    exit 1
fi

if $run; then
    # Offline-friendly: reuse dependencies the normal build already fetched, if any.
    if [[ ! -d "$scratch/checkouts" && -d .build/checkouts && -d .build/repositories ]]; then
        mkdir -p "$scratch"
        cp -R .build/repositories .build/checkouts "$scratch/"
        if [[ -f .build/workspace-state.json ]]; then cp .build/workspace-state.json "$scratch/"; fi
    fi
    swift build --build-tests --enable-code-coverage --scratch-path "$scratch"
    # Stale profiles from an earlier run would be merged into this one.
    rm -rf "$("$swift_bin/swift" build --scratch-path "$scratch" --show-bin-path)/codecov"
    # A failing test still leaves coverage worth reading; report its status at the end.
    set +e
    swift test --skip-build --enable-code-coverage --scratch-path "$scratch" --skip Memory "$@"
    test_status=$?
    set -e
else
    test_status=0
fi

bin_path=$(swift build --scratch-path "$scratch" --show-bin-path)
# SwiftPM merges the raw profiles into default.profdata only when every test passed, so merge
# them here, whatever the outcome.
shopt -s nullglob
raw_profiles=("$bin_path"/codecov/*.profraw)
shopt -u nullglob
if ((${#raw_profiles[@]} == 0)); then
    echo "error: no raw profiles in $bin_path/codecov (run without --no-run first)" >&2
    exit 1
fi
profdata="$bin_path/codecov/merged.profdata"
"$swift_bin/llvm-profdata" merge -sparse "${raw_profiles[@]}" -o "$profdata"
binary=$(find "$bin_path" -maxdepth 1 -name '*PackageTests.xctest' | head -n 1)
if [[ -d "$binary" ]]; then # macOS bundles the executable
    binary="$binary/Contents/MacOS/$(basename "$binary" .xctest)"
fi
if [[ -z "$binary" || ! -f "$binary" ]]; then
    echo "error: no test binary in $bin_path" >&2
    exit 1
fi

sources="$PWD/Sources"
report=$("$llvm_cov" report "$binary" -instr-profile="$profdata" \
    "$sources/Curlew" "$sources/CurlewXML")

# llvm-cov report columns: Filename, Regions, Missed, Cover, Functions, Missed, Executed,
# Lines, Missed Lines, Cover, Branches, Missed, Cover. Print the line columns per file.
echo
printf '%8s %7s %7s  %s\n' "Lines" "Missed" "Cover" "File"
echo "$report" | awk -v prefix="$sources/" '
    $1 ~ /\.swift$/ {
        file = $1; sub("^" prefix, "", file)
        total = $8; missed = $9
        cover = total > 0 ? 100 * (total - missed) / total : 100
        printf "%8d %7d %6.2f%%  %s\n", total, missed, cover, file
    }' | sort -k3,3n -k4,4
echo "$report" | awk -v prefix="$sources/" '
    $1 ~ /\.swift$/ {
        file = $1; sub("^" prefix, "", file)
        split(file, parts, "/"); module = parts[1]
        lines[module] += $8; missed[module] += $9
        all += $8; allMissed += $9
    }
    END {
        print ""
        for (m in lines) printf "%8d %7d %6.2f%%  TOTAL %s\n", lines[m], missed[m], 100 * (lines[m] - missed[m]) / lines[m], m
        printf "%8d %7d %6.2f%%  TOTAL\n", all, allMissed, 100 * (all - allMissed) / all
    }'

if ((test_status != 0)); then
    echo "warning: the test run failed (status $test_status); coverage is of that run" >&2
    exit "$test_status"
fi
