#!/usr/bin/env python3
"""Checks a HAR file with readers independent of Curlew: the HAR 1.2 JSON schema beside this
script (jsonschema), haralyzer's parser, and the spec's rule that an entry's time is the sum
of its timings (ssl excluded, -1 phases left out). Exits 0 when all accept it, 1 with the
reasons otherwise, 2 when a module is missing (run scripts/install-deps.sh --tests)."""
import json
import os
import sys

try:
    import jsonschema
    from haralyzer import HarParser
except ImportError as error:
    print(f"missing Python module: {error.name}; run scripts/install-deps.sh --tests", file=sys.stderr)
    sys.exit(2)

har_path = sys.argv[1]
schema_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "har-1.2.schema.json")
with open(har_path, encoding="utf-8") as file:
    har = json.load(file)
with open(schema_path, encoding="utf-8") as file:
    schema = json.load(file)

problems = []
validator = jsonschema.Draft202012Validator(schema)
for error in validator.iter_errors(har):
    location = "/".join(str(part) for part in error.absolute_path)
    problems.append(f"schema: {location}: {error.message}")

for index, entry in enumerate(har.get("log", {}).get("entries", [])):
    timings = entry.get("timings", {})
    phases = [timings.get(name, -1) for name in ("blocked", "dns", "connect", "send", "wait", "receive")]
    total = sum(phase for phase in phases if isinstance(phase, (int, float)) and phase >= 0)
    if abs(total - entry.get("time", -1)) > 0.01:
        problems.append(f"entries/{index}: time {entry.get('time')} is not the sum of its timings ({total})")

try:
    parser = HarParser(har)
    entries = [entry for page in parser.pages for entry in page.entries] if parser.pages else []
    count = len(har["log"]["entries"])
    # haralyzer groups entries by page; a log without pages is read entry by entry.
    if not parser.pages:
        from haralyzer import HarEntry
        entries = [HarEntry(raw) for raw in har["log"]["entries"]]
    for entry in entries:
        _ = (entry.request.method, entry.request.url, entry.response.status, entry.timings, entry.time)
    if len(entries) != count:
        problems.append(f"haralyzer: read {len(entries)} entries of {count}")
except Exception as error:  # haralyzer raises its own and plain errors alike
    problems.append(f"haralyzer: {type(error).__name__}: {error}")

if problems:
    print("\n".join(problems), file=sys.stderr)
    sys.exit(1)
print(f"ok: {len(har['log']['entries'])} entries")
