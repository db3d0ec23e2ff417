// swift-tools-version:6.0
import PackageDescription

// Curlew's libFuzzer targets: one executable per target, each defining
// `LLVMFuzzerTestOneInput`. Build and run them with `scripts/fuzz.sh` (see README.md), which
// passes `-Xswiftc -sanitize=fuzzer,address` and uses this folder's own scratch path.
//
// The targets reach Curlew's internal types with `@testable import`, which works because
// SwiftPM compiles every module of a debug build with testability enabled; the fuzz builds
// are therefore always debug builds.

/// The fuzz targets: the executable `fuzz-NAME` is built from `Sources/NAME`.
let fuzzTargets: [(name: String, dependencies: [Target.Dependency])] = [
    ("urlform", [.product(name: "Curlew", package: "Curlew")]),
    ("multipart", [.product(name: "Curlew", package: "Curlew")]),
    ("framing", [.product(name: "Curlew", package: "Curlew")]),
    ("sse", [.product(name: "Curlew", package: "Curlew")]),
    ("setcookie", [.product(name: "Curlew", package: "Curlew")]),
    ("cookiedate", [.product(name: "Curlew", package: "Curlew")]),
    ("headerfield", [.product(name: "Curlew", package: "Curlew"), .product(name: "HTTPTypes", package: "swift-http-types")]),
    ("headerline", [.product(name: "Curlew", package: "Curlew"), .product(name: "HTTPTypes", package: "swift-http-types")]),
    ("xmlrecords", [.product(name: "Curlew", package: "Curlew"), .product(name: "CurlewXML", package: "Curlew")]),
    ("contentdecoder", [.product(name: "Curlew", package: "Curlew"), "CFuzzSupport"]),
    ("netlink", [.product(name: "Curlew", package: "Curlew")]),
]

let package = Package(
    name: "CurlewFuzz",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named, so that the root package is "Curlew" whatever its folder is called.
        .package(name: "Curlew", path: ".."),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
    ],
    targets: [
        // Reading structured values from fuzz bytes, chunkings, checks.
        .target(name: "FuzzSupport", dependencies: ["CFuzzSupport"]),
        // libFuzzer's driver entry point, and zlib, brotli and zstd encoders to make valid coded
        // inputs from the fuzz bytes.
        .target(
            name: "CFuzzSupport",
            linkerSettings: [
                .linkedLibrary("z"), .linkedLibrary("brotlienc"), .linkedLibrary("brotlidec"),
                .linkedLibrary("zstd"),
            ]
        ),
    ] + fuzzTargets.map { target in
        .executableTarget(
            name: target.name,
            dependencies: ["FuzzSupport"] + target.dependencies,
            path: "Sources/\(target.name)",
            swiftSettings: [.unsafeFlags(["-parse-as-library"])]
        )
    },
    swiftLanguageModes: [.v6]
)
