#!/usr/bin/env bash
# Regenerates the committed OpenAPI code (Tests/CurlewOpenAPITests/Generated and
# Examples/Sources/OpenAPIClient/Generated) from Tests/CurlewOpenAPITests/openapi.yaml.
#
# The generator is built in a scratch package under .build (git-ignored; first run: a few
# minutes, later runs reuse it), so neither CI nor the library's build ever compiles it, and
# nothing is left in the system's temporary folder. Run after editing the
# document, and commit what it writes.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
scratch="${OPENAPI_GENERATOR_SCRATCH:-$root/.build/openapi-generator}"
version="1.14.3"

mkdir -p "$scratch/Sources/Placeholder"
cat > "$scratch/Package.swift" <<MANIFEST
// swift-tools-version:6.0
import PackageDescription
let package = Package(
    name: "curlew-openapi-generator",
    dependencies: [.package(url: "https://github.com/apple/swift-openapi-generator", exact: "$version")],
    targets: [.target(name: "Placeholder")]
)
MANIFEST
echo "" > "$scratch/Sources/Placeholder/Placeholder.swift"
swift build --package-path "$scratch" --product swift-openapi-generator >&2
generator="$(swift build --package-path "$scratch" --product swift-openapi-generator --show-bin-path)/swift-openapi-generator"

spec="$root/Tests/CurlewOpenAPITests/openapi.yaml"
# Tests: types, client and server stubs.
"$generator" generate "$spec" \
    --config "$root/Tests/CurlewOpenAPITests/openapi-generator-config.yaml" \
    --output-directory "$root/Tests/CurlewOpenAPITests/Generated"
# The example: types and client only.
"$generator" generate "$spec" \
    --config "$root/Examples/Sources/OpenAPIClient/openapi-generator-config.yaml" \
    --output-directory "$root/Examples/Sources/OpenAPIClient/Generated"
echo "Regenerated; commit the changes under Generated/." >&2
