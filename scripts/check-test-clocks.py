#!/usr/bin/env python3
"""Finds wall-clock upper bounds in tests that run in the parallel phase.

scripts/test.sh runs the tests whose identifiers match Memory|Timing|Threads|Descriptors one at
a time, and all others in parallel. A parallel test shares the machine with every other test
(and, on a contributor's laptop or a CI runner, with other work), so a bound on elapsed time
there fails when the machine is busy, not when the code is wrong. Such a test waits on events
instead; a deadline only turns a hang into a failure (see HangGuard, waitUntil). This script
lists every comparison of elapsed time against an upper limit outside the serial suites, and
exits 1 if it finds one.

A line counts as a bound when it compares a difference of instants (`… .now - start <`) or a
value named like an elapsed time (`elapsed <`, `duration <=`) with `<` or `<=`. A test is
serial when its type's or its function's name contains one of the serial words.
"""
import pathlib
import re
import sys

SERIAL = re.compile(r"Memory|Timing|Threads|Descriptors")
BOUND = re.compile(r"(\.now\s*-\s*[A-Za-z_][A-Za-z_0-9.]*\s*<=?[^<])|(\b[A-Za-z_]*([Ee]lapsed|[Dd]uration)\b\s*<=?[^<])")
TYPE = re.compile(r"^\s*(?:@\w+(?:\([^)]*\))?\s*)*(?:public\s+|private\s+|fileprivate\s+|internal\s+|final\s+)*(?:struct|class|enum|actor|extension)\s+([A-Za-z_][A-Za-z_0-9]*)")
FUNC = re.compile(r"\bfunc\s+([A-Za-z_][A-Za-z_0-9]*)")


def findings(path: pathlib.Path):
    type_name, func_name = "", ""
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        code = line.split("//", 1)[0]
        if match := TYPE.match(code):
            type_name, func_name = match.group(1), ""
        if match := FUNC.search(code):
            func_name = match.group(1)
        if BOUND.search(code) and not SERIAL.search(type_name) and not SERIAL.search(func_name):
            yield f"{path}:{number}: {type_name}.{func_name}: {line.strip()}"


def main() -> int:
    root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else "Tests")
    found = [finding for path in sorted(root.rglob("*.swift")) for finding in findings(path)]
    for finding in found:
        print(finding)
    if found:
        print(
            "error: wall-clock upper bounds in parallel tests (they fail on a busy machine): wait on events, "
            "or move the bound into a suite or test whose name says Timing",
            file=sys.stderr,
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
