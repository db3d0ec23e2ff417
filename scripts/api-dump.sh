#!/usr/bin/env bash
# Writes the public API of Curlew's library products to docs/api/<Module>.txt, one declaration a
# line, sorted, from the compiler's symbol graph: any change to the public surface shows in
# review as a change of those files. With --check, fails (exit 1) when the committed files are
# stale, which scripts/test.sh (and so CI) does. Usage: scripts/api-dump.sh [--check]
set -euo pipefail
cd "$(dirname "$0")/.."
# shellcheck source=scripts/swiftpm-tmp.sh
source scripts/swiftpm-tmp.sh
modules=(Curlew CurlewXML CurlewOpenAPI CurlewTesting)
graphs=.build/api-symbolgraph
rm -rf "$graphs"
swift package dump-symbol-graph --minimum-access-level public --skip-synthesized-members >/dev/null
source_dir=$(swift build --show-bin-path)/../symbolgraph
mkdir -p "$graphs"
cp "$source_dir"/*.symbols.json "$graphs"/
out=docs/api
if [[ "${1:-}" == "--check" ]]; then
    out=$(mktemp -d "${TMPDIR:-/tmp}/curlew-api.XXXXXX")
    # Removed however the script ends (a failed step, an interrupt), not only on its last lines.
    trap 'rm -rf "$out"' EXIT
fi
python3 - "$graphs" "$out" "${modules[@]}" <<'PY'
import json, pathlib, sys
graphs, out, modules = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2]), sys.argv[3:]
out.mkdir(parents=True, exist_ok=True)
for module in modules:
    lines = set()
    for path in sorted(graphs.glob(f"{module}.symbols.json")) + sorted(graphs.glob(f"{module}@*.symbols.json")):
        extended = path.stem.split("@")[1].split(".")[0] if "@" in path.stem else None
        for symbol in json.loads(path.read_text())["symbols"]:
            if symbol.get("accessLevel") not in ("public", "open") or "::SYNTHESIZED::" in symbol["identifier"]["precise"]:
                continue
            declaration = "".join(f["spelling"] for f in symbol.get("declarationFragments", []))
            owner = ".".join(symbol["pathComponents"][:-1])
            where = f"{extended}." if extended else ""
            lines.add(f"{where}{owner + ': ' if owner else ''}{' '.join(declaration.split())}")
    text = f"# The public API of {module}: one declaration a line (scripts/api-dump.sh). {len(lines)} declarations.\n"
    (out / f"{module}.txt").write_text(text + "".join(line + "\n" for line in sorted(lines)))
    print(f"{module}: {len(lines)} public declarations")
PY
if [[ "${1:-}" == "--check" ]]; then
    if ! diff -ru docs/api "$out" >/dev/null; then
        diff -ru docs/api "$out" | head -40
        rm -rf "$out"
        echo "error: docs/api is stale: the public API changed; run scripts/api-dump.sh and commit the result" >&2
        exit 1
    fi
    rm -rf "$out"
    echo "docs/api matches the public API"
fi
